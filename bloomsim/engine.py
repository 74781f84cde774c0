"""The compiled engine: the rules of ``reference.py`` as numba kernels over packed arrays.

``play_batch`` plays games ``start .. start+n-1`` over all threads (``simcore.parallel.spread``
runs ``play_games`` on each thread, over the units of games it claims; each thread owns one
``State``, reset per game, so nothing is allocated inside a game).
Every function mirrors the reference function of the same name, draws the same random numbers
in the same order and builds the same options, so both engines play the same game
(``tests/bloomsim/test_differential.py`` holds them to it).

Why it is shaped like this (measured; see docs/bloomsim.md):

- numba passes an array as 7-9 machine words and a NamedTuple of arrays as all of them, at every
  call between kernels. So the rules are one int64 array (``flat_tables``: a header of
  parameters and offsets, read through tiny accessors such as ``tower_of``) and a game's state
  is three arrays (``State``: all integers in ``g``, the observation, the option rows).
  Reading a seat's columns through a 2-D view of ``g`` (``reshape``) was 2.5x slower, hence
  ``s.g[sc(seat, S_...)]``.
- Every kernel numba compiles separately is linked into, and optimised again with, each caller.
  Kernels with a single call site are inlined into it (``inline="always"``), ``play_games``
  calls ``play_game`` through a function pointer (so the batch kernel does not carry the
  engine), and kernels called with constants have explicit signatures (numba compiles a new
  version for every literal argument otherwise).
- One compiled kernel serves built-in and user policies: user policies come as the addresses of
  their compiled code (padded with a placeholder's), kept in ``State.g`` and turned back into
  first-class functions by ``policy_at`` when one decides. The built-in random policy
  is drawn inside ``decide``; the heuristics get option features but no observation (they never
  read it); only user policies get the observation built.

A policy's illegal choice is recorded in the state (the game goes on with option 0) and raised
by the caller after the kernel returns. Kernels called inside a game are compiled without
numba's reference counting (``_nrt=False``): they never allocate, and shared rules arrays
touched by every thread would otherwise make the threads fight over their reference counts.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, typeof, types
from numba.cpython.unsafe.numbers import trailing_zeros

from simcore.bits import nth_set_bit, popcount
from simcore.forward import MAX_MARKS
from simcore.layout import Layout
from simcore.parallel import claim, spread
from simcore import search as SR
from simcore.policy import POLICY_SIG, first_class, function_at, policy_at
from simcore.results import rank_and_share
from simcore.rng import CHANCE, randint, reseed, seed_streams, shuffle, shuffle_set

from . import policies as P
from .rules import (DRUID, EC_ANY_POTION, EC_GAIN, EC_HAND, EC_KIND, EC_LIMIT, EC_PAYS,
                    EC_POINTS, EV_ALTERNATIVE, EV_EMPTY_HANDED, EV_FLOCK, EV_MORE_OR_LESS,
                    EV_PAWN_TERRAIN, EV_THE_WORKS, EV_UPPER_HAND, FAIRY, GATHERER, NO_HAND,
                    P_ADJ_PTR, P_AREA_TOWER_PTR, P_BONUS_DRUID, P_BONUS_FAIRY, P_CASTLE_A,
                    P_CASTLE_B, P_DRUID_TERRAIN, P_ENCH_DECK, P_ENCH_PENALTY, P_ENCH_TOTAL,
                    P_EVENTS_USED, P_FLOOR, P_HAND_SIZE, P_HAS_FLOOR, P_LIGHT_BEYOND, P_MAX_BID,
                    P_N_ROLES, P_RESHUFFLE_ALL, P_ROUNDS, P_SET3, P_SET4, P_START_GREEN,
                    P_START_LEAD, P_START_SCORE, P_TOWER_PTR, P_WANDS_FIRST, P_WANDS_LAST,
                    P_WANDS_OTHERS, RO_BRAVE, RO_COWARDLY, RO_KIND, RO_TERRAINS, TW_COLOUR,
                    TW_POINTS, TW_ROUND, TW_WANDS, WITCH, Tables)

MAX_PLAYERS = 6
LOG_CAP = 4096        # decisions a kept log holds (a search seat's game keeps one)
OBS_LEN = P.obs_len(MAX_PLAYERS)
NEG = -(1 << 30)

# State.g: game scalars, then (see State) the streams, the seats, the option slots; the board,
# decks, record, scratch and decision log follow at offsets of the rules (T_BOARD ...)
G = Layout("State.g")
G_ROUND = G.field("round", meaning="1-based")
G_TURN = G.field("turn", meaning="turn of the round, 0-based")
G_LEADER = G.field("leader", meaning="the seat that leads (or holds the lead)")
G_START = G.field("start", meaning="the round's start player")
G_EVENT = G.field("event", meaning="the round's event card, -1 none")
G_ENCHANTED = G.field("enchanted", meaning="the enchanted roles (bitmask)")
G_PLAYED = G.field("played", meaning="the roles played this round (bitmask)")
G_DECISIONS = G.field("decisions", meaning="decisions asked")
G_LOGGED = G.field("logged", meaning="decisions logged")
G_ERROR = G.field("error", meaning="1: a policy's illegal choice; 2: a forward replay diverged")
G_ERR_SEAT = G.field("err_seat")
G_ERR_KIND = G.field("err_kind")
G_ERR_CHOICE = G.field("err_choice")
G_ERR_N = G.field("err_n")
G_ENCH_N = G.field("ench_n", meaning="cards in the enchanted deck")
G_ENCH_PTR = G.field("ench_ptr", meaning="the enchanted deck's next card")
G_SELECTING = G.field("selecting", meaning="hands are being selected")
G_LAST_BRAVE = G.field("last_brave", meaning="who last acted bravely this round")
G_TURN_ROLE = G.field("turn_role", meaning="the role led in the turn while its holders are still "
                                           "answering, else -1 (determinize)")
G_ANSWERED = G.field("answered", meaning="the last seat whose chance to follow it has come")
N_G = G.end       # setup clears g[:N_G]
G_LOG_CAP = G.field("log_cap", meaning="decisions the log keeps (0: none)")
G_LOG_AT = G.field("log_at", meaning="where the log starts")
G_NP = G.field("players")
G_READERS = G.field("readers", meaning="some seat reads features (not the built-in random)")
G_BEST = G.field("best", meaning="a built-in heuristic's best option so far (offer)")
G_BEST_V = G.field("best_v", meaning="and its value (float64 bits)")
# the forward model (``forward.py``, every seat FM_SEAT): the first G_FM_STOP decisions come
# from the log, and the game halts at the next (G_HALTED, its seat, kind and number of options
# at G_PEND); G_MARKS holds G_N_MARKS determinizations (decision, seat, seed: ``determinize``)
FM_SEAT = -1 - MAX_PLAYERS
"""The policy id of every seat in the forward model: a reader of option rows that no user
policy has, so every decision, a built-in heuristic's included, goes through ``ask`` and so
``fm_decide``."""
G_FM_STOP = G.field("fm_stop", meaning="decisions taken from the log")
G_HALTED = G.field("halted")
G_PEND = G.field("pending", 3, "the halted decision: seat, kind, options")
G_N_MARKS = G.field("n_marks")
G_MARKS = G.field("marks", 3 * MAX_MARKS, "determinizations: decision, seat, seed")
G_UF = G.field("user_policies", MAX_PLAYERS, "user policy i's compiled code (policy_at)")
# search agents (``simcore.search``): a search seat's policy id is SR.SEARCH_ID; its decisions
# go to ``search_seat`` (by address), which replays the game in a scratch state whose search
# region starts at G_SEARCH
G_KEY = G.field("key", meaning="the game's root key (uint64 bits)")
G_GAME = G.field("game", meaning="the game's index")
G_AGENTS = G.field("agents", SR.AGENT_WORDS * MAX_PLAYERS, "each seat's search agent (A_*)")
G_SEARCH_FN = G.field("search_fn", meaning="search_seat's compiled code (0: no search seat)")
G_GAME_FN = G.field("game_fn", meaning="play_game's compiled code (for search_seat)")
G_SEARCH = G.field("search_at", meaning="a scratch state's search region (0: none)")
G_PLAYOUT = G.field("playout", meaning="the policy id every seat plays out with")
G_SNAP = G.field("snapshot_at", meaning="where a search keeps the state at the start of the "
                                        "round of its decision (0: none)")
G_RESUME = G.field("resume", meaning="the round play_game starts at from the snapshot (0: "
                                     "setup)")
G_RESUME_TURNS = G.field("resume_turns", meaning="1: the snapshot is at a turn of that round, "
                                                 "its roles selected")
G_HORIZON = G.field("horizon", meaning="a search's playout horizon: rounds played, the "
                                       "decision's included (0: to the end)")
G_LAST_ROUND = G.field("last_round", meaning="the round after which a search's iteration is "
                                             "scored (0: the last round; fm_decide sets it)")
G_ST = G.field("streams", 1 + MAX_PLAYERS, "random streams (uint64 bits): chance, then seats")
# a seat's columns (seat p's at G_SEAT + N_SEAT * p). S_SCORE .. S_FLOOR are also the order of
# the results' score columns.
SEAT = Layout("seat columns")
S_SCORE = SEAT.field("score")
S_TOWERS = SEAT.field("pts_towers")
S_BRAVE = SEAT.field("pts_brave")
S_EVENTS = SEAT.field("pts_events")
S_ENCHANTED = SEAT.field("pts_enchanted")
S_LIGHTNING = SEAT.field("pts_lightning")
S_SETS = SEAT.field("pts_sets")
S_FLOOR = SEAT.field("pts_floor")
S_GREEN = SEAT.field("green")
S_PURPLE = SEAT.field("purple")
S_ORANGE = SEAT.field("orange")
S_WANDS = SEAT.field("wands")
S_PAWN_A = SEAT.field("pawn_a", meaning="area")
S_PAWN_B = SEAT.field("pawn_b", meaning="area")
S_BOLTS = SEAT.field("bolts", meaning="lightning bolts")
S_HAND = SEAT.field("hand", meaning="roles in hand (bitmask)")
S_NHAND = SEAT.field("hand_size")
S_PLAYED = SEAT.field("played", meaning="roles played this round (bitmask)")
S_DELIV = SEAT.field("deliveries")
S_CHARMED = SEAT.field("clouds")
S_BRAVE_DONE = SEAT.field("brave_done")
S_CANCELLED = SEAT.field("brave_cancelled")
S_BID = SEAT.field("bid", meaning="The Upper Hand")
S_LED = SEAT.field("led", meaning="the rounds the seat led after (bit r-1 = round r, "
                                  "mark_leaders)")
S_POLICY = SEAT.field("policy", meaning="policy id (built-in >= 0, user -1 - i)")
S_WEIGHTS = SEAT.field("weights", 4, "a heuristic's weights (float64 bits: points, gained "
                                     "wands, lightning, max risk; P.WEIGHTS; seat_weights)")
N_SEAT = SEAT.size
G_SEAT = G.field("seats", N_SEAT * MAX_PLAYERS, "each seat's columns (SEAT)")
G_OAB = G.field("option_slots", 0, "what option i means: 2 words each, up to T_MAXO")


# The rules as one int64 array (``flat_tables``): Tables.p at [0, len(p)), then the header
# slots below, then each table's rows back to back; the graph's CSR pointers (and T_NEAR's)
# are indices into this array. Where the State.g regions after the option slots start is
# per rules, so it is in the header too.
T = Layout("flat tables' header", start=64)
T_AREA = T.field("area", meaning="where the area table starts")
T_AREA_W = T.field("area_w", meaning="its row width")
T_TOWER = T.field("tower")
T_ROLE = T.field("role")
T_EVENT = T.field("event")
T_EVENT_W = T.field("event_w")
T_CLOUD = T.field("cloud", meaning="each cloud space's area")
T_TILES = T.field("tiles")
T_LIGHT = T.field("lightning")
T_N_AREA = T.field("n_area")
T_N_TOWER = T.field("n_tower")
T_N_EVENT = T.field("n_event")
T_N_CLOUD = T.field("n_cloud")
T_N_TILES = T.field("n_tiles")
T_N_LIGHT = T.field("n_light")
T_DECKS = T.field("decks", meaning="State.g: tile order, event deck, enchanted deck")
T_REC = T.field("rec", meaning="State.g: the record (game-level results)")
T_N_REC = T.field("n_rec")
T_MAXO = T.field("max_options", meaning="rows of the option buffer")
T_BOARD = T.field("board", meaning="State.g: clouds per area, round towers filled")
T_SCRATCH = T.field("scratch", meaning="State.g: the heuristics' caches")
T_VALUES = T.field("values", meaning="State.g: each seat's card values")
T_LOG = T.field("log", meaning="State.g: the decision log")
T_MAX_STARS = T.field("max_stars", meaning="more wands charm no more clouds")
T_NEAR = T.field("near", meaning="CSR: the cloud spaces a pawn on each area can charm")
T_WITCHES = T.field("witches", meaning="the witch roles entering each terrain (bitmask)")
T_SPACES = T.field("spaces", meaning="State.g: the cloud tile on each cloud space")
T_HEADER = T.end
VALUES_KEY = 3    # a seat's card values: key (2 words), roles valid under it, then 2 per role
GRAPH_PTRS = (P_ADJ_PTR, P_TOWER_PTR, P_AREA_TOWER_PTR)


def flat_tables(tb: Tables) -> np.ndarray:
    """Pack ``Tables`` into the one array the kernels read (one argument instead of nine
    arrays, about 70 machine words, at every call between kernels)."""
    assert tb.p.shape[0] <= T_AREA and tb.tower.shape[1] == 4 and tb.role.shape[1] == 10
    head = np.zeros(T_HEADER, np.int64)
    head[:tb.p.shape[0]] = tb.p
    parts, at = [head], T_HEADER

    def put(arr):
        nonlocal at
        parts.append(np.asarray(arr, np.int64).ravel())
        at += parts[-1].shape[0]
        return at - parts[-1].shape[0]

    graph, g0 = tb.graph.astype(np.int64), at
    for slot in GRAPH_PTRS:     # pointer block graph[p[slot]:p[slot + 1]], then the lists
        graph[tb.p[slot]:tb.p[slot + 1]] += g0
        head[slot] += g0
        head[slot + 1] += g0
    put(graph)
    head[T_AREA], head[T_AREA_W] = put(tb.area), tb.area.shape[1]
    head[T_TOWER] = put(tb.tower)
    head[T_ROLE] = put(tb.role)
    head[T_EVENT], head[T_EVENT_W] = put(tb.event), tb.event.shape[1]
    head[T_CLOUD] = put(tb.cloud_area)
    head[T_TILES] = put(tb.tiles)
    head[T_LIGHT] = put(tb.lightning)
    head[T_N_AREA], head[T_N_TOWER], head[T_N_EVENT] = (tb.area.shape[0], tb.tower.shape[0],
                                                        tb.event.shape[0])
    head[T_N_CLOUD], head[T_N_TILES], head[T_N_LIGHT] = (tb.cloud_area.shape[0],
                                                         tb.tiles.shape[0], tb.lightning.shape[0])
    head[T_MAX_STARS] = tb.tiles[:, 0].max(initial=0)     # more wands charm no more clouds
    # CSR lists: the cloud spaces (ascending) a pawn on each area can charm (can_charm)
    A = tb.area.shape[0]
    near = [[i for i, c in enumerate(tb.cloud_area) if tb.area[c, 1 + a]] for a in range(A)]
    head[T_NEAR] = put(np.concatenate([at + A + 1 + np.cumsum([0] + [len(x) for x in near]),
                                       np.array([i for x in near for i in x], np.int64)]))
    # rows of the option buffer: the largest decision the rules allow
    K, N = tb.tower.shape[0], tb.tiles.shape[0]
    E, R, C = tb.event.shape[0], tb.role.shape[0], tb.cloud_area.shape[0]
    # the witch roles that enter each terrain (bitmask, card_values)
    witches = [r for r in range(R) if tb.role[r, RO_KIND] == WITCH]
    head[T_WITCHES] = put([sum(1 << r for r in witches if (tb.role[r, RO_TERRAINS] >> x) & 1)
                           for x in range(int(tb.area[:, 0].max(initial=0)) + 1)])
    deg = int(tb.area[:, 1:].sum(axis=1).max())
    head[T_MAXO] = max(2 * R, R + 1, 2 * deg + 1, K + 1, C + 1, int(tb.p[P_MAX_BID]) + 1, 4)
    # where the board, decks and record start in State.g (see State)
    head[T_BOARD] = G_OAB + 2 * head[T_MAXO]
    head[T_SPACES] = head[T_BOARD] + A + K
    head[T_DECKS] = head[T_SPACES] + C
    head[T_REC] = head[T_DECKS] + N + E + R
    head[T_N_REC] = E + R + K + C
    # then the heuristics' scratch (see State): round towers filled, clouds charmed, the best
    # deliveries (best_delivery_area) and their start of game, each seat's card values
    # (card_values); then the decision log
    head[T_SCRATCH] = head[T_REC] + head[T_N_REC]
    head[T_VALUES] = head[T_SCRATCH] + 2 + 2 * 8 * A
    head[T_LOG] = head[T_VALUES] + MAX_PLAYERS * (VALUES_KEY + 2 * R)
    return np.concatenate(parts)


class State(NamedTuple):
    """One game's position and scratch. P players, A areas, K towers, R roles, E events,
    C cloud spaces, N cloud tiles."""

    g: np.ndarray      # int64, everything integer (one array keeps calls cheap):
    #   [0, N_G) game scalars (G_*); from G_ST the game's streams (uint64 bits): chance, then
    #   one per seat; from G_SEAT each seat's columns (S_*; hands and played cards are
    #   bitmasks); from G_OAB what option i means (g[G_OAB + 2i], g[G_OAB + 2i + 1]:
    #   role/pawn/tower, brave/area); from t[T_BOARD] the number of clouds on each area,
    #   then round tower filled; from t[T_SPACES] the cloud tile on each cloud space (-1
    #   none; an area may hold several spaces); from t[T_DECKS] tile order, event deck,
    #   enchanted deck; from t[T_REC] the record: event round, enchanted-rounds mask,
    #   deliveries per tower, round each cloud space was charmed (the game-level results);
    #   from t[T_SCRATCH] the heuristics' caches: the round towers filled, the clouds
    #   charmed (both counted since the State was made, plus one per game: the card values'
    #   key), the best tower points of each area and colours held (best_delivery_area), then
    #   the same at the start of a game (found once per State); from t[T_VALUES] each seat's
    #   card values and their key (card_values); from g[G_LOG_AT] = t[T_LOG] the decision log
    #   (seat, kind, n, choice) when kept
    obs: np.ndarray    # [OBS_LEN] float32
    opts: np.ndarray   # [MAXO + R, F] float32 the options, then each role's SELECT row for the
    #                    seat selecting now


def _state_type():
    z1, z2 = (lambda dt: np.zeros(1, dt)), (lambda dt: np.zeros((1, 1), dt))
    return typeof(State(z1(np.int64), z1(np.float32), z2(np.float32)))


# Argument types of the kernels that are called with constants. numba compiles a function
# again for every literal argument (``True``, ``0``, ...) it has not seen; explicit signatures
# keep each of these to one compiled version.
TT = types.int64[::1]
ST = _state_type()
GT = ST.types[0]
LOG = types.int16[:, :, ::1]
I8, B1 = types.int64, types.boolean
SEARCH_SEAT_SIG = types.int64(TT, GT, I8, I8)
search_at = function_at(types.FunctionType(SEARCH_SEAT_SIG))
"""``search_seat`` at the address in G_SEARCH_FN (by address: a search replays games through
``play_game``, which calls ``ask``)."""


# ---------------------------------------------------------------- the rules' tables

@njit((I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def sc(p, c):
    """Where seat p's column c (S_*) is in State.g."""
    return G_SEAT + N_SEAT * p + c


@njit((TT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def area_of(t, a, c):
    """Tables.area[a, c]: terrain code (c = 0), adjacency to area c - 1."""
    return t[t[T_AREA] + a * t[T_AREA_W] + c]


@njit((TT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def tower_of(t, k, c):
    return t[t[T_TOWER] + k * 4 + c]


@njit((TT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def role_of(t, r, c):
    return t[t[T_ROLE] + r * 10 + c]


@njit((TT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def event_of(t, ev, c):
    return t[t[T_EVENT] + ev * t[T_EVENT_W] + c]


@njit((TT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def tile_of(t, n, c):
    """Tables.tiles[n, c]: stars (c = 0), lightning (c = 1) of cloud tile n."""
    return t[t[T_TILES] + n * 2 + c]


@njit((TT, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def cloud_area_of(t, i):
    return t[t[T_CLOUD] + i]


@njit((TT, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def lightning_of(t, i):
    return t[t[T_LIGHT] + i]


# ---------------------------------------------------------------- small helpers

@njit(cache=True, _nrt=False, inline="always")
def seat_weights(g, seat):
    """The weights (points, gained wands, lightning, max risk) of the seat's ``P._best``: a
    built-in heuristic's or another's (``P.WEIGHTS``), set per seat for the batch
    (``play_batch``). The engine never builds a built-in heuristic's rows: it scores each
    option with ``P._score`` as the option is found, and keeps the first best (``offer``,
    ``best_card``, ``select_rows``). A seat that is no heuristic accepts any risk."""
    if g[sc(seat, S_POLICY)] <= P.RANDOM:
        return (0.0, 0.0, 0.0, np.inf)
    w = g.view(np.float64)
    at = sc(seat, S_WEIGHTS)
    return (w[at], w[at + 1], w[at + 2], w[at + 3])


@njit((TT, ST, I8, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def add_points(t, s, seat, delta, src):
    """Move the score marker; the track never goes below the floor."""
    s.g[sc(seat, src)] += delta
    new = s.g[sc(seat, S_SCORE)] + delta
    if t[P_HAS_FLOOR] and new < t[P_FLOOR]:
        s.g[sc(seat, S_FLOOR)] += t[P_FLOOR] - new
        new = t[P_FLOOR]
    s.g[sc(seat, S_SCORE)] = new


@njit((ST, I8, I8, I8, B1, I8, B1, I8, I8, I8, I8, I8, I8, I8), cache=True, _nrt=False,
      no_cpython_wrapper=True)
def offer(s, seat, i, role, brave, target, stop, points, pay_potions, pay_wands, gain_potions,
          gain_wands, lightning, penalty):
    """Option i (offered in order from 0) of the seat's next decision, by its features (F_RISK
    0: only ``pair_rows`` writes a risk). A policy that reads features gets the row; a built-in
    heuristic, which would only take ``P._best`` of the rows, keeps the best so far for
    ``decide`` (the first highest value; none is brave with a risk)."""
    if s.g[sc(seat, S_POLICY)] > P.RANDOM:
        w = seat_weights(s.g, seat)
        v = P._score(points, penalty, gain_potions, gain_wands, lightning,
                     pay_potions + pay_wands, w[0], w[1], w[2])
        best_v = s.g.view(np.float64)[G_BEST_V:G_BEST_V + 1]
        if i == 0 or v > best_v[0]:
            s.g[G_BEST] = i
            best_v[0] = v
        return
    o = s.opts[i]
    o[P.F_ROLE] = role
    o[P.F_BRAVE] = brave
    o[P.F_POINTS] = points
    o[P.F_PAY_POTIONS] = pay_potions
    o[P.F_PAY_WANDS] = pay_wands
    o[P.F_GAIN_POTIONS] = gain_potions
    o[P.F_GAIN_WANDS] = gain_wands
    o[P.F_LIGHTNING] = lightning
    o[P.F_RISK] = 0.0
    o[P.F_PENALTY] = penalty
    o[P.F_TARGET] = target
    o[P.F_PASS] = stop


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def stop_option(s, seat, i):
    """Option i: decline (or stop)."""
    offer(s, seat, i, -1, False, -1, True, 0, 0, 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def total_resources(s, seat):
    return (s.g[sc(seat, S_GREEN)] + s.g[sc(seat, S_PURPLE)] + s.g[sc(seat, S_ORANGE)]
            + s.g[sc(seat, S_WANDS)])


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def observe(t, g, o, seat):
    n_players = g[G_NP]
    for i in range(o.shape[0]):
        o[i] = -1.0
    o[P.O_ROUND] = g[G_ROUND]
    o[P.O_PLAYERS] = n_players
    o[P.O_SEAT] = seat
    ev = g[G_EVENT]
    o[P.O_EVENT] = ev
    o[P.O_EVENT_CODE] = event_of(t, ev, EC_KIND) if ev >= 0 else -1
    o[P.O_ENCHANTED] = g[G_ENCHANTED]
    o[P.O_HAND] = g[sc(seat, S_HAND)]
    o[P.O_LEADER] = g[G_LEADER]
    o[P.O_TURN] = g[G_TURN]
    o[P.O_PLAYED] = g[G_PLAYED]
    for k in range(n_players):
        j = (seat + k) % n_players
        b = P.O_SEATS + k * P.SEAT_FIELDS
        o[b + P.S_SCORE] = g[sc(j, S_SCORE)]
        o[b + P.S_GREEN] = g[sc(j, S_GREEN)]
        o[b + P.S_PURPLE] = g[sc(j, S_PURPLE)]
        o[b + P.S_ORANGE] = g[sc(j, S_ORANGE)]
        o[b + P.S_WANDS] = g[sc(j, S_WANDS)]
        o[b + P.S_LIGHTNING] = g[sc(j, S_BOLTS)]
        o[b + P.S_CARDS] = -1 if g[G_SELECTING] and k > 0 else g[sc(j, S_NHAND)]
        o[b + P.S_PLAYED] = g[sc(j, S_PLAYED)]
        o[b + P.S_PAWN_A] = g[sc(j, S_PAWN_A)]
        o[b + P.S_PAWN_B] = g[sc(j, S_PAWN_B)]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def features(s, seat):
    """Whether the seat's policy reads features (the built-in random one does not)."""
    return s.g[sc(seat, S_POLICY)] != P.RANDOM


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def record(g, seat, kind, n, c):
    """Count a decision the policy was asked, and log it when a log is kept."""
    k = g[G_LOGGED]
    if k < g[G_LOG_CAP]:
        at = g[G_LOG_AT] + 4 * k
        g[at] = seat
        g[at + 1] = kind
        g[at + 2] = n
        g[at + 3] = c
    g[G_LOGGED] = k + 1
    g[G_DECISIONS] += 1


@njit((TT, GT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def determinize(t, g, seat, seed):
    """Resample what the seat cannot see, consistently with all it has seen: each other
    seat's hand (as many roles as it holds, from the roles nobody played this round: a holder
    must follow a led role; the role of the turn in progress too for a seat whose chance to
    follow it is still to come), the events still face down, the enchanted deck's unseen
    cards, and the coming draws of chance and of the other seats (``simcore.rng.reseed``)."""
    n_players = g[G_NP]
    st = g[G_ST:G_ST + 1 + n_players].view(np.uint64)
    reseed(st, seed, 1 + seat)
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
                k = randint(st, CHANCE, popcount(np.uint64(left)))
                hand |= np.int64(1) << nth_set_bit(left, k)
            g[sc(p, S_HAND)] = hand
    d0 = t[T_DECKS] + N
    rnd = g[G_ROUND]
    shuffle_set(st, CHANCE, g[d0 + rnd:d0 + E], E - rnd)
    at = d0 + E + g[G_ENCH_PTR]
    shuffle_set(st, CHANCE, g[at:d0 + E + g[G_ENCH_N]], g[G_ENCH_N] - g[G_ENCH_PTR])


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def action_key(kind, o):
    """What option row ``o`` does, as a search tree's key: the same action in every
    determinization (``simcore.search``)."""
    return ((((kind * 64 + np.int64(o[P.F_ROLE]) + 1) * 2 + np.int64(o[P.F_BRAVE] > 0)) * 4096
             + np.int64(o[P.F_TARGET]) + 1) * 2 + np.int64(o[P.F_PASS] > 0))


@njit((TT, GT, *POLICY_SIG.args[1:3], I8, I8, I8), cache=True, _nrt=False,
      no_cpython_wrapper=True)
def fm_decide(t, g, obs, opts, seat, kind, n):
    """``decide`` in the forward model: the logged choice while the log lasts (after any
    determinization marked at this decision), then halt: the seat, kind, number of options,
    every seat's observation, the option rows and a copy of the state are kept (after the log:
    the rows as float64), and the seats turn random to let the game run out without writing
    rows (``forward.py``). Every seat plays ``FM_SEAT``, a user policy's id, so only ``ask``
    (the user policies' path) pays for the test."""
    k = g[G_DECISIONS]
    for m in range(g[G_N_MARKS]):     # (seat -1 - s: s's oracle)
        if g[G_MARKS + 3 * m] == k:
            seat_m, seed = g[G_MARKS + 3 * m + 1], g[G_MARKS + 3 * m + 2]
            if seat_m >= 0:
                determinize(t, g, seat_m, seed)
            else:           # an oracle's search (simcore.search): new coming draws only
                reseed(g[G_ST:G_ST + 1 + g[G_NP]].view(np.uint64), seed, -seat_m)
    if k < g[G_FM_STOP]:
        c = g[g[G_LOG_AT] + 4 * k + 3]
        if c < 0 or c >= n:
            if g[G_ERROR] == 0:
                g[G_ERROR], g[G_ERR_SEAT], g[G_ERR_KIND] = 2, seat, kind
                g[G_ERR_CHOICE], g[G_ERR_N] = c, n
            c = 0
        record(g, seat, kind, n, c)
        return c
    base = g[G_SEARCH]
    if base > 0 and g[base + SR.H_MODE] == SR.TREE:
        if g[G_HORIZON] and not g[G_LAST_ROUND]:
            g[G_LAST_ROUND] = g[G_ROUND] + g[G_HORIZON] - 1
        keys = SR.keys_at(g, base)
        for i in range(n):
            g[keys + i] = action_key(kind, opts[i])
        c = SR.step(g, base, n, seat)
        if g[base + SR.H_MODE] == SR.PLAYOUT:
            for p in range(g[G_NP]):
                g[sc(p, S_POLICY)] = g[G_PLAYOUT]
        record(g, seat, kind, n, c)
        return c
    g[G_HALTED] = 1
    g[G_PEND], g[G_PEND + 1], g[G_PEND + 2] = seat, kind, n
    snap = g[G_LOG_AT] + 4 * g[G_LOG_CAP]
    for i in range(t[T_LOG]):
        g[snap + i] = g[i]
    rows = g.view(np.float64)[snap + t[T_LOG]:snap + t[T_LOG] + n * P.N_FEATURES]
    for i in range(n):
        for f in range(P.N_FEATURES):
            rows[i * P.N_FEATURES + f] = opts[i, f]
    for p in range(g[G_NP]):
        observe(t, g, obs[OBS_LEN * (1 + p):OBS_LEN * (2 + p)], p)
        g[sc(p, S_POLICY)] = P.RANDOM    # nobody writes option rows any more
    return 0


@njit((TT, ST.types[0], *POLICY_SIG.args[1:3], I8, I8, I8),
      cache=True, _nrt=False, no_cpython_wrapper=True)
def ask(t, g, obs, opts, seat, kind, n):
    """``decide`` for a user policy, on the few arrays it reads (a call passes every array of
    its arguments); only user policies read the observation. In the forward model
    ``fm_decide``, for a search agent's seat ``search_seat``."""
    pid = g[sc(seat, S_POLICY)]
    if pid == FM_SEAT:
        return fm_decide(t, g, obs, opts, seat, kind, n)
    if pid == SR.SEARCH_ID:
        c = search_at(g[G_SEARCH_FN])(t, g, seat, n)
    else:
        rng = g.view(np.uint64)[G_ST + 1 + seat:G_ST + 2 + seat]
        observe(t, g, obs, seat)
        c = policy_at(g[G_UF - 1 - pid])(kind, obs, opts, n, rng)
    if c < 0 or c >= n:
        if g[G_ERROR] == 0:
            g[G_ERROR] = 1
            g[G_ERR_SEAT] = seat
            g[G_ERR_KIND] = kind
            g[G_ERR_CHOICE] = c
            g[G_ERR_N] = n
        c = 0
    record(g, seat, kind, n, c)
    return c


@njit((GT, I8, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def builtin_choice(g, seat, kind, n):
    """A built-in policy's choice, always legal: the random policy's draw, or the best
    option ``offer`` kept for a heuristic. One small call at each ``decide``: inlining the draw
    and the record there had cost ~6 s of cold compile."""
    if g[sc(seat, S_POLICY)] == P.RANDOM:
        c = randint(g.view(np.uint64), G_ST + 1 + seat, n)
    else:
        c = g[G_BEST]
    record(g, seat, kind, n, c)
    return c


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def decide(t, s, seat, kind, n):
    """Ask the seat's policy (a single option is taken without asking): a built-in one by
    ``builtin_choice``, a user policy by ``ask``."""
    if n == 1:
        return 0
    if s.g[sc(seat, S_POLICY)] >= 0:
        return builtin_choice(s.g, seat, kind, n)
    return ask(t, s.g, s.obs, s.opts, seat, kind, n)


# ---------------------------------------------------------------- what a card can do now

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
def colours_held(g, seat):
    """Bit c set if the seat holds a potion of colour c: all its deliveries depend on."""
    return ((g[sc(seat, S_GREEN)] > 0) + 2 * (g[sc(seat, S_PURPLE)] > 0)
            + 4 * (g[sc(seat, S_ORANGE)] > 0))


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
    colours = colours_held(g, seat)
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
        wands = g[sc(seat, S_WANDS)]
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
    colours = colours_held(g, seat)
    key = ((board * A + g[sc(seat, S_PAWN_A)]) * A + g[sc(seat, S_PAWN_B)]) * 8 + colours
    wands = min(g[sc(seat, S_WANDS)], t[T_MAX_STARS])
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
            points, pay_potions = v, 1
    elif kind == DRUID:
        if v > NEG:
            points, pay_potions = v + (t[P_BONUS_DRUID] if brave else 0), 1
    elif kind == FAIRY:
        if v >= 0:
            points = t[P_BONUS_FAIRY] if brave else 0
            lightning, pay_wands = v, w
    elif kind == GATHERER:
        c0 = RO_BRAVE if brave else RO_COWARDLY
        gain_potions = role_of(t, r, c0) + role_of(t, r, c0 + 1) + role_of(t, r, c0 + 2)
        gain_wands = role_of(t, r, c0 + 3)
    penalty = t[P_ENCH_PENALTY] if (g[G_ENCHANTED] >> r) & 1 else 0
    return points, pay_potions, pay_wands, gain_potions, gain_wands, lightning, penalty


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def card_score(t, g, r, kind, brave, v, w, weights):
    """A built-in heuristic's value (``P._value``) of the row ``card_row`` would write."""
    points, pay_potions, pay_wands, gain_potions, gain_wands, lightning, penalty = card_terms(
        t, g, r, kind, brave, v, w)
    return P._score(points, penalty, gain_potions, gain_wands, lightning,
                    pay_potions + pay_wands, weights[0], weights[1], weights[2])


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


@njit((TT, GT, I8, I8, I8, I8, I8, types.float32, types.UniTuple(types.float64, 4)),
      cache=True, _nrt=False, no_cpython_wrapper=True)
def best_card(t, g, seat, kind, hand, roles, at, risk, weights):
    """A built-in heuristic's LEAD or FOLLOW (``kind``) choice without the rows: ``P._best``
    of those ``pair_rows`` writes for each role in ``hand`` (option 2j + brave for the j-th),
    valued from ``card_values`` at ``at`` (roles not in ``roles``: NEG) and brave ``risk``."""
    brave_ok = not risk > weights[3]
    c, best_v, n = 0, -1e30, 0
    m = hand
    while m:
        r = trailing_zeros(m)
        m &= m - 1
        role = role_of(t, r, RO_KIND)
        v = g[at + 2 * r] if (roles >> r) & 1 else NEG
        x = card_score(t, g, r, role, False, NEG if role == WITCH else v, g[at + 2 * r + 1],
                       weights)
        if x > best_v:
            c, best_v = n, x
        if brave_ok:
            x = card_score(t, g, r, role, True, v, g[at + 2 * r + 1], weights)
            if x > best_v:
                c, best_v = n + 1, x
        n += 2
    record(g, seat, kind, n, c)
    return c


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


# ---------------------------------------------------------------- setup and round

@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def setup(t, s, key, game):
    n_players = s.g[G_NP]
    A, N, E = t[T_N_AREA], t[T_N_TILES], t[T_N_EVENT]
    st = s.g[G_ST:G_ST + 1 + n_players].view(np.uint64)
    seed_streams(key, game, st)
    s.g[:N_G] = 0
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
    shuffle(st, CHANCE, tiles, N)
    for i in range(t[T_N_CLOUD]):
        s.g[t[T_SPACES] + i] = tiles[i]
        s.g[b0 + cloud_area_of(t, i)] += 1
    events = s.g[d0 + N:d0 + N + E]
    for i in range(E):
        events[i] = i
    shuffle(st, CHANCE, events, E)
    if t[P_ENCH_TOTAL] - n_players > 0:
        deck = s.g[d0 + N + E:t[T_REC]]
        m = 0
        for r in range(t[P_N_ROLES]):
            if (t[P_ENCH_DECK] >> r) & 1:
                deck[m] = r
                m += 1
        shuffle(st, CHANCE, deck, m)
        s.g[G_ENCH_N] = m


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def reveal_enchanted_roles(t, s):
    n = t[P_ENCH_TOTAL] - s.g[G_NP]
    if n <= 0:
        return
    R = t[P_N_ROLES]
    cards = t[P_ENCH_DECK]         # the roles in the enchanted deck (bitmask)
    deck = s.g[t[T_DECKS] + t[T_N_TILES] + t[T_N_EVENT]:t[T_REC]]
    st = s.g[G_ST:G_ST + 1 + s.g[G_NP]].view(np.uint64)
    revealed = 0
    for _ in range(n):
        if s.g[G_ENCH_PTR] == s.g[G_ENCH_N]:
            m = 0
            for r in range(R):
                if (cards >> r) & 1 and (t[P_RESHUFFLE_ALL] or not (revealed >> r) & 1):
                    deck[m] = r
                    m += 1
            shuffle(st, CHANCE, deck, m)
            s.g[G_ENCH_N] = m
            s.g[G_ENCH_PTR] = 0
        revealed |= 1 << deck[s.g[G_ENCH_PTR]]
        s.g[G_ENCH_PTR] += 1
    s.g[G_ENCHANTED] = revealed
    rec = t[T_REC] + t[T_N_EVENT]
    for r in range(R):
        if (revealed >> r) & 1:
            s.g[rec + r] |= 1 << (s.g[G_ROUND] - 1)


@njit((TT, ST, I8, I8, I8, I8, B1), cache=True, _nrt=False, no_cpython_wrapper=True)
def select_rows(t, s, seat, c0, max_size, ev, mol):
    """Each role's SELECT row for the seat (rows c0 + r, a brave play's features, not brave);
    a built-in heuristic instead picks its whole hand here, from each row's value (``_best``:
    the first highest; a stop row is worth 0), and True is returned. The values are found
    once, from the features without a row (in the option slots, free while hands are
    picked), not once per pick."""
    R = t[P_N_ROLES]
    at = card_values(t, s.g, seat, (np.int64(1) << np.int64(R)) - 1)
    pid = s.g[sc(seat, S_POLICY)]
    if pid <= P.RANDOM:
        for r in range(R):
            card_row(t, s, seat, r, role_of(t, r, RO_KIND), True, c0 + r, s.g[at + 2 * r],
                     s.g[at + 2 * r + 1])
            s.opts[c0 + r, P.F_BRAVE] = 0
        return False
    weights = seat_weights(s.g, seat)
    values = s.g.view(np.float64)[G_OAB:G_OAB + R]
    for r in range(R):
        values[r] = card_score(t, s.g, r, role_of(t, r, RO_KIND), True, s.g[at + 2 * r],
                               s.g[at + 2 * r + 1], weights)
    while s.g[sc(seat, S_NHAND)] < max_size:
        hand = s.g[sc(seat, S_HAND)]
        stop = mol and event_of(t, ev, EC_HAND + s.g[sc(seat, S_NHAND)]) != NO_HAND
        n, c, best, best_v = 0, 0, -1, -1e30
        for r in range(R):
            if not (hand >> r) & 1:
                v = values[r]
                if v > best_v:
                    c, best, best_v = n, r, v
                n += 1
        if stop:
            if 0.0 > best_v:
                c, best = n, -1
            n += 1
        if n == 1:
            c = 0
            best = -1 if stop else best
        else:
            record(s.g, seat, P.SELECT, n, c)
        if best < 0:
            break
        s.g[sc(seat, S_HAND)] |= 1 << best
        s.g[sc(seat, S_NHAND)] += 1
    return True


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
    s.g[G_SELECTING] = 0
    if mol:
        for seat in range(s.g[G_NP]):
            add_points(t, s, seat, event_of(t, ev, EC_HAND + s.g[sc(seat, S_NHAND)]), S_EVENTS)


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
        if pid > P.RANDOM:
            c = best_card(t, s.g, leader, P.LEAD, hand, roles, at, risk, weights)
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
                if pid > P.RANDOM:
                    c = best_card(t, s.g, seat, P.FOLLOW, role, role, at, risk, weights)
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


# ---------------------------------------------------------------- the roles

@njit((TT, ST, I8, I8, B1, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def offer_moves(t, s, seat, r, brave, n):
    """The witch's n moves in the option slots (pawn, area), then decline."""
    colours = colours_held(s.g, seat)
    for i in range(n):
        a = s.g[G_OAB + 2 * i + 1]
        v = best_delivery_area(t, s.g, colours, a)
        offer(s, seat, i, r, brave, a, False, v if v > NEG else 0, 0, 0, 0, 0, 0, 0)
    stop_option(s, seat, n)


@njit((TT, ST, I8, I8, B1, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def offer_charms(t, s, seat, r, brave, n):
    """The fairy's n charms in the option slots (cloud space), then decline."""
    bonus = t[P_BONUS_FAIRY] if brave else 0
    for j in range(n):
        i = s.g[G_OAB + 2 * j]
        a = cloud_area_of(t, i)
        tile = s.g[t[T_SPACES] + i]
        offer(s, seat, j, r, brave, a, False, bonus, 0, tile_of(t, tile, 0), 0, 0,
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
    (option m)."""
    if features(s, seat):
        for i in range(m):
            k = s.g[G_OAB + 2 * i]
            offer(s, seat, i, r, brave, k, False, tower_of(t, k, TW_POINTS) + bonus, 1, 0, 0,
                  tower_of(t, k, TW_WANDS) if tower_of(t, k, TW_ROUND) else 0, 0, 0)
        stop_option(s, seat, m)
    c = decide(t, s, seat, P.DELIVER, m + 1)
    if c == m:
        return
    k = s.g[G_OAB + 2 * c]
    s.g[sc(seat, S_GREEN + tower_of(t, k, TW_COLOUR))] -= 1
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
    """Charm a cloud next to a pawn, paying its stars in wands; brave: + bonus if charmed."""
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
        if tile >= 0 and s.g[sc(seat, S_WANDS)] >= tile_of(t, tile, 0):
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
    s.g[sc(seat, S_WANDS)] -= tile_of(t, tile, 0)
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


# ---------------------------------------------------------------- events

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
    """Secret reveals; the highest (ties: all) score and pay their reveal. 0 never wins."""
    n_players = s.g[G_NP]
    best = 0
    for seat in range(n_players):
        total = total_resources(s, seat)
        if features(s, seat):
            others = -1
            for j in range(n_players):
                if j != seat:
                    others = max(others, total_resources(s, j))
            for b in range(total + 1):
                offer(s, seat, b, -1, False, b, False,
                      event_of(t, ev, EC_POINTS) if b > others else 0, 0, 0, 0, 0, 0, 0)
        s.g[sc(seat, S_BID)] = decide(t, s, seat, P.BID, total + 1)
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


# ---------------------------------------------------------------- end of game

@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def lightning_points(t, bolts):
    L = t[T_N_LIGHT]
    if bolts < L:
        return np.int64(lightning_of(t, bolts))
    return np.int64(lightning_of(t, L - 1)) + (bolts - L + 1) * t[P_LIGHT_BEYOND]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def resource_set_points(t, g, p, o, w):
    """Best split of the four resource kinds into sets of 4 and of 3 different kinds."""
    best = 0
    for x in range(min(g, p, o, w) + 1):
        y = 0
        while (min(g - x, y + 1) + min(p - x, y + 1) + min(o - x, y + 1)
               + min(w - x, y + 1)) >= 3 * (y + 1):
            y += 1
        best = max(best, x * t[P_SET4] + y * t[P_SET3])
    return best


@njit((TT, GT, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def snapshot(t, g, rnd, turns):
    """While a search's decision is still ahead (``search``), keep the state at the start of
    each round (``turns`` 0) and of each turn (1): the search's iterations replay from the last
    one, not from the start of the game. A batch game keeps none (G_SNAP 0)."""
    if g[G_SNAP] and g[G_DECISIONS] <= g[G_FM_STOP]:
        g[G_RESUME], g[G_RESUME_TURNS] = rnd, turns
        snap = g[G_SNAP]
        for j in range(t[T_LOG]):
            g[snap + j] = g[j]


GAME_SIG = types.int64(TT, ST, types.uint64, I8, LOG, I8, types.int64[::1], types.int64[::1],
                       types.int16[:, :, ::1], types.int8[:, ::1], types.float32[:, ::1],
                       types.int32[:, ::1], types.int64[:, ::1])
game_at = function_at(types.FunctionType(GAME_SIG))


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def play_game(t, s, key, game, log, i, primary, secondary, seat_out, rank, win,
              game_out, errors):
    """Setup, the rounds, end scoring: one whole game into State s, then its row i of the
    outputs (see ``play_games``). ``play_games`` calls it through a function pointer."""
    first, turns = s.g[G_RESUME], s.g[G_RESUME_TURNS]
    if first == 0:
        setup(t, s, key, game)
        first = 1
    n_players = s.g[G_NP]
    N = t[T_N_TILES]
    for rnd in range(first, t[P_ROUNDS] + 1):
        if s.g[G_HALTED] or (s.g[G_LAST_ROUND] and rnd > s.g[G_LAST_ROUND]):
            break       # (a search's playout past its horizon: scored as if the game ended)
        if not turns:
            snapshot(t, s.g, rnd, 0)
            s.g[G_ROUND] = rnd
            s.g[G_TURN] = 0
            s.g[G_PLAYED] = 0
            ev = s.g[t[T_DECKS] + N + rnd - 1] if rnd - 1 < t[P_EVENTS_USED] else -1
            s.g[G_EVENT] = ev
            if ev >= 0:
                s.g[t[T_REC] + ev] = rnd
            reveal_enchanted_roles(t, s)
            for p in range(n_players):
                s.g[sc(p, S_PLAYED)] = 0
            select_roles(t, s)
            s.g[G_LEADER] = s.g[G_START]
            s.g[G_LAST_BRAVE] = s.g[G_START]
        turns = 0
        while True:
            left = 0
            for p in range(n_players):
                left += s.g[sc(p, S_NHAND)]
            if left == 0:
                break
            snapshot(t, s.g, rnd, 1)
            play_turn(t, s)
        round_end_event(t, s)
        mark_leaders(s, n_players, rnd)
        # next_start_player: who last acted bravely (nobody: the start player stays), or
        # (option "lead_holder") whoever holds the lead
        s.g[G_START] = s.g[G_LEADER] if t[P_START_LEAD] else s.g[G_LAST_BRAVE]
    for p in range(n_players):
        add_points(t, s, p, lightning_points(t, s.g[sc(p, S_BOLTS)]), S_LIGHTNING)
        add_points(t, s, p, resource_set_points(t, s.g[sc(p, S_GREEN)], s.g[sc(p, S_PURPLE)],
                                                s.g[sc(p, S_ORANGE)], s.g[sc(p, S_WANDS)]), S_SETS)
    for p in range(n_players):
        seat_out[0, i, p] = s.g[sc(p, S_SCORE)]
        seat_out[1, i, p] = t[P_START_SCORE]
        for j in range(S_TOWERS, S_FLOOR + 1):
            seat_out[1 + j, i, p] = s.g[sc(p, j)]
        seat_out[9, i, p] = s.g[sc(p, S_DELIV)]
        seat_out[10, i, p] = s.g[sc(p, S_CHARMED)]
        seat_out[11, i, p] = s.g[sc(p, S_BRAVE_DONE)]
        seat_out[12, i, p] = s.g[sc(p, S_CANCELLED)]
        seat_out[13, i, p] = total_resources(s, p)
        seat_out[14, i, p] = s.g[sc(p, S_PAWN_A)]
        seat_out[15, i, p] = s.g[sc(p, S_PAWN_B)]
        seat_out[16, i, p] = s.g[sc(p, S_LED)]
        primary[p] = s.g[sc(p, S_SCORE)]
        secondary[p] = total_resources(s, p)
    rank_and_share(primary, secondary, n_players, rank[i], win[i])
    game_out[0, i] = s.g[G_DECISIONS]
    for j in range(t[T_N_REC]):
        game_out[1 + j, i] = s.g[t[T_REC] + j]
    errors[i, 0] = s.g[G_ERROR]
    errors[i, 1] = s.g[G_ERR_SEAT]
    errors[i, 2] = s.g[G_ERR_KIND]
    errors[i, 3] = s.g[G_ERR_CHOICE]
    errors[i, 4] = s.g[G_ERR_N]
    errors[i, 5] = s.g[G_LOGGED]
    at = s.g[G_LOG_AT]
    for k in range(min(s.g[G_LOGGED], log.shape[1])):
        for c in range(4):
            log[i, k, c] = s.g[at + 4 * k + c]
    return 0


def new_state(t: np.ndarray, log_cap: int, forward: bool = False) -> State:
    """A zeroed ``State`` for a batch with these tables (allocated here, in numpy: compiled,
    each dtype's allocation code had cost the cold start its own compile). ``forward``: room
    for what the forward model keeps when it halts (``fm_decide``): a copy of the state after
    the log and the pending option rows, every seat's observation after the decider's."""
    keep = t[T_LOG] + t[T_MAXO] * P.N_FEATURES
    return State(np.zeros(t[T_LOG] + keep * forward + 4 * log_cap, np.int64),
                 np.zeros(OBS_LEN * (1 + MAX_PLAYERS * forward), np.float32),
                 np.zeros((t[T_MAXO] + t[P_N_ROLES], P.N_FEATURES), np.float32))




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


@njit(cache=True, nogil=True)
def play_games(t, s, key, start, counter, game_fn, primary, secondary, seat_out, rank, win,
               game_out, errors, log):
    """Play games start + i into rows i of the outputs, for the units of rows this thread
    ``claim``s with ``counter``, with one ``State`` reset per game (nothing is allocated
    inside a game; ``s`` is this thread's, ``new_state`` and ``init_state``).

    seat_out [17, G, P] int16 (``api.SEAT_COLS``), rank [G, P] int8, win [G, P] float32,
    game_out [1 + E + R + K + C, G] int32 (decisions, then State.rec): column-major, so that
    each results column is one contiguous block, errors [G, 6] int64
    (error flag, seat, kind, choice, n_opts, decisions logged), log [G, cap, 4] int16.
    ``game_fn``: ``play_game`` as a first-class function (``simcore.policy.first_class``):
    called through a pointer, its machine code is not linked into (and optimised again with)
    this kernel's.
    ``primary``, ``secondary``: [P] int64, the ranking keys (scratch).
    """
    while True:
        lo, hi = claim(counter, win.shape[0])
        if lo == hi:
            return
        for i in range(lo, hi):
            game_fn(t, s, key, start + i, log, i, primary, secondary, seat_out, rank, win,
                    game_out, errors)


def play_batch(t, key, start, pol, user_policies, seat_out, rank, win, game_out, errors,
               log, weights=None, agents=None) -> None:
    """Play games start .. start + len(win) - 1 (arrays as ``play_games``) on
    ``numba.get_num_threads()`` threads (``simcore.parallel.spread``). ``pol``: [P] int64 the
    seats' policy ids; ``user_policies``: [MAX_PLAYERS] int64 the addresses of the user
    policies' compiled code (``policy_at``), padded with a placeholder's; ``weights``: [P, 4]
    float64 the seats' heuristic weights (``seat_weights``; None: the built-ins');
    ``agents``: the search seats' words (``init_state``; a game with a search seat keeps its
    log)."""
    game_fn = first_class(play_game, GAME_SIG)
    if weights is None:
        weights = [P.WEIGHTS.row(list(P.POLICIES)[i] if i >= 0 else None) for i in pol]
    searching = bool((pol == SR.SEARCH_ID).any())
    search_fn = first_class(search_seat, SEARCH_SEAT_SIG).address if searching else 0
    cap = LOG_CAP if searching else log.shape[1]
    agents = np.zeros(SR.AGENT_WORDS * MAX_PLAYERS, np.int64) if agents is None else agents

    def play_units(counter):
        s = new_state(t, cap)
        init_state(t, s, len(pol), pol, user_policies, cap, agents, search_fn, game_fn.address)
        for p, w in enumerate(weights):
            at = G_SEAT + N_SEAT * p + S_WEIGHTS
            s.g[at:at + 4].view(np.float64)[:] = w
        keys = np.zeros((2, len(pol)), np.int64)
        play_games(t, s, key, start, counter, game_fn, keys[0], keys[1], seat_out, rank, win,
                   game_out, errors, log)

    spread(play_units, win.shape[0])


@njit(types.int64(TT, types.uint64, I8, I8, types.int64[::1], types.int64[:, ::1], I8,
                  types.int64[::1], I8, I8), cache=True)
def search(t, key, game, n_players, choices, marks, seat, agent, seed, game_fn):
    """The option a search agent (``agent``: ``simcore.search.Agent.params``) takes at the
    position of game ``game`` after ``choices`` and the determinizations ``marks`` [m, 3], where
    ``seat`` is to act; its randomness from ``seed``. Each iteration replays the position in a
    scratch forward-model state (``play_game`` at address ``game_fn``), determinized for the
    seat at its decision; ``fm_decide`` hands the tree's decisions to ``simcore.search.step``.
    -1 when a replay diverges (a bug: the caller reports it as an illegal choice)."""
    algo, iters = agent[SR.A_ALGO], agent[SR.A_ITER]
    trees = agent[SR.A_DETS] if algo == SR.PIMC else 1
    per_tree = iters // trees
    maxo = t[T_MAXO]
    keep = t[T_LOG] + maxo * P.N_FEATURES
    base = t[T_LOG] + 4 * LOG_CAP + keep
    snap = base + SR.region_size(per_tree + 1, maxo)
    s = State(np.zeros(snap + t[T_LOG], np.int64),
              np.zeros(OBS_LEN * (1 + MAX_PLAYERS), np.float32),
              np.zeros((maxo + t[P_N_ROLES], P.N_FEATURES), np.float32))
    init_state(t, s, n_players, np.full(n_players, FM_SEAT, np.int64),
               np.zeros(MAX_PLAYERS, np.int64), LOG_CAP, np.zeros(0, np.int64), 0, game_fn)
    g = s.g
    for p in range(n_players):      # every seat plays out with the playout's weights
        for w in range(4):
            g[sc(p, S_WEIGHTS) + w] = agent[SR.A_WEIGHTS + w]
    k = choices.shape[0]
    for j in range(k):
        g[g[G_LOG_AT] + 4 * j + 3] = choices[j]
    m = marks.shape[0]
    for j in range(m):
        for w in range(3):
            g[G_MARKS + 3 * j + w] = marks[j, w]
    g[G_MARKS + 3 * m] = k
    g[G_MARKS + 3 * m + 1] = -1 - seat if agent[SR.A_ORACLE] else seat
    g[G_N_MARKS] = m + 1
    g[G_FM_STOP] = k
    g[G_SEARCH] = base
    g[G_PLAYOUT] = agent[SR.A_PLAYOUT]
    g[G_HORIZON] = agent[SR.A_HORIZON]
    g[G_SNAP] = snap
    SR.init_region(g, base, per_tree + 1, maxo, algo,
                   agent[SR.A_C:SR.A_C + 1].view(np.float64)[0], seed)
    play = game_at(game_fn)
    seat_out = np.zeros((17, 1, n_players), np.int16)
    rank, win = np.zeros((1, n_players), np.int8), np.zeros((1, n_players), np.float32)
    game_out = np.zeros((1 + t[T_N_REC], 1), np.int32)
    errors = np.zeros((1, 6), np.int64)
    keys = np.zeros((2, n_players), np.int64)
    log = np.zeros((1, 0, 4), np.int16)
    votes = np.zeros(maxo, np.int64)
    for tree in range(trees):
        if tree:
            SR.new_tree(g, base)
        for it in range(per_tree):
            if g[G_RESUME]:     # from the start of the decision's turn (play_game)
                for j in range(t[T_LOG]):
                    g[j] = g[snap + j]
            g[G_MARKS + 3 * m + 2] = SR.iteration_seed(seed, tree, 0 if algo == SR.PIMC else it)
            SR.new_iteration(g, base, it)
            g[G_HALTED] = 0
            for p in range(n_players):
                g[sc(p, S_POLICY)] = FM_SEAT
            play(t, s, key, game, log, 0, keys[0], keys[1], seat_out, rank, win, game_out,
                 errors)
            if errors[0, 0] or g[G_HALTED]:
                return -1
            SR.backpropagate(g, base, win[0])
        if algo != SR.PIMC:
            return SR.best_option(g, base)
        SR.add_visits(g, base, votes)
    return np.argmax(votes)


@njit(SEARCH_SEAT_SIG, cache=True)
def search_seat(t, g, seat, n):
    """A search seat's decision in a batch game (``ask``): ``search`` from the game's log,
    seeded by one draw of the seat's stream."""
    k = g[G_LOGGED]
    if k > g[G_LOG_CAP]:
        return -1
    choices = np.empty(k, np.int64)
    for j in range(k):
        choices[j] = g[g[G_LOG_AT] + 4 * j + 3]
    seed = SR.decision_seed(g[G_ST:G_ST + 1 + g[G_NP]].view(np.uint64), seat)
    agent = g[G_AGENTS + SR.AGENT_WORDS * seat:G_AGENTS + SR.AGENT_WORDS * (seat + 1)].copy()
    return search(t, g[G_KEY:G_KEY + 1].view(np.uint64)[0], g[G_GAME], g[G_NP], choices,
                  np.zeros((0, 3), np.int64), seat, agent, seed, g[G_GAME_FN])
