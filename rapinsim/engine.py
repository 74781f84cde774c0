"""The compiled engine: the rules of ``reference.py`` as numba kernels over struct-of-arrays.

``play_batch`` plays games ``start .. start+n-1`` spread over threads in blocks; each block owns
one ``Scratch`` (the state of the game it is playing, allocated once) and every game seeds its
own streams (``simcore.rng``), so a game never depends on its thread or batch. The functions
mirror the reference engine rule for rule and draw from the streams in the same order.

A policy's illegal answer is recorded (``err``) and ends that game; the caller raises.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange, typeof, types

from simcore.policy import POLICY_SIG, PolicyFunc
from simcore.results import rank_and_share
from simcore.rng import CHANCE, randint, seed_streams, shuffle

from . import stats as S
from .policies import (ACTION, DISGUISE, DISTRICT, F_ARG, F_DISTRICT, F_EXTRA, F_HOUSE, F_KNOWN,
                       F_PLAYERS, F_RIZE, F_SUB, F_TILE, F_TILES, F_UNSEEN, F_VALUE, F_WHAT,
                       HOUSE, MAX_OPTS, N_FEATURES, N_OBS, O_DISTRICT, O_HOUSE, O_ITEM, O_NO,
                       O_PASS, O_PLAYER, O_SEARCH, O_SKILL, O_STEP, O_STOP, O_YES, OB_ACTIONS,
                       OB_CHAR, OB_CHARS, OB_DAWN, OB_DISTRICT, OB_ITEMS, OB_LETTER, OB_MARKERS,
                       OB_NITEMS, OB_PLAYERS, OB_POS, OB_RABBITS, OB_RIZE, OB_RIZE_STEPS,
                       OB_SEARCHED, OB_SEAT, OB_SKILL, OB_TREAS, OB_TREASURES, OB_TURN, PLACE,
                       STEP, TARGET, CHEST_TILE, RANDOM, choose_builtin)
from .reference import BAG, DISCARDED, EMPTY, HAND, REMOVED
from .rules import (ALARM, AOYAMA, BICYCLE, CHIMAME, COCOA, COFFEE, DISGUISE as DISGUISE_ITEM,
                    INABA, ITEM, ITEMS, LAMP, LAPIN, MAP, MAX_PLAYERS, PITFALL, TRAP, TREASURE,
                    Rules)

N_ITEMS = len(ITEMS)
assert N_ITEMS <= MAX_PLAYERS      # item counts use a row of Scratch.seat
N_STREAMS = 1 + MAX_PLAYERS
BLOCK = 64          # games a thread plays with one scratch

# scalar slots of Scratch.sc
(RIZE, DAWN, N_MARKED, TURNS, OVER, STALLED, DAWN_END, ACTING, ACTIONS_LEFT,
 TURN_END, SEARCHED, CHIYA_HOLD, BAG_N, NP, ISET, GAME, ERR, ERR_SEAT, ERR_KIND, ERR_CHOICE,
 ERR_N, LOG_N) = range(22)
N_SC = 22


# rows of Scratch.seat (one column per seat)
CHARS, POS, SKIP, SKILL_USED, LETTER, PENDING, HANDLED, GROUP, FEATS, ICOUNT = range(10)
# rows of Scratch.tile (one column per house or tile); SEEN + s is seat s's knowledge
BOARD, FACE_UP, LOC, BAG_ROW, TMP, MARKER, SEEN = range(7)
# rows of Scratch.choice (one column per option of the current decision)
WHAT, ARG, C_DISTRICT, C_ARG, C_HOUSE, C_EXTRA = range(6)


class Scratch(NamedTuple):
    """The state of the one game a block is playing, in few arrays (numba passes every array
    of a tuple to every call, so fewer arrays compile much faster)."""

    sc: np.ndarray          # [N_SC] int32 scalars (slots above)
    seat: np.ndarray        # [10, P] int8: character, district (-1 unplaced), turns to skip,
    #                         skill used, notice-letter district (-1), letter to take at the
    #                         next turn start, handled in this chain, escorted group, policy
    #                         reads features (not the random one), item counts (action options)
    tile: np.ndarray        # [7 + P, W] int8: tile per house (EMPTY), house face up, where
    #                         each tile is (house, HAND + s, BAG, ...), Rize's bag (oldest
    #                         first), picks and shuffle list, time marker per district, then
    #                         per seat which tiles it has looked at
    choice: np.ndarray      # [6, MAX_OPTS] int16: option code, district / house / seat / item,
    #                         then district, argument, house, extra for the feature row
    obs: np.ndarray         # [N_OBS] float32
    opts: np.ndarray        # [MAX_OPTS, N_FEATURES] float32
    streams: np.ndarray     # [1 + P] uint64 chance stream, then one per seat
    seat_st: np.ndarray     # [P, N_SEAT] int16 seat counters
    game_st: np.ndarray     # [N_GAME + 2 D] int32 game counters
    log: np.ndarray         # [L, 4] int16 decision log (L = 0 when not logging)
    rank: np.ndarray        # [3, P] int16 ranking keys and rank (score)
    win: np.ndarray         # [P] float32 win shares (score)


def scratch(n_tiles, n_districts, log_len):
    """A zeroed Scratch (plain Python here, compiled as ``new_scratch``)."""
    p = MAX_PLAYERS
    return Scratch(np.zeros(N_SC, np.int32), np.zeros((10, p), np.int8),
                   np.zeros((SEEN + p, max(n_tiles, n_districts, p)), np.int8),
                   np.zeros((6, MAX_OPTS), np.int16), np.zeros(N_OBS, np.float32),
                   np.zeros((MAX_OPTS, N_FEATURES), np.float32), np.zeros(N_STREAMS, np.uint64),
                   np.zeros((p, S.N_SEAT), np.int16),
                   np.zeros(S.N_GAME + 2 * n_districts, np.int32),
                   np.zeros((log_len, 4), np.int16), np.zeros((3, p), np.int16),
                   np.zeros(p, np.float32))


new_scratch = njit(cache=True)(scratch)

# Explicit signatures for the kernels called from many places: numba would otherwise compile
# one version per combination of argument types at the call sites (int8 vs int64, literals),
# which multiplied the cold compile time. Arguments are converted at each call.
_R = typeof(Rules().arrays())
_G = typeof(scratch(3, 3, 0))
_UF = types.ListType(PolicyFunc)
_IDS = types.int64[::1]
_I = types.int64
KERNEL = dict(cache=True, _nrt=False, no_cpython_wrapper=True)


# ---------------------------------------------------------------- small helpers

@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def kind_of(R, G, t):
    return R.tile_kind[G.sc[ISET], t]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def sub_of(R, G, t):
    return R.tile_sub[G.sc[ISET], t]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def route_next(R, d):
    return R.route[(R.route_pos[d] + 1) % R.n_districts]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def rize_steps(R, G, d):
    return (R.route_pos[d] - R.route_pos[G.sc[RIZE]] + R.n_districts) % R.n_districts


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def collect(R, G, s, kind, item):
    """Tiles seat s holds of a kind (and item id, if >= 0) into G.tmp in tile order; count."""
    n = 0
    for t in range(R.tile_kind.shape[1]):
        if G.tile[LOC, t] == HAND + s and kind_of(R, G, t) == kind and (item < 0
                                                                   or sub_of(R, G, t) == item):
            G.tile[TMP, n] = t
            n += 1
    return n


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def n_tiles_in(R, G, d):
    n = 0
    for h in range(d * R.n_houses, (d + 1) * R.n_houses):
        n += G.tile[BOARD, h] != EMPTY
    return n


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def n_unseen_in(R, G, s, d):
    n = 0
    for h in range(d * R.n_houses, (d + 1) * R.n_houses):
        t = G.tile[BOARD, h]
        n += t != EMPTY and G.tile[FACE_UP, h] == 0 and G.tile[SEEN + s, t] == 0
    return n


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def n_players_in(G, d, but):
    n = 0
    for q in range(G.sc[NP]):
        n += G.seat[POS, q] == d and q != but
    return n


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def treasures_and_rabbits(R, G, s):
    k = G.sc[ISET]
    tr, brown, white = 0, 0, 0
    for t in range(R.tile_kind.shape[1]):
        if G.tile[LOC, t] == HAND + s and R.tile_kind[k, t] == TREASURE:
            tr += 1
            brown += R.tile_brown[k, t]
            white += R.tile_white[k, t]
    return tr, brown + R.white_pair * (white // 2)


# ---------------------------------------------------------------- decisions

@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def observe(R, G, s):
    o = G.obs
    np_ = G.sc[NP]
    mine = G.sc[ACTING] == s
    o[OB_SEAT] = s
    o[OB_PLAYERS] = np_
    o[OB_DISTRICT] = G.seat[POS, s]
    o[OB_RIZE] = G.sc[RIZE]
    o[OB_ACTIONS] = G.sc[ACTIONS_LEFT] if mine else 0
    o[OB_TURN] = G.sc[TURNS]
    o[OB_MARKERS] = G.sc[N_MARKED]
    o[OB_DAWN] = G.sc[DAWN]
    o[OB_CHAR] = G.seat[CHARS, s]
    o[OB_SKILL] = 1 - G.seat[SKILL_USED, s]
    o[OB_LETTER] = G.seat[LETTER, s]
    o[OB_RIZE_STEPS] = rize_steps(R, G, G.seat[POS, s]) if G.seat[POS, s] >= 0 else -1
    o[OB_SEARCHED] = G.sc[SEARCHED] if mine else 0
    for i in range(N_ITEMS):
        o[OB_ITEMS + i] = 0
    for q in range(MAX_PLAYERS):
        o[OB_POS + q] = G.seat[POS, q] if q < np_ else -1
        o[OB_TREAS + q] = 0 if q < np_ else -1
        o[OB_NITEMS + q] = 0 if q < np_ else -1
        o[OB_CHARS + q] = G.seat[CHARS, q] if q < np_ else -1
    k = G.sc[ISET]
    brown, white = 0, 0
    for t in range(R.tile_kind.shape[1]):
        w = G.tile[LOC, t] - HAND
        if 0 <= w < np_:
            if R.tile_kind[k, t] == TREASURE:
                o[OB_TREAS + w] += 1
                if w == s:
                    brown += R.tile_brown[k, t]
                    white += R.tile_white[k, t]
            elif R.tile_kind[k, t] == ITEM:
                o[OB_NITEMS + w] += 1
                if w == s:
                    o[OB_ITEMS + R.tile_sub[k, t]] += 1
    o[OB_TREASURES] = o[OB_TREAS + s]                 # own treasures and rabbits, same pass
    o[OB_RABBITS] = brown + R.white_pair * (white // 2)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def option(R, G, s, i, what, district, arg, house, extra):
    """Write option row i as seat s sees it; remember its code and argument."""
    G.choice[WHAT, i] = what
    G.choice[ARG, i] = house if house >= 0 else (arg if what == O_PLAYER or what == O_ITEM
                                                 else district)
    G.choice[C_DISTRICT, i] = district         # the rest is for option_features
    G.choice[C_ARG, i] = arg
    G.choice[C_HOUSE, i] = house
    G.choice[C_EXTRA, i] = extra


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def option_features(R, G, s, i):
    """The feature row i of an option as seat s sees it (written when a policy that reads
    features decides; the state does not change between the options and the decision)."""
    what, district, arg = G.choice[WHAT, i], G.choice[C_DISTRICT, i], G.choice[C_ARG, i]
    house, extra = G.choice[C_HOUSE, i], G.choice[C_EXTRA, i]
    r = G.opts[i]
    r[F_WHAT] = what
    r[F_ARG] = arg
    r[F_DISTRICT] = district
    r[F_HOUSE] = house
    r[F_KNOWN] = 0
    r[F_TILE] = -1
    r[F_VALUE] = 0
    r[F_SUB] = -1
    r[F_EXTRA] = extra
    if house >= 0:
        t = G.tile[BOARD, house]
        if G.tile[FACE_UP, house] or G.tile[SEEN + s, t]:
            k = G.sc[ISET]
            r[F_KNOWN] = 1
            kind = R.tile_kind[k, t]
            r[F_TILE] = CHEST_TILE if R.tile_chest[k, t] else kind
            if kind == TREASURE:
                r[F_VALUE] = R.tile_brown[k, t] + R.tile_white[k, t] * (R.white_pair / 2.0)
            else:
                r[F_SUB] = R.tile_sub[k, t]
    r[F_RIZE] = rize_steps(R, G, district)
    r[F_PLAYERS] = n_players_in(G, district, s)
    r[F_TILES] = n_tiles_in(R, G, district)
    r[F_UNSEEN] = n_unseen_in(R, G, s, district)


@njit(_I(_UF, _I, _I, POLICY_SIG.args[1], POLICY_SIG.args[2], _I, POLICY_SIG.args[4]),
      cache=True, _nrt=True)
def call_user(uf, i, kind, obs, opts, n, rng):
    """A user policy from the typed list (kept apart: list access needs reference counting)."""
    return uf[i](kind, obs, opts, n, rng)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def decide(R, G, ids, uf, s, kind, n):
    """Seat s's choice among n options; the random policy inline (it reads no features)."""
    if ids[s] == RANDOM and n > 0:
        c = randint(G.streams, 1 + s, n)
        k = G.sc[LOG_N]
        if k < G.log.shape[0]:
            G.log[k, 0], G.log[k, 1], G.log[k, 2], G.log[k, 3] = s, kind, n, c
        G.sc[LOG_N] = k + 1
        G.game_st[S.G_DECISIONS] += 1
        return c
    return decide_policy(R, G, ids, uf, s, kind, n)


@njit(_I(_R, _G, _IDS, _UF, _I, _I, _I), **KERNEL)
def decide_policy(R, G, ids, uf, s, kind, n):
    """Seat s's policy chooses among the n options in G.opts. An illegal answer is recorded
    and ends the game (choice 0 is used so the kernel unwinds cleanly)."""
    pid = ids[s]
    if pid != RANDOM:                   # the random policy reads neither obs nor features
        observe(R, G, s)
        for i in range(n):
            option_features(R, G, s, i)
    rng = G.streams[1 + s:2 + s]
    if pid >= 0:
        c = choose_builtin(pid, kind, G.obs, G.opts, n, rng)
    else:
        c = call_user(uf, -1 - pid, kind, G.obs, G.opts, n, rng)
    if c < 0 or c >= n:
        if G.sc[ERR] == 0:
            G.sc[ERR], G.sc[ERR_SEAT], G.sc[ERR_KIND] = 1, s, kind
            G.sc[ERR_CHOICE], G.sc[ERR_N] = min(max(c, -2 ** 31), 2 ** 31 - 1), n
        G.sc[OVER] = 1
        return 0
    k = G.sc[LOG_N]
    if k < G.log.shape[0]:
        G.log[k, 0], G.log[k, 1], G.log[k, 2], G.log[k, 3] = s, kind, n, c
    G.sc[LOG_N] = k + 1
    G.game_st[S.G_DECISIONS] += 1
    return c


# ---------------------------------------------------------------- setup

@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def setup(R, G, ids, uf, key, game, n_players, fixed_chars):
    seed_streams(key, game, G.streams)
    G.sc[:] = 0
    G.sc[NP], G.sc[GAME], G.sc[DAWN], G.sc[ACTING] = n_players, game, -1, -1
    G.seat[POS, :] = -1
    G.seat[LETTER, :] = -1
    G.seat[SKIP, :] = 0
    G.seat[SKILL_USED, :] = 0
    G.seat[PENDING, :] = 0
    for q in range(n_players):
        G.seat[FEATS, q] = ids[q] != RANDOM
    G.tile[SEEN:, :] = 0
    G.tile[MARKER, :] = 0
    G.seat_st[:, :] = 0
    G.seat_st[:, S.S_SKILL_TURN] = -1
    G.game_st[:] = 0
    n_roster = R.roster.shape[0]
    if fixed_chars[0] < 0:                                    # draw_characters
        for i in range(n_roster):
            G.tile[TMP, i] = R.roster[i]
        for s in range(n_players):
            j = s + randint(G.streams, CHANCE, n_roster - s)
            c = G.tile[TMP, s]
            G.tile[TMP, s] = G.tile[TMP, j]
            G.tile[TMP, j] = c
            G.seat[CHARS, s] = G.tile[TMP, s]
    else:
        for s in range(n_players):
            G.seat[CHARS, s] = fixed_chars[s]
    for s in range(n_players):
        if G.seat[CHARS, s] == INABA:
            G.sc[ISET] = 1
    n = R.tile_kind.shape[1]                                      # shuffle_tiles
    for h in range(n):
        G.tile[TMP, h] = h
    shuffle(G.streams, CHANCE, G.tile[TMP], n)
    for h in range(n):
        G.tile[BOARD, h] = G.tile[TMP, h]
        G.tile[FACE_UP, h] = 0
        G.tile[LOC, G.tile[TMP, h]] = h
    face = randint(G.streams, CHANCE, R.die_sides)            # roll_rize_start
    G.sc[RIZE] = R.rize_start[face]
    G.game_st[S.G_RIZE_START] = R.rize_start[face] + 1
    for s in range(n_players - 1, -1, -1):                    # place_pawns
        m = 0
        for d in range(R.n_districts):
            if d != G.sc[RIZE] and n_players_in(G, d, -1) == 0:
                option(R, G, s, m, O_DISTRICT, d, -1, -1, 0)
                m += 1
        G.seat[POS, s] = G.choice[ARG, decide(R, G, ids, uf, s, PLACE, m)]


# ---------------------------------------------------------------- the board

@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def update_time_marker(R, G, d):
    empty = n_tiles_in(R, G, d) == 0
    if empty and G.tile[MARKER, d] == 0:
        G.tile[MARKER, d] = 1
        G.sc[N_MARKED] += 1
    elif not empty and G.tile[MARKER, d] != 0 and not R.permanent_markers:
        G.tile[MARKER, d] = 0
        G.sc[N_MARKED] -= 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def can_search(R, G, s):
    d = G.seat[POS, s]
    return (G.sc[SEARCHED] == 0 and d != G.sc[RIZE] and n_players_in(G, d, s) == 0
            and n_tiles_in(R, G, d) > 0)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def step_legal(R, G, s, e):
    return (R.adj[G.seat[POS, s], e] and e != G.sc[RIZE]
            and (R.step_into_rize_next or e != route_next(R, G.sc[RIZE])))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def any_step(R, G, s):
    for e in range(R.n_districts):
        if step_legal(R, G, s, e):
            return True
    return False


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def any_unseen(R, G, s):
    for d in range(R.n_districts):
        if n_unseen_in(R, G, s, d) > 0:
            return True
    return False


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def look(R, G, s, d):
    for h in range(d * R.n_houses, (d + 1) * R.n_houses):
        if G.tile[BOARD, h] != EMPTY and G.tile[FACE_UP, h] == 0:
            G.tile[SEEN + s, G.tile[BOARD, h]] = 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def house_options(R, G, s, d, skip_traps):
    """HOUSE options for the tiles of district d (without traps if skip_traps); count."""
    m = 0
    for h in range(d * R.n_houses, (d + 1) * R.n_houses):
        t = G.tile[BOARD, h]
        if t != EMPTY and not (skip_traps and kind_of(R, G, t) == TRAP):
            option(R, G, s, m, O_HOUSE, d, -1, h, 0)
            m += 1
    return m


# ---------------------------------------------------------------- Rize

@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def return_tiles(R, G, d):
    for h in range(d * R.n_houses, (d + 1) * R.n_houses):
        nb = G.sc[BAG_N]
        if G.tile[BOARD, h] == EMPTY and nb > 0:
            t = G.tile[BAG_ROW, 0]
            for i in range(nb - 1):
                G.tile[BAG_ROW, i] = G.tile[BAG_ROW, i + 1]
            G.sc[BAG_N] = nb - 1
            G.tile[BOARD, h] = t
            G.tile[FACE_UP, h] = kind_of(R, G, t) == TREASURE
            G.tile[LOC, t] = h
    update_time_marker(R, G, d)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def rize_enters(R, G, d):
    G.sc[RIZE] = d
    if d == G.sc[DAWN]:
        G.sc[OVER] = 1
        G.sc[DAWN_END] = 1
        return
    return_tiles(R, G, d)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def lose_tile(R, G, s):
    n = collect(R, G, s, TREASURE, -1)
    if n == 0:
        n = collect(R, G, s, ITEM, -1)
    if n > 0:
        t = G.tile[TMP, randint(G.streams, CHANCE, n)]
        G.tile[LOC, t] = BAG
        G.tile[BAG_ROW, G.sc[BAG_N]] = t
        G.sc[BAG_N] += 1
        G.seat_st[s, S.S_LOST] += 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def discard_item(R, G, s, item):
    collect(R, G, s, ITEM, item)
    G.tile[LOC, G.tile[TMP, 0]] = DISCARDED
    G.seat_st[s, S.S_ITEM + item] += 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def disguise(R, G, ids, uf, s):
    if collect(R, G, s, ITEM, DISGUISE_ITEM) == 0:
        return False
    d = G.seat[POS, s]
    option(R, G, s, 0, O_NO, d, -1, -1, 0)
    option(R, G, s, 1, O_YES, d, -1, -1, 0)
    if decide(R, G, ids, uf, s, DISGUISE, 2) == 1:
        discard_item(R, G, s, DISGUISE_ITEM)
        return True
    return False


@njit(types.void(_R, _G, _IDS, _UF, _I), **KERNEL)
def find_players(R, G, ids, uf, d):
    if not R.rize_finds:
        return
    np_ = G.sc[NP]
    G.seat[HANDLED, :] = 0
    while True:
        ng = 0
        for s in range(np_):
            if G.seat[POS, s] != d or G.seat[HANDLED, s]:
                continue
            G.seat[HANDLED, s] = 1
            if disguise(R, G, ids, uf, s):
                continue
            G.seat_st[s, S.S_FOUND] += 1
            G.game_st[S.N_GAME + R.n_districts + d] += 1
            lose_tile(R, G, s)
            G.seat[GROUP, ng] = s
            ng += 1
            if s == G.sc[ACTING]:
                G.sc[TURN_END] = 1
        if ng == 0:
            return
        roll = randint(G.streams, CHANCE, R.die_sides) + 1      # escort
        for _ in range(roll):
            nxt = route_next(R, G.sc[RIZE])
            for i in range(ng):
                G.seat[POS, G.seat[GROUP, i]] = nxt
            rize_enters(R, G, nxt)
            if G.sc[OVER]:
                return
        for i in range(ng):
            if G.seat[LETTER, G.seat[GROUP, i]] == G.sc[RIZE]:
                G.seat[PENDING, G.seat[GROUP, i]] = 1
        d = G.sc[RIZE]


# ---------------------------------------------------------------- taking tiles

@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def prank(R, G, s, h):
    n = collect(R, G, s, ITEM, -1)
    if n > 0:
        G.tile[LOC, G.tile[TMP, randint(G.streams, CHANCE, n)]] = DISCARDED
        return
    n = collect(R, G, s, TREASURE, -1)
    if n > 0:
        t = G.tile[TMP, randint(G.streams, CHANCE, n)]
        G.tile[BOARD, h] = t
        G.tile[FACE_UP, h] = 1
        G.tile[LOC, t] = h


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def receive(R, G, s, t, h):
    if G.seat[CHARS, s] == INABA:
        for u in range(R.tile_kind.shape[1]):
            if G.tile[LOC, u] == HAND + s:
                G.tile[BOARD, h] = u
                G.tile[FACE_UP, h] = kind_of(R, G, u) == TREASURE
                G.tile[LOC, u] = h
    G.tile[LOC, t] = HAND + s
    if kind_of(R, G, t) == TREASURE:
        for q in range(G.sc[NP]):
            G.tile[SEEN + q, t] = 1


@njit(types.void(_R, _G, _IDS, _UF, _I, _I), **KERNEL)
def take_tile(R, G, ids, uf, s, h):
    t = G.tile[BOARD, h]
    d = h // R.n_houses
    G.tile[BOARD, h] = EMPTY
    G.tile[FACE_UP, h] = 0
    G.tile[SEEN + s, t] = 1
    kind = kind_of(R, G, t)
    G.seat_st[s, S.S_TAKEN + kind] += 1
    if kind == TRAP:
        G.tile[LOC, t] = REMOVED
        trap = sub_of(R, G, t)
        G.seat_st[s, S.S_TRAP + trap] += 1
        if trap == ALARM:
            rize_enters(R, G, d)
            if G.sc[OVER] == 0:
                find_players(R, G, ids, uf, d)
        elif trap == PITFALL:
            G.seat[SKIP, s] += 1
        else:
            prank(R, G, s, h)
    else:
        receive(R, G, s, t, h)
    update_time_marker(R, G, d)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def count_search(R, G, s, d):
    G.seat_st[s, S.S_SEARCHES] += 1
    G.game_st[S.N_GAME + d] += 1
    G.sc[SEARCHED] = 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def search(R, G, ids, uf, s, h):
    count_search(R, G, s, h // R.n_houses)
    take_tile(R, G, ids, uf, s, h)
    G.sc[TURN_END] = 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def notice_letter_take(R, G, ids, uf, s):
    d = G.seat[LETTER, s]
    m = house_options(R, G, s, d, False)
    if m == 0:
        return
    G.seat[LETTER, s] = -1
    take_tile(R, G, ids, uf, s, G.choice[ARG, decide(R, G, ids, uf, s, HOUSE, m)])


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def step(R, G, ids, uf, s, d):
    G.seat[POS, s] = d
    if G.seat[LETTER, s] == d:
        notice_letter_take(R, G, ids, uf, s)


# ---------------------------------------------------------------- items

@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def item_usable(R, G, s, item):
    if item == LAMP:
        return n_unseen_in(R, G, s, G.seat[POS, s]) > 0
    if item == COFFEE:
        return can_search(R, G, s) and n_tiles_in(R, G, G.seat[POS, s]) >= 2
    if item == BICYCLE:
        return any_step(R, G, s)
    if item == MAP:
        return any_unseen(R, G, s)
    return False


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def coffee(R, G, ids, uf, s):
    discard_item(R, G, s, COFFEE)
    d = G.seat[POS, s]
    count_search(R, G, s, d)
    for k in range(2):
        if k == 1 and not (G.seat[POS, s] == d and d != G.sc[RIZE] and n_players_in(G, d, s) == 0
                           and n_tiles_in(R, G, d) > 0):
            break
        m = house_options(R, G, s, d, False)
        take_tile(R, G, ids, uf, s, G.choice[ARG, decide(R, G, ids, uf, s, HOUSE, m)])
        if G.sc[OVER] or G.sc[TURN_END]:
            break
    if R.coffee_ends_turn:
        G.sc[TURN_END] = 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def walk(R, G, ids, uf, s, n_steps):
    for k in range(n_steps):
        m = 0
        for e in range(R.n_districts):
            if step_legal(R, G, s, e):
                option(R, G, s, m, O_STEP, e, -1, -1, 0)
                m += 1
        if m == 0:
            break
        if k > 0:
            option(R, G, s, m, O_STOP, G.seat[POS, s], -1, -1, 0)
            m += 1
        c = decide(R, G, ids, uf, s, STEP, m)
        if G.choice[WHAT, c] == O_STOP:
            break
        step(R, G, ids, uf, s, G.choice[ARG, c])
        if G.sc[OVER] or G.sc[TURN_END]:
            break


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def map_(R, G, ids, uf, s):
    m = 0
    for h in range(R.tile_kind.shape[1]):
        t = G.tile[BOARD, h]
        if t != EMPTY and G.tile[FACE_UP, h] == 0 and G.tile[SEEN + s, t] == 0:
            option(R, G, s, m, O_HOUSE, h // R.n_houses, -1, h, 0)
            m += 1
    G.tile[SEEN + s, G.tile[BOARD, G.choice[ARG, decide(R, G, ids, uf, s, HOUSE, m)]]] = 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def use_item(R, G, ids, uf, s, item):
    """Lamp, bicycle or map (the coffee is ``coffee``; the disguise a reaction)."""
    discard_item(R, G, s, item)
    if item == LAMP:
        look(R, G, s, G.seat[POS, s])
    elif item == BICYCLE:
        walk(R, G, ids, uf, s, R.bicycle_steps)
    elif item == MAP:
        map_(R, G, ids, uf, s)


# ---------------------------------------------------------------- skills

@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def aoyama_target(R, G, s, q):
    d = G.seat[POS, s]
    return (q != s and (G.seat[POS, q] == d or R.adj[d, G.seat[POS, q]])
            and collect(R, G, q, TREASURE, -1) > 0)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def skill_usable(R, G, s):
    c = G.seat[CHARS, s]
    if G.seat[SKILL_USED, s]:
        return False
    if c == CHIMAME:
        return can_search(R, G, s)
    if c == AOYAMA:
        for q in range(G.sc[NP]):
            if aoyama_target(R, G, s, q):
                return True
        return False
    if c == INABA:
        return any_unseen(R, G, s)
    if c == COCOA:
        return any_step(R, G, s)
    return True


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def chimame(R, G, ids, uf, s):
    d = G.seat[POS, s]
    look(R, G, s, d)
    m = house_options(R, G, s, d, True)
    if m == 0:
        m = house_options(R, G, s, d, False)
    count_search(R, G, s, d)
    take_tile(R, G, ids, uf, s, G.choice[ARG, decide(R, G, ids, uf, s, HOUSE, m)])
    G.sc[TURN_END] = 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def hypnotism(R, G, ids, uf, s):
    m = 0
    for q in range(G.sc[NP]):
        if aoyama_target(R, G, s, q):
            tr, _ = treasures_and_rabbits(R, G, q)
            option(R, G, s, m, O_PLAYER, G.seat[POS, q], q, -1, tr)
            m += 1
    q = G.choice[ARG, decide(R, G, ids, uf, s, TARGET, m)]
    n = collect(R, G, q, TREASURE, -1)
    t = G.tile[TMP, randint(G.streams, CHANCE, n)]
    d = G.seat[POS, s]
    while n_tiles_in(R, G, d) == R.n_houses:
        d = route_next(R, d)
    for h in range(d * R.n_houses, (d + 1) * R.n_houses):
        if G.tile[BOARD, h] == EMPTY:
            G.tile[BOARD, h] = t
            G.tile[FACE_UP, h] = 0
            G.tile[LOC, t] = h
            break
    update_time_marker(R, G, d)
    G.sc[TURN_END] = 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def use_skill(R, G, ids, uf, s):
    G.seat[SKILL_USED, s] = 1
    G.seat_st[s, S.S_SKILL_USED] += 1
    G.seat_st[s, S.S_SKILL_TURN] = G.sc[TURNS]
    c = G.seat[CHARS, s]
    if c == LAPIN:                                            # notice_letter
        m = 0
        for d in range(R.n_districts):
            if d != G.seat[POS, s]:
                option(R, G, s, m, O_DISTRICT, d, -1, -1, 0)
                m += 1
        G.seat[LETTER, s] = G.choice[ARG, decide(R, G, ids, uf, s, DISTRICT, m)]
    elif c == CHIMAME:
        chimame(R, G, ids, uf, s)
    elif c == AOYAMA:
        hypnotism(R, G, ids, uf, s)
    elif c == INABA:                                          # inaba_look
        m = 0
        for d in range(R.n_districts):
            if n_unseen_in(R, G, s, d) > 0:
                option(R, G, s, m, O_DISTRICT, d, -1, -1, 0)
                m += 1
        look(R, G, s, G.choice[ARG, decide(R, G, ids, uf, s, DISTRICT, m)])
    elif c == COCOA:
        walk(R, G, ids, uf, s, R.cocoa_steps)
    else:                                                     # chiya
        G.sc[CHIYA_HOLD] = 1


# ---------------------------------------------------------------- turns

@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def action_options(R, G, s):
    d = G.seat[POS, s]
    option(R, G, s, 0, O_PASS, d, -1, -1, 0)
    m = 1
    for e in range(R.n_districts):
        if step_legal(R, G, s, e):
            option(R, G, s, m, O_STEP, e, -1, -1, 0)
            m += 1
    if can_search(R, G, s):
        for h in range(d * R.n_houses, (d + 1) * R.n_houses):
            if G.tile[BOARD, h] != EMPTY:
                option(R, G, s, m, O_SEARCH, d, -1, h, 0)
                m += 1
    for i in range(N_ITEMS):
        G.seat[ICOUNT, i] = 0
    k = G.sc[ISET]
    for t in range(R.tile_kind.shape[1]):
        if G.tile[LOC, t] == HAND + s and R.tile_kind[k, t] == ITEM:
            G.seat[ICOUNT, R.tile_sub[k, t]] += 1
    for i in range(N_ITEMS):
        n = G.seat[ICOUNT, i]
        if n > 0 and item_usable(R, G, s, i):
            option(R, G, s, m, O_ITEM, d, i, -1, n)
            m += 1
    if skill_usable(R, G, s):
        option(R, G, s, m, O_SKILL, d, -1, -1, G.seat[CHARS, s])
        m += 1
    return m


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def play_turn(R, G, ids, uf, s):
    G.sc[ACTING], G.sc[TURN_END], G.sc[SEARCHED] = s, 0, 0
    G.sc[ACTIONS_LEFT] = R.actions
    if G.seat[PENDING, s]:
        G.seat[PENDING, s] = 0
        if G.seat[POS, s] == G.seat[LETTER, s]:
            notice_letter_take(R, G, ids, uf, s)
    while G.sc[ACTIONS_LEFT] > 0 and G.sc[TURN_END] == 0 and G.sc[OVER] == 0:
        m = action_options(R, G, s)
        c = decide(R, G, ids, uf, s, ACTION, m)
        what, arg = G.choice[WHAT, c], G.choice[ARG, c]
        G.sc[ACTIONS_LEFT] -= 1
        if what == O_PASS:
            G.sc[TURN_END] = 1
        elif what == O_STEP:
            step(R, G, ids, uf, s, arg)
        elif what == O_SEARCH:
            search(R, G, ids, uf, s, arg)
        elif what == O_ITEM:
            if arg == COFFEE:
                coffee(R, G, ids, uf, s)
            else:
                use_item(R, G, ids, uf, s, arg)
        else:
            use_skill(R, G, ids, uf, s)
    G.sc[ACTING] = -1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True, inline="always")
def score(R, G):
    np_ = G.sc[NP]
    primary, secondary, rank, win = G.rank[0], G.rank[1], G.rank[2], G.win
    k = G.sc[ISET]
    for s in range(np_):
        tr, rab = treasures_and_rabbits(R, G, s)
        chest = 0
        for t in range(R.tile_kind.shape[1]):
            if G.tile[LOC, t] == HAND + s and R.tile_chest[k, t]:
                chest = 1
        G.seat_st[s, S.S_TREASURES] = tr
        G.seat_st[s, S.S_RABBITS] = rab
        G.seat_st[s, S.S_CHEST] = chest
        primary[s] = tr
        secondary[s] = rab
        if G.seat[CHARS, s] == INABA:
            if chest:
                primary[s] = 127
            elif not R.inaba_count_win:
                primary[s] = -1
    rank_and_share(primary, secondary, np_, rank, win)
    for s in range(np_):
        G.seat_st[s, S.S_RANK] = rank[s]
    G.game_st[S.G_TURNS] = G.sc[TURNS]
    G.game_st[S.G_STALLED] = G.sc[STALLED]
    G.game_st[S.G_DAWN] = G.sc[DAWN_END]


@njit(types.void(_R, _G, _IDS, _UF, types.uint64, _I, _I, types.int8[::1]), **KERNEL)
def play_game(R, G, ids, uf, key, game, n_players, fixed_chars):
    """Set up and play one game in G (results in G.seat_st, G.game_st, G.win)."""
    setup(R, G, ids, uf, key, game, n_players, fixed_chars)
    cur = 0
    while G.sc[OVER] == 0:
        if G.sc[TURNS] >= R.max_turns:
            G.sc[STALLED] = 1
            break
        G.sc[TURNS] += 1
        G.sc[CHIYA_HOLD] = 0
        if G.seat[SKIP, cur] > 0:
            G.seat[SKIP, cur] -= 1
        else:
            play_turn(R, G, ids, uf, cur)
        if G.sc[OVER]:
            break
        if G.sc[CHIYA_HOLD] == 0:
            nxt = route_next(R, G.sc[RIZE])                   # rize_moves
            rize_enters(R, G, nxt)
            if G.sc[OVER]:
                break
            if n_players_in(G, nxt, -1) > 0:              # (a kernel call only when needed)
                find_players(R, G, ids, uf, nxt)
            if G.sc[OVER]:
                break
        if G.sc[DAWN] < 0 and G.sc[N_MARKED] >= R.dawn_empties:   # dawn_check
            G.sc[DAWN] = G.sc[RIZE]
        cur = (cur + 1) % n_players
    score(R, G)


@njit(cache=True, parallel=True)
def play_batch(R, ids, uf, key, start, n_players, fixed_chars, seat, win, game, chars, err,
               log):
    """Play games start .. start + G - 1 into the result arrays (stats.new_arrays); err[g] =
    (1, seat, kind, choice, n_opts) for a game a policy's illegal answer ended; log [G, L, 4]
    the decision logs (L = 0: none)."""
    n_games = seat.shape[0]
    n_blocks = (n_games + BLOCK - 1) // BLOCK
    for b in prange(n_blocks):
        G = new_scratch(R.tile_kind.shape[1], R.n_districts, log.shape[1])
        for g in range(b * BLOCK, min(n_games, (b + 1) * BLOCK)):
            play_game(R, G, ids, uf, key, start + g, n_players, fixed_chars)
            for s in range(n_players):
                win[g, s] = G.win[s]
                chars[g, s] = G.seat[CHARS, s]
                for i in range(S.N_SEAT):
                    seat[g, s, i] = G.seat_st[s, i]
            for i in range(game.shape[1]):
                game[g, i] = G.game_st[i]
            err[g, 0], err[g, 1], err[g, 2] = G.sc[ERR], G.sc[ERR_SEAT], G.sc[ERR_KIND]
            err[g, 3], err[g, 4] = G.sc[ERR_CHOICE], G.sc[ERR_N]
            for k in range(min(G.sc[LOG_N], log.shape[1])):
                for j in range(4):
                    log[g, k, j] = G.log[k, j]
