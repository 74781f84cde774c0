"""The peer, OpenSpiel, on one thread: its hearts (C++ game) driven from Python with random
play, and its ISMCTS bots (C++ and Python) searching leduc poker.

Hearts is how a Python user runs OpenSpiel rollouts. The loop is written as fast as plain Python
allows (bound methods, ``random()`` indexing), so the comparison does not flatter us. Hearts'
chance nodes (pass direction, deal) are uniform, so a uniform pick over ``legal_actions`` at a
chance node samples them correctly; ``check_uniform_chance`` verifies that.

ISMCTS is timed as ours is (``agents.time_searches``), a fixed number of iterations per
decision, each iteration a random rollout. The games differ: leduc poker ends within a few
actions, while an iteration of ours replays the position's turn and plays a board game on with
heuristic playouts; the rates say what each search costs per iteration, not which search is
faster at the same game.
"""
from __future__ import annotations

import random
import time

from .agents import time_searches
from .stats import load, summary


def _rollouts(game, n_games: int, seed: int, count_decisions: bool) -> int:
    """Play ``n_games`` random games; return the steps, or the decisions (untimed pass)."""
    rnd = random.Random(seed).random
    total = 0
    for _ in range(n_games):
        state = game.new_initial_state()
        apply, legal, terminal = state.apply_action, state.legal_actions, state.is_terminal
        if count_decisions:
            while not terminal():
                total += not state.is_chance_node()
                actions = legal()
                apply(actions[int(rnd() * len(actions))])
        else:
            while not terminal():
                actions = legal()
                apply(actions[int(rnd() * len(actions))])
                total += 1
    return total


def check_uniform_chance(game, seed: int) -> None:
    """Raise if a chance node of one game has non-uniform outcomes."""
    rnd = random.Random(seed).random
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            probs = {p for _, p in state.chance_outcomes()}
            if max(probs) - min(probs) > 1e-12:
                raise RuntimeError("hearts chance outcomes are not uniform; the peer loop "
                                   "would sample them wrongly")
        actions = state.legal_actions()
        state.apply_action(actions[int(rnd() * len(actions))])


def hearts(n_games: int, reps: int, seed: int) -> dict:
    """Games/s, steps/s (chance included) and decisions/s of random hearts rollouts."""
    import pyspiel
    game = pyspiel.load_game("hearts")
    check_uniform_chance(game, seed)
    n_dec = _rollouts(game, n_games, seed, count_decisions=True)   # the same games as timed
    games, steps, decs = [], [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        n_steps = _rollouts(game, n_games, seed, count_decisions=False)
        dt = time.perf_counter() - t0
        games.append(n_games / dt)
        steps.append(n_steps / dt)
        decs.append(n_dec / dt)
    return {"game": "open_spiel hearts", "engine": "open_spiel (Python-driven)", "threads": 1,
            "batch": n_games, "reps": reps, "version": _version(),
            **summary("games_per_s", games), **summary("steps_per_s", steps),
            **summary("decisions_per_s", decs), "decisions_per_game": n_dec / n_games,
            "load": load()}


ISMCTS_GAME = "leduc_poker"
UCT_C = 2.0
"""OpenSpiel's usual UCT constant for its ISMCTS (leduc returns are chips, not win shares)."""


def leduc_positions(game, n: int, seed: int) -> list:
    """``n`` positions at a player's decision between two or more actions (where OpenSpiel's
    ISMCTS searches: a lone action is taken unsearched), after random play from the deal."""
    rnd = random.Random(seed)
    out = []
    while len(out) < n:
        state, moves = game.new_initial_state(), rnd.randrange(4)
        while not state.is_terminal() and (state.is_chance_node() or moves > 0):
            moves -= not state.is_chance_node()
            actions = state.legal_actions()
            state.apply_action(actions[rnd.randrange(len(actions))])
        if not state.is_terminal() and len(state.legal_actions()) > 1:
            out.append(state)
    return out


def ismcts(iterations: int, n_positions: int, reps: int, seed: int) -> list[dict]:
    """Iterations per CPU-second of OpenSpiel's C++ ``ISMCTSBot`` and its Python one on leduc
    poker, ``iterations`` per decision, each iteration ending in one random rollout."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts as py_ismcts
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game(ISMCTS_GAME)
    bots = {("C++", "pyspiel.ISMCTSBot"):
            pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), UCT_C, iterations),
            ("Python", "open_spiel.python.algorithms.ismcts.ISMCTSBot"):
            py_ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(
                1, np.random.RandomState(seed)), UCT_C, iterations,
                random_state=np.random.RandomState(seed))}
    positions = leduc_positions(game, n_positions, seed)
    return [{"game": f"open_spiel {ISMCTS_GAME}", "bot": lang, "class": cls,
             "agent": f"ismcts-{iterations}", "threads": 1, "version": _version(),
             **time_searches(lambda state, _, bot=bot: bot.step(state), positions, iterations,
                             reps),
             "load": load()} for (lang, cls), bot in bots.items()]


def _version() -> str:
    from importlib.metadata import version
    return version("open_spiel")


def available() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True
