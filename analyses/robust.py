"""Verdicts tagged with the assumptions they rest on.

Where the seeds are silent or ambiguous the rules data fills the gap (a provenance entry tagged
gap, reading or invention, ``simcore.provenance``), so a balance verdict measured under the
default rules may be a verdict about the guess. Here every verdict is measured again under each
**alternative**: another reading of one tagged entry (a game declares its own,
``Game.alternatives``; a user gives rules files or value mappings). The defaults and every
alternative play the same game indices of one seed in every rotation of one table of policies
(``analyses.sweep``, as ``analyses.diff`` plays its two rules sets), so a verdict's change
under an alternative is paired game index by game index (``skill.difference_se``; the unit is
the game index).

The verdicts: each seat's and each policy's win rate against its fair share 1/P, each thing's
win rate with minus without (``skill.rung_verdicts``; a game-level thing per seat and, at a
table of several policies, per policy) and each designer metric
(``metrics.per_game``; how often the leader after round k wins, for the rounds at least half
the game indices reach); with ``causal_games``, also each thing's causal effect on each
group's win rate, replayed on the same games without it (as
``event_impact.counterfactual_impact``: the switch-offs of each rules set, on games
``0..causal_games-1`` of the table's first seating), paired game index by game index under
the defaults and each alternative. A verdict

- **depends on** an alternative where the paired test of its change under it rejects (the
  p-value Holm-adjusted over every verdict x alternative is below ``ALPHA``) and the change is
  not shown negligible, or where it cannot be measured under it (the alternative takes its
  thing out of the game);
- is **robust** where its change under every alternative is shown negligible (even where it
  differs from 0: it is smaller than the margin, as a verdict reads negligible at a rung of
  ``analyses.skill``): an equivalence
  test (TOST at ``ALPHA``) within -/+ the margin (``MARGIN`` of win rate, and of a designer
  metric that is a share of games; ``DESIGN_MARGIN`` of the default's value for one that
  counts, such as the length). Every alternative must pass its own test (an
  intersection-union test, so the level stays ``ALPHA``);
- is otherwise **undetermined**: neither shown; the largest minimum detectable effect (MDE)
  of its changes says what could go unseen.

Its status under each rules set (holds / negligible / undetermined, ``skill.judge``, Holm over
every verdict under every rules set) is shown beside; a status that differs without a tested
change moves nothing, as between the rungs of ``analyses.skill``.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
import polars as pl

from simcore import games

from .event_impact import replayed_per_game, switch_offs
from .games import game_module, game_spec
from .metrics import numbers, per_game
from .skill import (ALPHA, COLUMNS, MARGIN, Rung, difference_se, judge, policy_verdict,
                    rung_verdicts)
from .stats import (adjust_pvalues, detectable, equivalence_p, paired_p, ratio_influence,
                    t95, t_interval)
from .sweep import Variant, seatings, sweep, variants_of

ROBUST_GAMES = 10_000
"""Default game indices per seating (every rules set plays each seating of the table)."""
DESIGN_MARGIN = 0.05
"""Equivalence margin of a designer metric that counts (length, margin, lead changes): this
share of its value under the defaults."""
DEFAULT = "default"
CAUSAL = "causal"
"""The kind of a verdict on a thing's causal effect (replayed without it)."""
ROBUST, DEPENDS, UNDETERMINED = "robust", "depends on", "undetermined"


@dataclass(frozen=True)
class Robustness:
    """One game's verdicts under its default rules and each alternative.

    ``margin``: the equivalence margin of win rates; ``alternatives``: (name, the provenance
    key it tests, "" for a user's); ``untested``: (name, why) for each declared alternative
    that cannot be played at ``players`` seats; ``table``: each win-rate verdict under each
    rules set (``skill.judge``, column ``rung`` the rules set); ``changes``: one row per
    verdict and alternative (``diff`` = under the alternative minus under the defaults,
    ``ci_low``/``ci_high``, ``p``, ``p_adj``, ``p_equiv``, ``mde``, ``margin``, ``percent``
    (a share: shown in percentage points), ``absent``, ``depends``, ``negligible``);
    ``summary``: one row per verdict with its ``estimate`` and ``status`` under the defaults,
    its ``tag`` and ``mde`` (the largest of its changes')."""

    game: str
    policies: tuple[str, ...]
    players: int
    n_games: int
    seed: int
    margin: float
    alternatives: tuple[tuple[str, str], ...]
    untested: tuple[tuple[str, str], ...]
    table: pl.DataFrame
    changes: pl.DataFrame
    summary: pl.DataFrame

    def tag(self, *verdicts: str) -> str | None:
        """The assumption tag of a verdict, or of several together (a headline about a thing
        measured per seat): depends on every alternative any of them depends on, robust where
        all are, else undetermined; None where none was measured."""
        hit = self.summary.filter(pl.col("verdict").is_in(verdicts))
        if hit.height < 2:
            return None if hit.is_empty() else hit["tag"][0]
        on = list(dict.fromkeys(a for d in hit["depends"] for a in d))
        if on:
            return f"{DEPENDS}: " + ", ".join(on)
        tags = set(hit["tag"])
        return tags.pop() if len(tags) == 1 else UNDETERMINED

    def thing_tag(self, label: str, thing: str) -> str | None:
        """The tag of every verdict about one thing (``label`` its kind's label)."""
        mine = [v for v in self.summary["verdict"] if v.startswith(f"{label} {thing}: ")]
        return self.tag(*mine)

    def policy_verdict(self, policy: str) -> str:
        """The name of a policy's verdict (its win rate against 1/P at the table)."""
        return f"{policy}: win rate - 1/{self.players}"


def alternatives_of(game: Any, alternatives: Any = None) -> list[tuple[Variant, str]]:
    """The variants to measure and the provenance key each tests: the game's declared
    alternatives (``alternatives`` None), or the user's: a rules file, a mapping of values, or
    a list of them (``sweep.variants_of``; their key is "")."""
    spec = game_spec(game)
    if alternatives is None:
        if not spec.alternatives:
            raise ValueError(f"{spec.name} declares no alternatives (Game.alternatives); give "
                             f"rules files or value mappings")
        return [(_declared(spec, a), a.tests) for a in spec.alternatives]
    if isinstance(alternatives, (str, os.PathLike, Mapping)):
        alternatives = [alternatives]
    found = [(v, "") for v in variants_of(alternatives)]
    if any(v.label == DEFAULT for v, _ in found):
        raise ValueError(f"alternatives: the label {DEFAULT!r} names the default rules; "
                         f"rename that file")
    return found


def _declared(spec: games.Game, a: games.Alternative) -> Variant:
    text = (resources.files(spec.name).joinpath(a.file).read_text(encoding="utf-8")
            if a.file else None)
    return Variant(a.name, text, ".json", dict(a.changes), f"{spec.name}/{a.file}")


def robustness(game: Any, alternatives: Any = None, policies: Sequence[str] | None = None,
               players: int = 4, games: int = ROBUST_GAMES, seed: int = 0, *,
               margin: float = MARGIN, scheduler: Any = "inprocess",
               causal_games: int = 0) -> Robustness:
    """Measure every verdict under the default rules and under each alternative (module
    docstring) on games ``0..games-1`` of ``seed`` in every rotation of the table
    ``policies`` (default: the built-in policies in name order, repeated or cut to
    ``players`` seats, as ``sweep`` seats them). ``alternatives``: None (the game's declared
    ones; one that cannot be played at ``players`` seats is reported as untested), or a rules
    file, a mapping of values or a list of them (each must be playable). ``margin``: the
    equivalence margin in win rate. ``causal_games``: game indices on which each thing's
    causal effect is replayed under every rules set (0: not measured). Bad input (an unknown
    rules key, a malformed value, a missing file) raises a ``ValueError`` naming it before
    anything is played."""
    spec, mod = game_spec(game), game_module(game)
    if not 0 < margin < 1:
        raise ValueError(f"margin must be a win-rate difference between 0 and 1, got {margin!r}")
    if isinstance(causal_games, bool) or not isinstance(causal_games, int) or causal_games < 0:
        raise ValueError(f"causal_games must be a whole number >= 0, got {causal_games!r}")
    policies = list(policies or sorted(mod.POLICIES))
    table = seatings(policies, players)[0]
    if why := _unplayable(mod, Variant(DEFAULT), table, seed):
        raise ValueError(why)               # the table itself (a policy, the seat count)
    chosen, untested = [], []
    for variant, key in alternatives_of(game, alternatives):
        why = _unplayable(mod, variant, table, seed)
        if why and key:
            untested.append((variant.label, why))
        elif why:
            raise ValueError(f"alternative {variant.label!r}: {why}")
        else:
            chosen.append((variant, key))
    if not chosen:
        raise ValueError(f"no alternative can be played at {players} seats: "
                         + "; ".join(f"{n}: {w}" for n, w in untested))
    df = sweep(spec.name, [Variant(DEFAULT)] + [v for v, _ in chosen], policies, players,
               games, seed, scheduler=scheduler)
    labels = [DEFAULT] + [v.label for v, _ in chosen]
    rules = {DEFAULT: None} | {v.label: v.rules(mod) for v, _ in chosen}
    parts = {v: _measure(_own(df, v), v, spec, table,
                         _causal(mod, spec, rules[v], v, table, causal_games, seed))
             for v in labels}
    verdicts, _ = judge([parts[v][0] for v in labels], labels, margin=margin)
    changes = _changes(parts, labels, margin, numbers(spec))
    return Robustness(spec.name, tuple(table), players, games, seed, margin,
                      tuple((v.label, k) for v, k in chosen), tuple(untested), verdicts,
                      changes, _summary(verdicts, changes, untested))


def _unplayable(mod: Any, variant: Variant, table: Sequence[str], seed: int) -> str:
    """Why the variant's rules cannot seat ``table`` ("" if they can): a bad rules value is
    an error, not a reason."""
    rules = variant.rules(mod)
    try:
        mod.simulate(list(table), 1, seed, rules=rules, progress=False)
    except ValueError as e:
        return str(e).splitlines()[0]
    return ""


def _own(df: pl.DataFrame, label: str) -> pl.DataFrame:
    """One rules set's rows, without the columns only other rules sets' results have."""
    mine = df.filter(pl.col("variant") == label)
    return mine.select(c for c in mine.columns if mine[c].null_count() < mine.height)


Levels = dict[str, tuple[float, np.ndarray, np.ndarray]]


def _causal(mod: Any, spec: games.Game, rules: Any, label: str, table: Sequence[str],
            n_games: int, seed: int) -> Rung | None:
    """One rules set's causal verdicts: each switch-off of these rules (``switch_offs``) replayed
    on games ``0..n_games-1`` of ``seed`` at the table, the group's win share with minus
    without it per game index (as ``counterfactual_impact``: groups by policy where several
    play, else by seat); None where ``n_games`` is 0."""
    if not n_games:
        return None
    rules = mod.load_rules() if rules is None else rules
    labels = {t.kind: t.label or t.kind for t in spec.things}
    by = "policy" if len(set(table)) > 1 else "seat"
    keep = ["game", "seat", pl.col("policy").cast(pl.String), "win", spec.score]
    base = mod.simulate(list(table), n_games, seed, rules=rules, progress=False).select(keep)
    rows, influence = [], {}
    for kind, thing, _, variant in switch_offs(mod, rules, len(table)):
        off = mod.simulate(list(table), n_games, seed, rules=variant,
                           progress=False).select(keep)
        per = replayed_per_game(base, off, by, spec.score).sort("group", "game")
        for (g,), part in per.group_by(["group"], maintain_order=True):
            d = (part["win"] - part["win_off"]).to_numpy()
            est = float(d.mean())
            se = float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else np.nan
            low, high = t_interval(est, se, d.size)
            verdict = (f"{labels.get(kind, kind)} {thing}: win rate replayed without it, "
                       f"with - without ({by} {g})")
            rows.append({"verdict": verdict, "kind": CAUSAL, "rung": label, "estimate": est,
                         "ci_low": low, "ci_high": high, "p": paired_p(est, se, d.size)})
            influence[verdict] = (part["game"].to_numpy(), (d - est) / d.size)
    return Rung(label, pl.DataFrame(rows, schema=COLUMNS), influence)


def _measure(df: pl.DataFrame, label: str, spec: games.Game, table: Sequence[str],
             causal: Rung | None = None) -> tuple[Rung, Levels]:
    """One rules set's win-rate verdicts (seats, things, policies, and the ``causal`` ones
    where measured) and its designer metrics (name -> (mean, game indices, influences))."""
    parts = [rung_verdicts(df, label)] + ([causal] if causal is not None else [])
    if len(set(table)) > 1:         # game-level things per policy too: an effect that helps
        mixed = rung_verdicts(df, label, game_by="policy")   # one and hurts another
        mine = mixed.table.filter(pl.col("verdict").str.contains(" (policy ", literal=True))
        parts.append(Rung(label, mine, {v: mixed.influence[v] for v in mine["verdict"]
                                        if v in mixed.influence}))
    parts += [policy_verdict(df, p, label, f"{p}: win rate - 1/{len(table)}")
              for p in dict.fromkeys(table)]
    both = Rung(label, pl.concat([r.table for r in parts]),
                {k: v for r in parts for k, v in r.influence.items()})
    per, metrics = per_game(df, [], spec)
    indices = per["game"].n_unique()
    levels: Levels = {}
    for m in metrics:
        g = (per.filter(pl.col(m).is_not_null()).group_by("game")
             .agg(y=pl.col(m).sum(), n=pl.len()).sort("game"))
        got = ratio_influence(g["y"].to_numpy(), g["n"].to_numpy())
        if got is not None and 2 * g.height >= indices:     # (a round most games reach)
            levels[f"game: {m}"] = (got[0], g["game"].to_numpy(), got[1])
    return both, levels


CHANGE_COLUMNS = {"verdict": pl.String, "kind": pl.String, "alternative": pl.String,
                  "default": pl.Float64, "diff": pl.Float64, "ci_low": pl.Float64,
                  "ci_high": pl.Float64, "p": pl.Float64, "p_equiv": pl.Float64,
                  "mde": pl.Float64, "margin": pl.Float64, "percent": pl.Boolean,
                  "absent": pl.Boolean}


def _changes(parts: Mapping[str, tuple[Rung, Levels]], labels: Sequence[str], margin: float,
             counted: set[str]) -> pl.DataFrame:
    """Each verdict of the defaults under each alternative: the paired change, its tests."""
    base, base_levels = parts[DEFAULT]
    est = {**dict(zip(base.table["verdict"], base.table["estimate"])),
           **{k: v[0] for k, v in base_levels.items()}}
    kind = {**dict(zip(base.table["verdict"], base.table["kind"])),
            **dict.fromkeys(base_levels, "game")}
    rows = []
    for alt in labels[1:]:
        rung, levels = parts[alt]
        there = {**dict(zip(rung.table["verdict"], rung.table["estimate"])),
                 **{k: v[0] for k, v in levels.items()}}
        where = {**rung.influence, **{k: v[1:] for k, v in levels.items()}}
        mine = {**base.influence, **{k: v[1:] for k, v in base_levels.items()}}
        for v, e in est.items():
            percent = not (kind[v] == "game" and v[6:] in counted)
            row = {"verdict": v, "kind": kind[v], "alternative": alt, "default": e,
                   "margin": margin if percent else DESIGN_MARGIN * abs(e),
                   "percent": percent, "absent": v in mine and v not in where}
            if v in mine and v in where:
                diff = there[v] - e
                se, c, _ = difference_se(mine[v], where[v])
                half = float(t95(c)) * se
                row |= {"diff": diff, "ci_low": diff - half, "ci_high": diff + half,
                        "p": paired_p(diff, se, c),
                        "p_equiv": float(equivalence_p(diff, se, c, row["margin"])),
                        "mde": float(detectable(se, c))}
            rows.append(row)
    out = pl.DataFrame(rows, schema=CHANGE_COLUMNS)
    adj = adjust_pvalues(out["p"].fill_null(np.nan).to_numpy(), "holm")
    negligible = out["p_equiv"].fill_null(1.0).to_numpy() < ALPHA
    depends = ((np.nan_to_num(adj, nan=1.0) < ALPHA) & ~negligible) | out["absent"].to_numpy()
    return out.with_columns(p_adj=pl.Series(adj), depends=pl.Series(depends),
                            negligible=pl.Series(negligible))


def _summary(verdicts: pl.DataFrame, changes: pl.DataFrame,
             untested: Sequence[tuple[str, str]]) -> pl.DataFrame:
    """One row per verdict: under the defaults, its tag and the largest MDE of its changes."""
    status = verdicts.filter(pl.col("rung") == DEFAULT).select("verdict", "status")
    caveat = "" if not untested else f" (untested: {', '.join(n for n, _ in untested)})"
    rows = []
    for (v, kind), g in changes.group_by(["verdict", "kind"], maintain_order=True):
        hit = g.filter("depends")["alternative"].to_list()
        if hit:
            tag = f"{DEPENDS}: " + ", ".join(
                a + (" (absent under it)" if absent else "")
                for a, absent in g.filter("depends").select("alternative", "absent").iter_rows())
        elif g["negligible"].all():
            tag = ROBUST + caveat
        else:
            tag = UNDETERMINED
        rows.append({"verdict": v, "kind": kind, "estimate": g["default"][0], "tag": tag,
                     "depends": hit, "mde": g["mde"].max(), "margin": g["margin"][0]})
    out = pl.DataFrame(rows, schema={"verdict": pl.String, "kind": pl.String,
                                     "estimate": pl.Float64, "tag": pl.String,
                                     "depends": pl.List(pl.String), "mde": pl.Float64,
                                     "margin": pl.Float64})
    return out.join(status, on="verdict", how="left", maintain_order="left").with_columns(
        pl.col("status").fill_null("a level"))

