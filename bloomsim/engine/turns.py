"""A turn (reference: "a turn"): the lead passes to the next seat with cards, the leader plays
a card cowardly or brave, each other holder follows in turn, the last brave player acts and
leads (``play_turn``); ``play_card``; ``cowardly_action`` (or the event's alternative)."""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from simcore.bits import nth_set_bit

from .. import policies as P
from ..rules import (EC_ANY_POTION, EC_GAIN, EC_KIND, EV_ALTERNATIVE, P_ENCH_PENALTY, P_N_ROLES,
                     RO_KIND, WITCH)
from .can_do import NEG, cancel_risk, card_features, card_values, pair_rows
from .decisions import decide, features, offer, record, seat_weights
from .events import black_market
from .heuristics import best_card
from .roles import role_action
from .scoring import add_points
from .state import (G_ANSWERED, G_ENCHANTED, G_EVENT, G_LAST_BRAVE, G_LEADER, G_NP, G_PLAYED,
                    G_TURN, G_TURN_ROLE, S_BRAVE_DONE, S_CANCELLED, S_ENCHANTED, S_HAND, S_NHAND,
                    S_PLAYED, S_POLICY, sc)
from .tables import event_of, role_of


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def play_card(t, s, seat, r):
    """The card leaves the hand face up; an enchanted role costs its penalty at once."""
    s.g[sc(seat, S_HAND)] &= ~(1 << r)
    s.g[sc(seat, S_NHAND)] -= 1
    s.g[sc(seat, S_PLAYED)] |= 1 << r
    s.g[G_PLAYED] |= 1 << r
    if (s.g[G_ENCHANTED] >> r) & 1:
        add_points(t, s, seat, -t[P_ENCH_PENALTY], S_ENCHANTED)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def play_turn(t, s):
    n_players = s.g[G_NP]
    leader = s.g[G_LEADER]
    while s.g[sc(leader, S_NHAND)] == 0:              # pass the lead clockwise
        leader = (leader + 1) % n_players
    s.g[G_LEADER] = leader
    hand = s.g[sc(leader, S_HAND)]
    c = -1
    if features(s, leader):
        # the risk is the same for every card in hand (none is played yet): found once; above
        # what a heuristic accepts, only cowardly plays count, and a cowardly witch reaches
        # nothing: no values for the witches (their brave rows, never chosen, reach nothing)
        risk = np.float32(cancel_risk(t, s.g, trailing_zeros(hand), leader + 1, n_players - 1))
        pid = s.g[sc(leader, S_POLICY)]
        weights = seat_weights(s.g, leader)
        roles = hand
        if risk > weights[3]:
            for r in range(t[P_N_ROLES]):
                if (hand >> r) & 1 and role_of(t, r, RO_KIND) == WITCH:
                    roles &= ~(np.int64(1) << r)
        at = card_values(t, s.g, leader, roles)
        if P.scores_cards(pid):
            c = best_card(t, s, leader, P.LEAD, hand, roles, at, risk, weights)
        else:
            n = 0
            for r in range(t[P_N_ROLES]):
                if (hand >> r) & 1:
                    v = s.g[at + 2 * r] if (roles >> r) & 1 else NEG
                    pair_rows(t, s, leader, r, n, v, s.g[at + 2 * r + 1], risk)
                    n += 2
    # option 2j + b: the j-th card in hand (ascending), cowardly (b = 0) or brave
    if c < 0:
        c = decide(t, s, leader, P.LEAD, 2 * s.g[sc(leader, S_NHAND)])
    r, brave = nth_set_bit(hand, c >> 1), (c & 1) == 1
    play_card(t, s, leader, r)
    s.g[G_TURN_ROLE], s.g[G_ANSWERED] = r, leader
    bravest = leader if brave else -1
    if not brave:
        cowardly_action(t, s, leader, r)
    for k in range(leader + 1, leader + n_players):     # the others, clockwise
        seat = k - n_players if k >= n_players else k
        s.g[G_ANSWERED] = seat
        if not (s.g[sc(seat, S_HAND)] >> r) & 1:
            continue
        c = -1
        if features(s, seat):
            risk = np.float32(cancel_risk(t, s.g, r, k + 1, leader + n_players - 1 - k))
            pid = s.g[sc(seat, S_POLICY)]
            weights = seat_weights(s.g, seat)
            if risk > weights[3]:
                c = 0       # a heuristic's only option then: cowardly (no values needed)
                record(s.g, seat, P.FOLLOW, 2, c)
            else:
                role = np.int64(1) << r
                at = card_values(t, s.g, seat, role)
                if P.scores_cards(pid):
                    c = best_card(t, s, seat, P.FOLLOW, role, role, at, risk, weights)
                else:
                    pair_rows(t, s, seat, r, 0, s.g[at + 2 * r], s.g[at + 2 * r + 1], risk)
        if c < 0:
            c = decide(t, s, seat, P.FOLLOW, 2)
        play_card(t, s, seat, r)
        if c == 1:
            if bravest >= 0:
                s.g[sc(bravest, S_CANCELLED)] += 1
            bravest = seat
        else:
            cowardly_action(t, s, seat, r)
    s.g[G_TURN_ROLE] = -1
    if bravest >= 0:
        s.g[sc(bravest, S_BRAVE_DONE)] += 1
        role_action(t, s, bravest, r, True)
        s.g[G_LEADER] = bravest
        s.g[G_LAST_BRAVE] = bravest
    s.g[G_TURN] += 1


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def cowardly_action(t, s, seat, r):
    """The card's cowardly effect, or (Black Market / Distillery) the event's instead."""
    ev = s.g[G_EVENT]
    if ev >= 0 and event_of(t, ev, EC_KIND) == EV_ALTERNATIVE:
        if features(s, seat):
            card_features(t, s, seat, r, False, 0)
            offer(s, seat, 1, -1, False, ev, False, 0, 0, 0,
                  event_of(t, ev, EC_GAIN) + event_of(t, ev, EC_GAIN + 1)
                  + event_of(t, ev, EC_GAIN + 2) + event_of(t, ev, EC_ANY_POTION),
                  event_of(t, ev, EC_GAIN + 3), 0, 0)
        if decide(t, s, seat, P.ALTERNATIVE, 2) == 1:
            black_market(t, s, seat, ev)
            return
    role_action(t, s, seat, r, False)
