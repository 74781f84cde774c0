"""The end (rules section 5): each seat's final score keys (treasure tiles, then rabbits;
Inaba's chest), ranked by ``simcore.results.rank_and_share`` in ``play.py``.
"""
from __future__ import annotations

from .. import stats as S
from ..rules import INABA
from .tables import R_CHEST_OTHERS, R_INABA_WIN, R_WHITE_PAIR
from .state import (CHARS, DAWN_END, GAME_ST, HBROWN, HCHEST, HTRE, HWHITE, NP, PRIM, SEAT_ST, SECD,
                    STALLED, TURNS, VOID, on_g)


@on_g(VOID)
def score(G):
    np_ = G[NP]
    for s in range(np_):
        tr = G[HTRE + s]
        rab = G[HBROWN + s] + G[R_WHITE_PAIR] * (G[HWHITE + s] // 2)
        chest = G[HCHEST + s] > 0
        st = SEAT_ST + s * S.N_SEAT
        G[st + S.S_TREASURES] = tr
        G[st + S.S_RABBITS] = rab
        G[st + S.S_CHEST] = chest
        G[PRIM + s] = tr - (chest & (G[CHARS + s] != INABA) & (G[R_CHEST_OTHERS] == 0))
        G[SECD + s] = rab
        if G[CHARS + s] == INABA:
            if chest:
                G[PRIM + s] = 127
            elif not G[R_INABA_WIN]:
                G[PRIM + s] = -1
    G[GAME_ST + S.G_TURNS] = G[TURNS]
    G[GAME_ST + S.G_STALLED] = G[STALLED]
    G[GAME_ST + S.G_DAWN] = G[DAWN_END]
