"""The roles (reference: "the roles", spec 4): ``witch``, ``druid``, ``deliver_potion``,
``gatherer``, ``weather_fairy``, each with its options, and ``role_action``, the card's
effect by its kind."""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .. import policies as P
from ..rules import (DRUID, GATHERER, P_ADJ_PTR, P_AREA_TOWER_PTR, P_BONUS_DRUID, P_BONUS_FAIRY,
                     P_N_ROLES, P_TOWER_PTR, RO_BRAVE, RO_COWARDLY, RO_KIND, TW_COLOUR, TW_POINTS,
                     TW_ROUND, TW_WANDS, WITCH)
from .can_do import (NEG, best_delivery_area, card_features, colours_held, deliverable,
                     deliveries_at, druid_can, druid_serves, find_deliveries, pays,
                     wands_held, witch_can_enter)
from .decisions import decide, features, offer, stop_option
from .scoring import add_points
from .state import (B1, G_OAB, G_READERS, G_ROUND, I8, ST, S_BOLTS, S_BRAVE, S_CHARMED, S_DELIV,
                    S_GREEN, S_PAWN_A, S_PAWN_B, S_TOWERS, S_WANDS, TT, sc)
from .tables import (T_BOARD, T_NEAR, T_N_AREA, T_N_EVENT, T_N_TOWER, T_REC, T_SCRATCH, T_SPACES,
                     cloud_area_of, role_of, tile_of, tower_of)


@njit((TT, ST, I8, I8, B1, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def offer_moves(t, s, seat, r, brave, n):
    """The witch's n moves in the option slots (pawn, area), then decline."""
    colours = colours_held(t, s.g, seat)
    for i in range(n):
        a = s.g[G_OAB + 2 * i + 1]
        v = best_delivery_area(t, s.g, colours, a)
        offer(s, seat, i, r, brave, a, False, v if v > NEG else 0, 0, 0, 0, 0, 0, 0)
    stop_option(s, seat, n)


@njit((TT, ST, I8, I8, B1, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def offer_charms(t, s, seat, r, brave, n):
    """The fairy's n charms in the option slots (cloud space), then decline."""
    bonus = t[P_BONUS_FAIRY] if brave else 0
    pay = pays(t, s.g)
    for j in range(n):
        i = s.g[G_OAB + 2 * j]
        a = cloud_area_of(t, i)
        tile = s.g[t[T_SPACES] + i]
        offer(s, seat, j, r, brave, a, False, bonus, 0, tile_of(t, tile, 0) * pay, 0, 0,
              tile_of(t, tile, 1), 0)
    stop_option(s, seat, n)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def witch(t, s, seat, r, brave):
    """Move one pawn to an adjacent area of the witch's terrain; brave: then deliver there."""
    adj = t[P_ADJ_PTR]
    n = 0
    for p in range(2):
        a0 = s.g[sc(seat, S_PAWN_A + p)]
        for j in range(t[adj + a0], t[adj + a0 + 1]):
            a = t[j]
            s.g[G_OAB + 2 * n] = p
            s.g[G_OAB + 2 * n + 1] = a
            n += witch_can_enter(t, s.g, r, a)
    if features(s, seat):
        offer_moves(t, s, seat, r, brave, n)
    c = decide(t, s, seat, P.MOVE, n + 1)
    if c == n:
        return
    a = s.g[G_OAB + 2 * c + 1]
    s.g[sc(seat, S_PAWN_A + s.g[G_OAB + 2 * c])] = a
    if brave:
        ptr = t[P_AREA_TOWER_PTR]
        m = 0
        for i in range(t[ptr + a], t[ptr + a + 1]):
            k = t[i]
            s.g[G_OAB + 2 * m] = k
            m += deliverable(t, s.g, seat, k)
        deliver_potion(t, s, seat, r, m, True, 0)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def druid(t, s, seat, r, brave):
    """Deliver one potion without moving; brave: + bonus if a delivery happened."""
    K = t[T_N_TOWER]
    m = 0
    if K > 63:
        for k in range(K):
            if druid_can(t, s.g, seat, r, k):
                s.g[G_OAB + 2 * m] = k
                m += 1
    else:               # the towers of the eligible pawn areas, as a bitmask (ascending k)
        ptr = t[P_AREA_TOWER_PTR]
        mask = np.int64(0)
        for p in range(2):
            a = s.g[sc(seat, S_PAWN_A + p)]
            if not druid_serves(t, r, a):
                continue
            for i in range(t[ptr + a], t[ptr + a + 1]):
                k = t[i]
                mask |= np.int64(deliverable(t, s.g, seat, k)) << np.int64(k)
        while mask:
            s.g[G_OAB + 2 * m] = trailing_zeros(mask)
            mask &= mask - 1
            m += 1
    deliver_potion(t, s, seat, r, m, brave, t[P_BONUS_DRUID] if brave else 0)


@njit((TT, ST, I8, I8, I8, B1, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def deliver_potion(t, s, seat, r, m, brave, bonus):
    """Deliver to one of the m towers in option slots 0 .. m-1 (g[G_OAB + 2i]), or decline
    (option m); the potion is paid unless ``pays`` says the round's payments are free."""
    pay = pays(t, s.g)
    if features(s, seat):
        for i in range(m):
            k = s.g[G_OAB + 2 * i]
            offer(s, seat, i, r, brave, k, False, tower_of(t, k, TW_POINTS) + bonus, pay, 0, 0,
                  tower_of(t, k, TW_WANDS) if tower_of(t, k, TW_ROUND) else 0, 0, 0)
        stop_option(s, seat, m)
    c = decide(t, s, seat, P.DELIVER, m + 1)
    if c == m:
        return
    k = s.g[G_OAB + 2 * c]
    s.g[sc(seat, S_GREEN + tower_of(t, k, TW_COLOUR))] -= pay
    if tower_of(t, k, TW_ROUND):
        s.g[t[T_BOARD] + t[T_N_AREA] + k] = 1
        s.g[t[T_SCRATCH]] += 1     # round towers filled
        if s.g[G_READERS]:
            ptr = t[P_TOWER_PTR]
            for i in range(t[ptr + k], t[ptr + k + 1]):     # the areas of tower k
                find_deliveries(t, s.g, t[i], deliveries_at(t) + 8 * t[i])
        s.g[sc(seat, S_WANDS)] += tower_of(t, k, TW_WANDS)
    add_points(t, s, seat, tower_of(t, k, TW_POINTS), S_TOWERS)
    if bonus:
        add_points(t, s, seat, bonus, S_BRAVE)
    s.g[sc(seat, S_DELIV)] += 1
    s.g[t[T_REC] + t[T_N_EVENT] + t[P_N_ROLES] + k] += 1


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def gatherer(t, s, seat, r, brave):
    """Take the gatherer's resources, or decline."""
    if features(s, seat):
        card_features(t, s, seat, r, brave, 0)
        stop_option(s, seat, 1)
    if decide(t, s, seat, P.GATHER, 2) == 1:
        return
    c0 = RO_BRAVE if brave else RO_COWARDLY
    for c in range(4):
        s.g[sc(seat, S_GREEN + c)] += role_of(t, r, c0 + c)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def weather_fairy(t, s, seat, r, brave):
    """Charm a cloud next to a pawn, paying its stars in wands (unless ``pays`` says the round's
    payments are free); brave: + bonus if charmed."""
    n = 0
    # can_charm: the cloud spaces next to either pawn (merging their ascending lists, so in
    # rules order) that hold a tile the seat's wands pay for
    near = t[T_NEAR]
    pa, pb = s.g[sc(seat, S_PAWN_A)], s.g[sc(seat, S_PAWN_B)]
    ia, ea, ib, eb = t[near + pa], t[near + pa + 1], t[near + pb], t[near + pb + 1]
    while ia < ea or ib < eb:
        if ib == eb or (ia < ea and t[ia] <= t[ib]):
            i = t[ia]
            ia += 1
            if ib < eb and t[ib] == i:
                ib += 1
        else:
            i = t[ib]
            ib += 1
        tile = s.g[t[T_SPACES] + i]
        if tile >= 0 and wands_held(t, s.g, seat) >= tile_of(t, tile, 0):
            s.g[G_OAB + 2 * n] = i
            n += 1
    if features(s, seat):
        offer_charms(t, s, seat, r, brave, n)
    c = decide(t, s, seat, P.CHARM, n + 1)
    if c == n:
        return
    i = s.g[G_OAB + 2 * c]
    tile = s.g[t[T_SPACES] + i]
    s.g[t[T_SPACES] + i] = -1
    s.g[t[T_BOARD] + cloud_area_of(t, i)] -= 1     # the area opens when its last cloud goes
    s.g[sc(seat, S_WANDS)] -= tile_of(t, tile, 0) * pays(t, s.g)
    s.g[sc(seat, S_BOLTS)] += tile_of(t, tile, 1)
    s.g[sc(seat, S_CHARMED)] += 1
    s.g[t[T_SCRATCH] + 1] += 1     # clouds charmed
    s.g[t[T_REC] + t[T_N_EVENT] + t[P_N_ROLES] + t[T_N_TOWER] + i] = s.g[G_ROUND]
    bonus = t[P_BONUS_FAIRY] if brave else 0
    if bonus:
        add_points(t, s, seat, bonus, S_BRAVE)


@njit((TT, ST, I8, I8, B1), cache=True, _nrt=False, no_cpython_wrapper=True)
def role_action(t, s, seat, r, brave):
    kind = role_of(t, r, RO_KIND)
    if kind == WITCH:
        witch(t, s, seat, r, brave)
    elif kind == GATHERER:
        gatherer(t, s, seat, r, brave)
    elif kind == DRUID:
        druid(t, s, seat, r, brave)
    else:
        weather_fairy(t, s, seat, r, brave)
