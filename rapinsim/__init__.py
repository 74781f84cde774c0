"""rapinsim: a fast, verified simulator of the Lapin treasure hunt
(ご注文はボドゲですか？〜木組みの街は大騒ぎ〜).

    import rapinsim
    df = rapinsim.simulate(["careful", "greedy", "random", "random"], 10_000, seed=1)
    print(rapinsim.replay(["careful", "greedy"], seed=1, game=0))
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
           "POLICIES", "BUNDLED", "Rules", "env", "load_rules", "new_game", "policy",
           "replay", "simulate"]
