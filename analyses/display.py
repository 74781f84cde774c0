"""Analysis tables made readable: a value with its interval in one cell, rates as percents.
Shared by the terminal commands and the HTML report."""
from __future__ import annotations

import html

from typing import Any

import polars as pl

from simcore import games

NAMED = ("thing", "character", "group")
"""Columns whose values may be ids of a game's things (``named`` shows their names)."""


def named(t: pl.DataFrame, game: str, latin: bool = False) -> pl.DataFrame:
    """The table as people read it: the ids in its ``NAMED`` columns shown by their display
    names (``simcore.games.display_names``; ``latin``: for a figure); other values, and the
    data, keep their ids."""
    names = games.display_names(games.get(game), latin)
    t = t.with_columns(pl.col(c).cast(pl.String).replace(names) for c in NAMED if c in t.columns)
    if "verdict" not in t.columns or not names:
        return t
    return t.with_columns(pl.col("verdict").replace(
        {v: named_verdict(v, names) for v in t["verdict"].unique().to_list()}))


def named_verdict(verdict: str, names: dict[str, str]) -> str:
    """A verdict's words (``event upper_hand: win rate ...``) with the thing's id, the last
    word before the colon, shown by its display name."""
    head, colon, rest = verdict.partition(": ")
    kind, _, thing = head.rpartition(" ")
    return f"{kind} {names[thing]}{colon}{rest}" if colon and kind and thing in names else verdict


def _pct(v: pl.Expr) -> pl.Expr:
    return (v * 100).round(1).cast(pl.String)


def rate_ci(value: str, low: str, high: str) -> pl.Expr:
    """'43.1% [42.4, 43.8]' from three proportion columns."""
    return pl.format("{}% [{}, {}]", _pct(pl.col(value)), _pct(pl.col(low)), _pct(pl.col(high)))


def num_ci(value: str, low: str, high: str, digits: int = 2) -> pl.Expr:
    """'1.25 [0.98, 1.52]'; with ``digits=0`` whole numbers ('112 [95, 130]')."""
    def num(c: str) -> pl.Expr:
        v = pl.col(c).round(digits)
        return (v.cast(pl.Int64) if digits == 0 else v).cast(pl.String)
    return pl.format("{} [{}, {}]", *(num(c) for c in (value, low, high)))


def pvalue(col: str) -> pl.Expr:
    return pl.col(col).map_elements(format_p, return_dtype=pl.String)


def format_p(p: float) -> str:
    """A p-value for reading: 2 significant digits, "< 1e-300" where it underflows."""
    if p != p:
        return ""
    return f"{p:.2g}" if p > 0 else "< 1e-300"


def win_rates_table(t: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    return t.select(*by, "games", pl.col("wins").round(1),
                    rate_ci("win_rate", "ci_low", "ci_high").alias("win rate [95% CI]"))


def seats_table(t: pl.DataFrame) -> pl.DataFrame:
    score = t["score"][0]
    return t.select("n_players", "seat", "games",
                    rate_ci("win_rate", "ci_low", "ci_high").alias("win rate [95% CI]"),
                    _pct(pl.col("expected")).alias("fair share %"),
                    num_ci("mean_score", "score_ci_low", "score_ci_high").alias(
                        f"mean {score} [95% CI]"),
                    pl.col("chi2").round(2).alias("statistic (H0: all seats equal)"), "dof",
                    pvalue("p_value").alias("p"), "test")


def seats_notes(t: pl.DataFrame) -> list[str]:
    """What the seat test says, in words, per player count, and why seats cannot be compared
    where the policies were not rotated over them."""
    from .seats import CONFOUNDED, DESIGN_NOTE, ROTATED
    out = []
    for g in t.partition_by("n_players", maintain_order=True):
        r = g.row(0, named=True)
        k = r["n_players"]
        if r["design"] == CONFOUNDED:
            out.append(f"{k} players: {DESIGN_NOTE[CONFOUNDED]}; no seat test.")
            continue
        out.append(f"{k} players: {seat_verdict(r)}.")
        if r["design"] not in (ROTATED, "one policy"):
            out.append(f"{k} players: caution: {DESIGN_NOTE[r['design']]}.")
    return out


def seat_verdict(r: dict, strong: str = "{}") -> str:
    """The seat test of one player count in words (``strong`` formats "not equal"): its
    verdict with p, "not computable" and why where it has no p (never a verdict without one),
    and a caution with few game indices."""
    from .stats import few_clusters
    if r["p_value"] != r["p_value"]:
        text = f"seat test {r['test'] or 'not computable'}"
    elif r["p_value"] < 0.05:
        text = f"seats are {strong.format('not equal')} (p = {format_p(r['p_value'])}, " \
               f"{r['test']})"
    else:
        text = f"no evidence that the seats differ (p = {format_p(r['p_value'])}, {r['test']})"
    caution = few_clusters(r["clusters"])
    return f"{text}; caution: {caution}" if caution else text


def _effects(t: pl.DataFrame, lead: list[str], word: str) -> pl.DataFrame:
    """Win-rate and score differences with intervals and adjusted p-values, after ``lead``."""
    return t.select(*lead,
                    rate_ci("win_diff", "win_ci_low", "win_ci_high").alias(
                        f"win rate {word} [95% CI] (pct points)"),
                    pvalue("p_win_adj").alias("p adj (win)"),
                    num_ci("score_diff", "score_ci_low", "score_ci_high").alias(
                        f"score {word} [95% CI]"),
                    pvalue("p_score_adj").alias("p adj (score)"))


def events_table(t: pl.DataFrame) -> pl.DataFrame:
    return _effects(t, ["kind", "thing", "by", "group", "games_with", "games_without"], "change")


def pairwise_table(t: pl.DataFrame) -> pl.DataFrame:
    return t.select("policy", "opponent", "games", "meetings",
                    rate_ci("ahead_rate", "ci_low", "ci_high").alias("finishes ahead [95% CI]"))


def head_to_head_table(matrix: pl.DataFrame, ratings: pl.DataFrame) -> pl.DataFrame:
    """The raw pairwise matrix (row policy finishes ahead of column policy) with each policy's
    Bradley-Terry rating and win rate beside it, in one table."""
    cols = [c for c in matrix.columns if c != "policy"]
    return (matrix.rename({c: f"ahead of {c}" for c in cols}).fill_null("")
            .join(ratings_table(ratings).drop("games"), on="policy", how="left"))


def ratings_table(t: pl.DataFrame) -> pl.DataFrame:
    return t.select("policy", "games",
                    num_ci("bt_elo", "bt_low", "bt_high", 0).alias(
                        "Bradley-Terry, Elo scale [95% CI]"),
                    rate_ci("win_rate", "ci_low", "ci_high").alias("win rate [95% CI]"))


def cycles_table(t: pl.DataFrame) -> pl.DataFrame:
    """``Intransitivity.ratings`` with each rating and its interval in one cell."""
    return t.select(
        "policy", rate_ci("nash_mass", "nash_low", "nash_high").alias("Nash mass"),
        num_ci("nash_rating", "nash_rating_low", "nash_rating_high", 3).alias(
            "Nash rating (log-odds)"),
        rate_ci("alpharank", "alpharank_low", "alpharank_high").alias("Alpha-Rank"),
        num_ci("bt_elo", "bt_low", "bt_high", 0).alias("Bradley-Terry, Elo scale"))


def kingmaking_table(t: pl.DataFrame) -> pl.DataFrame:
    """``Kingmaking.summary`` with each value and its interval in one cell ("none" where no
    kingmaker decision was found to average over)."""
    def cell(e: pl.Expr, c: str) -> pl.Expr:
        return pl.when(pl.col(c).is_nan()).then(pl.lit("none")).otherwise(e)
    return t.select(
        "players", "games",
        rate_ci("share", "share_low", "share_high").alias("games with a kingmaker decision"),
        pl.col("decisions").alias("kingmaker decisions"),
        cell(num_ci("swing", "swing_low", "swing_high"), "swing").alias("mean swing"),
        *(cell(rate_ci(r, f"{r}_low", f"{r}_high"), r).alias(f"crowned: {r}")
          for r in ("leader", "runner-up", "other")),
        pl.format("{} of {}", "evaluated", "screened").alias("decisions evaluated"))
def leverage_table(t: pl.DataFrame) -> pl.DataFrame:
    """``Leverage.table`` with each figure and its interval in one cell (points, per cent)."""
    return t.select(
        "by", "group", "decisions", "games",
        num_ci("leverage", "leverage_low", "leverage_high", 1).alias("leverage, points"),
        num_ci("meaningful", "meaningful_low", "meaningful_high", 1).alias("meaningful, %"),
        num_ci("dead", "dead_low", "dead_high", 1).alias("dead, %"))


def accuracy_table(t: pl.DataFrame) -> pl.DataFrame:
    """``Leverage.accuracy`` with each figure and its interval in one cell."""
    return t.select(
        "policy", "decisions", "games",
        num_ci("loss", "loss_low", "loss_high", 1).alias("loss per decision, points"),
        num_ci("took_best", "took_best_low", "took_best_high", 1).alias("took the best, %"))


def to_html(t: pl.DataFrame) -> str:
    """An HTML table; numbers (and value [interval] cells) right-aligned, words left."""
    numeric = [t.schema[c].is_numeric() or (t.schema[c] == pl.String and t.height > 0
                                             and str(t[c][0] or "")[:1] in "+-0123456789<")
               for c in t.columns]
    cls = [' class="n"' if n else "" for n in numeric]
    head = "".join(f"<th{k}>{html.escape(c)}</th>" for c, k in zip(t.columns, cls, strict=True))
    rows = "".join("<tr>" + "".join(f"<td{k}>{html.escape('' if v is None else str(v))}</td>"
                                    for v, k in zip(r, cls, strict=True)) + "</tr>"
                   for r in t.iter_rows())
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def to_text(t: pl.DataFrame) -> str:
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=250, fmt_str_lengths=80,
                   tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True):
        return str(t)


def to_markdown(t: pl.DataFrame) -> str:
    """A Markdown (GitHub) table of every row and column."""
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=250, fmt_str_lengths=80,
                   tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True,
                   tbl_formatting="MARKDOWN"):
        return str(t)


def counterfactual_table(t: pl.DataFrame) -> pl.DataFrame:
    return _effects(t, ["kind", "thing", "change", "by", "group", "games"], "effect")


def skill_table(table: pl.DataFrame, summary: pl.DataFrame, rungs: list[str],
                tags: list[str | None] | None = None) -> pl.DataFrame:
    """One row per verdict: at each rung the estimate with its 95% interval in percentage
    points, its status (holds / negligible / undetermined) and the rung's minimum detectable
    effect ("n/a" where not measured), its reading across the rungs and, given ``tags`` (one
    per row of ``summary``), the assumptions it rests on (``analyses.robust``)."""
    cell = pl.struct("estimate", "ci_low", "ci_high", "status", "mde").map_elements(
        lambda r: (f"{r['estimate'] * 100:+.1f} [{r['ci_low'] * 100:+.1f}, "
                   f"{r['ci_high'] * 100:+.1f}] {r['status']} (MDE {r['mde'] * 100:.1f})"),
        return_dtype=pl.String)
    wide = (table.select("verdict", "rung", cell.alias("cell"))
            .pivot("rung", index="verdict", values="cell"))
    heads = {r: f"{r}: pct points [95% CI]" for r in rungs}
    out = (summary.select("verdict", pl.col("reading").alias("across the rungs"))
           .join(wide, on="verdict", how="left", maintain_order="left")
           .select("verdict", *(pl.col(r).fill_null("n/a").alias(heads[r]) for r in rungs),
                   "across the rungs"))
    if tags is None:
        return out
    return out.with_columns(assumptions=pl.Series([t or "not measured" for t in tags],
                                                  dtype=pl.String))


def changes_table(changes: pl.DataFrame) -> pl.DataFrame:
    """One row per tested change of a verdict between neighbouring rungs: the difference in
    percentage points with its 95% interval, the game indices the rungs share, the
    Holm-adjusted p and whether it changes with skill."""
    def pts(c: str) -> pl.Expr:
        return (pl.col(c) * 100).round(1).cast(pl.String)
    return changes.select(
        "verdict", pl.format("{} to {}", "from", "to").alias("rungs"),
        pl.format("{} [{}, {}]", pts("diff"), pts("ci_low"), pts("ci_high"))
        .alias("to - from, pct points [95% CI]"),
        "shared", pvalue("p_adj").alias("p (Holm)"),
        pl.when(pl.col("changed")).then(pl.lit("yes")).otherwise(pl.lit("no"))
        .alias("changes with skill"))


def robustness_table(r: Any) -> pl.DataFrame:
    """One row per verdict of an ``analyses.robust.Robustness``: its value under the default
    rules with its status, its change under each alternative in percentage points (a designer
    metric that counts: in its own unit) with the 95% interval and MDE (* where it depends on
    it), and its tag."""
    def cell(d: dict) -> str:
        if d["absent"]:
            return "absent under it"
        k, f = (100, ".1f") if d["percent"] else (1, ".2f")
        return (f"{d['diff'] * k:+{f}} [{d['ci_low'] * k:+{f}}, {d['ci_high'] * k:+{f}}] "
                f"MDE {d['mde'] * k:{f}}" + (" *" if d["depends"] else ""))
    ch = r.changes.with_columns(cell=pl.struct("absent", "percent", "diff", "ci_low",
                                               "ci_high", "mde", "depends")
                         .map_elements(cell, return_dtype=pl.String))
    wide = ch.pivot("alternative", index="verdict", values="cell")
    names = [a for a, _ in r.alternatives]
    return (r.summary.select("verdict", pl.format("{} ({})", pl.col("estimate").round(3),
                                                  "status").alias("default (status)"))
            .join(wide, on="verdict", how="left", maintain_order="left")
            .join(r.summary.select("verdict", "tag"), on="verdict", maintain_order="left")
            .rename({a: f"{a}: change" for a in names}))
