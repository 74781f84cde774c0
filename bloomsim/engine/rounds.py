"""The round (reference: "the round"), the parts ``play.play_game``'s round loop calls: the
enchanted roles revealed (``reveal_enchanted_roles``), the hands selected (``select_roles``,
More or Less's points included), and after the round's scoring, who leads (``mark_leaders``)."""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.bits import nth_set_bit
from simcore.rng import shuffle

from .. import policies as P
from ..rules import (CH_ENCHANTED, EC_HAND, EC_KIND, EV_MORE_OR_LESS, NO_HAND, P_ENCH_DECK,
                     P_ENCH_TOTAL, P_HAND_SIZE, P_N_ROLES, P_RESHUFFLE_ALL)
from .decisions import decide, features, stop_option
from .heuristics import select_rows
from .scoring import add_points
from .state import (G_ENCHANTED, G_ENCH_N, G_ENCH_PTR, G_EVENT, G_NP, G_ROUND, G_SELECTING,
                    S_EVENTS, S_HAND, S_LED, S_NHAND, S_POLICY, S_SCORE, sc, streams)
from .tables import T_DECKS, T_N_EVENT, T_N_TILES, T_REC, event_of


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def reveal_enchanted_roles(t, s):
    n = t[P_ENCH_TOTAL] - s.g[G_NP]
    if n <= 0:
        return
    R = t[P_N_ROLES]
    cards = t[P_ENCH_DECK]         # the roles in the enchanted deck (bitmask)
    deck = s.g[t[T_DECKS] + t[T_N_TILES] + t[T_N_EVENT]:t[T_REC]]
    st = streams(s.g)
    revealed = 0
    for _ in range(n):
        if s.g[G_ENCH_PTR] == s.g[G_ENCH_N]:
            m = 0
            for r in range(R):
                if (cards >> r) & 1 and (t[P_RESHUFFLE_ALL] or not (revealed >> r) & 1):
                    deck[m] = r
                    m += 1
            shuffle(st, CH_ENCHANTED, deck, m)
            s.g[G_ENCH_N] = m
            s.g[G_ENCH_PTR] = 0
        revealed |= 1 << deck[s.g[G_ENCH_PTR]]
        s.g[G_ENCH_PTR] += 1
    s.g[G_ENCHANTED] = revealed
    rec = t[T_REC] + t[T_N_EVENT]
    for r in range(R):
        if (revealed >> r) & 1:
            s.g[rec + r] |= 1 << (s.g[G_ROUND] - 1)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def select_roles(t, s):
    ev = s.g[G_EVENT]
    R = t[P_N_ROLES]
    c0 = s.opts.shape[0] - R        # the roles' SELECT rows
    mol = ev >= 0 and event_of(t, ev, EC_KIND) == EV_MORE_OR_LESS
    max_size = t[P_HAND_SIZE]
    if mol:
        for n in range(R + 1):
            if event_of(t, ev, EC_HAND + n) != NO_HAND:
                max_size = n
    s.g[G_SELECTING] = 1
    for seat in range(s.g[G_NP]):
        s.g[sc(seat, S_HAND)] = 0
        s.g[sc(seat, S_NHAND)] = 0
        feat = features(s, seat) and max_size > 0
        if feat:       # a role's row does not change while the seat picks its hand
            if select_rows(t, s, seat, c0, max_size, ev, mol):
                continue
        while s.g[sc(seat, S_NHAND)] < max_size:
            hand = s.g[sc(seat, S_HAND)]
            n = R - s.g[sc(seat, S_NHAND)]       # the roles not in hand, ascending
            if feat:
                k = 0
                for r in range(R):
                    if not (hand >> r) & 1:
                        for f in range(P.N_FEATURES):
                            s.opts[k, f] = s.opts[c0 + r, f]
                        k += 1
            if mol and event_of(t, ev, EC_HAND + s.g[sc(seat, S_NHAND)]) != NO_HAND:
                if feat:
                    stop_option(s, seat, n)
                n += 1
            c = decide(t, s, seat, P.SELECT, n)
            r = nth_set_bit(~hand, c)            # the c-th role not in hand
            if r >= R:                           # the stop row
                break
            s.g[sc(seat, S_HAND)] |= 1 << r
            s.g[sc(seat, S_NHAND)] += 1
            if feat and P.scores_cards(s.g[sc(seat, S_POLICY)]):
                select_rows(t, s, seat, c0, max_size, ev, mol)   # a search's playout took over
                break
    s.g[G_SELECTING] = 0
    if mol:
        for seat in range(s.g[G_NP]):
            add_points(t, s, seat, event_of(t, ev, EC_HAND + s.g[sc(seat, S_NHAND)]), S_EVENTS)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def mark_leaders(s, n_players, rnd):
    """After round rnd's scoring: bit rnd-1 of S_LED for every seat with the highest score
    (``simcore.results.mark_leaders``; rounds <= MAX_ROUNDS fit; branch-free: who leads is
    hard to predict)."""
    top = s.g[sc(0, S_SCORE)]
    for p in range(1, n_players):
        top = max(top, s.g[sc(p, S_SCORE)])
    for p in range(n_players):
        s.g[sc(p, S_LED)] |= np.int64(s.g[sc(p, S_SCORE)] == top) << (rnd - 1)
