"""What each thing that happens in a game does to who wins: by comparison of the games with and
without it (observational) or by replaying the same seeds without it (counterfactual)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from simcore import games as registry
from simcore.games import Variant

from .data import Frame, collect, columns, game_of, lazy, require, score_column
from .games import check_policies, game_module, policy_name
from .stats import (adjust_table, cluster_key, cluster_moments, difference, influence_se,
                    moments, paired_p, ratio_influence, t_interval, two_sided_p)


@dataclass(frozen=True)
class Thing:
    """Something that happens to a game or a seat, and the expression that says it did."""

    kind: str          # event, enchanted, item, trap, character, found
    name: str
    seat_level: bool   # True: happens to one seat (compare seat-games); False: to the whole game
    present: pl.Expr


def things(df: Frame) -> list[Thing]:
    """The things of the results' game, read off its columns as the game declares them
    (``simcore.games.Things``): e.g. event cards and enchanted roles, or items, traps,
    characters and being found at least k times (k the quartiles of times found: most players
    are found at least once)."""
    lf = lazy(df)
    names = columns(lf)
    out: list[Thing] = []
    for t in game_of(lf).things:
        if t.how == "prefix":
            out += [Thing(t.kind, c[len(t.column):], t.seat_level, pl.col(c) > 0)
                    for c in names if c.startswith(t.column)]
        elif t.column not in names:
            continue
        elif t.how == "value":
            col = pl.col(t.column).cast(pl.String)
            values = collect(lf.select(col.unique()))[t.column]
            out += [Thing(t.kind, v, t.seat_level, col == v) for v in sorted(values.drop_nulls())]
        else:
            q = collect(lf.select(pl.col(t.column).quantile(x, "higher").alias(str(x))
                                  for x in (0.25, 0.5, 0.75))).row(0)
            out += [Thing(t.kind, f"{int(k)}+ times", t.seat_level, pl.col(t.column) >= k)
                    for k in sorted({max(1, int(v)) for v in q if v is not None})]
    return out


def event_impact(df: Frame, by: str | None = "auto", score: str | None = None,
                 adjust: str = "holm") -> pl.DataFrame:
    """One row per thing (and group): seat-games with and without it, the difference in win
    rate and in mean score (with - without) with 95% cluster-robust t(C - 1) intervals, and
    two-sided p-values adjusted as one family: every p-value of the table, win and score
    together (``p_win_adj``, ``p_score_adj``; ``adjust``: ``"holm"`` or ``"bh"``).

    The unit is the cluster (``stats.cluster_key``: the game index). An event card is the same
    in every seating of a tournament's game index, and a seat's character or item is in the
    same game as the other seats' wins, so seat-games are not independent; ``clusters`` counts
    the units of each group.

    A game-level thing (an event card, an enchanted role) changes every seat's game, and the
    win shares of a game always sum to 1, so its win-rate effect only shows per seat or per
    policy: ``by="auto"`` groups those by ``policy`` when several policies played, else by
    ``seat``. Seat-level things (items, traps, characters, being found) compare the
    seat-games that had it with those that did not, over all rows (``by`` groups them too
    when it names a column). Rows where the thing happened always or never are left out.
    This is association, not cause: a player who uses the lamp may be
    one who was winning anyway; ``counterfactual_impact`` measures cause.
    """
    lf = lazy(df)
    score = score_column(lf, score)
    require(lf, ["win", "policy", "seat"])
    found = things(lf)
    if not found:
        raise ValueError("event_impact: the results have no event, role, item, trap or "
                         "character columns")
    if by == "auto":
        n_pol = collect(lf.select(pl.col("policy").n_unique()))[0, 0]
        game_by, seat_by = ("policy" if n_pol > 1 else "seat"), None
    else:
        if by is not None:
            require(lf, [by])
        game_by = seat_by = by
    parts = []
    for seat_level, group in ((False, game_by), (True, seat_by)):
        chosen = [t for t in found if t.seat_level == seat_level]
        if chosen:
            parts.append(_compare_with_without(lf, chosen, group, score))
    # a thing that happened in every seat-game of a group, or in none, compares nothing
    t = pl.concat(parts, how="vertical").filter((pl.col("games_with") > 0)
                                                 & (pl.col("games_without") > 0))
    return adjust_table(t, ["p_win", "p_score"], adjust)


def _compare_with_without(lf: pl.LazyFrame, chosen: list[Thing], group: str | None,
                          score: str) -> pl.DataFrame:
    """One pass over the data: per group, the cluster moments with and without each thing."""
    win = pl.col("win").cast(pl.Float64)
    sc = pl.col(score).cast(pl.Float64)
    values = {"n": pl.len(), "w": win.sum(), "s": sc.sum()}
    products = [("n", "n"), ("n", "w"), ("w", "w"), ("n", "s"), ("s", "s")]
    for i, t in enumerate(chosen):
        m = t.present.cast(pl.Float64)
        values |= {f"n{i}": m.sum(), f"w{i}": (win * m).sum(), f"s{i}": (sc * m).sum()}
        for key in ("w", "s"):
            products += [(a, b) for j, a in enumerate((f"{key}{i}", f"n{i}", key, "n"))
                         for b in (f"{key}{i}", f"n{i}", key, "n")[j:]]
    if group is None:
        lf = lf.with_columns(group=pl.lit("all"))
    else:
        lf = lf.with_columns(pl.col(group).cast(pl.String).alias("group"))
    sums = cluster_moments(lf, ["group"], values, products)
    out = {"kind": [], "thing": [], "by": [], "group": []}
    parts = []
    for i, t in enumerate(chosen):
        out["kind"] += [t.kind] * sums.height
        out["thing"] += [t.name] * sums.height
        out["by"] += [group or "all"] * sums.height
        out["group"] += sums["group"].to_list()
        parts.append(_difference(sums, str(i)))
    return pl.DataFrame(out).hstack(pl.concat(parts, how="vertical"))


MIN_GROUP = 30
"""Fewest seat-games on each side for a p-value: below it the normal approximation fails
and the row gets no p-value (NaN), so it cannot be flagged by chance."""


def _difference(sums: pl.DataFrame, i: str) -> pl.DataFrame:
    """With minus without, for win share and score, per group: cluster-robust interval around
    each side's own mean, p-value from the variance at the pooled mean (``stats.difference``)."""
    n1 = sums["n" + i].to_numpy()
    n0 = sums["n"].to_numpy() - n1
    out: dict = {"games_with": n1.astype(np.int64), "games_without": n0.astype(np.int64),
                 "clusters": sums["clusters"].cast(pl.Int64)}
    for key, label in (("w", "win"), ("s", "score")):
        c, t, m = moments(sums, [key + i, "n" + i, key, "n"])
        diff, se, se0 = difference(c, t, m)
        low, high = t_interval(diff, se, c, (-1, 1) if key == "w" else (-np.inf, np.inf))
        with np.errstate(invalid="ignore", divide="ignore"):
            out |= {f"{label}_with": t[:, 0] / n1, f"{label}_without": (t[:, 2] - t[:, 0]) / n0,
                    f"{label}_diff": diff, f"{label}_ci_low": low, f"{label}_ci_high": high,
                    f"p_{label}": np.where((np.minimum(n1, n0) >= MIN_GROUP) & (se0 > 0),
                                           two_sided_p(diff / se0, c - 1), np.nan)}
    return pl.DataFrame(out)



def paired_impact(df: Frame, a: str, b: str, column: str = "variant",
                  score: str | None = None) -> pl.DataFrame:
    """Each thing's impact (as ``event_impact``: seat-games with it minus without it, in win
    share and in score) under rules ``b`` minus under rules ``a``, where both played the same
    game indices (``column`` names the rules of each row, e.g. a sweep's ``variant``).

    Rows per thing, group (game-level things by ``policy`` when several played, else by ``seat``;
    seat-level things over all rows, group ``all``) and measure (``win``, ``score``): ``games``
    (game indices), ``a`` and ``b`` (the impact under each), ``diff`` (b - a) with a paired 95%
    t(C - 1) interval and a two-sided ``p`` (``stats.paired_p``). Paired: each impact is a
    smooth function of per-game-index sums, so its error is the sum of each game index's
    influence (its linearisation); the difference's variance is the cluster-robust (CR1)
    variance of the difference of the two influences, game index by game index, so the luck the
    two rules share on a game index cancels. A thing that happened always or never under either
    rules is left out; a p-value needs ``MIN_GROUP`` seat-games with and without it under
    both."""
    lf = lazy(df)
    score = score_column(lf, score)
    require(lf, ["win", "policy", "seat", column])
    found = things(lf)
    key = cluster_key(lf)
    n_pol = collect(lf.select(pl.col("policy").n_unique()))[0, 0]
    win, sc = pl.col("win").cast(pl.Float64), pl.col(score).cast(pl.Float64)
    rows = []
    for seat_level, by in ((False, "policy" if n_pol > 1 else "seat"), (True, None)):
        chosen = [t for t in found if t.seat_level == seat_level]
        if not chosen:
            continue
        values = with_without_sums(chosen, win, sc)
        group = pl.lit("all") if by is None else pl.col(by).cast(pl.String)
        per = collect(lf.filter(pl.col(column).is_in([a, b])).group_by(
            pl.col(column).cast(pl.String).alias("_rules"), group.alias("group"), *key
        ).agg(**{n: e.cast(pl.Float64) for n, e in values.items()}))
        for (g,), part in per.sort("group").group_by(["group"], maintain_order=True):
            both = (part.filter(pl.col("_rules") == a).drop("_rules")
                    .join(part.filter(pl.col("_rules") == b).drop("_rules"), on=["group", *key],
                          how="full", coalesce=True, suffix="_b").fill_null(0.0))
            sides = {r: {n: both[n + suffix].to_numpy() for n in values}
                     for r, suffix in ((a, ""), (b, "_b"))}
            for i, t in enumerate(chosen):
                for measure in ("win", "score"):
                    est = {r: impact_influence(x[measure + str(i)], x[f"n{i}"], x[measure],
                                                x["n"]) for r, x in sides.items()}
                    if any(e is None for e in est.values()):
                        continue
                    (da, psi_a, small_a), (db, psi_b, small_b) = est[a], est[b]
                    c = both.height
                    se = influence_se(psi_b - psi_a)
                    diff = db - da
                    p = np.nan if small_a or small_b else paired_p(diff, se, c)
                    low, high = t_interval(diff, se, c)
                    rows.append({"kind": t.kind, "thing": t.name, "by": by or "all", "group": g,
                                 "measure": measure, "games": c, "a": da, "b": db,
                                 "diff": diff, "ci_low": low, "ci_high": high, "p": p})
    return pl.DataFrame(rows, schema={"kind": pl.String, "thing": pl.String, "by": pl.String,
                                      "group": pl.String, "measure": pl.String,
                                      "games": pl.Int64, "a": pl.Float64, "b": pl.Float64,
                                      "diff": pl.Float64, "ci_low": pl.Float64,
                                      "ci_high": pl.Float64, "p": pl.Float64})


def impact_influence(y1: np.ndarray, n1: np.ndarray, y: np.ndarray, n: np.ndarray):
    """With minus without (y1/n1 - y0/n0 over the sums of per-game-index totals) and each game
    index's influence on it, and whether a side has fewer than ``MIN_GROUP`` seat-games;
    None when one side is empty."""
    with_, without = ratio_influence(y1, n1), ratio_influence(y - y1, n - n1)
    if with_ is None or without is None:
        return None
    return (with_[0] - without[0], with_[1] - without[1],
            min(n1.sum(), (n - n1).sum()) < MIN_GROUP)


def with_without_sums(chosen: Sequence[Thing], win: pl.Expr,
                      score: pl.Expr | None = None) -> dict[str, pl.Expr]:
    """The per-cluster totals a with/without comparison is made of: seat-games ``n``, win shares
    ``win`` (and ``score``), and with each thing ``i`` of ``chosen`` ``n{i}``, ``win{i}``
    (``score{i}``)."""
    values = {"n": pl.len(), "win": win.sum()}
    for i, t in enumerate(chosen):
        m = t.present.cast(pl.Float64)
        values |= {f"n{i}": m.sum(), f"win{i}": (win * m).sum()}
    if score is not None:
        values |= {"score": score.sum()} | {f"score{i}": (score * t.present.cast(pl.Float64)).sum()
                                           for i, t in enumerate(chosen)}
    return values


EVENT_MODES = ("replace", "remove", "both")


def switch_offs(game: Any, rules: Any = None, players: int | None = None,
                events: str = "replace") -> list[Variant]:
    """Every thing the game's public rules data can switch off, as rules variants, as the game
    declares them (``simcore.games.Game.switch_offs``; e.g. an item's tiles become plain
    treasures, a character leaves the roster). ``players``: the seats the variants are for
    (some things exist only at some player counts). ``events``: how a card drawn from a deck is
    switched off where the game has such cards: ``"replace"`` puts a card with no effect in its
    place, so every draw of every game stays as it was and the row measures the same games
    minus the card; ``"remove"`` takes it out of the deck, so the draws change and the row
    compares the deck with and without it; ``"both"`` gives both rows (column ``change`` says
    which)."""
    mod = game_module(game)
    spec = registry.of_module(mod)
    if spec is None or spec.switch_offs is None:
        raise ValueError(f"no switch-offs known for {getattr(mod, '__name__', mod)!r}; pass "
                         f"variants=[...] explicitly")
    if events not in EVENT_MODES:
        raise ValueError(f"events must be one of {list(EVENT_MODES)}, got {events!r}")
    return spec.switch_offs(mod.load_rules() if rules is None else rules, players, events)


def replayed_per_game(base: pl.DataFrame, off: pl.DataFrame, group: str, score: str
                      ) -> pl.DataFrame:
    """Per group (a ``group`` column's value) and game index: the mean win share and score with
    the rules as they are (``base``) and replayed with a thing switched off (``off``), seats
    matched; a policy seated twice is averaged within the game."""
    return (base.join(off, on=["game", "seat"], suffix="_off")
            .group_by(pl.col(group).cast(pl.String).alias("group"), "game")
            .agg(win=pl.col("win").cast(pl.Float64).mean(),
                 win_off=pl.col("win_off").cast(pl.Float64).mean(),
                 score=pl.col(score).cast(pl.Float64).mean(),
                 score_off=pl.col(f"{score}_off").cast(pl.Float64).mean()))


def counterfactual_impact(game: Any, policies: Sequence[Any], n_games: int, seed: int, *,
                          rules: Any = None, variants: Sequence[Variant] | None = None,
                          score: str | None = None, adjust: str = "holm",
                          base: pl.DataFrame | None = None,
                          events: str = "replace") -> pl.DataFrame:
    """The counterfactual mode of ``event_impact``: play ``n_games`` games of ``seed`` with
    the rules as they are and again with each thing switched off (``variants``, default
    ``switch_offs(game, rules, len(policies), events)``: event cards replaced in place by a
    card with no effect unless ``events`` says otherwise), and measure with minus without on
    the same games.

    Rows per thing and group (``policy`` when several policies play, else ``seat``); the unit
    is the game index (a policy seated twice is averaged within the game first), intervals
    95% t(C - 1), p-values adjusted as one family (every p-value of the table, win and score).
    Needs the game's ``simulate`` to accept ``rules=``. ``base``: these games with the rules
    as they are, when already played (the balance job takes them from its tournament), so
    they are not played again.
    """
    mod = game_module(game)
    names = [policy_name(p) for p in check_policies(mod, policies, 1, distinct=False)]
    chosen = (switch_offs(mod, rules, len(names), events) if variants is None
              else list(variants))
    if not chosen:
        raise ValueError("counterfactual_impact: nothing to switch off")
    group = "policy" if len(set(names)) > 1 else "seat"
    kwargs = {} if rules is None else {"rules": rules}
    if base is None:
        base = mod.simulate(list(policies), n_games, seed, progress=False, **kwargs)
    elif base.height != n_games * len(names) or base["game"].max() != n_games - 1:
        raise ValueError(f"counterfactual_impact: base must hold games 0..{n_games - 1} at "
                         f"{len(names)} seats, got {base.height} rows")
    score = score_column(base.lazy(), score)
    keep = ["game", "seat", pl.col("policy").cast(pl.String), "win", score]
    base = base.select(keep)
    rows = []
    for kind, thing, change, variant in chosen:
        off = mod.simulate(list(policies), n_games, seed, rules=variant,
                           progress=False).select(keep)
        per_game = replayed_per_game(base, off, group, score)
        for (g,), part in per_game.sort("group", "game").group_by(["group"], maintain_order=True):
            row = {"kind": kind, "thing": thing, "change": change, "by": group, "group": g,
                   "games": part.height}
            for key in ("win", "score"):
                with_, without = part[key].to_numpy(), part[f"{key}_off"].to_numpy()
                d = with_ - without
                se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
                low, high = t_interval(d.mean(), se, d.size)
                row |= {f"{key}_with": with_.mean(), f"{key}_without": without.mean(),
                        f"{key}_diff": d.mean(), f"{key}_ci_low": low, f"{key}_ci_high": high,
                        f"p_{key}": paired_p(d.mean(), se, d.size)}
            rows.append(row)
    return adjust_table(pl.DataFrame(rows), ["p_win", "p_score"], adjust)
