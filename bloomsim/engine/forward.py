"""The forward model's hooks (``bloomsim/forward.py``, ``simcore.forward``, the search):
``determinize`` a position for a seat, a search tree's ``action_key``, the ``snapshot`` a
search replays from, and ``fm_game`` (a game replayed from its log). Its decision hook,
``fm_decide``, is with the other decision paths in ``decisions.py``."""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.bits import nth_set_bit, popcount
from simcore.rng import randint, reseed, shuffle_set

from .. import policies as P
from ..rules import (CH_ENCHANTED, CH_EVENTS, EC_HAND, EC_KIND, EV_MORE_OR_LESS, NO_HAND, N_CHANCE,
                     P_N_ROLES)
from .scoring import total_resources
from .state import (FM_SEAT, GT, G_ANSWERED, G_BIDDING, G_DECISIONS, G_ENCH_N, G_ENCH_PTR,
                    G_EVENT, G_FM_STOP, G_HALTED, G_LEADER, G_NP, G_PLAYED, G_RESUME,
                    G_RESUME_TURNS, G_ROUND, G_SELECTING, G_SNAP, G_TURN_ROLE, I8, S_BID,
                    S_HAND, S_NHAND, S_POLICY, TT, sc, streams)
from .tables import T_DECKS, T_LOG, T_N_EVENT, T_N_TILES, event_of


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def secret_sizes(t, g, seat, st):
    """While More or Less? hands are chosen, the sizes the seats before ``seat`` chose are
    secret: each is drawn anew from the sizes the card allows (its hand is then drawn)."""
    ev = g[G_EVENT]
    if not g[G_SELECTING] or ev < 0 or event_of(t, ev, EC_KIND) != EV_MORE_OR_LESS:
        return
    sizes = 0
    for n in range(t[P_N_ROLES] + 1):
        if event_of(t, ev, EC_HAND + n) != NO_HAND:
            sizes |= np.int64(1) << n
    for p in range(seat):
        g[sc(p, S_NHAND)] = nth_set_bit(sizes, randint(st, N_CHANCE + p,
                                                       popcount(np.uint64(sizes))))


@njit((TT, GT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def determinize(t, g, seat, seed):
    """Resample what the seat cannot see, consistently with all it has seen: each other
    seat's hand (as many roles as it holds, from the roles nobody played this round: a holder
    must follow a led role; the role of the turn in progress too for a seat whose chance to
    follow it is still to come), the secret choices of the seats that chose before it (their
    hand sizes while More or Less? hands are chosen, their bids while The Upper Hand's are
    made), the events still face down, the enchanted deck's unseen cards, and the coming draws
    of every chance source and of the other seats (``simcore.rng.reseed``); a seat's secret
    choices from its own new stream."""
    n_players = g[G_NP]
    st = streams(g)
    reseed(st, seed, N_CHANCE + seat)
    secret_sizes(t, g, seat, st)
    if g[G_BIDDING]:
        for p in range(seat):
            g[sc(p, S_BID)] = randint(st, N_CHANCE + p, total_resources(g, p) + 1)
    R, N, E = t[P_N_ROLES], t[T_N_TILES], t[T_N_EVENT]
    free = ((np.int64(1) << R) - 1) & ~g[G_PLAYED]
    r, lead = g[G_TURN_ROLE], g[G_LEADER]
    answered = (g[G_ANSWERED] - lead + n_players) % n_players
    for p in range(n_players):
        if p != seat:
            may = free
            if r >= 0 and (p - lead + n_players) % n_players > answered:
                may |= np.int64(1) << r
            hand = 0
            for i in range(g[sc(p, S_NHAND)]):
                left = may & ~hand
                k = randint(st, N_CHANCE + p, popcount(np.uint64(left)))
                hand |= np.int64(1) << nth_set_bit(left, k)
            g[sc(p, S_HAND)] = hand
    d0 = t[T_DECKS] + N
    rnd = g[G_ROUND]
    shuffle_set(st, CH_EVENTS, g[d0 + rnd:d0 + E], E - rnd)
    at = d0 + E + g[G_ENCH_PTR]
    shuffle_set(st, CH_ENCHANTED, g[at:d0 + E + g[G_ENCH_N]], g[G_ENCH_N] - g[G_ENCH_PTR])


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def action_key(kind, o):
    """What option row ``o`` does, as a search tree's key: the same action in every
    determinization (``simcore.search``)."""
    return ((((kind * 64 + np.int64(o[P.F_ROLE]) + 1) * 2 + np.int64(o[P.F_BRAVE] > 0)) * 4096
             + np.int64(o[P.F_TARGET]) + 1) * 2 + np.int64(o[P.F_PASS] > 0))


@njit((TT, GT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def snapshot(t, g, rnd, turns):
    """While a search's decision is still ahead (``search``), keep the state at the start of
    each round (``turns`` 0) and of each turn (1): the search's iterations replay from the last
    one, not from the start of the game. A batch game keeps none (G_SNAP 0). An iteration
    that resumed from the snapshot meets it again first thing: kept already, not copied (at
    worst, after a turn without decisions, a search resumes a turn early: the same game)."""
    snap = g[G_SNAP]
    if snap and g[G_DECISIONS] <= g[G_FM_STOP]:
        if (g[snap + G_RESUME] == rnd and g[snap + G_RESUME_TURNS] == turns
                and g[snap + G_DECISIONS] == g[G_DECISIONS]):
            return
        g[G_RESUME], g[G_RESUME_TURNS] = rnd, turns
        for j in range(t[T_LOG]):
            g[snap + j] = g[j]


@njit(cache=True)
def fm_game(t, s, key, game, game_fn, log, seat_out, rank, win, game_out, errors, keys):
    """Game ``game`` in the forward model (``init_state`` with ``FM_SEAT`` everywhere, the
    choices in the log): played to its end, or to the first decision past the log.
    ``game_fn``: ``play_game`` by address, as in ``play_games``."""
    s.g[G_HALTED] = 0
    for p in range(s.g[G_NP]):      # a halt made them random (fm_decide)
        s.g[sc(p, S_POLICY)] = FM_SEAT
    game_fn(t, s, key, game, log, 0, keys[0], keys[1], seat_out, rank, win, game_out, errors)
    return s.g[G_HALTED]
