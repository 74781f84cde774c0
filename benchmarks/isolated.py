"""Start-up and memory, each measured in a fresh interpreter (``benchmarks.child``).

Cold: a fresh ``NUMBA_CACHE_DIR`` per run, so every kernel compiles. Warm: the cache the last
cold run filled or, with no cold run (quick, smoke), the inherited cache after one untimed run
has filled it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .plan import SEED, Game, Plan
from .stats import load, summary


def child(args: list, cache: Path | None = None) -> dict:
    """Run ``benchmarks.child`` with ``args``; its JSON result plus the process wall time."""
    env = dict(os.environ)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "benchmarks.child", *map(str, args)],
                          env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"benchmark child {args} failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]), process_s=wall)


def _startup_record(game: Game, kind: str, runs: list[dict]) -> dict:
    rec = {"game": game.module, "kind": kind, "reps": len(runs)}
    for key in ("first_result_s", "process_s", "user_policy_compile_s", "user_first_result_s"):
        rec.update(summary(key, [r[key] for r in runs]))
    return dict(rec, load=load())


def startup(game: Game, plan: Plan) -> list[dict]:
    args = ["first-result", game.module, SEED]
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as tmp:
        caches = [Path(tmp) / f"cold{i}" for i in range(plan.cold_reps)]
        cold = [child(args, cache) for cache in caches]
        if not cold:
            child(args)
        warm = [child(args, caches[-1] if caches else None) for _ in range(plan.warm_reps)]
    return ([_startup_record(game, "cold", cold)] if cold else []) + \
        ([_startup_record(game, "warm", warm)] if warm else [])


def memory(game: Game, plan: Plan) -> dict:
    """Peak resident memory of streaming ``plan.memory_games`` games to Parquet."""
    with tempfile.TemporaryDirectory(prefix="bench-stream-") as tmp:
        out = Path(tmp) / "run"
        res = child(["stream", game.module, SEED, plan.memory_games, out])
        parquet = sum(f.stat().st_size for f in out.glob("*.parquet"))
    return {"game": game.module, "n_games": plan.memory_games, **res,
            "parquet_mb": parquet / 1e6, "load": load()}
