"""The decision plumbing (reference: "decisions"): what a seat sees (``observe``), the option
rows (``offer``: written for a policy that reads them, or valued on the fly for a built-in
heuristic), the decision log (``record``), and ``decide``: a built-in policy's choice
(``builtin_choice``), a user policy's or a search seat's (``ask``), or the forward model's
(``fm_decide``)."""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore import search as SR
from simcore.distill import scorer
from simcore import restrict as RS
from simcore.policy import POLICY_SIG, policy_at
from simcore.rng import randint, reseed

from .. import policies as P
from ..distilled import FEATURES, option_of
from ..rules import EC_KIND, N_CHANCE
from .forward import action_key, determinize
from .state import (B1, FM_SEAT, GT, G_BEST, G_BEST_V, G_DECISIONS, G_DIST_U, G_ENCHANTED, G_ERROR,
                    G_ERR_CHOICE, G_ERR_KIND, G_ERR_N, G_ERR_SEAT, G_EVENT, G_FM_STOP, G_HALTED,
                    G_HORIZON, G_LAST_ROUND,
                    G_LEADER, G_LOGGED, G_LOG_AT, G_LOG_CAP, G_MARKS, G_NP, G_N_MARKS, G_PEND,
                    G_PLAYED, G_PLAYOUTS, G_RMAP, G_ROUND, G_SEARCH, G_SEARCH_FN, G_SELECTING,
                    G_ST, G_TURN, G_UF, I8, OBS_LEN, ST, S_BOLTS, S_GREEN, S_HAND, S_NHAND,
                    S_ORANGE, S_PAWN_A, S_PAWN_B, S_PLAYED, S_POLICY, S_PURPLE, S_RESTRICT,
                    S_SCORE, S_WANDS, S_WEIGHTS, TT, sc,
                    search_at, streams)
from .tables import T_DIST, T_LOG, event_of

DIST = scorer(FEATURES)
DIST_SHAPE = FEATURES.shape
DIST_WORDS = int(np.prod(DIST_SHAPE))
assert DIST_SHAPE[1] <= 32, "G_DIST_U holds 32 option weights"


@njit(cache=True, _nrt=False, inline="always")
def seat_weights(g, seat):
    """The weights (points, gained wands, lightning, max risk) of the seat's ``P._best``: a
    built-in heuristic's or another's (``P.WEIGHTS``), set per seat for the batch
    (``play_batch``). The engine never builds a built-in heuristic's rows: it scores each
    option with ``P._score`` as the option is found, and keeps the first best (``offer``,
    ``best_card``, ``select_rows``). A seat that is no heuristic accepts any risk."""
    if g[sc(seat, S_POLICY)] <= P.RANDOM:
        return (0.0, 0.0, 0.0, np.inf)
    w = g.view(np.float64)
    at = sc(seat, S_WEIGHTS)
    return (w[at], w[at + 1], w[at + 2], w[at + 3])


@njit((ST, I8, I8, I8, B1, I8, B1, I8, I8, I8, I8, I8, I8, I8), cache=True, _nrt=False,
      no_cpython_wrapper=True)
def offer(s, seat, i, role, brave, target, stop, points, pay_potions, pay_wands, gain_potions,
          gain_wands, lightning, penalty):
    """Option i (offered in order from 0) of the seat's next decision, by its features (F_RISK
    0: only ``pair_rows`` writes a risk). A policy that reads features gets the row; a built-in
    heuristic, which would only take ``P._best`` of the rows, keeps the best so far for
    ``decide`` (the first highest value; none is brave with a risk)."""
    if P.is_heuristic(s.g[sc(seat, S_POLICY)]):
        w = seat_weights(s.g, seat)
        v = P._score(points, penalty, gain_potions, gain_wands, lightning,
                     pay_potions + pay_wands, w[0], w[1], w[2])
        best_v = s.g.view(np.float64)[G_BEST_V:G_BEST_V + 1]
        if i == 0 or v > best_v[0]:
            s.g[G_BEST] = i
            best_v[0] = v
        return
    o = s.opts[i]
    o[P.F_ROLE] = role
    o[P.F_BRAVE] = brave
    o[P.F_POINTS] = points
    o[P.F_PAY_POTIONS] = pay_potions
    o[P.F_PAY_WANDS] = pay_wands
    o[P.F_GAIN_POTIONS] = gain_potions
    o[P.F_GAIN_WANDS] = gain_wands
    o[P.F_LIGHTNING] = lightning
    o[P.F_RISK] = 0.0
    o[P.F_PENALTY] = penalty
    o[P.F_TARGET] = target
    o[P.F_PASS] = stop


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def stop_option(s, seat, i):
    """Option i: decline (or stop)."""
    offer(s, seat, i, -1, False, -1, True, 0, 0, 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False, inline="always")
def observe_standing(g, o, seat):
    """The part of the seat's observation the distilled policy reads (``distilled.CONTEXT``:
    the round, the players, each seat's score, potions and wands); ``observe`` writes it with
    the rest, ``distilled_pick`` alone."""
    n_players = g[G_NP]
    o[P.O_ROUND] = g[G_ROUND]
    o[P.O_PLAYERS] = n_players
    for k in range(n_players):
        j = (seat + k) % n_players
        b = P.O_SEATS + k * P.SEAT_FIELDS
        o[b + P.S_SCORE] = g[sc(j, S_SCORE)]
        o[b + P.S_GREEN] = g[sc(j, S_GREEN)]
        o[b + P.S_PURPLE] = g[sc(j, S_PURPLE)]
        o[b + P.S_ORANGE] = g[sc(j, S_ORANGE)]
        o[b + P.S_WANDS] = g[sc(j, S_WANDS)]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def observe(t, g, o, seat):
    n_players = g[G_NP]
    for i in range(o.shape[0]):
        o[i] = -1.0
    observe_standing(g, o, seat)
    o[P.O_SEAT] = seat
    ev = g[G_EVENT]
    o[P.O_EVENT] = ev
    o[P.O_EVENT_CODE] = event_of(t, ev, EC_KIND) if ev >= 0 else -1
    o[P.O_ENCHANTED] = g[G_ENCHANTED]
    o[P.O_HAND] = g[sc(seat, S_HAND)]
    o[P.O_LEADER] = g[G_LEADER]
    o[P.O_TURN] = g[G_TURN]
    o[P.O_PLAYED] = g[G_PLAYED]
    for k in range(n_players):
        j = (seat + k) % n_players
        b = P.O_SEATS + k * P.SEAT_FIELDS
        o[b + P.S_LIGHTNING] = g[sc(j, S_BOLTS)]
        o[b + P.S_CARDS] = -1 if g[G_SELECTING] and k > 0 else g[sc(j, S_NHAND)]
        o[b + P.S_PLAYED] = g[sc(j, S_PLAYED)]
        o[b + P.S_PAWN_A] = g[sc(j, S_PAWN_A)]
        o[b + P.S_PAWN_B] = g[sc(j, S_PAWN_B)]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def features(s, seat):
    """Whether the seat's policy reads features (the built-in random one does not)."""
    return s.g[sc(seat, S_POLICY)] != P.RANDOM


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def record(g, seat, kind, n, c):
    """Count a decision the policy was asked, and log it when a log is kept."""
    k = g[G_LOGGED]
    if k < g[G_LOG_CAP]:
        at = g[G_LOG_AT] + 4 * k
        g[at] = seat
        g[at + 1] = kind
        g[at + 2] = n
        g[at + 3] = c
    g[G_LOGGED] = k + 1
    g[G_DECISIONS] += 1


@njit(cache=True, _nrt=False, inline="always")
def distilled_weights(t):
    """The distilled policy's weights (``T_DIST``, as ``simcore.distill.Distilled.flat``)."""
    at = t[T_DIST]
    return t[at:at + DIST_WORDS].view(np.float64)


@njit(cache=True, _nrt=False, inline="always")
def distilled_u(g):
    """Scratch for the option weights in a seat's context (``simcore.distill.Scorer``)."""
    return g.view(np.float64)[G_DIST_U:G_DIST_U + DIST_SHAPE[1]]


@njit((TT, GT, *POLICY_SIG.args[1:3], I8, I8, I8), cache=True, _nrt=False,
      no_cpython_wrapper=True)
def distilled_pick(t, g, obs, opts, seat, kind, n):
    """The distilled policy's choice among the n option rows (``simcore.distill.scorer``,
    the user policy's code) under the batch's weights (``T_DIST``), from the part of the
    seat's observation it reads (``observe_standing``), written here into ``obs``."""
    observe_standing(g, obs, seat)
    return DIST.choose(distilled_weights(t), kind, obs, opts, n, distilled_u(g))


@njit(cache=True, _nrt=False, inline="always")
def distilled_weigh(t, s, seat, kind):
    """The distilled policy's option weights in the seat's context at a decision of ``kind``,
    found before its options (the context reads no rows), for an engine that scores each
    option as it finds it (``distilled_score``) instead of writing its row."""
    obs = s.obs[:OBS_LEN]
    observe_standing(s.g, obs, seat)
    u = distilled_u(s.g)
    DIST.weigh(distilled_weights(t), kind, obs, s.opts, 0, u)
    return u


@njit(cache=True, _nrt=False, inline="always")
def distilled_score(u, points, pay_potions, pay_wands, gain_potions, gain_wands, lightning,
                    penalty, brave, risk, stop, target, role):
    """The distilled policy's score, under ``distilled_weigh``'s ``u``, of the option whose row
    ``offer`` would write from these values (and the brave row's ``risk``): ``distilled_pick``'s
    score of that row, to the bit."""
    return DIST.total(option_of(points, penalty, gain_potions, gain_wands, lightning,
                                pay_potions + pay_wands, brave, risk, stop, target, role), u)


@njit((TT, GT, *POLICY_SIG.args[1:3], I8, I8, I8), cache=True, _nrt=False,
      no_cpython_wrapper=True)
def fm_decide(t, g, obs, opts, seat, kind, n):
    """``decide`` in the forward model: the logged choice while the log lasts (after any
    determinization marked at this decision), then halt: the seat, kind, number of options,
    every seat's observation, the option rows and a copy of the state are kept (after the log:
    the rows as float64), and the seats turn random to let the game run out without writing
    rows (``forward.py``). Every seat plays ``FM_SEAT``, a user policy's id, so only ``ask``
    (the user policies' path) pays for the test."""
    k = g[G_DECISIONS]
    for m in range(g[G_N_MARKS]):     # (seat -1 - s: s's oracle)
        if g[G_MARKS + 3 * m] == k:
            seat_m, seed = g[G_MARKS + 3 * m + 1], g[G_MARKS + 3 * m + 2]
            if seat_m >= 0:
                determinize(t, g, seat_m, seed)
            else:           # an oracle's search (simcore.search): new coming draws only
                reseed(streams(g), seed, N_CHANCE - 1 - seat_m)
    if k < g[G_FM_STOP]:
        c = g[g[G_LOG_AT] + 4 * k + 3]
        if c < 0 or c >= n:
            if g[G_ERROR] == 0:
                g[G_ERROR], g[G_ERR_SEAT], g[G_ERR_KIND] = 2, seat, kind
                g[G_ERR_CHOICE], g[G_ERR_N] = c, n
            c = 0
        record(g, seat, kind, n, c)
        return c
    base = g[G_SEARCH]
    if base > 0 and g[base + SR.H_MODE] == SR.TREE:
        if g[G_HORIZON] and not g[G_LAST_ROUND]:
            g[G_LAST_ROUND] = g[G_ROUND] + g[G_HORIZON] - 1
        keys = SR.keys_at(g, base)
        for i in range(n):
            g[keys + i] = action_key(kind, opts[i])
        pick = -1
        prior = SR.prior_policy(g, base, g[G_PLAYOUTS + seat], P.DISTILLED)
        if prior == P.DISTILLED:
            pick = distilled_pick(t, g, obs[:OBS_LEN], opts, seat, kind, n)
        elif prior > P.RANDOM:
            w = g.view(np.float64)
            at = sc(seat, S_WEIGHTS)     # the playout's (``search``)
            pick = P._best(opts, n, (w[at], w[at + 1], w[at + 2], w[at + 3]))
        c = SR.step(g, base, n, seat, pick)
        if g[base + SR.H_MODE] == SR.PLAYOUT:
            for p in range(g[G_NP]):
                g[sc(p, S_POLICY)] = g[G_PLAYOUTS + p]
        record(g, seat, kind, n, c)
        return c
    g[G_HALTED] = 1
    g[G_PEND], g[G_PEND + 1], g[G_PEND + 2] = seat, kind, n
    snap = g[G_LOG_AT] + 4 * g[G_LOG_CAP]
    for i in range(t[T_LOG]):
        g[snap + i] = g[i]
    rows = g.view(np.float64)[snap + t[T_LOG]:snap + t[T_LOG] + n * P.N_FEATURES]
    for i in range(n):
        for f in range(P.N_FEATURES):
            rows[i * P.N_FEATURES + f] = opts[i, f]
    for p in range(g[G_NP]):
        observe(t, g, obs[OBS_LEN * (1 + p):OBS_LEN * (2 + p)], p)
        g[sc(p, S_POLICY)] = P.RANDOM    # nobody writes option rows any more
    return 0


@njit((TT, GT, *POLICY_SIG.args[1:3], I8, I8, I8), cache=True, _nrt=False,
      no_cpython_wrapper=True)
def restricted(t, g, obs, opts, seat, kind, n):
    """A restricted seat's choice among the n rows (``simcore.restrict``): the probe's rows
    removed or kept alone (``restrict_rows``), then the base policy's choice among the rest
    (one left is taken without asking), as an index of the n rows; ``n`` when the base
    policy's choice is illegal."""
    w = g[sc(seat, S_RESTRICT):sc(seat, S_RESTRICT) + RS.RW]
    bounds = w.view(np.float64)
    keep = g[G_RMAP:G_RMAP + n]
    m = RS.restrict_rows(opts, n, kind, w[RS.R_KINDS], w[RS.R_COLUMN], bounds[RS.R_LO],
                         bounds[RS.R_HI], w[RS.R_ALWAYS], keep)
    k = m if m > 0 else n
    base = w[RS.R_BASE]
    if k == 1:
        c = 0
    elif base == P.RANDOM:
        c = randint(g.view(np.uint64), G_ST + N_CHANCE + seat, k)
    elif base == P.DISTILLED:
        c = distilled_pick(t, g, obs[:OBS_LEN], opts, seat, kind, k)
    elif base >= 0:
        wt = g.view(np.float64)
        at = sc(seat, S_WEIGHTS)
        c = P._best(opts, k, (wt[at], wt[at + 1], wt[at + 2], wt[at + 3]))
    else:
        rng = g.view(np.uint64)[G_ST + N_CHANCE + seat:G_ST + N_CHANCE + 1 + seat]
        observe(t, g, obs, seat)
        c = policy_at(g[G_UF - 1 - base])(kind, obs, opts, k, rng)
    if m <= 0:
        return c
    return keep[c] if 0 <= c < k else n


@njit((TT, ST.types[0], *POLICY_SIG.args[1:3], I8, I8, I8),
      cache=True, _nrt=False, no_cpython_wrapper=True)
def ask(t, g, obs, opts, seat, kind, n):
    """``decide`` for a user policy, on the few arrays it reads (a call passes every array of
    its arguments); only user policies read the observation. In the forward model
    ``fm_decide``, for a search agent's seat ``search_seat``."""
    pid = g[sc(seat, S_POLICY)]
    if pid == FM_SEAT:
        return fm_decide(t, g, obs, opts, seat, kind, n)
    if pid == SR.SEARCH_ID:
        c = search_at(g[G_SEARCH_FN])(t, g, seat, n)
    elif pid == RS.RESTRICTED_ID:
        c = restricted(t, g, obs, opts, seat, kind, n)
    else:
        rng = g.view(np.uint64)[G_ST + N_CHANCE + seat:G_ST + N_CHANCE + 1 + seat]
        observe(t, g, obs, seat)
        c = policy_at(g[G_UF - 1 - pid])(kind, obs, opts, n, rng)
    if c < 0 or c >= n:
        if g[G_ERROR] == 0:
            g[G_ERROR] = 1
            g[G_ERR_SEAT] = seat
            g[G_ERR_KIND] = kind
            g[G_ERR_CHOICE] = c
            g[G_ERR_N] = n
        c = 0
    record(g, seat, kind, n, c)
    return c


@njit((TT, ST, I8, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def builtin_choice(t, s, seat, kind, n):
    """A built-in policy's choice, always legal: the random policy's draw, the distilled
    policy's pick from the rows, or the best option ``offer`` kept for a heuristic. One small
    call at each ``decide``: inlining the draw and the record there had cost ~6 s of cold
    compile."""
    pid = s.g[sc(seat, S_POLICY)]
    if pid == P.RANDOM:
        c = randint(s.g.view(np.uint64), G_ST + N_CHANCE + seat, n)
    elif pid == P.DISTILLED:
        c = distilled_pick(t, s.g, s.obs[:OBS_LEN], s.opts, seat, kind, n)
    else:
        c = s.g[G_BEST]
    record(s.g, seat, kind, n, c)
    return c


@njit(cache=True, inline="always", _nrt=False, no_cpython_wrapper=True)
def decide(t, s, seat, kind, n):
    """Ask the seat's policy (a single option is taken without asking): a built-in one by
    ``builtin_choice``, a user policy by ``ask``."""
    if n == 1:
        return 0
    if s.g[sc(seat, S_POLICY)] >= 0:
        return builtin_choice(t, s, seat, kind, n)
    return ask(t, s.g, s.obs, s.opts, seat, kind, n)
