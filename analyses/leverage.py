"""Decision leverage and accuracy: how much the decisions of real games matter, and how much
win probability each policy gives away by its choices.

At decisions sampled from real games (``simcore.forward.positions``: two options or more),
the honest evaluator ``ForwardGame.values`` values every option for the acting seat (flat
Monte Carlo from that seat's view, the options sharing each determinization). Per decision,
in win-probability points (0-100) of the acting seat: the **leverage** (best option minus
worst), **meaningful** (best minus second at least 5 and best minus worst at least 10),
**dead** (best minus worst below 1), and the policy's **loss** (best minus the option the
game's policy took). Means and shares per decision kind, game phase (the third of the game's
decisions it falls in), round (``Game.round_of``) and seat, and the loss per policy, each
with a 95% interval whose unit is the game index (``analyses.stats``: the decisions of one
game share its chance).

The evaluator is flat Monte Carlo with heuristic playouts, not perfect play: values are what
the option is worth if everyone then plays the playout policy, from a few dozen playouts each.
Its noise inflates the leverage (the best of several noisy means sits above the best true
value) and shrinks the dead share; options that lead to the same state are valued exactly
alike (common random numbers), so a truly dead choice reads 0.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np
import polars as pl

from simcore import games as registry
from simcore.forward import ForwardGame, positions as sample_positions
from simcore.progress import Progress

from .stats import cluster_moments, moments, ratio, t_interval

POSITIONS = 20_000
"""Decisions sampled per game at the default size (about 10 minutes of 2 cores for Broom
Service, docs/analyses.md)."""
PER_GAME = 10
"""Decisions sampled per real game: 2,000 games at the default size."""
PLAYOUTS = 32
"""Playouts per option (``ForwardGame.values``)."""
REPORT_POSITIONS, REPORT_PLAYOUTS = 1000, PLAYOUTS
"""The size the balance report, the diff and the what-if page measure at (under 15 s per game
on 2 cores, docs/analyses.md): fewer decisions, the same playouts, so its shares read as the
default size's (fewer playouts would inflate them)."""
MEANINGFUL = (5.0, 10.0)
"""A meaningful decision: best minus second at least 5 points, best minus worst at least 10."""
DEAD = 1.0
"""A dead decision: best minus worst below 1 point."""
PHASES = ("early", "middle", "late")
METRICS = {"leverage": (0.0, 100.0), "meaningful": (0.0, 100.0), "dead": (0.0, 100.0)}
"""Per decision: its leverage (points), and meaningful / dead as 0 or 100 (so their means are
shares in per cent), with the bounds their intervals are clipped to."""


@dataclass(frozen=True)
class Leverage:
    """``decisions``: one row per sampled decision (game, decision, seat, policy, kind, phase,
    round where the game has rounds, options, best, second, worst, taken (values of the
    acting seat, points), leverage, meaningful, dead, loss); ``table``: per ``by`` (kind,
    phase, round, seat, all) and ``group``, the
    decisions, games, and each metric of ``METRICS`` with its 95% interval (``_low``,
    ``_high``); ``accuracy``: per policy, its decisions and its mean loss (points) with its
    interval, and how often it took the evaluator's best option (per cent)."""

    game: str
    players: int
    policies: tuple[str, ...]
    playouts: int
    seed: int
    decisions: pl.DataFrame
    table: pl.DataFrame
    accuracy: pl.DataFrame
    seconds: float

    def headline(self) -> str:
        """One sentence: the shares of meaningful and dead decisions, and the most leveraged
        decision kind (the highest lower bound of its interval, so a kind seen a few times
        does not win by its noise)."""
        every = self.table.filter(pl.col("by") == "all").row(0, named=True)
        top = self.table.filter(pl.col("by") == "kind").sort(
            pl.col("leverage_low").fill_nan(None), descending=True, nulls_last=True).row(
            0, named=True)
        return (f"{every['meaningful']:.0f}% of decisions are meaningful "
                f"[{every['meaningful_low']:.0f}, {every['meaningful_high']:.0f}], "
                f"{every['dead']:.0f}% dead [{every['dead_low']:.0f}, {every['dead_high']:.0f}]; "
                f"the most leveraged decision kind is {top['group']} "
                f"({top['leverage']:.1f} points between its best and worst option "
                f"[{top['leverage_low']:.1f}, {top['leverage_high']:.1f}])")


def leverage(game, players: int = 4, positions: int = POSITIONS,
             policies: Sequence[str] | None = None, playouts: int = PLAYOUTS, seed: int = 0,
             threads: int | None = None, *, rules=None, per_game: int = PER_GAME,
             playout: str | None = None, progress=None) -> Leverage:
    """Leverage and accuracy at ``positions`` decisions (about: ``per_game`` from each of
    ``positions / per_game`` games, fewer where a game is short) of games of ``seed`` played
    by ``policies`` (default: the game's built-in policies, cycled over the seats), the
    seating rotated over the game indices (game i seats the policies shifted by i mod
    ``players``). ``playouts`` per option with the ``playout`` policy (default: the game's
    search playout); ``threads`` Python threads value the games side by side (default:
    numba's thread count). The same arguments give the same result on any thread count."""
    g = registry.get(game) if isinstance(game, str) else game
    mod = g.module()
    if policies is None:
        names = list(mod.POLICIES)
        policies = [names[i % len(names)] for i in range(players)]
    policies = list(policies)
    if len(policies) != players:
        raise ValueError(f"leverage needs one policy per seat ({players}), got {len(policies)}")
    for what, v in (("positions", positions), ("per_game", per_game), ("playouts", playouts)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{what} must be a positive integer, got {v!r}")
    threads = numba.get_num_threads() if threads is None else threads
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer, got {threads!r}")
    start = time.perf_counter()
    n_games = -(-positions // per_game)
    sample: list[ForwardGame] = []
    seatings = {}
    for r in range(min(players, n_games)):     # game i: seating r = i mod players
        seating = policies[r:] + policies[:r]
        for i in range(r, n_games, players):
            seatings[i] = seating
            sample += sample_positions(g.name, players, seating, 1, per_game, seed, rules,
                                       first_game=i)
    by_game: dict[int, list[ForwardGame]] = {}
    for p in sample:
        by_game.setdefault(p.game_index, []).append(p)
    bar = Progress(progress, len(by_game), "leverage")

    def value(group: list[ForwardGame]) -> list[dict]:
        rows = [_row(p, seatings[p.game_index], seed, playouts, playout, g.round_of)
                for p in group]
        bar.update(1)
        return rows

    try:
        with ThreadPoolExecutor(threads) as pool:
            rows = [r for part in pool.map(value, by_game.values()) for r in part]
    finally:
        bar.close()
    decisions = pl.DataFrame(rows)
    return Leverage(g.name, players, tuple(policies), playouts, seed, decisions,
                    _table(decisions), _accuracy(decisions), time.perf_counter() - start)


def _row(p: ForwardGame, seating: list[str], seed: int, playouts: int,
         playout: str | None, round_of) -> dict:
    """One decision's figures (``Leverage.decisions``); its evaluator seed from (``seed``, game
    index, decision number), so no thread or batch changes it. ``round_of``: the game's
    (``Game.round_of``), None for a game without rounds."""
    d = p.current
    k = len(p.history)
    vseed = int(np.random.SeedSequence([seed, p.game_index, k]).generate_state(1, np.uint64)[0]
                >> np.uint64(1))
    v = p.values(vseed, playouts, playout)[:, d.seat] * 100.0
    best, second, worst = (float(x) for x in np.sort(v)[[-1, -2, 0]])
    return {"game": p.game_index, "decision": k, "seat": d.seat, "policy": seating[d.seat],
            "kind": d.kind, "phase": PHASES[min(3 * k // p.game_decisions, 2)],
            **({} if round_of is None else
               {"round": round_of(p.observation(d.seat), p.n_players)}),
            "options": d.n, "best": best, "second": second, "worst": worst,
            "taken": float(v[p.played]), "leverage": best - worst,
            "meaningful": 100.0 * (best - second >= MEANINGFUL[0]
                                   and best - worst >= MEANINGFUL[1]),
            "dead": 100.0 * (best - worst < DEAD), "loss": best - float(v[p.played])}


def _means(decisions: pl.DataFrame, by: list[str], metrics: dict[str, tuple[float, float]]
           ) -> pl.DataFrame:
    """Per group of ``by``: decisions, games, and each metric's mean with its 95% interval,
    the game index the unit (``analyses.stats.ratio``)."""
    lf = decisions.lazy()
    out = None
    for name, bounds in metrics.items():
        df = cluster_moments(lf, by, {"y": pl.col(name).sum(), "n": pl.len()})
        c, t, m = moments(df, ["y", "n"])
        est, se = ratio(c, t, m)
        low, high = t_interval(est, se, c, bounds)
        part = df.select(*by, decisions=pl.col("n").cast(pl.Int64),
                         games=pl.col("clusters").cast(pl.Int64)).with_columns(
            pl.Series(name, est), pl.Series(f"{name}_low", low),
            pl.Series(f"{name}_high", high))
        out = part if out is None else out.join(part.drop("decisions", "games"), on=by)
    return out


def _table(decisions: pl.DataFrame) -> pl.DataFrame:
    """``Leverage.table``: every metric per kind, phase, round (where the game has rounds),
    seat, and over all decisions."""
    parts = []
    for by in ("kind", "phase", "round", "seat"):
        if by not in decisions.columns:
            continue
        t = _means(decisions, [by], METRICS)
        parts.append(t.select(pl.lit(by).alias("by"), pl.col(by).cast(pl.String).alias("group"),
                              pl.exclude(by)))
    every = _means(decisions.with_columns(group=pl.lit("all")), ["group"], METRICS)
    parts.append(every.select(pl.lit("all").alias("by"), pl.all()))
    return pl.concat(parts)


def _accuracy(decisions: pl.DataFrame) -> pl.DataFrame:
    """``Leverage.accuracy``: per policy, the mean loss and the share of best options taken."""
    d = decisions.with_columns(took_best=100.0 * (pl.col("taken") >= pl.col("best")))
    return _means(d, ["policy"], {"loss": (0.0, 100.0), "took_best": (0.0, 100.0)})
