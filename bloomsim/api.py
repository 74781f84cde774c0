"""The user-facing API: ``simulate`` many games into one tidy frame, ``replay`` one game as text.

Columns follow ``docs/results-schema.md``. Both engines fill the same arrays, so
``engine="reference"`` returns the same frame as the compiled engine (only much slower).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from simcore import simulate as sim
from simcore.policy import (SeatPolicies, compiled_call, raise_policy_fault, resolve,
                            user_addresses)
from simcore.progress import ProgressArg
from simcore.rng import NO_REDRAW
from simcore.results import frame
from simcore.simulate import Seating
from simcore.search import agent_maker

from . import engine as E
from . import reference as ref
from .distilled import BUNDLED
from .game import GAME
from .policies import BUILTIN_IDS, DISTILLED, KIND_NAMES, POLICIES, WEIGHTS, weighted
from .rules import Rules, default_rules, load_rules

LOG_CAP = E.LOG_CAP   # decisions kept per game when a decision log is asked for
PLAYOUT = "cloud"     # search agents' default playout policy: the strongest heuristic
# Search agents' default playout horizon in rounds (0: to the end) and reward margin
# (simcore.search.blend): two rounds play a game of one ISMCTS-1000 seat in about half the
# time of playouts to the end, and win nearly as often against three `cloud` seats
# (docs/search.md, "Where an iteration's time goes").
HORIZON = 2
MARGIN = 0.0
# The prior (simcore.search.step): the distilled policy's pick, favoured in the tree by a
# progressive bias, lifts ISMCTS-100 from about three quarters to nine tenths of the games
# against three `cloud` seats (docs/search.md, "The prior"); an adaptive search stops once
# its decision is settled.
PRIOR = "distilled"
BIAS = 8.0
ADAPTIVE = True
# The balance report's search rung: the cheapest agent measured well above `cloud`, cheap
# enough for 1,000 games with every seat searching within the main job's time
# (docs/search.md, "Strength").
STRONG = "ismcts-32"
STRONG_GAMES = 1000


def as_rules(rules) -> Rules:
    """None (the defaults), a ``Rules``, or a path to a JSON/TOML rules file."""
    if rules is None:
        return default_rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str | os.PathLike):
        return load_rules(rules)
    raise ValueError(f"rules must be None, a bloomsim.Rules or a path to a rules file, "
                     f"got {rules!r}")


agent = agent_maker(BUILTIN_IDS, PLAYOUT, WEIGHTS, HORIZON, MARGIN, bias=BIAS, adaptive=ADAPTIVE,
                    prior=PRIOR, strong=STRONG, strong_games=STRONG_GAMES)


def seat_policies(policies: Sequence, rules: Rules) -> SeatPolicies:
    return resolve(policies, BUILTIN_IDS, "bloomsim",
                   (rules.players["min"], rules.players["max"]), WEIGHTS,
                   agent.parse, BUNDLED)


def flat_tables(rules: Rules) -> np.ndarray:
    """The rules as the kernels' one int64 array (built once per ``Rules``)."""
    if rules.__dict__.get("_flat") is None:
        rules.__dict__["_flat"] = E.flat_tables(rules.tables())
    return rules.__dict__["_flat"]


def batch_tables(rules: Rules, dist=None, redraw: tuple[int, int] = NO_REDRAW) -> np.ndarray:
    """The tables a batch's kernels read: the rules', the weights of the distilled policy its
    seats play (``dist``, a ``simcore.distill.Distilled``; else the shipped one, which a
    search's playout may play), and the streams the batch draws anew (``simcore.rng``: bit
    mask, key), which a search's replays of its games read too."""
    t = E.with_distilled(flat_tables(rules), (dist or BUNDLED["distilled"]()).flat())
    if redraw != NO_REDRAW:
        t[E.T_REDRAW] = redraw[0]
        t[E.T_REDRAW_KEY:E.T_REDRAW_KEY + 1].view(np.uint64)[0] = redraw[1]
    return t


def max_opts(rules: Rules) -> int:
    """Rows of the option buffer: the largest decision the rules allow."""
    return int(flat_tables(rules)[E.T_MAXO])


SEAT_COLS = ("score", "pts_start", "pts_towers", "pts_brave", "pts_events", "pts_enchanted",
             "pts_lightning", "pts_sets", "pts_floor", "deliveries", "clouds", "brave_done",
             "brave_cancelled", "resources_left", "pawn_end_a", "pawn_end_b", "led_rounds")


@dataclass
class Batch:
    """Raw results of games start .. start+n-1, as the kernel fills them."""

    start: int
    seat_out: np.ndarray      # [17, G, P] int16 (SEAT_COLS; led_rounds: rounds <= 8 fit)
    rank: np.ndarray          # [G, P] int8
    win: np.ndarray           # [G, P] float32
    game_out: np.ndarray      # [1 + E + R + K + C, G] int32: decisions, event round, enchanted
    #                           rounds mask per role, deliveries per tower, charmed round per
    #                           cloud space (column-major: each results column is contiguous)
    logs: list | None = None  # per game: [(seat, kind, n_opts, choice), ...]


def _empty(rules: Rules, n: int, n_players: int, start: int) -> Batch:
    width = 1 + len(rules.events) + len(rules.roles) + len(rules.tower_ids) + \
        len(rules.board["cloud_spaces"])
    return Batch(start, np.zeros((len(SEAT_COLS), n, n_players), np.int16),
                 np.zeros((n, n_players), np.int8), np.zeros((n, n_players), np.float32),
                 np.zeros((width, n), np.int32))


def play_compiled(rules: Rules, sp: SeatPolicies, key: int, start: int, n: int,
                  log: bool = False, redraw: tuple[int, int] = NO_REDRAW) -> Batch:
    """Games start .. start+n-1 on the compiled engine (``log``: keep the decision logs;
    ``redraw``: streams drawn anew, ``simcore.rng``); a policy's error is raised as the
    reference engine names it (``raise_policy_fault``)."""
    b = _empty(rules, n, len(sp.ids), start)
    errors = np.zeros((n, 6), np.int64)
    logs = np.zeros((n, LOG_CAP if log else 0, 4), np.int16)
    with compiled_call("bloomsim", sp):
        E.play_batch(batch_tables(rules, sp.distilled, redraw), np.uint64(key), start,
                     sp.engine_ids(),
                     user_addresses(sp.user_py, E.MAX_PLAYERS),
                     b.seat_out, b.rank, b.win, b.game_out, errors, logs, sp.weights,
                     sp.agent_words(BUILTIN_IDS, E.MAX_PLAYERS, WEIGHTS), sp.restrictions)
    raise_policy_fault("bloomsim", sp, KIND_NAMES, start, errors,
                       lambda game: reference_game(rules, sp, key, game, redraw=redraw))
    if log:
        if (errors[:, 5] > LOG_CAP).any():
            raise RuntimeError(f"a game made more than {LOG_CAP} decisions; raise LOG_CAP")
        b.logs = [[tuple(int(v) for v in logs[i, k]) for k in range(errors[i, 5])]
                  for i in range(n)]
    return b


def reference_policies(sp: SeatPolicies) -> list:
    funcs = list(POLICIES.values())
    return sp.reference([weighted(h.weights) if h is not None else sp.distilled
                         if i == DISTILLED else funcs[i] if i >= 0 else sp.user_py[-1 - i]
                         for i, h in zip(sp.ids, sp.heuristics)])


def reference_game(rules: Rules, sp: SeatPolicies, key: int, game: int,
                   verbose: bool = False, redraw: tuple[int, int] = NO_REDRAW) -> ref.Game:
    g = ref.new_game(rules, len(sp.ids), reference_policies(sp), game=game, key=key,
                     names=sp.names, verbose=verbose, redraw=redraw)
    return ref.play_game(g)


def play_reference(rules: Rules, sp: SeatPolicies, key: int, start: int, n: int,
                   redraw: tuple[int, int] = NO_REDRAW) -> Batch:
    """Games start .. start+n-1 on the reference engine, into the same arrays."""
    P_ = len(sp.ids)
    b = _empty(rules, n, P_, start)
    b.logs = []
    for i in range(n):
        g = reference_game(rules, sp, key, start + i, redraw=redraw)
        rank, win = ref.ranks(g)
        for s in range(P_):
            b.seat_out[:, i, s] = (
                [g.score[s], rules.start_score] + [g.pts[k][s] for k in ref.PTS]
                + [g.deliveries[s], g.clouds_charmed[s], g.brave_done[s], g.brave_cancelled[s],
                   sum(ref.resources(g, s)), g.pawns[s][0], g.pawns[s][1], g.led_rounds[s]])
        b.rank[i], b.win[i] = rank, win
        b.game_out[:, i] = ([len(g.decisions)] + g.event_round + g.enchanted_rounds
                         + g.tower_deliveries + g.charmed_round)
        b.logs.append(list(g.decisions))
    return b


def to_frame(rules: Rules, names: Sequence[str], b: Batch) -> pl.DataFrame:
    """The tidy frame of ``docs/results-schema.md``."""
    int8 = {"clouds", "pawn_end_a", "pawn_end_b"}
    seat = {"score": b.seat_out[0], "rank": b.rank, "win": b.win}
    for j, name in enumerate(SEAT_COLS[1:], start=1):
        seat[name] = b.seat_out[j].astype(np.int8 if name in int8 else np.int16, copy=False)
    seat["led_rounds"] = b.seat_out[SEAT_COLS.index("led_rounds")].astype(np.int64)
    n = b.rank.shape[0]
    game = {"n_players": np.full(n, len(names), np.int8), "decisions": b.game_out[0],
            "rounds": np.full(n, rules.rounds, np.int16)}     # every game plays them all
    col = 1
    for prefix, ids, dtype in (("event", rules.event_ids, np.int8),
                               ("enchanted", rules.role_ids, np.uint8),
                               ("deliveries", rules.tower_ids, np.int16),
                               ("charmed", rules.cloud_space_ids, np.int8)):
        for x in ids:
            game[f"{prefix}_{x}"] = b.game_out[col].astype(dtype)
            col += 1
    return frame(b.start, names, seat, game)


class Engines:
    """Broom Service's engines for ``simcore.simulate``."""

    game = GAME

    def seating(self, policies: Sequence, rules) -> Seating:
        rules = as_rules(rules)
        return Seating(rules, seat_policies(policies, rules))

    def play(self, seating: Seating, key: int, start: int, n: int, engine: str,
             redraw: tuple[int, int]) -> Batch:
        play = play_compiled if engine == "compiled" else play_reference
        return play(seating.rules, seating.seats, key, start, n, redraw=redraw)

    def frame(self, seating: Seating, start: int, b: Batch) -> pl.DataFrame:
        return to_frame(seating.rules, seating.seats.names, b)

    def tell(self, seating: Seating, key: int, game: int, redraw: tuple[int, int]) -> str:
        sp = seating.seats
        g = reference_game(seating.rules, sp, key, game, verbose=True, redraw=redraw)
        rank, _ = ref.ranks(g)
        tail = [f"seat {s} ({sp.names[s]}): {g.score[s]} points, "
                f"{sum(ref.resources(g, s))} resources left, rank {rank[s]}"
                for s in range(g.n_players)]
        return "\n".join(g.log + tail) + "\n"

    def manifest(self, seating: Seating) -> dict:
        return {"rules": seating.rules.to_dict()}

    def logs(self, seating: Seating, key: int, start: int, n: int) -> list[np.ndarray]:
        b = play_compiled(seating.rules, seating.seats, key, start, n, log=True)
        return [np.array(log, np.int64).reshape(-1, 4) for log in b.logs]


ENGINES = Engines()


def simulate(policies: Sequence, n_games: int, seed: int, *, rules=None,
             engine: str = "compiled", threads: int | None = None,
             progress: ProgressArg = None, out: str | os.PathLike | None = None,
             first_game: int = 0, redraw: tuple | None = None):
    """Play ``n_games`` games of Broom Service, one policy per seat (2-5 seats).

    ``policies``: built-in names (``bloomsim.POLICIES``), search agents (``"ismcts-1000"``,
    ``bloomsim.agent``) or user policies (``@bloomsim.policy``). Game i of seed s is the same
    game in every engine, thread count and batch split; ``first_game`` starts at game i (a run
    split into parts). Returns a polars DataFrame, one row per game and seat; with ``out`` the
    rows stream to a Parquet dataset in that folder (resumable) and a LazyFrame is returned.
    ``redraw=(sources, k)``: those chance sources (``GAME.chance``, or ``"policies"``) drawn
    anew with key k, every other draw as it was (``simcore.simulate``).
    """
    return sim.simulate(ENGINES, policies, n_games, seed, rules=rules, engine=engine,
                        threads=threads, progress=progress, out=out, first_game=first_game,
                        redraw=redraw)


def decision_logs(policies: Sequence, n_games: int, seed: int, *, rules=None,
                  first_game: int = 0) -> list[np.ndarray]:
    """Each game's decision log of ``simulate(policies, n_games, seed)`` (``simcore.simulate``):
    int [decisions, 4] per game, (seat, kind, number of options, choice)."""
    return sim.decision_logs(ENGINES, policies, n_games, seed, rules=rules,
                             first_game=first_game)


def replay(policies: Sequence, seed: int, game: int, rules=None,
           redraw: tuple | None = None) -> str:
    """The readable log of game ``game`` of ``simulate(policies, ..., seed, redraw=...)``."""
    return sim.replay(ENGINES, policies, seed, game, rules=rules, redraw=redraw)
