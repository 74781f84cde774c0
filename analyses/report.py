"""The balance report: one HTML page (tables, headline findings, PNG plots beside it) from
results of either game, aggregated lazily so that a dataset of millions of games is never
loaded whole."""
from __future__ import annotations

import html
import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import polars as pl

from . import display, plots
from .display import named_verdict
from .data import (Frame, InputError, collect, columns, detect_game, lazy, require_rows,
                   score_column)
from .event_impact import event_impact
from .games import game_spec
from .intransitivity import measure as measure_cycles
from .kingmaking import Kingmaking, said
from .leverage import DEAD, MEANINGFUL, Leverage
from .stats import few_clusters
from simcore import provenance
from simcore.games import display_name, display_names
from .seats import CONFOUNDED, DESIGN_NOTE, ROTATED, seat_advantage, seat_design
from .restricted import BIG, MARGIN as RESTRICT_MARGIN, Restriction
from .robust import DEPENDS, DESIGN_MARGIN, ROBUST, Robustness
from .skill import (ALPHA, APPEARS, CHANGES, FLIPS, HOLDS, NEGLIGIBLE, STEADY, VANISHES,
                    SkillVerdicts)
from .tournament import matrix, meetings, pairwise, ratings
from .winrates import win_rates

UNIT = ("the unit is the game index: every seating of an index replays the same chance, so "
        "its seat-games are not independent")

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


def score_histogram(df: Frame, score: str) -> pl.DataFrame:
    """Exact counts of each score value per policy (scores are small integers)."""
    return collect(lazy(df).group_by(pl.col("policy").cast(pl.String), score)
                   .agg(count=pl.len())).sort("policy", score)


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


def board_data(game: str, rules_path: str | None = None) -> dict | None:
    """The board as plain data (``simcore.games.Game.board``) of the rules in force, or None for
    a game that declares no board."""
    spec = game_spec(game)
    return None if spec.board is None else spec.board(spec.module().load_rules(rules_path))


def _cycles(lf: pl.LazyFrame, met: pl.DataFrame, compared: list[str], game: str
            ) -> tuple[str, str]:
    """The intransitivity lens (``analyses.intransitivity``) on the tournament's own games,
    among the policies other than ``random`` (which every heuristic beats, and which would
    fill the ranking): headline and section."""
    r = measure_cycles(lf, compared, met=met)
    c = r.cyclic.row(0, named=True)
    mix = r.ratings.filter(pl.col("nash_mass") > 0.005).sort("nash_mass", descending=True)
    top = r.ratings.sort("alpharank", descending=True).row(0, named=True)
    nash = ", ".join(f"{html.escape(p)} {m:.2f}" for p, m in mix.select("policy", "nash_mass")
                     .iter_rows())
    headline = (f"Cyclic share of the head-to-head among {', '.join(map(html.escape, compared))}"
                f": <b>{c['share']:.3f}</b> [{c['ci_low']:.3f}, {c['ci_high']:.3f}] (0: a "
                f"ranking explains every pair, 1: a pure cycle); Nash equilibrium {nash}; "
                f"Alpha-Rank's top: {html.escape(top['policy'])} ({top['alpharank']:.2f}).")
    body = (f'<h3 id="{game}-cycles">One best strategy or a cycle?</h3>'
            "<p class=note>The head-to-head log-odds of finishing ahead among the policies "
            "other than random, split into a ranking (gradient) and cycles (Hodge "
            "decomposition); the cyclic share is the cycles' part of the sum of squares, "
            "bias-corrected, with a 95% basic bootstrap interval over game indices. Nash "
            "averaging (max-entropy equilibrium of the log-odds meta-game: a policy's rating "
            "is its log-odds against the equilibrium mix, 0 for the mix's members) and "
            f"Alpha-Rank (alpha {c['alpha']:g}) stay meaningful where there is a cycle; "
            "Bradley-Terry assumes none. Intervals: percentiles of the same bootstrap. See "
            "docs/analyses.md, Intransitivity.</p>"
            + display.to_html(display.cycles_table(r.ratings))
            + "".join(f"<p><b>Caution:</b> {html.escape(x)}.</p>"
                      for x in (c["caution"], few_clusters(c["games"])) if x))
    return headline, body


def _listed(xs: Sequence[Any]) -> str:
    return " then ".join(map(str, xs)) if xs else "no"


def kingmaking_part(r: Kingmaking, game: str) -> tuple[str, str]:
    """The kingmaking lens (``analyses.kingmaking``) as a part of a game's section: (one
    headline over every player count measured, body)."""
    st = r.settings
    headline = (f"Kingmaking (a seat below {st['threshold']:.0%} whatever it does whose options "
                f"move another seat's win probability by {st['swing'] * 100:.0f} points or "
                f"more): " + "; ".join(html.escape(said(x))
                                       for x in r.summary.iter_rows(named=True)) + ".")
    body = (f'<h3 id="{game}-kingmaking">Does a player who cannot win decide who does?</h3>'
            f"<p class=note>A kingmaker decision: the deciding seat's win probability is below "
            f"{st['threshold']:.0%} under each of its options and its options move another "
            f"seat's by at least {st['swing'] * 100:.0f} points (best minus worst option), "
            f"measured by the forward model's evaluator: every option played on over "
            f"determinizations of the deciding seat's view, the same random numbers for every "
            f"option: every decision passes screens of {_listed(st['screens'])} playouts "
            f"per option (a seat that wins too many under some option to be below the "
            f"threshold is not a kingmaker there), then two evaluations of {st['playouts']} "
            f"playouts per option on other random numbers judge it, the swing picked on one "
            f"and measured on the other (so the largest of many noisy differences does not "
            f"inflate it). The swing is another seat's largest change; "
            f"<i>crowned</i> is the seat the option taken raises most above its mean over the "
            f"options, counted as the leader, the runner-up or another by that mean among the "
            f"seats other than the decider. Shares of games: clustered Wilson intervals; the "
            f"mean swing and the crowned shares are over kingmaker decisions, ratios of sums "
            f"per game (the game index is the unit). See docs/analyses.md, Kingmaking.</p>"
            + display.to_html(display.kingmaking_table(r.summary))
            + "".join(f"<p><b>Caution:</b> {html.escape(c)}.</p>"
                      for c in map(few_clusters, r.summary["games"]) if c))
    return headline, body


def game_section(df: Frame, out: str | os.PathLike, rules_path: str | None = None,
                 counterfactual: pl.DataFrame | None = None, note: str = "",
                 board: dict | None = None, skill: SkillVerdicts | None = None,
                 ladder: Any = None, measured: Frame | None = None,
                 robust: Robustness | None = None, luck: Any = None,
                 lenses: Sequence[tuple[str, str]] = ()) -> Section:
    """Compute every table and plot of one game's results into ``out`` (PNG files) and return
    its part of the page. ``board`` (plain data, see ``board_data``) defaults to the board of
    the rules in force (``rules_path`` or the defaults); ``skill``: the verdicts by skill
    (``analyses.skill``), shown after the counterfactual table, then the luck part: ``luck``
    (an ``analyses.Luck``: luck by source) and ``ladder`` (an ``analyses.Ladder``, whose
    variance share due to skill heads its headlines); ``measured``: results played with the
    game's measuring rules (``Game.measuring``), from which the table by character comes
    instead, its headline saying so; ``robust``: the verdicts under the rules' alternatives
    (``analyses.robust``), whose tags the headlines and the skill table show; ``lenses``: the
    designer's lenses as (headline, part of the page) pairs (``leverage_part``, ...), shown
    after the ladder."""
    lf = lazy(df)
    require_rows(lf)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    game = detect_game(lf)
    score = score_column(lf)
    names = columns(lf)
    p = game  # file name prefix
    n_games, n_rows = count_games(lf)
    spec = game_spec(game)
    sec = Section(game, f"{spec.title} ({game})")
    b = sec.body
    b.append(f"<p>{n_games:,} games ({n_rows:,} seat rows). {html.escape(note)}</p>")

    by = ["n_players", "policy"] if collect(lf.select(pl.col("n_players").n_unique()))[0, 0] > 1 \
        else ["policy"]
    wr = win_rates(lf, by=by)
    b.append(f'<h3 id="{game}-policies">Win rate by policy</h3>'
             "<p class=note>Wins count 1/k for each of k tied "
             f"winners; intervals are 95% Wilson on the effective number of seat-games "
             f"({UNIT}). Policies are only comparable when they sat in every seat equally "
             f"often (the balance run rotates them).</p>")
    b.append(display.to_html(display.win_rates_table(wr, by)))
    label = wr.with_columns(label=pl.concat_str([pl.col(c).cast(pl.String) for c in by],
                                                separator=", "))
    b.append(_figure(plots.win_rate_plot(label, by="label", title=f"{game}: win rate by policy"),
                     out, f"{p}-winrates.png", "win rates"))
    if wr.height > 1:
        top = wr.sort("win_rate", descending=True).row(0, named=True)
        sec.headlines.append(f"Strongest policy by win rate: <b>{html.escape(top['policy'])}</b>"
                             f" {_interval(top['win_rate'], top['ci_low'], top['ci_high'])} "
                             f"over {top['games']:,} seat-games."
                             + _tagged(robust, robust and robust.policy_verdict(top["policy"])))

    if "character" in names:
        sec.headlines.append(_characters(lf if measured is None else lazy(measured), b, out, p,
                                         measured is not None, rules_path, robust))

    seats = seat_advantage(lf, score=score)
    b.append(f'<h3 id="{game}-seats">Seat advantage</h3>'
             "<p class=note>Does any seat win more than its fair "
             "share? With one game per game index: Pearson's chi-square of the wins per seat "
             "against games/P; in a tournament (every game index replayed in every seating) "
             "the cluster-robust Wald test of equal seat shares (P - 1 degrees of freedom, "
             f"{UNIT}). Seat intervals likewise.</p>")
    for k, design in sorted(seat_design(lf).items()):
        if design not in (ROTATED, "one policy"):
            b.append(f"<p><b>Caution ({k} players):</b> {html.escape(DESIGN_NOTE[design])}."
                     f"</p>")
    b.append(display.to_html(display.seats_table(seats)))
    b.append(_figure(plots.seat_plot(seats, title=f"{game}: seat advantage"), out,
                     f"{p}-seats.png", "seat advantage"))
    for g in seats.partition_by("n_players", maintain_order=True):
        k = g["n_players"][0]
        sec.headlines.append(seat_headline(g) + _tagged(robust, robust and robust.players == k
                                                        and f"seat 0: win rate - 1/{k}"))

    if "seating" in names:
        met = meetings(lf)
        pw = pairwise(lf, met)
        rt = ratings(lf, met)
        b.append(f'<h3 id="{game}-head-to-head">Head to head</h3>'
                 "<p class=note>Share of meetings at one table where the "
                 "row policy finished ahead of the column policy (tie = 1/2); 95% intervals "
                 "treat each game index as one unit. Beside it, each policy's Bradley-Terry "
                 "rating fitted to the same counts (Elo scale, centred on 0: +100 means "
                 "finishing ahead of an average policy about 64% of the time), with a 95% "
                 "bootstrap interval that resamples whole game indices, and its win rate. The "
                 "rating is a summary; the matrix is the evidence.</p>")
        b.append(display.to_html(display.head_to_head_table(matrix(pw), rt)))
        flagged = rt.filter(pl.col("bt_flag") != "")
        for r in flagged.iter_rows(named=True):
            b.append(f"<p><b>Caution:</b> {html.escape(r['policy'])} "
                     f"{html.escape(r['bt_flag'])}; the other ratings are centred without "
                     f"it.</p>")
        top = rt.row(0, named=True)
        sec.headlines.append(
            f"Strongest policy by Bradley-Terry rating: <b>{html.escape(top['policy'])}</b> "
            f"{top['bt_elo']:+.0f} [{top['bt_low']:+.0f}, {top['bt_high']:+.0f}] "
            f"(Elo scale, 0 = the average of the policies"
            + ("" if flagged.is_empty() else
               f" other than {', '.join(html.escape(x) for x in flagged['policy'])}, whose "
               f"rating the data cannot place") + ").")
        compared = sorted(set(met["policy"]) - {"random"})
        if len(compared) >= 3:
            headline, body = _cycles(lf, met, compared, game)
            sec.headlines.append(headline)
            b.append(body)

    hist = score_histogram(lf, score)
    b.append(f'<h3 id="{game}-scores">Score distribution</h3>')
    b.append(_figure(plots.score_plot(hist, score, title=f"{game}: {score} per policy"), out,
                     f"{p}-scores.png", "score distribution"))

    ev = event_impact(lf, score=score)
    b.append(f'<h3 id="{game}-events">What each event, role, item, trap or character does '
             "(observational)</h3>"
             "<p class=note>Games with minus games without, 95% cluster-robust intervals "
             f"({UNIT}), p-values Holm-adjusted as one family: all {2 * ev.height} tests of "
             "this table (win and score columns together). Association, not cause: things "
             "that compete for the same slots (7 of 10 events are drawn) or that players "
             "choose (items) are confounded; the counterfactual table below, where present, "
             "replays the same games without the thing.</p>")
    shown, drawn = display.named(ev, game), display.named(ev, game, latin=True)
    b.append(_figure(plots.forest_plot(drawn, "win", title=f"{game}: win-rate change with the "
                                                             f"thing (largest 25)"),
                     out, f"{p}-events-win.png", "event impact on win rate"))
    b.append(_figure(plots.forest_plot(drawn, "score", title=f"{game}: {score} change with "
                                                               f"the thing (largest 25)"),
                     out, f"{p}-events-score.png", "event impact on score"))
    b.append(_details(display.events_table(shown)))
    sec.headlines += _balance_headlines(ev, counterfactual, game, rules_path, robust)
    if counterfactual is not None:
        n_tests = 2 * counterfactual.height
        b.append(f'<h3 id="{game}-counterfactual">Counterfactual: the same games replayed '
                 "without the thing</h3>"
                 "<p class=note>Each row replays the same seeds with the thing switched off in "
                 "the rules data (column <i>change</i> says how); the difference is with minus "
                 "without on paired games (unit: the game index), so it is the thing's causal "
                 "effect under these rules. A card <i>replaced in place</i> by a card with no "
                 "effect leaves every other draw as it was: the same games minus the card. A "
                 "card <i>removed from the deck</i>, or a thing left out of a deck or roster, "
                 "changes what is drawn: the rules with against without it. P-values "
                 f"Holm-adjusted as one family: all {n_tests} tests of this table.</p>")
        shown = display.named(counterfactual, game)
        b.append(_figure(plots.forest_plot(display.named(counterfactual, game, latin=True),
                                           "win", title=f"{game}: causal win-rate effect"),
                         out, f"{p}-counterfactual.png", "counterfactual effects"))
        b.append(_details(display.counterfactual_table(shown)))
    if skill is not None:
        headline, body = skill_part(skill, robust)
        sec.headlines.append(headline)
        b.append(body)
    if robust is not None:
        closing, body = robust_part(robust)
        b.append(body)
    if luck is not None:
        headline, body = luck_part(luck, game)
        sec.headlines.append(headline)
        b.append(body)
    if ladder is not None:
        sec.headlines += [html.escape(ladder.variance_text()), html.escape(ladder.chess_text())]
        b.append(f'<h3 id="{game}-ladder">'
                 f"Skill ladder: {' &lt; '.join(html.escape(r) for r in ladder.ranked)} "
                 f"(by rating)</h3>"
                 f"<p class=note>{ladder.players} seats, {html.escape(ladder.design_text())}:"
                 f" one seat of the row rung against the column rung in the others ({UNIT}). "
                 f"The rungs are in the order of their measured ratings, lowest first.</p>"
                 + ladder.html())
        for stem, fig in ladder.figures().items():
            b.append(_figure(fig, out, f"{p}-{stem}.png", stem.replace("-", " ")))
    for headline, body in lenses:
        sec.headlines.append(headline)
        b.append(body)

    rests = _rests_on(game, rules_path)
    if rests:
        sec.headlines.insert(0, f"<i>Every {html.escape(spec.title)} figure here rests on the "
                                f"default rules data, and these {len(rests)} of its values and "
                                f"readings are no seed's word (<code>{game} rules</code> "
                                f"prints every value's tag):</i><ul>"
                                + "".join(f"<li>{html.escape(provenance.line(k, e))}</li>"
                                          for k, e in rests) + "</ul>")
    if robust is not None:
        sec.headlines.append(closing)       # what depends on what, last
    board = board_data(game, rules_path) if board is None else board
    if board is not None and spec.board_plot is not None:
        b.append(f'<h3 id="{game}-board">The board</h3>')
        b.append(_figure(spec.board_plot(board, lf, rules_path is None), out, f"{p}-board.png",
                         "board usage"))
    return sec


def _characters(lf: pl.LazyFrame, b: list[str], out: Path, p: str, measured: bool,
                rules_path: str | None, robust: Robustness | None = None) -> str:
    """The table by character (into ``b``) and its headline, which names the measuring rules
    when the games were played under them (``measured``) rather than as the results are."""
    game = detect_game(lf)
    how = f" in games with {game_spec(game).measuring_note}" if measured else ""
    ch = win_rates(lf, by=["character"])
    b.append(f'<h3 id="{game}-characters">'
             f"Win rate by character{html.escape(how)}</h3><p class=note>Where characters "
             "are dealt at random, differences between them are their own strength (with the "
             "policies that played them), not the players'; where players choose them, they "
             "also measure who chose what from which seat. "
             f"Intervals as above ({UNIT}).</p>")
    shown = display.named(ch, game)
    b.append(display.to_html(display.win_rates_table(shown, ["character"])))
    b.append(_figure(plots.win_rate_plot(display.named(ch, game, latin=True), by="character",
                                         title=f"{game}: win rate by character"),
                     out, f"{p}-characters.png", "win rate by character"))
    top, low = (ch.sort("win_rate", descending=d).row(0, named=True) for d in (True, False))
    spec = game_spec(game)
    return (f"Strongest character{html.escape(how)}: "
            f"<b>{html.escape(display_name(spec, top['character']))}</b> "
            f"{_interval(top['win_rate'], top['ci_low'], top['ci_high'])}; weakest: "
            f"<b>{html.escape(display_name(spec, low['character']))}</b> "
            f"{_interval(low['win_rate'], low['ci_low'], low['ci_high'])}."
            + _assumption(game, "character", (top["character"], low["character"]), rules_path)
            + _things_tagged(robust, game, "character", (top["character"], low["character"])))


SKILL_COUNTS = {HOLDS: "hold at every rung where measured",
                NEGLIGIBLE: "are negligible at every rung where measured",
                FLIPS: "flip", VANISHES: "vanish", APPEARS: "appear",
                CHANGES: "change otherwise", STEADY: "show no tested change"}
MOVES = (FLIPS, VANISHES, APPEARS, CHANGES)


def _at_rungs(held: pl.DataFrame, rungs: int) -> str:
    """How many of the verdicts that hold (``held``, a summary's rows) were measured at how
    many of the ``rungs``: "7 at all 4 rungs, 3 at 2 of 4", so that a verdict measured at one
    rung is never counted as holding at all of them."""
    counts = held.group_by("measured").len().sort("measured", descending=True)
    return ", ".join(f"{n} at all {m} rungs" if m == rungs else f"{n} at {m} of {rungs}"
                     for m, n in counts.iter_rows())


def _margin_said(margin: dict[str, float]) -> str:
    """'-/+2.0 points' when every kind has one margin, else each kind's."""
    values = set(margin.values())
    if len(values) == 1:
        return f"-/+{values.pop() * 100:.1f} points"
    return ", ".join(f"-/+{m * 100:.1f} points ({k})" for k, m in margin.items())


def _tagged(robust: Robustness | None, verdict: Any) -> str:
    """' Assumptions: <tag>.' for a headline about ``verdict`` (nothing where not measured)."""
    tag = robust.tag(verdict) if robust is not None and verdict else None
    return f" <i>Assumptions: {html.escape(tag)}.</i>" if tag else ""


def _things_tagged(robust: Robustness | None, game: str, kind: str,
                   things: tuple[str, ...]) -> str:
    """' Assumptions: thing: <tag>; ...' for a headline about ``things`` of ``kind``."""
    if robust is None:
        return ""
    label = next((t.label or t.kind for t in game_spec(game).things if t.kind == kind), kind)
    spec = game_spec(game)
    tags = [(display_name(spec, t), robust.thing_tag(label, t)) for t in dict.fromkeys(things)]
    said = "; ".join(f"{t}: {tag}" for t, tag in tags if tag)
    return f" <i>Assumptions: {html.escape(said)}.</i>" if said else ""


def skill_tags(sv: SkillVerdicts, robust: Robustness | None) -> list[str | None] | None:
    """Each skill verdict's assumption tag (the strongest policy's: its verdict at the
    robustness table), or None without a robustness check."""
    if robust is None:
        return None
    return [robust.tag(robust.policy_verdict(sv.top) if kind == "policy" and sv.top else v)
            for v, kind in sv.summary.select("verdict", "kind").iter_rows()]


def robust_part(r: Robustness) -> tuple[str, str]:
    """The robustness part of a game's section: (closing headline, body); things by their
    display names."""
    s = r.summary
    names = display_names(game_spec(r.game))
    alts = ", ".join(f"<i>{html.escape(a)}</i>" + (f" ({html.escape(k)})" if k else "")
                     for a, k in r.alternatives)
    untested = "".join(f" Not tested at {r.players} seats: <i>{html.escape(n)}</i> "
                       f"({html.escape(w)})." for n, w in r.untested)
    dep = s.filter(pl.col("tag").str.starts_with(DEPENDS))
    counts = (f"of {s.height} verdicts {s.filter(pl.col('tag').str.starts_with(ROBUST)).height}"
              f" robust, {dep.height} depend on an assumption, "
              f"{s.height - dep.height - s.filter(pl.col('tag').str.starts_with(ROBUST)).height}"
              f" undetermined")
    by_alt = "; ".join(
        f"on <i>{html.escape(a)}</i>: " + ", ".join(html.escape(named_verdict(v, names)) for v in
                                                   dep.filter(pl.col("depends").list
                                                              .contains(a))["verdict"])
        for a, _ in r.alternatives if dep.filter(pl.col("depends").list.contains(a)).height)
    headline = (f"Assumptions: every verdict re-measured under {alts} on the same games "
                f"({r.n_games:,} game indices per seating of {html.escape(' | '.join(r.policies))}"
                f", rotated): {counts}.{untested}"
                + (f" Depending: {by_alt}." if by_alt else " No verdict depends on one."))
    body = (f'<h3 id="{r.game}-robustness">Verdicts under other readings of the rules</h3>'
            f"<p class=note>Each alternative is another reading of one gap, reading or "
            f"invention of the default rules (the provenance key in brackets): {alts}. The "
            f"defaults and each alternative play the same {r.n_games:,} game indices of seed "
            f"{r.seed} in every rotation of the table {html.escape(' | '.join(r.policies))}; "
            f"each cell is the verdict's change under the alternative (minus the defaults) "
            f"with its 95% interval and MDE, paired game index by game index ({UNIT}). A "
            f"verdict <i>depends on</i> an alternative when the test of that change rejects "
            f"(Holm over every verdict x alternative, marked *) or the alternative takes its "
            f"thing out of the game; it is <i>robust</i> when every change is shown within "
            f"the margin (two one-sided tests at {ALPHA}; -/+{r.margin * 100:.1f} points for "
            f"win rates and shares, {DESIGN_MARGIN:.0%} of its value for a designer metric "
            f"that counts); otherwise <i>undetermined</i> (a change up to its MDE may go unseen)."
            f" A verdict \"replayed without it\" is a thing's causal effect, replayed on the "
            f"same games under each rules set with the thing switched off.{untested} Robust "
            f"verdicts are in the full table only.</p>")
    t = display.named(display.robustness_table(r), r.game)
    shown = t.filter(~pl.col("tag").str.starts_with(ROBUST))
    body += (display.to_html(shown) if shown.height else
             "<p>Every verdict is robust to the alternatives tested.</p>") + _details(t)
    return headline, body


def luck_part(luck: Any, game: str) -> tuple[str, str]:
    """Luck by source (an ``analyses.Luck``): its headline and its part of the page."""
    return html.escape(luck.text()), (
        f'<h3 id="{game}-luck">Luck by source</h3>'
        f"<p class=note>The table {html.escape(' | '.join(luck.table))} (seat 0 first) on "
        f"{luck.n_games:,} game indices of seed {luck.seed}, played as drawn, with every "
        f"chance source drawn anew, and with each source alone drawn anew (every other draw "
        f"held). A source's share is its total effect on the outcome's variance (Jansen's "
        f"estimator), its interactions included: the shares may sum past 100%. The seating is "
        f"not drawn (seat 0 starts); 'policies' is the seats' own random draws. 95% bootstrap "
        f"intervals ({UNIT}).</p>" + display.to_html(luck.readable()))


def leverage_part(lev: Leverage) -> tuple[str, str]:
    """The decision leverage part of a game's section (``analyses.leverage``): (headline,
    body)."""
    headline = (f"Decisions: {html.escape(lev.headline())} ({lev.decisions.height:,} decisions "
                f"of real games, {lev.playouts} playouts per option).")
    body = (f'<h3 id="{lev.game}-leverage">Decision leverage and accuracy</h3>'
            f"<p class=note>At {lev.decisions.height:,} decisions sampled from "
            f"{lev.decisions['game'].n_unique():,} games of seed {lev.seed} "
            f"({html.escape(' | '.join(lev.policies))}, rotated over the seats), every option "
            f"is valued for the acting seat by flat Monte Carlo from its own view "
            f"({lev.playouts} playouts per option, the options sharing each determinization). "
            f"Leverage: the best option's win probability minus the worst's, in points; "
            f"meaningful: best minus second at least {MEANINGFUL[0]:g} and best minus worst at "
            f"least {MEANINGFUL[1]:g}; dead: best minus worst below {DEAD:g}; a policy's loss: "
            f"the best option's value minus that of the option it took. The evaluator is not "
            f"perfect play, and its noise inflates leverage and loss. Intervals 95%, the unit "
            f"the game index (a game's decisions share its chance).</p>")
    body += display.to_html(display.leverage_table(lev.table))
    body += display.to_html(display.accuracy_table(lev.accuracy))
    return headline, body


def restricted_part(r: Restriction) -> tuple[str, str]:
    """The restricted-play part of a game's section: (headline, body)."""
    rungs = ", ".join(f"<b>{html.escape(x)}</b>" for x in r.rungs)
    headline = (f"Restricted play ({len(r.summary)} probes at rungs {rungs}, {r.games:,} game "
                f"indices each): {html.escape(r.headline())}.")
    t = r.table.with_columns(
        change=pl.struct("diff", "ci_low", "ci_high").map_elements(
            lambda x: _interval(x["diff"], x["ci_low"], x["ci_high"]),
            return_dtype=pl.String)).select("label", "rung", "change", "p_adj", "verdict")
    body = (f'<h3 id="{r.game}-restricted">Restricted play</h3><p class=note>Each probe '
            f"restricts one seat: never an option (its rows removed before the policy "
            f"chooses; where every option matches, the decision is played unrestricted) or "
            f"always it whenever legal. The restricted seat plays the rung's policy under the "
            f"probe, the other {r.players - 1} seats the rung's policy, on the same "
            f"{r.games:,} game indices of seed {r.seed} as the unrestricted table, the "
            f"restricted seat in every seat in turn. Change: its win rate less the same "
            f"seat's unrestricted, in points with its 95% interval ({UNIT}); p Holm-adjusted "
            f"over every row. <i>Useless</i>: the interval inside -/+"
            f"{RESTRICT_MARGIN * 100:g} point; <i>indispensable</i> (never) or "
            f"<i>dominant</i> (always): a significant change of at least {BIG * 100:g} "
            f"points; <i>costly</i> / <i>gains</i>: significant, smaller.</p>")
    body += display.to_html(r.summary.drop("probe", "mode")) + _details(t)
    return headline, body


def skill_part(sv: SkillVerdicts, robust: Robustness | None = None) -> tuple[str, str]:
    """The verdicts-by-skill part of a game's section: (headline, body), each verdict with
    its assumption tag given the robustness check ``robust``."""
    rungs = ", ".join(f"<b>{html.escape(r)}</b>" for r in sv.rungs)
    s = sv.summary
    said = ", ".join(f"{n} {words}"
                     + (f" ({_at_rungs(group, len(sv.rungs))})" if c == HOLDS else "")
                     for c, words in SKILL_COUNTS.items()
                     if (n := (group := s.filter(pl.col("across") == c)).height))
    seat0 = s.filter(pl.col("kind") == "seat").row(0, named=True)
    moving = s.filter(pl.col("across").is_in(MOVES) & (pl.col("verdict") != seat0["verdict"]))
    examples = "; ".join(f"{html.escape(r['verdict'])}: {html.escape(r['reading'])}"
                         for r in moving.head(3).iter_rows(named=True))
    more = f" ({moving.height - 3} more in the table)" if moving.height > 3 else ""
    margin = _margin_said(sv.margin)
    headline = (f"Verdicts by skill (rungs {rungs} as given, every seat one rung, "
                f"{html.escape(sv.games_said())}; negligible: within {margin}): of {s.height} "
                f"verdicts {said}. "
                f"{html.escape(seat0['verdict'])}: {html.escape(seat0['reading'])}."
                + _tagged(robust, robust and seat0["verdict"])
                + (f" Changing with skill (tested): {examples}{more}." if examples else
                   " No other verdict changes with skill by a test of the change."))
    top = "" if sv.top is None else (
        f" The highest-rated policy of the tournament, {html.escape(sv.top)}, also plays one seat "
        f"(rotated) against the rung in the others, about as many games as the rung plays (not "
        f"at the rung that is {html.escape(sv.top)} itself).")
    wide = display.named(display.skill_table(sv.table, s, list(sv.rungs),
                                             skill_tags(sv, robust)), sv.game)
    shown = wide.filter(pl.Series(s["across"] != NEGLIGIBLE))
    tested = display.named(display.changes_table(sv.changes), sv.game)
    body = (f"<h3>Verdicts by skill: rungs {rungs}</h3><p class=note>Each rung is one policy "
            f"spec played by every seat, the rungs in the order given (meant weakest first; "
            f"the skill ladder below orders rungs by their measured ratings); each plays "
            f"the first game indices of seed {sv.seed} at {sv.players} seats, "
            f"{html.escape(sv.games_said())} (the same chance at every rung).{top} A verdict is "
            f"a win-rate difference in percentage points with its 95% interval ({UNIT}): each "
            f"seat against its fair share, each thing with minus without (association, as the "
            f"observational table: game-level things per seat, seat-level things over all "
            f"seats). At each rung it <i>holds</i> when its p-value, Holm-adjusted over one "
            f"family (all {sv.table['p'].is_not_nan().sum()} tests of the table: every verdict "
            f"at every rung), is below {ALPHA}; it is <i>negligible</i> when an equivalence "
            f"test (two one-sided t tests at {ALPHA}) shows it within {margin}, even if it "
            f"differs from 0; otherwise it is <i>undetermined</i>. Each cell gives the rung's "
            f"minimum detectable effect (MDE: the effect its test finds 80% of the time at "
            f"{ALPHA}): where a verdict is undetermined, effects below it may go unseen. "
            f"Which rungs hold says as much about their number of games as about skill, so "
            f"a verdict changes with skill only where a test of the change says so: the "
            f"difference between neighbouring rungs, paired on the game indices both played "
            f"(unpaired where they share none; column <i>shared</i>), Holm-adjusted over all "
            f"{sv.changes['p'].is_not_nan().sum()} changes. A changed verdict <i>flips</i> "
            f"(holds at both rungs with opposite signs), <i>vanishes</i> (holds, then is "
            f"negligible), <i>appears</i> (the other way round) or <i>changes</i> otherwise; "
            f"without a tested change it holds, is negligible, or shows no change. Verdicts "
            f"negligible at every rung are in the full table only.</p>")
    body += (display.to_html(shown) if shown.height else
             "<p>Every verdict is negligible at every rung.</p>")
    body += ("<h4>Tested changes between neighbouring rungs</h4>"
             + (display.to_html(tested.filter(pl.col("changes with skill") == "yes"))
                if sv.changes["changed"].any() else "<p>No change is significant.</p>")
             + _details(tested) + _details(wide))
    return headline, body


def seat_headline(g: pl.DataFrame) -> str:
    """The seat headline of one player count: the start seat against its fair share and the
    test's verdict in words, or why the seats cannot be compared."""
    first = g.row(0, named=True)
    best = g.sort("win_rate", descending=True).row(0, named=True)
    head = f"Seats ({first['n_players']} players): "
    if first["design"] == CONFOUNDED:
        return (head + "each policy sat in a fixed seat, so seat effects cannot be read from "
                "these results (a seat's win rate is its policy's).")
    caution = "" if first["design"] in (ROTATED, "one policy") else \
        " (caution: the policies were not rotated evenly over the seats)"
    return (head + f"the start seat wins "
            f"{_interval(first['win_rate'], first['ci_low'], first['ci_high'])} against a fair "
            f"{first['expected']:.1%}; best seat is seat {best['seat']} "
            f"({best['win_rate']:.1%}); {display.seat_verdict(first, '<b>{}</b>')}{caution}.")


def _rests_on(game: str, rules_path: str | None) -> list[tuple[str, dict]]:
    """The provenance entries (``simcore.provenance``) the default rules rest on that no seed
    states: gaps, readings, inventions. None for a rules file given by the user (theirs to
    know) or a game without provenance data."""
    spec = game_spec(game)
    if rules_path is not None or not spec.provenance:
        return []
    return provenance.assumptions(provenance.load(spec))


def _assumption(game: str, kind: str, things: tuple[str, ...], rules_path: str | None) -> str:
    """The gaps, readings and inventions a headline about ``things`` of ``kind`` rests on (the
    family's own entry and each thing's, ``Game.provenance_keys``), said beside it, tag and
    note (the assumptions box has their grounds)."""
    key = game_spec(game).provenance_keys.get(kind)
    mine = [f"{key}.{t}" for t in things] if key else []
    hits = [(k, e) for k, e in _rests_on(game, rules_path)
            if k == key or any(k == n or k.startswith(n + ".") for n in mine)]
    return (" <i>Rests on: " + "; ".join(html.escape(f"[{e['tag']}] {k}: {e['note']}")
                                         for k, e in hits) + ".</i>") if hits else ""


def _balance_headlines(observed: pl.DataFrame, replayed: pl.DataFrame | None, game: str,
                       rules_path: str | None, robust: Robustness | None = None) -> list[str]:
    """Least and most balanced thing. Least balanced: the largest win-rate change it makes to
    any group in the counterfactual replays (``replayed``: cause) or, without them, in the
    observational table, with both sides of it (the group it helps most and the one it hurts
    most). Most balanced: the thing whose largest change in either table is smallest, so that
    a thing with a large effect on some group, or a strong raw win rate (a per-policy replay
    can average a strong character away), is never called balanced."""
    causal = replayed is not None
    labels = {t.kind: t.label or t.kind for t in game_spec(game).things}
    how = {"replayed": "causal, replayed without it", "observed": "observational, with - without"}
    tables = {"observed": observed} | ({"replayed": replayed} if causal else {})
    keys = ["kind", "thing"]
    changes = {} if not causal else dict(zip(zip(replayed["kind"], replayed["thing"]),
                                             replayed["change"]))
    rows = (pl.concat([t.select(*keys, "by", "group", "win_diff", "win_ci_low", "win_ci_high",
                                table=pl.lit(name)) for name, t in tables.items()])
            .filter(pl.col("win_diff").is_not_nan())
            .join((replayed if causal else observed).select(keys).unique(), on=keys, how="semi")
            .with_columns(size=pl.col("win_diff").abs()))

    def largest(t: pl.DataFrame) -> pl.DataFrame:
        return (t.sort("size", descending=True).group_by(keys, maintain_order=True).first()
                .sort("size", descending=True))
    worst = largest(rows.filter(pl.col("table") == ("replayed" if causal else "observed")))
    if worst.height < 2:
        return []

    def name(r: dict) -> str:
        change = changes.get((r["kind"], r["thing"]))
        thing = display_name(game_spec(game), r["thing"])
        return (f"<b>{html.escape(labels.get(r['kind'], r['kind']))} "
                f"{html.escape(thing)}</b>" + (f" ({html.escape(change)})" if change else ""))

    def moves(r: dict) -> str:
        who = "the win rate" if r["group"] == "all" else \
            f"the win rate of {r['by']} " \
            f"{html.escape(display_name(game_spec(game), str(r['group'])))}"
        return (f"{who} by {r['win_diff'] * 100:+.1f} percentage points "
                f"[{r['win_ci_low'] * 100:+.1f}, {r['win_ci_high'] * 100:+.1f}]")

    most = worst.row(0, named=True)
    mine = rows.filter((pl.col("kind") == most["kind"]) & (pl.col("thing") == most["thing"])
                       & (pl.col("table") == most["table"])).sort("win_diff")
    up, down = mine.row(-1, named=True), mine.row(0, named=True)
    sides = moves(most) if up["win_diff"] <= 0 or down["win_diff"] >= 0 else \
        f"{moves(up)} and {moves(down)}"
    least = largest(rows).row(-1, named=True)
    named: dict[str, tuple[str, ...]] = {}
    for r in (most, least):
        named[r["kind"]] = named.get(r["kind"], ()) + (r["thing"],)
    rests = "".join(_assumption(game, kind, things, rules_path)
                    + _things_tagged(robust, game, kind, things) for kind, things in named.items())
    return [f"Least balanced ({how[most['table']]}): {name(most)} moves {sides}. "
            f"Most balanced: {name(least)}: no group's win rate moves by more than "
            f"{least['size'] * 100:.1f} percentage points with it, "
            f"{'replayed without it or ' if causal else ''}compared with and without it "
            f"(the largest: {moves(least)}, {how[least['table']]}).{rests}"]


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
