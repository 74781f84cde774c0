"""The main job: play every registered game (``simcore.games``) with its built-in policies, seats
rotated, and write the balance report of all of them on one page."""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from simcore import budget
from simcore import games as registry
from simcore.runner import check_int
from simcore.simulate import redraw_sources

from .event_impact import counterfactual_impact, switch_offs
from .ladder import ladder
from .kingmaking import REPORT_GAMES as KINGMAKING_GAMES
from .kingmaking import REPORT_PLAYOUTS as KINGMAKING_PLAYOUTS
from .kingmaking import kingmaking
from .leverage import REPORT_PLAYOUTS, REPORT_POSITIONS, leverage
from .luck import luck_by_source
from .report import (game_section, kingmaking_part, leverage_part, restricted_part, staged,
                     write_page)
from .restricted import REPORT_GAMES as RESTRICTED_GAMES
from .restricted import restricted
from .robust import ROBUST_GAMES, robustness
from .skill import (MARGIN, RUNG_GAMES, SEARCH_GAMES, check_playable,
                    resolve_rungs, skill_verdicts)
from .tournament import lineups, rotations, tournament

GAMES_PER_GAME = 200_000
"""Default games per game (at least this many, in a tournament of all built-in policies)."""
COUNTERFACTUAL_GAMES = 3_000
"""Default games per switched-off thing in the counterfactual replays."""
LADDER_GAMES = 8
"""Game indices per seating of the report's skill ladder (its search rung's games are slow);
the seat is rotated across game indices (``ladder``'s ``rotation="across"``), so the ladder
spans players x this many game indices (32 at 4 seats) at the cost of 8."""
LUCK_GAMES = 10_000
"""Game indices of the report's luck by source (each played 2 + sources times)."""
DEFAULT_RUNGS = 4
"""The most rungs ``default_rungs`` gives: three policies and a search rung."""


def say(message: str) -> None:
    """Progress lines, flushed so that they show while the job runs."""
    print(message, flush=True)


Rungs = Sequence[Any] | Mapping[str, Sequence[Any]] | None


def balance(out: str | os.PathLike = "report", games: int = GAMES_PER_GAME, players: int = 4,
            seed: int = 0, counterfactual_games: int = COUNTERFACTUAL_GAMES,
            log: Callable[[str], None] = say, *, rungs: Rungs = None,
            rung_games: int = RUNG_GAMES, search_games: int | None = None,
            ladder_games: int = LADDER_GAMES, margin: float = MARGIN,
            robust_games: int = ROBUST_GAMES, luck_games: int = LUCK_GAMES,
            leverage_positions: int = REPORT_POSITIONS,
            kingmaking_games: int = KINGMAKING_GAMES,
            restricted_games: int = RESTRICTED_GAMES) -> Path:
    """Run every registered game and write ``out/index.html`` (swapped in whole when done: an
    interrupted run leaves ``out`` as it was and its finished results in ``OUT.partial``).
    Every game is played with its default rules, so that each headline is true of the game as
    its defaults play it. Each game: a tournament of all its built-in policies at ``players``
    seats (every line-up, every rotation, at least ``games`` games in all on shared seeds),
    results in ``out/<game>-results.parquet``; for a game that declares measuring rules
    (``Game.measuring``: Lapin's characters dealt rather than chosen) the same tournament
    again under them, for the table by character only, in ``out/<game>-measured.parquet``;
    then each switch-off replayed on ``counterfactual_games`` games of one table (the games
    with the rules as they are come from the tournament when it played that table), table in
    ``out/<game>-counterfactual.parquet``; then the verdicts by skill (``analyses.skill``):
    ``rung_games`` games at each rung of ``rungs`` (policy specs from the weakest to the
    strongest, every seat one rung; one list for every game, or a mapping from game name to
    its list; default, and for a game the mapping does not name: the tournament's lowest-,
    second highest- and highest-rated policies and, for a game with search agents, its
    search rung (``strong_rungs``) on ``search_games`` games (None: the game's own,
    ``agent.strong_games``)), tables in
    ``out/<game>-skill.parquet`` and, the tested changes between rungs,
    ``out/<game>-skill-changes.parquet`` (``margin``: the equivalence margin of every
    verdict, ``skill.MARGIN``); then the
    skill ladder (``analyses.ladder``, ``ladder_games`` game indices per seating, the seat
    rotated across game indices: players x ``ladder_games`` indices) of
    the weakest rung, the strongest heuristic and, where the game has search agents, the
    search rung; then, for a game that declares alternatives (``Game.alternatives``), every
    verdict under each (``analyses.robust``: ``robust_games`` game indices per seating of the
    counterfactual table, rotated; each switch-off's causal effect replayed under each too, on
    ``counterfactual_games`` games), table in ``out/<game>-robustness.parquet``, its tags
    beside the headlines and the skill table; then luck by source (``analyses.luck``) at the
    counterfactual table on ``luck_games`` game indices; then, for a game with search agents,
    the designer's lenses: decision leverage and accuracy (``analyses.leverage``) at the
    counterfactual table, ``leverage_positions`` decisions, decisions in
    ``out/<game>-leverage.parquet``; kingmaking (``analyses.kingmaking``, its default policy
    and settings, ``kingmaking.REPORT_PLAYOUTS`` playouts) on ``kingmaking_games`` game
    indices, decisions in ``out/<game>-kingmaking.parquet``; restricted play
    (``analyses.restricted``: every probe the game declares, at its default rungs) on
    ``restricted_games`` game indices, table in ``out/<game>-restricted.parquet``; a count of
    0 leaves a lens out. The report is computed from the frames in memory (the Parquet files
    are for the user)."""
    check_int("games", games)
    check_int("counterfactual_games", counterfactual_games)
    check_int("players", players, 2)
    check_int("rung_games", rung_games)
    if search_games is not None:
        check_int("search_games", search_games)
    check_int("ladder_games", ladder_games)
    check_int("robust_games", robust_games)
    check_int("luck_games", luck_games, 2)
    check_int("leverage_positions", leverage_positions, 0)
    check_int("kingmaking_games", kingmaking_games, 0)
    check_int("restricted_games", restricted_games, 0)
    if not 0 < margin < 1:
        raise ValueError(f"margin must be a win-rate difference between 0 and 1 (--margin: "
                         f"in points, between 0 and 100), got {margin!r}")
    for spec in registry.all_games():
        budget.check_players(spec, players)
    budget.check_destination(out, replaced=True)
    ladders = _ladders(rungs, players, seed)
    for spec in registry.all_games():
        _check_plan(spec, out, games, players, counterfactual_games, rung_games,
                    len(ladders[spec.name] or ()) or DEFAULT_RUNGS, robust_games, luck_games)
    with staged(out, keep_partial=True) as folder:
        page = _write(folder, games, players, seed, counterfactual_games, log, ladders,
                      rung_games, search_games, ladder_games, margin, robust_games, luck_games,
                      (leverage_positions, kingmaking_games, restricted_games))
    return Path(out) / page.name


def _check_plan(spec: registry.Game, out: str | os.PathLike, games: int, players: int,
                counterfactual_games: int, rung_games: int, rungs: int,
                robust_games: int, luck_games: int) -> None:
    """The runaway rule (``simcore.budget``) for one game's part of the report: the games of
    its tournament, switch-offs, rungs, alternatives and luck by source; the tournament's
    results held in memory with a switch-off's pair of runs, and written to ``out``."""
    rules = measuring_rules(spec)
    played = _seatings(spec, players) * _per_seating(spec, games, players)
    things = len(switch_offs(spec.module(), rules, players))
    robust = ((len(spec.alternatives) + 1) * (players * robust_games
                                              + (things + 1) * counterfactual_games)
              if spec.alternatives else 0)
    luck = luck_games * (2 + len(redraw_sources(spec)))
    budget.check(spec, played + counterfactual_games * things + rung_games * rungs + robust + luck,
                 players,
                 rules=[rules], held=played + 2 * counterfactual_games, out=out, written=played)


def _seatings(spec: registry.Game, players: int) -> int:
    """The tournament's seatings: every line-up of the built-in policies, every rotation."""
    return sum(len(rotations(lu)) for lu in lineups(sorted(spec.module().POLICIES), players))


def _per_seating(spec: registry.Game, games: int, players: int) -> int:
    """Games per seating, so that the tournament plays at least ``games``."""
    return max(1, -(-games // _seatings(spec, players)))


def _ladders(rungs: Rungs, players: int, seed: int) -> dict[str, list[Any] | None]:
    """Each game's rungs (None: the default), every spec checked before anything is played."""
    specs = registry.all_games()
    if isinstance(rungs, Mapping):
        unknown = sorted(set(rungs) - {g.name for g in specs})
        if unknown:
            raise ValueError(f"rungs: unknown game {unknown[0]!r}; games are "
                             f"{[g.name for g in specs]}")
    ladders = {g.name: resolve_rungs(rungs, g.name) for g in specs}
    for g in specs:
        if ladders[g.name] is not None:
            check_playable(g.module(), ladders[g.name], players, seed)
    return ladders


def default_rungs(ratings: pl.DataFrame, mod: Any) -> list[str]:
    """The weakest, the second strongest and the strongest policy of a tournament
    (``ratings``, by rating): the strongest policy's edge over a field is then measured at two
    rungs; then the policies the game ships (``BUNDLED``: the distilled policy) and, for a
    game with search agents, its search rung (``strong_rungs``)."""
    rated = ratings.filter(pl.col("bt_elo").is_not_null()).sort("bt_elo")["policy"].to_list()
    return list(dict.fromkeys([rated[0], *rated[-2:]])) + strong_rungs(mod)


def _strong_games(mod: Any) -> int:
    return mod.agent.strong_games if hasattr(mod, "agent") else SEARCH_GAMES


def strong_rungs(mod: Any) -> list[str]:
    """The rungs above the heuristics: the policies the game ships (``BUNDLED``, played as
    many games as a heuristic), then its search rung (``agent.strong``: the cheapest agent
    measured to beat its best heuristic), where it has search agents."""
    return sorted(getattr(mod, "BUNDLED", ())) + ([mod.agent.strong] if hasattr(mod, "agent")
                                                  else [])


def _write(out: Path, games: int, players: int, seed: int, counterfactual_games: int,
           log: Callable[[str], None], ladders: dict[str, list[Any] | None],
           rung_games: int, search_games: int | None, ladder_games: int,
           margin: float, robust_games: int, luck_games: int,
           lens_sizes: tuple[int, int, int]) -> Path:
    sections = []
    specs = registry.all_games()
    for spec in specs:
        name, mod = spec.name, spec.module()
        policies = sorted(mod.POLICIES)
        seatings, per_seating = _seatings(spec, players), _per_seating(spec, games, players)
        clock = time.perf_counter()
        log(f"{name}: tournament of {', '.join(policies)}: {seatings} seatings x "
            f"{per_seating:,} games ...")
        t = tournament(mod, policies, players, per_seating, seed)
        path = out / f"{name}-results.parquet"
        t.results.write_parquet(path, compression="zstd")
        clock = _lap(log, f"{name}: {t.results.height // players:,} tournament games played "
                          f"and written", clock)
        measured = None
        if spec.measuring:
            measured = tournament(mod, policies, players, per_seating, seed,
                                  rules=measuring_rules(spec)).results
            measured.write_parquet(out / f"{name}-measured.parquet", compression="zstd")
            clock = _lap(log, f"{name}: the tournament again with {spec.measuring_note}: "
                              f"played and written", clock)
        table = [policies[i % len(policies)] for i in range(players)]
        # the games with the rules as they are: from the tournament if it played them all
        base = (t.results.filter((pl.col("seating") == "|".join(table))
                                 & (pl.col("game") < counterfactual_games)).drop("seating"))
        full = base.height == counterfactual_games * players
        cf = counterfactual_impact(mod, table, counterfactual_games, seed,
                                   base=base if full else None)
        cf.write_parquet(out / f"{name}-counterfactual.parquet")
        clock = _lap(log, f"{name}: {cf['thing'].n_unique()} switch-offs x "
                          f"{counterfactual_games:,} counterfactual games played", clock)
        rungs = ladders.get(name) or default_rungs(t.ratings, mod)
        sv = skill_verdicts(mod, rungs, players, rung_games, seed,
                            top=t.ratings["policy"][0],
                            search_games=search_games or _strong_games(mod),
                            margin=margin)
        sv.table.write_parquet(out / f"{name}-skill.parquet")
        sv.changes.write_parquet(out / f"{name}-skill-changes.parquet")
        clock = _lap(log, f"{name}: verdicts at rungs {', '.join(sv.rungs)}: "
                          f"{sv.games_said()} played", clock)
        rated = t.ratings["policy"].to_list()
        steps = list(dict.fromkeys([rated[-1], rated[0]]))
        steps += strong_rungs(mod)
        lad = None
        if len(steps) > 1:      # (a game with one policy and no search has no ladder)
            lad = ladder(mod, steps, players, ladder_games, seed, rotation="across")
            lad.results.write_parquet(out / f"{name}-ladder.parquet")
            clock = _lap(log, f"{name}: skill ladder of {', '.join(lad.rungs)}: "
                              f"{ladder_games:,} game indices per seating, "
                              f"{lad.indices:,} in all, played", clock)
        rb = None
        if spec.alternatives:
            rb = robustness(mod, None, table, players, robust_games, seed, margin=margin,
                            causal_games=counterfactual_games)
            rb.changes.write_parquet(out / f"{name}-robustness.parquet")
            clock = _lap(log, f"{name}: every verdict under {len(rb.alternatives)} "
                              f"alternative(s): {robust_games:,} game indices per seating "
                              f"played", clock)
        lk = luck_by_source(mod, table, players, luck_games, seed)
        lk.shares.write_parquet(out / f"{name}-luck.parquet")
        clock = _lap(log, f"{name}: luck by source: {luck_games:,} game indices x "
                          f"{2 + lk.shares['source'].n_unique()} draws played", clock)
        lenses = _lenses(spec, table, players, seed, lens_sizes, out, log) \
            if hasattr(mod, "agent") else []    # their evaluator is a search
        clock = time.perf_counter()             # (each lens logged its own time)
        note = (f"Tournament of the built-in policies {', '.join(policies)} at {players} seats: "
                f"{seatings} seatings (every line-up of at least two policies, every rotation), "
                f"{per_seating:,} games each on the same seeds (seed {seed}). Counterfactual "
                f"replays: the table {' | '.join(table)} (seat 0 first) on {counterfactual_games:,}"
                f" games per thing.{_rules_note(spec)} Results: {path.name}.")
        sections.append(game_section(t.results, out, counterfactual=cf, note=note, skill=sv,
                                     ladder=lad, measured=measured, robust=rb, luck=lk,
                                     lenses=lenses))
        _lap(log, f"{name}: report tables and plots written", clock)
    return write_page(sections, out, "Balance report: " + ", ".join(g.title for g in specs))


def _lenses(spec: registry.Game, table: list[str], players: int, seed: int,
            sizes: tuple[int, int, int], out: Path, log: Callable[[str], None]
            ) -> list[tuple[str, str]]:
    """The designer's lenses of one game's section, each as (headline, body), at the sizes
    (leverage positions, kingmaking games, restricted games) where above 0."""
    positions, king_games, restrict_games = sizes
    parts, clock, name = [], time.perf_counter(), spec.name
    if positions:
        lev = leverage(spec, players, positions, table, REPORT_PLAYOUTS, seed)
        lev.decisions.write_parquet(out / f"{name}-leverage.parquet")
        parts.append(leverage_part(lev))
        clock = _lap(log, f"{name}: decision leverage at {lev.decisions.height:,} decisions "
                          f"x {REPORT_PLAYOUTS} playouts per option valued", clock)
    if king_games:
        km = kingmaking(spec.name, players, king_games, playouts=KINGMAKING_PLAYOUTS, seed=seed)
        km.decisions.write_parquet(out / f"{name}-kingmaking.parquet")
        parts.append(kingmaking_part(km, name))
        clock = _lap(log, f"{name}: kingmaking on {king_games:,} game indices x "
                          f"{KINGMAKING_PLAYOUTS} playouts per option judged", clock)
    if restrict_games:
        rs = restricted(spec.name, players, games=restrict_games, seed=seed)
        rs.table.write_parquet(out / f"{name}-restricted.parquet")
        parts.append(restricted_part(rs))
        _lap(log, f"{name}: restricted play, {rs.table.height} probes x rungs on "
                  f"{restrict_games:,} game indices played", clock)
    return parts


def measuring_rules(spec: registry.Game) -> object:
    """The game's default rules with the values it declares for measuring (``Game.measuring``;
    e.g. characters dealt at random rather than chosen, so that a table by character measures
    the characters rather than who chose them from which seat)."""
    return spec.module().load_rules().replace(**spec.measuring)


def _rules_note(spec: registry.Game) -> str:
    return (f" Every figure plays the default rules except the table by character: "
            f"{spec.measuring_note}." if spec.measuring else "")


def _lap(log: Callable[[str], None], what: str, since: float) -> float:
    """Log ``what`` with the seconds since ``since``; returns now."""
    now = time.perf_counter()
    log(f"{what} in {now - since:.1f} s")
    return now
