"""bloomsim: a fast, verified simulator of Broom Service (alea 2015).

>>> import bloomsim
>>> df = bloomsim.simulate(["random", "greedy", "careful", "cloud"], 1000, seed=1)
"""
from pathlib import Path

from simcore.jitcache import forget_stale

forget_stale(Path(__file__).parent)   # before any kernel loads from the cache

from simcore.policy import policy

from .api import agent, decision_logs, replay, simulate
from .distilled import BUNDLED
from .forward import env, new_game
from .policies import POLICIES, TUNED, WEIGHTS, heuristic
from .rules import Rules, load_rules

__all__ = ["WEIGHTS", "TUNED", "heuristic", "agent", "decision_logs",
           "simulate", "replay", "new_game", "env", "load_rules", "Rules", "POLICIES", "BUNDLED",
           "policy"]
