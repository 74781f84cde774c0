"""A toy third game that declares the game contract (simcore.games) and nothing else: "dice
race". Each round every seat rolls a die and keeps the roll or banks a sure 3; a bonus card
drawn per game gives +2 to one seat. Highest total wins. One plain-Python implementation of the
rules (``_play``) serves the batches and the forward model (``new_game``); it shows that
analyses, benchmarks, the command line and the conformance suite reach a game only through its
declaration."""
from __future__ import annotations

import numpy as np

from simcore import simulate as sim
from simcore.forward import ForwardGame, Halt
from simcore.games import Alternative, Game, Things, register
from simcore.policy import resolve
from simcore.results import frame, rules_label
from simcore.simulate import Seating
from simcore.rng import mix64, randint, root_key

ROUNDS = 6
KEEP = 0                      # the one decision kind: option 0 keeps the roll, 1 banks 3
OBS = 4                       # round, seat, own total, the roll


def _random(kind, obs, opts, n, rng):
    return randint(rng, 0, n)


POLICIES = {"random": _random, "bold": lambda *a: 0, "safe": lambda *a: 1}


class Rules(dict):
    def replace(self, **kw):
        return Rules({**self, **kw})


def load_rules(path=None):
    return Rules(bonus=2, first_bonus=0)


def _u(key, game, salt):
    return int(mix64(np.uint64(key) ^ mix64(np.uint64((game << 16) + salt))))


CHANCE = {"rolls": "each seat's die roll per round", "bonus": "the seat the bonus card goes to"}


def _keys(key, redraw):
    """The keys of the rolls, the bonus card and the seats: ``key``, or for a source whose bit
    ``redraw`` (mask, alt) sets (the seats' from bit 2 on, ``simcore.simulate``), its alt."""
    mask, alt = redraw
    return tuple(alt if mask >> b & 1 else key for b in range(3))


def _play(decide, n, key, game, rules, marks=(), bonus_key=None):
    """One game: ``decide(seat, obs, opts)`` -> option, or None to halt there. Returns
    (scores, bonus seat, decisions) or the Halt. A mark (decision, seat, seed) redraws
    everything after that decision (the coming rolls and the bonus card: hidden). The rolls
    draw from ``key``, the bonus card from ``bonus_key`` (default ``key``)."""
    score, k = [0] * n, 0
    for r in range(ROUNDS):
        for s in range(n):
            key_k = next((m[2] for m in reversed(marks) if m[0] < k), key)
            roll = 1 + _u(key_k, game, 1 + 8 * r + s) % 6
            obs = np.array([r, s, score[s], roll], np.float32)
            opts = np.array([[roll], [3]], np.float32)
            c = decide(s, obs, opts)
            if c is None:
                every = np.array([[r, p, score[p], roll if p == s else 0] for p in range(n)],
                                 np.float32)
                return Halt(False, s, KEEP, opts, every, np.array(score))
            score[s] += roll if c == 0 else 3
            k += 1
    bonus = _u(marks[-1][2] if marks else key if bonus_key is None else bonus_key, game, 0) % n
    score[bonus] += rules["bonus"]
    score[0] += rules["first_bonus"]
    return score, bonus, k


def _frame(start, names, rows, rules):
    score = np.array([s for s, _, _ in rows], np.int64)
    better = (score[:, None, :] > score[:, :, None]).sum(axis=2)
    rank = (1 + better).astype(np.int8)
    top = rank == 1
    card = np.zeros(score.shape, np.int8)
    card[np.arange(len(rows)), [b for _, b, _ in rows]] = 1
    return frame(start, names, {"rank": rank, "win": (top / top.sum(1, keepdims=True)
                                                       ).astype(np.float32),
                                "dice": score.astype(np.int16), "bonus_card": card},
                 {"n_players": np.full(len(rows), len(names), np.int8),
                  "decisions": np.array([d for _, _, d in rows], np.int32)})


class _Engines:
    """What ``simcore.simulate`` needs of the game: the rest (checks, keys, chunks, Parquet,
    progress, replay's head line) is written once there."""

    @property
    def game(self):
        return GAME

    def seating(self, policies, rules):
        seats = resolve(policies, {p: i for i, p in enumerate(POLICIES)}, "toydice", (2, 5))
        return Seating(load_rules() if rules is None else rules, seats)

    def _games(self, seating, key, start, n, log=None, redraw=(0, 0)):
        sp = seating.seats
        funcs = [list(POLICIES.values())[i] if i >= 0 else sp.user_py[-1 - i] for i in sp.ids]
        rolls, bonus, seats = _keys(key, redraw)
        rows = []
        for game in range(start, start + n):
            rng = np.array([_u(seats, game, 100 + s) for s in range(len(funcs))], np.uint64)

            def decide(s, obs, opts, game=game, rng=rng):
                c = funcs[s](KEEP, obs, opts, 2, rng[s:s + 1])
                if c not in (0, 1):
                    raise ValueError(f"policy {sp.names[s]!r} at seat {s} returned illegal "
                                     f"choice {c!r} for decision 'keep' (2 options) in game "
                                     f"{game}")
                if log is not None:
                    log.append(f"seat {s} rolls {int(obs[3])}: "
                               f"{'keeps it' if c == 0 else 'banks 3'}")
                return c
            rows.append(_play(decide, len(funcs), rolls, game, seating.rules, bonus_key=bonus))
        return rows

    def play(self, seating, key, start, n, engine, redraw):
        return self._games(seating, key, start, n, redraw=redraw)

    def frame(self, seating, start, rows):
        return _frame(start, seating.seats.names, rows, seating.rules)

    def tell(self, seating, key, game, redraw):
        log = []
        score, bonus, _ = self._games(seating, key, game, 1, log, redraw)[0]
        return "\n".join(log + [f"bonus card: seat {bonus}", f"scores {score}"]) + "\n"

    def manifest(self, seating):
        return {"rules": dict(seating.rules)}


def simulate(policies, n_games, seed, *, rules=None, engine="compiled", threads=None,
             progress=None, out=None, first_game=0, redraw=None):
    return sim.simulate(_Engines(), policies, n_games, seed, rules=rules, engine=engine,
                        threads=threads, progress=progress, out=out, first_game=first_game,
                        redraw=redraw)


def replay(policies, seed, game, rules=None):
    return sim.replay(_Engines(), policies, seed, game, rules=rules)


class _Engine:
    name, kind_names, obs_len, max_options, n_features = "Dice race", ("keep",), OBS, 2, 1
    game_name = "toydice"

    def __init__(self, n, seed, game, rules):
        self.n_players, self.key, self.game, self.rules = n, root_key(seed), game, rules

    def run(self, choices, marks):
        it = iter(choices)
        out = _play(lambda s, obs, opts: next(it, None), self.n_players, self.key, self.game,
                    self.rules, [tuple(int(x) for x in m) for m in marks])
        return out if isinstance(out, Halt) else Halt(True, result=out)

    def streams(self):
        return np.array([_u(self.key, self.game, 100 + s) for s in range(self.n_players)],
                        np.uint64)

    def policy(self, name):
        return POLICIES[name]

    def views(self, state):
        return {"scores": state}

    def describe(self, kind, row):
        return f"keep {int(row[0])}" if row[0] != 3 else "bank 3"

    def frame(self, halt):
        return _frame(self.game, ["forward"] * self.n_players, [halt.result], self.rules)


def new_game(n_players, seed, game=0, *, rules=None):
    if not 2 <= n_players <= 5:
        raise ValueError(f"toydice is played by 2 to 5 players, got {n_players}")
    rules = load_rules() if rules is None else rules
    return ForwardGame(_Engine(n_players, seed, game, rules), label=rules_label(GAME, rules))


def env(n_players=3, seed=0, *, render_mode=None):
    from simcore.pz import ForwardEnv
    return ForwardEnv("toydice", lambda s, g: new_game(n_players, s, g), seed, render_mode)


def switch_offs(rules, players=None, events="replace"):
    return [("card", "bonus", "bonus worth 0", rules.replace(bonus=0))]


GAME = register(Game(name="toydice", title="Dice race", players=(2, 5), score="dice",
                     marks=("dice", "bonus_card"), chance=CHANCE,
                     things=(Things("card", "prefix", "bonus_", seat_level=True),),
                     switch_offs=switch_offs, rules_data=dict,
                     alternatives=(Alternative("start seat +3", "first_bonus",
                                               {"first_bonus": 3}),)))
