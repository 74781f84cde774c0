"""Rize (rules section 4): he enters a district (the dawn ends the game; he returns the tiles he
carries), finds the players there (``find_players``: each loses a tile into his bag and is
escorted, a chain) and steps along his route after every turn (``rize_moves``); the dawn marker
(``dawn_check``). The disguise as a reaction (rules option ``disguise = "reaction"``) is here,
in the finding it interrupts; the items' actions are in ``items.py``.
"""
from __future__ import annotations

from numba.cpython.unsafe.numbers import trailing_zeros

from simcore.rng import randint

from .. import stats as S
from ..policies import DISGUISE, O_NO, O_YES
from ..rules import CH_ESCORT, CH_HANDS, DISGUISE as DISGUISE_ITEM, EMPTY, ITEM, TREASURE
from .tables import (N_ITEMS, R_D, R_DAWN_EMPTIES, R_DIE, R_DISGUISE_ACTION, R_FINDS, R_FOUND_ENDS,
                     R_H, R_NEXT)
from .state import (ACTING, BAGR, BAG_CAP, BAG_HEAD, BAG_N, BOARD, DAWN, DAWN_END, DISGUISED,
                    GAME_ST, GROUP, HITEM, HNI, HTRE, I64, LETTER, NPD, NT, N_MARKED, OCC, OVER,
                    PENDING, POS, RIZE, SEAT_ST, SEL_ITEM0, TK, TURN_END, VOID, hand_remove, helper,
                    nth_held, on_g, streams)
from .decisions import ask, option
from .board import move_pawn, put_tile, update_time_marker


@helper
def rize_enters(G, d):
    """Rize enters d: the dawn ends the game, else he returns carried tiles (oldest first)."""
    G[RIZE] = d
    if d == G[DAWN]:
        G[OVER] = 1
        G[DAWN_END] = 1
        return
    if G[BAG_N] > 0 and G[NT + d] < G[R_H]:       # tiles to return, an empty house
        h0 = d * G[R_H]
        for h in range(h0, h0 + G[R_H]):
            if G[BOARD + h] == EMPTY and G[BAG_N] > 0:
                t = G[BAGR + (G[BAG_HEAD] & (BAG_CAP - 1))]
                G[BAG_HEAD] += 1
                G[BAG_N] -= 1
                put_tile(G, h, t, G[TK + t] == TREASURE)
    update_time_marker(G, d)


@helper
def lose_tile(G, s):
    kind, n = TREASURE, G[HTRE + s]
    if n == 0:
        kind, n = ITEM, G[HNI + s]
    if n > 0:
        t = nth_held(G, s, kind, randint(streams(G), CH_HANDS, n))
        hand_remove(G, s, t)
        G[BAGR + ((G[BAG_HEAD] + G[BAG_N]) & (BAG_CAP - 1))] = t
        G[BAG_N] += 1
        G[SEAT_ST + s * S.N_SEAT + S.S_LOST] += 1


@helper
def discard_item(G, s, item):
    hand_remove(G, s, nth_held(G, s, SEL_ITEM0 + item, 0))
    G[SEAT_ST + s * S.N_SEAT + S.S_ITEM + item] += 1


@helper
def disguise(G, s):
    """The disguise as a reaction (rules option ``disguise = "reaction"``)."""
    if G[R_DISGUISE_ACTION] or G[HITEM + s * N_ITEMS + DISGUISE_ITEM] == 0:
        return False
    d = G[POS + s]
    option(G, 0, O_NO, d)
    option(G, 1, O_YES, d)
    if ask(G, s, DISGUISE, 2) == 1:
        discard_item(G, s, DISGUISE_ITEM)
        return True
    return False


@on_g(VOID, I64)
def find_players(G, d):
    """Rize finds the players in d, his district; each found group is escorted, a chain
    (nobody is found without ``rize_finds``)."""
    if not G[R_FINDS]:
        return
    handled = 0                              # bit set of seats found (or escaped) already
    while True:
        ng = 0
        todo = G[OCC + d] & ~handled             # the seats in d, ascending
        handled |= todo
        while todo:
            s = trailing_zeros(todo)
            todo &= todo - 1
            if G[DISGUISED + s] or disguise(G, s):
                continue
            G[SEAT_ST + s * S.N_SEAT + S.S_FOUND] += 1
            G[GAME_ST + S.N_GAME + G[R_D] + d] += 1
            lose_tile(G, s)
            G[GROUP + ng] = s
            ng += 1
            if s == G[ACTING] and G[R_FOUND_ENDS]:
                G[TURN_END] = 1
        if ng == 0:
            return
        roll = randint(streams(G), CH_ESCORT, G[R_DIE]) + 1    # escort
        for _ in range(roll):            # d follows Rize in a register, not reloaded from G
            d = G[R_NEXT + d]
            rize_enters(G, d)
            if G[OVER]:
                break
        for i in range(ng):              # the group moved with Rize (rize_enters reads no pawn);
            q = G[GROUP + i]             # a letter where it ends is noticed at q's next turn
            move_pawn(G, q, d)           # (no branch; a game the dawn ended has none)
            G[PENDING + q] |= G[LETTER + q] == d
        if G[OVER]:
            return


@helper
def rize_moves(G):
    """After a player's turn Rize steps one district along his route and finds who is there."""
    nxt = G[R_NEXT + G[RIZE]]
    rize_enters(G, nxt)
    if G[OVER] == 0 and G[NPD + nxt] > 0:
        find_players(G, nxt)


@helper
def dawn_check(G):
    """Once the set number of districts is marked, the dawn marker goes on Rize's district."""
    if G[DAWN] < 0 and G[N_MARKED] >= G[R_DAWN_EMPTIES]:
        G[DAWN] = G[RIZE]
