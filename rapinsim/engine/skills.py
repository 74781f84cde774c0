"""Skills (rules section 8): whether a seat's character skill is offered (``skill_offered``)
and what it does (``use_skill``: Lapin's notice letter, Chimame, Aoyama's hypnotism, Inaba's
look, Cocoa, Chiya). The letter's tile is taken in ``tiles.py`` (a step triggers it).
"""
from __future__ import annotations

from simcore.rng import randint

from .. import stats as S
from ..policies import DISTRICT, HOUSE, O_DISTRICT, O_PLAYER, TARGET
from ..rules import AOYAMA, CH_HANDS, CHIMAME, COCOA, EMPTY, INABA, LAPIN, TREASURE
from .tables import MAXD, R_ADJ, R_COCOA, R_D, R_H, R_NEXT
from .state import (BOARD, CHARS, CHIYA_HOLD, CH_ARG, HTRE, I64, LETTER, NP, NT, POS, SEAT_ST,
                    SKILL_USED, TURNS, TURN_END, VOID, any_unseen, hand_remove, helper, n_unseen_in,
                    nth_held, on_g, streams)
from .decisions import ask, option
from .board import house_options, look, put_tile, update_time_marker
from .tiles import count_search, take_tile
from .items import walk


@helper
def aoyama_target(G, s, q):
    d = G[POS + s]
    e = G[POS + q]
    return q != s and (e == d or G[R_ADJ + d * MAXD + e] != 0) and G[HTRE + q] > 0


@helper
def skill_offered(G, s, searchable, steps):
    """Whether seat s's skill is offered as an action: unused and usable now."""
    if G[SKILL_USED + s]:
        return False
    c = G[CHARS + s]
    if c == CHIMAME:
        return searchable
    if c == AOYAMA:
        for q in range(G[NP]):
            if aoyama_target(G, s, q):
                return True
        return False
    if c == INABA:
        return any_unseen(G, s)
    if c == COCOA:
        return steps > 0
    return True


@on_g(VOID, I64)
def use_skill(G, s):
    G[SKILL_USED + s] = 1
    st = SEAT_ST + s * S.N_SEAT
    G[st + S.S_SKILL_USED] += 1
    G[st + S.S_SKILL_TURN] = G[TURNS]
    c = G[CHARS + s]
    pos = G[POS + s]
    if c == LAPIN:                                            # notice_letter
        m = 0
        for d in range(G[R_D]):
            if d != pos:
                option(G, m, O_DISTRICT, d)
                m += 1
        G[LETTER + s] = G[CH_ARG + ask(G, s, DISTRICT, m)]
    elif c == CHIMAME:
        look(G, s, pos)
        m = house_options(G, s, pos, True)
        if m == 0:
            m = house_options(G, s, pos, False)
        count_search(G, s, pos)
        take_tile(G, s, G[CH_ARG + ask(G, s, HOUSE, m)])
        G[TURN_END] = 1
    elif c == AOYAMA:                                         # hypnotism
        m = 0
        for q in range(G[NP]):
            if aoyama_target(G, s, q):
                option(G, m, O_PLAYER, q)
                m += 1
        q = G[CH_ARG + ask(G, s, TARGET, m)]
        t = nth_held(G, q, TREASURE, randint(streams(G), CH_HANDS, G[HTRE + q]))
        d = pos
        while G[NT + d] == G[R_H]:
            d = G[R_NEXT + d]
        h0 = d * G[R_H]
        for h in range(h0, h0 + G[R_H]):
            if G[BOARD + h] == EMPTY:
                hand_remove(G, q, t)
                put_tile(G, h, t, 0)
                break
        update_time_marker(G, d)
        G[TURN_END] = 1
    elif c == INABA:                                          # inaba_look
        m = 0
        for d in range(G[R_D]):
            if n_unseen_in(G, s, d) > 0:
                option(G, m, O_DISTRICT, d)
                m += 1
        look(G, s, G[CH_ARG + ask(G, s, DISTRICT, m)])
    elif c == COCOA:
        walk(G, s, G[R_COCOA])
    else:                                                     # chiya
        G[CHIYA_HOLD] = 1
