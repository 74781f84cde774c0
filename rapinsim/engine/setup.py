"""Setup (rules section 2): the game's state cleared and its streams seeded, characters
chosen (or drawn), the tile set in play (Inaba's chest) shuffled into the houses, Rize's start
rolled and the pawns placed.
"""
from __future__ import annotations

import numpy as np
from numba import types

from simcore.rng import randint, stream_seed

from .. import stats as S
from ..policies import CHARACTER, O_CHARACTER, O_DISTRICT, PLACE
from ..rules import CH_CHARACTERS, CH_LAYOUT, CH_START, INABA, ITEM, TRAP
from .tables import (CFG_NP, FIXED, KEY, MAXN, N_STREAMS, P, REDRAW, R_BROWN, R_CHEST, R_CHOICE,
                     R_D, R_DIE, R_H, R_KIND, R_N, R_NROSTER, R_ROSTER, R_START, R_SUB, R_WHITE)
from .state import (ACTING, BOARD, CHARS, CH_ARG, DAWN, GAME, GAME_ST, I64, ISET, KIND_SET, LETTER,
                    NP, NPD, NT, OCC, POS, RIZE, SEAT_ST, SEL_ITEM0, STATE0, TBR, TCH, TK, TMP,
                    TSUB, TWH, VOID, XS, on_g, streams, u64_at)
from .decisions import ask, option


@on_g(VOID, types.uint64, I64)
def setup(G, key, game):
    for i in range(STATE0, XS):
        G[i] = 0
    x = streams(G)                                            # simcore.rng.seed_streams
    redraw = u64_at(G, REDRAW)
    for k in range(N_STREAMS):
        x[k] = stream_seed(key, game, k, redraw[0], redraw[1])
    n_players = G[CFG_NP]
    G[NP], G[GAME], G[DAWN], G[ACTING] = n_players, game, -1, -1
    u64_at(G, KEY)[0] = key
    for s in range(P):
        G[POS + s] = -1
        G[LETTER + s] = -1
        G[SEAT_ST + s * S.N_SEAT + S.S_SKILL_TURN] = -1
    n_roster = G[R_NROSTER]
    if G[FIXED] < 0 and G[R_CHOICE]:                          # choose_characters
        G[RIZE] = -1
        for s in range(P):
            G[CHARS + s] = -1
        for i in range(n_roster):
            G[TMP + i] = G[R_ROSTER + i]
        for s in range(n_players):
            n_free = n_roster - s
            for i in range(n_free):
                option(G, i, O_CHARACTER, G[TMP + i])
            c = ask(G, s, CHARACTER, n_free)
            G[CHARS + s] = G[TMP + c]
            for i in range(c, n_free - 1):
                G[TMP + i] = G[TMP + i + 1]
    elif G[FIXED] < 0:                                        # draw_characters
        for i in range(n_roster):
            G[TMP + i] = G[R_ROSTER + i]
        for s in range(n_players):
            j = s + randint(streams(G), CH_CHARACTERS, n_roster - s)
            c = G[TMP + s]
            G[TMP + s] = G[TMP + j]
            G[TMP + j] = c
            G[CHARS + s] = G[TMP + s]
    else:
        for s in range(n_players):
            G[CHARS + s] = G[FIXED + s]
    for s in range(n_players):
        if G[CHARS + s] == INABA:
            G[ISET] = 1
    n = G[R_N]
    k = G[ISET] * MAXN
    for t in range(n):
        G[TK + t] = G[R_KIND + k + t]
        G[TSUB + t] = G[R_SUB + k + t]
        G[TBR + t] = G[R_BROWN + k + t]
        G[TWH + t] = G[R_WHITE + k + t]
        G[TCH + t] = G[R_CHEST + k + t]
    kind_set = u64_at(G, KIND_SET)                            # the kinds as bit sets
    for t in range(n):
        w, bit = t >> 6, np.uint64(1) << np.uint64(t & 63)
        if G[TK + t] != TRAP:
            kind_set[2 * G[TK + t] + w] |= bit
        if G[TK + t] == ITEM:
            kind_set[2 * (SEL_ITEM0 + G[TSUB + t]) + w] |= bit
    for h in range(n):                                        # shuffle_tiles
        G[TMP + h] = h
    for i in range(n - 1, 0, -1):
        j = randint(streams(G), CH_LAYOUT, i + 1)
        t = G[TMP + i]
        G[TMP + i] = G[TMP + j]
        G[TMP + j] = t
    for h in range(n):
        G[BOARD + h] = G[TMP + h]
    for d in range(G[R_D]):
        G[NT + d] = G[R_H]
    face = randint(streams(G), CH_START, G[R_DIE])                    # roll_rize_start
    G[RIZE] = G[R_START + face]
    G[GAME_ST + S.G_RIZE_START] = G[R_START + face] + 1
    for s in range(n_players - 1, -1, -1):                    # place_pawns
        m = 0
        for d in range(G[R_D]):
            if d != G[RIZE] and G[NPD + d] == 0:
                option(G, m, O_DISTRICT, d)
                m += 1
        d = G[CH_ARG + ask(G, s, PLACE, m)]
        G[POS + s] = d
        G[NPD + d] += 1
        G[OCC + d] |= 1 << s
