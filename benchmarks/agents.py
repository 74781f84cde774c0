"""The search agents' speed (``simcore.search``): search decisions per second at each budget,
timed one decision at a time through the forward model (``ForwardGame.search``) at positions
of random play, with the search iterations per CPU-second of the thread running them; and
whole games per second with one search seat against heuristic seats at ``GOAL_PLAYERS``, on
one thread and on two (the search's thread scaling: each game is one thread's, so two threads
play two games at once).

Budgets are iterations, so a timed game is the same game on every machine: only its time
changes.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import replace

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import polars as pl

from .plan import GOAL_PLAYERS, SEED, Game, Plan
from .stats import load, summary

FIELD = "careful"
"""The heuristic the other seats play (the strongest built-in of both games)."""


def positions(engine, n: int, seed: int) -> list:
    """``n`` forward-model positions at a decision, after random play from game starts."""
    rng = np.random.default_rng(seed)
    out, k = [], 0
    while len(out) < n:
        g = engine.new_game(GOAL_PLAYERS, seed, k)
        for _ in range(int(rng.integers(0, 120))):
            if g.done:
                break
            g.step(int(rng.integers(g.to_act[1])))
        if not g.done:
            out.append(g)
        k += 1
    return out


def time_searches(search: Callable[[object, int], object], positions: list,
                  iterations: int, reps: int) -> dict:
    """``search(position, i)`` (one decision of ``iterations`` search iterations) timed at each
    position, ``reps`` times over, after an untimed first call (compiling or loading a cache).
    Seconds per decision: the median over every timed call. Iterations per CPU-second: each
    repetition's iterations over its CPU time, summarized over the repetitions. CPU time is the
    calling thread's (``thread_time``), where every search here runs: the process's would also
    count other threads, e.g. a thread pool left spinning by an earlier run."""
    search(positions[0], 0)
    times, rates = [], []
    for _ in range(reps):
        cpu = 0.0
        for i, pos in enumerate(positions):
            t0, c0 = time.perf_counter(), time.thread_time()
            search(pos, i)
            cpu += time.thread_time() - c0
            times.append(time.perf_counter() - t0)
        rates.append(iterations * len(positions) / cpu)
    med = statistics.median(times)
    return {"decision_s": med, "decisions_per_s": 1 / med, "positions": len(positions),
            "reps": reps, "iterations_per_decision": iterations,
            "timed_iterations": iterations * len(positions) * reps,
            **summary("iterations_per_cpu_s", rates)}


def decisions(engine, agent, plan: Plan) -> dict:
    """Search decisions of ``agent`` (a game's ``agent(...)``) over the plan's positions:
    seconds per decision and iterations per CPU-second (``time_searches``)."""
    return time_searches(lambda g, i: g.search(agent, i),
                         positions(engine, plan.agent_positions, SEED),
                         agent.iterations_per_decision, plan.reps)


def busy(spans: list[tuple[float, float]], threads: int) -> list[bool]:
    """Which games of a run on ``threads`` threads (``spans``: each game's start and end) ran
    beside ``threads - 1`` others throughout: those that ended before the first thread found
    no game left (the first end after the last start). The rest ran partly alone."""
    if threads == 1:
        return [True] * len(spans)
    last_start = max(a for a, _ in spans)
    idle = min(b for _, b in spans if b > last_start)
    return [b <= idle for _, b in spans]


def games(engine, spec: str, thread_counts: list[int], n: int, reps: int) -> dict:
    """Seconds per game of one ``spec`` seat and ``GOAL_PLAYERS - 1`` ``FIELD`` seats, for
    each thread count: games 0..n-1 of ``SEED`` (the same games on every count, so the thread
    scaling compares like with like), each game its own ``simulate`` call on one thread, taken
    by the next free thread (games differ in length: a fixed split would leave a thread idle).
    Each repetition times every count in turn, so a shared machine's drift in speed falls on
    all of them alike; the median of ``reps`` per count.

    Two scalings per count t: ``wall_scaling``, these n games' wall time on 1 thread over
    theirs on t (capped below t by the games that run alone at the end: few, uneven games), and
    ``scaling``, what a long run on t threads gains: t times the games' time alone over their
    time beside t - 1 others (games that ran partly alone left out, ``busy``), each repetition
    paired with its own 1-thread run."""
    seats = [spec] + [FIELD] * (GOAL_PLAYERS - 1)
    engine.simulate(seats, 1, SEED, threads=1, progress=False)     # compile untimed

    def one(i):
        t0 = time.perf_counter()
        frame = engine.simulate(seats, 1, SEED, threads=1, progress=False, first_game=i)
        return frame, (t0, time.perf_counter())

    if n < max(thread_counts):
        raise ValueError(f"{n} games cannot keep {max(thread_counts)} threads busy")
    wall, scaling, wall_scaling = ({t: [] for t in thread_counts} for _ in range(3))
    frames, one_thread = {}, min(thread_counts)
    for _ in range(reps):
        spans = {}
        for t in thread_counts:
            with ThreadPoolExecutor(t) as pool:
                t0 = time.perf_counter()
                frames[t], spans[t] = zip(*pool.map(one, range(n)))
                wall[t].append(time.perf_counter() - t0)
        alone = [b - a for a, b in spans[one_thread]]
        for t in thread_counts:
            keep = busy(spans[t], t)
            took = [b - a for a, b in spans[t]]
            scaling[t].append(t * sum(x for x, k in zip(alone, keep) if k)
                              / sum(y for y, k in zip(took, keep) if k))
            wall_scaling[t].append(wall[one_thread][-1] / wall[t][-1])
    out = {}
    for t, w in wall.items():
        med = statistics.median(w)
        out[f"threads_{t}"] = {"games": n, "s_per_game": med / n, "games_per_s": n / med,
                               "scaling": statistics.median(scaling[t]),
                               "wall_scaling": statistics.median(wall_scaling[t]),
                               "agent_win": float(pl.concat(frames[t])
                                                  .filter(pl.col("seat") == 0)["win"].mean())}
    return out


def benchmark(game: Game, plan: Plan, log: Callable[[str], None]) -> list[dict]:
    """Every agent at every budget of the plan: decisions/s; at the goal's budget also whole
    games on one and two threads."""
    engine = game.load()
    if not hasattr(engine, "agent"):
        return []
    two = min(2, numba.config.NUMBA_NUM_THREADS)
    out = []
    for algo in ("flat", "pimc", "ismcts"):
        for budget in plan.agent_budgets:
            agent = engine.agent(algo, budget)
            spec = agent.name
            full = replace(agent, adaptive=False)    # every decision runs every iteration
            rec = {"game": game.module, "agent": spec, "algo": algo, "iterations": budget,
                   "n_players": GOAL_PLAYERS, "field": FIELD, **decisions(engine, full, plan)}
            if algo == "ismcts" and budget == max(plan.agent_budgets):
                rec.update(games(engine, spec, sorted({1, two}), plan.agent_games, plan.reps))
            rec["load"] = load()
            log(_line(rec))
            out.append(rec)
    return out


def _line(r: dict) -> str:
    s = (f"{r['game']} {r['agent']}: {r['decisions_per_s']:,.1f} search decisions/s "
         f"(median of {r['positions']} positions x {r['reps']}), "
         f"{r['iterations_per_cpu_s']:,.0f} iterations/s per core")
    for t in (1, 2):
        if f"threads_{t}" in r:
            g = r[f"threads_{t}"]
            s += f"; {t} thr {g['s_per_game']:.2f} s/game ({g['games']} games)"
    return s
