"""Playing games: ``play_game`` (setup, the rounds, end scoring, a game's row of the outputs),
``play_games`` (a thread's units of games) and ``play_batch`` (a batch over all threads)."""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore import search as SR
from simcore.parallel import claim, spread, unit_of
from simcore.policy import first_class
from simcore.results import rank_and_share

from .. import policies as P
from ..rules import P_EVENTS_USED, P_ROUNDS, P_START_LEAD, P_START_SCORE
from .events import round_end_event
from .forward import snapshot
from .rounds import mark_leaders, reveal_enchanted_roles, select_roles
from .scoring import add_points, lightning_points, resource_set_points, total_resources
from .search import search_seat
from .setup import init_state, new_state, setup
from .state import (GAME_SIG, G_DECISIONS, G_ERROR, G_ERR_CHOICE, G_ERR_KIND, G_ERR_N, G_ERR_SEAT,
                    G_EVENT, G_HALTED, G_LAST_BRAVE, G_LAST_ROUND, G_LEADER, G_LOGGED,
                    G_LOG_AT, G_NP, G_PLAYED,
                    G_RESUME, G_RESUME_TURNS, G_ROUND, G_SEAT, G_START, G_TURN, LOG_CAP,
                    MAX_PLAYERS, N_SEAT, RMAP_LEN, RW, SEARCH_SEAT_SIG, S_BOLTS, S_BRAVE_DONE,
                    S_CANCELLED,
                    S_CHARMED, S_DELIV, S_FLOOR, S_GREEN, S_LED, S_LIGHTNING, S_NHAND, S_ORANGE,
                    S_PAWN_A, S_PAWN_B, S_PLAYED, S_PURPLE, S_RESTRICT, S_SCORE, S_SETS,
                    S_TOWERS, S_WANDS, S_WEIGHTS, sc)
from .tables import T_DECKS, T_MAXO, T_N_REC, T_N_TILES, T_REC
from .turns import play_turn


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
        seat_out[13, i, p] = total_resources(s.g, p)
        seat_out[14, i, p] = s.g[sc(p, S_PAWN_A)]
        seat_out[15, i, p] = s.g[sc(p, S_PAWN_B)]
        seat_out[16, i, p] = s.g[sc(p, S_LED)]
        primary[p] = s.g[sc(p, S_SCORE)]
        secondary[p] = total_resources(s.g, p)
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
               log, weights=None, agents=None, restrictions=None) -> None:
    """Play games start .. start + len(win) - 1 (arrays as ``play_games``) on
    ``numba.get_num_threads()`` threads (``simcore.parallel.spread``). ``pol``: [P] int64 the
    seats' policy ids; ``user_policies``: [MAX_PLAYERS] int64 the addresses of the user
    policies' compiled code (``policy_at``), padded with a placeholder's; ``weights``: [P, 4]
    float64 the seats' heuristic weights (``seat_weights``; None: the built-ins');
    ``agents``: the search seats' words (``init_state``; a game with a search seat keeps its
    log); ``restrictions``: [P, RW] int64 the restricted seats' words (``pol`` holds
    ``simcore.restrict.RESTRICTED_ID`` there; None: no seat is restricted)."""
    if restrictions is not None and t[T_MAXO] > RMAP_LEN:
        raise ValueError(f"bloomsim: a restricted seat's decisions may have up to "
                         f"{RMAP_LEN} options, these rules allow {t[T_MAXO]}")
    game_fn = first_class(play_game, GAME_SIG)
    if weights is None:
        weights = [P.WEIGHTS.row(list(P.BUILTIN_IDS)[i] if i >= 0 else None) for i in pol]
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
            if restrictions is not None:
                at = G_SEAT + N_SEAT * p + S_RESTRICT
                s.g[at:at + RW] = restrictions[p]
        keys = np.zeros((2, len(pol)), np.int64)
        play_games(t, s, key, start, counter, game_fn, keys[0], keys[1], seat_out, rank, win,
                   game_out, errors, log)

    spread(play_units, win.shape[0], unit_of(searching))
