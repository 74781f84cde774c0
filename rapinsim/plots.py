"""The Lapin town drawn with what results did in it (the report's board plot)."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib
import matplotlib.pyplot as plt
import polars as pl
from matplotlib.figure import Figure

from analyses.plots import ink, light


def usage(lf: pl.LazyFrame) -> tuple[dict[int, float], dict[int, float]]:
    """Searches and players found per game in each district."""
    cols = [c for c in lf.collect_schema().names() if c.startswith(("searches_d", "found_d"))]
    means = lf.select([pl.col(c).cast(pl.Float64).mean() for c in cols]).collect()
    pick = {p: {int(c[len(p):]): means[c][0] for c in cols if c.startswith(p)}
            for p in ("searches_d", "found_d")}
    return pick["searches_d"], pick["found_d"]


def board_plot(board: Mapping, lf: pl.LazyFrame, default_rules: bool) -> Figure:
    """The town of the report: ``town_figure`` of these results' searches and finds."""
    searches, found = usage(lf)
    return town_figure(board["districts"], board["route"], board["extra_edges"], searches, found)


def town_figure(districts: int, route: Sequence[int], extra_edges: Sequence[Sequence[int]],
              searches: Mapping[int, float], found: Mapping[int, float]) -> Figure:
    """The Lapin town: districts on Rize's ring (in route order) with the extra roads or
    bridges dashed, coloured by searches per game and by players found per game. The colour
    scale spans the districts' own range (least to most), so that their differences show
    however close the values are; each label is black or white, whichever reads on its
    district."""
    pos = {d: (math.sin(2 * math.pi * i / len(route)), math.cos(2 * math.pi * i / len(route)))
           for i, d in enumerate(route)}
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.2), layout="constrained")
    for ax, values, cmap, label in ((axes[0], searches, "Greens", "searches per game"),
                                    (axes[1], found, "Reds", "players found per game")):
        ring = list(route) + [route[0]]
        for u, v in zip(ring, ring[1:], strict=False):
            ax.plot(*zip(pos[u], pos[v], strict=True), color="#888888", lw=2, zorder=1)
        for u, v in extra_edges:
            ax.plot(*zip(pos[u], pos[v], strict=True), color="#555555", lw=1.5, ls="--", zorder=1)
        shown = [values.get(d, 0.0) for d in range(1, districts + 1)]
        lo, hi = min(shown), max(shown)
        norm = matplotlib.colors.Normalize(lo, hi if hi > lo else lo + 1)
        cm = light(cmap, 0.1, 0.9)
        for d, v in enumerate(shown, 1):
            x, y = pos[d]
            fill = cm(norm(v))
            ax.scatter(x, y, s=1100, color=fill, edgecolors="black", zorder=2)
            ax.text(x, y + 0.03, f"{d}", ha="center", va="bottom", fontsize=9, weight="bold",
                    color=ink(fill), zorder=3)
            ax.text(x, y - 0.03, f"{v:.2f}", ha="center", va="top", fontsize=7.5,
                    color=ink(fill), zorder=3)
        fig.colorbar(matplotlib.cm.ScalarMappable(norm, cm), ax=ax, shrink=0.7, label=label)
        ax.set_title(f"{label} (ring = Rize's route, dashed = bridge)", fontsize=10)
        ax.set_aspect("equal")
        ax.set_xlim(-1.3, 1.3)
        ax.set_ylim(-1.3, 1.3)
        ax.axis("off")
    fig.suptitle("The Lapin town")
    return fig
