"""The compiled engine: the rules of ``reference.py`` as numba kernels over packed arrays.

``play_batch`` plays games ``start .. start+n-1`` over all threads (``prange`` over blocks of
games; each block owns one ``State``, reset per game, so nothing is allocated inside a game).
Every function mirrors the reference function of the same name, draws the same random numbers
in the same order and builds the same options, so both engines play the same game
(``tests/bloomsim/test_differential.py`` holds them to it).

Rules (``rules.Tables``) and state (``State``) are a few packed arrays with named columns: every
call between kernels passes them, and a handful of arrays keeps calls and compilation cheap.
A policy's illegal choice is recorded in the state (the game goes on with option 0) and raised
by the caller after the kernel returns.

Kernels called inside a game are compiled without numba's reference counting (``_nrt=False``):
they never allocate, and shared rules arrays touched by every thread would otherwise make the
threads fight over their reference counts.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from simcore.results import rank_and_share
from simcore.rng import CHANCE, seed_streams, shuffle

from . import policies as P
from .policies import call_builtin
from .rules import (DRUID, EC_ANY_POTION, EC_GAIN, EC_HAND, EC_KIND, EC_LIMIT, EC_PAYS,
                    EC_POINTS, EV_ALTERNATIVE, EV_EMPTY_HANDED, EV_FLOCK, EV_MORE_OR_LESS,
                    EV_PAWN_TERRAIN, EV_THE_WORKS, EV_UPPER_HAND, FAIRY, GATHERER, NO_HAND,
                    P_ADJ_PTR, P_AREA_TOWER_PTR, P_BONUS_DRUID,
                    P_BONUS_FAIRY, P_CASTLE_A, P_CASTLE_B, P_DRUID_TERRAIN, P_ENCH_DECK,
                    P_ENCH_PENALTY, P_ENCH_TOTAL, P_EVENTS_USED, P_FLOOR, P_HAND_SIZE, P_HAS_FLOOR,
                    P_LIGHT_BEYOND, P_N_ROLES, P_RESHUFFLE_ALL, P_ROUNDS, P_SET3, P_SET4,
                    P_START_GREEN, P_START_SCORE, P_TOWER_PTR, P_WANDS_FIRST,
                    P_WANDS_LAST, P_WANDS_OTHERS, RO_BRAVE, RO_COWARDLY, RO_KIND, RO_TERRAINS,
                    TW_COLOUR, TW_POINTS, TW_ROUND, TW_WANDS, WITCH)

MAX_PLAYERS = 6
OBS_LEN = P.obs_len(MAX_PLAYERS)
NEG = -(1 << 30)

# State.g: game scalars
(G_ROUND, G_TURN, G_LEADER, G_START, G_EVENT, G_ENCHANTED, G_PLAYED, G_DECISIONS, G_LOGGED,
 G_ERROR, G_ERR_SEAT, G_ERR_KIND, G_ERR_CHOICE, G_ERR_N, G_ENCH_N, G_ENCH_PTR,
 G_SELECTING) = range(17)
# State.seat columns. S_SCORE .. S_FLOOR are also the order of the results' score columns.
(S_SCORE, S_TOWERS, S_BRAVE, S_EVENTS, S_ENCHANTED, S_LIGHTNING, S_SETS, S_FLOOR, S_GREEN,
 S_PURPLE, S_ORANGE, S_WANDS, S_PAWN_A, S_PAWN_B, S_BOLTS, S_HAND, S_NHAND, S_PLAYED, S_DELIV,
 S_CHARMED, S_BRAVE_DONE, S_CANCELLED, S_BID, S_POLICY) = range(24)
N_SEAT = 24


class State(NamedTuple):
    """One game's position and scratch. P players, A areas, K towers, R roles, E events,
    C cloud spaces, N cloud tiles."""

    g: np.ndarray      # [17] int64 game scalars (G_*)
    seat: np.ndarray   # [P, 24] int32 per-seat state (S_*); hands and played cards are bitmasks
    board: np.ndarray  # [A + K] int16 cloud tile on each area (-1 none), then round tower filled
    decks: np.ndarray  # [N + E + R] int16 tile order, event deck, enchanted deck
    rec: np.ndarray    # [E + R + K + C] int16 event round, enchanted-rounds mask, deliveries per
    #                    tower, round each cloud space was charmed (the game-level results)
    st: np.ndarray     # [1 + P] uint64 the game's streams: chance, then one per seat
    obs: np.ndarray    # [OBS_LEN] float32
    opts: np.ndarray   # [MAXO, F] float32
    oab: np.ndarray    # [MAXO, 2] int32 what option i means (role/pawn/tower, brave/area)
    card: np.ndarray   # [R, F] float32 each role's SELECT row for the seat selecting now


@njit(cache=True)
def new_state(t, n_players, pol, max_opts):
    A, K = t.area.shape[0], t.tower.shape[0]
    N, E, R, C = t.tiles.shape[0], t.event.shape[0], t.role.shape[0], t.cloud_area.shape[0]
    s = State(np.zeros(17, np.int64), np.zeros((n_players, N_SEAT), np.int32),
              np.zeros(A + K, np.int16), np.zeros(N + E + R, np.int16),
              np.zeros(E + R + K + C, np.int16), np.zeros(1 + n_players, np.uint64),
              np.zeros(OBS_LEN, np.float32), np.zeros((max_opts, P.N_FEATURES), np.float32),
              np.zeros((max_opts, 2), np.int32), np.zeros((R, P.N_FEATURES), np.float32))
    for p in range(n_players):
        s.seat[p, S_POLICY] = pol[p]
    return s


# ---------------------------------------------------------------- small helpers

@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def add_points(t, s, seat, delta, src):
    """Move the score marker; the track never goes below the floor."""
    s.seat[seat, src] += delta
    new = s.seat[seat, S_SCORE] + delta
    if t.p[P_HAS_FLOOR] and new < t.p[P_FLOOR]:
        s.seat[seat, S_FLOOR] += t.p[P_FLOOR] - new
        new = t.p[P_FLOOR]
    s.seat[seat, S_SCORE] = new


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def clear_row(s, i):
    o = s.opts[i]
    for f in range(P.N_FEATURES):
        o[f] = 0.0
    o[P.F_ROLE] = -1.0
    o[P.F_TARGET] = -1.0


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def stop_row(s, i):
    clear_row(s, i)
    s.opts[i, P.F_PASS] = 1.0


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def total_resources(s, seat):
    return (s.seat[seat, S_GREEN] + s.seat[seat, S_PURPLE] + s.seat[seat, S_ORANGE]
            + s.seat[seat, S_WANDS])


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def observe(event, g, seats, o, seat):
    n_players = seats.shape[0]
    for i in range(o.shape[0]):
        o[i] = -1.0
    o[P.O_ROUND] = g[G_ROUND]
    o[P.O_PLAYERS] = n_players
    o[P.O_SEAT] = seat
    ev = g[G_EVENT]
    o[P.O_EVENT] = ev
    o[P.O_EVENT_CODE] = event[ev, EC_KIND] if ev >= 0 else -1
    o[P.O_ENCHANTED] = g[G_ENCHANTED]
    o[P.O_HAND] = seats[seat, S_HAND]
    o[P.O_LEADER] = g[G_LEADER]
    o[P.O_TURN] = g[G_TURN]
    o[P.O_PLAYED] = g[G_PLAYED]
    for k in range(n_players):
        j = (seat + k) % n_players
        b = P.O_SEATS + k * P.SEAT_FIELDS
        o[b + P.S_SCORE] = seats[j, S_SCORE]
        o[b + P.S_GREEN] = seats[j, S_GREEN]
        o[b + P.S_PURPLE] = seats[j, S_PURPLE]
        o[b + P.S_ORANGE] = seats[j, S_ORANGE]
        o[b + P.S_WANDS] = seats[j, S_WANDS]
        o[b + P.S_LIGHTNING] = seats[j, S_BOLTS]
        o[b + P.S_CARDS] = -1 if g[G_SELECTING] and k > 0 else seats[j, S_NHAND]
        o[b + P.S_PLAYED] = seats[j, S_PLAYED]
        o[b + P.S_PAWN_A] = seats[j, S_PAWN_A]
        o[b + P.S_PAWN_B] = seats[j, S_PAWN_B]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def features(s, seat):
    """Whether the seat's policy reads features (the built-in random one does not)."""
    return s.seat[seat, S_POLICY] != P.RANDOM


@njit(cache=True, _nrt=True)
def call_user_list(user_funcs, i, kind, obs, opts, n, rng):
    """A user policy from the typed list (kept apart: list access needs reference counting)."""
    return user_funcs[i](kind, obs, opts, n, rng)


def call_user(user_funcs, i, kind, obs, opts, n, rng):
    """A user policy; ``user_funcs`` is None when every seat plays a built-in policy (then no
    typed list has to be built, which compiles list code at every start)."""


@overload(call_user)
def _call_user(user_funcs, i, kind, obs, opts, n, rng):
    if isinstance(user_funcs, types.NoneType):
        return lambda user_funcs, i, kind, obs, opts, n, rng: np.int64(0)
    return lambda user_funcs, i, kind, obs, opts, n, rng: call_user_list(
        user_funcs, i, kind, obs, opts, n, rng)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def ask(event, g, seats, st, obs, opts, seat, kind, n, user_funcs, log, lg):
    """``decide`` on the few arrays it reads (a call passes every array of its arguments)."""
    pid = seats[seat, S_POLICY]
    if pid != P.RANDOM:
        observe(event, g, seats, obs, seat)
    rng = st[1 + seat:2 + seat]
    if pid >= 0:
        c = call_builtin(pid, kind, obs, opts, n, rng)
    else:
        c = call_user(user_funcs, -1 - pid, kind, obs, opts, n, rng)
    if c < 0 or c >= n:
        if g[G_ERROR] == 0:
            g[G_ERROR] = 1
            g[G_ERR_SEAT] = seat
            g[G_ERR_KIND] = kind
            g[G_ERR_CHOICE] = c
            g[G_ERR_N] = n
        c = 0
    k = g[G_LOGGED]
    if k < log.shape[1]:
        log[lg, k, 0] = seat
        log[lg, k, 1] = kind
        log[lg, k, 2] = n
        log[lg, k, 3] = c
    g[G_LOGGED] = k + 1
    g[G_DECISIONS] += 1
    return c


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def decide(t, s, seat, kind, n, user_funcs, log, lg):
    """Ask the seat's policy (a single option is taken without asking)."""
    if n == 1:
        return 0
    return ask(t.event, s.g, s.seat, s.st, s.obs, s.opts, seat, kind, n, user_funcs, log, lg)


# ---------------------------------------------------------------- what a card can do now

@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def deliverable(t, s, seat, k):
    return ((t.tower[k, TW_ROUND] == 0 or s.board[t.area.shape[0] + k] == 0)
            and s.seat[seat, S_GREEN + t.tower[k, TW_COLOUR]] > 0)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def best_delivery_area(t, s, seat, a):
    """Best tower points at area a the seat can deliver to now; NEG if none."""
    best = NEG
    ptr = t.p[P_AREA_TOWER_PTR]
    for i in range(t.graph[ptr + a], t.graph[ptr + a + 1]):
        k = t.graph[i]
        if deliverable(t, s, seat, k) and t.tower[k, TW_POINTS] > best:
            best = t.tower[k, TW_POINTS]
    return best


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def witch_can_enter(t, s, r, a):
    return (t.role[r, RO_TERRAINS] >> t.area[a, 0]) & 1 and s.board[a] < 0


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def druid_can(t, s, seat, r, k):
    """Tower k touches an eligible pawn area and can take a potion."""
    if not deliverable(t, s, seat, k):
        return False
    ptr = t.p[P_TOWER_PTR]
    for p in range(2):
        a = s.seat[seat, S_PAWN_A + p]
        if t.p[P_DRUID_TERRAIN] and not (t.role[r, RO_TERRAINS] >> t.area[a, 0]) & 1:
            continue
        for i in range(t.graph[ptr + k], t.graph[ptr + k + 1]):
            if t.graph[i] == a:
                return True
    return False


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def can_charm(t, s, seat, i):
    a = t.cloud_area[i]
    tile = s.board[a]
    return (tile >= 0 and (t.area[a, 1 + s.seat[seat, S_PAWN_A]] != 0
                           or t.area[a, 1 + s.seat[seat, S_PAWN_B]] != 0)
            and s.seat[seat, S_WANDS] >= t.tiles[tile, 0])


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def card_features(t, s, seat, r, brave, i):
    """Row i of opts: role r played cowardly or brave from the current position."""
    clear_row(s, i)
    o = s.opts[i]
    kind = t.role[r, RO_KIND]
    if kind == WITCH and brave:
        best = NEG
        adj = t.p[P_ADJ_PTR]
        for p in range(2):
            a0 = s.seat[seat, S_PAWN_A + p]
            for j in range(t.graph[adj + a0], t.graph[adj + a0 + 1]):
                a = t.graph[j]
                if witch_can_enter(t, s, r, a):
                    best = max(best, best_delivery_area(t, s, seat, a))
        if best > NEG:
            o[P.F_POINTS] = best
            o[P.F_PAY_POTIONS] = 1
    elif kind == DRUID:
        # the towers a druid reaches are those of its (eligible) pawn areas
        best = NEG
        for p in range(2):
            a = s.seat[seat, S_PAWN_A + p]
            if t.p[P_DRUID_TERRAIN] and not (t.role[r, RO_TERRAINS] >> t.area[a, 0]) & 1:
                continue
            best = max(best, best_delivery_area(t, s, seat, a))
        if best > NEG:
            o[P.F_POINTS] = best + (t.p[P_BONUS_DRUID] if brave else 0)
            o[P.F_PAY_POTIONS] = 1
    elif kind == FAIRY:
        bolts, stars = -1, 0
        for c in range(t.cloud_area.shape[0]):
            if can_charm(t, s, seat, c):
                tile = s.board[t.cloud_area[c]]
                b, st = t.tiles[tile, 1], t.tiles[tile, 0]
                if b > bolts or (b == bolts and st < stars):
                    bolts, stars = b, st
        if bolts >= 0:
            o[P.F_LIGHTNING] = bolts
            o[P.F_PAY_WANDS] = stars
            o[P.F_POINTS] = t.p[P_BONUS_FAIRY] if brave else 0
    elif kind == GATHERER:
        c0 = RO_BRAVE if brave else RO_COWARDLY
        o[P.F_GAIN_POTIONS] = t.role[r, c0] + t.role[r, c0 + 1] + t.role[r, c0 + 2]
        o[P.F_GAIN_WANDS] = t.role[r, c0 + 3]
    o[P.F_ROLE] = r
    o[P.F_BRAVE] = 1 if brave else 0
    o[P.F_PENALTY] = t.p[P_ENCH_PENALTY] if (s.g[G_ENCHANTED] >> r) & 1 else 0
    o[P.F_TARGET] = r


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def cancel_risk(t, s, r, first, n_later):
    """Expected number of the next ``n_later`` players from ``first`` holding role r."""
    n_players = s.seat.shape[0]
    unplayed = t.p[P_N_ROLES] - popcount(s.g[G_PLAYED] & ~(1 << r))
    risk = 0.0
    for k in range(n_later):
        risk += s.seat[(first + k) % n_players, S_NHAND] / unplayed
    return risk


# ---------------------------------------------------------------- setup and round

@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def setup(t, s, key, game):
    n_players = s.seat.shape[0]
    A, N, E = t.area.shape[0], t.tiles.shape[0], t.event.shape[0]
    seed_streams(key, game, s.st)
    s.g[:] = 0
    s.g[G_EVENT] = -1
    for p in range(n_players):
        for j in range(S_POLICY):
            s.seat[p, j] = 0
        s.seat[p, S_SCORE] = t.p[P_START_SCORE]
        for c in range(3):
            s.seat[p, S_GREEN + c] = t.p[P_START_GREEN + c]
        s.seat[p, S_WANDS] = t.p[P_WANDS_FIRST] if p == 0 else (
            t.p[P_WANDS_LAST] if p == n_players - 1 else t.p[P_WANDS_OTHERS])
        s.seat[p, S_PAWN_A] = t.p[P_CASTLE_A]
        s.seat[p, S_PAWN_B] = t.p[P_CASTLE_B]
    s.board[:A] = -1
    s.board[A:] = 0
    s.rec[:] = 0
    tiles = s.decks[:N]
    for i in range(N):
        tiles[i] = i
    shuffle(s.st, CHANCE, tiles, N)
    for i in range(t.cloud_area.shape[0]):
        s.board[t.cloud_area[i]] = tiles[i]
    events = s.decks[N:N + E]
    for i in range(E):
        events[i] = i
    shuffle(s.st, CHANCE, events, E)
    if t.p[P_ENCH_TOTAL] - n_players > 0:
        deck = s.decks[N + E:]
        m = 0
        for r in range(t.p[P_N_ROLES]):
            if (t.p[P_ENCH_DECK] >> r) & 1:
                deck[m] = r
                m += 1
        shuffle(s.st, CHANCE, deck, m)
        s.g[G_ENCH_N] = m


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def reveal_enchanted_roles(t, s):
    n = t.p[P_ENCH_TOTAL] - s.seat.shape[0]
    if n <= 0:
        return
    R = t.p[P_N_ROLES]
    cards = t.p[P_ENCH_DECK]         # the roles in the enchanted deck (bitmask)
    deck = s.decks[t.tiles.shape[0] + t.event.shape[0]:]
    revealed = 0
    for _ in range(n):
        if s.g[G_ENCH_PTR] == s.g[G_ENCH_N]:
            m = 0
            for r in range(R):
                if (cards >> r) & 1 and (t.p[P_RESHUFFLE_ALL] or not (revealed >> r) & 1):
                    deck[m] = r
                    m += 1
            shuffle(s.st, CHANCE, deck, m)
            s.g[G_ENCH_N] = m
            s.g[G_ENCH_PTR] = 0
        revealed |= 1 << deck[s.g[G_ENCH_PTR]]
        s.g[G_ENCH_PTR] += 1
    s.g[G_ENCHANTED] = revealed
    rec = t.event.shape[0]
    for r in range(R):
        if (revealed >> r) & 1:
            s.rec[rec + r] |= 1 << (s.g[G_ROUND] - 1)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def select_roles(t, s, user_funcs, log, lg):
    ev = s.g[G_EVENT]
    R = t.p[P_N_ROLES]
    mol = ev >= 0 and t.event[ev, EC_KIND] == EV_MORE_OR_LESS
    max_size = t.p[P_HAND_SIZE]
    if mol:
        for n in range(R + 1):
            if t.event[ev, EC_HAND + n] != NO_HAND:
                max_size = n
    s.g[G_SELECTING] = 1
    for seat in range(s.seat.shape[0]):
        s.seat[seat, S_HAND] = 0
        s.seat[seat, S_NHAND] = 0
        feat = features(s, seat) and max_size > 0
        if feat:       # a role's row does not change while the seat picks its hand
            for r in range(R):
                card_features(t, s, seat, r, True, 0)
                for f in range(P.N_FEATURES):
                    s.card[r, f] = s.opts[0, f]
                s.card[r, P.F_BRAVE] = 0
        while s.seat[seat, S_NHAND] < max_size:
            n = 0
            for r in range(R):
                if not (s.seat[seat, S_HAND] >> r) & 1:
                    if feat:
                        for f in range(P.N_FEATURES):
                            s.opts[n, f] = s.card[r, f]
                    s.oab[n, 0] = r
                    n += 1
            if mol and t.event[ev, EC_HAND + s.seat[seat, S_NHAND]] != NO_HAND:
                if feat:
                    stop_row(s, n)
                s.oab[n, 0] = -1
                n += 1
            r = s.oab[decide(t, s, seat, P.SELECT, n, user_funcs, log, lg), 0]
            if r < 0:
                break
            s.seat[seat, S_HAND] |= 1 << r
            s.seat[seat, S_NHAND] += 1
    s.g[G_SELECTING] = 0
    if mol:
        for seat in range(s.seat.shape[0]):
            add_points(t, s, seat, t.event[ev, EC_HAND + s.seat[seat, S_NHAND]], S_EVENTS)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def play_card(t, s, seat, r):
    """The card leaves the hand face up; an enchanted role costs its penalty at once."""
    s.seat[seat, S_HAND] &= ~(1 << r)
    s.seat[seat, S_NHAND] -= 1
    s.seat[seat, S_PLAYED] |= 1 << r
    s.g[G_PLAYED] |= 1 << r
    if (s.g[G_ENCHANTED] >> r) & 1:
        add_points(t, s, seat, -t.p[P_ENCH_PENALTY], S_ENCHANTED)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def play_turn(t, s, user_funcs, log, lg):
    n_players = s.seat.shape[0]
    leader = s.g[G_LEADER]
    while s.seat[leader, S_NHAND] == 0:              # pass the lead clockwise
        leader = (leader + 1) % n_players
    s.g[G_LEADER] = leader
    feat = features(s, leader)
    n = 0
    for r in range(t.p[P_N_ROLES]):
        if (s.seat[leader, S_HAND] >> r) & 1:
            for brave in range(2):
                if feat:
                    card_features(t, s, leader, r, brave == 1, n)
                    if brave:
                        s.opts[n, P.F_RISK] = cancel_risk(t, s, r, leader + 1, n_players - 1)
                s.oab[n, 0] = r
                s.oab[n, 1] = brave
                n += 1
    c = decide(t, s, leader, P.LEAD, n, user_funcs, log, lg)
    r, brave = s.oab[c, 0], s.oab[c, 1]
    play_card(t, s, leader, r)
    bravest = leader if brave else -1
    if not brave:
        cowardly_action(t, s, leader, r, user_funcs, log, lg)
    for k in range(1, n_players):
        seat = (leader + k) % n_players
        if not (s.seat[seat, S_HAND] >> r) & 1:
            continue
        if features(s, seat):
            card_features(t, s, seat, r, False, 0)
            card_features(t, s, seat, r, True, 1)
            s.opts[1, P.F_RISK] = cancel_risk(t, s, r, leader + k + 1, n_players - 1 - k)
        c = decide(t, s, seat, P.FOLLOW, 2, user_funcs, log, lg)
        play_card(t, s, seat, r)
        if c == 1:
            if bravest >= 0:
                s.seat[bravest, S_CANCELLED] += 1
            bravest = seat
        else:
            cowardly_action(t, s, seat, r, user_funcs, log, lg)
    if bravest >= 0:
        s.seat[bravest, S_BRAVE_DONE] += 1
        role_action(t, s, bravest, r, True, user_funcs, log, lg)
        s.g[G_LEADER] = bravest
    s.g[G_TURN] += 1


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def cowardly_action(t, s, seat, r, user_funcs, log, lg):
    """The card's cowardly effect, or (Black Market / Distillery) the event's instead."""
    ev = s.g[G_EVENT]
    if ev >= 0 and t.event[ev, EC_KIND] == EV_ALTERNATIVE:
        if features(s, seat):
            card_features(t, s, seat, r, False, 0)
            clear_row(s, 1)
            s.opts[1, P.F_TARGET] = ev
            s.opts[1, P.F_GAIN_POTIONS] = (t.event[ev, EC_GAIN] + t.event[ev, EC_GAIN + 1]
                                          + t.event[ev, EC_GAIN + 2] + t.event[ev, EC_ANY_POTION])
            s.opts[1, P.F_GAIN_WANDS] = t.event[ev, EC_GAIN + 3]
        if decide(t, s, seat, P.ALTERNATIVE, 2, user_funcs, log, lg) == 1:
            black_market(t, s, seat, ev, user_funcs, log, lg)
            return
    role_action(t, s, seat, r, False, user_funcs, log, lg)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def role_action(t, s, seat, r, brave, user_funcs, log, lg):
    kind = t.role[r, RO_KIND]
    if kind == WITCH:
        witch(t, s, seat, r, brave, user_funcs, log, lg)
    elif kind == GATHERER:
        gatherer(t, s, seat, r, brave, user_funcs, log, lg)
    elif kind == DRUID:
        druid(t, s, seat, r, brave, user_funcs, log, lg)
    else:
        weather_fairy(t, s, seat, r, brave, user_funcs, log, lg)


# ---------------------------------------------------------------- the roles

@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def witch(t, s, seat, r, brave, user_funcs, log, lg):
    """Move one pawn to an adjacent area of the witch's terrain; brave: then deliver there."""
    feat = features(s, seat)
    adj = t.p[P_ADJ_PTR]
    n = 0
    for p in range(2):
        a0 = s.seat[seat, S_PAWN_A + p]
        for j in range(t.graph[adj + a0], t.graph[adj + a0 + 1]):
            a = t.graph[j]
            if witch_can_enter(t, s, r, a):
                if feat:
                    clear_row(s, n)
                    o = s.opts[n]
                    o[P.F_ROLE] = r
                    o[P.F_BRAVE] = 1 if brave else 0
                    o[P.F_TARGET] = a
                    v = best_delivery_area(t, s, seat, a)
                    o[P.F_POINTS] = v if v > NEG else 0
                s.oab[n, 0] = p
                s.oab[n, 1] = a
                n += 1
    if feat:
        stop_row(s, n)
    c = decide(t, s, seat, P.MOVE, n + 1, user_funcs, log, lg)
    if c == n:
        return
    a = s.oab[c, 1]
    s.seat[seat, S_PAWN_A + s.oab[c, 0]] = a
    if brave:
        ptr = t.p[P_AREA_TOWER_PTR]
        m = 0
        for i in range(t.graph[ptr + a], t.graph[ptr + a + 1]):
            k = t.graph[i]
            if deliverable(t, s, seat, k):
                s.oab[m, 0] = k
                m += 1
        deliver_potion(t, s, seat, r, m, True, 0, user_funcs, log, lg)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def druid(t, s, seat, r, brave, user_funcs, log, lg):
    """Deliver one potion without moving; brave: + bonus if a delivery happened."""
    K = t.tower.shape[0]
    m = 0
    if K > 63:
        for k in range(K):
            if druid_can(t, s, seat, r, k):
                s.oab[m, 0] = k
                m += 1
    else:               # the towers of the eligible pawn areas, as a bitmask (ascending k)
        ptr = t.p[P_AREA_TOWER_PTR]
        mask = np.int64(0)
        for p in range(2):
            a = s.seat[seat, S_PAWN_A + p]
            if t.p[P_DRUID_TERRAIN] and not (t.role[r, RO_TERRAINS] >> t.area[a, 0]) & 1:
                continue
            for i in range(t.graph[ptr + a], t.graph[ptr + a + 1]):
                k = t.graph[i]
                if deliverable(t, s, seat, k):
                    mask |= np.int64(1) << np.int64(k)
        for k in range(K):
            if (mask >> k) & 1:
                s.oab[m, 0] = k
                m += 1
    deliver_potion(t, s, seat, r, m, brave, t.p[P_BONUS_DRUID] if brave else 0,
                   user_funcs, log, lg)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def deliver_potion(t, s, seat, r, m, brave, bonus, user_funcs, log, lg):
    """Deliver to one of the m towers in oab[:m, 0], or decline (option m)."""
    if features(s, seat):
        for i in range(m):
            k = s.oab[i, 0]
            clear_row(s, i)
            o = s.opts[i]
            o[P.F_ROLE] = r
            o[P.F_BRAVE] = 1 if brave else 0
            o[P.F_TARGET] = k
            o[P.F_POINTS] = t.tower[k, TW_POINTS] + bonus
            o[P.F_PAY_POTIONS] = 1
            o[P.F_GAIN_WANDS] = t.tower[k, TW_WANDS] if t.tower[k, TW_ROUND] else 0
        stop_row(s, m)
    c = decide(t, s, seat, P.DELIVER, m + 1, user_funcs, log, lg)
    if c == m:
        return
    k = s.oab[c, 0]
    s.seat[seat, S_GREEN + t.tower[k, TW_COLOUR]] -= 1
    if t.tower[k, TW_ROUND]:
        s.board[t.area.shape[0] + k] = 1
        s.seat[seat, S_WANDS] += t.tower[k, TW_WANDS]
    add_points(t, s, seat, t.tower[k, TW_POINTS], S_TOWERS)
    if bonus:
        add_points(t, s, seat, bonus, S_BRAVE)
    s.seat[seat, S_DELIV] += 1
    s.rec[t.event.shape[0] + t.role.shape[0] + k] += 1


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def gatherer(t, s, seat, r, brave, user_funcs, log, lg):
    """Take the gatherer's resources, or decline."""
    if features(s, seat):
        card_features(t, s, seat, r, brave, 0)
        stop_row(s, 1)
    if decide(t, s, seat, P.GATHER, 2, user_funcs, log, lg) == 1:
        return
    c0 = RO_BRAVE if brave else RO_COWARDLY
    for c in range(4):
        s.seat[seat, S_GREEN + c] += t.role[r, c0 + c]


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def weather_fairy(t, s, seat, r, brave, user_funcs, log, lg):
    """Charm a cloud next to a pawn, paying its stars in wands; brave: + bonus if charmed."""
    feat = features(s, seat)
    bonus = t.p[P_BONUS_FAIRY] if brave else 0
    n = 0
    for i in range(t.cloud_area.shape[0]):
        if can_charm(t, s, seat, i):
            if feat:
                tile = s.board[t.cloud_area[i]]
                clear_row(s, n)
                o = s.opts[n]
                o[P.F_ROLE] = r
                o[P.F_BRAVE] = 1 if brave else 0
                o[P.F_TARGET] = t.cloud_area[i]
                o[P.F_POINTS] = bonus
                o[P.F_PAY_WANDS] = t.tiles[tile, 0]
                o[P.F_LIGHTNING] = t.tiles[tile, 1]
            s.oab[n, 0] = i
            n += 1
    if feat:
        stop_row(s, n)
    c = decide(t, s, seat, P.CHARM, n + 1, user_funcs, log, lg)
    if c == n:
        return
    i = s.oab[c, 0]
    a = t.cloud_area[i]
    tile = s.board[a]
    s.board[a] = -1
    s.seat[seat, S_WANDS] -= t.tiles[tile, 0]
    s.seat[seat, S_BOLTS] += t.tiles[tile, 1]
    s.seat[seat, S_CHARMED] += 1
    s.rec[t.event.shape[0] + t.role.shape[0] + t.tower.shape[0] + i] = s.g[G_ROUND]
    if bonus:
        add_points(t, s, seat, bonus, S_BRAVE)


# ---------------------------------------------------------------- events

@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def black_market(t, s, seat, ev, user_funcs, log, lg):
    """Black Market / Distillery: the event's gain instead of the cowardly effect."""
    for c in range(4):
        s.seat[seat, S_GREEN + c] += t.event[ev, EC_GAIN + c]
    for _ in range(t.event[ev, EC_ANY_POTION]):
        if features(s, seat):
            for c in range(3):
                clear_row(s, c)
                s.opts[c, P.F_TARGET] = c
                s.opts[c, P.F_GAIN_POTIONS] = 1
        s.seat[seat, S_GREEN + decide(t, s, seat, P.COLOUR, 3, user_funcs, log, lg)] += 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def round_end_event(t, s, user_funcs, log, lg):
    ev = s.g[G_EVENT]
    if ev < 0:
        return
    kind = t.event[ev, EC_KIND]
    n_players = s.seat.shape[0]
    if kind == EV_EMPTY_HANDED:
        for seat in range(n_players):
            if (s.seat[seat, S_GREEN] + s.seat[seat, S_PURPLE] + s.seat[seat, S_ORANGE]
                    <= t.event[ev, EC_LIMIT]):
                add_points(t, s, seat, t.event[ev, EC_POINTS], S_EVENTS)
    elif kind == EV_PAWN_TERRAIN:
        col = EC_HAND + t.p[P_N_ROLES] + 1
        for seat in range(n_players):
            total = (t.event[ev, col + t.area[s.seat[seat, S_PAWN_A], 0]]
                     + t.event[ev, col + t.area[s.seat[seat, S_PAWN_B], 0]])
            add_points(t, s, seat, total, S_EVENTS)
    elif kind == EV_UPPER_HAND:
        upper_hand(t, s, ev, user_funcs, log, lg)
    elif kind == EV_THE_WORKS:
        the_works(t, s, ev, user_funcs, log, lg)
    elif kind == EV_FLOCK:
        for seat in range(n_players):
            a = t.area[s.seat[seat, S_PAWN_A], 0]
            if a == t.area[s.seat[seat, S_PAWN_B], 0] and a >= 2:
                add_points(t, s, seat, t.event[ev, EC_POINTS], S_EVENTS)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def the_works(t, s, ev, user_funcs, log, lg):
    """Each player may pay up to max_sets sets of 4 different resources for points."""
    for seat in range(s.seat.shape[0]):
        for _ in range(t.event[ev, EC_LIMIT]):
            if min(s.seat[seat, S_GREEN], s.seat[seat, S_PURPLE], s.seat[seat, S_ORANGE],
                   s.seat[seat, S_WANDS]) == 0:
                break
            if features(s, seat):
                clear_row(s, 0)
                s.opts[0, P.F_POINTS] = t.event[ev, EC_POINTS]
                s.opts[0, P.F_PAY_POTIONS] = 3
                s.opts[0, P.F_PAY_WANDS] = 1
                stop_row(s, 1)
            if decide(t, s, seat, P.WORKS, 2, user_funcs, log, lg) == 1:
                break
            for c in range(4):
                s.seat[seat, S_GREEN + c] -= 1
            add_points(t, s, seat, t.event[ev, EC_POINTS], S_EVENTS)


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def upper_hand(t, s, ev, user_funcs, log, lg):
    """Secret reveals; the highest (ties: all) score and pay their reveal. 0 never wins."""
    n_players = s.seat.shape[0]
    best = 0
    for seat in range(n_players):
        total = total_resources(s, seat)
        if features(s, seat):
            others = -1
            for j in range(n_players):
                if j != seat:
                    others = max(others, total_resources(s, j))
            for b in range(total + 1):
                clear_row(s, b)
                s.opts[b, P.F_TARGET] = b
                s.opts[b, P.F_POINTS] = t.event[ev, EC_POINTS] if b > others else 0
        s.seat[seat, S_BID] = decide(t, s, seat, P.BID, total + 1, user_funcs, log, lg)
        best = max(best, s.seat[seat, S_BID])
    if best == 0:
        return
    for seat in range(n_players):
        if s.seat[seat, S_BID] != best:
            continue
        add_points(t, s, seat, t.event[ev, EC_POINTS], S_EVENTS)
        if not t.event[ev, EC_PAYS]:
            continue
        for _ in range(best):
            n = 0
            for k in range(4):
                if s.seat[seat, S_GREEN + k] > 0:
                    if features(s, seat):
                        clear_row(s, n)
                        s.opts[n, P.F_TARGET] = k
                        s.opts[n, P.F_PAY_POTIONS] = 1 if k < 3 else 0
                        s.opts[n, P.F_PAY_WANDS] = 1 if k == 3 else 0
                    s.oab[n, 0] = k
                    n += 1
            s.seat[seat, S_GREEN + s.oab[decide(t, s, seat, P.PAY, n, user_funcs, log, lg), 0]] -= 1


# ---------------------------------------------------------------- end of game

@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def lightning_points(t, bolts):
    L = t.lightning.shape[0]
    if bolts < L:
        return np.int64(t.lightning[bolts])
    return np.int64(t.lightning[L - 1]) + (bolts - L + 1) * t.p[P_LIGHT_BEYOND]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def resource_set_points(t, g, p, o, w):
    """Best split of the four resource kinds into sets of 4 and of 3 different kinds."""
    best = 0
    for x in range(min(g, p, o, w) + 1):
        y = 0
        while (min(g - x, y + 1) + min(p - x, y + 1) + min(o - x, y + 1)
               + min(w - x, y + 1)) >= 3 * (y + 1):
            y += 1
        best = max(best, x * t.p[P_SET4] + y * t.p[P_SET3])
    return best


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def play_game(t, s, key, game, user_funcs, log, lg):
    """Setup, the rounds, end scoring: one whole game into State s."""
    setup(t, s, key, game)
    n_players = s.seat.shape[0]
    N = t.tiles.shape[0]
    for rnd in range(1, t.p[P_ROUNDS] + 1):
        s.g[G_ROUND] = rnd
        s.g[G_TURN] = 0
        s.g[G_PLAYED] = 0
        ev = s.decks[N + rnd - 1] if rnd - 1 < t.p[P_EVENTS_USED] else -1
        s.g[G_EVENT] = ev
        if ev >= 0:
            s.rec[ev] = rnd
        reveal_enchanted_roles(t, s)
        for p in range(n_players):
            s.seat[p, S_PLAYED] = 0
        select_roles(t, s, user_funcs, log, lg)
        s.g[G_LEADER] = s.g[G_START]
        while True:
            left = 0
            for p in range(n_players):
                left += s.seat[p, S_NHAND]
            if left == 0:
                break
            play_turn(t, s, user_funcs, log, lg)
        round_end_event(t, s, user_funcs, log, lg)
        s.g[G_START] = s.g[G_LEADER]
    for p in range(n_players):
        add_points(t, s, p, lightning_points(t, s.seat[p, S_BOLTS]), S_LIGHTNING)
        add_points(t, s, p, resource_set_points(t, s.seat[p, S_GREEN], s.seat[p, S_PURPLE],
                                                s.seat[p, S_ORANGE], s.seat[p, S_WANDS]), S_SETS)


@njit(cache=True, parallel=True)
def play_batch(t, key, start, n_games, pol, user_funcs, max_opts, block, seat_out, rank, win,
               game_out, errors, log):
    """Play games start .. start+n_games-1; row i of every output is game start+i.

    seat_out [G, P, 16] int16 (``api.SEAT_COLS``), rank [G, P] int8, win [G, P] float32,
    game_out [G, 1 + E + R + K + C] int32 (decisions, then State.rec), errors [G, 6] int64
    (error flag, seat, kind, choice, n_opts, decisions logged), log [G, cap, 4] int16.
    """
    n_players = pol.shape[0]
    n_blocks = (n_games + block - 1) // block
    for b in prange(n_blocks):
        s = new_state(t, n_players, pol, max_opts)
        primary = np.zeros(n_players, np.int64)
        secondary = np.zeros(n_players, np.int64)
        for i in range(b * block, min(n_games, (b + 1) * block)):
            play_game(t, s, key, start + i, user_funcs, log, i if log.shape[1] else 0)
            for p in range(n_players):
                o = seat_out[i, p]
                o[0] = s.seat[p, S_SCORE]
                o[1] = t.p[P_START_SCORE]
                for j in range(S_TOWERS, S_FLOOR + 1):
                    o[1 + j] = s.seat[p, j]
                o[9] = s.seat[p, S_DELIV]
                o[10] = s.seat[p, S_CHARMED]
                o[11] = s.seat[p, S_BRAVE_DONE]
                o[12] = s.seat[p, S_CANCELLED]
                o[13] = total_resources(s, p)
                o[14] = s.seat[p, S_PAWN_A]
                o[15] = s.seat[p, S_PAWN_B]
                primary[p] = s.seat[p, S_SCORE]
                secondary[p] = total_resources(s, p)
            rank_and_share(primary, secondary, n_players, rank[i], win[i])
            game_out[i, 0] = s.g[G_DECISIONS]
            game_out[i, 1:] = s.rec
            errors[i, 0] = s.g[G_ERROR]
            errors[i, 1] = s.g[G_ERR_SEAT]
            errors[i, 2] = s.g[G_ERR_KIND]
            errors[i, 3] = s.g[G_ERR_CHOICE]
            errors[i, 4] = s.g[G_ERR_N]
            errors[i, 5] = s.g[G_LOGGED]
