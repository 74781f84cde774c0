"""The compiled engine: the rules of ``reference.py`` as numba kernels over one flat int32 array.

Everything a game needs lives in one int32 array ``G``: first the rules (``rule_vector``, the
same for every game of a batch), then the state of the game being played, then its decision log.
Every field sits at a fixed offset (the module constants below, declared once in the layout
``G``, laid out for the largest board the rules allow), so the kernels index ``G[OFFSET + i]``
and numba freezes the offsets as constants. The random streams (``XS``, uint64,
``simcore.rng``), the observation (``OBS``) and the option features (``OPTS``, float32) live in
``G`` too, and so do the user policies (the addresses of their compiled code, ``UF``), so a
kernel gets ``G`` (a pointer) and its own arguments: every call is cheap to compile and to make
(a NamedTuple of arrays was flattened into ~150 LLVM arguments per call; an array passed is a
struct of seven).

Counts the rules ask for again and again are kept up to date as the game changes (tiles per
district ``NT``, pawns per district ``NPD``, each seat's held treasures, rabbits and items, and
each hand as a bit set of tiles ``HELD``), so listing the legal options does not rescan the
board and picking a held tile is a few bit operations. The random policy reads neither the
observation nor the features, so they are written only for a policy that reads them, and its
action options are counted, not listed (``random_action``: only the chosen one is produced).

``play_batch`` spreads a batch over threads (``simcore.parallel.spread``); each thread gets its
own buffers and runs ``play_games`` (compiled ``nogil``) over the units of games it claims, and
every game seeds its own streams, so a game never depends on its thread or unit. The functions
mirror the reference engine rule for rule and draw from the streams in the same order. A
policy's illegal answer is recorded (``ERR``) and ends that game; the caller raises.

The forward model (``forward.py``, ``new_game``) replays one game in these same kernels: its
seats' policy id ``FM_SEAT`` hands every decision to ``fm_decide`` (choices from the log, then a
halt) and ``determinize`` resamples what a seat cannot see.
"""
from __future__ import annotations

import numpy as np
from numba import carray, njit, types

from simcore import search as SR
from simcore.parallel import claim, spread
from simcore.policy import first_class
from simcore.results import rank_and_share

from .. import stats as S
from ..policies import data_ptr
from ..rules import MAX_PLAYERS, Rules
from .tables import (ADDR, AGENTS, CFG_NP, G, KEY, LOG_CAP, LOG_LEN, MAXD, MAXN, MO, NW, N_ITEMS,
                     N_STREAMS, P, PID, RESUME, RULES_LEN, R_DAWN_EMPTIES, R_DEG, R_MAX_TURNS,
                     R_NEXT, R_NSTEPS, R_STEP_TO, SNAP_AT, SNAP_CUR, SNAP_TURN, UF, W, rule_vector)
from .state import (BAGR, BAG_CAP, BAG_HEAD, BAG_N, BOARD, CHARS, CHIYA_HOLD, DAWN, DISGUISED, ERR,
                    ERR_CHOICE, ERR_KIND, ERR_N, ERR_SEAT, FACE_UP, FM_HALTED, FM_LEN, FM_MARKS,
                    FM_N_MARKS, FM_OBS, FM_PEND, FM_PLAYOUT, FM_REGION, FM_ROWS, FM_SEARCH, FM_SEAT,
                    FM_SIG, FM_STATE, FM_STOP, GAME, GAME_SIG, GAME_ST, HELD, HITEM, I64, LED,
                    LETTER, LOG0, NP, NPD, N_MARKED, OBS, OVER, POS, PRIM, RANKS, RETURNED, RIZE,
                    SEARCH_SIG, SEAT_ST, SECD, SEEN, SKIP, STALLED, STATE0, TK, TSUB, TURNS, VOID,
                    XS, game_at, i64_at, streams, u64_at)
from .forward import fm_decide, snapshot
from .rize import find_players, rize_enters
from .turns import end_round, play_turn
from .setup import setup
from .scoring import score

__all__ = ["ADDR", "BAGR", "BAG_CAP", "BAG_HEAD", "BAG_N", "BOARD", "CHARS", "DAWN", "FACE_UP",
           "FM_HALTED", "FM_LEN", "FM_MARKS", "FM_N_MARKS", "FM_OBS", "FM_PEND", "FM_ROWS",
           "FM_SEAT", "FM_SIG", "FM_STATE", "FM_STOP", "G", "GAME_SIG", "HELD", "HITEM", "LETTER",
           "LOG0", "LOG_LEN", "MAXD", "MAXN", "MAX_PLAYERS", "N_ITEMS", "N_STREAMS", "OBS", "P",
           "POS", "RETURNED", "RIZE", "RULES_LEN", "R_DEG", "R_NSTEPS", "R_STEP_TO", "SEEN", "TK",
           "TSUB", "TURNS", "XS", "fm_decide", "play_batch", "play_game", "play_games",
           "rule_vector", "search"]


@njit(GAME_SIG, cache=True, _nrt=False, no_cpython_wrapper=True)  # C wrapper: called by address
def play_game(G, key, game):
    """Set up and play one game in G (results in SEAT_ST, GAME_ST, PRIM and SECD), or with
    RESUME play it on from the snapshot a search keeps (``snapshot``)."""
    if G[RESUME]:
        cur = G[SNAP_CUR]
    else:
        setup(G, key, game)
        cur = 0
    n_players = G[NP]
    while G[OVER] == 0:
        if G[SNAP_AT]:
            snapshot(G, cur)
        if G[TURNS] >= G[R_MAX_TURNS]:
            G[STALLED] = 1
            break
        G[TURNS] += 1
        G[CHIYA_HOLD] = 0
        G[DISGUISED + cur] = 0                                 # hidden until the own turn
        if G[SKIP + cur] > 0:
            G[SKIP + cur] -= 1
        else:
            play_turn(G, cur)
        if G[OVER]:
            break
        if G[CHIYA_HOLD] == 0:
            nxt = G[R_NEXT + G[RIZE]]                          # rize_moves
            rize_enters(G, nxt)
            if G[OVER]:
                break
            if G[NPD + nxt] > 0:
                find_players(G, nxt)
            if G[OVER]:
                break
        if G[DAWN] < 0 and G[N_MARKED] >= G[R_DAWN_EMPTIES]:    # dawn_check
            G[DAWN] = G[RIZE]
        cur += 1
        if cur == n_players:
            cur = 0
            end_round(G)
    if G[GAME_ST + S.G_ROUNDS] * n_players < G[TURNS]:         # ended within a round
        end_round(G)
    score(G)


@njit(VOID(types.int32[::1], types.uint64, I64, types.int64[::1], types.FunctionType(GAME_SIG),
         types.int16[:, :, ::1], types.float32[:, ::1], types.int32[:, ::1], types.int8[:, ::1],
         types.int64[:, ::1], types.int64[:, ::1], types.int16[:, :, ::1]),
      cache=True, nogil=True)
def play_games(Ga, key, start, counter, game_fn, seat, win, game, chars, led, err, log):
    """Play games start + g into rows g of the result arrays (stats.new_arrays: seat, win,
    game, chars, led), for the units of rows this thread ``claim``s with ``counter``;
    err[g] = (1, seat, kind, choice, n_opts) for a game a policy's illegal answer ended;
    log [G, L, 4] the decision logs (L = 0: none).
    ``game_fn``: ``play_game`` as a first-class function (``simcore.policy.first_class``):
    called through a pointer, the engine is not linked into (and optimised again with) this
    kernel."""
    G = data_ptr(Ga)
    n_players = G[CFG_NP]
    while True:
        lo, hi = claim(counter, win.shape[0])
        if lo == hi:
            return
        for g in range(lo, hi):
            game_fn(G, key, start + g)
            rank_and_share(Ga[PRIM:PRIM + n_players], Ga[SECD:SECD + n_players], n_players,
                           Ga[RANKS:RANKS + n_players], win[g])
            for s in range(n_players):
                G[SEAT_ST + s * S.N_SEAT + S.S_RANK] = G[RANKS + s]
                chars[g, s] = G[CHARS + s]
                led[g, s] = i64_at(G, LED)[s]
                for i in range(S.N_SEAT):
                    seat[i, g, s] = G[SEAT_ST + s * S.N_SEAT + i]
            for i in range(game.shape[0]):
                game[i, g] = G[GAME_ST + i]
            err[g, 0], err[g, 1], err[g, 2] = G[ERR], G[ERR_SEAT], G[ERR_KIND]
            err[g, 3], err[g, 4] = G[ERR_CHOICE], G[ERR_N]
            for k in range(min(G[GAME_ST + S.G_DECISIONS], log.shape[1])):
                for j in range(4):
                    log[g, k, j] = G[LOG0 + 4 * k + j]


def play_batch(rules: Rules, ids, user, key, start, n_players, fixed, seat, win, game, chars,
               led, err, log, weights=None, agents=None) -> None:
    """Play games start .. start + len(win) - 1 (arrays as ``play_games``) on
    ``numba.get_num_threads()`` threads (``simcore.parallel.spread``); ``weights`` as
    ``rule_vector``'s; ``agents``: the search seats' words (``rule_vector``; a game with a
    search seat keeps its log)."""
    game_fn = first_class(play_game, GAME_SIG)
    searching = bool((np.asarray(ids) == SR.SEARCH_ID).any())
    cap = LOG_LEN if searching else log.shape[1]
    addresses = (first_class(search_seat, SEARCH_SIG).address, game_fn.address,
                 first_class(fm_decide, FM_SIG).address) if searching else (0, 0, 0)
    head = rule_vector(rules, n_players, ids, user, fixed, cap, weights, agents, addresses)
    key = np.uint64(key)

    def play_units(counter):
        g = np.zeros(LOG0 + 4 * cap, np.int32)
        g[:RULES_LEN] = head
        play_games(g, key, start, counter, game_fn, seat, win, game, chars, led, err, log)

    spread(play_units, win.shape[0])


@njit(I64(types.int32[::1], types.uint64, I64, I64, types.int64[::1], types.int64[:, ::1], I64,
         types.int64[::1], I64), cache=True)
def search(head, key, game, n_players, choices, marks, seat, agent, seed):
    """The option a search agent (``agent``: ``simcore.search.Agent.params``) takes at the
    position of game ``game`` after ``choices`` and the determinizations ``marks`` [m, 3], where
    ``seat`` is to act; its randomness from ``seed``; ``head``: the batch's rules and settings
    (``rule_vector``, with the addresses). Each iteration replays the position in a scratch
    forward-model G (from the snapshot of the decision's turn once there is one), determinized
    for the seat at its decision; ``fm_decide`` hands the tree's decisions to
    ``simcore.search.step``. -1 when a replay diverges (a bug: the caller reports it).
    """
    algo, iters = agent[SR.A_ALGO], agent[SR.A_ITER]
    trees = agent[SR.A_DETS] if algo == SR.PIMC else 1
    per_tree = iters // trees
    words = SR.region_size(per_tree + 1, MO)
    f = LOG0 + 4 * LOG_LEN
    at = f + FM_LEN + (f + FM_LEN) % 2
    snap = at + 2 * words
    Ga = np.zeros(snap + LOG0 - STATE0, np.int32)
    Ga[:RULES_LEN] = head
    G = data_ptr(Ga)
    G[LOG_CAP] = LOG_LEN
    for q in range(n_players):
        G[PID + q] = FM_SEAT
        for w in range(NW):         # every seat plays out with the playout's weights
            i64_at(G, W)[q * NW + w] = agent[SR.A_WEIGHTS + w]
    i64_at(G, UF)[0] = i64_at(G, ADDR)[2]
    G[SNAP_AT], G[SNAP_TURN], G[RESUME] = snap, -1, 0
    k = choices.shape[0]
    for j in range(k):
        G[LOG0 + 4 * j + 3] = choices[j]
    m = marks.shape[0]
    mk = i64_at(G, f + FM_MARKS)
    for j in range(m):
        for w in range(3):
            mk[3 * j + w] = marks[j, w]
    mk[3 * m], mk[3 * m + 1] = k, -1 - seat if agent[SR.A_ORACLE] else seat
    G[f + FM_N_MARKS], G[f + FM_STOP] = m + 1, k
    G[f + FM_SEARCH], G[f + FM_REGION], G[f + FM_PLAYOUT] = at, words, agent[SR.A_PLAYOUT]
    reg = carray(i64_at(G, at), words)
    SR.init_region(reg, 0, per_tree + 1, MO, algo, agent[SR.A_C:SR.A_C + 1].view(np.float64)[0],
                   seed)
    play = game_at(i64_at(G, ADDR)[1])
    win = np.zeros(n_players, np.float32)
    votes = np.zeros(MO, np.int64)
    for tree in range(trees):
        if tree:
            SR.new_tree(reg, 0)
        for it in range(per_tree):
            if G[RESUME]:
                for i in range(STATE0, LOG0):
                    G[i] = G[snap + i - STATE0]
            mk[3 * m + 2] = SR.iteration_seed(seed, tree, 0 if algo == SR.PIMC else it)
            SR.new_iteration(reg, 0, it)
            G[f + FM_HALTED] = 0
            for q in range(n_players):
                G[PID + q] = FM_SEAT
            play(G, key, game)
            if G[ERR] or G[f + FM_HALTED]:
                return -1
            rank_and_share(Ga[PRIM:PRIM + n_players], Ga[SECD:SECD + n_players], n_players,
                           Ga[RANKS:RANKS + n_players], win)
            SR.backpropagate(reg, 0, win)
            G[RESUME] = 1 if G[SNAP_TURN] >= 0 else 0
        if algo != SR.PIMC:
            return SR.best_option(reg, 0)
        SR.add_visits(reg, 0, votes)
    return np.argmax(votes)


@njit(SEARCH_SIG, cache=True, no_cpython_wrapper=True)     # C wrapper: called by address
def search_seat(G, s, n):
    """A search seat's decision in a batch game (``decide_policy``): ``search`` from the
    game's log, seeded by one draw of the seat's stream."""
    k = G[GAME_ST + S.G_DECISIONS]
    if k > G[LOG_CAP]:
        return -1
    choices = np.empty(k, np.int64)
    for j in range(k):
        choices[j] = G[LOG0 + 4 * j + 3]
    head = np.empty(RULES_LEN, np.int32)
    for i in range(RULES_LEN):
        head[i] = G[i]
    agent = np.empty(SR.AGENT_WORDS, np.int64)
    for w in range(SR.AGENT_WORDS):
        agent[w] = i64_at(G, AGENTS)[SR.AGENT_WORDS * s + w]
    seed = SR.decision_seed(carray(streams(G), N_STREAMS), s)
    return search(head, u64_at(G, KEY)[0], G[GAME], G[NP], choices, np.zeros((0, 3), np.int64),
                  s, agent, seed)
