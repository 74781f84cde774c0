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
from .stats import Z95, adjust_pvalues, mean_interval, two_sided_p


@dataclass(frozen=True)
class Thing:
    """Something that happens to a game or a seat, and the expression that says it did."""

    kind: str          # event, enchanted, item, trap, character, found
    name: str
    seat_level: bool   # True: happens to one seat (compare seat-games); False: to the whole game
    present: pl.Expr


def things(df: Frame) -> list[Thing]:
    """The things of the results' game, read off its columns as the game declares them
    (``simcore.games.Things``): e.g. Broom Service's event cards and enchanted roles, the Lapin
    game's items, traps, characters and being found at least k times (k the quartiles of times
    found: most players are found at least once)."""
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
    rate and in mean score (with - without) with 95% normal intervals, and two-sided p-values
    adjusted over all rows (``adjust``: ``"holm"`` or ``"bh"``).

    A game-level thing (an event card, an enchanted role) changes every seat's game, and the
    win shares of a game always sum to 1, so its win-rate effect only shows per seat or per
    policy: ``by="auto"`` groups those by ``policy`` when several policies played, else by
    ``seat``. Seat-level things (rapinsim items, traps, characters, being found) compare the
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
    for col in ("p_win", "p_score"):
        t = t.with_columns(pl.Series(f"{col}_adj", adjust_pvalues(t[col].to_numpy(), adjust)))
    return t


def _compare_with_without(lf: pl.LazyFrame, chosen: list[Thing], group: str | None,
                          score: str) -> pl.DataFrame:
    """One pass over the data: per group, sums with and without each thing."""
    win = pl.col("win").cast(pl.Float64)
    sc = pl.col(score).cast(pl.Float64)
    aggs = [pl.len().cast(pl.Float64).alias("n"), win.sum().alias("w"),
            (win * win).sum().alias("ww"), sc.sum().alias("s"), (sc * sc).sum().alias("ss")]
    for i, t in enumerate(chosen):
        m = t.present.cast(pl.Float64)
        aggs += [m.sum().alias(f"n{i}"), (win * m).sum().alias(f"w{i}"),
                 (win * win * m).sum().alias(f"ww{i}"), (sc * m).sum().alias(f"s{i}"),
                 (sc * sc * m).sum().alias(f"ss{i}")]
    if group is None:
        sums = collect(lf.select(aggs)).with_columns(group=pl.lit("all"))
    else:
        sums = collect(lf.group_by(pl.col(group).cast(pl.String).alias("group")).agg(aggs))
    sums = sums.sort("group")
    rows = []
    for r in sums.iter_rows(named=True):
        for i, t in enumerate(chosen):
            rows.append({"kind": t.kind, "thing": t.name, "by": group or "all",
                         "group": r["group"], **_difference(r, str(i))})
    return pl.DataFrame(rows)


MIN_GROUP = 30
"""Fewest seat-games on each side for a p-value: below it the normal approximation fails
and the row gets no p-value (NaN), so it cannot be flagged by chance."""


def _difference(r: dict, i: str) -> dict:
    """With minus without, for win share and score, from the running sums of one group. The
    interval uses each side's own variance; the p-value the pooled variance of the group
    (the variance under "no difference", which stays sound when one side is small)."""
    n1, n0 = r["n" + i], r["n"] - r["n" + i]
    out: dict = {"games_with": int(n1), "games_without": int(n0)}
    for key, label in (("w", "win"), ("s", "score")):
        m1, se1, _, _ = mean_interval(r[key + i], r[key + key + i], n1)
        m0, se0, _, _ = mean_interval(r[key] - r[key + i], r[key + key] - r[key + key + i], n0)
        _, se_all, _, _ = mean_interval(r[key], r[key + key], r["n"])
        diff = float(m1 - m0)
        se = float(np.sqrt(se1 ** 2 + se0 ** 2))
        pooled = float(se_all * np.sqrt(r["n"] * (1 / n1 + 1 / n0))) if min(n1, n0) > 0 else 0.0
        out |= {f"{label}_with": float(m1), f"{label}_without": float(m0),
                f"{label}_diff": diff, f"{label}_ci_low": diff - Z95 * se,
                f"{label}_ci_high": diff + Z95 * se,
                f"p_{label}": (float(two_sided_p(diff / pooled))
                               if min(n1, n0) >= MIN_GROUP and pooled > 0 else np.nan)}
    return out



def switch_offs(game: Any, rules: Any = None, players: int | None = None) -> list[Variant]:
    """Every thing the game's public rules data can switch off, as rules variants, as the game
    declares them (``simcore.games.Game.switch_offs``; e.g. an event card leaves the deck, an
    item's tiles become plain treasures). ``players``: the seats the variants are for (some
    things exist only at some player counts)."""
    mod = game_module(game)
    spec = registry.of_module(mod)
    if spec is None or spec.switch_offs is None:
        raise ValueError(f"no switch-offs known for {getattr(mod, '__name__', mod)!r}; pass "
                         f"variants=[...] explicitly")
    return spec.switch_offs(mod.load_rules() if rules is None else rules, players)


def counterfactual_impact(game: Any, policies: Sequence[Any], n_games: int, seed: int, *,
                          rules: Any = None, variants: Sequence[Variant] | None = None,
                          score: str | None = None, adjust: str = "holm",
                          base: pl.DataFrame | None = None) -> pl.DataFrame:
    """The counterfactual mode of ``event_impact``: play ``n_games`` games of ``seed`` with
    the rules as they are and again with each thing switched off (``variants``, default
    ``switch_offs(game, rules, len(policies))``), and measure with minus without on the same
    games.

    Rows per thing and group (``policy`` when several policies play, else ``seat``); the unit
    is the game index (a policy seated twice is averaged within the game first), intervals
    95% normal, p-values adjusted over all rows. Needs the game's ``simulate`` to accept
    ``rules=``. ``base``: these games with the rules as they are, when already played (the
    balance job takes them from its tournament), so they are not played again.
    """
    mod = game_module(game)
    names = [policy_name(p) for p in check_policies(mod, policies, 1, distinct=False)]
    chosen = switch_offs(mod, rules, len(names)) if variants is None else list(variants)
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
        per_game = (base.join(off, on=["game", "seat"], suffix="_off")
                    .group_by(pl.col(group).cast(pl.String).alias("group"), "game")
                    .agg(win=pl.col("win").cast(pl.Float64).mean(),
                         win_off=pl.col("win_off").cast(pl.Float64).mean(),
                         score=pl.col(score).cast(pl.Float64).mean(),
                         score_off=pl.col(f"{score}_off").cast(pl.Float64).mean()))
        for (g,), part in per_game.sort("group", "game").group_by(["group"], maintain_order=True):
            row = {"kind": kind, "thing": thing, "change": change, "by": group, "group": g,
                   "games": part.height}
            for key in ("win", "score"):
                with_, without = part[key].to_numpy(), part[f"{key}_off"].to_numpy()
                d = with_ - without
                se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else np.nan
                row |= {f"{key}_with": with_.mean(), f"{key}_without": without.mean(),
                        f"{key}_diff": d.mean(), f"{key}_ci_low": d.mean() - Z95 * se,
                        f"{key}_ci_high": d.mean() + Z95 * se,
                        f"p_{key}": float(two_sided_p(d.mean() / se)) if se > 0 else np.nan}
            rows.append(row)
    t = pl.DataFrame(rows)
    for col in ("p_win", "p_score"):
        t = t.with_columns(pl.Series(f"{col}_adj", adjust_pvalues(t[col].to_numpy(), adjust)))
    return t
