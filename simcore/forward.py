"""The forward model every game offers: a game stopped at a decision, to inspect, copy, step
and determinize (``bloomsim.new_game``, ``rapinsim.new_game``).

A position is its game's identity (rules, players, seed, game index) plus the choices made so
far and the determinizations asked for. The compiled engine plays it: the same kernel as the
batches, taking the decisions from the choices and halting at the first decision past them,
where it keeps the acting seat, the kind, the options (the same feature rows a policy gets),
every seat's observation and a copy of the state. So the forward model and the batch engine
cannot disagree on a rule: there is one implementation of the rules. Each query replays the
game from its start (tens of microseconds for a whole game), so stepping a game to its end
costs the square of its length in replays: fine from Python, and cheap enough for search.

``determinize(seat, seed)`` resamples everything the seat cannot see, consistently with what
it has seen (the rules of each game's ``determinize`` kernel), and new coming chance draws:
the result is a position the seat cannot tell from the true one. It is defined at the seat's
own decisions (where search agents need it); the pending options stay those the seat has.

Each game supplies an engine object with ``run(choices, marks) -> Halt``, ``n_players``,
``game_name`` (its registered name, which starts its errors), ``game`` (the game index),
``kind_names``, ``describe(kind, row) -> str``, ``streams() -> uint64 array`` (each seat's
policy stream at the start of the game), ``policy(name)`` (a built-in policy as a function),
``views(state) -> dict``, ``frame(halt)``, and for ``simcore.pz`` ``obs_len``,
``max_options``, ``n_features``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .results import tag
from .search import MAX_ITERATIONS

MAX_MARKS = 4
"""Determinizations one position can carry (a search determinizes once, at its root)."""


@dataclass(frozen=True)
class Halt:
    """What the engine keeps where it stopped: ``done`` (the game ended: ``result`` holds the
    engine's output for ``frame``), else the pending decision: ``seat``, ``kind``, the ``n``
    options' feature rows ``opts``, every seat's observation ``obs`` [players, obs_len] and the
    state ``state`` (the engine's packed arrays, for ``views``)."""

    done: bool
    seat: int = -1
    kind: int = -1
    opts: np.ndarray | None = None
    obs: np.ndarray | None = None
    state: np.ndarray | None = None
    result: Any = None

    @property
    def n(self) -> int:
        return 0 if self.opts is None else self.opts.shape[0]


@dataclass(frozen=True)
class Decision:
    """The pending decision: who acts, what kind of decision, and each legal option described
    (option i is ``step(i)``)."""

    seat: int
    kind: str
    options: tuple[str, ...]

    @property
    def n(self) -> int:
        return len(self.options)


def _check_seed(seed) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")


class ForwardGame:
    """One game stopped at a decision (or finished). ``step`` advances this game; ``copy`` and
    ``determinize`` return new ones. The game stops where the batch engine asks a policy:
    Broom Service takes a single legal option without asking, the Lapin treasure hunt asks
    (and so stops) there too."""

    def __init__(self, engine, choices: Sequence[int] = (),
                 marks: Sequence[tuple[int, int, int]] = (), label: str = ""):
        self._engine = engine
        self._label = label
        self._choices = list(choices)
        self._marks = list(marks)
        self._halt: Halt | None = None
        self.played: int | None = None
        """The option the real game took here (``positions``), None otherwise."""
        self.game_decisions: int | None = None
        """How many decisions the real game made in all (``positions``), None otherwise."""

    # ---- where the game stands
    @property
    def _at(self) -> Halt:
        if self._halt is None:
            self._halt = self._engine.run(np.asarray(self._choices, np.int64),
                                          np.asarray(self._marks, np.int64).reshape(-1, 3))
        return self._halt

    @property
    def n_players(self) -> int:
        return self._engine.n_players

    @property
    def done(self) -> bool:
        return self._at.done

    @property
    def game_index(self) -> int:
        """Which game of its seed this is (``new_game``'s ``game``)."""
        return self._engine.game

    def after(self, choices: Sequence[int]) -> ForwardGame:
        """This game from its start after ``choices`` (a decision log's, e.g. a batch game's),
        without stepping through them one replay at a time: a choice out of range is named
        when the position is first read."""
        return ForwardGame(self._engine, [int(c) for c in choices], label=self._label)

    @property
    def history(self) -> tuple[int, ...]:
        """The choices made so far (option indices), one per decision that had a choice."""
        return tuple(self._choices)

    @property
    def to_act(self) -> tuple[int, int] | None:
        """(seat, number of options) of the pending decision, None once the game is over:
        ``current`` without describing the options."""
        h = self._at
        return None if h.done else (h.seat, h.n)

    @property
    def kind(self) -> int | None:
        """The pending decision's kind as the policies get it (an int), None once over."""
        h = self._at
        return None if h.done else h.kind

    def streams(self) -> np.ndarray:
        """Each seat's policy stream at the start of the game, as the batch engine seeds them
        (a seat's policy draws from ``streams[seat:seat + 1]``)."""
        return self._engine.streams()

    def builtin(self, name: str) -> Callable:
        """The game's built-in policy ``name`` as a function ``f(kind, obs, opts, n, rng)``."""
        return self._engine.policy(name)

    @property
    def current(self) -> Decision | None:
        """The pending decision, None once the game is over."""
        h = self._at
        if h.done:
            return None
        return Decision(h.seat, self._engine.kind_names[h.kind],
                        tuple(self._engine.describe(h.kind, row) for row in h.opts))

    def options(self) -> np.ndarray:
        """The pending decision's option rows (float32 [n, features]), as a policy gets them."""
        return self._pending().opts.copy()

    def observation(self, seat: int) -> np.ndarray:
        """What ``seat`` sees now (float32, as a policy gets it)."""
        h = self._pending()
        self._check_seat(seat)
        return h.obs[seat].copy()

    def state(self) -> dict[str, np.ndarray]:
        """The whole state at the pending decision as named arrays (hidden parts included:
        for tests and debugging, never for a policy)."""
        return self._engine.views(self._pending().state)

    # ---- moving on
    def step(self, i: int) -> ForwardGame:
        """Take option ``i`` of the pending decision; returns this game."""
        h = self._pending()
        if isinstance(i, bool) or not isinstance(i, int | np.integer) or not 0 <= i < h.n:
            raise ValueError(f"option must be an integer in [0, {h.n}) for this "
                             f"{self._engine.kind_names[h.kind]} decision of seat {h.seat}, "
                             f"got {i!r}")
        self._choices.append(int(i))
        self._halt = None
        return self

    def copy(self) -> ForwardGame:
        twin = ForwardGame(self._engine, self._choices, self._marks, self._label)
        twin._halt = self._halt
        return twin

    def determinize(self, seat: int, seed: int) -> ForwardGame:
        """A copy in which everything ``seat`` cannot see is resampled (``seed``: which
        sample), consistently with all it has seen; the seat's observation and options are
        unchanged. ``seat`` must be the seat to act."""
        h = self._pending()
        self._check_seat(seat)
        if seat != h.seat:
            raise ValueError(f"determinize is defined at the seat's own decisions: seat {seat} "
                             f"asked, seat {h.seat} is to act")
        _check_seed(seed)
        if len(self._marks) == MAX_MARKS:
            raise ValueError(f"a position carries at most {MAX_MARKS} determinizations")
        return ForwardGame(self._engine, self._choices,
                           self._marks + [(len(self._choices), seat, int(seed) & (2**63 - 1))],
                           self._label)

    def search(self, agent, seed: int) -> int:
        """The option search ``agent`` (a game's ``agent(...)`` or a name such as
        ``"ismcts-1000"``) takes at the pending decision, its randomness from ``seed``. It
        searches determinizations of this position for the acting seat, so it uses only what
        that seat can see."""
        h = self._pending()
        _check_seed(seed)
        if len(self._marks) == MAX_MARKS:
            raise ValueError(f"a position carries at most {MAX_MARKS - 1} determinizations "
                             f"to search it")
        return self._engine.search(np.asarray(self._choices, np.int64),
                                   np.asarray(self._marks, np.int64).reshape(-1, 3), h.seat,
                                   agent, int(seed) & (2**63 - 1),
                                   np.zeros((0, 0), np.float64))

    def values(self, seed: int, playouts: int = 16, playout: str | None = None) -> np.ndarray:
        """What each option of the pending decision is worth to every seat: float64
        [options, players], the mean win share (ties split) after taking the option and playing
        on to the end, every seat with the built-in policy ``playout`` (default: the game's
        search playout), over ``playouts`` determinizations for the acting seat (so it uses
        only what that seat can see). The k-th playout of every option starts from the same
        determinization with the same coming draws (common random numbers): options differ by
        what they do, not by their luck. A flat Monte Carlo search's sums
        (``simcore.search.share_worlds``); the same position and seed give the same values."""
        h = self._pending()
        _check_seed(seed)
        most = MAX_ITERATIONS // h.n
        if isinstance(playouts, bool) or not isinstance(playouts, int | np.integer) \
                or not 1 <= playouts <= most:
            raise ValueError(f"playouts must be an integer from 1 to {most:,} at this "
                             f"decision of {h.n} options, got {playouts!r}")
        if playout is not None and not isinstance(playout, str):
            raise ValueError(f"playout must be a built-in policy's name, got {playout!r}")
        if len(self._marks) == MAX_MARKS:
            raise ValueError(f"a position carries at most {MAX_MARKS - 1} determinizations "
                             f"to value it")
        settings = "horizon=0,margin=0,bias=0,adaptive=off,opponents=playout"
        spec = f"flat-{int(playouts) * h.n}[{settings}" + \
            (f",playout={playout}]" if playout is not None else "]")
        sums = np.zeros((h.n, self.n_players), np.float64)
        self._engine.search(np.asarray(self._choices, np.int64),
                            np.asarray(self._marks, np.int64).reshape(-1, 3), h.seat, spec,
                            int(seed) & (2**63 - 1), sums)
        return sums / int(playouts)

    def play(self, policies: Sequence[str | Callable] | str | Callable) -> ForwardGame:
        """Step to the end, each seat's decisions by its policy (a built-in name or a function
        ``f(kind, obs, opts, n, rng)``, a ``@policy`` included), each drawing from its seat's
        own stream: from a new game this is the batch engine's game for the same policies,
        seed and game index."""
        if isinstance(policies, str) or callable(policies):
            policies = [policies] * self.n_players
        if len(policies) != self.n_players:
            raise ValueError(f"play needs {self.n_players} policies, one per seat, "
                             f"got {len(policies)}")
        from .policy import call_policy
        e = self._engine
        names = [p if isinstance(p, str) else getattr(p, "name", getattr(p, "__name__", repr(p)))
                 for p in policies]
        policies = [e.policy(p) if isinstance(p, str) else p for p in policies]
        rng = e.streams()
        while not self.done:
            h = self._at
            self.step(call_policy(policies[h.seat], h.kind, h.obs[h.seat], h.opts, h.n,
                                  rng[h.seat:h.seat + 1], game=e.game_name, names=names,
                                  seat=h.seat, kind_name=e.kind_names[h.kind],
                                  game_index=e.game))
        return self

    def result(self):
        """The finished game's rows of the results frame (one per seat), its ``rules`` column
        the label ``simulate`` gives the same rules (``simcore.results.rules_label``)."""
        if not self.done:
            raise ValueError("the game is not over: result() needs a finished game "
                             f"({len(self._choices)} choices made)")
        frame = self._engine.frame(self._at)
        return tag(frame, self._label) if self._label else frame

    # ---- helpers
    def _pending(self) -> Halt:
        h = self._at
        if h.done:
            raise ValueError("the game is over: no decision is pending")
        return h

    def _check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int | np.integer) \
                or not 0 <= seat < self.n_players:
            raise ValueError(f"seat must be an integer in [0, {self.n_players}), got {seat!r}")

    def __repr__(self) -> str:
        d = self.current
        where = "over" if d is None else f"seat {d.seat} to {d.kind} ({d.n} options)"
        return f"<{self._engine.name} game: {len(self._choices)} choices made, {where}>"


def positions(game, players: int, policies: Sequence | str, games: int, per_game: int,
              seed: int, rules=None, first_game: int = 0) -> list[ForwardGame]:
    """Decisions sampled from real games: games ``first_game ..`` of ``simulate(policies,
    games, seed)`` on the compiled engine (``game``: a registered name, its ``Game`` or its
    module), in each up to ``per_game`` of its decisions with two options or more, drawn
    without replacement from (``seed``, game index), so a game's sample does not depend on
    how many games are asked. Each is a ``ForwardGame`` at that decision (``game_index``,
    ``len(history)`` its decision number, ``played`` the option the game's policy took,
    ``game_decisions`` the game's length), in game and decision order; one replay each, when
    first read."""
    from . import games as registry
    mod = registry.get(game).module() if isinstance(game, str) else \
        game.module() if isinstance(game, registry.Game) else game
    if not hasattr(mod, "decision_logs"):
        raise ValueError(f"{getattr(mod, '__name__', mod)!r} keeps no decision logs: "
                         f"positions needs a game module with decision_logs and new_game")
    if isinstance(policies, str):
        policies = [policies] * players
    if len(policies) != players:
        raise ValueError(f"positions needs one policy per seat ({players}), "
                         f"got {len(policies)}")
    if isinstance(per_game, bool) or not isinstance(per_game, int) or per_game < 1:
        raise ValueError(f"per_game must be a positive integer, got {per_game!r}")
    logs = mod.decision_logs(list(policies), games, seed, rules=rules, first_game=first_game)
    out = []
    for i, log in enumerate(logs):
        g = first_game + i
        asked = np.flatnonzero(log[:, 2] >= 2)
        ks = np.sort(np.random.default_rng([seed, g]).choice(
            asked, min(per_game, asked.size), replace=False))
        start = mod.new_game(players, seed, g, rules=rules)
        for k in ks:
            fg = start.after(log[:k, 3])
            fg.played, fg.game_decisions = int(log[k, 3]), len(log)
            out.append(fg)
    return out
