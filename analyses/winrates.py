"""Win rates with their n and a clustered Wilson interval."""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from .data import Frame, lazy, require
from .stats import cluster_key, cluster_moments, clustered_wilson, moments


def win_rates(df: Frame, by: Sequence[str] = ("policy",)) -> pl.DataFrame:
    """Win rate per group of ``by``: columns of ``by``, ``games``, ``wins``, ``win_rate``,
    ``ci_low``, ``ci_high`` (95% Wilson on the effective n), ``clusters``, ``n_eff``.

    ``games`` counts seat-games (a policy seated twice in one game counts twice); ``wins`` sums
    win shares, so a game won in a k-way tie counts 1/k of a win for each tied winner. The unit
    of the interval is the cluster (``stats.cluster_key``: the game index): in a tournament every
    seating of an index shares its chance, so ``n_eff`` (the seat-games the data are worth) is
    below ``games``.
    """
    by = [by] if isinstance(by, str) else list(by)
    if not by:
        raise ValueError("win_rates: 'by' needs at least one column")
    lf = lazy(df)
    require(lf, [*by, "win", *cluster_key(lf)])
    lf = lf.with_columns(pl.col(c).cast(pl.String) for c in by
                         if lf.collect_schema()[c] == pl.Categorical)
    t = cluster_moments(lf, by, {"wins": pl.col("win").sum(), "games": pl.len()})
    rate, low, high, n_eff = clustered_wilson(*moments(t, ["wins", "games"]))
    return t.select(*by, pl.col("games").cast(pl.Int64), "wins").with_columns(
        win_rate=pl.Series(rate), ci_low=pl.Series(low), ci_high=pl.Series(high),
        clusters=t["clusters"].cast(pl.Int64), n_eff=pl.Series(n_eff))
