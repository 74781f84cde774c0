"""Playing games: ``play_game`` (setup, then turns and Rize's steps until the dawn or the turn
cap, then the score), ``play_games`` (the ``nogil`` batch kernel over the games a thread claims)
and ``play_batch`` (a batch spread over threads, ``simcore.parallel.spread``).

Each thread gets its own ``G`` and runs ``play_games`` (compiled ``nogil``) over the units of
games it claims, and every game seeds its own streams, so a game never depends on its thread or
unit. ``play_games`` calls ``play_game`` by address: the engine is not linked into (and
optimised again with) the batch kernel.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from simcore import search as SR
from simcore.parallel import claim, spread, unit_of
from simcore.policy import first_class
from simcore.results import rank_and_share
from simcore.rng import NO_REDRAW

from .. import stats as S
from ..policies import data_ptr
from ..rules import Rules
from .tables import CFG_NP, LOG_LEN, RESUME, RULES_LEN, R_MAX_TURNS, SNAP_AT, SNAP_CUR, rule_vector
from .state import (CHARS, CHIYA_HOLD, DISGUISED, ERR, ERR_CHOICE, ERR_KIND, ERR_N, ERR_SEAT,
                    FM_SIG, GAME_SIG, GAME_ST, I64, LED, LOG0, NP, OVER, PRIM, RANKS, SEARCH_SIG,
                    SEAT_ST, SECD, SKIP, STALLED, TURNS, VOID, i64_at)
from .forward import fm_decide, snapshot
from .rize import dawn_check, rize_moves
from .turns import end_round, play_turn
from .setup import setup
from .scoring import score
from .search import search_seat


@njit(GAME_SIG, cache=True, _nrt=False, no_cpython_wrapper=True)  # C wrapper: called by address
def play_game(G, key, game):
    """Set up and play one game in G (results in SEAT_ST, GAME_ST, PRIM and SECD), or with
    RESUME play it on from the snapshot a search keeps (``snapshot``)."""
    if G[RESUME]:
        cur = G[SNAP_CUR]
    else:
        setup(G, key, game)
        cur = 0
    n_players = G[NP]
    while G[OVER] == 0:
        if G[SNAP_AT]:
            snapshot(G, cur)
        if G[TURNS] >= G[R_MAX_TURNS]:
            G[STALLED] = 1
            break
        G[TURNS] += 1
        G[CHIYA_HOLD] = 0
        G[DISGUISED + cur] = 0                                 # hidden until the own turn
        if G[SKIP + cur] > 0:
            G[SKIP + cur] -= 1
        else:
            play_turn(G, cur)
        if G[OVER]:
            break
        if G[CHIYA_HOLD] == 0:
            rize_moves(G)
            if G[OVER]:
                break
        dawn_check(G)
        cur += 1
        if cur == n_players:
            cur = 0
            end_round(G)
    if G[GAME_ST + S.G_ROUNDS] * n_players < G[TURNS]:         # ended within a round
        end_round(G)
    score(G)


@njit(VOID(types.int32[::1], types.uint64, I64, types.int64[::1], types.FunctionType(GAME_SIG),
         types.int16[:, :, ::1], types.float32[:, ::1], types.int32[:, ::1], types.int8[:, ::1],
         types.int64[:, ::1], types.int64[:, ::1], types.int16[:, :, ::1]),
      cache=True, nogil=True)
def play_games(Ga, key, start, counter, game_fn, seat, win, game, chars, led, err, log):
    """Play games start + g into rows g of the result arrays (stats.new_arrays: seat, win,
    game, chars, led), for the units of rows this thread ``claim``s with ``counter``;
    err[g] = (1, seat, kind, choice, n_opts) for a game a policy's illegal answer ended;
    log [G, L, 4] the decision logs (L = 0: none).
    ``game_fn``: ``play_game`` as a first-class function (``simcore.policy.first_class``):
    called through a pointer, the engine is not linked into (and optimised again with) this
    kernel."""
    G = data_ptr(Ga)
    n_players = G[CFG_NP]
    while True:
        lo, hi = claim(counter, win.shape[0])
        if lo == hi:
            return
        for g in range(lo, hi):
            game_fn(G, key, start + g)
            rank_and_share(Ga[PRIM:PRIM + n_players], Ga[SECD:SECD + n_players], n_players,
                           Ga[RANKS:RANKS + n_players], win[g])
            for s in range(n_players):
                G[SEAT_ST + s * S.N_SEAT + S.S_RANK] = G[RANKS + s]
                chars[g, s] = G[CHARS + s]
                led[g, s] = i64_at(G, LED)[s]
                for i in range(S.N_SEAT):
                    seat[i, g, s] = G[SEAT_ST + s * S.N_SEAT + i]
            for i in range(game.shape[0]):
                game[i, g] = G[GAME_ST + i]
            err[g, 0], err[g, 1], err[g, 2] = G[ERR], G[ERR_SEAT], G[ERR_KIND]
            err[g, 3], err[g, 4] = G[ERR_CHOICE], G[ERR_N]
            for k in range(min(G[GAME_ST + S.G_DECISIONS], log.shape[1])):
                for j in range(4):
                    log[g, k, j] = G[LOG0 + 4 * k + j]


def play_batch(rules: Rules, ids, user, key, start, n_players, fixed, seat, win, game, chars,
               led, err, log, weights=None, agents=None, distilled=None,
               redraw=NO_REDRAW, restrictions=None) -> None:
    """Play games start .. start + len(win) - 1 (arrays as ``play_games``) on
    ``numba.get_num_threads()`` threads (``simcore.parallel.spread``); ``weights``,
    ``distilled``, ``redraw`` and ``restrictions`` as ``rule_vector``'s; ``agents``: the
    search seats' words (``rule_vector``; a game with a search seat keeps its log)."""
    game_fn = first_class(play_game, GAME_SIG)
    searching = bool((np.asarray(ids) == SR.SEARCH_ID).any())
    cap = LOG_LEN if searching else log.shape[1]
    addresses = (first_class(search_seat, SEARCH_SIG).address, game_fn.address,
                 first_class(fm_decide, FM_SIG).address) if searching else (0, 0, 0)
    head = rule_vector(rules, n_players, ids, user, fixed, cap, weights, agents, addresses,
                       distilled, redraw, restrictions)
    key = np.uint64(key)

    def play_units(counter):
        g = np.zeros(LOG0 + 4 * cap, np.int32)
        g[:RULES_LEN] = head
        play_games(g, key, start, counter, game_fn, seat, win, game, chars, led, err, log)

    spread(play_units, win.shape[0], unit_of(searching))
