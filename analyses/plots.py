"""Figures for the report, each drawn from a small aggregated table (never from raw rows)."""
from __future__ import annotations

from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def light(name: str, low: float = 0.05, high: float = 0.6) -> matplotlib.colors.Colormap:
    """The part of a colour map from ``low`` to ``high``; by default its light part, so that
    black labels stay readable on every cell."""
    return matplotlib.colors.LinearSegmentedColormap.from_list(
        f"{name}_{low}_{high}", plt.get_cmap(name)(np.linspace(low, high, 64)))


def contrast(a, b) -> float:
    """The WCAG contrast ratio of two colours, 1 to 21 (text needs at least 4.5)."""
    def luminance(c) -> float:
        rgb = np.asarray(matplotlib.colors.to_rgb(c))
        rgb = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        return float(rgb @ [0.2126, 0.7152, 0.0722])
    low, high = sorted((luminance(a), luminance(b)))
    return (high + 0.05) / (low + 0.05)


def ink(fill) -> str:
    """Black or white, whichever reads better on ``fill`` (the better one always has a
    contrast ratio of at least 4.58)."""
    return max(("black", "white"), key=lambda c: contrast(c, fill))


def _xerr(value, low, high) -> np.ndarray:
    """Error bar lengths, never negative (a Wilson bound can sit a rounding error past 0)."""
    value, low, high = (np.asarray(v, dtype=float) for v in (value, low, high))
    return np.maximum(np.vstack([value - low, high - value]), 0.0)


def _interval_bars(ax, labels: Sequence[str], value, low, high, fair: float | None,
                   xlabel: str) -> None:
    y = np.arange(len(labels))
    value, low, high = (np.asarray(v, dtype=float) for v in (value, low, high))
    ax.barh(y, value, color="#6baed6")
    ax.errorbar(value, y, xerr=_xerr(value, low, high), fmt="none", ecolor="black",
                capsize=4)
    if fair is not None:
        ax.axvline(fair, color="#d62728", ls="--", lw=1, label=f"fair share {fair:.1%}")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))


def win_rate_plot(table: pl.DataFrame, by: str = "policy", title: str = "Win rate") -> Figure:
    """Bars of ``win_rates`` output with their 95% Wilson intervals."""
    fig, ax = plt.subplots(figsize=(6.4, 0.5 * table.height + 1.4), layout="constrained")
    fair = None
    if "n_players" in table.columns and table["n_players"].n_unique() == 1:
        fair = 1 / table["n_players"][0]
    _interval_bars(ax, [str(v) for v in table[by]], table["win_rate"], table["ci_low"],
                   table["ci_high"], fair, "win rate (95% Wilson interval)")
    ax.set_title(title)
    return fig


def seat_plot(table: pl.DataFrame, title: str = "Seat advantage") -> Figure:
    """Per seat win rate against the fair share 1/P, and mean score, with 95% intervals."""
    groups = table.partition_by("n_players", maintain_order=True)
    height = 1.0 + 0.45 * table.height + 0.6 * len(groups)
    fig, axes = plt.subplots(len(groups), 2, figsize=(9, height),
                             layout="constrained", squeeze=False)
    for (ax_w, ax_s), g in zip(axes, groups, strict=True):
        k = int(g["n_players"][0])
        labels = [f"seat {s}" + (" (start)" if s == 0 else "") for s in g["seat"]]
        p = g["p_value"][0]
        _interval_bars(ax_w, labels, g["win_rate"], g["ci_low"], g["ci_high"], 1 / k,
                       f"win rate, {k} players (test of equal seats: "
                       f"{f'p = {p:.2g}' if p == p else 'not computable'})")
        y = np.arange(g.height)
        m = g["mean_score"].to_numpy()
        ax_s.errorbar(m, y, xerr=_xerr(m, g["score_ci_low"], g["score_ci_high"]), fmt="o",
                      capsize=4)
        ax_s.set_yticks(y, labels)
        ax_s.invert_yaxis()
        ax_s.set_xlabel(f"mean {g['score'][0]} (95% interval)")
    fig.suptitle(title)
    return fig


def score_plot(hist: pl.DataFrame, score: str, title: str = "Score distribution") -> Figure:
    """Distribution of the final score per policy from ``score_histogram`` counts."""
    fig, ax = plt.subplots(figsize=(7, 3.6), layout="constrained")
    for (name,), g in hist.sort("policy", score).group_by(["policy"], maintain_order=True):
        share = g["count"].to_numpy() / g["count"].sum()
        ax.step(g[score].to_numpy(), share, where="mid", label=str(name))
    ax.set_xlabel(score)
    ax.set_ylabel("share of seat-games")
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.legend(fontsize=8)
    ax.set_title(title)
    return fig


def forest_plot(table: pl.DataFrame, effect: str = "win", top: int = 25,
                title: str = "Event impact") -> Figure:
    """Forest plot of ``event_impact`` (or counterfactual) rows: the difference with/without
    and its 95% interval; rows significant after adjustment are drawn in red. Shows the
    ``top`` rows with the largest effects."""
    t = table.with_columns(size=pl.col(f"{effect}_diff").abs()).sort("size", descending=True)
    t = t.head(top).reverse()
    labels = [f"{r['kind']}: {r['thing']}"
              + ("" if r["group"] == "all" else f" ({r['by']} {r['group']})")
              for r in t.iter_rows(named=True)]
    d, lo, hi = (t[f"{effect}_{c}"].to_numpy() for c in ("diff", "ci_low", "ci_high"))
    sig = t[f"p_{effect}_adj"].to_numpy() < 0.05
    fig, ax = plt.subplots(figsize=(8, 0.3 * t.height + 1.5), layout="constrained")
    y = np.arange(t.height)
    for mask, colour, name in ((sig, "#d62728", "significant (adjusted p < 0.05)"),
                               (~sig, "#555555", "not significant")):
        if mask.any():
            ax.errorbar(d[mask], y[mask], xerr=_xerr(d[mask], lo[mask], hi[mask]),
                        fmt="o", color=colour, capsize=3, label=name)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, labels, fontsize=8)
    unit = "win rate" if effect == "win" else "mean score"
    ax.set_xlabel(f"difference in {unit}, with - without (95% interval)")
    if effect == "win":
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.legend(fontsize=8, loc="best")
    ax.set_title(title)
    return fig


def ladder_plot(matrix: pl.DataFrame, rungs: Sequence[str], players: int,
                title: str = "Skill ladder") -> Figure:
    """The ladder's win-rate matrix: row rung with one seat against P-1 of the column rung,
    each cell its win rate and 95% interval, coloured red above the fair share 1/P and blue
    below it (white at 1/P)."""
    k = len(rungs)
    idx = {n: i for i, n in enumerate(rungs)}
    fair = 1 / players
    val = np.full((k, k), np.nan)
    fig, ax = plt.subplots(figsize=(1.6 * k + 2.4, 0.9 * k + 1.6), layout="constrained")
    for r in matrix.iter_rows(named=True):
        i, j = idx[r["rung"]], idx[r["opponent"]]
        val[i, j] = r["win_rate"]
        ax.text(j, i, f"{r['win_rate']:.1%}\n[{r['ci_low']:.1%}, {r['ci_high']:.1%}]",
                ha="center", va="center", fontsize=8)
    cmap = matplotlib.colors.LinearSegmentedColormap.from_list(
        "ladder", plt.get_cmap("RdBu_r")(np.linspace(0.12, 0.88, 64)))
    im = ax.imshow(val, cmap=cmap, norm=matplotlib.colors.TwoSlopeNorm(fair, 0.0, 1.0))
    ax.set_xticks(range(k), [f"{players - 1} x {n}" for n in rungs], rotation=20, ha="right")
    ax.set_yticks(range(k), [f"1 x {n}" for n in rungs])
    ax.set_xlabel("the other seats")
    ax.set_ylabel("one seat (rotated over every seat)")
    bar = fig.colorbar(im, ax=ax, shrink=0.8)
    bar.ax.axhline(fair, color="black", lw=1)
    bar.ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    bar.set_label(f"win rate (fair share {fair:.1%})")
    ax.set_title(title)
    return fig


def skill_curve_plot(curves: pl.DataFrame, players: int, title: str = "Skill curve") -> Figure:
    """Per family of rungs: win rate with one seat against P-1 of its reference rung, by budget
    (log scale), with 95% intervals and the fair share 1/P."""
    fig, ax = plt.subplots(figsize=(6.4, 4), layout="constrained")
    for (fam, ref), g in curves.sort("budget").group_by(["family", "reference"],
                                                         maintain_order=True):
        b, w = g["budget"].to_numpy(), g["win_rate"].to_numpy()
        ax.errorbar(b, w, yerr=_xerr(w, g["ci_low"], g["ci_high"]), fmt="o-", capsize=4,
                    label=f"{fam} against {players - 1} x {ref}")
    ax.axhline(1 / players, color="#d62728", ls="--", lw=1, label=f"fair share {1 / players:.1%}")
    ax.set_xscale("log")
    ax.set_xlabel("budget")
    ax.set_ylabel("win rate with one seat (95% interval)")
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.legend(fontsize=8)
    ax.set_title(title)
    return fig
