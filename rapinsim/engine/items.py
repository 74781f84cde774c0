"""Items (rules section 6): which items are offered as actions (``items_offered``) and what
each does (``use_item``: lamp, coffee, disguise, bicycle, map, whistle); ``walk`` is the
bicycle's (and Cocoa's) steps. The disguise as a reaction, and discarding an item, are in
``rize.py`` (Rize's finding uses them).
"""
from __future__ import annotations

import numpy as np

from ..policies import HOUSE, O_HOUSE, O_STOP, STEP
from ..rules import BICYCLE, COFFEE, DISGUISE as DISGUISE_ITEM, EMPTY, LAMP, MAP, WHISTLE
from .tables import (MAXN, N_ITEMS, R_BIKE, R_COFFEE_END, R_DISGUISE_ACTION, R_N, R_NEXT, R_PREV,
                     R_WHISTLE)
from .state import (BOARD, CHIYA_HOLD, CH_ARG, CH_WHAT, DISGUISED, FACE_UP, HITEM, HNI, I64, NPD,
                    NT, OVER, POS, RIZE, SEEN, TURN_END, VOID, WALK_LEFT, any_unseen, helper,
                    n_unseen_in, on_g, others_in)
from .decisions import ask, option
from .board import house_options, look, step_options
from .rize import discard_item, find_players, rize_enters
from .tiles import count_search, step, take_tile


@helper
def items_offered(G, s, searchable, steps):
    """The item kinds offered as actions, a bit set: held and usable now (``item_usable`` of
    the reference for each kind; ``searchable``: ``can_search``, ``steps``: the legal steps):
    items are offered only where they can do something (the disguise only as an action, to a
    player not yet disguised)."""
    if G[HNI + s] == 0:
        return np.int64(0)
    d = G[POS + s]
    usable = ((np.int64(n_unseen_in(G, s, d) > 0) << LAMP)
              | (np.int64(searchable & (G[NT + d] >= 2)) << COFFEE)
              | (np.int64(steps > 0) << BICYCLE)
              | (np.int64((G[R_DISGUISE_ACTION] != 0) & (G[DISGUISED + s] == 0))
                 << DISGUISE_ITEM)
              | (np.int64(1) << WHISTLE))
    if G[HITEM + s * N_ITEMS + MAP] > 0 and any_unseen(G, s):
        usable |= 1 << MAP
    held = np.int64(0)
    for i in range(N_ITEMS):
        held |= np.int64(G[HITEM + s * N_ITEMS + i] > 0) << i
    return usable & held


@on_g(VOID, I64, I64)
def walk(G, s, n_steps):
    for k in range(n_steps):
        m = step_options(G, s, 0)
        if m == 0:
            break
        if k > 0:
            option(G, m, O_STOP, G[POS + s])
            m += 1
        G[WALK_LEFT] = n_steps - k
        c = ask(G, s, STEP, m)
        if G[CH_WHAT + c] == O_STOP:
            break
        step(G, s, G[CH_ARG + c])
        if G[OVER] or G[TURN_END]:
            break
    G[WALK_LEFT] = 0


@on_g(VOID, I64, I64)
def use_item(G, s, item):
    """An item action (the reference's ``ITEM_ACTIONS``)."""
    discard_item(G, s, item)
    d = G[POS + s]
    if item == LAMP:
        look(G, s, d)
    elif item == DISGUISE_ITEM:                               # disguise_action
        G[DISGUISED + s] = 1
    elif item == WHISTLE:
        n = G[R_WHISTLE]
        if n == 0:
            G[CHIYA_HOLD] = 1
            return
        r = G[RIZE]
        for _ in range(abs(n)):
            r = G[R_NEXT + r] if n > 0 else G[R_PREV + r]
            rize_enters(G, r)
            if G[OVER]:
                return
        if G[NPD + r] > 0:
            find_players(G, r)
    elif item == BICYCLE:
        walk(G, s, G[R_BIKE])
    elif item == MAP:
        m = 0
        for h in range(G[R_N]):
            t = G[BOARD + h]
            if t != EMPTY and G[FACE_UP + h] == 0 and G[SEEN + s * MAXN + t] == 0:
                option(G, m, O_HOUSE, h)
                m += 1
        c = ask(G, s, HOUSE, m)
        G[SEEN + s * MAXN + G[BOARD + G[CH_ARG + c]]] = 1
    else:                                                     # coffee
        count_search(G, s, d)
        for k in range(2):
            if k == 1 and not (G[POS + s] == d and d != G[RIZE] and others_in(G, d, s) == 0
                               and G[NT + d] > 0):
                break
            m = house_options(G, s, d, False)
            take_tile(G, s, G[CH_ARG + ask(G, s, HOUSE, m)])
            if G[OVER] or G[TURN_END]:
                break
        if G[R_COFFEE_END]:
            G[TURN_END] = 1
