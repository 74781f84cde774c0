"""A toy third game, in a few dozen lines, that declares the game contract (simcore.games) and
nothing else: "dice race". Each seat rolls a die per round for ROUNDS rounds and either keeps
the roll or banks a sure 3; a bonus card drawn per game gives +2 to one seat. Highest total
wins. It shows that analyses and benchmarks reach a game only through its declaration."""
from __future__ import annotations

import numpy as np

from simcore.games import Game, Things, register
from simcore.results import frame

ROUNDS = 6
POLICIES = {"random": 0, "bold": 1, "safe": 2}


class Rules(dict):
    def replace(self, **kw):
        return Rules({**self, **kw})


def load_rules(path=None):
    return Rules(bonus=2, first_bonus=0)


def _draws(seed, games, salt):
    """Uniform 64-bit draws, one per (seed, game index, salt): splitmix64 of a counter, so a
    game's dice depend on nothing but (seed, game) and a whole batch is drawn at once."""
    with np.errstate(over="ignore"):
        z = (np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
             + games.astype(np.uint64) * np.uint64(0xBF58476D1CE4E5B9) + np.uint64(salt))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _play(policies, seed, games, rules):
    """Scores [games, seats] and the bonus card's seat [games]."""
    n = len(policies)
    score = np.zeros((games.size, n), np.int64)
    for r in range(ROUNDS):
        for s, p in enumerate(policies):
            u = _draws(seed, games, 1 + 8 * r + s)
            roll = (u % np.uint64(6)).astype(np.int64) + 1
            keep = {"bold": True, "safe": False}.get(p, (u >> np.uint64(32)) & np.uint64(1))
            score[:, s] += np.where(keep, roll, 3)
    bonus = (_draws(seed, games, 0) % np.uint64(n)).astype(np.int64)
    score[np.arange(games.size), bonus] += rules["bonus"]
    score[:, 0] += rules["first_bonus"]
    return score, bonus


def simulate(policies, n_games, seed, *, rules=None, engine="compiled", threads=None,
             progress=None, out=None, first_game=0):
    """A user policy (any object with a ``name``) plays as random."""
    names = [p if isinstance(p, str) else p.name for p in policies]
    bad = [p for p in policies if isinstance(p, str) and p not in POLICIES]
    if bad:
        raise ValueError(f"unknown policy {bad[0]!r}")
    policies = [p if isinstance(p, str) else "random" for p in policies]
    rules = load_rules() if rules is None else rules
    n = len(policies)
    score, bonus = _play(policies, seed, np.arange(first_game, first_game + n_games), rules)
    better = (score[:, None, :] > score[:, :, None]).sum(axis=2)     # seats ahead of each
    rank = (1 + better).astype(np.int8)
    top = rank == 1
    win = (top / top.sum(axis=1, keepdims=True)).astype(np.float32)
    card = np.zeros((n_games, n), np.int8)
    card[np.arange(n_games), bonus] = 1
    return frame(first_game, names, {"rank": rank, "win": win, "dice": score.astype(np.int16),
                                     "bonus_card": card},
                 {"n_players": np.full(n_games, n, np.int8),
                  "decisions": np.full(n_games, ROUNDS * n, np.int32)})


def replay(policies, seed, game, rules=None):
    score, bonus = _play(policies, seed, np.array([game]),
                         load_rules() if rules is None else rules)
    return f"dice race: scores {score[0].tolist()}, bonus card to seat {bonus[0]}"


def switch_offs(rules, players=None, events="replace"):
    return [("card", "bonus", "bonus worth 0", rules.replace(bonus=0))]


GAME = register(Game(name="toydice", title="Dice race", players=(2, 5), score="dice",
                     marks=("dice", "bonus_card"),
                     things=(Things("card", "prefix", "bonus_", seat_level=True),),
                     switch_offs=switch_offs, assumption_note="A toy game for the tests."))
