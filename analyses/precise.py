"""Precision-targeted runs: play until every interval of the table is narrow enough, and plan
how many games a precision will need before playing.

Games are played in steps of consecutive game indices (``simulate(..., first_game=...)``), so a
run that stops after n games has played exactly games ``0..n-1`` of its seed: the same games a
fixed-size run of n would play. After each step the table's widest interval is compared with
the precision asked for; since a half-width shrinks as 1/sqrt(games), the games still needed
are projected from it, which gives the next step and the ETA.
"""
from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from simcore.runner import check_int

from .games import check_run, game_module
from .winrates import win_rates

STEP = 10_000
"""Games of the first step (the pilot) and the least any later step plays."""


def half_width(table: pl.DataFrame) -> float:
    """The widest half-width of a table's 95% intervals."""
    return float(((table["ci_high"] - table["ci_low"]) / 2).max())


def games_needed(games: int, width: float, precision: float) -> int:
    """Games for a half-width of ``precision`` where ``games`` gave ``width`` (1/sqrt(n))."""
    return max(games, math.ceil(games * (width / precision) ** 2))


@dataclass
class Precise:
    results: pl.DataFrame
    table: pl.DataFrame
    games: int
    precision: float
    half_width: float

    @property
    def met(self) -> bool:
        return self.half_width <= self.precision


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _check(precision: float) -> float:
    if isinstance(precision, bool) or not isinstance(precision, (int, float)) \
            or not 0 < precision < 0.5:
        raise ValueError(f"precision must be a half-width between 0 and 0.5 (0.01: +-1 "
                         f"percentage point), got {precision!r}")
    return float(precision)


def precise(game: Any, policies: Sequence[Any], precision: float, *, seed: int = 0,
            by: Sequence[str] = ("policy",), rules: Any = None, max_games: int = 10_000_000,
            step: int = STEP, log: Callable[[str], None] | None = _say) -> Precise:
    """Play games of ``seed`` until every 95% interval of ``win_rates(results, by)`` is at most
    +-``precision`` wide, or ``max_games`` have been played (then ``met`` is False).

    ``log`` gets a line per step: games played, the widest half-width, the projected total and
    the ETA (None: silent).
    """
    precision = _check(precision)
    check_int("max_games", max_games)
    check_int("step", step)
    mod = game_module(game)
    check_run(mod, max_games, len(policies), rules=rules)
    extra = {} if rules is None else {"rules": rules}
    parts: list[pl.DataFrame] = []
    played, start = 0, time.perf_counter()
    target = min(step, max_games)
    while True:
        n = target - played
        parts.append(mod.simulate(list(policies), n, seed, first_game=played, progress=False,
                                  **extra))
        played = target
        df = pl.concat(parts, rechunk=False)
        table = win_rates(df, by)
        width = half_width(table)
        need = min(games_needed(played, width, precision), max_games)
        if log is not None:
            rate = played / (time.perf_counter() - start)
            log(f"{played:,} games: widest interval +-{width:.4f} (asked +-{precision:.4f}); "
                f"projected {need:,} games, eta {max(need - played, 0) / rate:,.0f} s")
        if width <= precision or played >= max_games:
            return Precise(df, table, played, precision, width)
        target = min(max(need, played + step), max_games)


def plan(game: Any, policies: Sequence[Any], precision: float, *, seed: int = 0,
         by: Sequence[str] = ("policy",), rules: Any = None, pilot: int = 2_000) -> dict:
    """How many games a precision will need, from a pilot run of ``pilot`` games: the games,
    the seconds at the pilot's speed (compile time excluded: a first untimed call warms up),
    and the pilot's widest half-width."""
    precision = _check(precision)
    check_int("pilot", pilot)
    mod = game_module(game)
    extra = {} if rules is None else {"rules": rules}
    mod.simulate(list(policies), 10, seed, progress=False, **extra)
    clock = time.perf_counter()
    df = mod.simulate(list(policies), pilot, seed, progress=False, **extra)
    seconds = time.perf_counter() - clock
    width = half_width(win_rates(df, by))
    games = games_needed(pilot, width, precision)
    return {"games": games, "seconds": games * seconds / pilot, "pilot_games": pilot,
            "pilot_half_width": width, "precision": precision}
