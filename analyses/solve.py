"""The target solver: which value of one rules parameter brings a balance metric to a target.

Two parts. A search screens the candidate values on paired seeds: every candidate still in play
plays the same games, the number of games doubles at each stage, and a candidate leaves as soon
as its 95% interval lies wholly outside the target band, so the games go where the answer is
still uncertain. The search stops when a candidate's interval lies wholly inside the band, when
none is left or at the game budget. Its many looks at many candidates control no error, so it
only chooses what to verify: the status comes from fresh seeds (never the search's), where each
verified value gets one equivalence test (inside the band) and one test of being outside it,
Holm-adjusted over the values verified.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from scipy import stats as sp

from simcore import budget

from .games import game_spec
from .stats import adjust_pvalues, equivalence_p, outside_p, t95
from .sweep import Variant, sweep

FRESH = 1_000_003
"""Offset from the search's seed to the seed of the re-verification (never the search's own)."""


def start_seat_win(df: pl.DataFrame) -> pl.DataFrame:
    """Per variant and game: the start seat's win share, averaged over the game's seatings."""
    return (df.filter(pl.col("seat") == 0).group_by("variant", "game")
            .agg(value=pl.col("win").cast(pl.Float64).mean()))


METRICS: dict[str, Callable[[pl.DataFrame], pl.DataFrame]] = {"start_seat_win": start_seat_win}


@dataclass(frozen=True)
class Estimate:
    value: Any          # the parameter's value
    games: int
    mean: float
    se: float           # NaN where the metric was the same in every game (no spread)

    def interval(self) -> tuple[float, float]:
        """The 95% t(games - 1) interval of the mean (``stats.t95``)."""
        half = float(t95(self.games)) * self.se
        return self.mean - half, self.mean + half


def _estimates(per_game: pl.DataFrame, labels: dict[str, Any]) -> list[Estimate]:
    out = []
    for label, v in labels.items():
        x = per_game.filter(pl.col("variant") == label)["value"].to_numpy()
        se = x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else np.nan
        out.append(Estimate(v, x.size, float(x.mean()), float(se) if se > 0 else np.nan))
    return out


STATUSES = ("verified inside", "verified outside", "not confirmed", "none of the values tried")


def verify(ests: Sequence[Estimate], goal: float, tolerance: float,
           alpha: float = 0.05) -> pl.DataFrame:
    """The fresh-seed tests of each value in ``ests``: its mean with the 1 - 2 alpha t interval,
    the equivalence p (inside goal +- tolerance) and the outside p, both Holm-adjusted over
    the values (one family), and the verdict: "inside" or "outside" where the adjusted p is at
    most ``alpha``, "not computable" where the metric had no spread, else "inconclusive"."""
    est = np.array([e.mean - goal for e in ests])
    se = np.array([e.se for e in ests])
    games = np.array([e.games for e in ests], dtype=np.float64)
    p_in = adjust_pvalues(equivalence_p(est, se, games, tolerance))
    p_out = adjust_pvalues(outside_p(est, se, games, tolerance))
    z = sp.t.ppf(1 - alpha, np.maximum(games - 1, 1))
    verdict = np.where(np.isnan(se), "not computable: the metric was the same in every game",
                       np.where(p_in <= alpha, "inside",
                                np.where(p_out <= alpha, "outside", "inconclusive")))
    return pl.DataFrame({"value": [repr(e.value) for e in ests], "games": games.astype(int),
                         "mean": est + goal, "ci_low": est + goal - z * se,
                         "ci_high": est + goal + z * se, "p_inside": p_in, "p_outside": p_out,
                         "verdict": verdict})


@dataclass
class Solution:
    parameter: str
    target: float
    tolerance: float
    alpha: float
    status: str                 # one of STATUSES, from the fresh-seed verification
    search: str                 # how the search ended (it chose what was verified)
    value: Any                  # the value verified (None when every value was)
    history: pl.DataFrame       # every search stage: value, games, mean, interval, fate
    verification: pl.DataFrame  # the fresh-seed tests (``verify``)

    def text(self) -> str:
        band = f"{self.target:.4g} +- {self.tolerance:.4g}"
        v = self.verification
        if self.value is None:
            if self.status == "none of the values tried":
                worst = float(v["p_outside"].max())
                return (f"none of the values tried brings the metric to {band}: the search left "
                        f"every value, and on fresh seeds each is verified outside (Holm over "
                        f"{v.height} values, largest adjusted p = {worst:.3g})")
            open_ = ", ".join(v.filter(pl.col("verdict") != "outside")["value"])
            return (f"not confirmed: the search left every value, but on fresh seeds "
                    f"{self.parameter} = {open_} not verified outside {band} at {self.alpha} "
                    f"(Holm over {v.height} values); more games (max_games) may decide")
        r = v.row(0, named=True)
        what = (f"{self.parameter} = {self.value!r} ({self.search}); on fresh seeds "
                f"{r['mean']:.4f}, {1 - 2 * self.alpha:.0%} interval [{r['ci_low']:.4f}, "
                f"{r['ci_high']:.4f}] over {r['games']:,} games")
        if self.status == "verified inside":
            return f"verified inside {band}: {what}, equivalence p = {r['p_inside']:.3g}"
        if self.status == "verified outside":
            return (f"verified outside {band}: {what}, p = {r['p_outside']:.3g}; the search "
                    f"found no value nearer the target")
        why = (r["verdict"] if r["verdict"].startswith("not computable") else
               f"neither inside (p = {r['p_inside']:.3g}) nor outside (p = "
               f"{r['p_outside']:.3g}) at {self.alpha}")
        return f"not confirmed: {what}: {why}; more games (max_games) may decide"


def solve(game: Any, parameter: str, values: Sequence[Any], target: float | str, *,
          policies: Sequence[str], players: int, metric: str = "start_seat_win",
          tolerance: float = 0.01, seed: int = 0, start_games: int = 1_000,
          max_games: int = 64_000, alpha: float = 0.05,
          scheduler: Any = "inprocess") -> Solution:
    """Find the value of ``parameter`` among ``values`` that brings ``metric`` to ``target``.

    ``values``: the candidates (a list; ``range(lo, hi + 1)`` for an integer range, a grid
    for a real one). ``target``: a number or ``"fair"`` (1/``players``, for the start seat).
    ``tolerance``: the half-width of the target band (0.01: within 1 percentage point).
    Games per candidate start at ``start_games`` and double up to ``max_games``. The search's
    answer (or, at the budget, its nearest) is then played on fresh seeds with as many games
    as it had last; when the search left every value, every value is, each with the games it
    had when it left. ``alpha``: the error rate of the status (``verify``): a value outside
    the band is "verified inside" with probability at most alpha whatever the search did,
    since the fresh games are independent of the choice. ``scheduler``: as ``analyses.sweep``.
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; metrics are {sorted(METRICS)}")
    spec = game_spec(game)
    budget.check_players(spec, players)
    goal = 1.0 / players if target == "fair" else target
    if isinstance(goal, bool) or not isinstance(goal, (int, float)):
        raise ValueError(f"target must be a number or 'fair', got {target!r}")
    if not tolerance > 0:
        raise ValueError(f"tolerance must be positive, got {tolerance!r}")
    if not 0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha!r}")
    candidates = list(values)
    if not candidates:
        raise ValueError("values: give at least one candidate")
    if not 0 < start_games <= max_games:
        raise ValueError(f"need 0 < start_games <= max_games, got {start_games}, {max_games}")
    # at most: every candidate at games doubling up to max_games (under 2 max_games) in each
    # of at most `players` seatings, then every candidate verified at up to max_games
    budget.check(spec, 3 * len(candidates) * max_games * players, players)
    lo, hi = goal - tolerance, goal + tolerance
    measure = METRICS[metric]

    def play(vals: list[Any], n: int, s: int) -> list[Estimate]:
        labels = {f"{parameter}={v!r}": v for v in vals}
        chosen = [Variant(label, changes={parameter: v}) for label, v in labels.items()]
        df = sweep(game, chosen, policies, players, n, s, scheduler=scheduler)
        return _estimates(measure(df), labels)

    rows, alive, n, left_at = [], candidates, start_games, {}
    search, answer = "the search's nearest at the game budget", None
    for stage in range(64):
        ests = play(alive, n, seed)
        fates = {}
        for e in ests:
            low, high = e.interval()
            fates[id(e)] = ("inside the band" if lo <= low and high <= hi else
                            "left: outside the band" if high < lo or low > hi else "kept")
            rows.append({"stage": stage, "value": repr(e.value), "games": e.games,
                         "mean": e.mean, "ci_low": low, "ci_high": high, "fate": fates[id(e)]})
        left_at |= {repr(e.value): e.games for e in ests if fates[id(e)].startswith("left")}
        inside = [e for e in ests if fates[id(e)] == "inside the band"]
        kept = [e for e in ests if not fates[id(e)].startswith("left")]
        if inside:
            search = "the search's answer"
            answer = min(inside, key=lambda e: abs(e.mean - goal)).value
            break
        if not kept:
            search = "the search left every value"
            break
        if n >= max_games:
            answer = min(kept, key=lambda e: abs(e.mean - goal)).value
            break
        alive, n = [e.value for e in kept], min(2 * n, max_games)
    if answer is None:
        fresh = [play([v], left_at[repr(v)], seed + FRESH)[0] for v in candidates]
    else:
        fresh = play([answer], n, seed + FRESH)
    checked = verify(fresh, goal, tolerance, alpha)
    verdicts = checked["verdict"].to_list()
    if answer is None:
        status = ("none of the values tried" if all(v == "outside" for v in verdicts)
                  else "not confirmed")
    else:
        status = {"inside": "verified inside", "outside": "verified outside"}.get(
            verdicts[0], "not confirmed")
    return Solution(parameter, goal, tolerance, alpha, status, search, answer,
                    pl.DataFrame(rows), checked)
