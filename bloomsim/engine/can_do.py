"""What a card can do now (reference: "what a card can do now"), the features of a decision's
option rows: the towers that take a potion (``deliverable``; the best of each area for the
colours held, kept current in the state's scratch: ``find_deliveries``), the areas a witch can
enter, the pawns a druid serves, what a role reaches (``card_value``, kept per seat in
``card_values``), a card's row (``card_row``, ``card_features``, ``pair_rows``) and the risk
that a brave play is cancelled (``cancel_risk``)."""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros

from simcore.bits import popcount

from .. import policies as P
from ..rules import (DRUID, EC_FREE, FAIRY, GATHERER, P_ADJ_PTR, P_AREA_TOWER_PTR, P_BONUS_DRUID,
                     P_BONUS_FAIRY, P_DRUID_TERRAIN, P_ENCH_PENALTY, P_N_ROLES, P_TOWER_PTR,
                     RO_BRAVE, RO_COWARDLY, RO_KIND, RO_TERRAINS, TW_COLOUR, TW_POINTS, TW_ROUND,
                     WITCH)
from .decisions import offer
from .state import (B1, GT, G_ENCHANTED, G_EVENT, G_NP, G_PLAYED, I8, ST, S_GREEN, S_NHAND,
                    S_ORANGE, S_PAWN_A, S_PAWN_B, S_PURPLE, S_WANDS, TT, sc)
from .tables import (T_BOARD, T_MAX_STARS, T_NEAR, T_N_AREA, T_SCRATCH, T_SPACES, T_VALUES,
                     T_WITCHES, VALUES_KEY, area_of, event_of, role_of, tile_of, tower_of)

NEG = -(1 << 30)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def pays(t, g):
    """1 if this round's deliveries and charms are paid for, 0 under a card that makes them
    free (Empty Handed as seed 000 reads it: ``EC_FREE``)."""
    ev = g[G_EVENT]
    return np.int64(0) if ev >= 0 and event_of(t, ev, EC_FREE) else np.int64(1)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def unheld(t, g):
    """True under a card that lifts the need to hold what a delivery or charm costs (Empty
    Handed, option ``hold_nothing``: ``EC_FREE`` 2): any open tower takes a potion, any cloud
    next to a pawn charms."""
    ev = g[G_EVENT]
    return ev >= 0 and event_of(t, ev, EC_FREE) == 2


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def tower_open(t, g, k):
    """Tower k still takes potions: a round tower, once filled, takes no more."""
    return (tower_of(t, k, TW_ROUND) == 0) | (g[t[T_BOARD] + t[T_N_AREA] + k] == 0)


@njit((TT, GT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def deliverable(t, g, seat, k):
    """Tower k can take one of the seat's potions now. Without branches (& and |, not and /
    or), as witch_can_enter: the option lists append each candidate's slot and count it only
    if it holds, so the board's randomness costs no mispredicted branches."""
    return tower_open(t, g, k) & ((g[sc(seat, S_GREEN + tower_of(t, k, TW_COLOUR))] > 0)
                                  | unheld(t, g))


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def deliveries_at(t):
    """Where in State.g the best deliveries of every area and colours held start."""
    return t[T_SCRATCH] + 2


@njit((TT, GT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def find_deliveries(t, g, a, at):
    """g[at + c]: the best points of a tower at area a that can take a potion now, for each
    set c of colours held (bit c: colour c); NEG if none."""
    for c in range(8):
        g[at + c] = NEG
    ptr = t[P_AREA_TOWER_PTR]
    for i in range(t[ptr + a], t[ptr + a + 1]):
        k = t[i]
        if tower_open(t, g, k):
            colour, points = tower_of(t, k, TW_COLOUR), tower_of(t, k, TW_POINTS)
            for c in range(8):
                if (c >> colour) & 1 and points > g[at + c]:
                    g[at + c] = points


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def colours_held(t, g, seat):
    """Bit c set if the seat holds a potion of colour c: all its deliveries depend on (every
    colour while ``unheld``)."""
    if unheld(t, g):
        return np.int64(7)
    return ((g[sc(seat, S_GREEN)] > 0) + 2 * (g[sc(seat, S_PURPLE)] > 0)
            + 4 * (g[sc(seat, S_ORANGE)] > 0))


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def wands_held(t, g, seat):
    """The wands a charm may cost the seat now: those it holds, or while ``unheld`` the most
    stars a cloud costs."""
    return t[T_MAX_STARS] if unheld(t, g) else g[sc(seat, S_WANDS)]


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def best_delivery_area(t, g, colours, a):
    """Best tower points at area a a seat holding ``colours`` can deliver to now; NEG if
    none. A load: while some seat reads features, every area's are kept up to date (they
    change only when a round tower fills, ``deliver_potion``), which was cheaper than a cache
    checked at each call."""
    return g[deliveries_at(t) + 8 * a + colours]


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


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def druid_value(t, g, seat, r, colours):
    """The best tower points druid r reaches: those of its (eligible) pawn areas; NEG: none."""
    best = NEG
    for p in range(2):
        a = g[sc(seat, S_PAWN_A + p)]
        if not druid_serves(t, r, a):
            continue
        best = max(best, best_delivery_area(t, g, colours, a))
    return best


@njit((TT, GT, I8, I8, B1), cache=True, _nrt=False, no_cpython_wrapper=True)
def card_value(t, g, seat, r, brave):
    """What role r reaches from the current position: (best tower points, 0) for a brave witch
    or a druid (NEG: none), (bolts, stars) of the best cloud for a fairy (bolts -1: none)."""
    kind = role_of(t, r, RO_KIND)
    best = NEG
    colours = colours_held(t, g, seat)
    if kind == WITCH and brave:
        adj = t[P_ADJ_PTR]
        for p in range(2):
            a0 = g[sc(seat, S_PAWN_A + p)]
            for j in range(t[adj + a0], t[adj + a0 + 1]):
                a = t[j]
                if witch_can_enter(t, g, r, a):
                    best = max(best, best_delivery_area(t, g, colours, a))
    elif kind == DRUID:
        best = druid_value(t, g, seat, r, colours)
    elif kind == FAIRY:
        # the cloud spaces next to a pawn (the best (bolts, stars) does not depend on the order)
        bolts, stars = np.int64(-1), np.int64(0)
        wands = wands_held(t, g, seat)
        near = t[T_NEAR]
        for p in range(2):
            a0 = g[sc(seat, S_PAWN_A + p)]
            for j in range(t[near + a0], t[near + a0 + 1]):
                tile = g[t[T_SPACES] + t[j]]
                if tile < 0:
                    continue
                b, st = tile_of(t, tile, 1), tile_of(t, tile, 0)
                if wands >= st and (b > bolts or (b == bolts and st < stars)):
                    bolts, stars = b, st
        return bolts, stars
    return best, np.int64(0)


@njit((TT, GT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def card_values(t, g, seat, roles):
    """``card_value(t, g, seat, r, True)`` of every role r in the bitmask ``roles``, at
    g[at + 2r], g[at + 2r + 1] for the returned at. Kept per seat under the key (round towers
    filled + clouds charmed, pawns, colours held; wands up to the most stars a cloud costs),
    so only roles not yet valid under it are computed: a seat's values change only when
    potions, pawns, wands, towers or clouds do. The witches share one scan of the pawns'
    neighbours (the towers an area offers do not depend on the witch)."""
    R = t[P_N_ROLES]
    base = t[T_VALUES] + seat * (VALUES_KEY + 2 * R)
    at = base + VALUES_KEY
    A = t[T_N_AREA]
    board = g[t[T_SCRATCH]] + g[t[T_SCRATCH] + 1]
    colours = colours_held(t, g, seat)
    key = ((board * A + g[sc(seat, S_PAWN_A)]) * A + g[sc(seat, S_PAWN_B)]) * 8 + colours
    wands = min(wands_held(t, g, seat), t[T_MAX_STARS])
    if g[base] != key or g[base + 1] != wands:
        g[base] = key
        g[base + 1] = wands
        g[base + 2] = 0
    roles &= ~g[base + 2]
    if roles == 0:
        return at
    g[base + 2] |= roles
    witches = np.int64(0)
    m = roles
    while m:
        r = trailing_zeros(m)
        m &= m - 1
        kind = role_of(t, r, RO_KIND)
        if kind == WITCH or kind == GATHERER:      # a gatherer reaches nothing
            if kind == WITCH:
                witches |= np.int64(1) << np.int64(r)
            g[at + 2 * r] = NEG
            g[at + 2 * r + 1] = 0
        elif kind == DRUID:
            g[at + 2 * r] = druid_value(t, g, seat, r, colours)
            g[at + 2 * r + 1] = 0
        else:
            v, w = card_value(t, g, seat, r, True)
            g[at + 2 * r] = v
            g[at + 2 * r + 1] = w
    if witches == 0:
        return at
    adj = t[P_ADJ_PTR]
    for p in range(2):
        a0 = g[sc(seat, S_PAWN_A + p)]
        for j in range(t[adj + a0], t[adj + a0 + 1]):
            a = t[j]
            m = witches & t[t[T_WITCHES] + area_of(t, a, 0)]     # those that enter a
            if m == 0 or g[t[T_BOARD] + a] > 0:                  # (none enters a cloud)
                continue
            b = best_delivery_area(t, g, colours, a)
            while m:
                r = trailing_zeros(m)
                m &= m - 1
                g[at + 2 * r] = max(g[at + 2 * r], b)
    return at


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def card_terms(t, g, r, kind, brave, v, w):
    """Role r played cowardly or brave, (v, w) from ``card_value``: (points, potions paid,
    wands paid, potions gained, wands gained, lightning, penalty), the features of its row."""
    points, pay_potions, pay_wands = np.int64(0), np.int64(0), np.int64(0)
    gain_potions, gain_wands, lightning = np.int64(0), np.int64(0), np.int64(0)
    if kind == WITCH:
        if brave and v > NEG:
            points, pay_potions = v, pays(t, g)
    elif kind == DRUID:
        if v > NEG:
            points, pay_potions = v + (t[P_BONUS_DRUID] if brave else 0), pays(t, g)
    elif kind == FAIRY:
        if v >= 0:
            points = t[P_BONUS_FAIRY] if brave else 0
            lightning, pay_wands = v, w * pays(t, g)
    elif kind == GATHERER:
        c0 = RO_BRAVE if brave else RO_COWARDLY
        gain_potions = role_of(t, r, c0) + role_of(t, r, c0 + 1) + role_of(t, r, c0 + 2)
        gain_wands = role_of(t, r, c0 + 3)
    penalty = t[P_ENCH_PENALTY] if (g[G_ENCHANTED] >> r) & 1 else 0
    return points, pay_potions, pay_wands, gain_potions, gain_wands, lightning, penalty


@njit((TT, ST, I8, I8, I8, B1, I8, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def card_row(t, s, seat, r, kind, brave, i, v, w):
    """Option i: role r played cowardly or brave, (v, w) from ``card_value``."""
    points, pay_potions, pay_wands, gain_potions, gain_wands, lightning, penalty = card_terms(
        t, s.g, r, kind, brave, v, w)
    offer(s, seat, i, r, brave, r, False, points, pay_potions, pay_wands, gain_potions,
          gain_wands, lightning, penalty)


@njit((TT, ST, I8, I8, B1, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def card_features(t, s, seat, r, brave, i):
    """Row i of opts: role r played cowardly or brave from the current position."""
    v, w = card_value(t, s.g, seat, r, brave)
    card_row(t, s, seat, r, role_of(t, r, RO_KIND), brave, i, v, w)


@njit((TT, ST, I8, I8, I8, I8, I8, types.float32), cache=True, _nrt=False,
      no_cpython_wrapper=True)
def pair_rows(t, s, seat, r, i, v, w, risk):
    """Rows i (cowardly) and i + 1 (brave, with its ``risk``) of role r from its
    ``card_value`` (v, w), for a policy that reads them (a built-in heuristic: ``best_card``)."""
    kind = role_of(t, r, RO_KIND)
    if kind == WITCH:
        card_row(t, s, seat, r, kind, False, i, NEG, 0)
    else:
        card_row(t, s, seat, r, kind, False, i, v, w)
    card_row(t, s, seat, r, kind, True, i + 1, v, w)
    s.opts[i + 1, P.F_RISK] = risk


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
