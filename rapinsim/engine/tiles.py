"""Taking tiles: a search, a taken tile (a treasure face up, an item into the hand, a trap
sprung: ``traps.py``), a step into a district, and Lapin's notice letter, which takes a tile
when she enters its district (her skill, ``skills.py``, names the district; it is here because
a step triggers it).
"""
from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from .. import stats as S
from ..policies import HOUSE
from ..rules import ALARM, EMPTY, INABA, PITFALL, TRAP, TREASURE
from .tables import MAXN, R_HD
from .state import (BOARD, CHARS, CH_ARG, FACE_UP, GAME_ST, HELD, I64, LETTER, NP, NT, SEARCHED,
                    SEAT_ST, SEEN, TK, TSUB, VOID, hand_add, hand_remove, helper, on_g, u64_at)
from .decisions import ask
from .board import house_options, move_pawn, put_tile, update_time_marker
from .traps import alarm, pitfall, prank


@helper
def receive(G, s, t, h):
    """A taken treasure or item goes to the player; Inaba holds at most one tile, so Inaba's held
    tile goes into the emptied house h with its face kept (treasure up, item down)."""
    if G[CHARS + s] == INABA:                              # Inaba's hand, in tile order
        held = u64_at(G, HELD + 4 * s)
        for w in range(2):
            bits = held[w]
            while bits:
                u = 64 * w + np.int64(trailing_zeros(bits))
                bits &= bits - np.uint64(1)
                hand_remove(G, s, u)
                put_tile(G, h, u, G[TK + u] == TREASURE)
    hand_add(G, s, t)
    if G[TK + t] == TREASURE:
        for q in range(G[NP]):
            G[SEEN + q * MAXN + t] = 1


@on_g(VOID, I64, I64)
def take_tile(G, s, h):
    """Take the tile of house h: a treasure face up, an item into the hand, a trap is resolved
    and removed (``traps.py``). Then the district may get a time marker."""
    t = G[BOARD + h]
    d = G[R_HD + h]
    G[BOARD + h] = EMPTY
    G[NT + d] -= 1
    G[FACE_UP + h] = 0
    G[SEEN + s * MAXN + t] = 1
    kind = G[TK + t]
    st = SEAT_ST + s * S.N_SEAT
    G[st + S.S_TAKEN + kind] += 1
    if kind == TRAP:
        trap = G[TSUB + t]
        G[st + S.S_TRAP + trap] += 1
        if trap == ALARM:
            alarm(G, d)
        elif trap == PITFALL:
            pitfall(G, s)
        else:
            prank(G, s, h)
    else:
        receive(G, s, t, h)
    update_time_marker(G, d)


@helper
def count_search(G, s, d):
    G[SEAT_ST + s * S.N_SEAT + S.S_SEARCHES] += 1
    G[GAME_ST + S.N_GAME + d] += 1
    G[SEARCHED] = 1


@on_g(VOID, I64)
def notice_letter_take(G, s):
    d = G[LETTER + s]
    m = house_options(G, s, d, False)
    if m == 0:
        return
    G[LETTER + s] = -1
    take_tile(G, s, G[CH_ARG + ask(G, s, HOUSE, m)])


@on_g(VOID, I64, I64)
def step(G, s, d):
    move_pawn(G, s, d)
    if G[LETTER + s] == d:
        notice_letter_take(G, s)
