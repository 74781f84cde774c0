"""Restricted play (Jaffe 2012) as a measured table: how much a seat's win rate changes when
its policy may never (or must always) take an option, paired on the same games.

Each probe the game declares (``simcore.games.Probe``) restricts one seat: at each rung (a
policy played by every seat) the restricted seat plays the rung's policy under the probe
(``simcore.restrict``) and the others play it unrestricted, on the same game indices of one
seed as the unrestricted table (common random numbers), the restricted seat in every seat in
turn. Per game index the change is the restricted seat's win share less the same seat's win
share unrestricted, averaged over the seats; its mean, 95% t interval and p-value take the game
index as the unit (``analyses.compare.fixed_interval``), the p-values Holm-adjusted over every
probe at every rung as one family.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from simcore import games
from simcore.restrict import horizon_limited, restricted as restrict_name
from simcore.search import is_agent_spec

from .compare import fixed_interval
from .games import check_players, check_run, game_module, game_spec, play, policy_name
from .stats import adjust_pvalues, paired_p

GAMES = 4000
"""Default game indices per probe and rung (each played with the restricted seat in every
seat): ``python -m analyses restricted GAME`` at this size is the documented run."""
REPORT_GAMES = 200
"""The balance report's game indices per probe and rung (about 20 s per game on 2 cores)."""
MARGIN = 0.01
"""A restriction whose 95% interval lies inside -/+ this (1 point of win rate) costs nothing:
the option it removes is useless (or, ``always``, the option it forces is what the policy
took anyway)."""
BIG = 0.10
"""A significant change of at least this (10 points) marks an option indispensable (never it
costs this much) or dominant (always it gains)."""
ALPHA = 0.05

USELESS, INDISPENSABLE, DOMINANT, COSTLY, GAINS, UNDETERMINED = (
    "useless", "indispensable", "dominant", "costly", "gains", "undetermined")


@dataclass(frozen=True)
class Restriction:
    """The restricted-play table of one game: ``table`` has one row per probe and rung
    (``diff``: the restricted seat's win rate less the same seat's unrestricted, with its 95%
    interval and p, ``p_adj`` Holm over all rows, ``verdict``); ``summary`` one row per probe
    with its verdict at each rung and the rungs where it holds."""

    game: str
    players: int
    games: int
    seed: int
    rungs: tuple[str, ...]
    table: pl.DataFrame
    summary: pl.DataFrame
    per_game: pl.DataFrame
    """Per probe, rung and game index: the change ``d`` averaged over the seats (what the
    table's rows summarise, and what ``diff`` pairs between two rules sets)."""

    def headline(self) -> str:
        """The most indispensable restriction and the useless ones, in words."""
        return headline(self.table)


def verdict(mode: str, diff: float, lo: float, hi: float, p_adj: float) -> str:
    """A probe's verdict at one rung: useless (interval inside -/+ ``MARGIN``), indispensable
    (``never``) or dominant (``always``) where the change is significant and at least ``BIG``
    (a loss, resp. a gain), else costly or gains where significant, else undetermined."""
    if -MARGIN < lo and hi < MARGIN:
        return USELESS
    if not p_adj < ALPHA:
        return UNDETERMINED
    if mode == "always" and diff >= BIG:
        return DOMINANT
    if mode != "always" and diff <= -BIG:
        return INDISPENSABLE
    return COSTLY if diff < 0 else GAINS


def _rung_probes(probes: Sequence[games.Probe], rung: str) -> list[tuple[games.Probe, str]]:
    """The probes that apply at a rung, each with the policy the restricted seat plays: a row
    probe restricts any policy but a search agent; a horizon probe makes its horizon-limited
    player where it has one."""
    agent = is_agent_spec(rung)
    out = []
    for p in probes:
        if p.mode == "horizon":
            limited = horizon_limited(rung, p, agent)
            if limited is not None:
                out.append((p, limited))
        elif not agent:
            out.append((p, restrict_name(rung, p.name)))
    return out


def _shares(df: pl.DataFrame, seat: int) -> np.ndarray:
    """Seat ``seat``'s win share in each game index."""
    return df.filter(pl.col("seat") == seat).sort("game")["win"].to_numpy().astype(np.float64)


def restricted(game: Any, players: int = 4, policy: str | None = None,
               probes: Sequence[str] | None = None, games: int = GAMES, seed: int = 0,
               rungs: Sequence[str] | None = None, threads: int | None = None,
               rules: Any = None, progress: Callable[[str], None] | None = None
               ) -> Restriction:
    """Every probe of ``game`` (or those named in ``probes``, e.g. ``["never_witch"]``) at
    each rung: ``policy`` (default: the game's search playout heuristic, its best) then
    ``rungs`` (default: the policies the game ships, ``BUNDLED``: the distilled policy), on
    ``games`` game indices of ``seed``, the restricted seat in each of the ``players`` seats.
    ``progress`` gets one line per probe and rung."""
    mod = game_module(game)
    spec = game_spec(game)
    players = check_players(mod, players)
    if not spec.probes:
        raise ValueError(f"{spec.name} declares no probes (simcore.games.Game.probes)")
    chosen = list(spec.probes)
    if probes is not None:
        from simcore.restrict import find
        chosen = [find(spec.probes, spec.name, p) for p in probes]
    if policy is None and not hasattr(mod, "agent"):
        raise ValueError(f"{spec.name} has no search playout heuristic: give the policy")
    policy = policy or mod.agent.playout
    ladder = [policy_name(policy), *(sorted(getattr(mod, "BUNDLED", ())) if rungs is None
                                     else [policy_name(r) for r in rungs])]
    ladder = list(dict.fromkeys(ladder))
    plan = [(rung, _rung_probes(chosen, rung)) for rung in ladder]
    total = sum(len(x) for _, x in plan)
    if total == 0:
        raise ValueError(f"{spec.name}: none of the probes applies at the rungs {ladder} (a "
                         f"search agent takes only horizon probes)")
    check_run(mod, games * (players * total + len(ladder)), players, rules=rules)
    rows, per_game = [], []
    done = 0
    for rung, todo in plan:
        table = [rung] * players
        df = play(mod, table, games, seed, rules, threads)
        base = [_shares(df, s) for s in range(players)]
        for probe, limited in todo:
            d = np.zeros(games)
            for s in range(players):
                seating = table[:s] + [limited] + table[s + 1:]
                d += _shares(play(mod, seating, games, seed, rules, threads), s) - base[s]
            d /= players
            per_game.append(pl.DataFrame({"rung": rung, "probe": probe.name,
                                          "label": probe.label, "game": np.arange(games),
                                          "d": d}))
            lo, hi, _ = fixed_interval(d, (-1, 1))
            p = paired_p(float(d.mean()), float(d.std(ddof=1) / np.sqrt(games)), games)
            rows.append({"rung": rung, "probe": probe.name, "label": probe.label,
                         "mode": probe.mode, "policy": limited, "games": games,
                         "diff": float(d.mean()), "ci_low": lo, "ci_high": hi,
                         "p": p})
            done += 1
            if progress is not None:
                progress(f"{spec.name} restricted: {done}/{total} {probe.name} at {rung}: "
                         f"{100 * d.mean():+.1f} points")
    table = pl.DataFrame(rows)
    table = table.with_columns(p_adj=pl.Series(adjust_pvalues(table["p"].to_numpy())))
    table = table.with_columns(verdict=pl.Series(
        [verdict(r["mode"], r["diff"], r["ci_low"], r["ci_high"], r["p_adj"])
         for r in table.iter_rows(named=True)]))
    return Restriction(spec.name, players, games, seed, tuple(ladder), table,
                       summarise(table, ladder), pl.concat(per_game))


def summarise(table: pl.DataFrame, rungs: Sequence[str]) -> pl.DataFrame:
    """One row per probe: its verdict at each rung (a column per rung) and ``holds_at``, the
    rungs where its most common determined verdict holds."""
    wide = table.pivot(on="rung", index=["probe", "label", "mode"], values="verdict")
    held = []
    for r in wide.iter_rows(named=True):
        found = [r[k] for k in rungs if r.get(k) not in (None, UNDETERMINED)]
        top = max(set(found), key=found.count) if found else UNDETERMINED
        held.append((top, ", ".join(k for k in rungs if r.get(k) == top)))
    return wide.with_columns(verdict=pl.Series([h[0] for h in held]),
                             holds_at=pl.Series([h[1] for h in held]))


def headline(table: pl.DataFrame) -> str:
    """"most indispensable: X (-n points at rung); useless: A, B, ..." from a table."""
    costly = table.filter(pl.col("verdict").is_in([INDISPENSABLE, COSTLY])).sort("diff")
    dominant = table.filter(pl.col("verdict") == DOMINANT).sort("diff", descending=True)
    useless = table.filter(pl.col("verdict") == USELESS)["label"].unique(maintain_order=True)
    parts = []
    if costly.height:
        r = costly.row(0, named=True)
        parts.append(f"most indispensable: {r['label']} ({100 * r['diff']:+.1f} points at "
                     f"{r['rung']})")
    if dominant.height:
        r = dominant.row(0, named=True)
        parts.append(f"most dominant: {r['label']} ({100 * r['diff']:+.1f} points at "
                     f"{r['rung']})")
    parts.append(f"useless (within -/+{100 * MARGIN:g} point): "
                 + (", ".join(useless.to_list()) if useless.len() else "none"))
    return "; ".join(parts)
