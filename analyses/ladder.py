"""The skill ladder: rungs of growing skill played one against the others on shared seeds, read
as a win-rate matrix, a rating per rung (which orders the rungs), a skill curve per family of
budgets, the share of outcome variance due to skill among the rungs, and between neighbouring
rungs the x%-chess weight of their head-to-head."""
from __future__ import annotations

import html
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from simcore.progress import Progress, ProgressArg
from simcore.runner import check_int

from . import display
from .games import check_players, check_policies, check_run, game_module, play, policy_name
from .stats import few_clusters
from .tournament import NEVER_AHEAD, bt_bootstrap, meetings
from .winrates import win_rates

BASELINE = "random"
"""The uniform-random policy: a floor, not a player; it never enters a headline pair."""

BOOT = 1000
"""Bootstrap resamples of game indices behind the variance share's interval."""

ROTATIONS = ("within", "across")
"""How the one-seat rung's seat is rotated (``ladder``): over the seatings of every game index,
or across blocks of game indices (seat s on its own block)."""

FAMILY = re.compile(r"^(?P<family>.+)-(?P<budget>[0-9]+)$")
"""A rung named ``<family>-<integer>`` (``ismcts-1000``) is its family at that budget."""


@dataclass(frozen=True)
class Ladder:
    game: str
    players: int
    rungs: tuple[str, ...]   # names, weakest first as declared
    ranked: tuple[str, ...]  # names, lowest-rated first (see ``rung_ratings``)
    n_games: int             # game indices per seating
    seed: int
    rotation: str            # "within": every seating on 0..n_games-1; "across": seat blocks
    results: pl.DataFrame    # every game of every seating (``seating`` names it)
    matrix: pl.DataFrame     # rung (one seat) vs opponent (P-1 seats): win rate, 95% interval
    ratings: pl.DataFrame    # per rung: Bradley-Terry (Elo scale) with a 95% bootstrap interval
    steps: pl.DataFrame      # per neighbouring pair by rating: difference, head-to-head, x%-chess
    curves: pl.DataFrame     # per family and budget: win rate against its reference rung
    variance: pl.DataFrame   # one row: share of outcome variance due to skill, 95% interval
    notes: tuple[str, ...]   # what a reader must know (a rated order that differs, ...)

    @property
    def indices(self) -> int:
        """Game indices in all: ``n_games``, or ``players`` x ``n_games`` rotated across."""
        return self.n_games * (self.players if self.rotation == "across" else 1)

    def design_text(self) -> str:
        """The design in words, for a page's header."""
        if self.rotation == "within":
            return (f"{self.n_games:,} game indices per seating, every seating on the same "
                    f"indices, seed {self.seed}")
        return (f"{self.n_games:,} game indices per seating, the one seat's place rotated "
                f"across {self.indices:,} game indices (seat s on its own block of "
                f"{self.n_games:,}), seed {self.seed}")

    def table(self) -> pl.DataFrame:
        """The matrix as rung rows by opponent columns (lowest-rated first), cells
        "41.2% [39.0, 43.5]"; a row is the rung's win rate with one seat against P-1 copies of
        the column's rung."""
        return wide(self.matrix, self.ranked)

    def variance_text(self) -> str:
        """The share of outcome variance due to skill, in one sentence that says among whom
        and what it measures."""
        r = self.variance.row(0, named=True)
        if r["clusters"] < 2:
            return (f"Share of the outcome variance due to skill among {r['population']}: not "
                    f"computable from {r['clusters']} game index (its sampling variance needs "
                    f"2 or more)")
        share = _pct(r["share"], r["share_low"], r["share_high"])
        return (f"Share of the outcome variance due to skill among {r['population']}: {share}"
                f" (the variance of the seats' true win probabilities, seats rotated so that "
                f"the seat is luck, over the variance of one game's outcome, "
                f"{r['var_observed']:.4f}; the true variance is the observed variance of the "
                f"{r['cells']} pairings' win rates less their sampling variance, as in Getty "
                f"et al. 2018; 95% bootstrap interval over {r['clusters']:,} game indices)"
                + _caution(r["clusters"]))

    def chess_text(self) -> str:
        """The x%-chess weight of the top neighbouring pair of competent rungs, in one
        sentence that says what it measures."""
        top = self.steps.filter(pl.col("competent")).tail(1)
        if not top.height:
            return (f"x%-chess: not computable: fewer than two competent rungs the ratings place "
                    f"({BASELINE!r} is a floor, never one end of the pair)")
        r = top.row(0, named=True)
        w = _pct(r["win_rate"], r["ci_low"], r["ci_high"])
        x = _pct(r["x_chess"], r["x_chess_low"], r["x_chess_high"])
        return (f"Between the two highest-rated competent rungs, {r['higher']} with one seat "
                f"against {self.players - 1} x {r['lower']} wins {w} of games (fair share "
                f"1/{self.players} = {1 / self.players:.1%}): as often as in a game that the "
                f"higher rung wins outright in {x} of games and a fair lottery decides in the "
                f"rest (the x%-chess weight of this pair, (w - 1/P) / (1 - 1/P), 95% "
                f"interval; {r['games']:,} games on {r['clusters']:,} game indices). It "
                f"describes this pair only, not the game's share of skill"
                + _caution(r["clusters"]))

    def tables(self) -> dict[str, pl.DataFrame]:
        """The readable tables, by title (what ``markdown`` and ``html`` print)."""
        mat = self.table().rename({"rung": "one seat \\ P-1 seats"})
        out = {f"Win rate of the row rung with one seat against {self.players - 1} of the "
               f"column rung (seats rotated; fair share {1 / self.players:.1%})": mat,
               "Rating per rung (Bradley-Terry on finishing ahead, Elo scale)":
                   self.ratings.select(
                       "rung", display.num_ci("bt_elo", "bt_low", "bt_high", 0).alias(
                           "Bradley-Terry, Elo scale [95% CI]"),
                       pl.col("bt_flag").alias("the data cannot place it")),
               "Neighbouring rungs by rating: the difference (bootstrap 95% interval), the "
               "higher rung's win rate with one seat against P-1 of the lower, and its x%-chess "
               "weight (w - 1/P) / (1 - 1/P)":
                   self.steps.select(
                       "lower", "higher",
                       display.num_ci("diff", "diff_low", "diff_high", 0).alias(
                           "rating difference, Elo [95% CI]"),
                       display.rate_ci("win_rate", "ci_low", "ci_high").alias(
                           "head-to-head win rate [95% CI]"),
                       display.rate_ci("x_chess", "x_chess_low", "x_chess_high").alias(
                           "x%-chess [95% CI]"))}
        if self.curves.height:
            out["Skill curve per family (win rate against the reference rung)"] = \
                self.curves.select("family", "budget", "reference", "games", display.rate_ci(
                    "win_rate", "ci_low", "ci_high").alias("win rate [95% CI]"))
        return out

    def markdown(self) -> str:
        """Headline, notes and tables as Markdown."""
        parts = [f"Skill ladder: {self.game}, {self.players} players, {self.design_text()}", "",
                 self.variance_text(), "",
                 self.chess_text()]
        if self.notes:
            parts += ["", *(f"- {n}" for n in self.notes)]
        for title, t in self.tables().items():
            parts += ["", f"**{title}**", "", display.to_markdown(t)]
        return "\n".join(parts) + "\n"

    def html(self) -> str:
        """Notes and tables as an HTML fragment (the headlines: ``variance_text`` and
        ``chess_text``; figures: ``figures``)."""
        parts = [f"<p class=note>{html.escape(n)}</p>" for n in self.notes]
        for title, t in self.tables().items():
            parts.append(f"<h3>{html.escape(title)}</h3>{display.to_html(t)}")
        return "".join(parts)

    def write(self, out: str | os.PathLike) -> Path:
        """``out/index.html`` (headline, tables, PNG figures), ``out/ladder.md`` and every game
        in ``out/results.parquet``, swapped in whole (``report.staged``)."""
        from .report import Section, staged, write_page
        with staged(out) as folder:
            imgs = []
            for stem, fig in self.figures().items():
                fig.savefig(folder / f"{stem}.png", dpi=100)
                plt.close(fig)
                imgs.append(f'<p><img src="{stem}.png" alt="{stem}"></p>')
            sec = Section(self.game, f"Skill ladder: {self.game}, {self.players} players",
                          [html.escape(self.variance_text()), html.escape(self.chess_text())],
                          [self.html(), *imgs])
            write_page([sec], folder, f"Skill ladder: {self.game}")
            (folder / "ladder.md").write_text(self.markdown(), encoding="utf-8")
            self.results.write_parquet(folder / "results.parquet")
        return Path(out) / "index.html"

    def figures(self) -> dict[str, Any]:
        """matplotlib Figures by file stem: the matrix, and the skill curves where a family
        climbs the ladder."""
        from .plots import ladder_plot, skill_curve_plot
        out = {"ladder-matrix": ladder_plot(self.matrix, self.ranked, self.players,
                                            f"Skill ladder: {self.game}")}
        if self.curves.height:
            out["ladder-skill-curve"] = skill_curve_plot(self.curves, self.players,
                                                         f"Skill curve: {self.game}")
        return out


def _caution(clusters: int) -> str:
    """``stats.few_clusters``' caution as the end of a headline sentence, or ""."""
    caution = few_clusters(clusters)
    return f" ({caution})" if caution else ""


def _pct(v: float, low: float, high: float) -> str:
    return f"{v:.1%} [{low:.1%}, {high:.1%}]"


def seatings(rungs: Sequence[Any], players: int) -> list[tuple[str, str, tuple[Any, ...]]]:
    """For each ordered pair (A, B) of rungs and each seat s: (A, B, the table with A at seat s
    and B at every other seat)."""
    return [(policy_name(a), policy_name(b), (b,) * s + (a,) + (b,) * (players - 1 - s))
            for a in rungs for b in rungs if policy_name(a) != policy_name(b)
            for s in range(players)]


def ladder(game: Any, agents: Sequence[Any], players: int, n_games: int, seed: int, *,
           rules: Any = None, threads: int | None = None, reference: str | None = None,
           rotation: str = "within", progress: ProgressArg = None) -> Ladder:
    """Play the rungs ``agents`` (policy specs, weakest first) against each other at
    ``players`` seats, ``n_games`` game indices of ``seed`` per seating.

    Design: for each ordered pair (A, B), one seat A and P-1 seats B, A rotated over every
    seat; every seating plays the same game indices (common random numbers). Why: one A
    against P-1 B asks the question a player of rung A asks at a table of B players (is it
    worth being better than this field?), and its fair share is plainly 1/P, so every cell
    is read against pure luck; a mixed table (two A, two B) would confound A's skill with
    how A's copies take wins from each other. Rotating A over every seat cancels the seat
    advantage. Shared game indices make every pairing meet the same decks, so differences
    between cells are not differences of luck, and the game index (whose seatings share
    their chance) is the unit of every interval. Games: n_games x P x K(K-1) for K rungs
    (at 2 players the table of (A, B) with A at seat 0 is that of (B, A) with B at seat 1
    and is played once).

    ``rotation="across"``: the same seatings and games, but the seating with the one-seat rung
    at seat s plays game indices s n .. (s + 1) n - 1 (at 2 players a table plays the block
    of the first pair that seats it), so the ladder spans P x ``n_games`` game indices, each
    holding one game of every pair, at the cost of ``n_games``. The seats still weigh equally
    in every cell, but the seat advantage no longer cancels within a game index: it is part
    of the between-index variance, which the clustered intervals count (a little wider, never
    narrower, than the truth needs, since the blocks are strata). Why: an interval from C
    game indices needs C well above 20 (the t and F references are approximate below), and
    where a rung is slow (a search agent) P times the indices at the same cost is the
    difference between 12 and 48.

    A spec is passed to the game's ``simulate`` as it is, so any policy the game resolves
    (built in, a user policy, a search agent at a budget) is a rung; one named
    ``<family>-<integer>`` is its family at that budget. ``reference``: the rung every
    family's skill curve is measured against (default: the strongest declared rung of no
    family, so that all families share it; else the strongest outside the family; else its
    smallest budget). The rungs are read in the order of their measured ratings (``ranked``;
    ``notes`` say where it differs from the declared order), so a rung that rates lower is
    never called stronger: ``steps`` gives each neighbouring pair's rating difference with its
    bootstrap interval beside their head-to-head win rate and its x%-chess weight, and the
    headline pair is the top pair of competent rungs (``BASELINE`` is never one of its ends).
    ``variance`` is the share of outcome variance due to skill among the competent rungs
    (``skill_variance``; all rungs where fewer than two are competent).
    """
    mod = game_module(game)
    rungs = _check_rungs(mod, agents)
    names = tuple(policy_name(a) for a in rungs)
    check_players(mod, players)
    check_int("n_games", n_games)
    if rotation not in ROTATIONS:
        raise ValueError(f"rotation must be one of {list(ROTATIONS)}, got {rotation!r}")
    if reference is not None and reference not in names:
        raise ValueError(f"reference {reference!r} is not one of the rungs {list(names)}")
    plan = seatings(rungs, players)
    tables: dict[str, tuple[tuple[Any, ...], int]] = {}    # label -> (table, seat block)
    for i, (_, _, t) in enumerate(plan):
        tables.setdefault("|".join(policy_name(p) for p in t), (t, i % players))
    check_run(mod, len(tables) * n_games, players, rules=rules, held=len(tables) * n_games)
    bar = Progress(progress, len(tables) * n_games, f"ladder {getattr(mod, '__name__', '')}")
    frames = []
    try:
        for table, block in tables.values():
            first = block * n_games if rotation == "across" else 0
            frames.append(play(mod, table, n_games, seed, rules, threads, first))
            bar.update(n_games)
    finally:
        bar.close()
    results = pl.concat(frames, how="vertical_relaxed")
    pairs = pl.DataFrame({"seating": ["|".join(policy_name(p) for p in t) for _, _, t in plan],
                          "rung": [a for a, _, _ in plan], "opponent": [b for _, b, _ in plan]})
    mat = win_rate_matrix(results, pairs, names, players)
    rat, steps = rung_ratings(results, names, mat)
    ranked = tuple(rat["rung"])
    curves = skill_curves(mat, names, reference)
    population = [n for n in ranked if n != BASELINE]
    variance = skill_variance(results, pairs, population if len(population) > 1 else ranked,
                              players, seed)
    return Ladder(getattr(mod, "__name__", str(mod)), players, names, ranked,
                  n_games, seed, rotation, results, mat, rat, x_chess(steps, players), curves,
                  variance, tuple(order_notes(rat, names, steps)))


def _check_rungs(mod: Any, agents: Sequence[Any]) -> list[Any]:
    if isinstance(agents, str) or not isinstance(agents, Sequence) or len(agents) < 2:
        raise ValueError(f"a ladder needs at least 2 rungs as a list, weakest first; got "
                         f"{agents!r}")
    names = [policy_name(a) for a in agents]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"each rung must appear once; {', '.join(map(repr, twice))} "
                         f"appears more than once in {names}")
    return check_policies(mod, agents, 2)


def win_rate_matrix(results: pl.DataFrame, pairs: pl.DataFrame, names: Sequence[str],
                    players: int) -> pl.DataFrame:
    """Per ordered pair: the win rate of ``rung`` holding one seat against P-1 ``opponent``
    over its P seatings (``win_rates``: win shares, clustered Wilson 95%, the game index the
    unit), beside the fair share 1/P. ``pairs``: seating label -> (rung, opponent); a seating
    may serve two pairs (2 players)."""
    rows = (results.lazy().join(pairs.lazy(), on="seating")
            .filter(pl.col("policy") == pl.col("rung")))
    order = {n: i for i, n in enumerate(names)}
    t = win_rates(rows, ["rung", "opponent"])
    return (t.with_columns(fair=pl.lit(1 / players))
            .sort(pl.col("rung").replace_strict(order), pl.col("opponent").replace_strict(order)))


def rung_ratings(results: pl.DataFrame, names: Sequence[str], mat: pl.DataFrame
                 ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Bradley-Terry rating per rung on finishing ahead, Elo scale, with its 95% bootstrap
    interval over game indices (``tournament.bt_bootstrap``), lowest-rated first (``declared``:
    the rung's place in ``names``; of the rungs the data cannot place, ``bt_flag``, those that
    never finished ahead first and the others last, in declared order); and per neighbouring
    pair of placed rungs in that order the rating difference (higher minus lower) with its
    interval from the same bootstrap replicates, beside the higher rung's win rate with one
    seat against P-1 of the lower (``mat``)."""
    policies, elo, boot, flag = bt_bootstrap(meetings(results))
    col = {p: i for i, p in enumerate(policies)}
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    placed = sorted((n for n in names if flag[col[n]] == ""), key=lambda n: elo[col[n]])
    order = ([n for n in names if flag[col[n]] == NEVER_AHEAD] + placed
             + [n for n in names if flag[col[n]] not in ("", NEVER_AHEAD)])
    rat = pl.DataFrame({"rung": order, "declared": [list(names).index(n) for n in order],
                        "bt_elo": [elo[col[n]] for n in order],
                        "bt_low": [low[col[n]] for n in order],
                        "bt_high": [high[col[n]] for n in order],
                        "bt_flag": [str(flag[col[n]]) for n in order]})
    rows = []
    for lo, hi in zip(placed, placed[1:]):
        d = boot[:, col[hi]] - boot[:, col[lo]]
        rows.append({"lower": lo, "higher": hi, "diff": elo[col[hi]] - elo[col[lo]],
                     "diff_low": float(np.percentile(d, 2.5)),
                     "diff_high": float(np.percentile(d, 97.5))})
    steps = pl.DataFrame(rows, schema={"lower": pl.String, "higher": pl.String,
                                       "diff": pl.Float64, "diff_low": pl.Float64,
                                       "diff_high": pl.Float64})
    h2h = mat.select(pl.col("rung").alias("higher"), pl.col("opponent").alias("lower"),
                     "games", "clusters", "win_rate", "ci_low", "ci_high")
    return rat, steps.join(h2h, on=["lower", "higher"], how="left", maintain_order="left")


def family_of(name: str) -> tuple[str, int] | None:
    """(family, budget) of a rung named ``<family>-<integer>``; None for any other name."""
    m = FAMILY.match(name)
    return (m["family"], int(m["budget"])) if m else None


def skill_curves(mat: pl.DataFrame, names: Sequence[str],
                 reference: str | None = None) -> pl.DataFrame:
    """Per family of rungs (``family_of``) and budget: the win rate of the family's rung with
    one seat against P-1 of the reference (``ladder``'s ``reference``), read off the matrix."""
    fams: dict[str, list[tuple[int, str]]] = {}
    for n in names:
        f = family_of(n)
        if f is not None:
            fams.setdefault(f[0], []).append((f[1], n))
    rows = []
    for fam, members in fams.items():
        inside = {n for _, n in members}
        ref = reference or next((n for n in reversed(names) if family_of(n) is None), None) \
            or next((n for n in reversed(names) if n not in inside), min(members)[1])
        for budget, n in sorted(members):
            if n != ref:
                rows.append({"family": fam, "budget": budget, "rung": n, "reference": ref})
    schema = {"family": pl.String, "budget": pl.Int64, "rung": pl.String, "reference": pl.String}
    want = pl.DataFrame(rows, schema=schema)
    return want.join(mat.rename({"opponent": "reference"}), on=["rung", "reference"],
                     how="left", maintain_order="left")


def x_chess(steps: pl.DataFrame, players: int) -> pl.DataFrame:
    """``steps`` with each pair's x%-chess weight, (w - 1/P) / (1 - 1/P) of the higher rung's
    head-to-head win rate w (Duersch, Lambrecht & Oechssler): the share of games a game that
    is won outright by the better player or else by a fair lottery would have to give the
    higher rung to match w (0: no more than 1/P; 1: it always wins); its interval is w's mapped
    through the same line. ``competent``: neither rung is ``BASELINE``, whose pairs only show
    that any policy beats a random one (near 1 in both games), so they never headline."""
    luck = 1 / players

    def weight(c: str) -> pl.Expr:
        return (pl.col(c) - luck) / (1 - luck)
    return steps.with_columns(
        x_chess=weight("win_rate"), x_chess_low=weight("ci_low"), x_chess_high=weight("ci_high"),
        competent=(pl.col("lower") != BASELINE) & (pl.col("higher") != BASELINE))


def skill_variance(results: pl.DataFrame, pairs: pl.DataFrame, population: Sequence[str],
                   players: int, seed: int, boot: int = BOOT) -> pl.DataFrame:
    """The share of outcome variance due to skill among the rungs of ``population``, as Getty
    et al. (SIAM Review 2018) measure it: the variance of true win probabilities over the
    observed variance of outcomes. Why this and not a pair's x%-chess: it answers "how much
    of what happens at these tables is who plays" for a whole population of policies, with 0
    for equal players whatever their number.

    The outcomes are every seat-game of the pairings among ``population`` (one seat A, P-1
    seats B, A rotated, so the seat advantage is luck, not skill). A seat's true win
    probability is its pairing's w for A and (1 - w)/(P - 1) for each B, so over these
    seat-games var(true p) = mean over pairings of (w - 1/P)^2 / (P - 1); each (w - 1/P)^2 is
    estimated without bias as the observed square less the rate's cluster-robust sampling
    variance. The observed variance is the win shares' own (1/P (1 - 1/P) without ties). The
    interval is the 2.5 and 97.5 percentiles of ``boot`` resamples of game indices (the unit:
    every seating of an index shares its chance), the estimate recomputed in each; estimate
    and bounds are clipped to [0, 1]."""
    pop = set(population)
    rows = (results.join(pairs, on="seating")
            .filter(pl.col("rung").is_in(pop) & pl.col("opponent").is_in(pop)))
    games = np.sort(rows["game"].unique().to_numpy())
    col = {g: i for i, g in enumerate(games)}
    a = (rows.filter(pl.col("policy") == pl.col("rung"))
         .group_by("rung", "opponent", "game").agg(y=pl.col("win").sum(), n=pl.len()))
    cell = a.select(pl.struct("rung", "opponent").rank("dense").alias("k") - 1)["k"].to_numpy()
    idx = np.array([col[g] for g in a["game"]])
    y, n = (np.zeros((cell.max() + 1, games.size)) for _ in range(2))
    y[cell, idx], n[cell, idx] = a["y"].to_numpy(), a["n"].to_numpy()
    o = rows.group_by("game").agg(q=(pl.col("win").cast(pl.Float64) ** 2).sum(), m=pl.len())
    q, m = np.zeros(games.size), np.zeros(games.size)
    q[[col[g] for g in o["game"]]], m[[col[g] for g in o["game"]]] = o["q"], o["m"]
    c = games.size
    rng = np.random.default_rng(seed)
    w = np.vstack([np.ones(c), rng.multinomial(c, np.full(c, 1 / c), size=boot)])
    sy, sn, syy, syn, snn = (w @ v.T for v in (y, n, y * y, y * n, n * n))   # [B, cells]
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sy / sn
        v = (c / (c - 1) if c > 1 else np.nan) * (syy - 2 * r * syn + r * r * snn) / sn ** 2
        true = np.mean((r - 1 / players) ** 2 - v, axis=1) / (players - 1)
        observed = (w @ q) / (w @ m) - 1 / players ** 2
        share = np.clip(true / observed, 0, 1)
    low, high = np.percentile(share[1:], [2.5, 97.5])
    return pl.DataFrame({"population": ", ".join(n for n in population), "cells": y.shape[0],
                         "clusters": c, "var_true": true[0], "var_observed": observed[0],
                         "share": share[0], "share_low": low, "share_high": high})


def order_notes(rat: pl.DataFrame, names: Sequence[str], steps: pl.DataFrame) -> list[str]:
    """Where the measured ratings do not climb as the rungs were declared (weakest first):
    each declared neighbouring pair whose later rung rates lower (the ladder is read in the
    rated order); each neighbouring pair by rating whose difference's interval holds 0 (the
    data do not tell them apart); and ratings the data cannot place (``bt_flag``)."""
    out = []
    r = {row["rung"]: row for row in rat.iter_rows(named=True)}
    for lo, hi in zip(names, names[1:], strict=False):
        if r[hi]["bt_elo"] < r[lo]["bt_elo"] and not (r[hi]["bt_flag"] or r[lo]["bt_flag"]):
            out.append(f"{hi} is declared stronger than {lo} but rates lower "
                       f"({r[hi]['bt_elo']:+.0f} against {r[lo]['bt_elo']:+.0f}): the ladder "
                       f"is read in the rated order")
    out += [f"{s['lower']} and {s['higher']} are not told apart by their ratings (difference "
            f"{s['diff']:+.0f} [{s['diff_low']:+.0f}, {s['diff_high']:+.0f}])"
            for s in steps.iter_rows(named=True) if s["diff_low"] <= 0]
    out += [f"{n}: {r[n]['bt_flag']}" for n in names if r[n]["bt_flag"]]
    return out


def wide(mat: pl.DataFrame, names: Sequence[str]) -> pl.DataFrame:
    """The matrix as rung rows by opponent columns, cells "rate [low, high]" in percent."""
    cell = display.rate_ci("win_rate", "ci_low", "ci_high")
    t = mat.with_columns(cell=cell).pivot("opponent", index="rung", values="cell")
    order = {n: i for i, n in enumerate(names)}
    t = t.sort(pl.col("rung").replace_strict(order))
    return t.select("rung", *[pl.col(n).fill_null("") if n in t.columns else pl.lit("").alias(n)
                              for n in names])
