"""What the policies score options with: seat s's observation (``observe``) and the feature
row of each option (``features``), written into ``G`` (``OBS``, ``OPTS``) when a policy that
reads them decides. The built-in heuristics themselves (``policies.choose_weighted``) and their
weights (``W``, ``tables.py``) are apart; nothing here changes the game.
"""
from __future__ import annotations

from ..policies import (CHEST_TILE, EVADER, F_ARG, F_DISTRICT, F_EXTRA, F_HOUSE, F_KNOWN, F_PLAYERS,
                        F_RIZE, F_SUB, F_TILE, F_TILES, F_UNSEEN, F_VALUE, F_WHAT, N_FEATURES,
                        OB_ACTIONS, OB_CHAR, OB_CHARS, OB_CHEST_HELD, OB_DAWN, OB_DIE, OB_DISTRICT,
                        OB_ITEMS, OB_LETTER, OB_MARKERS, OB_NITEMS, OB_PLAYERS, OB_POS, OB_RABBITS,
                        OB_RIZE, OB_RIZE_STEPS, OB_RIZE_TO, OB_SEARCHED, OB_SEAT, OB_SKILL,
                        OB_TREAS, OB_TREASURES, OB_TURN, O_CHARACTER, O_DISTRICT, O_HOUSE, O_ITEM,
                        O_PLAYER, O_SEARCH, O_SKILL, O_STEP)
from ..rules import MAX_PLAYERS, TREASURE
from .tables import MAXD, MAXN, N_ITEMS, PID, R_DIE, R_HD, R_STEPS, R_WHITE_PAIR
from .state import (ACTING, ACTIONS_LEFT, BOARD, CHARS, CH_ARG, CH_WHAT, DAWN, FACE_UP, HBROWN,
                    HCHEST, HITEM, HNI, HTRE, HWHITE, LETTER, NP, NT, N_MARKED, OBS, OPTS, POS,
                    RIZE, SEARCHED, SEEN, SKILL_USED, TBR, TCH, TK, TSUB, TURNS, TWH, f32_at,
                    helper, n_unseen_in, others_in)


@helper
def observe(G, s):
    """Seat s's observation, into OBS (inlined into ``decide_policy``, its one caller): all of
    it for a user policy, for a built-in heuristic only the fields it reads (``policies.py``:
    ``BUILTIN_OBS``, and ``PREDICTING_OBS`` for the evader and the keeper; writing the rest
    took ~9% of a careful game's time)."""
    ob = f32_at(G, OBS)
    np_ = G[NP]
    mine = G[ACTING] == s
    pos = G[POS + s]
    pid = G[PID + s]
    ob[OB_SEAT] = s
    ob[OB_PLAYERS] = np_
    ob[OB_ACTIONS] = G[ACTIONS_LEFT] if mine else 0
    ob[OB_CHAR] = G[CHARS + s]
    ob[OB_RIZE_STEPS] = G[R_STEPS + G[RIZE] * MAXD + pos] if pos >= 0 else -1
    ob[OB_SEARCHED] = G[SEARCHED] if mine else 0
    ob[OB_TREASURES] = G[HTRE + s]
    if pid < 0:
        ob[OB_DISTRICT] = pos
        ob[OB_RIZE] = G[RIZE]
        ob[OB_TURN] = G[TURNS]
        ob[OB_MARKERS] = G[N_MARKED]
        ob[OB_DAWN] = G[DAWN]
        ob[OB_SKILL] = 1 - G[SKILL_USED + s]
        ob[OB_LETTER] = G[LETTER + s]
        ob[OB_RABBITS] = G[HBROWN + s] + G[R_WHITE_PAIR] * (G[HWHITE + s] // 2)
        for i in range(N_ITEMS):
            ob[OB_ITEMS + i] = G[HITEM + s * N_ITEMS + i]
        for q in range(MAX_PLAYERS):
            if q < np_:
                ob[OB_POS + q] = G[POS + q]
                ob[OB_TREAS + q] = G[HTRE + q]
                ob[OB_NITEMS + q] = G[HNI + q]
            else:
                ob[OB_POS + q] = ob[OB_TREAS + q] = ob[OB_NITEMS + q] = -1
    if pid < 0 or pid >= EVADER:          # careful and greedy read none of these
        ob[OB_DIE] = G[R_DIE]
        rize_row = R_STEPS + G[RIZE] * MAXD
        for q in range(MAX_PLAYERS):
            if q < np_:
                ob[OB_CHARS + q] = G[CHARS + q]
                ob[OB_CHEST_HELD + q] = G[HCHEST + q]
                ob[OB_RIZE_TO + q] = G[rize_row + G[POS + q]] if G[POS + q] >= 0 else -1
            else:
                ob[OB_CHARS + q] = ob[OB_CHEST_HELD + q] = ob[OB_RIZE_TO + q] = -1


@helper
def features(G, s, i, own_unseen, full):
    """The feature row i of an option as seat s sees it, into OPTS (written when a policy that
    reads features decides; the state does not change between the options and the decision).
    Inlined into ``decide_policy``'s loop over the options, its one caller. ``full``: for a
    user policy; the built-in heuristics read no ``UNREAD_FEATURES`` column (``policies.py``),
    so those are left unwritten for them."""
    what, a = G[CH_WHAT + i], G[CH_ARG + i]
    arg, house, extra, district = -1, -1, 0, G[POS + s]
    if what == O_SEARCH or what == O_HOUSE:
        house = a
        district = G[R_HD + a]
    elif what == O_STEP or what == O_DISTRICT:
        district = a
    elif what == O_ITEM:
        arg = a
        extra = G[HITEM + s * N_ITEMS + a]
    elif what == O_PLAYER:
        arg = a
        district = G[POS + a]
        extra = G[HTRE + a]
    elif what == O_SKILL:
        extra = G[CHARS + s]
    elif what == O_CHARACTER:                  # nothing on the board yet
        arg = a
        district = -1
    r = f32_at(G, OPTS + i * N_FEATURES)
    r[F_WHAT] = what
    r[F_ARG] = arg
    if full:
        r[F_DISTRICT] = district
        r[F_HOUSE] = house
        r[F_SUB] = -1
    r[F_KNOWN] = 0
    r[F_TILE] = -1
    r[F_VALUE] = 0
    r[F_EXTRA] = extra
    if house >= 0:
        t = G[BOARD + house]
        if G[FACE_UP + house] or G[SEEN + s * MAXN + t]:
            r[F_KNOWN] = 1
            kind = G[TK + t]
            r[F_TILE] = CHEST_TILE if G[TCH + t] else kind
            if kind == TREASURE:
                r[F_VALUE] = G[TBR + t] + G[TWH + t] * (G[R_WHITE_PAIR] / 2.0)
            elif full:
                r[F_SUB] = G[TSUB + t]
    if district < 0:
        r[F_RIZE] = r[F_PLAYERS] = r[F_TILES] = r[F_UNSEEN] = 0
        return
    r[F_RIZE] = G[R_STEPS + G[RIZE] * MAXD + district]
    r[F_PLAYERS] = others_in(G, district, s)
    r[F_TILES] = G[NT + district]
    r[F_UNSEEN] = own_unseen if district == G[POS + s] else n_unseen_in(G, s, district)
