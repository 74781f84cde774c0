"""One game's state in ``G``, after the rules (``tables.py``): its declared layout, the typed
views of ``G`` the kernels read it through, the kernels' types and signatures, and the counts
the rules read again and again, kept up to date as the game changes (each hand as a bit set of
tiles ``HELD`` with its counts; pawns and tiles per district).

Every field sits at a fixed offset (module constants, declared once in the layout ``G`` with
its size and meaning), so the kernels index ``G[OFFSET + i]`` and numba freezes the offsets as
constants. The random streams (``XS``, uint64, ``simcore.rng``), the observation (``OBS``) and
the option features (``OPTS``, float32) live in ``G`` too. A kernel gets ``G`` as a raw pointer
(one argument) and its own arguments: every call is cheap to compile and to make (a NamedTuple
of arrays was flattened into ~150 LLVM arguments per call; an array passed is a struct of
seven).
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from simcore.bits import nth_set_bit, popcount
from simcore.forward import MAX_MARKS
from simcore.policy import function_at

from .. import stats as S
from ..policies import N_FEATURES, N_OBS
from ..rules import EMPTY, ITEM, MAX_PLAYERS, TREASURE
from .tables import G, MAXD, MAXN, MO, N_ITEMS, N_STREAMS, P, R_H, R_N, arrays, scalars

# ---- one game's state: scalars
(RIZE, DAWN, N_MARKED, TURNS, OVER, STALLED, DAWN_END, ACTING, ACTIONS_LEFT, TURN_END, SEARCHED,
 CHIYA_HOLD, WALK_LEFT, BAG_N, BAG_HEAD, NP, ISET, GAME, ERR, ERR_SEAT, ERR_KIND, ERR_CHOICE,
 ERR_N) = scalars(
    "rize", "dawn", "n_marked", "turns", "over", "stalled", "dawn_end", "acting", "actions_left",
    "turn_end", "searched", "chiya_hold", "walk_left", "bag_n", "bag_head", "np", "iset", "game",
    "err", "err_seat", "err_kind", "err_choice", "err_n")
# per seat
CHARS, POS, SKIP, SKILL_USED, LETTER, PENDING, GROUP, DISGUISED = arrays(
    P, "chars", "pos", "skip", "skill_used", "letter", "pending", "group", "disguised")
# held treasures, items, brown rabbits, white-rabbit tiles, the chest
HTRE, HNI, HBROWN, HWHITE, HCHEST = arrays(P, "htre", "hni", "hbrown", "hwhite", "hchest")
PRIM, SECD, RANKS = arrays(P, "prim", "secd", "ranks")                # ranking keys and rank
HITEM = G.field("hitem", P * N_ITEMS, "[s * N_ITEMS + i] items of each kind held")
# per district: tiles on the board, pawns, pawns as a bit set of seats, time marker
NT, NPD, OCC, MARKER = arrays(MAXD, "nt", "npd", "occ", "marker")
# per house or tile: tile per house (EMPTY), face up, picks
BOARD, FACE_UP, TMP = arrays(MAXN, "board", "face_up", "tmp")
BAG_CAP = 128
BAGR = G.field("bag", BAG_CAP, "Rize's bag: a ring of BAG_N tiles from BAG_HEAD (oldest first; "
               "a power of two above MAXN, indices masked)")
TK, TSUB, TBR, TWH, TCH = arrays(MAXN, "tk", "tsub", "tbr", "twh", "tch")  # the tile set in play
SEEN = G.field("seen", P * MAXN, "[s * MAXN + t] seat s has looked at tile t")
RETURNED = G.field("returned", MAXN, "tile t came back onto the board from a hand or Rize's "
                   "bag, so everyone knows its kind (an item face down: determinize)")
# the options of the current decision: code, argument (house, seat, item or district; the
# feature row is derived from them, the state does not change before the decision)
CH_WHAT, CH_ARG = arrays(MO, "ch_what", "ch_arg")
SEAT_ST = G.field("seat_st", P * S.N_SEAT, "[s * N_SEAT + k] seat counters (stats.SEAT)")
GAME_ST = G.field("game_st", S.N_GAME + 2 * MAXD, "game counters (stats.GAME, then per district)")
G.align(2)
HELD = G.field("held", 4 * P, "uint64 [s * 2 + w] tiles seat s holds, a bit set")
LED = G.field("led", 2 * P, "int64 [s] rounds seat s led after (end_round)")
SEL_ITEM0 = 2                                # selectors: TREASURE, ITEM, SEL_ITEM0 + item
KIND_SET = G.field("kind_set", 4 * (SEL_ITEM0 + N_ITEMS),
                   "uint64 [k * 2 + w] the tiles of selector k")
XS = G.field("xs", 2 * N_STREAMS, "uint64 random streams (simcore.rng)")
OBS = G.field("obs", N_OBS, "float32 observation")
OPTS = G.field("opts", MO * N_FEATURES, "float32 option features [MO, N_FEATURES]")
LOG0 = G.end                                 # then [LOG_CAP, 4] decisions (seat, kind, n, c)
STATE0 = RIZE

# ---- the forward model (``forward.py``), after the log (from ``fm_base``): every seat has the
# policy id FM_SEAT, so every decision goes to ``fm_decide``, which takes the first FM_STOP
# choices from the log, applies the FM_N_MARKS determinizations (decision, seat, seed: int64 at
# FM_MARKS) at their decisions, and halts at the next decision: FM_HALTED, the seat, kind and
# number of options at FM_PEND, a copy of G[STATE0:LOG0] at FM_STATE, every seat's observation
# at FM_OBS and the option rows at FM_ROWS (float32)
FM_SEAT = -1 - MAX_PLAYERS    # (no seat plays a user policy there: UF[0] is fm_decide's address)
FM_STOP, FM_HALTED, FM_PEND, FM_N_MARKS = 0, 1, 2, 5
FM_SEARCH, FM_REGION, FM_PLAYOUTS = 6, 7, 8  # a search's region (int64 at G[FM_SEARCH], of
#                                              FM_REGION words; 0: none), each seat's playout
FM_MARKS = FM_PLAYOUTS + P + (LOG0 + FM_PLAYOUTS + P) % 2   # (8-byte alignment)
FM_STATE = FM_MARKS + 2 * 3 * MAX_MARKS
FM_OBS = FM_STATE + LOG0 - STATE0
FM_ROWS = FM_OBS + P * N_OBS
FM_LEN = FM_ROWS + MO * N_FEATURES


# Every kernel has an explicit signature: compiled (or loaded from the cache) once at import,
# with one set of argument types, so nothing compiles twice.
G_PTR = types.CPointer(types.int32)     # G, by pointer: one argument, no index wraparound
I64 = types.int64
VOID = types.void
_OPT = dict(cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)


def helper(fn):
    """A small helper numba inlines into its callers (at IR level: callers are kept small)."""
    return njit(inline="always")(fn)


def on_g(ret, *args):
    """A kernel over (G, *args)."""
    return njit(ret(G_PTR, *args), **_OPT)


# ---------------------------------------------------------------- views of G

def _typed_at(dtype):
    ptr = types.CPointer(dtype)

    @intrinsic
    def at(typingctx, g, off):
        def codegen(context, builder, sig, args):
            q = builder.gep(args[0], [args[1]])
            return builder.bitcast(q, context.get_value_type(ptr))
        return ptr(g, off), codegen
    return at


u64_at = _typed_at(types.uint64)
i64_at = _typed_at(types.int64)
i8_at = _typed_at(types.int8)
f32_at = _typed_at(types.float32)
f64_at = _typed_at(types.float64)


@helper
def streams(G):
    """The random streams (chance, then one per seat) in G."""
    return u64_at(G, XS)


# ---------------------------------------------------------------- kernels called by address

FM_SIG = I64(G_PTR, I64, I64, I64)
fm_at = function_at(types.FunctionType(FM_SIG))
SEARCH_SIG = I64(G_PTR, I64, I64)
search_at = function_at(types.FunctionType(SEARCH_SIG))
"""``search_seat`` by address (a search replays games through ``play_game``, which decides)."""
GAME_SIG = VOID(G_PTR, types.uint64, I64)
game_at = function_at(types.FunctionType(GAME_SIG))


# ---------------------------------------------------------------- counts kept up to date

@helper
def nth_held(G, s, sel, r):
    """The r-th (from 0, in tile order; r < their count) tile seat s holds of selector sel
    (TREASURE, ITEM or SEL_ITEM0 + item): the hand and the kind are bit sets, so this is a
    few bit operations instead of a scan of every tile."""
    held = u64_at(G, HELD + 4 * s)
    kind = u64_at(G, KIND_SET + 4 * sel)
    w = held[0] & kind[0]
    base = 0
    c = np.int64(popcount(w))
    if r >= c:
        w = held[1] & kind[1]
        base = 64
        r -= c
    return base + nth_set_bit(w, r)


@helper
def held_bit(G, s, t):
    """The word of seat s's hand bit set that holds tile t, and t's bit in it."""
    return u64_at(G, HELD + 4 * s + 2 * (t >> 6)), np.uint64(1) << np.uint64(t & 63)


@helper
def hand_add(G, s, t):
    """Tile t goes into seat s's hand (the held counts follow)."""
    word, bit = held_bit(G, s, t)
    word[0] |= bit
    if G[TK + t] == TREASURE:
        G[HTRE + s] += 1
        G[HBROWN + s] += G[TBR + t]
        G[HWHITE + s] += G[TWH + t]
        G[HCHEST + s] += G[TCH + t]
    elif G[TK + t] == ITEM:
        G[HNI + s] += 1
        G[HITEM + s * N_ITEMS + G[TSUB + t]] += 1


@helper
def hand_remove(G, s, t):
    """Tile t leaves seat s's hand (for a house, Rize's bag or the discard)."""
    word, bit = held_bit(G, s, t)
    word[0] &= ~bit
    if G[TK + t] == TREASURE:
        G[HTRE + s] -= 1
        G[HBROWN + s] -= G[TBR + t]
        G[HWHITE + s] -= G[TWH + t]
        G[HCHEST + s] -= G[TCH + t]
    elif G[TK + t] == ITEM:
        G[HNI + s] -= 1
        G[HITEM + s * N_ITEMS + G[TSUB + t]] -= 1


@helper
def n_unseen_in(G, s, d):
    """Face-down tiles in d seat s has not looked at (without branches: an empty house reads
    the slot before seat s's SEEN row, and the result is masked)."""
    n = 0
    seen = SEEN + s * MAXN
    h0 = d * G[R_H]
    for h in range(h0, h0 + G[R_H]):
        t = G[BOARD + h]
        n += (t != EMPTY) & (G[FACE_UP + h] == 0) & (G[seen + t] == 0)
    return n


@helper
def any_unseen(G, s):
    seen = SEEN + s * MAXN
    for h in range(G[R_N]):
        t = G[BOARD + h]
        if t != EMPTY and G[FACE_UP + h] == 0 and G[seen + t] == 0:
            return True
    return False


@helper
def others_in(G, d, s):
    """Pawns in district d other than seat s's."""
    return G[NPD + d] - (G[POS + s] == d)
