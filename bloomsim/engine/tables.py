"""The rules as the kernels read them: ``flat_tables`` packs ``rules.Tables`` into one int64
array (the parameters ``P_*`` of ``rules.py``, a header ``T_*`` of offsets, then each table's
rows), read through the small accessors ``area_of``, ``tower_of``, ``role_of`` ...; the header
also says where the per-rules regions of ``State.g`` start."""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.layout import Layout

from ..rules import (P_ADJ_PTR, P_AREA_TOWER_PTR, P_MAX_BID, P_TOWER_PTR, RO_KIND, RO_TERRAINS,
                     Tables, WITCH)
from .state import G_OAB, I8, MAX_PLAYERS, TT

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
T_REDRAW = T.field("redraw", meaning="the streams a batch draws anew (bit mask, simcore.rng; "
                                     "0: none): a batch's copy of the tables (api.tables_for)")
T_REDRAW_KEY = T.field("redraw_key", meaning="their key (uint64 bits)")
T_DIST = T.field("distilled", meaning="the distilled policy's weights (float64; 0: none)")
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


def with_distilled(t: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The tables with the distilled policy's weights (float64, as
    ``simcore.distill.Distilled.flat`` lays them out) after them, at ``t[T_DIST]``: data
    passed in, not compiled in, so other weights never recompile a kernel."""
    W = np.ascontiguousarray(weights, np.float64)
    out = np.concatenate([t, W.view(np.int64)])
    out[T_DIST] = len(t)
    return out


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
