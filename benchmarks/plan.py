"""What a benchmark run measures: the games, and the sizes of each mode (smoke, quick, full).

The sizes keep ``--quick`` under 2 minutes and the full run under 15 on a 2-core machine when
the engines run at their goal speeds and their kernels are cached (a cold compile is measured
only in the full run). A run whose predicted time exceeds ``max_run_s`` is skipped and recorded
as skipped rather than silently shortened; the memory run plays its games however long they
take.
"""
from __future__ import annotations

from dataclasses import dataclass

import numba

from simcore import games

SEED = 2026
"""Every timed run plays games 0..n-1 of this seed, so both engines play the same games."""

GOAL_PLAYERS = 4
"""The player count the goals are stated for."""


@dataclass(frozen=True)
class Game:
    module: str   # the game's public module (its registered name)
    title: str
    speed_goal: int = 0   # games/s for GOAL_PLAYERS random players on 2 threads

    def load(self):
        return games.get(self.module).module()

    def players(self) -> tuple[int, int]:
        return games.get(self.module).players


def all_games() -> dict[str, Game]:
    """Every registered game (``simcore.games``), looked up when asked: a game registered
    after this module was imported is measured too."""
    return {g.name: Game(g.name, g.title, g.speed_goal) for g in games.all_games()}


def game(name: str) -> Game:
    return all_games()[name]


@dataclass(frozen=True)
class Plan:
    mode: str
    reps: int                 # repetitions of every timed measurement
    batches: tuple[int, ...]  # batch sizes swept at GOAL_PLAYERS with random players
    sweep_batch: int          # batch of the player-count and policy comparisons
    ref_games: int            # games the reference engine plays (fewer if over max_run_s)
    max_run_s: float          # a compiled run predicted to take longer is skipped
    min_rep_s: float          # a repetition repeats the call until it lasts this long
    cold_reps: int            # cold starts (each in a fresh NUMBA_CACHE_DIR)
    warm_reps: int
    memory_games: int         # games streamed to Parquet in the memory run
    peer_games: int           # OpenSpiel hearts games per repetition
    agent_budgets: tuple[int, ...] = (100, 1000)   # search iterations per decision
    agent_positions: int = 5  # positions each search decision is timed at
    agent_games: int = 4      # games of the ISMCTS game timing (the same on 1 and 2 threads)

    @property
    def threads(self) -> tuple[int, ...]:
        """1 thread, 2 threads (the scaling goal) and all threads, those this machine has."""
        top = numba.config.NUMBA_NUM_THREADS
        return tuple(sorted({t for t in (1, 2, top) if t <= top}))


PLANS = {
    "smoke": Plan("smoke", reps=1, batches=(200,), sweep_batch=200, ref_games=4,
                  max_run_s=5, min_rep_s=0, cold_reps=0, warm_reps=1, memory_games=2_000,
                  peer_games=5, agent_budgets=(8,), agent_positions=2, agent_games=2),
    "quick": Plan("quick", reps=3, batches=(1_000, 10_000, 100_000), sweep_batch=2_000,
                  ref_games=40, max_run_s=2, min_rep_s=0.1, cold_reps=0, warm_reps=2,
                  memory_games=50_000, peer_games=300, agent_budgets=(100, 1000),
                  agent_positions=5, agent_games=4),
    "full": Plan("full", reps=3, batches=(1_000, 10_000, 100_000, 1_000_000),
                 sweep_batch=10_000, ref_games=1_000, max_run_s=30, min_rep_s=0.3,
                 cold_reps=3, warm_reps=5, memory_games=10_000_000, peer_games=3_000,
                 agent_budgets=(100, 300, 1000), agent_positions=20, agent_games=8),
}
