"""What a card can do now (reference: "what a card can do now"): the towers a potion can go
to, the areas a witch can enter, the pawns a druid serves, and the risk that a brave play is
cancelled (``cancel_risk``, a feature of the LEAD and FOLLOW rows)."""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.bits import popcount

from ..rules import P_DRUID_TERRAIN, P_N_ROLES, P_TOWER_PTR, RO_TERRAINS, TW_COLOUR, TW_ROUND
from .state import GT, G_NP, G_PLAYED, I8, S_GREEN, S_NHAND, S_PAWN_A, TT, sc
from .tables import T_BOARD, T_N_AREA, area_of, role_of, tower_of


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def tower_open(t, g, k):
    """Tower k still takes potions: a round tower, once filled, takes no more."""
    return (tower_of(t, k, TW_ROUND) == 0) | (g[t[T_BOARD] + t[T_N_AREA] + k] == 0)


@njit((TT, GT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def deliverable(t, g, seat, k):
    """Tower k can take one of the seat's potions now. Without branches (& and |, not and /
    or), as witch_can_enter: the option lists append each candidate's slot and count it only
    if it holds, so the board's randomness costs no mispredicted branches."""
    return tower_open(t, g, k) & (g[sc(seat, S_GREEN + tower_of(t, k, TW_COLOUR))] > 0)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def witch_can_enter(t, g, r, a):
    return ((role_of(t, r, RO_TERRAINS) >> area_of(t, a, 0)) & 1 != 0) & (g[t[T_BOARD] + a] == 0)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def druid_serves(t, r, a):
    """Druid r can deliver from a pawn on area a: any area, or (``druid_needs_terrain``) one
    of its terrains."""
    return not t[P_DRUID_TERRAIN] or (role_of(t, r, RO_TERRAINS) >> area_of(t, a, 0)) & 1 != 0


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def druid_can(t, g, seat, r, k):
    """Tower k touches an eligible pawn area and can take a potion."""
    if not deliverable(t, g, seat, k):
        return False
    ptr = t[P_TOWER_PTR]
    for p in range(2):
        a = g[sc(seat, S_PAWN_A + p)]
        if not druid_serves(t, r, a):
            continue
        for i in range(t[ptr + k], t[ptr + k + 1]):
            if t[i] == a:
                return True
    return False


@njit((TT, GT, I8, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def cancel_risk(t, g, r, first, n_later):
    """Expected number of the next ``n_later`` players from ``first`` holding role r: their
    cards left over the roles nobody has played yet this round. One division of the cards'
    sum: the same float32 feature as the reference's sum of each player's share (checked for
    up to 40 roles, 5 later players, 10 cards each), and the divisions were 5% of a game."""
    n_players = g[G_NP]
    cards = 0
    for k in range(first, first + n_later):
        cards += g[sc(k - n_players if k >= n_players else k, S_NHAND)]   # k < 2 n_players
    return cards / (t[P_N_ROLES] - np.int64(popcount(np.uint64(g[G_PLAYED] & ~(1 << r)))))
