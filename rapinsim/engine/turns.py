"""Turns (rules section 3): a seat's action options (``action_options``, or the random policy's
one chosen action, ``random_action``, counted by the same rules), its turn (``play_turn``) and
the end of a round (``end_round``: who leads).
"""
from __future__ import annotations

import numpy as np

from simcore.bits import nth_set_bit, popcount
from simcore.results import LEAD_ROUNDS
from simcore.rng import randint

from .. import stats as S
from ..policies import ACTION, O_ITEM, O_PASS, O_SEARCH, O_SKILL, O_STEP, RANDOM
from ..rules import EMPTY, N_CHANCE
from .tables import N_ITEMS, PID, R_ACTIONS, R_H, R_HD
from .state import (ACTING, ACTIONS_LEFT, BOARD, CH_ARG, CH_WHAT, GAME_ST, HTRE, LED, LETTER, NP,
                    NT, OVER, PENDING, POS, SEARCHED, TURN_END, helper, i64_at, streams)
from .decisions import decide_policy, option, record
from .board import can_search, n_steps, nth_step, step_options
from .tiles import count_search, notice_letter_take, step, take_tile
from .items import items_offered, use_item
from .skills import skill_offered, use_skill


@helper
def search_legal(G, searchable, h):
    """Whether SEARCH of house h (in the pawn's district) is an option."""
    return searchable & (G[BOARD + h] != EMPTY)


@helper
def action_options(G, s):
    """The action options in the reference's order: PASS, the legal steps (ascending), SEARCH
    of each tile house, the offered items (kind order), the skill; their count."""
    d = G[POS + s]
    option(G, 0, O_PASS, d)
    m = step_options(G, s, 1)
    steps = m - 1
    searchable = can_search(G, s)
    h0 = d * G[R_H]
    for h in range(h0, h0 + G[R_H]):                 # written always, counted if legal
        option(G, m, O_SEARCH, h)
        m += search_legal(G, searchable, h)
    offered = items_offered(G, s, searchable, steps)
    if offered:
        for i in range(N_ITEMS):
            option(G, m, O_ITEM, i)
            m += (offered >> i) & 1
    if skill_offered(G, s, searchable, steps):
        option(G, m, O_SKILL, d)
        m += 1
    return m


@helper
def random_action(G, s):
    """The random policy's action (what, arg) without listing the options: each category of
    ``action_options`` counted by the same rules, the choice drawn as ``decide`` draws it (the
    same stream, the same count, so the same index) and only the chosen option produced."""
    d = G[POS + s]
    steps = n_steps(G, s)
    searchable = can_search(G, s)
    searches = searchable * G[NT + d]                # the tile houses of d (NT counts them)
    offered = items_offered(G, s, searchable, steps)
    items = np.int64(popcount(np.uint64(offered)))
    skill = skill_offered(G, s, searchable, steps)
    n = 1 + steps + searches + items + skill
    c = randint(streams(G), N_CHANCE + s, n)
    record(G, s, ACTION, n, c)
    r = c - 1
    if r < 0:
        return O_PASS, d
    if r < steps:
        return O_STEP, nth_step(G, s, r)
    r -= steps
    if r < searches:                                 # the r-th tile house, no branch
        hit = 0
        h0 = d * G[R_H]
        for h in range(h0, h0 + G[R_H]):
            legal = search_legal(G, searchable, h)
            hit |= h & -np.int64(legal & (r == 0))
            r -= legal
        return O_SEARCH, hit
    r -= searches
    if r < items:
        return O_ITEM, nth_set_bit(offered, r)
    return O_SKILL, d


@helper
def play_turn(G, s):
    """Seat s's turn (inlined into ``play_game``, its one caller: no call per turn)."""
    G[ACTING], G[TURN_END], G[SEARCHED] = s, 0, 0
    G[ACTIONS_LEFT] = G[R_ACTIONS]
    if G[PENDING + s]:
        G[PENDING + s] = 0
        if G[POS + s] == G[LETTER + s]:
            notice_letter_take(G, s)
    while G[ACTIONS_LEFT] > 0 and G[TURN_END] == 0 and G[OVER] == 0:
        if G[PID + s] == RANDOM:
            what, arg = random_action(G, s)
        else:
            c = decide_policy(G, s, ACTION, action_options(G, s))
            what, arg = G[CH_WHAT + c], G[CH_ARG + c]
        G[ACTIONS_LEFT] -= 1
        if what == O_PASS:
            G[TURN_END] = 1
        elif what == O_STEP:
            step(G, s, arg)
        elif what == O_SEARCH:
            count_search(G, s, G[R_HD + arg])
            take_tile(G, s, arg)
            G[TURN_END] = 1
        elif what == O_ITEM:
            use_item(G, s, arg)
        else:
            use_skill(G, s)
    G[ACTING] = -1


@helper
def end_round(G):
    """A round ends when every seat has had its turn, or with the game: the seats holding the
    most treasure tiles lead (``simcore.results.mark_leaders``; branch-free: who leads is
    hard to predict)."""
    rnd = G[GAME_ST + S.G_ROUNDS] + 1
    G[GAME_ST + S.G_ROUNDS] = rnd
    if rnd <= LEAD_ROUNDS:
        n = G[NP]
        top = G[HTRE]
        for s in range(1, n):
            top = max(top, G[HTRE + s])
        led = i64_at(G, LED)
        k = np.int64(rnd - 1)
        for s in range(n):
            led[s] |= np.int64(G[HTRE + s] == top) << k
