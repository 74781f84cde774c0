"""The target solver: which value of one rules parameter brings a balance metric to a target.

A sequential search over the candidate values on paired seeds: every candidate still in play
plays the same games, the number of games doubles at each stage, and a candidate leaves as soon
as its 95% interval lies wholly outside the target band, so the games go where the answer is
still uncertain. The search stops when a candidate's interval lies wholly inside the band (the
answer), when none is left (no value in the range meets the target) or at the game budget (no
decision). The answer is then played again on fresh seeds and reported with that interval.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from simcore import budget
from simcore.summary import Z95

from .games import game_spec
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
    ci_low: float
    ci_high: float


def _estimates(per_game: pl.DataFrame, labels: dict[str, Any]) -> list[Estimate]:
    out = []
    for label, v in labels.items():
        x = per_game.filter(pl.col("variant") == label)["value"].to_numpy()
        se = x.std(ddof=1) / np.sqrt(x.size) if x.size > 1 else np.inf
        out.append(Estimate(v, x.size, float(x.mean()), float(x.mean() - Z95 * se),
                            float(x.mean() + Z95 * se)))
    return out


@dataclass
class Solution:
    parameter: str
    target: float
    tolerance: float
    status: str                 # "found", "none in range" or "undecided"
    value: Any                  # the answer (found), else the candidate nearest the target
    history: pl.DataFrame       # every stage: value, games, mean, interval, what became of it
    verified: Estimate | None   # the answer on fresh seeds

    @property
    def met(self) -> bool | None:
        """Whether the re-verified interval lies inside the target band (None: not verified)."""
        if self.verified is None:
            return None
        return (self.target - self.tolerance <= self.verified.ci_low
                and self.verified.ci_high <= self.target + self.tolerance)

    def text(self) -> str:
        band = f"{self.target:.4g} +- {self.tolerance:.4g}"
        if self.status == "none in range":
            return (f"no value of {self.parameter} in the range brings the metric to {band}: "
                    f"every candidate's 95% interval lies outside it")
        v = self.verified
        head = (f"{self.parameter} = {self.value!r}" if self.status == "found" else
                f"undecided within the game budget; nearest: {self.parameter} = {self.value!r}")
        if v is None:
            return head
        return (f"{head}; on fresh seeds {v.mean:.4f} [{v.ci_low:.4f}, {v.ci_high:.4f}] over "
                f"{v.games:,} games ({'inside' if self.met else 'not inside'} {band})")


def solve(game: Any, parameter: str, values: Sequence[Any], target: float | str, *,
          policies: Sequence[str], players: int, metric: str = "start_seat_win",
          tolerance: float = 0.01, seed: int = 0, start_games: int = 1_000,
          max_games: int = 64_000, scheduler: Any = "inprocess") -> Solution:
    """Find the value of ``parameter`` among ``values`` that brings ``metric`` to ``target``.

    ``values``: the candidates (a list; ``range(lo, hi + 1)`` for an integer range, a grid
    for a real one). ``target``: a number or ``"fair"`` (1/``players``, for the start seat).
    ``tolerance``: the half-width of the target band (0.01: within 1 percentage point).
    Games per candidate start at ``start_games`` and double up to ``max_games``; the same
    number of fresh-seed games verifies the answer. ``scheduler``: as ``analyses.sweep``.
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
    candidates = list(values)
    if not candidates:
        raise ValueError("values: give at least one candidate")
    if not 0 < start_games <= max_games:
        raise ValueError(f"need 0 < start_games <= max_games, got {start_games}, {max_games}")
    # at most: every candidate at games doubling up to max_games in each of at most `players`
    # seatings, then the answer verified
    budget.check(spec, (2 * len(candidates) + 1) * max_games * players, players)
    lo, hi = goal - tolerance, goal + tolerance
    measure = METRICS[metric]

    def play(vals: list[Any], n: int, s: int) -> list[Estimate]:
        labels = {f"{parameter}={v!r}": v for v in vals}
        chosen = [Variant(label, changes={parameter: v}) for label, v in labels.items()]
        df = sweep(game, chosen, policies, players, n, s, scheduler=scheduler)
        return _estimates(measure(df), labels)

    rows, alive, n = [], candidates, start_games
    status, answer = "undecided", None
    for stage in range(64):
        ests = play(alive, n, seed)
        inside = [e for e in ests if lo <= e.ci_low and e.ci_high <= hi]
        left = [e for e in ests if not (e.ci_high < lo or e.ci_low > hi)]
        for e in ests:
            fate = ("inside the band" if lo <= e.ci_low and e.ci_high <= hi else
                    "left: outside the band" if e.ci_high < lo or e.ci_low > hi else "kept")
            rows.append({"stage": stage, "value": repr(e.value), "games": e.games,
                         "mean": e.mean, "ci_low": e.ci_low, "ci_high": e.ci_high,
                         "fate": fate})
        if inside:
            status, answer = "found", min(inside, key=lambda e: abs(e.mean - goal)).value
            break
        if not left:
            status = "none in range"
            break
        if n >= max_games:
            answer = min(left, key=lambda e: abs(e.mean - goal)).value
            break
        alive, n = [e.value for e in left], min(2 * n, max_games)
    verified = None if answer is None else play([answer], n, seed + FRESH)[0]
    return Solution(parameter, goal, tolerance, status, answer, pl.DataFrame(rows), verified)
