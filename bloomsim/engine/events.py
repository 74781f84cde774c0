"""Events (reference: "events", spec 6): the Black Market / Distillery alternative
(``black_market``) and the round-end events (``round_end_event``: Empty-handed, the pawns'
terrain, ``upper_hand``, ``the_works``, Flock together)."""
from __future__ import annotations

from numba import njit

from .. import policies as P
from ..rules import (EC_ANY_POTION, EC_FREE, EC_GAIN, EC_HAND, EC_KIND, EC_LIMIT, EC_PAYS,
                     EC_POINTS, EV_EMPTY_HANDED, EV_FLOCK, EV_PAWN_TERRAIN, EV_THE_WORKS,
                     EV_UPPER_HAND, P_N_ROLES)
from .decisions import decide, features, offer, stop_option
from .scoring import add_points, total_resources
from .state import (G_BIDDING, G_EVENT, G_NP, G_OAB, S_BID, S_EVENTS, S_GREEN, S_ORANGE,
                    S_PAWN_A, S_PAWN_B, S_PURPLE, S_WANDS, sc)
from .tables import area_of, event_of


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def black_market(t, s, seat, ev):
    """Black Market / Distillery: the event's gain instead of the cowardly effect."""
    for c in range(4):
        s.g[sc(seat, S_GREEN + c)] += event_of(t, ev, EC_GAIN + c)
    for _ in range(event_of(t, ev, EC_ANY_POTION)):
        if features(s, seat):
            for c in range(3):
                offer(s, seat, c, -1, False, c, False, 0, 0, 0, 1, 0, 0, 0)
        s.g[sc(seat, S_GREEN + decide(t, s, seat, P.COLOUR, 3))] += 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def round_end_event(t, s):
    ev = s.g[G_EVENT]
    if ev < 0:
        return
    kind = event_of(t, ev, EC_KIND)
    n_players = s.g[G_NP]
    if kind == EV_EMPTY_HANDED:
        if event_of(t, ev, EC_FREE):       # seed 000's reading: it made the payments free
            return
        for seat in range(n_players):
            if (s.g[sc(seat, S_GREEN)] + s.g[sc(seat, S_PURPLE)] + s.g[sc(seat, S_ORANGE)]
                    <= event_of(t, ev, EC_LIMIT)):
                add_points(t, s, seat, event_of(t, ev, EC_POINTS), S_EVENTS)
    elif kind == EV_PAWN_TERRAIN:
        col = EC_HAND + t[P_N_ROLES] + 1
        for seat in range(n_players):
            total = (event_of(t, ev, col + area_of(t, s.g[sc(seat, S_PAWN_A)], 0))
                     + event_of(t, ev, col + area_of(t, s.g[sc(seat, S_PAWN_B)], 0)))
            add_points(t, s, seat, total, S_EVENTS)
    elif kind == EV_UPPER_HAND:
        upper_hand(t, s, ev)
    elif kind == EV_THE_WORKS:
        the_works(t, s, ev)
    elif kind == EV_FLOCK:
        for seat in range(n_players):
            a = area_of(t, s.g[sc(seat, S_PAWN_A)], 0)
            if a == area_of(t, s.g[sc(seat, S_PAWN_B)], 0) and a >= 2:
                add_points(t, s, seat, event_of(t, ev, EC_POINTS), S_EVENTS)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def the_works(t, s, ev):
    """Each player may pay up to max_sets sets of 4 different resources for points."""
    for seat in range(s.g[G_NP]):
        for _ in range(event_of(t, ev, EC_LIMIT)):
            if min(s.g[sc(seat, S_GREEN)], s.g[sc(seat, S_PURPLE)], s.g[sc(seat, S_ORANGE)],
                   s.g[sc(seat, S_WANDS)]) == 0:
                break
            if features(s, seat):
                offer(s, seat, 0, -1, False, -1, False, event_of(t, ev, EC_POINTS), 3, 1, 0, 0, 0,
                      0)
                stop_option(s, seat, 1)
            if decide(t, s, seat, P.WORKS, 2) == 1:
                break
            for c in range(4):
                s.g[sc(seat, S_GREEN + c)] -= 1
            add_points(t, s, seat, event_of(t, ev, EC_POINTS), S_EVENTS)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def upper_hand(t, s, ev):
    """Secret reveals; the highest (ties: all) score and pay their reveal. 0 never wins. The
    best bid is read once all are made, off the state (``determinize`` redraws the bids made
    before a searching seat's own)."""
    n_players = s.g[G_NP]
    s.g[G_BIDDING] = 1
    for seat in range(n_players):
        total = total_resources(s.g, seat)
        if features(s, seat):
            others = -1
            for j in range(n_players):
                if j != seat:
                    others = max(others, total_resources(s.g, j))
            for b in range(total + 1):
                offer(s, seat, b, -1, False, b, False,
                      event_of(t, ev, EC_POINTS) if b > others else 0, 0, 0, 0, 0, 0, 0)
        s.g[sc(seat, S_BID)] = decide(t, s, seat, P.BID, total + 1)
    s.g[G_BIDDING] = 0
    best = 0
    for seat in range(n_players):
        best = max(best, s.g[sc(seat, S_BID)])
    if best == 0:
        return
    for seat in range(n_players):
        if s.g[sc(seat, S_BID)] != best:
            continue
        add_points(t, s, seat, event_of(t, ev, EC_POINTS), S_EVENTS)
        if not event_of(t, ev, EC_PAYS):
            continue
        for _ in range(best):
            n = 0
            for k in range(4):
                if s.g[sc(seat, S_GREEN + k)] > 0:
                    if features(s, seat):
                        offer(s, seat, n, -1, False, k, False, 0, 1 if k < 3 else 0,
                              1 if k == 3 else 0, 0, 0, 0, 0)
                    s.g[G_OAB + 2 * n] = k
                    n += 1
            c = decide(t, s, seat, P.PAY, n)
            s.g[sc(seat, S_GREEN + s.g[G_OAB + 2 * c])] -= 1
