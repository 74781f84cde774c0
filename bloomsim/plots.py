"""The Broom Service board drawn with what results did on it (the report's board plot)."""
from __future__ import annotations

from collections.abc import Mapping

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import polars as pl
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from analyses.plots import light

TERRAIN_COLOURS = {"castle": "#8c8c8c", "water": "#9ecae1", "forest": "#a1d99b",
                   "meadow": "#e5f5a0", "hill": "#fdd0a2", "mountain": "#bcaaa4"}
POTION_COLOURS = {"orange": "#e6550d", "purple": "#756bb1", "green": "#31a354"}


def usage(lf: pl.LazyFrame, board: Mapping) -> dict[str, dict[str, float]]:
    """Per game means of the board columns: deliveries per tower, pawns ending per area,
    share of games each cloud space was charmed."""
    names = lf.collect_schema().names()
    n_games = lf.select((1.0 / pl.col("n_players")).sum()).collect().item()
    towers = [c for c in names if c.startswith("deliveries_")]
    clouds = [c for c in names if c.startswith("charmed_")]
    means = lf.select([pl.col(c).cast(pl.Float64).mean() for c in towers]
                      + [(pl.col(c) > 0).cast(pl.Float64).mean() for c in clouds]).collect()
    area_ids = [a["id"] for a in board["areas"]]
    pawns: dict[str, float] = {}
    for col in ("pawn_end_a", "pawn_end_b"):
        if col in names:
            for idx, n in lf.group_by(col).agg(n=pl.len()).collect().iter_rows():
                if idx is not None and 0 <= idx < len(area_ids):
                    pawns[area_ids[idx]] = pawns.get(area_ids[idx], 0.0) + n / n_games
    return {"deliveries": {c[len("deliveries_"):]: means[c][0] for c in towers},
            "charmed": {c[len("charmed_"):]: means[c][0] for c in clouds}, "pawns": pawns}


def board_plot(board: Mapping, lf: pl.LazyFrame, default_rules: bool) -> Figure:
    """The board of the report: ``board_figure`` of these results' usage."""
    return board_figure(board, usage(lf, board), approximate=default_rules)


def board_figure(board: Mapping, usage: Mapping[str, Mapping[str, float]],
                     approximate: bool = True) -> Figure:
    """Broom Service board from the rules data (areas on their grid x, y): towers coloured by
    potions delivered per game; areas by pawns ending there per game; cloud spaces with the
    share of games their cloud was charmed. ``usage``: ``deliveries`` {tower: per game},
    ``pawns`` {area: per game}, ``charmed`` {cloud space column name: share of games}."""
    areas = {a["id"]: a for a in board["areas"]}
    fig, (ax_t, ax_p) = plt.subplots(1, 2, figsize=(13, 5.6), layout="constrained")
    pawn_max = max(usage["pawns"].values(), default=0) or 1
    cmap_p = light("Blues")
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
