"""Balance verdicts tagged with the skill at which they hold.

A verdict measured with one mix of players ("the start seat is weak", "this event favours seat
2") may hold among weak players and vanish, or reverse, among strong ones. Here each verdict is
measured at several **rungs**: a rung is one policy spec (a built-in name, a user policy, or any
spec the game's ``simulate`` accepts, such as a search agent) played by every seat; the rungs
are given from the weakest to the strongest. Every rung plays the same game indices of one
seed (common random numbers), and every interval takes the game index as its unit
(``analyses.stats``). The verdicts of one game, at all its rungs, form one Holm family.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from simcore.search import is_agent_spec

from .data import Frame, collect, game_of, lazy
from .event_impact import event_impact, things
from .games import game_module, game_spec, play, policy_name
from .stats import adjust_pvalues, score_p
from .tournament import rotations
from .winrates import win_rates

RUNG_GAMES = 20_000
"""Default games per rung (each verdict's table at one rung)."""
SEARCH_RUNG = "ismcts-32"
"""The search rung of the default ladder, for a game with search agents."""
SEARCH_GAMES = 200
"""Default games at a search rung (every seat searches: each game costs thousands of the
heuristics', so its intervals are wider and more verdicts vanish there for want of games)."""
ALPHA = 0.05
"""A verdict holds at a rung when its Holm-adjusted p-value is below this."""

HOLDS, FLIPS, VANISHES, APPEARS, SOME, NONE = ("holds", "flips", "vanishes", "appears",
                                                "holds at some", "holds at none")
COLUMNS = {"verdict": pl.String, "kind": pl.String, "rung": pl.String, "estimate": pl.Float64,
           "ci_low": pl.Float64, "ci_high": pl.Float64, "p": pl.Float64}


@dataclass(frozen=True)
class SkillVerdicts:
    """One game's verdicts at each rung.

    ``table``: one row per verdict and rung (``verdict``, ``kind``, ``rung``, ``estimate``
    with its 95% interval ``ci_low``, ``ci_high``, two-sided ``p``, ``p_adj`` Holm-adjusted
    over the whole table, ``holds`` and ``sign``: +1 or -1 where it holds, 0 where it does
    not); ``summary``: one row per verdict with its classification across the rungs
    (``across``: holds / flips / vanishes / appears / holds at some / holds at none) and the
    words (``reading``)."""

    game: str
    rungs: tuple[str, ...]
    n_games: int
    players: int
    seed: int
    top: str | None
    table: pl.DataFrame
    summary: pl.DataFrame
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
                   search_games: int = SEARCH_GAMES) -> SkillVerdicts:
    """Play each rung (every seat the rung's spec, ``n_games`` games of ``seed``) and measure
    the verdicts at each: every seat's win rate against its fair share 1/P; each thing's
    win-rate change (``event_impact``: game-level things per seat, seat-level things over all
    seats; association, as the observational table); and, given ``top`` (the strongest policy
    of the tournament), its win rate against 1/P when it sits in one seat, rotated over all
    seats, and the rung's spec in the others (about ``n_games`` games in all; not measured at
    the rung that is ``top`` itself). A search agent's rung plays ``search_games`` games
    instead of ``n_games`` when that is fewer."""
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
    table = judge(pl.concat(parts, how="vertical"))
    names = tuple(policy_name(r) for r in rungs)
    return SkillVerdicts(game_spec(mod).name, names, n_games, players, seed,
                         None if top is None else policy_name(top), table,
                         summarise(table, names), tuple(counts))


def rung_verdicts(df: Frame, rung: str) -> pl.DataFrame:
    """The verdicts of one rung's results (every seat one spec): seats and things."""
    lf = lazy(df)
    p = collect(lf.select(pl.col("n_players").unique()))["n_players"]
    if p.len() != 1:
        raise ValueError(f"a rung's results must have one player count, got {p.to_list()}")
    fair = 1.0 / int(p[0])
    seats = win_rates(lf, by=["seat"])
    rows = [pl.DataFrame({
        "verdict": [f"seat {s}: win rate - 1/{int(p[0])}" for s in seats["seat"]],
        "kind": "seat", "rung": rung, "estimate": seats["win_rate"] - fair,
        "ci_low": seats["ci_low"] - fair, "ci_high": seats["ci_high"] - fair,
        "p": score_p(seats["win_rate"].to_numpy(), seats["n_eff"].to_numpy(), fair)},
        schema=COLUMNS)]
    if not things(lf):
        return rows[0]
    labels = {t.kind: t.label or t.kind for t in game_of(lf).things}
    rows.append(event_impact(lf).select(
        verdict=pl.format("{} {}: win rate with - without ({})",
                          pl.col("kind").replace(labels), "thing",
                          pl.when(pl.col("by") == "all").then(pl.lit("all seats"))
                          .otherwise(pl.format("{} {}", "by", "group"))),
        kind="kind", rung=pl.lit(rung), estimate="win_diff", ci_low="win_ci_low",
        ci_high="win_ci_high", p="p_win").cast(COLUMNS))
    return pl.concat(rows, how="vertical")


def field_verdict(df: Frame, top: str, rung: str) -> pl.DataFrame:
    """The strongest policy ``top`` in one seat, the rung in the others, seats rotated: its win
    rate against its fair share 1/P."""
    lf = lazy(df)
    k = collect(lf.select(pl.col("n_players").first())).item()
    wr = win_rates(lf.filter(pl.col("policy").cast(pl.String) == top), by=["policy"])
    fair = 1.0 / k
    r = wr.row(0, named=True)
    return pl.DataFrame({
        "verdict": [f"{top} in one seat, the rung in the others: win rate - 1/{k}"],
        "kind": ["policy"],
        "rung": [rung], "estimate": [r["win_rate"] - fair], "ci_low": [r["ci_low"] - fair],
        "ci_high": [r["ci_high"] - fair],
        "p": [float(score_p(r["win_rate"], r["n_eff"], fair))]}, schema=COLUMNS)


def judge(table: pl.DataFrame, alpha: float = ALPHA) -> pl.DataFrame:
    """Holm-adjust every p-value of the table as one family and say where each verdict holds
    (adjusted p below ``alpha``) and in which direction."""
    adj = adjust_pvalues(table["p"].to_numpy(), "holm")
    holds = np.nan_to_num(adj, nan=1.0) < alpha
    sign = np.where(holds, np.sign(table["estimate"].to_numpy()), 0).astype(np.int8)
    return table.with_columns(p_adj=pl.Series(adj), holds=pl.Series(holds),
                              sign=pl.Series(sign))


def _words(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def classify(signs: Sequence[int | None], rungs: Sequence[str]) -> tuple[str, str]:
    """``course`` with the rungs where the verdict was not measured said after the words."""
    c, words = course(signs, rungs)
    missing = [r for r, s in zip(rungs, signs) if s is None]
    return c, (words + f" (not measured at {_words(missing)})"
               if missing and len(missing) < len(rungs) else words)


def course(signs: Sequence[int | None], rungs: Sequence[str]) -> tuple[str, str]:
    """A verdict's course over the rungs (weakest first) from its sign at each: +1 or -1 where
    it holds, 0 where it does not, None where it was not measured (left out). Returns
    (class, words): ``flips`` (held with both signs), ``holds`` (at every measured rung),
    ``vanishes`` (held at the weaker rungs only), ``appears`` (at the stronger only),
    ``holds at some`` (any other pattern), ``holds at none``."""
    if len(signs) != len(rungs):
        raise ValueError(f"one sign per rung: {len(signs)} signs for {len(rungs)} rungs")
    seen = [(r, s) for r, s in zip(rungs, signs) if s is not None]
    held = [(r, s) for r, s in seen if s != 0]
    for (a, sa), (b, sb) in zip(held, held[1:]):
        if sa != sb:
            mark = {1: "+", -1: "-"}
            return FLIPS, f"flips between {a} ({mark[sa]}) and {b} ({mark[sb]})"
    if not held:
        return NONE, ("holds at no rung" if seen else "measured at no rung")
    at = [r for r, _ in held]
    if len(held) == len(seen):
        return HOLDS, f"holds at {_words(at)}"
    pattern = [s != 0 for _, s in seen]
    first_off, first_on = pattern.index(False), pattern.index(True)
    if not any(pattern[first_off:]):
        return VANISHES, f"holds at {_words(at)}, vanishes at {seen[first_off][0]}"
    if all(pattern[first_on:]):
        return APPEARS, (f"appears at {seen[first_on][0]}"
                         + (f", holds at {_words(at)}" if len(at) > 1 else ""))
    return SOME, f"holds at {_words(at)} only"


def summarise(table: pl.DataFrame, rungs: Sequence[str]) -> pl.DataFrame:
    """One row per verdict (in the table's order): its class across the rungs, the words, and
    at how many of the rungs it was measured (``measured``: "holds" means at every one of
    those, which may be fewer than all)."""
    rows = []
    for (verdict, kind), g in table.group_by(["verdict", "kind"], maintain_order=True):
        sign = dict(zip(g["rung"], g["sign"]))
        c, words = classify([sign.get(r) for r in rungs], rungs)
        rows.append({"verdict": verdict, "kind": kind, "across": c, "reading": words,
                     "measured": sum(r in sign for r in rungs)})
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
