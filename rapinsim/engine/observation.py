"""What the policies score options with: seat s's observation (``observe``) and the feature
row of each option (``features``), written into ``G`` (``OBS``, ``OPTS``) when a policy that
reads them decides. The built-in heuristics themselves (``policies.choose_weighted``) and their
weights (``W``, ``tables.py``) are apart; nothing here changes the game.
"""
from __future__ import annotations

from ..policies import (CHEST_TILE, DISTILLED, EVADER, F_ARG, F_DISTRICT, F_EXTRA, F_HOUSE, F_KNOWN,
                        F_PLAYERS, F_RIZE, F_SUB, F_TILE, F_TILES, F_UNSEEN, F_VALUE, F_WHAT,
                        N_FEATURES, OB_ACTING, OB_ACTING_ACTIONS, OB_ACTING_SEARCHED, OB_ACTIONS,
                        OB_BAG, OB_BAG_BROWN, OB_BAG_TILE, OB_BAG_WHITE, OB_BROWN, OB_CHAR,
                        OB_CHARS, OB_CHEST_HELD, OB_DAWN, OB_DIE, OB_DISGUISED, OB_DISTRICT,
                        OB_HELD_BY_BROWN, OB_HOUSE, OB_HOUSE_BROWN, OB_HOUSE_SEEN, OB_HOUSE_TILE,
                        OB_HOUSE_WHITE, OB_ITEMS, OB_LETTER, OB_LETTERS, OB_LETTER_PENDING,
                        OB_MARKED, OB_MARKERS, OB_NITEMS, OB_PLAYERS, OB_POS, OB_RABBITS, OB_RIZE,
                        OB_RIZE_HELD, OB_RIZE_STEPS, OB_RIZE_TO, OB_SEARCHED, OB_SEAT, OB_SKILL,
                        OB_SKILLS, OB_SKIPS, OB_TREAS, OB_WALK_LEFT, OB_TREASURES, OB_TURN,
                        OB_WHITE, O_CHARACTER, O_DISTRICT, O_HOUSE, O_ITEM, O_PLAYER, O_SEARCH,
                        O_SKILL, O_STEP)
from ..rules import EMPTY, MAX_BROWN, MAX_PLAYERS, TREASURE
from .tables import MAXD, MAXN, N_ITEMS, PID, R_D, R_DIE, R_HD, R_N, R_STEPS, R_WHITE_PAIR
from .state import (ACTING, ACTIONS_LEFT, BAGR, BAG_CAP, BAG_HEAD, BAG_N, BOARD, CHARS, CHIYA_HOLD,
                    CH_ARG, CH_WHAT, DAWN, DISGUISED, FACE_UP, HBROWN, HCHEST, HITEM, HNI, HTRE,
                    HWHITE, LETTER, MARKER, NP, NT, N_MARKED, OBS, OPTS, PENDING, POS, RETURNED,
                    RIZE, SEARCHED, SEEN, SKILL_USED, SKIP, TBR, TCH, TK, TSUB, TURNS, TWH,
                    WALK_LEFT, f32_at, helper, n_unseen_in, nth_held, others_in)


@helper
def observe(G, s):
    """Seat s's observation, into OBS (inlined into ``decide_policy``, its one caller): all of
    it for a user policy, for a built-in policy only the fields it reads (``policies.py``:
    ``BUILTIN_OBS``, ``PREDICTING_OBS`` for the evader, the keeper and the distilled policy,
    ``DISTILLED_OBS`` for the last; writing the rest took ~9% of a careful game's time, and
    half of a distilled one's)."""
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
                ob[OB_NITEMS + q] = G[HNI + q]
            else:
                ob[OB_POS + q] = ob[OB_NITEMS + q] = -1
    if pid < 0 or pid == DISTILLED:     # the distilled policy's context reads these too
        for q in range(MAX_PLAYERS):
            ob[OB_TREAS + q] = G[HTRE + q] if q < np_ else -1
    if pid < 0:
        public_table(G, ob)
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
def public_table(G, ob):
    """The rest of the public table (``OB_ACTING`` on), which no built-in heuristic reads."""
    acting = G[ACTING]
    ob[OB_ACTING] = acting
    ob[OB_ACTING_ACTIONS] = G[ACTIONS_LEFT] if acting >= 0 else 0
    ob[OB_ACTING_SEARCHED] = G[SEARCHED] if acting >= 0 else 0
    ob[OB_RIZE_HELD] = G[CHIYA_HOLD]
    ob[OB_BAG] = G[BAG_N]
    ob[OB_WALK_LEFT] = G[WALK_LEFT]
    for q in range(MAX_PLAYERS):
        seat = q < G[NP]
        ob[OB_SKIPS + q] = G[SKIP + q] if seat else -1
        ob[OB_SKILLS + q] = 1 - G[SKILL_USED + q] if seat else -1
        ob[OB_DISGUISED + q] = G[DISGUISED + q] if seat else -1
        ob[OB_LETTERS + q] = G[LETTER + q] if seat else -1
        ob[OB_LETTER_PENDING + q] = G[PENDING + q] if seat else -1
        ob[OB_BROWN + q] = G[HBROWN + q] if seat else -1
        ob[OB_WHITE + q] = G[HWHITE + q] if seat else -1
        by_brown = OB_HELD_BY_BROWN + q * (MAX_BROWN + 1)
        for b in range(MAX_BROWN + 1):
            ob[by_brown + b] = 0 if seat else -1
        for r in range(G[HTRE + q] if seat else 0):
            ob[by_brown + G[TBR + nth_held(G, q, TREASURE, r)]] += 1
    for d in range(MAXD):
        ob[OB_MARKED + d] = G[MARKER + d] if d < G[R_D] else -1
    dealt = G[R_N] if G[RIZE] >= 0 else 0         # nothing on the board before the deal
    for h in range(MAXN):
        t = G[BOARD + h] if h < dealt else EMPTY
        ob[OB_HOUSE + h] = -1 if t == EMPTY else G[FACE_UP + h]
        ob[OB_HOUSE_SEEN + h] = -1 if t == EMPTY else seen_by(G, t)
        public_tile(G, ob, OB_HOUSE_TILE + h, OB_HOUSE_BROWN + h, OB_HOUSE_WHITE + h, t,
                    t != EMPTY and (G[FACE_UP + h] != 0 or G[RETURNED + t] != 0))
    for i in range(MAXN):
        t = G[BAGR + ((G[BAG_HEAD] + i) & (BAG_CAP - 1))] if i < G[BAG_N] else EMPTY
        public_tile(G, ob, OB_BAG_TILE + i, OB_BAG_BROWN + i, OB_BAG_WHITE + i, t, t != EMPTY)


@helper
def seen_by(G, t):
    """The seats that have looked at tile t, as bits."""
    bits = 0
    for q in range(G[NP]):
        if G[SEEN + q * MAXN + t]:
            bits |= 1 << q
    return bits


@helper
def public_tile(G, ob, code, brown, white, t, known):
    """What everyone knows tile t is (``known``; t EMPTY: none): its ``F_TILE`` code at
    ob[code] (-1 unknown or none), a treasure's rabbits at ob[brown] and ob[white]."""
    ob[code] = (CHEST_TILE if G[TCH + t] else G[TK + t]) if known else -1
    ob[brown] = G[TBR + t] if known else 0
    ob[white] = G[TWH + t] if known else 0


@helper
def option_rows(G, s, n, full):
    """The n options' feature rows as seat s sees them, into OPTS (written when a policy that
    reads features decides, or where the forward model halts; the state does not change
    between the options and the decision). The own district's unseen tiles are counted once
    (a pass, the searches, the items and the skill all concern it)."""
    own_unseen = n_unseen_in(G, s, G[POS + s]) if G[POS + s] >= 0 else 0
    for i in range(n):
        features(G, s, i, own_unseen, full)


@helper
def features(G, s, i, own_unseen, full):
    """The feature row i of an option as seat s sees it, into OPTS (``option_rows``).
    ``full``: for a user policy; the built-in heuristics read no ``UNREAD_FEATURES`` column
    (``policies.py``), so those are left unwritten for them."""
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
