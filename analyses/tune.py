"""Tuning a built-in heuristic's weights against a field of opponents (``simcore.tune``'s
NTBEA), and the tuned policy's gain over the untuned one, measured on fresh games.

Each evaluation plays the candidate weights in one seat against the field in the others, on
one block of ``games`` game indices of the tuning seed, once with the candidate in every seat
(seats rotated; every rotation replays the same games: common random numbers, so the deal's
luck cancels between seats). Its fitness is the candidate's mean win share. Evaluation i plays
block i, so no two evaluations of the search share games; the final race (``simcore.tune``)
plays its finalists, the untuned weights among them, on the same ``final`` blocks after the
search's. The check then plays the tuned and the untuned heuristic, seat by seat, on
``check_games`` game indices after every block the tuning played (fresh games, never the
ones it was tuned on), and gives the mean per game index of (tuned's win share - untuned's
win share) with a paired 95% interval.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from simcore.progress import Progress, ProgressArg
from simcore.runner import check_int
from simcore.tune import ntbea

from .compare import fixed_interval, fixed_label
from .games import check_players, check_policies, check_run, game_module, policy_name

LEVELS = 7
"""Values tried per weight given as a (low, high) range."""


@dataclass(frozen=True)
class Tuned:
    """A tuning run and its check on fresh games."""

    game: str
    base: str
    policy: Any                   # the tuned heuristic (``GAME.heuristic``)
    params: dict                  # the tuned weights
    untuned: dict                 # the base's values of the same weights
    field: tuple[str, ...]        # the opponents in the other seats (rotated with the seat)
    players: int
    evaluations: int              # the search's, then the race's (finalists x final)
    games_tuning: int             # games the tuning played (evaluations x games x players)
    estimate: float               # the tuned win share in the race (the best of several)
    race: tuple                   # (weights, win share) of each finalist in the race
    check_seeds: int              # fresh game indices of the check, each in every seat
    win_tuned: float              # win share in the check (ties split)
    win_untuned: float
    gain: float                   # mean per game index of tuned - untuned win share
    ci_low: float
    ci_high: float
    p_value: float
    interval: str

    def table(self) -> pl.DataFrame:
        row = {k: v for k, v in self.__dict__.items()
               if k not in ("params", "untuned", "race")}
        row["policy"] = policy_name(self.policy)
        row["field"] = ", ".join(self.field)
        return pl.DataFrame([row])

    def __str__(self) -> str:
        weights = ", ".join(f"{k} {self.untuned[k]:g} -> {v:g}" for k, v in self.params.items())
        if self.params == self.untuned:
            weights += "; no weights found that beat the untuned ones in the final race"
        return "\n".join([
            f"{self.game}: {self.base} tuned against {', '.join(self.field)} at "
            f"{self.players} players ({self.evaluations} evaluations, "
            f"{self.games_tuning:,} games)",
            f"tuned: {policy_name(self.policy)}  ({weights})",
            f"check on {self.check_seeds:,} fresh game indices x {self.players} seats: win "
            f"share {self.win_tuned:.3f} tuned vs {self.win_untuned:.3f} untuned",
            f"gain {self.gain:+.4f}  95% [{self.ci_low:+.4f}, {self.ci_high:+.4f}]  "
            f"p = {self.p_value:.3g}  ({self.interval})"])


def _levels(weights: Any, params: Mapping[str, Any], levels: int) -> dict[str, list[float]]:
    """Each tuned weight's values: a (low, high) range as ``levels`` even steps, or a list."""
    if not isinstance(params, Mapping) or not params:
        raise ValueError(f"params must map weight names to (low, high) ranges or lists of "
                         f"values, got {params!r}; weights are {list(weights.names)}")
    out = {}
    for name, spec in params.items():
        if name not in weights.names:
            raise ValueError(f"unknown heuristic weight {name!r}; weights are "
                             f"{list(weights.names)}")
        if isinstance(spec, tuple) and len(spec) == 2:
            lo, hi = (float(x) for x in spec)
            if not lo < hi:
                raise ValueError(f"weight {name!r}: range {spec!r} needs low < high")
            vals = [float(round(v, 6)) for v in np.linspace(lo, hi, levels)]
        elif isinstance(spec, Sequence) and not isinstance(spec, str) and len(spec):
            vals = sorted({float(v) for v in spec})
        else:
            raise ValueError(f"weight {name!r}: give a (low, high) range or a list of "
                             f"values, got {spec!r}")
        blo, bhi = weights.bounds[weights.names.index(name)]
        bad = [v for v in vals if not (blo <= v <= bhi)]
        if bad:
            raise ValueError(f"weight {name!r}: {bad[0]:g} is out of range [{blo:g}, {bhi:g}]")
        out[name] = vals
    return out


def _seatings(cand: Any, field: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The candidate in seat k = 0 .. P-1, the field in the other seats in its order."""
    return [tuple(field[:k]) + (cand,) + tuple(field[k:]) for k in range(len(field) + 1)]


def seat_shares(mod: Any, cand: Any, field: Sequence[Any], n: int, seed: int, first: int,
                rules: Any) -> np.ndarray:
    """The candidate's win share per game index (``first`` ..), averaged over its seats."""
    kwargs = {} if rules is None else {"rules": rules}
    out = np.zeros(n)
    for k, seating in enumerate(_seatings(cand, field)):
        df = mod.simulate(list(seating), n, seed, progress=False, first_game=first, **kwargs)
        out += df.filter(pl.col("seat") == k).sort("game")["win"].to_numpy()
    return out / (len(field) + 1)


def tune(game: Any, base: str = "careful", params: Mapping[str, Any] | None = None, *,
         opponents: Sequence[Any] | None = None, players: int = 4, budget: int = 100,
         games: int = 25, check_games: int = 2000, levels: int = LEVELS, seed: int = 0,
         k: float | None = None, finalists: int = 4, final: int = 10, rules: Any = None,
         progress: ProgressArg = None) -> Tuned:
    """Tune the weights ``params`` of the heuristic ``base`` (``{"points": (0.5, 2.0),
    "max_risk": [0, 0.5, 1]}``: a range is tried at ``levels`` even steps) with ``budget``
    evaluations of ``games`` game indices each (every one played with the candidate in every
    seat), against ``opponents`` (the field, cycled over the other seats; default copies of
    the untuned base), then check the tuned heuristic against the untuned one on
    ``check_games`` fresh game indices. ``k``: the search's exploration constant in win-share
    units (default: three times the standard error of one evaluation's win share);
    ``finalists`` and ``final``: the race (``simcore.tune.ntbea``)."""
    mod = game_module(game)
    weights = getattr(mod, "WEIGHTS", None)
    if weights is None:
        raise ValueError(f"{mod.__name__} declares no heuristic weights (WEIGHTS)")
    if not isinstance(base, str) or base not in weights.defaults:
        raise ValueError(f"unknown heuristic {base!r}; heuristics with weights are "
                         f"{sorted(weights.defaults)}")
    grid = _levels(weights, params, check_int("levels", levels, 2))
    check_players(mod, players)
    for name, v in (("budget", budget), ("games", games), ("check_games", check_games),
                    ("finalists", finalists), ("final", final)):
        check_int(name, v, {"check_games": 2, "final": 0}.get(name, 1))
    check_int("seed", seed, 0)
    field_in = list(opponents) if opponents is not None else [base]
    field_in = check_policies(mod, field_in, 1, distinct=False)
    field = [field_in[i % len(field_in)] for i in range(players - 1)]
    if k is None:
        q = 1.0 / players
        k = 3.0 * math.sqrt(q * (1 - q) / (games * players))
    names = list(grid)
    default = dict(zip(weights.names, weights.defaults[base]))
    start = [int(np.argmin([abs(v - default[n]) for v in grid[n]])) for n in names]
    per_eval = games * players
    evaluations = budget + (finalists + 1) * final      # at most (the start may be a finalist)
    check_run(mod, evaluations * per_eval + 2 * check_games * players, players, rules=rules)
    bar = Progress(progress, evaluations * per_eval + 2 * check_games * players,
                   f"tune {mod.__name__}")

    def fitness(values: tuple[float, ...], i: int) -> float:
        cand = mod.heuristic(base, **dict(zip(names, values)))
        return float(seat_shares(mod, cand, field, games, seed, i * games, rules).mean())

    try:
        t = ntbea(fitness, [grid[n] for n in names], budget, seed, start=start, k=k,
                  finalists=finalists, final=final, on_eval=lambda i, f: bar.update(per_eval))
        tuned = mod.heuristic(base, **dict(zip(names, t.values)))
        evaluations = budget + len(t.race) * final
        fresh = (budget + final) * games
        a = seat_shares(mod, tuned, field, check_games, seed, fresh, rules)
        bar.update(check_games * players)
        b = seat_shares(mod, base, field, check_games, seed, fresh, rules)
        bar.update(check_games * players)
    finally:
        bar.close()
    lo, hi, p = fixed_interval(a - b, (-1, 1))
    return Tuned(
        game=mod.__name__, base=base, policy=tuned, params=dict(zip(names, t.values)),
        untuned={n: default[n] for n in names}, field=tuple(policy_name(x) for x in field),
        players=players, evaluations=evaluations, games_tuning=evaluations * per_eval,
        estimate=t.estimate,
        race=tuple((dict(zip(names, (grid[n][i] for n, i in zip(names, p)))), m)
                   for p, m in t.race), check_seeds=check_games, win_tuned=float(a.mean()),
        win_untuned=float(b.mean()), gain=float((a - b).mean()), ci_low=lo, ci_high=hi,
        p_value=p, interval=fixed_label(
            f"the paired gain per game index, on game indices {fresh}..{fresh + check_games - 1}"
            f" of seed {seed}, never played in the search", check_games))
