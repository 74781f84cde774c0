"""A three-seat toy game with planted kingmaker rounds, for the kingmaking lens.

Each game index draws its type: ``king`` (seat 2, who cannot win, chooses which of seats 0 and
1 gets a decisive bonus), ``flat`` (seat 2 cannot win and its choice barely matters) or
``alive`` (seat 2's choice swings the game but it can still win). Seat 0 or 1 leads by at
least 30 points over the two options (the favourite of one option far more than of the
other). ``FILLER`` decisions that
change nothing come first. Its positions keep the forward model's protocol (``to_act``,
``current``, ``history``, ``copy``, ``step``, ``play``, ``done``, ``values``); ``values``
draws its playouts from the exact outcome probabilities with one uniform per playout shared
by every option (common random numbers)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

FILLER = 4
"""Decisions before the planted round (seats 0, 1, 2, 0), none of which changes anything."""

CHOOSER = 2
TYPES = ("king", "flat", "alive")


class Current(NamedTuple):
    seat: int
    kind: str
    options: tuple[str, ...]


@dataclass(frozen=True)
class Spec:
    """A game's type and the winner's probabilities [options, seats] under each option of
    the planted round."""

    type: str
    final: np.ndarray


def spec(seed: int, game: int) -> Spec:
    rng = np.random.default_rng([seed, game])
    kind = TYPES[rng.integers(3)]
    a, b = rng.uniform(0.9, 0.97), rng.uniform(0.55, 0.6)   # each option's favourite's chance
    if kind == "king":                                  # swing at least 0.45 for seats 0 and 1
        final = np.array([[a, 1 - a, 0.0], [1 - b, b, 0.0]])
    elif kind == "flat":                                # swing at most 0.05
        d = rng.uniform(0, 0.05)
        final = np.array([[a, 1 - a, 0.0], [a - d, 1 - a + d, 0.0]])
    else:                                               # the chooser keeps 15-40%
        c = rng.uniform(0.15, 0.4)
        final = np.array([[(1 - c) * a, (1 - c) * (1 - a), c],
                          [(1 - c) * (1 - b), (1 - c) * b, c]])
    if rng.integers(2):                                 # seat 1 the leader, not seat 0
        final = final[::-1, [1, 0, 2]]
    return Spec(kind, np.ascontiguousarray(final))


class ToyGame:
    n_players = 3

    def __init__(self, spec_: Spec, choices: tuple[int, ...] = ()):
        self.spec = spec_
        self._choices = list(choices)

    @property
    def done(self) -> bool:
        return len(self._choices) > FILLER

    @property
    def history(self) -> tuple[int, ...]:
        return tuple(self._choices)

    @property
    def to_act(self) -> tuple[int, int] | None:
        k = len(self._choices)
        if self.done:
            return None
        return (CHOOSER if k == FILLER else k % 3), 2

    @property
    def current(self) -> Current | None:
        if self.done:
            return None
        kind = "crown" if len(self._choices) == FILLER else "filler"
        return Current(self.to_act[0], kind, ("a", "b"))

    def copy(self) -> ToyGame:
        return ToyGame(self.spec, tuple(self._choices))

    def step(self, i: int) -> ToyGame:
        if self.done or i not in (0, 1):
            raise ValueError(f"no option {i!r} here")
        self._choices.append(int(i))
        return self

    def play(self, policies) -> ToyGame:
        """Each seat picks at random from the game's own stream (the policies are not
        consulted: every toy seat plays alike)."""
        rng = np.random.default_rng([len(self._choices), int(self.spec.final.sum() * 1e6)])
        while not self.done:
            self.step(int(rng.integers(2)))
        return self

    def exact(self) -> np.ndarray:
        """Each option's win probability per seat [options, seats]: at a filler decision
        both options lead to the planted round, the chooser picking at random there."""
        if len(self._choices) == FILLER:
            return self.spec.final.copy()
        return np.repeat(self.spec.final.mean(axis=0, keepdims=True), 2, axis=0)

    def values(self, seed: int, playouts: int = 16, playout=None) -> np.ndarray:
        p = self.exact()
        u = np.random.default_rng(seed).random(playouts)
        winner = np.minimum((u[None, :, None] >= np.cumsum(p, axis=1)[:, None, :]).sum(axis=2), 2)
        return np.stack([(winner == s).mean(axis=1) for s in range(3)], axis=1)


def new_game(seed: int, game: int) -> ToyGame:
    return ToyGame(spec(seed, game))


def coverage(replicates: int = 200, games: int = 100, first_seed: int = 1000) -> str:
    """How often the kingmaking lens's intervals hold the planted truths: the share of games
    with a kingmaker decision (1/3: one type in three) and the mean swing of the planted
    decisions (a + b - 1 averaged over the draws of a and b: 0.935 + 0.575 - 1)."""
    from analyses.kingmaking import measure
    share = swing = 0
    for seed in range(first_seed, first_seed + replicates):
        r = measure(lambda p, g, s=seed: new_game(s, g), [3], games, lambda p: ["random"] * 3,
                    seed=seed)
        row = r.summary.row(0, named=True)
        share += row["share_low"] <= 1 / 3 <= row["share_high"]
        swing += row["swing_low"] <= 0.935 + 0.575 - 1 <= row["swing_high"]
    return (f"{replicates} replicates of {games} games: the share's interval holds 1/3 in "
            f"{share / replicates:.1%}, the mean swing's holds 0.51 in {swing / replicates:.1%}")


if __name__ == "__main__":
    print(coverage())
