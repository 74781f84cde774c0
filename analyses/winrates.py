"""Win rates with their n and a Wilson interval."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from .data import Frame, collect, lazy, require
from .stats import wilson


def win_rates(df: Frame, by: Sequence[str] = ("policy",)) -> pl.DataFrame:
    """Win rate per group of ``by``: columns of ``by``, ``games``, ``wins``, ``win_rate``,
    ``ci_low``, ``ci_high`` (95% Wilson).

    ``games`` counts seat-games (a policy seated twice in one game counts twice); ``wins`` sums
    win shares, so a game won in a k-way tie counts 1/k of a win for each tied winner.
    """
    by = [by] if isinstance(by, str) else list(by)
    if not by:
        raise ValueError("win_rates: 'by' needs at least one column")
    lf = lazy(df)
    require(lf, [*by, "win"])
    t = collect(lf.group_by(by).agg(games=pl.len().cast(pl.Int64),
                                    wins=pl.col("win").cast(pl.Float64).sum()))
    t = t.with_columns(pl.col(c).cast(pl.String) for c in by
                       if t.schema[c] == pl.Categorical).sort(by)
    low, high = wilson(t["wins"].to_numpy(), t["games"].to_numpy())
    return t.with_columns(win_rate=pl.col("wins") / pl.col("games"),
                          ci_low=pl.Series(np.asarray(low)), ci_high=pl.Series(np.asarray(high)))
