"""Small statistics written once: clustered (cluster-robust) intervals and tests, Wilson and
t intervals, p-value adjustment. The distributions (t, F, chi-square, normal) are scipy's.

The independent unit. Rows of a results frame are seat-games, and they are not independent:
the seats of one game share its chance, and a tournament replays every game index in every
seating on the same seed (common random numbers), so all the seatings of an index share their
decks, characters and much of their luck. Every interval and test of ``analyses`` therefore
takes the *cluster* as its unit: the game index (with ``seed`` when the frame has that column),
``cluster_key``. Each estimate is a smooth function of per-cluster sums; its variance is the
cluster-robust (sandwich, CR1) variance of its linearisation, from the sums over clusters of
the cluster sums and of their products (``cluster_moments``, one lazy two-stage aggregation),
so the same numpy functions serve a dataset of millions of games and a synthetic test.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl
from scipy import stats as sp

from simcore.summary import Z95, wilson  # noqa: F401  (written once, shared with the CLIs)

from .data import collect, columns

CHUNK = 50_000
"""Game indices aggregated per pass of ``cluster_moments``: the per-cluster sums of one pass
are held in memory, so a dataset of millions of games is summed a range at a time."""


MIN_CLUSTERS = 20
"""Below this many clusters the t and F references are the best available but approximate
(the cluster-robust variance itself is noisy): the reports say so."""


def few_clusters(c: float) -> str:
    """The caution to print beside a result from ``c`` clusters, or "" with enough of them."""
    return (f"only {c:.0f} game indices (fewer than {MIN_CLUSTERS}): intervals and tests are "
            f"approximate" if c < MIN_CLUSTERS else "")


def cluster_key(lf: pl.LazyFrame) -> list[str]:
    """The columns naming the independent unit: ``game`` (all seatings of a game index form one
    cluster; in ``simulate`` results each game is its own), with ``seed`` when present (results
    of several seeds). Frames of several seeds without a ``seed`` column pool the same index of
    every seed in one cluster, which only makes the intervals wider."""
    return ["seed", "game"] if "seed" in columns(lf) else ["game"]


def product_name(a: str, b: str) -> str:
    return f"{a}*{b}"


def cluster_moments(lf: pl.LazyFrame, by: Sequence[str], values: dict[str, pl.Expr],
                    products: Sequence[tuple[str, str]] | None = None) -> pl.DataFrame:
    """Per group of ``by``: ``clusters`` (how many clusters hold a row of the group), and over
    those clusters the sum of each cluster total ``name`` (``values``: aggregations over the
    rows of a cluster, e.g. ``pl.len()``, ``pl.col("win").sum()``) and of each product ``a*b``
    of two cluster totals (``products``; default every pair). These are all the
    cluster-robust variances below need; the clusters are summed ``CHUNK`` game indices at a
    time (the moments add up over ranges)."""
    by = list(by)
    key = cluster_key(lf)
    names = list(values)
    pairs = ([(a, b) for i, a in enumerate(names) for b in names[i:]] if products is None
             else list(dict.fromkeys(products)))
    lo, hi = collect(lf.select(lo=pl.col("game").min(), hi=pl.col("game").max())).row(0)
    if lo is None:
        raise ValueError("no rows to analyse")
    parts = []
    for start in range(int(lo), int(hi) + 1, CHUNK):
        part = lf.filter(pl.col("game").is_between(start, start + CHUNK - 1))
        per = collect(part.group_by([*by, *key]).agg(**{n: e.cast(pl.Float64)
                                                       for n, e in values.items()}))
        if per.height:
            parts.append(_sum_over_clusters(per, by, names, pairs))
    out = pl.concat(parts, how="vertical")
    if len(parts) > 1:
        out = out.group_by(by).agg(pl.all().sum()) if by else out.sum()
    return out.sort(by) if by else out


def _sum_over_clusters(per: pl.DataFrame, by: list[str], names: list[str],
                       pairs: list[tuple[str, str]]) -> pl.DataFrame:
    """The second stage of ``cluster_moments`` in numpy: per group, the clusters, the totals
    and the products' sums (rows sorted by group, each column contiguous, ``reduceat``)."""
    if by:
        per = per.with_columns(pl.struct(by).rank("dense").alias("_group")).sort("_group")
        ids = per["_group"].to_numpy()
    else:
        ids = np.zeros(per.height, np.int64)
    x = np.asfortranarray(per.select(names).to_numpy().astype(np.float64))
    col = {n: i for i, n in enumerate(names)}
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    cols = {"clusters": np.diff(np.r_[starts, ids.size]).astype(np.float64)}
    cols |= {n: np.add.reduceat(x[:, col[n]], starts) for n in names}
    cols |= {product_name(a, b): np.add.reduceat(x[:, col[a]] * x[:, col[b]], starts)
             for a, b in pairs}
    out = pl.DataFrame(cols)
    return pl.concat([per[starts].select(by), out], how="horizontal") if by else out


def moments(df: pl.DataFrame, names: Sequence[str]
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(C, T, M) from a ``cluster_moments`` table: clusters per row, the totals of ``names``
    (rows x k) and their product sums (rows x k x k, symmetric)."""
    k = len(names)
    t = np.stack([df[n].to_numpy().astype(np.float64) for n in names], axis=-1)
    m = np.empty(t.shape + (k,))
    for i, a in enumerate(names):
        for j, b in enumerate(names[i:], i):
            col = product_name(a, b) if product_name(a, b) in df.columns else product_name(b, a)
            m[:, i, j] = m[:, j, i] = df[col].to_numpy()
    return df["clusters"].to_numpy().astype(np.float64), t, m


def moments_of(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(C, T, M) from cluster totals ``x`` of shape (..., clusters, k): what
    ``cluster_moments`` returns, for data already summed per cluster (tests, ``compare``)."""
    x = np.asarray(x, dtype=np.float64)
    c = np.full(x.shape[:-2], float(x.shape[-2]))
    return c, x.sum(axis=-2), np.einsum("...ci,...cj->...ij", x, x)


def cr_var(grad: np.ndarray, c: np.ndarray, t: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Cluster-robust (CR1) variance of a statistic whose linearisation over the cluster
    totals has gradient ``grad`` (..., k): C/(C-1) times the sum over clusters of the squared,
    centred influence grad . x_c. NaN with fewer than 2 clusters."""
    g = np.asarray(grad, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ss = np.einsum("...i,...ij,...j->...", g, m, g) - np.einsum("...i,...i->...", g, t) ** 2 / c
        return np.where(c >= 2, np.maximum(ss, 0.0) * c / (c - 1), np.nan)


def ratio(c, t, m) -> tuple[np.ndarray, np.ndarray]:
    """A ratio of cluster sums y / n (a win rate, a mean score) and its cluster-robust standard
    error; ``t``, ``m`` over the variables (y, n)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        r = t[..., 0] / t[..., 1]
        grad = np.stack([1 / t[..., 1], -r / t[..., 1]], axis=-1)
    return r, np.sqrt(cr_var(grad, c, t, m))


def t95(c) -> np.ndarray:
    """The two-sided 95% quantile of Student's t with C - 1 degrees of freedom, for an interval
    from ``c`` clusters (the normal's 1.96 undercovers with few clusters: 91% at 12); NaN
    below 2 clusters."""
    c = np.asarray(c, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(c >= 2, sp.t.ppf(0.975, np.maximum(c - 1, 1)), np.nan)


def t_interval(est, se, c, bounds: tuple[float, float] = (-math.inf, math.inf)
               ) -> tuple[np.ndarray, np.ndarray]:
    """The 95% interval est -/+ t95(c) se of a statistic over ``c`` clusters, clipped to the
    values it can take (``bounds``: (0, 1) for a share, (-1, 1) for a difference of shares)."""
    half = t95(c) * np.asarray(se, dtype=np.float64)
    return np.clip(est - half, *bounds), np.clip(est + half, *bounds)


def clustered_wilson(c, t, m, z=None) -> tuple[np.ndarray, ...]:
    """Win rate (win shares y over seat-games n) with a Wilson interval on the effective n:
    n divided by the design effect, the cluster-robust variance over the binomial one, and
    the t(C - 1) quantile (``t95``) unless ``z`` is given. Where the rate is 0 or 1 the design
    effect cannot be estimated and the effective n is n, so the interval there is never wider
    than at a rate just inside; where the rate is the same in every cluster (two policies that
    play alike, rotated over the seats of each game index, each win exactly 1/P of it) the
    effective n is the number of clusters (as if each cluster were one seat-game). Returns
    (rate, low, high, n_eff)."""
    r, se = ratio(c, t, m)
    n = t[..., 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        binomial = r * (1 - r) / n
        n_eff = np.where((r > 0) & (r < 1), np.where(se > 0, n * binomial / se ** 2, c), n)
    n_eff = np.where(np.isnan(se) | (n <= 0), np.nan, n_eff)
    low, high = wilson(r * n_eff, n_eff, t95(c) if z is None else z)
    return r, np.asarray(low), np.asarray(high), n_eff


def difference(c, t, m) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """With minus without: y1/n1 - (y - y1)/(n - n1) from the variables (y1, n1, y, n) (the sums
    over the rows with the thing, and over all rows). Returns (diff, se, se0): ``se`` for the
    interval, ``se0`` with both sides at the pooled mean y/n (the variance under "no
    difference", for the p-value; sound when one side is small)."""
    y1, n1, y, n = (t[..., i] for i in range(4))
    n0 = n - n1
    with np.errstate(invalid="ignore", divide="ignore"):
        m1, m0, pooled = y1 / n1, (y - y1) / n0, y / n

        def grad(a, b):
            return np.stack([1 / n1 + 1 / n0, -a / n1 - b / n0, -1 / n0, b / n0], axis=-1)
        se = np.sqrt(cr_var(grad(m1, m0), c, t, m))
        se0 = np.sqrt(cr_var(grad(pooled, pooled), c, t, m))
    return m1 - m0, se, se0


def equal_shares_test(c, t, m, one_game_per_cluster: bool) -> tuple[float, int, float, str]:
    """Test that every seat wins its fair share 1/P: variables (w_0..w_P-1, n_0..n_P-1), the win
    shares and seat-games of each seat. With one game per cluster: Pearson's chi-square of the
    multinomial (the exact variance of independent games); otherwise the cluster-robust Wald
    statistic W of the q = P - 1 free shares, referred to F(q, C - q) as (C - q) W / (q (C - 1))
    (Hotelling's T-squared: the chi-square reference rejects a fair game far too often with few
    clusters). Returns (statistic, dof, p, name of the test); where the test cannot be computed
    (C <= q, or a seat's share has no spread, e.g. a seat that never wins) p is NaN and the name
    starts with "not computable" and says why."""
    k = t.shape[-1] // 2
    w, n = t[:k], t[k:]
    q = k - 1
    if one_game_per_cluster:
        expected = n / k
        chi2 = float(np.sum((w - expected) ** 2 / expected))
        return chi2, q, float(sp.chi2.sf(chi2, q)), "multinomial chi-square"
    if c <= q:
        return math.nan, q, math.nan, (f"not computable: {c:.0f} game indices for {q} free "
                                       f"seat shares (need more than {q})")
    r = w / n
    grad = np.zeros((q, 2 * k))
    for s in range(q):
        grad[s, s], grad[s, k + s] = 1 / n[s], -r[s] / n[s]
    centred = m - np.outer(t, t) / c
    v = grad @ centred @ grad.T * c / (c - 1)
    d = r[:q] - 1 / k
    if np.linalg.matrix_rank(v) < q:
        return math.nan, q, math.nan, ("not computable: a seat's win share is the same in "
                                       "every game index (e.g. a seat that never wins)")
    stat = float(d @ np.linalg.solve(v, d))
    f = (c - q) * stat / (q * (c - 1))
    return stat, q, float(sp.f.sf(f, q, c - q)), "cluster-robust Wald, F reference"


def score_p(rate, n_eff, p0) -> np.ndarray:
    """Two-sided p-value of the score test of a rate against ``p0`` on the effective n (the
    test the Wilson interval inverts: ``p0`` lies outside the 95% Wilson interval of
    ``clustered_wilson`` exactly when this p is below 0.05)."""
    rate, n_eff, p0 = (np.asarray(x, dtype=np.float64) for x in (rate, n_eff, p0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return two_sided_p((rate - p0) / np.sqrt(p0 * (1 - p0) / n_eff))


def two_sided_p(z: np.ndarray | float, dof: np.ndarray | float | None = None) -> np.ndarray:
    """Two-sided p-value of a z statistic: normal, or Student's t with ``dof`` degrees of
    freedom (a statistic over C clusters: C - 1)."""
    z = np.abs(np.asarray(z, dtype=np.float64))
    with np.errstate(invalid="ignore"):
        return 2 * (sp.norm.sf(z) if dof is None else sp.t.sf(z, dof))


def paired_p(diff: float, se: float, games: int) -> float:
    """Two-sided p-value of a paired difference over ``games`` game indices: the t test on
    t(games - 1); where the change is the same in every game index no spread is left to test
    with, and the p is the exact sign test over the game indices: 1 for no change, else
    2 / 2^games (0.5 from 2 games), never the 0 a zero variance would give. NaN under 2."""
    if se > 0:
        return float(two_sided_p(diff / se, games - 1))
    if np.isnan(se):
        return math.nan
    return 1.0 if diff == 0 else min(1.0, 2.0 * 0.5 ** games)


def ratio_influence(y: np.ndarray, n: np.ndarray) -> tuple[float, np.ndarray] | None:
    """A ratio of sums, sum(y) / sum(n) over clusters (a win rate), and each cluster's
    influence on it, (y - r n) / sum(n): the ratio's error is the sum of the influences, so two
    statistics measured on the same clusters are paired by subtracting their influences cluster
    by cluster. None when sum(n) is 0."""
    total = float(np.sum(n))
    if total == 0:
        return None
    r = float(np.sum(y)) / total
    return r, (np.asarray(y, dtype=np.float64) - r * np.asarray(n, dtype=np.float64)) / total


def influence_se(psi: np.ndarray) -> float:
    """Cluster-robust (CR1) standard error from each cluster's influence ``psi`` (influences
    sum to 0): sqrt(C / (C - 1) sum(psi^2)); NaN under 2 clusters."""
    c = np.size(psi)
    return float(np.sqrt(c / (c - 1) * np.sum(np.square(psi)))) if c > 1 else math.nan


def detectable(se, c, power: float = 0.8, alpha: float = 0.05) -> np.ndarray:
    """The minimum detectable effect of a statistic with standard error ``se`` over ``c``
    clusters: the true effect a two-sided t(C - 1) test at ``alpha`` finds with probability
    ``power``, (t(1 - alpha/2) + t(power)) se."""
    dof = np.maximum(np.asarray(c, dtype=np.float64) - 1, 1)
    return (sp.t.ppf(1 - alpha / 2, dof) + sp.t.ppf(power, dof)) * np.asarray(se, dtype=float)


def equivalence_p(est, se, c, margin) -> np.ndarray:
    """P-value of the two one-sided tests (TOST) that the true value lies within -/+ ``margin``:
    the larger of the t(C - 1) p-values against each bound; below alpha the statistic is shown
    to be within the margin (its 1 - 2 alpha interval lies inside it)."""
    est, se, margin = (np.asarray(x, dtype=np.float64) for x in (est, se, margin))
    dof = np.maximum(np.asarray(c, dtype=np.float64) - 1, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.maximum(sp.t.sf((est + margin) / se, dof), sp.t.cdf((est - margin) / se, dof))


def outside_p(est, se, c, margin) -> np.ndarray:
    """P-value of the test that the true value lies outside -/+ ``margin``: the one-sided
    t(C - 1) test beyond the bound nearer ``est`` (below alpha the 1 - 2 alpha interval lies
    wholly beyond that bound). The complement of ``equivalence_p``: at most one of the two is
    below 0.5."""
    est, se, margin = (np.asarray(x, dtype=np.float64) for x in (est, se, margin))
    dof = np.maximum(np.asarray(c, dtype=np.float64) - 1, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(est < 0, sp.t.cdf((est + margin) / se, dof),
                        sp.t.sf((est - margin) / se, dof))


def adjust_table(t: pl.DataFrame, cols: Sequence[str], method: str = "holm") -> pl.DataFrame:
    """Add ``<col>_adj`` for each p-value column of ``cols``, adjusted as ONE family: every
    p-value of the table (all rows, all the columns) counts as one test."""
    p = np.concatenate([t[c].to_numpy().astype(np.float64) for c in cols])
    adj = adjust_pvalues(p, method).reshape(len(cols), t.height)
    return t.with_columns(pl.Series(f"{c}_adj", adj[i]) for i, c in enumerate(cols))


def adjust_pvalues(p: np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjust p-values for the number of tests: ``"holm"`` (family-wise error) or ``"bh"``
    (Benjamini-Hochberg false discovery rate). NaN entries are left out and stay NaN."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    ranked = p[order]
    if method == "holm":
        adj = np.maximum.accumulate(ranked * (m - np.arange(m)))
    elif method == "bh":
        adj = np.minimum.accumulate((ranked * m / np.arange(1, m + 1))[::-1])[::-1]
    else:
        raise ValueError(f"unknown p-value adjustment {method!r}; use 'holm' or 'bh'")
    out[order] = np.minimum(adj, 1.0)
    return out
