"""Balance diff: what a second rules set changes, metric by metric, on the same games.

Both rules sets play the same seeds in every rotation of the seating (``analyses.sweep``), so
each metric is compared game index by game index: the difference B - A of its per-game values
(each game index counted once, its seatings averaged), with a 95% t interval over the game
indices and a two-sided p-value (``stats.paired_p``: the sign test where the change is the same
in every game index), Holm-adjusted over the whole table (one family: every row of the diff). An
event impact is a ratio over many games rather than a per-game value; its rows pair the two
rules' estimates through each game index's influence (``event_impact.paired_impact``) and join
the same family.
"""
from __future__ import annotations

import dataclasses
import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from simcore import games

from .data import columns
from .games import game_spec
from .event_impact import paired_impact
from .intransitivity import paired_share
from .kingmaking import kingmaking as kingmaking_lens
from .leverage import METRICS, REPORT_PLAYOUTS, leverage
from .metrics import numbers, per_game
from .restricted import restricted as restricted_lens
from .stats import adjust_pvalues, paired_p, t_interval
from .sweep import Variant, sweep, variants_of
from .tournament import meetings


def paired(per: pl.DataFrame, key: Sequence[str], a: str, b: str) -> pl.DataFrame:
    """Per group of ``key``: the mean per-game value ``v`` under variants ``a`` and ``b``, the
    difference b - a over the game indices that have both, its 95% interval and p-value.
    ``per`` has the columns of ``key``, ``variant``, ``game`` and ``v`` (one row per game
    index, variant and group)."""
    key = list(key)
    wide = per.pivot(on="variant", index=[*key, "game"], values="v")
    rows = []
    for k, part in wide.sort(key).group_by(key, maintain_order=True):
        both = part.drop_nulls([a, b])
        x, y = both[a].to_numpy(), both[b].to_numpy()
        d = y - x
        se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
        mean = float(d.mean()) if d.size else np.nan
        low, high = t_interval(mean, se, d.size)
        rows.append({**dict(zip(key, k)), "games": int(d.size),
                     "a": float(x.mean()) if d.size else np.nan,
                     "b": float(y.mean()) if d.size else np.nan, "diff": mean,
                     "ci_low": low, "ci_high": high,
                     "p": paired_p(mean, se, d.size)})
    return pl.DataFrame(rows)


def per_game_values(df: pl.DataFrame, spec: games.Game) -> pl.DataFrame:
    """Every metric of the diff as one value per (metric, group, variant, game index)."""
    names = columns(df.lazy())
    win, score = pl.col("win").cast(pl.Float64), pl.col(spec.score).cast(pl.Float64)
    parts = []

    def add(metric: str, group: pl.Expr, frame: pl.DataFrame, value: pl.Expr) -> None:
        parts.append(frame.group_by("variant", "game", group.alias("group"))
                     .agg(v=value.mean()).with_columns(metric=pl.lit(metric)))

    add("win rate", pl.col("policy").cast(pl.String), df, win)
    add("mean score", pl.col("policy").cast(pl.String), df, score)
    add("seat win rate", pl.col("seat").cast(pl.String), df, win)
    for t in spec.things:
        if t.how == "value" and t.column in names:      # e.g. each character's win rate
            add(f"{t.kind} win rate", pl.col(t.column).cast(pl.String), df, win)
    per, metrics = per_game(df, ["variant"], spec)     # the designer metrics, per game
    for c in metrics:
        add("game", pl.lit(c), per.filter(pl.col(c).is_not_null()), pl.col(c))
    return pl.concat([p.select("metric", "group", "variant", "game", "v") for p in parts])


def diff(game: Any, rules_a: Any, rules_b: Any, policies: Sequence[str], players: int,
         n_games: int, seed: int = 0, *, scheduler: Any = "inprocess",
         adjust: str = "holm", leverage_positions: int = 0,
         kingmaking: int = 0, restricted: int = 0) -> pl.DataFrame:
    """Every balance metric under rules A and rules B on the same games, with B - A.

    ``rules_a``, ``rules_b``: a rules file, a mapping of values over the defaults, or None
    (the defaults). Rows: each policy's win rate and mean score, each seat's win rate, each
    value-thing's win rate (e.g. each character), the game's designer metrics (metric
    ``game``: length, margin, ties, endings, lead changes, how often the leader after each
    round wins), each thing's impact on win rate and on mean score (``impact_rows``), and with
    three or more policies besides ``random`` their cyclic share (``cycle_rows``);
    ``diff`` with ``ci_low``/``ci_high``, ``p`` and ``p_adj`` (``adjust`` over the whole
    table), ``significant`` (p_adj < 0.05) and ``percent`` (the row is a share: the page
    shows it in percentage points). ``leverage_positions`` above 0 adds the decision leverage
    rows (``leverage_rows``) from that many decisions under each rules set; ``kingmaking``
    above 0 the share of games with a kingmaker decision on that many game indices
    (``kingmaking_rows``); ``restricted`` above 0 each restricted-play probe's cost on that
    many game indices (``restricted_rows``)."""
    spec = game_spec(game)
    chosen = [_variant("A", rules_a), _variant("B", rules_b)]
    df = sweep(spec.name, chosen, policies, players, n_games, seed, scheduler=scheduler)
    parts = [paired(per_game_values(df, spec), ["metric", "group"], "A", "B"), impact_rows(df),
             *cycle_rows(df, policies)]
    if kingmaking:
        parts.append(kingmaking_rows(spec, chosen, players, kingmaking, seed))
    if leverage_positions:
        parts.append(leverage_rows(spec, chosen, policies, players, leverage_positions, seed))
    if restricted:
        parts.append(restricted_rows(spec, chosen, players, restricted, seed))
    t = pl.concat(parts, how="vertical_relaxed")
    counted = numbers(spec)
    percent = [not (m.endswith("mean score") or (m == "game" and g in counted))
               for m, g in zip(t["metric"], t["group"])]
    return t.with_columns(p_adj=pl.Series(adjust_pvalues(t["p"].to_numpy(), adjust)),
                          percent=pl.Series(percent, dtype=pl.Boolean)
                          ).with_columns(significant=pl.col("p_adj") < 0.05)


def leverage_rows(spec: games.Game, chosen: Sequence[Variant], policies: Sequence[str],
                  players: int, positions: int, seed: int) -> pl.DataFrame:
    """Decision leverage under A and B (``analyses.leverage`` at the report's size, the same
    seed: the same game indices, each rules set's own games), paired by game index: each
    game's mean leverage and its shares of meaningful and dead decisions, as fractions (the
    page shows points)."""
    per = []
    for v in chosen:
        d = leverage(spec.name, players, positions, list(policies), REPORT_PLAYOUTS, seed,
                     rules=v.rules(spec.module())).decisions
        per.append(d.group_by("game").agg(pl.col(m).mean() / 100 for m in METRICS)
                   .unpivot(index="game", variable_name="group", value_name="v")
                   .with_columns(variant=pl.lit(v.label)))
    t = paired(pl.concat(per), ["group"], "A", "B")
    return t.select(pl.lit("decisions").alias("metric"), pl.col("group").replace(
        {"leverage": "leverage (best - worst option)", "meaningful": "meaningful share",
         "dead": "dead share"}), pl.exclude("group"))


def restricted_rows(spec: games.Game, chosen: Sequence[Variant], players: int, n_games: int,
                    seed: int) -> pl.DataFrame:
    """Restricted play under A and B (``analyses.restricted``: every probe at its default
    rungs, on game indices ``0..n_games-1`` of the same seed), paired by game index: how much
    each probe's cost (the restricted seat's win-rate change) moves between the rules sets."""
    mod = spec.module()
    per = [restricted_lens(spec.name, players, games=n_games, seed=seed, rules=v.rules(mod))
           .per_game.select(pl.format("{} at {}", "label", "rung").alias("group"), "game",
                            v="d", variant=pl.lit(v.label)) for v in chosen]
    return paired(pl.concat(per), ["group"], "A", "B").select(
        pl.lit("restricted play").alias("metric"), pl.all())


def impact_rows(df: pl.DataFrame) -> pl.DataFrame:
    """The event-impact rows of the diff (``event_impact.paired_impact``): each thing's impact
    on win rate and on mean score under B minus under A, paired by game index."""
    t = paired_impact(df, "A", "B")
    what = {"win": "win rate", "score": "mean score"}
    return t.select(
        metric=pl.format("{} impact on {}", "kind", pl.col("measure").replace_strict(what)),
        group=pl.when(pl.col("by") == "all").then(pl.col("thing"))
        .otherwise(pl.format("{} ({} {})", "thing", "by", "group")),
        games="games", a="a", b="b", diff="diff", ci_low="ci_low", ci_high="ci_high", p="p")


def cycle_rows(df: pl.DataFrame, policies: Sequence[str]) -> list[pl.DataFrame]:
    """The intransitivity lens's row of the diff: the cyclic share of the policies other than
    ``random`` (``intransitivity.paired_share``), when there are three or more (a cycle needs
    three); none otherwise."""
    compared = sorted(set(policies) - {"random"})
    if len(compared) < 3:
        return []
    met = {v: meetings(df.filter(pl.col("variant") == v))
           .filter(pl.col("policy").is_in(compared) & pl.col("opponent").is_in(compared))
           for v in ("A", "B")}
    return [pl.DataFrame([{"metric": "cyclic share", "group": ", ".join(compared),
                           **paired_share(met["A"], met["B"])}])]


def kingmaking_rows(spec: games.Game, chosen: Sequence[Variant], players: int, n_games: int,
                    seed: int) -> pl.DataFrame:
    """The kingmaking lens (``analyses.kingmaking``, its default policy and settings) on game
    indices ``0..n_games-1`` under each rules set: the share of games with a kingmaker
    decision, B - A paired on the game indices."""
    mod = spec.module()
    per = [kingmaking_lens(mod, players, n_games, seed=seed, rules=v.rules(mod)).games
           .select("game", variant=pl.lit(v.label), v=(pl.col("kingmakers") > 0).cast(pl.Float64))
           for v in chosen]
    return paired(pl.concat(per).with_columns(metric=pl.lit("kingmaking"),
                                              group=pl.lit("games with a kingmaker decision")),
                  ["metric", "group"], "A", "B")


def _variant(label: str, rules: Any) -> Variant:
    if rules is None:
        return Variant(label)
    return dataclasses.replace(variants_of([rules])[0], label=label)


def page(t: pl.DataFrame, out: str | os.PathLike, title: str, a: str, b: str) -> Path:
    """``out/index.html``: what changed significantly first, then the whole table."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)

    def fmt(r: dict) -> str:
        share = r["percent"]
        f = (lambda x: f"{100 * x:+.1f} points") if share else (lambda x: f"{x:+.2f}")
        g = (lambda x: f"{100 * x:.1f}%") if share else (lambda x: f"{x:.2f}")
        return (f"<td>{html.escape(r['metric'])}</td><td>{html.escape(str(r['group']))}</td>"
                f"<td>{g(r['a'])}</td><td>{g(r['b'])}</td><td>{f(r['diff'])} "
                f"[{f(r['ci_low'])}, {f(r['ci_high'])}]</td><td>{r['p_adj']:.3g}</td>")

    head = ("<tr><th>metric</th><th>of</th><th>A</th><th>B</th><th>B - A [95% CI]</th>"
            "<th>p (Holm, whole table)</th></tr>")
    rows = t.sort("p_adj").to_dicts()
    sig = [r for r in rows if r["significant"]]
    lead = ("<ul>" + "".join(f"<li><table>{head}<tr>{fmt(r)}</tr></table></li>" for r in sig)
            + "</ul>") if sig else "<p>Nothing changed significantly.</p>"
    body = "".join(f"<tr>{fmt(r)}</tr>" for r in rows)
    text = (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>"
            f"{html.escape(title)}</title><style>body{{font-family:system-ui,sans-serif;"
            f"max-width:1100px;margin:auto;padding:1em 2em}}table{{border-collapse:collapse;"
            f"font-size:13px}}td,th{{border:1px solid #ddd;padding:3px 8px}}</style></head>"
            f"<body><h1>{html.escape(title)}</h1><p>A: {html.escape(a)}; B: {html.escape(b)}. "
            f"Both play the same games in every seat rotation; each game index counts once.</p>"
            f"<h2>What changed significantly</h2>{lead}<h2>Every metric</h2>"
            f"<table>{head}{body}</table></body></html>")
    tmp = out / ".index.html.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out / "index.html")
    return out / "index.html"
