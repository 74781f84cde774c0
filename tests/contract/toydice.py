"""A toy third game, in a few dozen lines, that declares the game contract (simcore.games) and
nothing else: "dice race". Each seat rolls a die per round for ROUNDS rounds and either keeps
the roll or banks a sure 3; a bonus card drawn per game gives +2 to one seat. Highest total
wins. It shows that analyses and benchmarks reach a game only through its declaration."""
from __future__ import annotations

import numpy as np

from simcore.games import Game, Things, register
from simcore.results import frame, rank_and_share

ROUNDS = 6
POLICIES = {"random": 0, "bold": 1, "safe": 2}


class Rules(dict):
    def replace(self, **kw):
        return Rules({**self, **kw})


def load_rules(path=None):
    return Rules(bonus=2, first_bonus=0)


def _play(policies, seed, game, rules):
    rng = np.random.default_rng([seed, game])
    n = len(policies)
    rolls = rng.integers(1, 7, (ROUNDS, n))
    coin = rng.random((ROUNDS, n)) < 0.5
    keep = np.array([[True if p == "bold" else False if p == "safe" else c for p, c in
                      zip(policies, row)] for row in coin])
    score = np.where(keep, rolls, 3).sum(axis=0)
    bonus = int(rng.integers(0, n))
    score[bonus] += rules["bonus"]
    score[0] += rules["first_bonus"]
    return score.astype(np.int16), bonus


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
    score = np.zeros((n_games, n), np.int16)
    rank = np.zeros((n_games, n), np.int8)
    win = np.zeros((n_games, n), np.float32)
    bonus = np.zeros((n_games, n), np.int8)
    for g in range(n_games):
        score[g], b = _play(policies, seed, first_game + g, rules)
        bonus[g, b] = 1
        rank_and_share(score[g], np.zeros(n, np.int16), n, rank[g], win[g])
    return frame(first_game, names, {"rank": rank, "win": win, "dice": score, "bonus_card": bonus},
                 {"n_players": np.full(n_games, n, np.int8),
                  "decisions": np.full(n_games, ROUNDS * n, np.int32)})


def replay(policies, seed, game, rules=None):
    score, bonus = _play(policies, seed, game, load_rules() if rules is None else rules)
    return f"dice race: scores {score.tolist()}, bonus card to seat {bonus}"


def switch_offs(rules, players=None):
    return [("card", "bonus", "bonus worth 0", rules.replace(bonus=0))]


GAME = register(Game(name="toydice", title="Dice race", players=(2, 5), score="dice",
                     marks=("dice", "bonus_card"),
                     things=(Things("card", "prefix", "bonus_", seat_level=True),),
                     switch_offs=switch_offs, assumption_note="A toy game for the tests."))
