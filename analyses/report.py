"""The balance report: one HTML page (tables, headline findings, PNG plots beside it) from
results of either game, aggregated lazily so that a dataset of millions of games is never
loaded whole."""
from __future__ import annotations

import html
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import polars as pl

from . import display, plots
from .data import (Frame, InputError, collect, columns, detect_game, lazy, require_rows,
                   score_column)
from .event_impact import event_impact
from .games import game_module
from .seats import seat_advantage
from .tournament import matrix, meetings, pairwise, ratings
from .winrates import win_rates

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1150px;
padding:1em 2em;color:#222;line-height:1.45}
h1{border-bottom:3px solid #3182bd;padding-bottom:.2em}
h2{margin-top:2em;border-bottom:1px solid #ccc} h3{margin-top:1.5em}
table{border-collapse:collapse;font-size:13px;margin:.5em 0 1em}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}
th{background:#f0f4f8} .n{text-align:right}
tr:nth-child(even) td{background:#fafafa}
img{max-width:100%;border:1px solid #eee;margin:.3em 0}
.headline{background:#eef5fb;border-left:5px solid #3182bd;padding:.6em 1.2em;margin:1em 0}
.note{color:#555;font-size:13px} nav a{margin-right:1.5em}
summary{cursor:pointer;color:#3182bd;margin:.5em 0}
"""


@dataclass
class Section:
    """One game's part of the page."""

    game: str
    title: str
    headlines: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)


def count_games(df: Frame) -> tuple[int, int]:
    """(games, seat rows): a game has n_players rows (tournament results reuse game indices
    across seatings, so the indices are not counted)."""
    rows, games = collect(lazy(df).select(pl.len(), (1.0 / pl.col("n_players")).sum())).row(0)
    return int(round(games)), int(rows)


def policies_rotated(df: Frame) -> bool:
    """Whether every policy sat in every seat equally often (per player count)."""
    counts = collect(lazy(df).group_by("n_players", "seat", pl.col("policy").cast(pl.String))
                     .agg(n=pl.len()))
    full = counts.group_by("n_players").agg(pl.col("n").n_unique(), pl.len(),
                                            seats=pl.col("seat").n_unique(),
                                            policies=pl.col("policy").n_unique())
    return all(r["n"] == 1 and r["len"] == r["seats"] * r["policies"]
               for r in full.iter_rows(named=True))


def score_histogram(df: Frame, score: str) -> pl.DataFrame:
    """Exact counts of each score value per policy (scores are small integers)."""
    return collect(lazy(df).group_by(pl.col("policy").cast(pl.String), score)
                   .agg(count=pl.len())).sort("policy", score)


def broom_usage(df: Frame, board: Any) -> dict[str, dict[str, float]]:
    """Per game means of the board columns: deliveries per tower, pawns ending per area,
    share of games each cloud space was charmed."""
    lf = lazy(df)
    names = columns(lf)
    n_games, _ = count_games(lf)
    towers = [c for c in names if c.startswith("deliveries_")]
    clouds = [c for c in names if c.startswith("charmed_")]
    means = collect(lf.select([pl.col(c).cast(pl.Float64).mean() for c in towers]
                              + [(pl.col(c) > 0).cast(pl.Float64).mean() for c in clouds]))
    area_ids = [a["id"] for a in board["areas"]]
    pawns: dict[str, float] = {}
    for col in ("pawn_end_a", "pawn_end_b"):
        if col in names:
            for idx, n in collect(lf.group_by(col).agg(n=pl.len())).iter_rows():
                if idx is not None and 0 <= idx < len(area_ids):
                    pawns[area_ids[idx]] = pawns.get(area_ids[idx], 0.0) + n / n_games
    return {"deliveries": {c[len("deliveries_"):]: means[c][0] for c in towers},
            "charmed": {c[len("charmed_"):]: means[c][0] for c in clouds}, "pawns": pawns}


def town_usage(df: Frame) -> tuple[dict[int, float], dict[int, float]]:
    lf = lazy(df)
    names = columns(lf)
    cols = [c for c in names if c.startswith(("searches_d", "found_d"))]
    means = collect(lf.select([pl.col(c).cast(pl.Float64).mean() for c in cols]))
    pick = {p: {int(c[len(p):]): means[c][0] for c in cols if c.startswith(p)}
            for p in ("searches_d", "found_d")}
    return pick["searches_d"], pick["found_d"]


def _figure(fig, out: Path, name: str, alt: str) -> str:
    fig.savefig(out / name, dpi=100)
    plt.close(fig)
    return f'<img src="{html.escape(name)}" alt="{html.escape(alt)}">'


def _details(t: pl.DataFrame) -> str:
    """A long table folded away under its plot (open it in the browser)."""
    return (f"<details><summary>The full table ({t.height} rows)</summary>"
            f"{display.to_html(t)}</details>")


def _interval(v: float, lo: float, hi: float, pct: bool = True) -> str:
    if pct:
        return f"{v:.1%} [{lo:.1%}, {hi:.1%}]"
    return f"{v:+.2f} [{lo:+.2f}, {hi:+.2f}]"


def board_data(game: str, rules_path: str | None = None) -> dict:
    """The board as plain data from the game's public ``load_rules``: bloomsim's ``board``
    mapping (areas with grid x, y; towers; cloud spaces), rapinsim's districts, route and
    extra edges."""
    rules = game_module(game).load_rules(rules_path)
    if game == "bloomsim":
        return rules.board
    return {"districts": rules.districts, "route": list(rules.route),
            "extra_edges": [list(e) for e in rules.extra_edges]}


def game_section(df: Frame, out: str | os.PathLike, rules_path: str | None = None,
                 counterfactual: pl.DataFrame | None = None, note: str = "",
                 board: dict | None = None) -> Section:
    """Compute every table and plot of one game's results into ``out`` (PNG files) and return
    its part of the page. ``board`` (plain data, see ``board_data``) defaults to the board of
    the rules in force (``rules_path`` or the defaults)."""
    lf = lazy(df)
    require_rows(lf)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    game = detect_game(lf)
    score = score_column(lf)
    names = columns(lf)
    p = game  # file name prefix
    n_games, n_rows = count_games(lf)
    sec = Section(game, {"bloomsim": "Broom Service (bloomsim)",
                         "rapinsim": "Lapin treasure hunt (rapinsim)"}[game])
    b = sec.body
    b.append(f"<p>{n_games:,} games ({n_rows:,} seat rows). {html.escape(note)}</p>")

    by = ["n_players", "policy"] if collect(lf.select(pl.col("n_players").n_unique()))[0, 0] > 1 \
        else ["policy"]
    wr = win_rates(lf, by=by)
    b.append("<h3>Win rate by policy</h3><p class=note>Wins count 1/k for each of k tied "
             "winners; intervals are 95% Wilson. Policies are only comparable when they sat in "
             "every seat equally often (the balance run rotates them).</p>")
    b.append(display.to_html(display.win_rates_table(wr, by)))
    label = wr.with_columns(label=pl.concat_str([pl.col(c).cast(pl.String) for c in by],
                                                separator=", "))
    b.append(_figure(plots.win_rate_plot(label, by="label", title=f"{game}: win rate by policy"),
                     out, f"{p}-winrates.png", "win rates"))
    if wr.height > 1:
        top = wr.sort("win_rate", descending=True).row(0, named=True)
        sec.headlines.append(f"Strongest policy by win rate: <b>{html.escape(top['policy'])}</b>"
                             f" {_interval(top['win_rate'], top['ci_low'], top['ci_high'])} "
                             f"over {top['games']:,} seat-games.")

    if "character" in names:
        ch = win_rates(lf, by=["character"])
        b.append("<h3>Win rate by character</h3><p class=note>Characters are dealt at random, "
                 "so differences between them are their own strength (with the policies that "
                 "played them), not the players'.</p>")
        b.append(display.to_html(display.win_rates_table(ch, ["character"])))
        b.append(_figure(plots.win_rate_plot(ch, by="character",
                                             title=f"{game}: win rate by character"),
                         out, f"{p}-characters.png", "win rate by character"))
        top, low = (ch.sort("win_rate", descending=d).row(0, named=True) for d in (True, False))
        sec.headlines.append(
            f"Strongest character: <b>{html.escape(top['character'])}</b> "
            f"{_interval(top['win_rate'], top['ci_low'], top['ci_high'])}; weakest: "
            f"<b>{html.escape(low['character'])}</b> "
            f"{_interval(low['win_rate'], low['ci_low'], low['ci_high'])}.")

    seats = seat_advantage(lf, score=score)
    b.append("<h3>Seat advantage</h3><p class=note>Chi-square goodness of fit of the wins per "
             "seat against games/P (P - 1 degrees of freedom).</p>")
    if not policies_rotated(lf):
        b.append("<p><b>Caution:</b> the policies did not sit in every seat equally often, so "
                 "these seat differences mix the seat with the policy sitting in it.</p>")
    b.append(display.to_html(display.seats_table(seats)))
    b.append(_figure(plots.seat_plot(seats, title=f"{game}: seat advantage"), out,
                     f"{p}-seats.png", "seat advantage"))
    for g in seats.partition_by("n_players", maintain_order=True):
        first = g.row(0, named=True)
        best = g.sort("win_rate", descending=True).row(0, named=True)
        sec.headlines.append(
            f"Start seat ({first['n_players']} players): wins "
            f"{_interval(first['win_rate'], first['ci_low'], first['ci_high'])} against a "
            f"fair {first['expected']:.1%}; best seat is seat {best['seat']} "
            f"({best['win_rate']:.1%}); all seats equal: chi2 = {first['chi2']:.1f}, "
            f"p = {display.format_p(first['p_value'])}.")

    if "seating" in names:
        met = meetings(lf)
        pw = pairwise(lf, met)
        rt = ratings(lf, met)
        b.append("<h3>Head to head</h3><p class=note>Share of meetings at one table where the "
                 "row policy finished ahead of the column policy (tie = 1/2); 95% intervals "
                 "treat each game index as one unit. Beside it, each policy's Bradley-Terry "
                 "rating fitted to the same counts (Elo scale, centred on 0: +100 means "
                 "finishing ahead of an average policy about 64% of the time), with a 95% "
                 "bootstrap interval that resamples whole game indices, and its win rate. The "
                 "rating is a summary; the matrix is the evidence.</p>")
        b.append(display.to_html(display.head_to_head_table(matrix(pw), rt)))
        top = rt.row(0, named=True)
        sec.headlines.append(
            f"Strongest policy by Bradley-Terry rating: <b>{html.escape(top['policy'])}</b> "
            f"{top['bt_elo']:+.0f} [{top['bt_low']:+.0f}, {top['bt_high']:+.0f}] "
            f"(Elo scale, 0 = the average of the policies).")

    hist = score_histogram(lf, score)
    b.append("<h3>Score distribution</h3>")
    b.append(_figure(plots.score_plot(hist, score, title=f"{game}: {score} per policy"), out,
                     f"{p}-scores.png", "score distribution"))

    ev = event_impact(lf, score=score)
    b.append("<h3>What each event, role, item, trap or character does (observational)</h3>"
             "<p class=note>Games with minus games without, 95% intervals, p-values Holm-"
             "adjusted over all rows. Association, not cause: things that compete for the same "
             "slots (7 of 10 events are drawn) or that players choose (items) are confounded; "
             "the counterfactual table below, where present, replays the same games without "
             "the thing.</p>")
    b.append(_figure(plots.forest_plot(ev, "win", title=f"{game}: win-rate change with the "
                                                          f"thing (largest 25)"),
                     out, f"{p}-events-win.png", "event impact on win rate"))
    b.append(_figure(plots.forest_plot(ev, "score", title=f"{game}: {score} change with the "
                                                            f"thing (largest 25)"),
                     out, f"{p}-events-score.png", "event impact on score"))
    b.append(_details(display.events_table(ev)))
    sec.headlines += _balance_headlines(counterfactual if counterfactual is not None else ev,
                                        counterfactual is not None)
    if counterfactual is not None:
        b.append("<h3>Counterfactual: the same games replayed without the thing</h3>"
                 "<p class=note>Each row replays the same seeds with the thing switched off in "
                 "the rules data (column <i>change</i>); the difference is with minus without "
                 "on paired games, so it is the thing's causal effect under these rules. An "
                 "enchanted role is left out of the enchanted deck (other roles are enchanted "
                 "in its place, as many per round); being found is switched off by letting "
                 "Rize find nobody (the policies still keep away from him).</p>")
        b.append(_figure(plots.forest_plot(counterfactual, "win",
                                           title=f"{game}: causal win-rate effect"),
                         out, f"{p}-counterfactual.png", "counterfactual effects"))
        b.append(_details(display.counterfactual_table(counterfactual)))

    b.append("<h3>The board</h3>")
    board = board_data(game, rules_path) if board is None else board
    if game == "bloomsim":
        if rules_path is None:
            b.append("<p class=note>The board is the rules data's default approximation of "
                     "the printed map (areas on a grid), not the printed map itself.</p>")
        fig = plots.broom_board_plot(board, broom_usage(lf, board),
                                     approximate=rules_path is None)
    else:
        searches, found = town_usage(lf)
        fig = plots.town_plot(board["districts"], board["route"], board["extra_edges"],
                              searches, found)
    b.append(_figure(fig, out, f"{p}-board.png", "board usage"))
    return sec


def _balance_headlines(t: pl.DataFrame, causal: bool) -> list[str]:
    """Most and least balanced thing: the largest win-rate change it makes to any group."""
    how = "causal, replayed without it" if causal else "observational"
    per = (t.filter(pl.col("win_diff").is_not_nan()).with_columns(size=pl.col("win_diff").abs())
           .sort("size", descending=True).group_by("kind", "thing", maintain_order=True)
           .first().sort("size", descending=True))
    if per.height < 2:
        return []

    def say(r: dict) -> str:
        who = "the win rate" if r["group"] == "all" else \
            f"the win rate of {r['by']} {html.escape(str(r['group']))}"
        kind = "enchanted role" if r["kind"] == "enchanted" else r["kind"]
        return (f"<b>{html.escape(kind)} {html.escape(r['thing'])}</b> moves {who} by "
                f"{r['win_diff'] * 100:+.1f} percentage points "
                f"[{r['win_ci_low'] * 100:+.1f}, {r['win_ci_high'] * 100:+.1f}]")
    most, least = per.row(0, named=True), per.row(-1, named=True)
    return [f"Least balanced ({how}): {say(most)}. Most balanced: at its largest, "
            f"{say(least)}."]


def write_page(sections: list[Section], out: str | os.PathLike, title: str) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    nav = "".join(f'<a href="#{s.game}">{html.escape(s.title)}</a>' for s in sections)
    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><title>"
             f"{html.escape(title)}</title><style>{CSS}</style></head><body>"
             f"<h1>{html.escape(title)}</h1><nav>{nav}</nav>"]
    for s in sections:
        heads = "".join(f"<li>{h}</li>" for h in s.headlines)
        parts.append(f'<h2 id="{s.game}">{html.escape(s.title)}</h2>'
                     f'<div class=headline><b>Headlines</b><ul>{heads}</ul></div>'
                     + "".join(s.body))
    parts.append("</body></html>")
    page = out / "index.html"
    page.write_text("".join(parts), encoding="utf-8")
    return page


def report(results: Frame, out: str | os.PathLike, rules_path: str | None = None,
           board: dict | None = None) -> Path:
    """Write ``out/index.html`` for one results frame or dataset (either game), swapped in
    whole (``staged``)."""
    with staged(out) as folder:
        sec = game_section(results, folder, rules_path, board=board)
        write_page([sec], folder, f"Balance report: {sec.title}")
    return Path(out) / "index.html"


def partial_folder(out: str | os.PathLike) -> Path:
    """Where a report is written before it replaces ``out``: ``OUT.partial`` beside it."""
    out = Path(out)
    return out.with_name(out.name + ".partial")


@contextmanager
def staged(out: str | os.PathLike, keep_partial: bool = False) -> Iterator[Path]:
    """A fresh folder ``OUT.partial`` to write a whole report in; when the block ends it
    replaces ``out`` (an old report goes only then), so ``out`` never mixes an old report with
    a new one. When the block fails or is interrupted ``out`` is left as it was, and the partial
    folder is removed, or kept with ``keep_partial`` if it holds anything (the balance job's
    finished results)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"out={str(out)!r} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / "index.html").exists():
        raise InputError(f"out={str(out)!r} is a non-empty folder that holds no report; "
                         f"choose another path")
    tmp = partial_folder(out)
    try:
        shutil.rmtree(tmp, ignore_errors=True)      # a stopped run's: this run starts anew
        tmp.mkdir(parents=True)
    except OSError as e:
        raise InputError(f"out={str(out)!r}: cannot write there ({e.strerror or e})") from None
    try:
        yield tmp
    except BaseException:
        if not (keep_partial and any(tmp.iterdir())):
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = out.with_name(out.name + ".old")
    if out.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(out, old)
    os.replace(tmp, out)
    shutil.rmtree(old, ignore_errors=True)
