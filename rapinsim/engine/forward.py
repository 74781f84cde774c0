"""The forward model's hooks (``rapinsim.forward``, ``new_game``): its seats' policy id
``FM_SEAT`` hands every decision to ``fm_decide`` (choices from the log, then a halt), and
``determinize`` resamples what a seat cannot see. A search (``search.py``) runs its tree in the
same hook (``action_key``) and resumes its replays from the state at the start of its
decision's turn (``snapshot``).
"""
from __future__ import annotations

import numpy as np
from numba import carray, njit
from numba.cpython.unsafe.numbers import trailing_zeros

from simcore import search as SR
from simcore.rng import reseed, shuffle_set

from .. import stats as S
from ..policies import DISTILLED, N_FEATURES, N_OBS, RANDOM, choose_weighted
from ..rules import CH_LAYOUT, EMPTY, ITEM, N_CHANCE
from .tables import (LOG_CAP, MAXN, MO, N_STREAMS, NW, P, PID, R_N, SNAP_AT, SNAP_CUR, SNAP_TURN,
                     W)
from .state import (BAGR, BAG_CAP, BAG_HEAD, BAG_N, BOARD, CH_ARG, CH_WHAT, ERR, ERR_CHOICE,
                    ERR_KIND, ERR_N, ERR_SEAT, FACE_UP, FM_HALTED, FM_MARKS, FM_N_MARKS, FM_OBS,
                    FM_PEND, FM_PLAYOUTS, FM_REGION, FM_ROWS, FM_SEARCH, FM_STATE, FM_STOP, GAME_ST,
                    HELD, I64, LOG0, NP, OBS, OPTS, OVER, RETURNED, RIZE, SEEN, STATE0, TK, TURNS,
                    VOID, f32_at, f64_at, hand_add, hand_remove, helper, i64_at, on_g, streams,
                    u64_at)
from .observation import observe, option_rows
from .decisions import distilled_pick, record


@helper
def fm_base(G):
    """Where the forward model's fields start (after the log)."""
    return LOG0 + 4 * np.int64(G[LOG_CAP])


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # carray needs the NRT
def determinize(G, s, seed):
    """Resample what seat s cannot see, consistently with all it has seen (rules, Knowledge:
    it sees the public table and the tiles it has looked at, and follows a seen tile wherever
    it goes). Hidden are the tiles it has not seen in three kinds of places: face down on the
    board, in the other seats' hands and in Rize's bag; they are dealt again among those places
    uniformly, keeping what each place is known to hold: a hand or the bag holds an item there
    (held treasures lie face up: everyone has seen them), and so does a house whose tile came
    back from a hand or the bag (``RETURNED``), anything else may hold any of them. What other
    seats have looked at goes with the place (they looked at that house, took that tile).
    The coming draws of every chance source and of the other seats are new (``simcore.rng.reseed``).
    Nothing else is hidden: characters, pawns, Rize, markers, treasures, item counts, the
    letters and the skills and items played are public at the table. Before the deal (a
    ``CHARACTER`` decision) only the draws are new."""
    reseed(carray(streams(G), N_STREAMS), seed, N_CHANCE + s)
    if G[RIZE] < 0:
        return
    place = np.empty(MAXN, np.int64)    # HAND + q (a hand), BAG + i (the bag's i-th), else a house
    old = np.empty(MAXN, np.int64)      # the tile there
    knows = np.empty(MAXN, np.int64)    # bit q: seat q has seen it; bit P: RETURNED
    item = np.empty(MAXN, np.int64)     # 1: known to hold an item
    HAND, BAG = MAXN, 2 * MAXN
    seen = SEEN + s * MAXN
    m = 0
    for h in range(G[R_N]):
        t = G[BOARD + h]
        if t != EMPTY and G[FACE_UP + h] == 0 and G[seen + t] == 0:
            place[m], old[m], item[m] = h, t, G[RETURNED + t]
            m += 1
    for q in range(G[NP]):
        if q != s:
            held = u64_at(G, HELD + 4 * q)
            for w in range(2):
                bits = held[w]
                while bits:
                    t = 64 * w + np.int64(trailing_zeros(bits))
                    bits &= bits - np.uint64(1)
                    if G[seen + t] == 0:
                        place[m], old[m], item[m] = HAND + q, t, 1
                        m += 1
    for i in range(G[BAG_N]):
        t = G[BAGR + ((G[BAG_HEAD] + i) & (BAG_CAP - 1))]
        if G[seen + t] == 0:
            place[m], old[m], item[m] = BAG + i, t, 1
            m += 1
    for j in range(m):
        t = old[j]
        knows[j] = G[RETURNED + t] << P
        for q in range(G[NP]):
            knows[j] |= G[SEEN + q * MAXN + t] << q
    for j in range(1, m):   # a hand's places by what is known of them, not by the true tiles
        pj, oj, ij, kj = place[j], old[j], item[j], knows[j]
        i = j
        while i > 0 and (place[i - 1] > pj or place[i - 1] == pj and knows[i - 1] > kj):
            place[i], old[i], item[i] = place[i - 1], old[i - 1], item[i - 1]
            knows[i] = knows[i - 1]
            i -= 1
        place[i], old[i], item[i], knows[i] = pj, oj, ij, kj
    # the items in random order fill the item places, the rest in random order the others
    items = np.empty(m, np.int64)
    rest = np.empty(m, np.int64)
    ni = nr = 0
    for j in range(m):
        if G[TK + old[j]] == ITEM:
            items[ni] = old[j]
            ni += 1
        else:
            rest[nr] = old[j]
            nr += 1
    x = carray(streams(G), N_STREAMS)       # (sorted first: the deal depends on which tiles
    shuffle_set(x, CH_LAYOUT, items, ni)       # are hidden, never on where they truly are)
    k = 0
    for j in range(m):
        k += item[j]
    for i in range(k, ni):
        rest[nr] = items[i]
        nr += 1
    shuffle_set(x, CH_LAYOUT, rest, nr)
    for j in range(m):                  # out of the hands first: a hand may get back its own
        if place[j] >= HAND and place[j] < BAG:
            hand_remove(G, place[j] - HAND, old[j])
    a = b = 0
    for j in range(m):
        if item[j]:
            t = items[a]
            a += 1
        else:
            t = rest[b]
            b += 1
        for q in range(G[NP]):
            G[SEEN + q * MAXN + t] = (knows[j] >> q) & 1
        G[RETURNED + t] = knows[j] >> P
        p = place[j]
        if p < HAND:
            G[BOARD + p] = t
        elif p < BAG:
            hand_add(G, p - HAND, t)
        else:
            G[BAGR + ((G[BAG_HEAD] + p - BAG) & (BAG_CAP - 1))] = t


@helper
def action_key(G, kind, i):
    """Option i of a decision of this kind as a search tree's key (``simcore.search``): its
    code and argument, the same whatever the option's place in the list."""
    return (kind * 64 + G[CH_WHAT + i]) * 65536 + G[CH_ARG + i] + 1


@njit(cache=True, no_cpython_wrapper=True)   # C wrapper: called by address
def fm_decide(G, s, kind, n):
    """``decide`` in the forward model: the logged choice while the log lasts (after any
    determinization marked at this decision), then halt: the seat, kind, number of options, a
    copy of the state, every seat's observation and the option rows (what the seat sees, which
    no determinization changes; written here, not at every replayed decision) are kept, and the game
    is over (choice 0, ``OVER``: the kernels unwind as after an illegal answer, asking nobody).
    ``decide_policy`` calls it by address (``fm_at``): its code is not linked, and optimised
    again, into every kernel that decides, and it compiles (with ``determinize``) only when a
    forward game needs it (``forward.Engine``), not for a batch."""
    f = fm_base(G)
    if G[f + FM_HALTED]:
        return 0
    k = G[GAME_ST + S.G_DECISIONS]
    marks = i64_at(G, f + FM_MARKS)
    for i in range(G[f + FM_N_MARKS]):
        if marks[3 * i] == k:
            if marks[3 * i + 1] >= 0:
                determinize(G, marks[3 * i + 1], marks[3 * i + 2])
            else:       # an oracle's search (simcore.search): new coming draws only
                reseed(carray(streams(G), N_STREAMS), marks[3 * i + 2],
                       N_CHANCE - 1 - marks[3 * i + 1])
    if k < G[f + FM_STOP]:
        c = np.int64(G[LOG0 + 4 * k + 3])
        if c < 0 or c >= n:
            if G[ERR] == 0:
                G[ERR], G[ERR_SEAT], G[ERR_KIND], G[ERR_CHOICE], G[ERR_N] = 2, s, kind, c, n
            G[OVER] = 1
            return 0
        record(G, s, kind, n, c)
        return c
    if G[f + FM_SEARCH]:
        reg = carray(i64_at(G, G[f + FM_SEARCH]), G[f + FM_REGION])
        if reg[SR.H_MODE] == SR.TREE:
            keys = SR.keys_at(reg, 0)
            for i in range(n):
                reg[keys + i] = action_key(G, kind, i)
            pick = -1
            prior = SR.prior_policy(reg, 0, G[f + FM_PLAYOUTS + s], DISTILLED)
            if prior > RANDOM:
                observe(G, s)
                option_rows(G, s, n, False)
            if prior == DISTILLED:
                pick = distilled_pick(G, kind, n)
            elif prior > RANDOM:
                w = f64_at(G, W + 2 * NW * s)     # the playout's (``search``)
                pick = choose_weighted(prior, (w[0], w[1], w[2], w[3], w[4], w[5],
                                               w[6]), kind,
                                       carray(f32_at(G, OBS), N_OBS),
                                       carray(f32_at(G, OPTS), (MO, N_FEATURES)), n,
                                       reg[SR.H_RNG:SR.H_RNG + 1].view(np.uint64))
            c = SR.step(reg, 0, n, s, pick)
            if reg[SR.H_MODE] == SR.PLAYOUT:
                for q in range(G[NP]):
                    G[PID + q] = G[f + FM_PLAYOUTS + q]
            record(G, s, kind, n, c)
            return c
    G[f + FM_HALTED] = 1
    G[f + FM_PEND], G[f + FM_PEND + 1], G[f + FM_PEND + 2] = s, kind, n
    for i in range(STATE0, LOG0):
        G[f + FM_STATE + i - STATE0] = G[i]
    for q in range(G[NP]):
        observe(G, q)
        for i in range(N_OBS):
            G[f + FM_OBS + q * N_OBS + i] = G[OBS + i]
    option_rows(G, s, n, True)
    for i in range(n * N_FEATURES):
        G[f + FM_ROWS + i] = G[OPTS + i]
    G[OVER] = 1
    return 0


@on_g(VOID, I64)
def snapshot(G, cur):
    """Keep the state at the start of each turn while a search's decision is ahead (the last
    before it stays): the search's iterations start there instead of at setup."""
    if G[TURNS] > G[SNAP_TURN] and G[GAME_ST + S.G_DECISIONS] <= G[fm_base(G) + FM_STOP]:
        at = G[SNAP_AT]
        for i in range(STATE0, LOG0):
            G[at + i - STATE0] = G[i]
        G[SNAP_TURN], G[SNAP_CUR] = G[TURNS], cur
