"""The search driver (``simcore.search``): ``search`` replays a position in a scratch
forward-model state once per iteration; ``search_seat`` is a search seat's decision in a batch
game (reached by address from ``decisions.ask``)."""
from __future__ import annotations

import numpy as np
from numba import njit, types

from simcore import search as SR

from .. import policies as P
from ..rules import N_CHANCE, P_N_ROLES
from .setup import init_state
from .state import (FM_SEAT, G_AGENTS, G_FM_STOP, G_GAME, G_GAME_FN, G_HALTED, G_HORIZON,
                    G_KEY, G_LOGGED,
                    G_LOG_AT, G_LOG_CAP, G_MARKS, G_NP, G_N_MARKS, G_PLAYOUTS, G_RESUME, G_SEARCH,
                    G_SNAP, I8, LOG_CAP, MAX_PLAYERS, OBS_LEN, SEARCH_SEAT_SIG, S_POLICY,
                    S_WEIGHTS, State, TT, game_at, sc, streams)
from .tables import T_LOG, T_MAXO, T_N_REC


@njit(types.int64(TT, types.uint64, I8, I8, types.int64[::1], types.int64[:, ::1], I8,
                  types.int64[::1], I8, I8, types.float64[:, ::1]), cache=True, nogil=True)
def search(t, key, game, n_players, choices, marks, seat, agent, seed, game_fn, sums):
    """The option a search agent (``agent``: ``simcore.search.Agent.params``) takes at the
    position of game ``game`` after ``choices`` and the determinizations ``marks`` [m, 3], where
    ``seat`` is to act; its randomness from ``seed``. Each iteration replays the position in a
    scratch forward-model state (``play_game`` at address ``game_fn``), determinized for the
    seat at its decision; ``fm_decide`` hands the tree's decisions to ``simcore.search.step``.
    The loop is ``simcore.search``'s. ``sums`` [options, P]: where it has rows, a flat search
    adds each option's win shares to its row, the options sharing each determinization
    (``simcore.search.share_worlds``). -1 when a replay diverges (a bug: the caller reports
    it as an illegal choice)."""
    maxo = t[T_MAXO]
    keep = t[T_LOG] + maxo * P.N_FEATURES
    base = t[T_LOG] + 4 * LOG_CAP + keep
    snap = base + SR.region_words(agent, maxo)
    s = State(np.zeros(snap + t[T_LOG], np.int64),
              np.zeros(OBS_LEN * (1 + MAX_PLAYERS), np.float32),
              np.zeros((maxo + t[P_N_ROLES], P.N_FEATURES), np.float32))
    init_state(t, s, n_players, np.full(n_players, FM_SEAT, np.int64),
               np.zeros(MAX_PLAYERS, np.int64), LOG_CAP, np.zeros(0, np.int64), 0, game_fn)
    g = s.g
    for p in range(n_players):      # each seat plays out with its playout and its weights
        g[G_PLAYOUTS + p] = SR.seat_playout(agent, p, seat)
        for w in range(4):
            g[sc(p, S_WEIGHTS) + w] = SR.seat_weight(agent, p, w, seat)
    k = choices.shape[0]
    for j in range(k):
        g[g[G_LOG_AT] + 4 * j + 3] = choices[j]
    m = marks.shape[0]
    for j in range(m):
        for w in range(3):
            g[G_MARKS + 3 * j + w] = marks[j, w]
    g[G_MARKS + 3 * m] = k
    g[G_MARKS + 3 * m + 1] = SR.observer(agent, seat)
    g[G_N_MARKS] = m + 1
    g[G_FM_STOP] = k
    g[G_SEARCH] = base
    g[G_HORIZON] = agent[SR.A_HORIZON]
    g[G_SNAP] = snap
    SR.begin(g, base, agent, maxo, seed)
    SR.share_worlds(g, base, sums.shape[0])
    play = game_at(game_fn)
    seat_out = np.zeros((17, 1, n_players), np.int16)
    rank, win = np.zeros((1, n_players), np.int8), np.zeros((1, n_players), np.float32)
    game_out = np.zeros((1 + t[T_N_REC], 1), np.int32)
    errors = np.zeros((1, 6), np.int64)
    keys = np.zeros((2, n_players), np.int64)
    log = np.zeros((1, 0, 4), np.int16)
    while SR.next_iteration(g, base):
        if g[G_RESUME]:     # from the start of the decision's turn (play_game)
            for j in range(t[T_LOG]):
                g[j] = g[snap + j]
        g[G_MARKS + 3 * m + 2] = SR.determinization_seed(g, base)
        g[G_HALTED] = 0
        for p in range(n_players):
            g[sc(p, S_POLICY)] = FM_SEAT
        play(t, s, key, game, log, 0, keys[0], keys[1], seat_out, rank, win, game_out, errors)
        if errors[0, 0] or g[G_HALTED]:
            return -1
        SR.credit_option(g, base, win[0], sums)
        SR.end_iteration(g, base, win[0], keys[0], n_players)
    return SR.decision(g, base)


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
    seed = SR.decision_seed(streams(g), N_CHANCE + seat)
    agent = g[G_AGENTS + SR.AGENT_WORDS * seat:G_AGENTS + SR.AGENT_WORDS * (seat + 1)].copy()
    for p in range(g[G_NP]):
        if p != seat:
            SR.model_seat(agent, p, g[sc(p, S_POLICY)],
                          g.view(np.float64)[sc(p, S_WEIGHTS):sc(p, S_WEIGHTS) + 4])
    return search(t, g[G_KEY:G_KEY + 1].view(np.uint64)[0], g[G_GAME], g[G_NP], choices,
                  np.zeros((0, 3), np.int64), seat, agent, seed, g[G_GAME_FN],
                  np.zeros((0, 0), np.float64))
