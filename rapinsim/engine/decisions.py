"""Decision plumbing: every decision lists its options as rows (``option``: a code and an
argument), the seat's policy chooses (``decide_policy``: a built-in by id with the seat's
weights, a user policy by address, a search seat or the forward model), and the choice is
counted and logged (``record``). ``decide`` draws the random policy's choice inline; ``ask``
is ``decide`` as a compiled call for the rarer decisions. A policy's illegal answer is recorded
(``ERR``) and ends that game; the caller raises.
"""
from __future__ import annotations

from numba import carray, njit

from simcore import restrict as RS
from simcore import search as SR
from simcore.distill import scorer
from simcore.policy import policy_at
from simcore.rng import randint

from .. import stats as S
from ..distilled import FEATURES
from ..policies import DISTILLED, N_FEATURES, N_OBS, RANDOM, choose_weighted
from ..rules import N_CHANCE
from .tables import (ADDR, DIST_SHAPE, DIST_WORDS, DU, DW, LOG_CAP, MO, NW, PID, RESTRICT, RMAP,
                     UF, W)
from .state import (CH_ARG, CH_WHAT, ERR, ERR_CHOICE, ERR_KIND, ERR_N, ERR_SEAT, FM_SEAT, GAME_ST,
                    G_PTR, I64, LOG0, OBS, OPTS, OVER, XS, f32_at, f64_at, fm_at, helper,
                    i64_at, on_g, search_at, streams, u64_at)
from .observation import observe, option_rows

DIST = scorer(FEATURES)


@helper
def option(G, i, what, arg):
    """Write option i: its code and argument (the house of O_SEARCH and O_HOUSE, the seat of
    O_PLAYER, the item of O_ITEM, else the district)."""
    G[CH_WHAT + i] = what
    G[CH_ARG + i] = arg


@helper
def record(G, s, kind, n, c):
    """Count a decision and log it (the count is the log's length)."""
    k = G[GAME_ST + S.G_DECISIONS]
    if k < G[LOG_CAP]:
        at = LOG0 + 4 * k
        G[at], G[at + 1], G[at + 2], G[at + 3] = s, kind, n, c
    G[GAME_ST + S.G_DECISIONS] = k + 1


@njit(I64(G_PTR, I64, I64), cache=True, no_cpython_wrapper=True,
      no_cfunc_wrapper=True)   # carray needs the NRT
def distilled_pick(G, kind, n):
    """The distilled policy's choice among the n option rows (``simcore.distill.scorer``,
    the user policy's code) from the observation, under the batch's weights (``DW``)."""
    return DIST.choose(carray(f64_at(G, DW), DIST_WORDS), kind, carray(f32_at(G, OBS), N_OBS),
                       carray(f32_at(G, OPTS), (MO, N_FEATURES)), n,
                       carray(f64_at(G, DU), DIST_SHAPE[1]))


@njit(I64(G_PTR, I64, I64, I64), cache=True, no_cpython_wrapper=True,
      no_cfunc_wrapper=True)   # carray needs the NRT
def decide_policy(G, s, kind, n):
    """Seat s's policy chooses among the n options. An illegal answer is recorded and ends the
    game (choice 0 is used so the kernels unwind cleanly). A restricted seat
    (``simcore.restrict``) has its base policy choose among the rows its probe keeps (one left
    is taken without asking)."""
    pid = G[PID + s]
    obs = carray(f32_at(G, OBS), N_OBS)
    F = carray(f32_at(G, OPTS), (MO, N_FEATURES))
    if pid != RANDOM and pid != FM_SEAT:  # the random policy reads neither obs nor features;
        observe(G, s)                       # the forward model writes them where it halts
        option_rows(G, s, n, pid < 0)
    rng = carray(u64_at(G, XS + 2 * (N_CHANCE + s)), 1)     # the seat's stream
    m, n_all = 0, n
    keep = carray(i64_at(G, RMAP), MO)
    if pid == RS.RESTRICTED_ID:
        w = carray(i64_at(G, RESTRICT + 2 * RS.RW * s), RS.RW)
        bounds = carray(f64_at(G, RESTRICT + 2 * RS.RW * s), RS.RW)
        m = RS.restrict_rows(F, n, kind, w[RS.R_KINDS], w[RS.R_COLUMN], bounds[RS.R_LO],
                             bounds[RS.R_HI], w[RS.R_ALWAYS], keep)
        pid = w[RS.R_BASE]
        n = m if m > 0 else n
    if m == 1:
        c = 0
    elif pid == DISTILLED:
        c = distilled_pick(G, kind, n)
    elif pid >= 0:
        w = f64_at(G, W + 2 * NW * s)       # the seat's weights (NW of them)
        c = choose_weighted(pid, (w[0], w[1], w[2], w[3], w[4], w[5], w[6]), kind, obs, F, n,
                            rng)
    elif pid == FM_SEAT:                # the forward model (built-in policies never test it)
        return fm_at(i64_at(G, UF)[0])(G, s, kind, n)
    elif pid == SR.SEARCH_ID:
        c = search_at(i64_at(G, ADDR)[0])(G, s, n)
    else:
        c = policy_at(i64_at(G, UF)[-1 - pid])(kind, obs, F, n, rng)
    if c < 0 or c >= n:
        if G[ERR] == 0:
            G[ERR], G[ERR_SEAT], G[ERR_KIND] = 1, s, kind
            G[ERR_CHOICE], G[ERR_N] = min(max(c, -2 ** 31), 2 ** 31 - 1), n
        G[OVER] = 1
        return 0
    if m > 0:
        c = keep[c]
    record(G, s, kind, n_all, c)
    return c


@helper
def decide(G, s, kind, n):
    """Seat s's choice among the n options; the random policy inline (it reads no features)."""
    if G[PID + s] == RANDOM and n > 0:
        c = randint(streams(G), N_CHANCE + s, n)
        record(G, s, kind, n, c)
        return c
    return decide_policy(G, s, kind, n)


@on_g(I64, I64, I64, I64)
def ask(G, s, kind, n):
    """``decide`` as a compiled call, for the rarer decisions (the action decision inlines
    its own: ``random_action`` for the random policy, else ``decide_policy``; each inlined
    copy costs compile time)."""
    return decide(G, s, kind, n)
