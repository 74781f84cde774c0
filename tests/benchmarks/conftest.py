"""A fake engine with the public API of bloomsim/rapinsim, so the harness is tested on its own:
games take a known number of decisions, and the reference engine plays the same games."""
from __future__ import annotations

import numpy as np
import pytest

from benchmarks.plan import Game
from simcore.results import frame


class FakeEngine:
    def __init__(self):
        self.POLICIES = {"random": 0, "slowpoke": 1}
        self.calls = []

    def simulate(self, policies, n_games, seed, *, engine="compiled", threads=None,
                 progress=None, out=None):
        self.calls.append((engine, len(policies), n_games, threads))
        games = np.arange(n_games)
        names = [p if isinstance(p, str) else p.name for p in policies]
        rank = np.tile(np.arange(1, len(policies) + 1, dtype=np.int8), (n_games, 1))
        return frame(0, names, {"rank": rank},
                     {"decisions": (10 + (games + seed) % 5).astype(np.int32)})


class FakeGame(Game):
    def load(self):
        return self.engine

    def players(self):
        return 2, 5


@pytest.fixture
def fake_game():
    game = FakeGame("bloomsim", "Fake game")
    object.__setattr__(game, "engine", FakeEngine())
    return game
