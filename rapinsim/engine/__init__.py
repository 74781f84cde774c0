"""The compiled engine: the rules of ``reference.py`` as numba kernels over one flat int32 array.

Everything a game needs lives in one int32 array ``G``: first the rules (``rule_vector``, the
same for every game of a batch), then the state of the game being played, then its decision log.
Every field sits at a fixed offset (the module constants below, declared once in the layout
``G``, laid out for the largest board the rules allow), so the kernels index ``G[OFFSET + i]``
and numba freezes the offsets as constants. The random streams (``XS``, uint64,
``simcore.rng``), the observation (``OBS``) and the option features (``OPTS``, float32) live in
``G`` too, and so do the user policies (the addresses of their compiled code, ``UF``), so a
kernel gets ``G`` (a pointer) and its own arguments: every call is cheap to compile and to make
(a NamedTuple of arrays was flattened into ~150 LLVM arguments per call; an array passed is a
struct of seven).

Counts the rules ask for again and again are kept up to date as the game changes (tiles per
district ``NT``, pawns per district ``NPD``, each seat's held treasures, rabbits and items, and
each hand as a bit set of tiles ``HELD``), so listing the legal options does not rescan the
board and picking a held tile is a few bit operations. The random policy reads neither the
observation nor the features, so they are written only for a policy that reads them, and its
action options are counted, not listed (``random_action``: only the chosen one is produced).

``play_batch`` spreads a batch over threads (``simcore.parallel.spread``); each thread gets its
own buffers and runs ``play_games`` (compiled ``nogil``) over the units of games it claims, and
every game seeds its own streams, so a game never depends on its thread or unit. The functions
mirror the reference engine rule for rule and draw from the streams in the same order. A
policy's illegal answer is recorded (``ERR``) and ends that game; the caller raises.

The forward model (``forward.py``, ``new_game``) replays one game in these same kernels: its
seats' policy id ``FM_SEAT`` hands every decision to ``fm_decide`` (choices from the log, then a
halt) and ``determinize`` resamples what a seat cannot see.
"""
from __future__ import annotations

import numpy as np
from numba import carray, njit, types

from simcore import search as SR
from simcore.bits import nth_set_bit, popcount
from simcore.parallel import claim, spread
from simcore.policy import first_class
from simcore.results import LEAD_ROUNDS, rank_and_share
from simcore.rng import CHANCE, mix64, randint

from .. import stats as S
from ..policies import (ACTION, CHARACTER, DISTRICT, HOUSE, O_CHARACTER, O_DISTRICT, O_HOUSE,
                        O_ITEM, O_PASS, O_PLAYER, O_SEARCH, O_SKILL, O_STEP, O_STOP, PLACE, RANDOM,
                        STEP, TARGET, data_ptr)
from ..rules import (AOYAMA, BICYCLE, CHIMAME, COCOA, COFFEE, DISGUISE as DISGUISE_ITEM, EMPTY,
                     INABA, ITEM, LAMP, LAPIN, MAP, MAX_PLAYERS, TRAP, TREASURE, WHISTLE, Rules)
from .tables import (ADDR, AGENTS, CFG_NP, FIXED, G, KEY, LOG_CAP, LOG_LEN, MAXD, MAXN, MO, NW,
                     N_ITEMS, N_STREAMS, P, PID, RESUME, RULES_LEN, R_ACTIONS, R_ADJ, R_BIKE,
                     R_BROWN, R_CHEST, R_CHEST_OTHERS, R_CHOICE, R_COCOA, R_COFFEE_END, R_D,
                     R_DAWN_EMPTIES, R_DEG, R_DIE, R_DISGUISE_ACTION, R_H, R_HD, R_INABA_WIN,
                     R_KIND, R_MAX_TURNS, R_N, R_NEXT, R_NROSTER, R_NSTEPS, R_PREV, R_ROSTER,
                     R_START, R_STEP_TO, R_SUB, R_WHISTLE, R_WHITE, R_WHITE_PAIR, SNAP_AT, SNAP_CUR,
                     SNAP_TURN, UF, W, rule_vector)
from .state import (ACTING, ACTIONS_LEFT, BAGR, BAG_CAP, BAG_HEAD, BAG_N, BOARD, CHARS, CHIYA_HOLD,
                    CH_ARG, CH_WHAT, DAWN, DAWN_END, DISGUISED, ERR, ERR_CHOICE, ERR_KIND, ERR_N,
                    ERR_SEAT, FACE_UP, FM_HALTED, FM_LEN, FM_MARKS, FM_N_MARKS, FM_OBS, FM_PEND,
                    FM_PLAYOUT, FM_REGION, FM_ROWS, FM_SEARCH, FM_SEAT, FM_SIG, FM_STATE, FM_STOP,
                    GAME, GAME_SIG, GAME_ST, HBROWN, HCHEST, HELD, HITEM, HNI, HTRE, HWHITE, I64,
                    ISET, KIND_SET, LED, LETTER, LOG0, NP, NPD, NT, N_MARKED, OBS, OCC, OVER,
                    PENDING, POS, PRIM, RANKS, RETURNED, RIZE, SEARCHED, SEARCH_SIG, SEAT_ST, SECD,
                    SEEN, SEL_ITEM0, SKILL_USED, SKIP, STALLED, STATE0, TBR, TCH, TK, TMP, TSUB,
                    TURNS, TURN_END, TWH, VOID, XS, any_unseen, game_at, hand_remove, helper,
                    i64_at, n_unseen_in, nth_held, on_g, others_in, streams, u64_at)
from .decisions import ask, decide_policy, option, record
from .forward import fm_decide, snapshot
from .board import (can_search, house_options, look, n_steps, nth_step, put_tile, step_options,
                    update_time_marker)
from .rize import discard_item, find_players, rize_enters
from .tiles import count_search, notice_letter_take, step, take_tile

__all__ = ["ADDR", "BAGR", "BAG_CAP", "BAG_HEAD", "BAG_N", "BOARD", "CHARS", "DAWN", "FACE_UP",
           "FM_HALTED", "FM_LEN", "FM_MARKS", "FM_N_MARKS", "FM_OBS", "FM_PEND", "FM_ROWS",
           "FM_SEAT", "FM_SIG", "FM_STATE", "FM_STOP", "G", "GAME_SIG", "HELD", "HITEM", "LETTER",
           "LOG0", "LOG_LEN", "MAXD", "MAXN", "MAX_PLAYERS", "N_ITEMS", "N_STREAMS", "OBS", "P",
           "POS", "RETURNED", "RIZE", "RULES_LEN", "R_DEG", "R_NSTEPS", "R_STEP_TO", "SEEN", "TK",
           "TSUB", "TURNS", "XS", "fm_decide", "play_batch", "play_game", "play_games",
           "rule_vector", "search"]


@on_g(VOID, I64, I64)
def walk(G, s, n_steps):
    for k in range(n_steps):
        m = step_options(G, s, 0)
        if m == 0:
            break
        if k > 0:
            option(G, m, O_STOP, G[POS + s])
            m += 1
        c = ask(G, s, STEP, m)
        if G[CH_WHAT + c] == O_STOP:
            break
        step(G, s, G[CH_ARG + c])
        if G[OVER] or G[TURN_END]:
            break


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


@helper
def aoyama_target(G, s, q):
    d = G[POS + s]
    e = G[POS + q]
    return q != s and (e == d or G[R_ADJ + d * MAXD + e] != 0) and G[HTRE + q] > 0


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
        t = nth_held(G, q, TREASURE, randint(streams(G), CHANCE, G[HTRE + q]))
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
    c = randint(streams(G), 1 + s, n)
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


@on_g(VOID, types.uint64, I64)
def setup(G, key, game):
    for i in range(STATE0, XS):
        G[i] = 0
    x = streams(G)                                            # simcore.rng.seed_streams
    for k in range(N_STREAMS):
        x[k] = mix64(key ^ mix64((np.uint64(game) << np.uint64(8)) + np.uint64(k + 1)))
    n_players = G[CFG_NP]
    G[NP], G[GAME], G[DAWN], G[ACTING] = n_players, game, -1, -1
    u64_at(G, KEY)[0] = key
    for s in range(P):
        G[POS + s] = -1
        G[LETTER + s] = -1
        G[SEAT_ST + s * S.N_SEAT + S.S_SKILL_TURN] = -1
    n_roster = G[R_NROSTER]
    if G[FIXED] < 0 and G[R_CHOICE]:                          # choose_characters
        G[RIZE] = -1
        for s in range(P):
            G[CHARS + s] = -1
        for i in range(n_roster):
            G[TMP + i] = G[R_ROSTER + i]
        for s in range(n_players):
            n_free = n_roster - s
            for i in range(n_free):
                option(G, i, O_CHARACTER, G[TMP + i])
            c = ask(G, s, CHARACTER, n_free)
            G[CHARS + s] = G[TMP + c]
            for i in range(c, n_free - 1):
                G[TMP + i] = G[TMP + i + 1]
    elif G[FIXED] < 0:                                        # draw_characters
        for i in range(n_roster):
            G[TMP + i] = G[R_ROSTER + i]
        for s in range(n_players):
            j = s + randint(streams(G), CHANCE, n_roster - s)
            c = G[TMP + s]
            G[TMP + s] = G[TMP + j]
            G[TMP + j] = c
            G[CHARS + s] = G[TMP + s]
    else:
        for s in range(n_players):
            G[CHARS + s] = G[FIXED + s]
    for s in range(n_players):
        if G[CHARS + s] == INABA:
            G[ISET] = 1
    n = G[R_N]
    k = G[ISET] * MAXN
    for t in range(n):
        G[TK + t] = G[R_KIND + k + t]
        G[TSUB + t] = G[R_SUB + k + t]
        G[TBR + t] = G[R_BROWN + k + t]
        G[TWH + t] = G[R_WHITE + k + t]
        G[TCH + t] = G[R_CHEST + k + t]
    kind_set = u64_at(G, KIND_SET)                            # the kinds as bit sets
    for t in range(n):
        w, bit = t >> 6, np.uint64(1) << np.uint64(t & 63)
        if G[TK + t] != TRAP:
            kind_set[2 * G[TK + t] + w] |= bit
        if G[TK + t] == ITEM:
            kind_set[2 * (SEL_ITEM0 + G[TSUB + t]) + w] |= bit
    for h in range(n):                                        # shuffle_tiles
        G[TMP + h] = h
    for i in range(n - 1, 0, -1):
        j = randint(streams(G), CHANCE, i + 1)
        t = G[TMP + i]
        G[TMP + i] = G[TMP + j]
        G[TMP + j] = t
    for h in range(n):
        G[BOARD + h] = G[TMP + h]
    for d in range(G[R_D]):
        G[NT + d] = G[R_H]
    face = randint(streams(G), CHANCE, G[R_DIE])                      # roll_rize_start
    G[RIZE] = G[R_START + face]
    G[GAME_ST + S.G_RIZE_START] = G[R_START + face] + 1
    for s in range(n_players - 1, -1, -1):                    # place_pawns
        m = 0
        for d in range(G[R_D]):
            if d != G[RIZE] and G[NPD + d] == 0:
                option(G, m, O_DISTRICT, d)
                m += 1
        d = G[CH_ARG + ask(G, s, PLACE, m)]
        G[POS + s] = d
        G[NPD + d] += 1
        G[OCC + d] |= 1 << s


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


@on_g(VOID)
def score(G):
    np_ = G[NP]
    for s in range(np_):
        tr = G[HTRE + s]
        rab = G[HBROWN + s] + G[R_WHITE_PAIR] * (G[HWHITE + s] // 2)
        chest = G[HCHEST + s] > 0
        st = SEAT_ST + s * S.N_SEAT
        G[st + S.S_TREASURES] = tr
        G[st + S.S_RABBITS] = rab
        G[st + S.S_CHEST] = chest
        G[PRIM + s] = tr - (chest & (G[CHARS + s] != INABA) & (G[R_CHEST_OTHERS] == 0))
        G[SECD + s] = rab
        if G[CHARS + s] == INABA:
            if chest:
                G[PRIM + s] = 127
            elif not G[R_INABA_WIN]:
                G[PRIM + s] = -1
    G[GAME_ST + S.G_TURNS] = G[TURNS]
    G[GAME_ST + S.G_STALLED] = G[STALLED]
    G[GAME_ST + S.G_DAWN] = G[DAWN_END]


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
            nxt = G[R_NEXT + G[RIZE]]                          # rize_moves
            rize_enters(G, nxt)
            if G[OVER]:
                break
            if G[NPD + nxt] > 0:
                find_players(G, nxt)
            if G[OVER]:
                break
        if G[DAWN] < 0 and G[N_MARKED] >= G[R_DAWN_EMPTIES]:    # dawn_check
            G[DAWN] = G[RIZE]
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
               led, err, log, weights=None, agents=None) -> None:
    """Play games start .. start + len(win) - 1 (arrays as ``play_games``) on
    ``numba.get_num_threads()`` threads (``simcore.parallel.spread``); ``weights`` as
    ``rule_vector``'s; ``agents``: the search seats' words (``rule_vector``; a game with a
    search seat keeps its log)."""
    game_fn = first_class(play_game, GAME_SIG)
    searching = bool((np.asarray(ids) == SR.SEARCH_ID).any())
    cap = LOG_LEN if searching else log.shape[1]
    addresses = (first_class(search_seat, SEARCH_SIG).address, game_fn.address,
                 first_class(fm_decide, FM_SIG).address) if searching else (0, 0, 0)
    head = rule_vector(rules, n_players, ids, user, fixed, cap, weights, agents, addresses)
    key = np.uint64(key)

    def play_units(counter):
        g = np.zeros(LOG0 + 4 * cap, np.int32)
        g[:RULES_LEN] = head
        play_games(g, key, start, counter, game_fn, seat, win, game, chars, led, err, log)

    spread(play_units, win.shape[0])


@njit(I64(types.int32[::1], types.uint64, I64, I64, types.int64[::1], types.int64[:, ::1], I64,
         types.int64[::1], I64), cache=True)
def search(head, key, game, n_players, choices, marks, seat, agent, seed):
    """The option a search agent (``agent``: ``simcore.search.Agent.params``) takes at the
    position of game ``game`` after ``choices`` and the determinizations ``marks`` [m, 3], where
    ``seat`` is to act; its randomness from ``seed``; ``head``: the batch's rules and settings
    (``rule_vector``, with the addresses). Each iteration replays the position in a scratch
    forward-model G (from the snapshot of the decision's turn once there is one), determinized
    for the seat at its decision; ``fm_decide`` hands the tree's decisions to
    ``simcore.search.step``. -1 when a replay diverges (a bug: the caller reports it).
    """
    algo, iters = agent[SR.A_ALGO], agent[SR.A_ITER]
    trees = agent[SR.A_DETS] if algo == SR.PIMC else 1
    per_tree = iters // trees
    words = SR.region_size(per_tree + 1, MO)
    f = LOG0 + 4 * LOG_LEN
    at = f + FM_LEN + (f + FM_LEN) % 2
    snap = at + 2 * words
    Ga = np.zeros(snap + LOG0 - STATE0, np.int32)
    Ga[:RULES_LEN] = head
    G = data_ptr(Ga)
    G[LOG_CAP] = LOG_LEN
    for q in range(n_players):
        G[PID + q] = FM_SEAT
        for w in range(NW):         # every seat plays out with the playout's weights
            i64_at(G, W)[q * NW + w] = agent[SR.A_WEIGHTS + w]
    i64_at(G, UF)[0] = i64_at(G, ADDR)[2]
    G[SNAP_AT], G[SNAP_TURN], G[RESUME] = snap, -1, 0
    k = choices.shape[0]
    for j in range(k):
        G[LOG0 + 4 * j + 3] = choices[j]
    m = marks.shape[0]
    mk = i64_at(G, f + FM_MARKS)
    for j in range(m):
        for w in range(3):
            mk[3 * j + w] = marks[j, w]
    mk[3 * m], mk[3 * m + 1] = k, -1 - seat if agent[SR.A_ORACLE] else seat
    G[f + FM_N_MARKS], G[f + FM_STOP] = m + 1, k
    G[f + FM_SEARCH], G[f + FM_REGION], G[f + FM_PLAYOUT] = at, words, agent[SR.A_PLAYOUT]
    reg = carray(i64_at(G, at), words)
    SR.init_region(reg, 0, per_tree + 1, MO, algo, agent[SR.A_C:SR.A_C + 1].view(np.float64)[0],
                   seed)
    play = game_at(i64_at(G, ADDR)[1])
    win = np.zeros(n_players, np.float32)
    votes = np.zeros(MO, np.int64)
    for tree in range(trees):
        if tree:
            SR.new_tree(reg, 0)
        for it in range(per_tree):
            if G[RESUME]:
                for i in range(STATE0, LOG0):
                    G[i] = G[snap + i - STATE0]
            mk[3 * m + 2] = SR.iteration_seed(seed, tree, 0 if algo == SR.PIMC else it)
            SR.new_iteration(reg, 0, it)
            G[f + FM_HALTED] = 0
            for q in range(n_players):
                G[PID + q] = FM_SEAT
            play(G, key, game)
            if G[ERR] or G[f + FM_HALTED]:
                return -1
            rank_and_share(Ga[PRIM:PRIM + n_players], Ga[SECD:SECD + n_players], n_players,
                           Ga[RANKS:RANKS + n_players], win)
            SR.backpropagate(reg, 0, win)
            G[RESUME] = 1 if G[SNAP_TURN] >= 0 else 0
        if algo != SR.PIMC:
            return SR.best_option(reg, 0)
        SR.add_visits(reg, 0, votes)
    return np.argmax(votes)


@njit(SEARCH_SIG, cache=True, no_cpython_wrapper=True)     # C wrapper: called by address
def search_seat(G, s, n):
    """A search seat's decision in a batch game (``decide_policy``): ``search`` from the
    game's log, seeded by one draw of the seat's stream."""
    k = G[GAME_ST + S.G_DECISIONS]
    if k > G[LOG_CAP]:
        return -1
    choices = np.empty(k, np.int64)
    for j in range(k):
        choices[j] = G[LOG0 + 4 * j + 3]
    head = np.empty(RULES_LEN, np.int32)
    for i in range(RULES_LEN):
        head[i] = G[i]
    agent = np.empty(SR.AGENT_WORDS, np.int64)
    for w in range(SR.AGENT_WORDS):
        agent[w] = i64_at(G, AGENTS)[SR.AGENT_WORDS * s + w]
    seed = SR.decision_seed(carray(streams(G), N_STREAMS), s)
    return search(head, u64_at(G, KEY)[0], G[GAME], G[NP], choices, np.zeros((0, 3), np.int64),
                  s, agent, seed)
