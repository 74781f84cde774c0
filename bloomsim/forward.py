"""Broom Service's forward model (``simcore.forward``): ``new_game`` and the engine side that
replays a position in the compiled kernel (``engine.fm_game``)."""
from __future__ import annotations

import warnings

import numpy as np
from numba.core.errors import NumbaExperimentalFeatureWarning

from simcore import runner
from simcore.forward import ForwardGame, Halt
from simcore.policy import first_class
from simcore.results import rules_label
from simcore.rng import root_key, seed_streams

from . import engine as E
from .api import LOG_CAP, Batch, _empty, as_rules, batch_tables, to_frame
from .distilled import BUNDLED
from .game import GAME
from .policies import (ALTERNATIVE, BID, BUILTIN_IDS, CHARM, COLOUR, DELIVER, F_BRAVE, F_PASS,
                       F_ROLE, F_TARGET, FOLLOW, GATHER, KIND_NAMES, LEAD, MOVE, N_FEATURES, PAY,
                       POLICIES, SELECT, START, WEIGHTS, WORKS)
from .rules import N_CHANCE, Rules

RESOURCES = ("green", "purple", "orange", "wand")


class Engine:
    """One game's identity and a forward-model ``State`` to replay it in (not thread-safe: one
    replay at a time; ``ForwardGame.copy`` shares it)."""

    name = "Broom Service"
    kind_names = KIND_NAMES
    game_name = GAME.name

    def __init__(self, rules: Rules, n_players: int, seed: int, game: int):
        self.rules, self.n_players, self.seed, self.game = rules, n_players, seed, game
        self.t = batch_tables(rules)
        self.key = np.uint64(root_key(seed))
        self.s = E.new_state(self.t, LOG_CAP, forward=True)
        self._game_fn = first_class(E.play_game, E.GAME_SIG)
        E.init_state(self.t, self.s, n_players, np.full(n_players, E.FM_SEAT, np.int64),
                     np.zeros(E.MAX_PLAYERS, np.int64), LOG_CAP, np.zeros(0, np.int64), 0,
                     self._game_fn.address)
        self._log = np.zeros((1, LOG_CAP, 4), np.int16)
        self.obs_len, self.n_features = E.OBS_LEN, N_FEATURES
        self.max_options = int(self.t[E.T_MAXO])

    def run(self, choices: np.ndarray, marks: np.ndarray) -> Halt:
        g, t = self.s.g, self.t
        if len(choices) > LOG_CAP:
            raise ValueError(f"a Broom Service game has at most {LOG_CAP} decisions")
        at = g[E.G_LOG_AT]
        g[at + 3:at + 4 * len(choices):4] = choices
        g[E.G_FM_STOP] = len(choices)
        g[E.G_N_MARKS] = len(marks)
        g[E.G_MARKS:E.G_MARKS + 3 * len(marks)] = marks.ravel()
        b = _empty(self.rules, 1, self.n_players, self.game)
        errors = np.zeros((1, 6), np.int64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
            halted = E.fm_game(t, self.s, self.key, self.game, self._game_fn, self._log,
                               b.seat_out, b.rank, b.win, b.game_out, errors,
                               np.zeros((2, self.n_players), np.int64))
        if errors[0, 0]:
            raise RuntimeError(f"the forward model's replay diverged at decision "
                               f"{errors[0, 5]} (choice {errors[0, 3]} of {errors[0, 4]})")
        if not halted:
            return Halt(True, result=b)
        seat, kind, n = (int(x) for x in g[E.G_PEND:E.G_PEND + 3])
        snap = at + 4 * LOG_CAP
        obs = self.s.obs[E.OBS_LEN:].reshape(E.MAX_PLAYERS, E.OBS_LEN)[:self.n_players]
        rows = g.view(np.float64)[snap + t[E.T_LOG]:snap + t[E.T_LOG] + n * N_FEATURES]
        return Halt(False, seat, kind, rows.reshape(n, -1).astype(np.float32), obs.copy(),
                    g[snap:snap + t[E.T_LOG]].copy())

    def search(self, choices: np.ndarray, marks: np.ndarray, seat: int, agent,
               seed: int, sums: np.ndarray) -> int:
        """The option ``agent`` (a ``simcore.search.Agent`` or its name) takes at this
        position (``simcore.forward.ForwardGame.search``); ``sums``: the options' win sums
        where it has rows (``ForwardGame.values``)."""
        from .api import agent as agents
        words = agents.parse(agent).params(BUILTIN_IDS, WEIGHTS)
        return int(E.search(self.t, self.key, self.game, self.n_players, choices, marks, seat,
                            words, seed, self._game_fn.address, sums))

    def streams(self) -> np.ndarray:
        """Each seat's policy stream at the start of the game (the batch engine's)."""
        st = np.zeros(N_CHANCE + self.n_players, np.uint64)
        seed_streams(self.key, self.game, st, 0, 0)
        return st[N_CHANCE:].copy()

    def policy(self, name: str):
        if name in BUNDLED:
            return BUNDLED[name]()
        if name not in POLICIES:
            raise ValueError(f"unknown policy {name!r}; built-in policies: "
                             f"{[*POLICIES, *BUNDLED]}")
        return POLICIES[name]

    def frame(self, halt: Halt):
        b: Batch = halt.result
        return to_frame(self.rules, ["forward"] * self.n_players, b)

    def views(self, g: np.ndarray) -> dict[str, np.ndarray]:
        """The state's fields by their declared names (``engine.G``), each seat column as
        ``seat.<name>`` [players], and the decks still to come."""
        t, P_ = self.t, self.n_players
        out = E.G.views(g)
        seats = out.pop("seats").reshape(E.MAX_PLAYERS, E.N_SEAT)[:P_]
        out.update({f"seat.{f.name}": seats[:, f.offset] for f in E.SEAT.fields.values()})
        out["streams"] = out["streams"].view(np.uint64)
        N, Ev = t[E.T_N_TILES], t[E.T_N_EVENT]
        d0 = t[E.T_DECKS] + N
        out["event_deck"] = g[d0:d0 + Ev]
        out["enchanted_deck"] = g[d0 + Ev + g[E.G_ENCH_PTR]:d0 + Ev + g[E.G_ENCH_N]]
        return out

    def describe(self, kind: int, row: np.ndarray) -> str:
        r = self.rules
        role = r.role_ids[int(row[F_ROLE])] if row[F_ROLE] >= 0 else ""
        target = int(row[F_TARGET])
        if row[F_PASS] > 0:
            return "stop" if kind == SELECT else "decline"
        if kind == SELECT:
            return f"select {role}"
        if kind in (LEAD, FOLLOW):
            return f"{role} {'brave' if row[F_BRAVE] > 0 else 'cowardly'}"
        if kind == ALTERNATIVE:
            return f"{role} cowardly (the card)" if role else f"event {r.event_ids[target]}"
        if kind in (COLOUR, PAY):
            return f"{'take' if kind == COLOUR else 'pay'} {RESOURCES[target]}"
        if kind == MOVE:
            return f"move to {r.area_ids[target]}"
        if kind == START:
            return f"start at {r.area_ids[target]}"
        if kind == DELIVER:
            return f"deliver to {r.tower_ids[target]}"
        if kind == CHARM:
            return f"charm the cloud in {r.area_ids[target]}"
        if kind == BID:
            return f"bid {target}"
        return {GATHER: "gather", WORKS: "pay a set of four"}.get(kind, f"option ({kind})")


def env(n_players: int = 4, seed: int = 0, *, rules=None, render_mode: str | None = None):
    """A PettingZoo AEC environment of Broom Service at ``n_players`` seats (``simcore.pz``;
    needs the ``rl`` extra)."""
    from simcore.pz import ForwardEnv
    rules = as_rules(rules)
    new_game(n_players, seed, rules=rules)      # bad arguments fail here, by name
    return ForwardEnv("bloomsim", lambda s, g: new_game(n_players, s, g, rules=rules), seed,
                      render_mode)


def new_game(n_players: int, seed: int, game: int = 0, *, rules=None) -> ForwardGame:
    """Game ``game`` of seed ``seed`` at ``n_players`` seats, stopped at its first decision
    (``simcore.forward.ForwardGame``: ``.current``, ``.step(i)``, ``.copy()``,
    ``.determinize(seat, seed)``, ``.done``, ``.result()``). The chance draws are those of
    ``simulate(..., seed)``'s game ``game``; the decisions are yours."""
    rules = as_rules(rules)
    lo, hi = rules.players["min"], rules.players["max"]
    runner.check_int("n_players", n_players, lo)
    if n_players > hi:
        raise ValueError(f"Broom Service is played by {lo} to {hi} players, got {n_players}")
    root_key(seed)
    runner.check_int("game", game, 0)
    return ForwardGame(Engine(rules, n_players, seed, game), label=rules_label(GAME, rules))
