"""The declared state layout: a game's position and scratch in ``State`` (all integers in one
int64 array ``g``, read through the ``G_*`` and a seat's ``S_*`` offsets of ``simcore.layout``
declarations), ``sc`` (where a seat's column is), and the numba types of the kernels'
signatures."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, typeof, types

from simcore import search as SR
from simcore.forward import MAX_MARKS
from simcore.layout import Layout
from simcore.policy import function_at
from simcore.restrict import RW

from .. import policies as P
from ..rules import N_CHANCE

MAX_PLAYERS = 6
LOG_CAP = 4096        # decisions a kept log holds (a search seat's game keeps one)
OBS_LEN = P.obs_len(MAX_PLAYERS)

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
G_BIDDING = G.field("bidding", meaning="The Upper Hand's secret bids are being made")
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
G_DIST_U = G.field("dist_u", 32, "the distilled policy's option weights in the seat's context "
                                 "(float64 bits, distilled_pick)")
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
G_PLAYOUTS = G.field("playouts", MAX_PLAYERS, "the policy id each seat plays out with")
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
RMAP_LEN = 256
G_RMAP = G.field("restrict_map", RMAP_LEN, "the option rows a restricted seat's probe kept "
                                           "(decisions.restricted)")
G_ST = G.field("streams", N_CHANCE + MAX_PLAYERS, "random streams (uint64 bits): the chance "
                                                  "sources (rules.CHANCE), then the seats")
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
S_RESTRICT = SEAT.field("restriction", RW, "a restricted seat's words (simcore.restrict: its "
                                           "base policy and probe; decisions.restricted)")
N_SEAT = SEAT.size
G_SEAT = G.field("seats", N_SEAT * MAX_PLAYERS, "each seat's columns (SEAT)")
G_OAB = G.field("option_slots", 0, "what option i means: 2 words each, up to T_MAXO")


class State(NamedTuple):
    """One game's position and scratch. P players, A areas, K towers, R roles, E events,
    C cloud spaces, N cloud tiles."""

    g: np.ndarray      # int64, everything integer (one array keeps calls cheap):
    #   [0, N_G) game scalars (G_*); from G_ST the game's streams (uint64 bits): sources, then
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


@njit((I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def sc(p, c):
    """Where seat p's column c (S_*) is in State.g."""
    return G_SEAT + N_SEAT * p + c


GAME_SIG = types.int64(TT, ST, types.uint64, I8, LOG, I8, types.int64[::1], types.int64[::1],
                       types.int16[:, :, ::1], types.int8[:, ::1], types.float32[:, ::1],
                       types.int32[:, ::1], types.int64[:, ::1])
game_at = function_at(types.FunctionType(GAME_SIG))


@njit(cache=True, inline="always")
def streams(g):
    """The game's random streams: one per chance source (``rules.CHANCE``), then one per
    seat (``G_ST + N_CHANCE + seat``)."""
    return g[G_ST:G_ST + N_CHANCE + g[G_NP]].view(np.uint64)
