"""Measurements that need a fresh interpreter; run by the startup and memory benchmarks as
``python -m benchmarks.child KIND GAME SEED [N_GAMES OUT]``, printing one JSON line.

Only the standard library is imported before the clock starts, so "import to first result"
includes importing numpy, numba, polars and the engine, and loading or compiling its kernels.
"""
from __future__ import annotations

import importlib
import json
import sys
import time

FIRST_GAMES = 1_000
PLAYERS = 4


def first_result(game: str, seed: int) -> dict:
    """Time from import to a first result, then a new user policy: its compilation and its
    first result (which shows whether the engine recompiles for it)."""
    t0 = time.perf_counter()
    engine = importlib.import_module(game)
    engine.simulate(["random"] * PLAYERS, FIRST_GAMES, seed, progress=False)
    t1 = time.perf_counter()
    from benchmarks.userpolicy import NAME, greedy
    from simcore import policy
    user = policy(NAME)(greedy)
    t2 = time.perf_counter()
    engine.simulate([user] + ["random"] * (PLAYERS - 1), FIRST_GAMES, seed, progress=False)
    t3 = time.perf_counter()
    return {"first_result_s": t1 - t0, "user_policy_compile_s": t2 - t1,
            "user_first_result_s": t3 - t2}


def _mb(kib: int) -> float:
    return kib * 1024 / 1e6


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as f:  # Linux reports these in KiB
        return _mb(next(int(line.split()[1]) for line in f if line.startswith(field)))


def _peak_mb() -> float:
    """This process's peak RSS. Not ``ru_maxrss``: Linux keeps that across fork and exec, so
    it would report the parent's peak when the parent was bigger."""
    return _status_mb("VmHWM:")


def _rss_mb() -> float:
    return _status_mb("VmRSS:")


def stream(game: str, seed: int, n_games: int, out: str) -> dict:
    """Stream ``n_games`` to Parquet in ``out``: peak resident memory of the whole process, and
    the peak reached by half-way (the same when memory is bounded by the chunk, not the run)."""
    engine = importlib.import_module(game)
    engine.simulate(["random"] * PLAYERS, FIRST_GAMES, seed, progress=False)
    base = _rss_mb()
    half = [_peak_mb()]

    def sample(done: int, total: int) -> None:
        if 2 * done <= total:
            half.append(_peak_mb())

    t0 = time.perf_counter()
    engine.simulate(["random"] * PLAYERS, n_games, seed, out=out, progress=sample)
    seconds = time.perf_counter() - t0
    return {"base_rss_mb": base, "half_peak_rss_mb": half[-1], "peak_rss_mb": _peak_mb(),
            "seconds": seconds, "games_per_s": n_games / seconds}


def main(argv: list[str]) -> None:
    kind, game, seed, *rest = argv
    if kind == "first-result":
        result = first_result(game, int(seed))
    else:
        result = stream(game, int(seed), int(rest[0]), rest[1])
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
