"""``simulate`` and ``replay``, written once for every game.

A game hands them its :class:`Engines`: how to check a seating (the rules, one policy per seat,
the game's own per-seat options), play a range of games on its compiled or reference engine,
turn the raw results into the results frame, and tell one game as text. The rest is here: the
checks every game shares, the seed turned into the root key (once: every engine and every
replay receive the key), the manifest of a written dataset, and the chunked runner.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import polars as pl

from . import budget, runner
from .policy import SeatPolicies
from .progress import ProgressArg
from .results import rules_label, tag
from .rng import NO_REDRAW, redraw_key, root_key

POLICIES = "policies"
"""The redraw source that stands for every seat's own stream (a random policy's draws, a
search's seeds)."""
_SEAT_STREAMS = (1 << 16) - 1

ENGINES = ("compiled", "reference")


@dataclass(frozen=True)
class Seating:
    """What a call fixed before any game is played: the rules in force, the seats' policies,
    and the game's own options (e.g. a character per seat)."""

    rules: Any
    seats: SeatPolicies
    options: Mapping[str, Any] = field(default_factory=dict)


class Engines(Protocol):
    """What a game gives ``simulate`` and ``replay``."""

    game: Any
    """The game's declaration (``simcore.games.Game``): its ``name`` names it in errors,
    progress bars and manifests, its ``title`` in a replay's first line."""

    def seating(self, policies: Sequence, rules: Any, **options: Any) -> Seating:
        """Check everything the call was given (a clear ValueError naming the problem)."""

    def play(self, seating: Seating, key: int, start: int, n: int, engine: str,
             redraw: tuple[int, int]) -> Any:
        """Games start .. start + n - 1 of the root ``key`` on ``engine``, the streams of
        ``redraw`` (bit mask, key: ``redraw_streams``) drawn from that key: raw results."""

    def frame(self, seating: Seating, start: int, raw: Any) -> pl.DataFrame:
        """The results frame of ``play``'s raw results."""

    def tell(self, seating: Seating, key: int, game: int, redraw: tuple[int, int]) -> str:
        """Game ``game`` (``redraw`` as ``play``'s) as a readable log (the reference
        engine's), line by line."""

    def manifest(self, seating: Seating) -> dict:
        """What a written dataset records of the seating beyond the policies (the rules as
        data, the game's options)."""

    def logs(self, seating: Seating, key: int, start: int, n: int) -> list[np.ndarray]:
        """Games start .. start + n - 1 on the compiled engine, as their decision logs: per
        game int [decisions, 4] (seat, kind, options, choice), the choices a forward-model
        history (optional: ``decision_logs``)."""


def check_engine(engine: Any) -> str:
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
    return engine


def redraw_sources(game: Any) -> tuple[str, ...]:
    """What ``simulate``'s ``redraw`` may name: the game's chance sources, then ``policies``."""
    return (*game.chance, POLICIES)


def redraw_streams(game: Any, seed: int, redraw: tuple | None) -> tuple[int, int]:
    """``redraw`` = (source or sources, k) as the engines take it: the bit mask of their
    streams (``simcore.rng``; ``policies``: every seat's) and the key of redraw k."""
    if redraw is None:
        return NO_REDRAW
    if not isinstance(redraw, tuple | list) or len(redraw) != 2:
        raise ValueError(f"redraw must be (sources, k), got {redraw!r}")
    sources, k = redraw
    names = (sources,) if isinstance(sources, str) else tuple(sources)
    known = redraw_sources(game)
    bad = [s for s in names if s not in known]
    if bad or not names:
        raise ValueError(f"{game.name}: redraw names chance sources among {list(known)}, "
                         f"got {list(names)}")
    chance = list(game.chance)
    mask = 0
    for s in names:
        mask |= _SEAT_STREAMS << len(chance) if s == POLICIES else 1 << chance.index(s)
    return mask, redraw_key(seed, k)


def _seating(engines: Engines, policies: Sequence, rules: Any, engine: str,
             options: Mapping[str, Any]) -> Seating:
    seating = engines.seating(policies, rules, **options)
    if seating.seats.agents and engine == "reference":
        raise ValueError(f"{engines.game.name}: search agents play on the compiled engine only "
                         f"(engine='compiled'); replay tells games on the reference engine, "
                         f"so it cannot tell a game with a search agent")
    return seating


def simulate(engines: Engines, policies: Sequence, n_games: int, seed: int, *, rules=None,
             engine: str = "compiled", threads: int | None = None,
             progress: ProgressArg = None, out: str | os.PathLike | None = None,
             first_game: int = 0, redraw: tuple | None = None, **options: Any):
    """Play games ``first_game .. first_game + n_games - 1`` of ``seed``: a polars DataFrame,
    one row per game and seat; with ``out`` the rows stream to a Parquet dataset in that folder
    (resumable) and a LazyFrame over it is returned. Game i of a seed is the same game in every
    engine, thread count and batch split. ``redraw=(sources, k)``: every game's draws of
    those sources (``redraw_sources``) come from redraw k of the seed, all its other draws as
    they were (k = 0, 1, ... are independent redraws)."""
    check_engine(engine)
    seating = _seating(engines, policies, rules, engine, options)
    key = root_key(seed)
    streams = redraw_streams(engines.game, seed, redraw)
    if out is not None:
        budget.check(engines.game, runner.check_int("n_games", n_games),
                     len(seating.seats.names), rules=[seating.rules], out=out,
                     written=runner.games_to_write(Path(out), n_games))
    if progress is not None and not isinstance(progress, bool) and not callable(progress):
        raise ValueError(f"progress must be None, True, False or a callable, got {progress!r}")
    manifest = {"game": engines.game.name, "policies": list(seating.seats.names), "seed": seed,
                "engine": engine, **engines.manifest(seating)}
    if redraw is not None:
        manifest["redraw"] = [redraw[0] if isinstance(redraw[0], str) else list(redraw[0]),
                              int(redraw[1])]
    label = rules_label(engines.game, seating.rules)
    return runner.run(lambda start, n: engines.play(seating, key, start, n, engine, streams),
                      lambda start, raw: tag(engines.frame(seating, start, raw), label), n_games,
                      threads=threads, progress=progress, out=out, manifest=manifest,
                      label=engines.game.name, first_game=first_game)


def replay(engines: Engines, policies: Sequence, seed: int, game: int, *, rules=None,
           redraw: tuple | None = None, **options: Any) -> str:
    """The readable log of game ``game`` of ``simulate(policies, ..., seed, redraw=...)``,
    as the reference engine plays it (the same game the compiled engine plays)."""
    seating = _seating(engines, policies, rules, "reference", options)
    key = root_key(seed)
    streams = redraw_streams(engines.game, seed, redraw)
    runner.check_int("game", game, 0)
    head = f"{engines.game.title}, seed {seed}, game {game}: " + ", ".join(
        f"seat {s} {name}" for s, name in enumerate(seating.seats.names))
    return head + "\n" + engines.tell(seating, key, game, streams)


def decision_logs(engines: Engines, policies: Sequence, n_games: int, seed: int, *,
                  rules=None, first_game: int = 0, **options: Any) -> list[np.ndarray]:
    """The decision logs of games ``first_game .. first_game + n_games - 1`` of
    ``simulate(policies, ..., seed)``, one int array [decisions, 4] per game (seat, kind,
    number of options, choice): ``new_game(...).after(log[:k, 3])`` is the game at decision k
    (``simcore.forward.positions``)."""
    if not hasattr(engines, "logs"):
        raise ValueError(f"{engines.game.name} keeps no decision logs")
    seating = _seating(engines, policies, rules, "compiled", options)
    runner.check_int("n_games", n_games)
    runner.check_int("first_game", first_game, 0)
    return engines.logs(seating, root_key(seed), first_game, n_games)
