"""Seat advantage: does the start player (or any seat) win more than its fair share?"""
from __future__ import annotations

import numpy as np
import polars as pl

from .data import Frame, collect, lazy, require, score_column
from .stats import chi2_sf, mean_interval, wilson


def seat_advantage(df: Frame, score: str | None = None) -> pl.DataFrame:
    """Per player count and seat: win rate (Wilson 95%), mean score (normal 95%), and a
    chi-square test of "all seats win equally often".

    The test compares each seat's summed win shares with games/P, the count expected if every
    seat were equal (goodness of fit, P - 1 degrees of freedom); its ``chi2``, ``dof`` and
    ``p_value`` repeat on every row of that player count. ``score`` defaults to the game's own
    score (bloomsim ``score``, rapinsim ``treasures``). Seats are only comparable when the
    policies were rotated over them (as ``tournament`` and the balance report do) or are all
    the same.
    """
    lf = lazy(df)
    score = score_column(lf, score)
    require(lf, ["n_players", "seat", "win"])
    s = pl.col(score).cast(pl.Float64)
    t = collect(lf.group_by("n_players", "seat").agg(
        games=pl.len().cast(pl.Int64), wins=pl.col("win").cast(pl.Float64).sum(),
        score_sum=s.sum(), score_sq=(s * s).sum())).sort("n_players", "seat")
    low, high = wilson(t["wins"].to_numpy(), t["games"].to_numpy())
    mean, _, s_low, s_high = mean_interval(t["score_sum"].to_numpy(), t["score_sq"].to_numpy(),
                                           t["games"].to_numpy())
    chi2 = np.zeros(t.height)
    dof = np.zeros(t.height, dtype=np.int64)
    p = np.zeros(t.height)
    n_players = t["n_players"].to_numpy()
    for k in np.unique(n_players):
        rows = n_players == k
        wins = t["wins"].to_numpy()[rows]
        expected = t["games"].to_numpy()[rows] / k
        chi2[rows] = float(np.sum((wins - expected) ** 2 / expected))
        dof[rows] = rows.sum() - 1
        p[rows] = chi2_sf(chi2[rows][0], int(dof[rows][0])) if dof[rows][0] > 0 else np.nan
    return pl.DataFrame({
        "n_players": t["n_players"], "seat": t["seat"], "games": t["games"], "wins": t["wins"],
        "win_rate": t["wins"] / t["games"], "ci_low": low, "ci_high": high,
        "expected": 1.0 / n_players, "score": score, "mean_score": mean,
        "score_ci_low": s_low, "score_ci_high": s_high, "chi2": chi2, "dof": dof, "p_value": p})
