"""The rules as the kernels read them: the head of ``G`` (``rule_vector``), the same for every
game of a batch, then the batch's settings (players, policies, search agents, weights).

The layout ``G`` starts here (the state follows in ``state.py``); every table is laid out for
the largest board the rules allow (``MAXD`` districts, ``MAXN`` houses), so its offsets are
module constants numba freezes into the kernels.
"""
from __future__ import annotations

import numpy as np

from simcore import restrict as RS
from simcore import search as SR
from simcore.layout import Layout
from simcore.rng import NO_REDRAW

from ..distilled import FEATURES
from ..distilled import distilled as bundled_distilled
from ..policies import DEFAULT_W, MAX_OPTS
from ..rules import ITEMS, MAX_DISTRICTS, MAX_HOUSES, MAX_PLAYERS, N_CHANCE, Rules

N_ITEMS = len(ITEMS)
N_STREAMS = N_CHANCE + MAX_PLAYERS     # the chance sources (rules.CHANCE), then the seats
MAXD = MAX_DISTRICTS
LOG_LEN = 8192      # decisions a kept log holds (a search seat's game keeps one)
MAXN = MAX_HOUSES
P = MAX_PLAYERS
MO = MAX_OPTS

G = Layout("G")    # one game's int32 array: the rules, the batch settings, the state, the log


def scalars(*names: str) -> tuple[int, ...]:
    """Declare one slot per name (the constant is the upper-case name)."""
    return tuple(G.field(n) for n in names)


def arrays(size: int, *names: str) -> tuple[int, ...]:
    """Declare ``size`` slots per name."""
    return tuple(G.field(n, size) for n in names)


# ---- the rules (``rule_vector``)
(R_D, R_H, R_N, R_ACTIONS, R_DIE, R_DAWN_EMPTIES, R_MAX_TURNS, R_WHITE_PAIR, R_PERM,
 R_COFFEE_END, R_INABA_WIN, R_BIKE, R_COCOA, R_NROSTER,
 R_FINDS, R_DEG, R_CHOICE, R_DISGUISE_ACTION, R_WHISTLE, R_CHEST_OTHERS, R_FOUND_ENDS,
 R_PIT_SKIPS) = scalars(
    "r_d", "r_h", "r_n", "r_actions", "r_die", "r_dawn_empties", "r_max_turns", "r_white_pair",
    "r_perm", "r_coffee_end", "r_inaba_win", "r_bike", "r_cocoa", "r_nroster", "r_finds",
    "r_deg", "r_choice", "r_disguise_action", "r_whistle", "r_chest_others", "r_found_ends",
    "r_pit_skips")
G.field("spare", 2)
R_NEXT = G.field("r_next", MAXD, "district Rize enters after d")
R_PREV = G.field("r_prev", MAXD, "the district before d on Rize's route")
R_STEPS = G.field("r_steps", MAXD * MAXD, "[r * MAXD + d] Rize's steps from r until he enters d")
R_ADJ = G.field("r_adj", MAXD * MAXD, "[a * MAXD + b] players may step between a and b")
R_NSTEPS = G.field("r_nsteps", MAXD * MAXD,
                   "[r * MAXD + a] the number of legal steps from a while Rize is in r")
R_STEP_TO = G.field("r_step_to", MAXD * MAXD * (MAXD - 1) // 4,
                    "int8 [(r * MAXD + a) * R_DEG + k] the k-th of those steps (ascending), "
                    "then -1 up to R_DEG, the most neighbours a district has")
R_START = G.field("r_start", 24, "Rize's start district per die face - 1")
R_HD = G.field("r_hd", MAXN, "district of house h")
R_KIND = G.field("r_kind", 2 * MAXN, "[set * MAXN + t] tile kind, set 1 with Inaba's chest")
R_SUB = G.field("r_sub", 2 * MAXN, "item or trap id")
R_BROWN = G.field("r_brown", 2 * MAXN)
R_WHITE = G.field("r_white", 2 * MAXN, "1 for a white-rabbit tile")
R_CHEST = G.field("r_chest", 2 * MAXN)
R_ROSTER = G.field("r_roster", 8, "character ids players choose (or draw) from")
# batch settings, written with the rules
CFG_NP = G.field("players")
LOG_CAP = G.field("log_cap", meaning="decisions the log keeps (0: no log)")
PID = G.field("pid", P, "policy id per seat (built-in >= 0, user -1 - i)")
FIXED = G.field("fixed", P, "fixed characters, -1: chosen or drawn")
G.align(2)
UF = G.field("uf", 2 * P, "int64 [i] user policy i's compiled code (address, policy_at)")
# search agents (``simcore.search``): a search seat's policy id is SR.SEARCH_ID; its decisions
# go to ``search_seat`` (by address), which replays the game in a scratch forward-model G from
# the start of the decision's turn (SNAP_AT: ``snapshot``)
KEY = G.field("key", 2, "uint64 the batch's root key (setup)")
REDRAW = G.field("redraw", 4, "uint64 the streams the batch draws anew (bit mask, simcore.rng; "
                              "0: none), then their key (setup)")
AGENTS = G.field("agents", 2 * SR.AGENT_WORDS * P, "int64 each seat's search agent (A_*)")
ADDR = G.field("addresses", 6, "int64 compiled code: search_seat, play_game, fm_decide")
SNAP_AT = G.field("snap_at", meaning="where a search keeps the state at the start of the turn "
                                     "of its decision (0: none)")
SNAP_TURN = G.field("snap_turn", meaning="TURNS at that snapshot (-1: none)")
SNAP_CUR = G.field("snap_cur", meaning="the seat whose turn starts there")
RESUME = G.field("resume", meaning="1: play_game starts from the snapshot, not setup")
NW = len(DEFAULT_W)
W = G.field("weights", 2 * NW * P, "float64 [s * NW + k] seat s's heuristic weights "
                                   "(policies.WEIGHTS; decide_policy)")
DIST_SHAPE = FEATURES.shape
DIST_WORDS = int(np.prod(DIST_SHAPE))
DW = G.field("distilled", 2 * DIST_WORDS, "float64 the distilled policy's weights [kinds, "
                                          "options, contexts] (decisions.distilled_pick)")
DU = G.field("distilled_u", 2 * DIST_SHAPE[1], "float64 scratch: its option weights in the "
                                              "seat's context")
G.align(2)
RESTRICT = G.field("restrict", 2 * RS.RW * P, "int64 [s * RW + k] seat s's restriction words "
                                             "(simcore.restrict; decisions.decide_policy)")
RMAP = G.field("restrict_map", 2 * MO, "int64 the option rows a restricted seat's probe kept")
RULES_LEN = G.end


def rule_vector(rules: Rules, n_players: int, ids: np.ndarray, user: np.ndarray,
                fixed: np.ndarray, log_cap: int, weights=None, agents: np.ndarray | None = None,
                addresses: tuple[int, int, int] = (0, 0, 0), distilled=None,
                redraw: tuple[int, int] = NO_REDRAW, restrictions=None) -> np.ndarray:
    """G's first ``RULES_LEN`` slots: the rules and the batch settings; ``weights``: [P, NW]
    the seats' heuristic weights (None: the built-ins'); ``agents``: the search seats' words,
    ``addresses``: search_seat, play_game and fm_decide when a seat searches; ``distilled``:
    the distilled policy's weights (``simcore.distill.Distilled.flat``; None: the shipped
    ones), data passed in, so other weights never recompile a kernel; ``redraw``: the
    streams drawn anew (bit mask, key); ``restrictions``: [P, RW] the restricted seats' words
    (``ids`` holds ``simcore.restrict.RESTRICTED_ID`` there; None: none is)."""
    ra = rules.arrays()
    v = np.zeros(RULES_LEN, np.int32)
    d, h = ra.n_districts, ra.n_houses
    scal = {R_D: d, R_H: h, R_N: d * h, R_ACTIONS: ra.actions, R_DIE: ra.die_sides,
            R_DAWN_EMPTIES: ra.dawn_empties, R_MAX_TURNS: ra.max_turns,
            R_WHITE_PAIR: ra.white_pair, R_PERM: ra.permanent_markers,
            R_COFFEE_END: ra.coffee_ends_turn, R_INABA_WIN: ra.inaba_count_win,
            R_CHOICE: ra.choose_characters, R_DISGUISE_ACTION: ra.disguise_action,
            R_WHISTLE: ra.whistle_steps, R_CHEST_OTHERS: ra.chest_for_others,
            R_FOUND_ENDS: ra.found_ends_turn, R_PIT_SKIPS: ra.pitfall_skips,
            R_FINDS: ra.rize_finds, R_BIKE: ra.bicycle_steps,
            R_COCOA: ra.cocoa_steps, R_NROSTER: len(ra.roster), CFG_NP: n_players,
            LOG_CAP: log_cap}
    for k, x in scal.items():
        v[k] = int(x)
    pos = ra.route_pos.astype(np.int64)
    for a in range(d):
        v[R_NEXT + a] = ra.route[(pos[a] + 1) % d]
        v[R_PREV + a] = ra.route[(pos[a] - 1) % d]
        for b in range(d):
            v[R_STEPS + a * MAXD + b] = (pos[b] - pos[a] + d) % d
            v[R_ADJ + a * MAXD + b] = ra.adj[a, b]
    deg = v[R_DEG] = ra.adj.sum(axis=1).max()
    step_to = v[R_STEP_TO:R_STEP_TO + MAXD * MAXD * (MAXD - 1) // 4].view(np.int8)
    for r in range(d):          # a step never enters Rize's district, nor (unless the rules
        nxt = -1 if ra.step_into_rize_next else v[R_NEXT + r]    # allow it) his next one
        for a in range(d):
            legal = [b for b in np.flatnonzero(ra.adj[a]) if b != r and b != nxt]
            v[R_NSTEPS + r * MAXD + a] = len(legal)
            at = (r * MAXD + a) * deg
            step_to[at:at + deg] = legal + [-1] * (deg - len(legal))
    v[R_START:R_START + ra.die_sides] = ra.rize_start
    v[R_HD:R_HD + d * h] = np.arange(d * h) // h
    n = d * h
    for base, tab in ((R_KIND, ra.tile_kind), (R_SUB, ra.tile_sub), (R_BROWN, ra.tile_brown),
                      (R_WHITE, ra.tile_white), (R_CHEST, ra.tile_chest)):
        for k in range(2):
            v[base + k * MAXN:base + k * MAXN + n] = tab[k]
    v[R_ROSTER:R_ROSTER + len(ra.roster)] = ra.roster
    v[PID:PID + n_players] = ids
    v[FIXED:FIXED + P] = fixed
    v[UF:UF + 2 * P].view(np.int64)[:] = user
    if agents is not None:
        v[AGENTS:AGENTS + 2 * SR.AGENT_WORDS * P].view(np.int64)[:] = agents
    v[ADDR:ADDR + 6].view(np.int64)[:] = addresses
    v[REDRAW:REDRAW + 4].view(np.uint64)[:] = redraw
    v[SNAP_TURN] = -1
    v[W:W + 2 * NW * n_players].view(np.float64)[:] = np.ravel(
        [DEFAULT_W] * n_players if weights is None else weights)
    if restrictions is not None:
        v[RESTRICT:RESTRICT + 2 * RS.RW * n_players].view(np.int64)[:] = np.ravel(restrictions)
    v[DW:DW + 2 * DIST_WORDS].view(np.float64)[:] = (
        bundled_distilled().flat() if distilled is None else distilled)
    return v
