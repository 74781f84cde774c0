"""Seat advantage: does the start player (or any seat) win more than its fair share?"""
from __future__ import annotations

import numpy as np
import polars as pl

from .data import Frame, collect, lazy, require, score_column
from .stats import (cluster_key, cluster_moments, clustered_wilson, equal_shares_test, moments,
                    ratio, t_interval)

ONE_POLICY, ROTATED, UNBALANCED, CONFOUNDED = ("one policy", "rotated", "unbalanced",
                                               "confounded")
DESIGN_NOTE = {
    ONE_POLICY: "every seat played the same policy",
    ROTATED: "every policy sat in every seat equally often",
    UNBALANCED: "the policies did not sit in every seat equally often, so the seat differences "
                "mix the seat with the policy sitting in it",
    CONFOUNDED: "each policy sat in a fixed seat, so seat effects cannot be read from these "
                "results (the differences between seats are those between the policies)",
}


def seat_design(df: Frame) -> dict[int, str]:
    """Per player count, how the policies were placed over the seats: ``"one policy"``,
    ``"rotated"`` (every policy in every seat equally often: seats comparable),
    ``"confounded"`` (each seat always held the same policy, and there are several: seat and
    policy cannot be told apart) or ``"unbalanced"`` (anything else: comparable only with
    caution). ``DESIGN_NOTE`` says each in words."""
    counts = collect(lazy(df).group_by("n_players", "seat", pl.col("policy").cast(pl.String))
                     .agg(n=pl.len()))
    out: dict[int, str] = {}
    for (k,), g in counts.group_by(["n_players"]):
        policies, seats = g["policy"].n_unique(), g["seat"].n_unique()
        if policies == 1:
            out[int(k)] = ONE_POLICY
        elif g["n"].n_unique() == 1 and g.height == seats * policies:
            out[int(k)] = ROTATED
        elif g.height == seats:
            out[int(k)] = CONFOUNDED
        else:
            out[int(k)] = UNBALANCED
    return out


def seat_advantage(df: Frame, score: str | None = None) -> pl.DataFrame:
    """Per player count and seat: win rate (clustered Wilson 95%), mean score (cluster-robust
    t(C - 1) 95%), and a test of "all seats win equally often" (``chi2``, ``dof``, ``p_value``,
    ``test``, repeated on every row of that player count).

    The unit is the cluster (``stats.cluster_key``, the game index): with one game per cluster
    (``simulate`` results) the test is Pearson's chi-square of the multinomial against
    games/P; when clusters hold several games (a tournament replays every index in every
    seating) it is the cluster-robust Wald test of equal seat shares on an F reference
    (``stats.equal_shares_test``: "not computable" and why where it has no p).
    ``design`` (``seat_design``): where each policy sat in a fixed seat (``"confounded"``) the
    seats cannot be compared and the test is left out (NaN). ``score`` defaults to the game's
    own score (``simcore.games.Game.score``).
    """
    lf = lazy(df)
    score = score_column(lf, score)
    require(lf, ["n_players", "seat", "win", "policy", *cluster_key(lf)])
    design = seat_design(lf)
    s = pl.col(score).cast(pl.Float64)
    per_seat = cluster_moments(lf, ["n_players", "seat"],
                               {"wins": pl.col("win").sum(), "games": pl.len(),
                                "score_sum": s.sum()},
                               [("wins", "wins"), ("wins", "games"), ("games", "games"),
                                ("score_sum", "score_sum"), ("score_sum", "games")])
    rate, low, high, n_eff = clustered_wilson(*moments(per_seat, ["wins", "games"]))
    mean, se = ratio(*moments(per_seat, ["score_sum", "games"]))
    score_low, score_high = t_interval(mean, se, per_seat["clusters"].to_numpy())
    n_players = per_seat["n_players"].to_numpy()
    chi2 = np.full(per_seat.height, np.nan)
    dof = np.zeros(per_seat.height, dtype=np.int64)
    p = np.full(per_seat.height, np.nan)
    test = [""] * per_seat.height
    for k in np.unique(n_players):
        rows = np.flatnonzero(n_players == k)
        if design[int(k)] == CONFOUNDED or rows.size < 2:
            continue
        seats = [f"w{i}" for i in range(rows.size)] + [f"n{i}" for i in range(rows.size)]
        part = lf.filter(pl.col("n_players") == k)
        win = pl.col("win").cast(pl.Float64)
        vals = {f"w{i}": (win * (pl.col("seat") == sv)).sum()
                for i, sv in enumerate(per_seat["seat"].to_numpy()[rows])}
        vals |= {f"n{i}": (pl.col("seat") == sv).sum()
                 for i, sv in enumerate(per_seat["seat"].to_numpy()[rows])}
        c, t, m = moments(cluster_moments(part, [], vals), seats)
        one_game = bool(t[0, rows.size] == c[0])   # each cluster holds one game of k seats
        stat, df_, pv, name = equal_shares_test(c[0], t[0], m[0], one_game)
        chi2[rows], dof[rows], p[rows] = stat, df_, pv
        for r in rows:
            test[r] = name
    return pl.DataFrame({
        "n_players": per_seat["n_players"], "seat": per_seat["seat"],
        "games": per_seat["games"].cast(pl.Int64), "wins": per_seat["wins"],
        "win_rate": rate, "ci_low": low, "ci_high": high, "expected": 1.0 / n_players,
        "clusters": per_seat["clusters"].cast(pl.Int64), "n_eff": n_eff,
        "score": score, "mean_score": mean,
        "score_ci_low": score_low, "score_ci_high": score_high, "chi2": chi2,
        "dof": dof, "p_value": p, "test": test,
        "design": [design[int(k)] for k in n_players]})
