"""The search driver (``simcore.search``): ``search`` replays a position in a scratch
forward-model ``G`` (``forward.py``) for each iteration and returns the agent's option;
``search_seat`` is a search seat's decision in a batch game (``decide_policy`` calls it by
address).
"""
from __future__ import annotations

import numpy as np
from numba import carray, njit, types

from simcore import search as SR
from simcore.results import rank_and_share

from .. import stats as S
from ..policies import data_ptr
from ..rules import N_CHANCE
from .tables import (ADDR, AGENTS, KEY, LOG_CAP, LOG_LEN, MO, NW, N_STREAMS, PID, RESUME, RULES_LEN,
                     SNAP_AT, SNAP_TURN, UF, W)
from .state import (ERR, FM_HALTED, FM_LEN, FM_MARKS, FM_N_MARKS, FM_PLAYOUTS, FM_REGION, FM_SEARCH,
                    FM_SEAT, FM_STOP, GAME, GAME_ST, I64, LOG0, NP, PRIM, RANKS, SEARCH_SIG, SECD,
                    STATE0, f64_at, game_at, i64_at, streams, u64_at)


@njit(I64(types.int32[::1], types.uint64, I64, I64, types.int64[::1], types.int64[:, ::1], I64,
         types.int64[::1], I64, types.float64[:, ::1]), cache=True, nogil=True)
def search(head, key, game, n_players, choices, marks, seat, agent, seed, sums):
    """The option a search agent (``agent``: ``simcore.search.Agent.params``) takes at the
    position of game ``game`` after ``choices`` and the determinizations ``marks`` [m, 3], where
    ``seat`` is to act; its randomness from ``seed``; ``head``: the batch's rules and settings
    (``rule_vector``, with the addresses). Each iteration replays the position in a scratch
    forward-model G (from the snapshot of the decision's turn once there is one), determinized
    for the seat at its decision; ``fm_decide`` hands the tree's decisions to
    ``simcore.search.step``; the loop is ``simcore.search``'s. ``sums`` [options, P]: where it
    has rows, a flat search adds each option's win shares to its row, the options sharing each
    determinization (``simcore.search.share_worlds``). -1 when a replay diverges (a bug: the
    caller reports it).
    """
    words = SR.region_words(agent, MO)
    f = LOG0 + 4 * LOG_LEN
    at = f + FM_LEN + (f + FM_LEN) % 2
    snap = at + 2 * words
    Ga = np.zeros(snap + LOG0 - STATE0, np.int32)
    Ga[:RULES_LEN] = head
    G = data_ptr(Ga)
    G[LOG_CAP] = LOG_LEN
    for q in range(n_players):
        G[PID + q] = FM_SEAT
        G[f + FM_PLAYOUTS + q] = SR.seat_playout(agent, q, seat)
        for w in range(NW):         # each seat plays out with its playout and its weights
            i64_at(G, W)[q * NW + w] = SR.seat_weight(agent, q, w, seat)
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
    mk[3 * m], mk[3 * m + 1] = k, SR.observer(agent, seat)
    G[f + FM_N_MARKS], G[f + FM_STOP] = m + 1, k
    G[f + FM_SEARCH], G[f + FM_REGION] = at, words
    # a view of Ga, not a pointer into it: numba frees Ga after its last use (in the loop),
    # and the decision after the loop reads the region
    reg = Ga[at:at + 2 * words].view(np.int64)
    SR.begin(reg, 0, agent, MO, seed)
    SR.share_worlds(reg, 0, sums.shape[0])
    play = game_at(i64_at(G, ADDR)[1])
    win = np.zeros(n_players, np.float32)
    while SR.next_iteration(reg, 0):
        if G[RESUME]:
            for i in range(STATE0, LOG0):
                G[i] = G[snap + i - STATE0]
        mk[3 * m + 2] = SR.determinization_seed(reg, 0)
        G[f + FM_HALTED] = 0
        for q in range(n_players):
            G[PID + q] = FM_SEAT
        play(G, key, game)
        if G[ERR] or G[f + FM_HALTED]:
            return -1
        rank_and_share(Ga[PRIM:PRIM + n_players], Ga[SECD:SECD + n_players], n_players,
                       Ga[RANKS:RANKS + n_players], win)
        SR.credit_option(reg, 0, win, sums)
        SR.end_iteration(reg, 0, win, Ga[PRIM:PRIM + n_players], n_players)
        G[RESUME] = 1 if G[SNAP_TURN] >= 0 else 0
    return SR.decision(reg, 0)


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
    for q in range(G[NP]):
        if q != s:
            SR.model_seat(agent, q, G[PID + q], carray(f64_at(G, W + 2 * NW * q), NW))
    seed = SR.decision_seed(carray(streams(G), N_STREAMS), N_CHANCE + s)
    return search(head, u64_at(G, KEY)[0], G[GAME], G[NP], choices, np.zeros((0, 3), np.int64),
                  s, agent, seed, np.zeros((0, 0), np.float64))
