"""Figures for the report, each drawn from a small aggregated table (never from raw rows)."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

TERRAIN_COLOURS = {"castle": "#8c8c8c", "water": "#9ecae1", "forest": "#a1d99b",
                   "meadow": "#e5f5a0", "hill": "#fdd0a2", "mountain": "#bcaaa4"}
POTION_COLOURS = {"orange": "#e6550d", "purple": "#756bb1", "green": "#31a354"}


def _light(name: str) -> matplotlib.colors.Colormap:
    """The light part of a colour map, so that black labels stay readable on every cell."""
    return matplotlib.colors.LinearSegmentedColormap.from_list(
        f"{name}_light", plt.get_cmap(name)(np.linspace(0.05, 0.6, 64)))


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
        _interval_bars(ax_w, labels, g["win_rate"], g["ci_low"], g["ci_high"], 1 / k,
                       f"win rate, {k} players (p = {g['p_value'][0]:.2g}, all seats equal)")
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


def broom_board_plot(board: Mapping, usage: Mapping[str, Mapping[str, float]],
                     approximate: bool = True) -> Figure:
    """Broom Service board from the rules data (areas on their grid x, y): towers coloured by
    potions delivered per game; areas by pawns ending there per game; cloud spaces with the
    share of games their cloud was charmed. ``usage``: ``deliveries`` {tower: per game},
    ``pawns`` {area: per game}, ``charmed`` {cloud space column name: share of games}."""
    areas = {a["id"]: a for a in board["areas"]}
    fig, (ax_t, ax_p) = plt.subplots(1, 2, figsize=(13, 5.6), layout="constrained")
    pawn_max = max(usage["pawns"].values(), default=0) or 1
    cmap_p = _light("Blues")
    for ax in (ax_t, ax_p):
        for a in areas.values():
            water = a["terrain"] == "water"
            if ax is ax_t or water:
                face = TERRAIN_COLOURS.get(a["terrain"], "#ffffff")
            else:
                face = cmap_p(usage["pawns"].get(a["id"], 0) / pawn_max)
            ax.add_patch(Rectangle((a["x"] - 0.5, a["y"] - 0.5), 1, 1, facecolor=face,
                                   edgecolor="white", lw=1.5, hatch="//" if water else None))
            if a["terrain"] == "castle":
                ax.text(a["x"], a["y"] + 0.3, "castle", ha="center", fontsize=7)
        xs = [a["x"] for a in areas.values()]
        ys = [a["y"] for a in areas.values()]
        ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
        ax.set_ylim(max(ys) + 0.6, min(ys) - 0.6)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
    dmax = max(usage["deliveries"].values(), default=0) or 1
    cmap_t = plt.get_cmap("viridis")
    for t in board["towers"]:
        cx = np.mean([areas[a]["x"] for a in t["areas"]])
        cy = np.mean([areas[a]["y"] for a in t["areas"]])
        v = usage["deliveries"].get(t["id"], 0.0)
        ax_t.scatter(cx, cy, s=420, marker="o" if t.get("shape") == "round" else "s",
                     color=cmap_t(v / dmax), edgecolors=POTION_COLOURS.get(t.get("colour"), "k"),
                     linewidths=3, zorder=3)
        ax_t.text(cx, cy, f"{v:.2f}", ha="center", va="center", fontsize=6.5, zorder=4,
                  color="white" if v / dmax < 0.6 else "black")
    fig.colorbar(matplotlib.cm.ScalarMappable(matplotlib.colors.Normalize(0, dmax), cmap_t),
                 ax=ax_t, shrink=0.7, label="potions delivered per game")
    ax_t.set_title("Towers (ring = potion colour, round or square): deliveries per game",
                   fontsize=10)
    ax_t.legend(handles=[Rectangle((0, 0), 1, 1, facecolor=c, label=t)
                         for t, c in TERRAIN_COLOURS.items()],
                loc="upper center", bbox_to_anchor=(0.5, -0.01), ncol=6, fontsize=8,
                frameon=False)
    seen: dict[str, int] = {}
    for aid in board.get("cloud_spaces", []):     # an area named k times holds k clouds,
        a = areas[aid]                            # their columns: <area>, <area>_2, ...
        seen[aid] = k = seen.get(aid, 0) + 1
        share = usage["charmed"].get(aid if k == 1 else f"{aid}_{k}", 0.0)
        if k == 1:
            ax_p.add_patch(Rectangle((a["x"] - 0.42, a["y"] - 0.42), 0.84, 0.84, fill=False,
                                     edgecolor="#d62728", lw=1.2, ls="--"))
        ax_p.text(a["x"], a["y"] + 0.25 - 0.15 * (k - 1), f"cloud {share:.0%}", ha="center",
                  fontsize=6.5, color="#a50f15")
    for aid, v in usage["pawns"].items():
        if aid in areas:
            ax_p.text(areas[aid]["x"], areas[aid]["y"] - 0.1, f"{v:.2f}", ha="center",
                      fontsize=7)
    fig.colorbar(matplotlib.cm.ScalarMappable(matplotlib.colors.Normalize(0, pawn_max), cmap_p),
                 ax=ax_p, shrink=0.7, label="pawns ending the game here, per game")
    ax_p.set_title("Pawns at the end; dashed: cloud spaces, share of games charmed",
                   fontsize=10)
    fig.suptitle("Broom Service board" + (": default approximation of the printed map"
                                          if approximate else ""))
    return fig


def town_plot(districts: int, route: Sequence[int], extra_edges: Sequence[Sequence[int]],
              searches: Mapping[int, float], found: Mapping[int, float]) -> Figure:
    """The Lapin town: districts on Rize's ring (in route order) with the extra roads or
    bridges dashed, coloured by searches per game and by players found per game."""
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
        vmax = max(values.values(), default=0) or 1
        cm = _light(cmap)
        for d in range(1, districts + 1):
            x, y = pos[d]
            v = values.get(d, 0.0)
            ax.scatter(x, y, s=1100, color=cm(v / vmax), edgecolors="black",
                       zorder=2)
            ax.text(x, y + 0.03, f"{d}", ha="center", va="bottom", fontsize=9, weight="bold",
                    zorder=3)
            ax.text(x, y - 0.03, f"{v:.2f}", ha="center", va="top", fontsize=7.5, zorder=3)
        fig.colorbar(matplotlib.cm.ScalarMappable(matplotlib.colors.Normalize(0, vmax), cm),
                     ax=ax, shrink=0.7, label=label)
        ax.set_title(f"{label} (ring = Rize's route, dashed = bridge)", fontsize=10)
        ax.set_aspect("equal")
        ax.set_xlim(-1.3, 1.3)
        ax.set_ylim(-1.3, 1.3)
        ax.axis("off")
    fig.suptitle("The Lapin town")
    return fig
