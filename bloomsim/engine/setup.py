"""Setup (reference: "setup"): a batch's ``State`` (``new_state``, ``init_state``: the seats'
policies, the user policies' and the search's compiled code), then each game's start
(``setup``: scores, potions, wands, pawns at the castles, the cloud tiles, the event deck and
the enchanted deck shuffled; with ``pawn_start: "choose"`` each seat then places its pawns,
``place_pawns``)."""
from __future__ import annotations

import numpy as np
from numba import njit, types

from simcore.rng import seed_streams, shuffle

from .. import policies as P
from ..rules import (CH_ENCHANTED, CH_EVENTS, CH_TILES, P_CASTLE_A, P_CASTLE_B, P_ENCH_DECK,
                     P_ENCH_TOTAL, P_N_ROLES, P_PAWN_CHOOSE, P_START_GREEN, P_START_SCORE,
                     P_TOWER_PTR, P_WANDS_FIRST, P_WANDS_LAST, P_WANDS_OTHERS, TW_POINTS)
from .can_do import deliverable, deliveries_at, find_deliveries
from .decisions import decide, features, offer
from .state import (G_AGENTS, G_ENCH_N, G_EVENT, G_GAME, G_GAME_FN, G_KEY, G_LOG_AT, G_LOG_CAP,
                    G_NP, G_READERS, G_SEARCH_FN, G_TURN_ROLE, G_UF, I8, MAX_PLAYERS, N_G,
                    OBS_LEN, ST, S_GREEN, S_PAWN_A, S_PAWN_B, S_POLICY, S_SCORE, S_WANDS, State,
                    TT, sc, streams)
from .tables import (T_BOARD, T_DECKS, T_LOG, T_MAXO, T_N_AREA, T_N_CLOUD, T_N_EVENT, T_N_TILES,
                     T_N_TOWER, T_REC, T_REDRAW, T_REDRAW_KEY, T_SCRATCH, T_SPACES, area_of,
                     cloud_area_of, tower_of)


def new_state(t: np.ndarray, log_cap: int, forward: bool = False) -> State:
    """A zeroed ``State`` for a batch with these tables (allocated here, in numpy: compiled,
    each dtype's allocation code had cost the cold start its own compile). ``forward``: room
    for what the forward model keeps when it halts (``fm_decide``): a copy of the state after
    the log and the pending option rows, every seat's observation after the decider's."""
    keep = t[T_LOG] + t[T_MAXO] * P.N_FEATURES
    return State(np.zeros(t[T_LOG] + keep * forward + 4 * log_cap, np.int64),
                 np.zeros(OBS_LEN * (1 + MAX_PLAYERS * forward), np.float32),
                 np.zeros((t[T_MAXO] + t[P_N_ROLES], P.N_FEATURES), np.float32))


@njit((TT, ST, I8, types.int64[::1], types.int64[::1], I8, types.int64[::1], I8, I8),
      cache=True, _nrt=False)
def init_state(t, s, n_players, pol, user_policies, log_cap, agents, search_fn, game_fn):
    """The batch's settings into a new State (``new_state``): the seats' policy ids, the
    user policies' and the search's compiled code (``search_fn`` 0 without a search seat),
    the search agents' words (``simcore.search.Agent.params``, AGENT_WORDS per seat)."""
    s.g[G_LOG_CAP] = log_cap
    s.g[G_LOG_AT] = t[T_LOG]
    s.g[G_NP] = n_players
    for p in range(n_players):
        s.g[sc(p, S_POLICY)] = pol[p]
        s.g[G_READERS] |= features(s, p)
    for i in range(MAX_PLAYERS):
        s.g[G_UF + i] = user_policies[i]
    for i in range(agents.shape[0]):
        s.g[G_AGENTS + i] = agents[i]
    s.g[G_SEARCH_FN] = search_fn
    s.g[G_GAME_FN] = game_fn
    A = t[T_N_AREA]
    for a in range(A):      # no round tower is filled yet
        find_deliveries(t, s.g, a, deliveries_at(t) + 8 * A + 8 * a)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def setup(t, s, key, game):
    n_players = s.g[G_NP]
    A, N, E = t[T_N_AREA], t[T_N_TILES], t[T_N_EVENT]
    s.g[:N_G] = 0
    st = streams(s.g)
    seed_streams(key, game, st, t[T_REDRAW], t[T_REDRAW_KEY:T_REDRAW_KEY + 1].view(np.uint64)[0])
    s.g[G_KEY:G_KEY + 1].view(np.uint64)[0] = key
    s.g[G_GAME] = game
    s.g[G_EVENT] = -1
    s.g[G_TURN_ROLE] = -1
    for p in range(n_players):
        for j in range(S_POLICY):
            s.g[sc(p, j)] = 0
        s.g[sc(p, S_SCORE)] = t[P_START_SCORE]
        for c in range(3):
            s.g[sc(p, S_GREEN + c)] = t[P_START_GREEN + c]
        s.g[sc(p, S_WANDS)] = t[P_WANDS_FIRST] if p == 0 else (
            t[P_WANDS_LAST] if p == n_players - 1 else t[P_WANDS_OTHERS])
        s.g[sc(p, S_PAWN_A)] = t[P_CASTLE_A]
        s.g[sc(p, S_PAWN_B)] = t[P_CASTLE_B]
    d0 = t[T_DECKS]
    b0 = t[T_BOARD]
    s.g[b0:t[T_SPACES]] = 0
    s.g[t[T_REC]:t[T_SCRATCH]] = 0
    if s.g[G_READERS]:      # the best deliveries with no round tower filled
        d = deliveries_at(t)
        for i in range(d, d + 8 * A):
            s.g[i] = s.g[i + 8 * A]
    # the card values' key counts the round towers filled and clouds charmed since the State
    # was made: one more of each for the new board leaves every seat's values of the last
    # game stale (cheaper than clearing them at every game)
    s.g[t[T_SCRATCH]] += 1
    s.g[t[T_SCRATCH] + 1] += 1
    tiles = s.g[d0:d0 + N]
    for i in range(N):
        tiles[i] = i
    shuffle(st, CH_TILES, tiles, N)
    for i in range(t[T_N_CLOUD]):
        s.g[t[T_SPACES] + i] = tiles[i]
        s.g[b0 + cloud_area_of(t, i)] += 1
    events = s.g[d0 + N:d0 + N + E]
    for i in range(E):
        events[i] = i
    shuffle(st, CH_EVENTS, events, E)
    if t[P_ENCH_TOTAL] - n_players > 0:
        deck = s.g[d0 + N + E:t[T_REC]]
        m = 0
        for r in range(t[P_N_ROLES]):
            if (t[P_ENCH_DECK] >> r) & 1:
                deck[m] = r
                m += 1
        shuffle(st, CH_ENCHANTED, deck, m)
        s.g[G_ENCH_N] = m
    if t[P_PAWN_CHOOSE]:
        place_pawns(t, s)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def within_step(t, a, k):
    """Tower k touches area a or one of its neighbours (a pawn at a reaches it in one move)."""
    ptr = t[P_TOWER_PTR]
    for i in range(t[ptr + k], t[ptr + k + 1]):
        if t[i] == a or area_of(t, a, 1 + t[i]):
            return True
    return False


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def start_points(t, g, seat, a, other):
    """A START row's points (reference: ``start_points``): the best tower within one step of
    castle area a the seat can deliver to now, not already within one step of its other pawn's
    area ``other`` (-1: not placed yet); 0 if none."""
    best = 0
    for k in range(t[T_N_TOWER]):
        if (deliverable(t, g, seat, k) and within_step(t, a, k)
                and not (other >= 0 and within_step(t, other, k))):
            best = max(best, np.int64(tower_of(t, k, TW_POINTS)))
    return best


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def place_pawns(t, s):
    """``pawn_start: "choose"`` (reference: ``place_pawns``): seat by seat, each pawn in turn
    starts at the castle its seat picks (START: castle A, castle B)."""
    castles = (t[P_CASTLE_A], t[P_CASTLE_B])
    for seat in range(s.g[G_NP]):
        for p in range(2):
            other = s.g[sc(seat, S_PAWN_A)] if p == 1 else -1
            if features(s, seat):
                for i in range(2):
                    offer(s, seat, i, -1, False, castles[i], False,
                          start_points(t, s.g, seat, castles[i], other), 0, 0, 0, 0, 0, 0)
            s.g[sc(seat, S_PAWN_A + p)] = castles[decide(t, s, seat, P.START, 2)]
