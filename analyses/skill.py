"""Balance verdicts tagged with the skill at which they hold.

A verdict measured with one mix of players ("the start seat is weak", "this event favours seat
2") may hold among weak players and vanish, or reverse, among strong ones. Here each verdict is
measured at several **rungs**: a rung is one policy spec (a built-in name, a user policy, or any
spec the game's ``simulate`` accepts, such as a search agent) played by every seat; the rungs
are given from the weakest to the strongest. Every rung plays the same game indices of one
seed (common random numbers), and every interval takes the game index as its unit
(``analyses.stats``).

At each rung a verdict **holds** (its p-value, Holm-adjusted over every verdict at every rung,
is below ``ALPHA``), is **negligible** (an equivalence test, TOST, shows it within -/+ the
margin) or is **undetermined** (neither: read its minimum detectable effect). Whether it
changes with skill is a test of its own: the difference between neighbouring rungs, paired on
the game indices both played (each game index's influence on one estimate minus its influence
on the other), Holm-adjusted over every change of the game. Which rungs hold measures their
power as much as the effect, so a verdict vanishes, appears or flips only where its tested
change says so.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from simcore.search import is_agent_spec

from .data import Frame, collect, game_of, lazy
from .event_impact import event_impact, impact_influence, things, with_without_sums
from .games import game_module, game_spec, play, policy_name
from .stats import (adjust_pvalues, detectable, equivalence_p, influence_se, paired_p,
                    ratio_influence, score_p, t95)
from .tournament import rotations
from .winrates import win_rates

RUNG_GAMES = 20_000
"""Default games per rung (each verdict's table at one rung)."""
SEARCH_GAMES = 1_000
"""Default games at a search rung (every seat searches: each game costs hundreds of the
heuristics', so its intervals are wider and fewer verdicts are determined there)."""
ALPHA = 0.05
"""Level of every test: a verdict holds, is negligible, or changes where its p is below this."""
MARGIN = 0.02
"""Equivalence margin, in win rate (2 points): a seat's edge over its fair share, a thing's
with-minus-without difference, or the strongest policy's edge, smaller than this is negligible
(too small to act on); ``skill_verdicts`` takes another, or one per kind of verdict."""

HOLDS, NEGLIGIBLE, UNDETERMINED = "holds", "negligible", "undetermined"
"""A verdict at one rung."""
FLIPS, VANISHES, APPEARS, CHANGES, STEADY, NONE = (
    "flips", "vanishes", "appears", "changes", "no change shown", "measured at no rung")
"""A verdict across the rungs: a tested change (flips, vanishes, appears, changes) or none
(``HOLDS`` or ``NEGLIGIBLE`` at every rung where measured, else ``STEADY``)."""
COLUMNS = {"verdict": pl.String, "kind": pl.String, "rung": pl.String, "estimate": pl.Float64,
           "ci_low": pl.Float64, "ci_high": pl.Float64, "p": pl.Float64}


@dataclass(frozen=True)
class SkillVerdicts:
    """One game's verdicts at each rung.

    ``table``: one row per verdict and rung (``judge``); ``changes``: one row per verdict and
    pair of neighbouring rungs where it was measured, the tested change (``judge``);
    ``summary``: one row per verdict, its course across the rungs (``across``) in words
    (``reading``); ``margin``: the equivalence margin per kind of verdict."""

    game: str
    rungs: tuple[str, ...]
    n_games: int
    players: int
    seed: int
    top: str | None
    table: pl.DataFrame
    changes: pl.DataFrame
    summary: pl.DataFrame
    margin: Mapping[str, float]
    games: tuple[int, ...] = ()     # games played at each rung (``search_games`` at a search
    #                                 rung when fewer than ``n_games``)

    def games_said(self) -> str:
        """'20,000 games each' or '20,000 games each (200 at ismcts-32)'."""
        fewer = [f"{n:,} at {r}" for r, n in zip(self.rungs, self.games) if n != self.n_games]
        return f"{self.n_games:,} games each" + (f" ({', '.join(fewer)})" if fewer else "")


def parse_rungs(text: str) -> list[str]:
    """Rung specs from a comma-separated list (``"random,careful"``), each checked by
    ``check_rungs``."""
    return check_rungs([s.strip() for s in text.split(",")])


def check_rungs(rungs: Sequence[Any]) -> list[Any]:
    """At least two rungs, none empty, no name twice; one line naming the problem otherwise."""
    if isinstance(rungs, str) or not isinstance(rungs, Sequence):
        raise ValueError(f"rungs must be a list of policy specs, got {rungs!r}")
    names = [policy_name(r) for r in rungs]
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"rungs: the spec at position {i + 1} of {names} is empty")
    if len(names) < 2:
        raise ValueError(f"rungs: give at least two rungs to compare, got {names}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"rungs: {', '.join(map(repr, twice))} given twice in {names}")
    return list(rungs)


def check_playable(game: Any, rungs: Sequence[Any], players: int, seed: int = 0,
                   rules: Any = None) -> None:
    """Each rung is a spec the game can seat at every place: tried on one game through the
    game's own ``simulate`` (specs are the game's to interpret), one line if not."""
    mod = game_module(game)
    kwargs = {} if rules is None else {"rules": rules}
    for r in rungs:
        try:
            mod.simulate([r] * players, 1, seed, progress=False, **kwargs)
        except ValueError as e:
            raise ValueError(f"rung {policy_name(r)!r} for {game_spec(mod).name}: "
                             f"{str(e).splitlines()[0]}") from None


def skill_verdicts(game: Any, rungs: Sequence[Any], players: int, n_games: int = RUNG_GAMES,
                   seed: int = 0, *, rules: Any = None, top: Any = None,
                   search_games: int = SEARCH_GAMES,
                   margin: float | Mapping[str, float] = MARGIN) -> SkillVerdicts:
    """Play each rung (every seat the rung's spec, ``n_games`` games of ``seed``) and measure
    the verdicts at each: every seat's win rate against its fair share 1/P; each thing's
    win-rate change (``event_impact``: game-level things per seat, seat-level things over all
    seats; association, as the observational table); and, given ``top`` (the strongest policy
    of the tournament), its win rate against 1/P when it sits in one seat, rotated over all
    seats, and the rung's spec in the others (about ``n_games`` games in all; not measured at
    the rung that is ``top`` itself). A search agent's rung plays ``search_games`` games
    instead of ``n_games`` when that is fewer. ``margin``: the equivalence margin (``MARGIN``),
    one for every verdict or one per kind (``seat``, ``policy``, a thing's kind)."""
    mod = game_module(game)
    rungs = check_rungs(rungs)
    parts = []
    counts = []
    for r in rungs:
        name = policy_name(r)
        n = min(n_games, search_games) if is_agent_spec(r) else n_games
        counts.append(n)
        df = play(mod, [r] * players, n, seed, rules)
        parts.append(rung_verdicts(df, name))
        if top is not None and name != policy_name(top):
            per = max(1, n // players)
            field = pl.concat([play(mod, s, per, seed, rules)
                               for s in rotations([top] + [r] * (players - 1))])
            parts.append(field_verdict(field, policy_name(top), name))
    names = tuple(policy_name(r) for r in rungs)
    table, changes = judge(parts, names, margin=margin)
    return SkillVerdicts(game_spec(mod).name, names, n_games, players, seed,
                         None if top is None else policy_name(top), table, changes,
                         summarise(table, changes, names), margins(table, margin),
                         tuple(counts))


@dataclass(frozen=True)
class Rung:
    """One rung's verdicts (``name``: the rung): ``table`` (rows of ``COLUMNS``) and, per
    verdict, the game indices it was measured on with each one's influence on its estimate
    (``stats.ratio_influence``), which give its standard error and pair it with another rung
    on the indices both played."""

    name: str
    table: pl.DataFrame
    influence: dict[str, tuple[np.ndarray, np.ndarray]]


def _thing_verdict(label: str, thing: str, by: str, group: str) -> str:
    where = "all seats" if by == "all" else f"{by} {group}"
    return f"{label} {thing}: win rate with - without ({where})"


def rung_verdicts(df: Frame, rung: str, game_by: str = "seat") -> Rung:
    """The verdicts of one rung's results (every seat one spec): seats and things, a
    game-level thing per ``game_by`` (``"seat"``, or ``"policy"`` at a table of several)."""
    lf = lazy(df)
    p = collect(lf.select(pl.col("n_players").unique()))["n_players"]
    if p.len() != 1:
        raise ValueError(f"a rung's results must have one player count, got {p.to_list()}")
    fair = 1.0 / int(p[0])
    seats = win_rates(lf, by=["seat"])
    names = [f"seat {s}: win rate - 1/{int(p[0])}" for s in seats["seat"]]
    rows = [pl.DataFrame({
        "verdict": names, "kind": "seat", "rung": rung, "estimate": seats["win_rate"] - fair,
        "ci_low": seats["ci_low"] - fair, "ci_high": seats["ci_high"] - fair,
        "p": score_p(seats["win_rate"].to_numpy(), seats["n_eff"].to_numpy(), fair)},
        schema=COLUMNS)]
    win = pl.col("win").cast(pl.Float64)
    per_seat = collect(lf.group_by("seat", "game").agg(y=win.sum(), n=pl.len())
                       .sort("seat", "game"))
    influence = {}
    for name, (_, g) in zip(names, per_seat.group_by(["seat"], maintain_order=True)):
        _, psi = ratio_influence(g["y"].to_numpy(), g["n"].to_numpy())
        influence[name] = (g["game"].to_numpy(), psi)
    found = things(lf)
    if not found:
        return Rung(rung, rows[0], influence)
    labels = {t.kind: t.label or t.kind for t in game_of(lf).things}
    # event_impact reads game-level things per policy where several sat, else per seat
    ev = event_impact(lf if game_by == "policy" else lf.with_columns(policy=pl.lit(rung)))
    rows.append(pl.DataFrame({
        "verdict": [_thing_verdict(labels.get(k, k), t, b, g) for k, t, b, g in
                    ev.select("kind", "thing", "by", "group").iter_rows()],
        "kind": ev["kind"], "rung": rung, "estimate": ev["win_diff"],
        "ci_low": ev["win_ci_low"], "ci_high": ev["win_ci_high"], "p": ev["p_win"]},
        schema=COLUMNS))
    for seat_level, by in ((False, game_by), (True, None)):
        chosen = [t for t in found if t.seat_level == seat_level]
        if not chosen:
            continue
        group = pl.lit("all") if by is None else pl.col(by).cast(pl.String)
        per = collect(lf.group_by(group.alias("group"), "game")
                      .agg(**{k: e.cast(pl.Float64)
                              for k, e in with_without_sums(chosen, win).items()})
                      .sort("group", "game"))
        for (g,), part in per.group_by(["group"], maintain_order=True):
            x = {c: part[c].to_numpy() for c in part.columns if c not in ("group", "game")}
            for i, t in enumerate(chosen):
                got = impact_influence(x[f"win{i}"], x[f"n{i}"], x["win"], x["n"])
                if got is not None:
                    name = _thing_verdict(labels.get(t.kind, t.kind), t.name, by or "all", g)
                    influence[name] = (part["game"].to_numpy(), got[1])
    return Rung(rung, pl.concat(rows, how="vertical"), influence)


def field_verdict(df: Frame, top: str, rung: str) -> Rung:
    """The strongest policy ``top`` in one seat, the rung in the others, seats rotated: its win
    rate against its fair share 1/P."""
    k = collect(lazy(df).select(pl.col("n_players").first())).item()
    return policy_verdict(df, top, rung, f"{top} in one seat, the rung in the others: "
                                         f"win rate - 1/{k}")


def policy_verdict(df: Frame, policy: str, rung: str, name: str) -> Rung:
    """One policy's win rate in ``df`` against its fair share 1/P, as the verdict ``name``."""
    lf = lazy(df)
    k = collect(lf.select(pl.col("n_players").first())).item()
    mine = lf.filter(pl.col("policy").cast(pl.String) == policy)
    wr = win_rates(mine, by=["policy"])
    fair = 1.0 / k
    r = wr.row(0, named=True)
    per = collect(mine.group_by("game").agg(y=pl.col("win").cast(pl.Float64).sum(), n=pl.len())
                  .sort("game"))
    _, psi = ratio_influence(per["y"].to_numpy(), per["n"].to_numpy())
    return Rung(rung, pl.DataFrame({
        "verdict": [name], "kind": ["policy"],
        "rung": [rung], "estimate": [r["win_rate"] - fair], "ci_low": [r["ci_low"] - fair],
        "ci_high": [r["ci_high"] - fair],
        "p": [float(score_p(r["win_rate"], r["n_eff"], fair))]}, schema=COLUMNS),
        {name: (per["game"].to_numpy(), psi)})


def margins(table: pl.DataFrame, margin: float | Mapping[str, float] = MARGIN
            ) -> dict[str, float]:
    """The equivalence margin of each kind of verdict in ``table``: ``margin`` for every kind,
    or per kind (a kind it does not name gets ``MARGIN``)."""
    kinds = table["kind"].unique(maintain_order=True).to_list()
    if isinstance(margin, Mapping):
        return {k: float(margin.get(k, MARGIN)) for k in kinds}
    return dict.fromkeys(kinds, float(margin))


def judge(parts: Sequence[Rung], rungs: Sequence[str], alpha: float = ALPHA,
          margin: float | Mapping[str, float] = MARGIN) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Each verdict at each rung, and its changes between neighbouring rungs.

    The table gains ``p_adj`` (Holm over every verdict at every rung), ``se`` and ``clusters``
    (from the influences), ``mde`` (the minimum detectable effect, 80% power at ``alpha``),
    ``p_equiv`` (TOST within -/+ the kind's margin), ``status`` (``NEGLIGIBLE`` where
    ``p_equiv`` is below ``alpha``, even if the effect differs from 0: it is smaller than the
    margin; else ``HOLDS`` where ``p_adj`` is; else ``UNDETERMINED``; a verdict without a p,
    a side under ``MIN_GROUP`` seat-games, is undetermined), ``holds`` and ``sign`` (+1 or -1
    where it holds, else 0).

    The changes: per verdict and pair of neighbouring rungs where it was measured (``from``,
    ``to``), ``diff`` (to minus from) with its 95% interval, ``shared`` (game indices both
    rungs played), a two-sided ``p`` (``stats.paired_p`` on t with the smaller rung's
    clusters - 1), ``p_adj`` (Holm over every change of the table) and ``changed``. The
    variance is the CR1 variance of the difference of the two influences over the union of
    the game indices: paired where the rungs share indices (their common luck cancels), the
    unpaired two-sample variance where they share none."""
    table = pl.concat([r.table for r in parts], how="vertical")
    influence = {(v, part.name): x for part in parts for v, x in part.influence.items()}
    margin_of = margins(table, margin)
    adj = adjust_pvalues(table["p"].to_numpy(), "holm")
    est = table["estimate"].to_numpy()
    keys = list(zip(table["verdict"], table["rung"]))
    se = np.array([influence_se(influence[k][1]) if k in influence else np.nan for k in keys])
    c = np.array([influence[k][0].size if k in influence else 0 for k in keys], dtype=float)
    p_eq = equivalence_p(est, se, c, [margin_of[k] for k in table["kind"]])
    p_eq = np.where(np.isnan(table["p"].to_numpy()), np.nan, p_eq)
    status = np.where(p_eq < alpha, NEGLIGIBLE,
                      np.where(np.nan_to_num(adj, nan=1.0) < alpha, HOLDS, UNDETERMINED))
    table = table.with_columns(
        p_adj=pl.Series(adj), se=pl.Series(se), clusters=pl.Series(c.astype(np.int64)),
        mde=pl.Series(detectable(se, c, alpha=alpha)), p_equiv=pl.Series(p_eq),
        status=pl.Series(status), holds=pl.Series(status == HOLDS),
        sign=pl.Series(np.where(status == HOLDS, np.sign(est), 0).astype(np.int8)))
    return table, _changes(table, influence, rungs, alpha)


CHANGE_COLUMNS = {"verdict": pl.String, "kind": pl.String, "from": pl.String, "to": pl.String,
                  "diff": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
                  "shared": pl.Int64, "p": pl.Float64}


def _changes(table: pl.DataFrame, influence: Mapping[tuple[str, str], tuple[np.ndarray, ...]],
             rungs: Sequence[str], alpha: float) -> pl.DataFrame:
    """The tested changes of ``judge``."""
    order = {r: i for i, r in enumerate(rungs)}
    rows = []
    for (verdict, kind), g in table.group_by(["verdict", "kind"], maintain_order=True):
        g = g.sort(pl.col("rung").replace_strict(order))
        for a, b in zip(g.iter_rows(named=True), list(g.iter_rows(named=True))[1:]):
            ia, ib = influence.get((verdict, a["rung"])), influence.get((verdict, b["rung"]))
            if ia is None or ib is None:
                continue
            diff = b["estimate"] - a["estimate"]
            se, c, shared = difference_se(ia, ib)
            half = float(t95(c)) * se
            p = math.nan if math.isnan(a["p"]) or math.isnan(b["p"]) else paired_p(diff, se, c)
            rows.append({"verdict": verdict, "kind": kind, "from": a["rung"], "to": b["rung"],
                         "diff": diff, "ci_low": diff - half, "ci_high": diff + half,
                         "shared": shared, "p": p})
    out = pl.DataFrame(rows, schema=CHANGE_COLUMNS)
    adj = adjust_pvalues(out["p"].to_numpy(), "holm")
    return out.with_columns(p_adj=pl.Series(adj, dtype=pl.Float64),
                            changed=pl.Series(np.nan_to_num(adj, nan=1.0) < alpha,
                                              dtype=pl.Boolean))


def difference_se(ia: tuple[np.ndarray, np.ndarray], ib: tuple[np.ndarray, np.ndarray]
                  ) -> tuple[float, int, int]:
    """The standard error of one estimate minus another from each one's (game indices,
    influences), its clusters (the smaller side's) and the game indices both share: paired
    where they share indices (their common luck cancels), unpaired where they share none."""
    (ga, pa), (gb, pb) = ia, ib
    if np.array_equal(ga, gb):
        games, psi = ga, pb - pa
    else:
        games = np.union1d(ga, gb)
        psi = np.zeros(games.size)
        psi[np.searchsorted(games, gb)] += pb
        psi[np.searchsorted(games, ga)] -= pa
    return influence_se(psi), min(ga.size, gb.size), ga.size + gb.size - games.size


def _words(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def statuses(status: Sequence[str | None], signs: Sequence[int], rungs: Sequence[str]) -> str:
    """'holds at weak and mid; undetermined at strong': each status with its rungs, in the
    order first met (holds with its sign, +/-, where the signs differ), then the rungs where
    the verdict was not measured."""
    mark = {1: " (+)", -1: " (-)"}
    mixed = len({g for st, g in zip(status, signs) if st == HOLDS}) > 1
    said: dict[str, list[str]] = {}
    for r, st, g in zip(rungs, status, signs):
        key = "not measured" if st is None else st + (mark[g] if mixed and st == HOLDS else "")
        said.setdefault(key, []).append(r)
    return "; ".join(f"{k} at {_words(v)}" for k, v in said.items())


def course(status: Sequence[str | None], signs: Sequence[int], changed: Sequence[bool],
           rungs: Sequence[str]) -> tuple[str, str]:
    """A verdict's course over the rungs (weakest first) from its status at each (``HOLDS``,
    ``NEGLIGIBLE``, ``UNDETERMINED``, None where not measured), the sign of its estimate, and
    whether each change between neighbouring measured rungs was significant (``changed``, one
    per pair). Only a significant change moves a verdict: it ``flips`` where it holds at both
    rungs with opposite signs, ``vanishes`` where it holds and then is negligible, ``appears``
    the other way round, and otherwise ``changes``. Without one: ``holds`` or ``negligible``
    at every rung where measured, else ``no change shown``. Returns (class, words)."""
    if not len(status) == len(signs) == len(rungs):
        raise ValueError(f"one status and sign per rung: {len(status)} statuses, {len(signs)} "
                         f"signs for {len(rungs)} rungs")
    seen = [(r, st, g) for r, st, g in zip(rungs, status, signs) if st is not None]
    if len(changed) != max(len(seen) - 1, 0):
        raise ValueError(f"one change per pair of measured rungs: {len(changed)} for "
                         f"{len(seen)} rungs")
    if not seen:
        return NONE, "measured at no rung"
    at = statuses(status, signs, rungs)
    moves = []
    for (a, sa, ga), (b, sb, gb), hit in zip(seen, seen[1:], changed):
        if not hit:
            continue
        if sa == sb == HOLDS and ga != gb:
            mark = {1: "+", -1: "-"}
            moves.append((FLIPS, f"flips between {a} ({mark[ga]}) and {b} ({mark[gb]})"))
        elif (sa, sb) == (HOLDS, NEGLIGIBLE):
            moves.append((VANISHES, f"vanishes between {a} and {b}"))
        elif (sa, sb) == (NEGLIGIBLE, HOLDS):
            moves.append((APPEARS, f"appears between {a} and {b}"))
        else:
            moves.append((CHANGES, f"changes between {a} and {b}"))
    if moves:
        first = min(moves, key=lambda m: [FLIPS, VANISHES, APPEARS, CHANGES].index(m[0]))[0]
        return first, "; ".join(w for _, w in moves) + f" ({at})"
    if {st for _, st, _ in seen} == {NEGLIGIBLE}:
        return NEGLIGIBLE, at
    if {(st, g) for _, st, g in seen} in ({(HOLDS, 1)}, {(HOLDS, -1)}):
        return HOLDS, at
    return STEADY, f"{at}; no change shown"


def summarise(table: pl.DataFrame, changes: pl.DataFrame, rungs: Sequence[str]) -> pl.DataFrame:
    """One row per verdict (in the table's order): its course across the rungs (``across``),
    the words (``reading``), and at how many of the rungs it was measured (``measured``:
    "holds" means at every one of those, which may be fewer than all)."""
    rows = []
    moved = {(v, a, b): hit for v, a, b, hit in
             changes.select("verdict", "from", "to", "changed").iter_rows()}
    for (verdict, kind), g in table.group_by(["verdict", "kind"], maintain_order=True):
        at = {r: (st, int(np.sign(e))) for r, st, e in
              g.select("rung", "status", "estimate").iter_rows()}
        seen = [r for r in rungs if r in at]
        c, words = course([at.get(r, (None, 0))[0] for r in rungs],
                          [at.get(r, (None, 0))[1] for r in rungs],
                          [moved.get((verdict, a, b), False) for a, b in zip(seen, seen[1:])],
                          rungs)
        rows.append({"verdict": verdict, "kind": kind, "across": c, "reading": words,
                     "measured": len(seen)})
    return pl.DataFrame(rows, schema={"verdict": pl.String, "kind": pl.String,
                                      "across": pl.String, "reading": pl.String,
                                      "measured": pl.Int64})


def resolve_rungs(rungs: Sequence[Any] | Mapping[str, Sequence[Any]] | None,
                  game: str) -> list[Any] | None:
    """The rungs for one game from what the caller gave: one list for every game, a mapping
    from game name to a list (games not named get None: the default), or None."""
    if rungs is None:
        return None
    if isinstance(rungs, Mapping):
        return None if game not in rungs else check_rungs(rungs[game])
    return check_rungs(rungs)
