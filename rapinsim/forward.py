"""The Lapin treasure hunt's forward model (``simcore.forward``): ``new_game`` and the engine
side that replays a position in the batch kernel (``engine.play_games`` with every seat's
policy id ``engine.FM_SEAT``: ``engine.fm_decide`` and ``engine.determinize``)."""
from __future__ import annotations

import numpy as np

from simcore import runner
from simcore.forward import ForwardGame, Halt
from simcore.parallel import counter
from simcore.policy import first_class
from simcore.results import rules_label
from simcore.rng import root_key, seed_streams

from . import engine as E
from . import stats as S
from .api import LOG_LEN, _check
from .distilled import BUNDLED
from .game import GAME
from .policies import (BUILTIN_IDS, CHARACTER, F_ARG, F_DISTRICT, F_HOUSE, F_KNOWN, F_SUB, F_TILE,
                       F_VALUE, F_WHAT, KIND_NAMES, MAX_OPTS, N_FEATURES, N_OBS, O_CHARACTER,
                       O_DISTRICT, O_HOUSE, O_ITEM, O_NO, O_PASS, O_PLAYER, O_SEARCH, O_SKILL,
                       O_STEP, O_STOP, O_YES, POLICIES, WEIGHTS, choose_builtin)
from .rules import CHARACTERS, ITEMS, N_CHANCE, TRAPS, Rules

TILE_NAMES = ("treasure", "item", "trap", "Inaba's chest")


class Engine:
    """One game's identity and a forward-mode ``G`` to replay it in (not thread-safe: one
    replay at a time; ``ForwardGame.copy`` shares it)."""

    name = "Lapin treasure hunt"
    kind_names = KIND_NAMES
    game_name = GAME.name

    def __init__(self, rules: Rules, n_players: int, seed: int, game: int, fixed: np.ndarray):
        self.rules, self.n_players, self.seed, self.game = rules, n_players, seed, game
        self.key = np.uint64(root_key(seed))
        fm = np.zeros(E.P, np.int64)
        fm[0] = first_class(E.fm_decide, E.FM_SIG).address
        self.head = E.rule_vector(rules, n_players, np.full(n_players, E.FM_SEAT), fm, fixed,
                                  LOG_LEN)
        self.G = np.zeros(E.LOG0 + 4 * LOG_LEN + E.FM_LEN, np.int32)
        self.G[:E.RULES_LEN] = self.head
        self.f = E.LOG0 + 4 * LOG_LEN          # engine.fm_base
        self.game_fn = first_class(E.play_game, E.GAME_SIG)
        self.obs_len, self.max_options, self.n_features = N_OBS, MAX_OPTS, N_FEATURES

    def run(self, choices: np.ndarray, marks: np.ndarray) -> Halt:
        G, f, p = self.G, self.f, self.n_players
        if len(choices) > LOG_LEN:
            raise ValueError(f"a stepped Lapin game has at most {LOG_LEN} decisions")
        G[E.LOG0 + 3:E.LOG0 + 4 * len(choices):4] = choices
        G[f + E.FM_STOP], G[f + E.FM_HALTED], G[f + E.FM_N_MARKS] = len(choices), 0, len(marks)
        G[f + E.FM_MARKS:f + E.FM_STATE].view(np.int64)[:marks.size] = marks.ravel()
        out = S.new_arrays(1, p, self.rules.districts)
        err = np.zeros((1, 5), np.int64)
        E.play_games(G, self.key, self.game, counter(1), self.game_fn, *out, err,
                     np.zeros((1, 0, 4), np.int16))
        if err[0, 0]:
            raise RuntimeError(f"the forward model's replay diverged: choice {err[0, 3]} of "
                               f"{err[0, 4]} at a {KIND_NAMES[err[0, 2]]} decision of seat "
                               f"{err[0, 1]}")
        if not G[f + E.FM_HALTED]:
            return Halt(True, result=out)
        seat_, kind, n = (int(x) for x in G[f + E.FM_PEND:f + E.FM_PEND + 3])
        obs = G[f + E.FM_OBS:f + E.FM_ROWS].view(np.float32).reshape(E.P, N_OBS)[:p]
        rows = G[f + E.FM_ROWS:f + E.FM_ROWS + n * N_FEATURES].view(np.float32)
        return Halt(False, seat_, kind, rows.reshape(n, N_FEATURES).copy(), obs.copy(),
                    G[f + E.FM_STATE:f + E.FM_OBS].copy())

    def search(self, choices: np.ndarray, marks: np.ndarray, seat: int, agent,
               seed: int, sums: np.ndarray) -> int:
        """The option ``agent`` (a ``simcore.search.Agent`` or its name) takes at this
        position (``simcore.forward.ForwardGame.search``); ``sums``: the options' win sums
        where it has rows (``ForwardGame.values``)."""
        from .api import agent as agents
        a = agents.parse(agent)
        head = self.head.copy()
        head[E.ADDR:E.ADDR + 6].view(np.int64)[:] = (
            0, self.game_fn.address, first_class(E.fm_decide, E.FM_SIG).address)
        return int(E.search(head, self.key, self.game, self.n_players, choices, marks, seat,
                            a.params(BUILTIN_IDS, WEIGHTS), seed, sums))

    def streams(self) -> np.ndarray:
        """Each seat's policy stream at the start of the game (the batch engine's)."""
        st = np.zeros(E.N_STREAMS, np.uint64)
        seed_streams(self.key, self.game, st, 0, 0)
        return st[N_CHANCE:N_CHANCE + self.n_players].copy()

    def policy(self, name: str):
        """The built-in policy ``name`` as a function (``choose_builtin``)."""
        if name in BUNDLED:
            return BUNDLED[name]()
        if name not in POLICIES:
            raise ValueError(f"unknown policy {name!r}; built-in policies: "
                             f"{[*POLICIES, *BUNDLED]}")
        pid = POLICIES[name]
        return lambda kind, obs, opts, n, rng: choose_builtin(pid, kind, obs, opts, n, rng)

    def frame(self, halt: Halt):
        return S.to_frame(self.game, ["forward"] * self.n_players, *halt.result,
                          self.rules.districts)

    def views(self, state: np.ndarray) -> dict[str, np.ndarray]:
        g = np.concatenate([self.head, state])
        p, n = self.n_players, self.rules.arrays().n_houses * self.rules.districts
        held = g[E.HELD:E.HELD + 4 * p].view(np.uint64).reshape(p, 2)
        bits = np.unpackbits(held.view(np.uint8), axis=1, bitorder="little")[:, :n]
        bag = [g[E.BAGR + ((g[E.BAG_HEAD] + i) & (E.BAG_CAP - 1))] for i in range(g[E.BAG_N])]
        return {"rize": g[E.RIZE:E.RIZE + 1], "dawn": g[E.DAWN:E.DAWN + 1],
                "turns": g[E.TURNS:E.TURNS + 1], "positions": g[E.POS:E.POS + p],
                "characters": g[E.CHARS:E.CHARS + p], "letters": g[E.LETTER:E.LETTER + p],
                "board": g[E.BOARD:E.BOARD + n], "face_up": g[E.FACE_UP:E.FACE_UP + n],
                "tile_kind": g[E.TK:E.TK + n], "tile_sub": g[E.TSUB:E.TSUB + n],
                "held": bits.astype(bool), "bag": np.array(bag, np.int32),
                "items": g[E.HITEM:E.HITEM + p * E.N_ITEMS].reshape(p, E.N_ITEMS),
                "seen": g[E.SEEN:E.SEEN + p * E.MAXN].reshape(p, E.MAXN)[:, :n].astype(bool),
                "returned": g[E.RETURNED:E.RETURNED + n].astype(bool),
                "tile_brown": g[E.TBR:E.TBR + n], "tile_white": g[E.TWH:E.TWH + n],
                "tile_chest": g[E.TCH:E.TCH + n],
                "marked": g[E.MARKER:E.MARKER + self.rules.districts],
                "skips": g[E.SKIP:E.SKIP + p], "skill_used": g[E.SKILL_USED:E.SKILL_USED + p],
                "disguised": g[E.DISGUISED:E.DISGUISED + p],
                "letter_pending": g[E.PENDING:E.PENDING + p],
                "turn": g[[E.ACTING, E.ACTIONS_LEFT, E.SEARCHED, E.CHIYA_HOLD, E.WALK_LEFT]],
                "streams": g[E.XS:E.XS + 2 * E.N_STREAMS].view(np.uint64)[:N_CHANCE + p]}

    def describe(self, kind: int, row: np.ndarray) -> str:
        what, arg, d, h = (int(row[i]) for i in (F_WHAT, F_ARG, F_DISTRICT, F_HOUSE))
        if what == O_PASS:
            return "pass"
        if what == O_STOP:
            return "stop"
        if what in (O_NO, O_YES):
            return "keep the disguise" if what == O_NO else "discard the disguise"
        if what == O_STEP:
            return f"step to district {d + 1}"     # numbered from 1, as the rules number them
        if what == O_DISTRICT:
            return f"district {d + 1}"
        if what == O_ITEM:
            return f"use {ITEMS[arg]}"
        if what == O_SKILL:
            return "use the skill"
        if what == O_PLAYER:
            return f"seat {arg}"
        if what == O_CHARACTER or kind == CHARACTER:
            return f"play {CHARACTERS[arg]}"
        if what in (O_SEARCH, O_HOUSE):
            tile = "unknown"
            if row[F_KNOWN] > 0:
                t = int(row[F_TILE])
                tile = TILE_NAMES[t]
                if t == 0:
                    tile += f" ({row[F_VALUE]:g} rabbits)"
                elif t in (1, 2):
                    tile += f" ({(ITEMS if t == 1 else TRAPS)[int(row[F_SUB])]})"
            return f"{'search' if what == O_SEARCH else 'take'} house {h} ({tile})"
        return f"option ({what})"


def env(n_players: int = 4, seed: int = 0, *, rules=None, characters=None,
        render_mode: str | None = None):
    """A PettingZoo AEC environment of the Lapin treasure hunt at ``n_players`` seats
    (``simcore.pz``; needs the ``rl`` extra)."""
    from simcore.pz import ForwardEnv
    new_game(n_players, seed, rules=rules, characters=characters)   # bad arguments, by name
    return ForwardEnv("rapinsim", lambda s, g: new_game(n_players, s, g, rules=rules,
                                                        characters=characters),
                      seed, render_mode)


def new_game(n_players: int, seed: int, game: int = 0, *, rules=None,
             characters=None) -> ForwardGame:
    """Game ``game`` of seed ``seed`` at ``n_players`` seats, stopped at its first decision
    (``simcore.forward.ForwardGame``: ``.current``, ``.step(i)``, ``.copy()``,
    ``.determinize(seat, seed)``, ``.done``, ``.result()``). ``characters``: one distinct
    character name per seat, as ``simulate`` takes them, else chosen by the seats (decision
    ``character``) or drawn, as the rules' ``character_selection`` says. The chance draws are
    those of ``simulate(..., seed)``'s game ``game``; the decisions are yours. Every decision
    is asked, one with a single option too (the batch engine asks the policies those as well)."""
    runner.check_int("n_players", n_players, 1)
    rules, _, fixed = _check(["random"] * n_players, rules, characters)
    root_key(seed)
    runner.check_int("game", game, 0)
    return ForwardGame(Engine(rules, n_players, seed, game, fixed),
                       label=rules_label(GAME, rules))
