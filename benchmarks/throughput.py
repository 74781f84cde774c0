"""Games/s and decisions/s of an engine, timed in this process through the public API.

Every repetition plays the same games (same seed, games 0..batch-1) through ``simulate`` and
includes building the result frame, because that is what a user waits for. A warm-up call with
the same settings comes first, so compilation (or loading the cache) is never timed.

Besides wall time, each repetition records the process's CPU time (all threads): on a shared,
loaded machine games per CPU-second is disturbed far less than games per wall-second.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from simcore import policy

from .plan import GOAL_PLAYERS, SEED, Game, Plan
from .stats import load, summary
from .userpolicy import NAME as USER_POLICY
from .userpolicy import greedy

Simulate = Callable[..., pl.DataFrame]


@dataclass(frozen=True)
class Config:
    """One timed setting; the record keys of the results file."""

    game: str
    engine: str          # "compiled" or "reference"
    policy: str          # the policy every seat plays
    n_players: int
    threads: int
    batch: int


def decisions(df: pl.DataFrame) -> int:
    """Policy decisions in the games of a result frame (``decisions`` is a game-level column)."""
    return int(df.filter(pl.col("seat") == 0)["decisions"].sum())


def time_configs(simulate: Simulate, cfgs: Sequence[Config], seats: Sequence[Sequence],
                 seed: int, reps: int, min_rep_s: float) -> list[tuple[dict, pl.DataFrame]]:
    """Time ``reps`` repetitions of each config (seats[i] for cfgs[i]) and return each one's
    record and last frame. A repetition repeats the call until ``min_rep_s`` has passed
    (timeit's way of making a 1,000-game batch measurable). The configs' repetitions take
    turns, so that a burst of load on the shared machine hits them alike: a goal that is a
    ratio of two rates (``side_by_side``) is measured side by side."""
    kws = [{"engine": c.engine, "threads": c.threads, "progress": False} for c in cfgs]
    for cfg, seat, kw in zip(cfgs, seats, kws):
        simulate(seat, min(cfg.batch, 10), seed, **kw)      # warm-up: compile or load cache
    runs = [([], [], [], None) for _ in cfgs]     # rates, CPU rates, seconds per call, frame
    for _ in range(reps):
        for i, (cfg, seat, kw) in enumerate(zip(cfgs, seats, kws)):
            calls, t0, c0 = 0, time.perf_counter(), time.process_time()
            while True:
                df = simulate(seat, cfg.batch, seed, **kw)
                calls += 1
                dt = time.perf_counter() - t0
                if dt >= min_rep_s:
                    break
            cpu = time.process_time() - c0
            rates, cpu_rates, seconds, _ = runs[i]
            seconds.append(dt / calls)
            rates.append(cfg.batch * calls / dt)
            cpu_rates.append(cfg.batch * calls / cpu)
            runs[i] = (rates, cpu_rates, seconds, df)
    out = []
    for cfg, (rates, cpu_rates, seconds, df) in zip(cfgs, runs):
        n_dec = decisions(df)
        dec_rates = [r * n_dec / cfg.batch for r in rates]
        rec = {**cfg.__dict__, "reps": reps, "seconds_per_call": seconds,
               **summary("games_per_s", rates), **summary("decisions_per_s", dec_rates),
               **summary("games_per_cpu_s", cpu_rates),
               "decisions_per_game": n_dec / cfg.batch, "load": load()}
        out.append((rec, df))
    return out


def time_config(simulate: Simulate, cfg: Config, seats: Sequence, seed: int, reps: int,
                min_rep_s: float) -> tuple[dict, pl.DataFrame]:
    """``time_configs`` of one config."""
    return time_configs(simulate, [cfg], [seats], seed, reps, min_rep_s)[0]


def configs(game: Game, plan: Plan, policies: Sequence[str]) -> list[Config]:
    """The batch sweep (random players at the goal's count), the player-count sweep and the
    policy comparison, each at every thread count; duplicates dropped, smallest batch first so
    every run's time can be predicted from a smaller one."""
    lo, hi = game.players()
    cs = [Config(game.module, "compiled", "random", GOAL_PLAYERS, t, b)
          for b in plan.batches for t in plan.threads]
    cs += [Config(game.module, "compiled", "random", n, t, plan.sweep_batch)
           for n in range(lo, hi + 1) for t in plan.threads]
    cs += [Config(game.module, "compiled", p, GOAL_PLAYERS, t, plan.sweep_batch)
           for p in policies for t in plan.threads]
    return sorted(dict.fromkeys(cs), key=lambda c: c.batch)


def side_by_side(cs: Sequence[Config]) -> list[list[Config]]:
    """The configs in groups timed together (``time_configs``): at the goal's player count,
    every config of one batch size (each thread count, and at the sweep batch each policy,
    random included); every other config alone. The goals' ratios (1 -> 2 threads, a
    heuristic against random) are so measured side by side. Groups keep the order of their
    first config."""
    groups: dict = {}
    for c in cs:
        groups.setdefault(c.batch if c.n_players == GOAL_PLAYERS else c, []).append(c)
    return list(groups.values())


def benchmark(game: Game, plan: Plan, log: Callable[[str], None]) -> tuple[list[dict], list[str]]:
    """Time every config of ``game`` and its reference engine; return records and notes (runs
    skipped because they would exceed ``plan.max_run_s``, engines that disagree)."""
    engine = game.load()
    user = policy(USER_POLICY)(greedy)
    records, notes, rates = [], [], {}
    shipped = list(getattr(engine, "BUNDLED", ()))      # the distilled policy, beside them
    for group in side_by_side(configs(game, plan, [*engine.POLICIES, *shipped, USER_POLICY])):
        todo = []
        for cfg in group:
            rate = rates.get((cfg.policy, cfg.n_players, cfg.threads), rates.get(cfg.threads))
            if rate and cfg.batch / rate > plan.max_run_s:
                notes.append(f"{_label(cfg.__dict__)}: skipped, predicted {cfg.batch / rate:.0f} "
                             f"s per call > {plan.max_run_s:g} s")
            else:
                todo.append(cfg)
        seats = [[user if c.policy == USER_POLICY else c.policy] * c.n_players for c in todo]
        for rec, _ in time_configs(engine.simulate, todo, seats, SEED, plan.reps,
                                   plan.min_rep_s):
            rates[(rec["policy"], rec["n_players"], rec["threads"])] = rec["games_per_s"]
            rates[rec["threads"]] = rec["games_per_s"]
            log(_line(rec))
            records.append(rec)
    rec, same = reference(engine, game, plan)
    log(_line(rec))
    records.append(rec)
    if not same:
        notes.append(f"WARNING: {game.module} reference and compiled engines returned different "
                     f"results for games 0..{rec['batch'] - 1} of seed {SEED}")
    return records, notes


def reference(engine, game: Game, plan: Plan) -> tuple[dict, bool]:
    """The reference engine on games 0..n-1 of the same seed, n cut so that all repetitions
    together take about ``plan.max_run_s``; also whether the compiled engine agrees on them."""
    seats = ["random"] * GOAL_PLAYERS
    t0 = time.perf_counter()
    engine.simulate(seats, 3, SEED, engine="reference", threads=1, progress=False)
    per_game = (time.perf_counter() - t0) / 3
    n = max(1, min(plan.ref_games, int(plan.max_run_s / plan.reps / per_game)))
    cfg = Config(game.module, "reference", "random", GOAL_PLAYERS, 1, n)
    rec, ref = time_config(engine.simulate, cfg, seats, SEED, plan.reps, 0)
    return rec, ref.equals(engine.simulate(seats, n, SEED, threads=1, progress=False))


def _label(c: dict) -> str:
    return (f"{c['game']} {c['engine']} {c['policy']} {c['n_players']}p {c['threads']}thr "
            f"batch {c['batch']:,}")


def _line(r: dict) -> str:
    return (f"{_label(r)}: "
            f"{r['games_per_s']:,.0f} games/s ({r['games_per_s_min']:,.0f}-"
            f"{r['games_per_s_max']:,.0f}), {r['decisions_per_s']:,.0f} decisions/s, "
            f"load {r['load']}")
