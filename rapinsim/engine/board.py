"""The board: tiles into houses and pawns between districts (``put_tile``, ``move_pawn``), the
time marker of an empty district, where a search is allowed, the legal steps (rule tables built
once per batch: ``R_NSTEPS``, ``R_STEP_TO``) and the option lists over a district's houses.
"""
from __future__ import annotations

import numpy as np

from ..policies import O_HOUSE, O_STEP
from ..rules import EMPTY, TRAP
from .tables import MAXD, MAXN, R_DEG, R_H, R_HD, R_NSTEPS, R_PERM, R_STEP_TO
from .state import (BOARD, FACE_UP, MARKER, NPD, NT, N_MARKED, OCC, POS, RETURNED, RIZE, SEARCHED,
                    SEEN, TK, helper, i8_at)
from .decisions import option


@helper
def put_tile(G, h, t, face_up):
    """Tile t into the empty house h (back from a hand or Rize's bag: ``RETURNED``)."""
    G[NT + G[R_HD + h]] += G[BOARD + h] == EMPTY
    G[BOARD + h] = t
    G[FACE_UP + h] = face_up
    G[RETURNED + t] = 1


@helper
def move_pawn(G, s, d):
    e = G[POS + s]
    G[NPD + e] -= 1
    G[OCC + e] ^= 1 << s
    G[POS + s] = d
    G[NPD + d] += 1
    G[OCC + d] |= 1 << s


@helper
def update_time_marker(G, d):
    """An empty district gets the time marker; a refilled one loses it unless markers are
    permanent. Written without branches (Rize enters a district every turn)."""
    had = G[MARKER + d]
    now = (G[NT + d] == 0) | (had & G[R_PERM])
    G[MARKER + d] = now
    G[N_MARKED] += now - had


@helper
def can_search(G, s):
    """A tile here, no other pawn and not Rize, no search yet this turn (one expression, no
    branches)."""
    d = G[POS + s]
    return (G[SEARCHED] == 0) & (d != G[RIZE]) & (G[NPD + d] == 1) & (G[NT + d] > 0)


@helper
def legal_at(G, s):
    """Where seat s's legal steps are listed in the rule tables (``R_NSTEPS``, ``R_STEP_TO``:
    the rule is applied once per batch, in ``rule_vector``)."""
    return G[RIZE] * MAXD + G[POS + s]


@helper
def n_steps(G, s):
    """The number of seat s's legal steps (one load)."""
    return np.int64(G[R_NSTEPS + legal_at(G, s)])


@helper
def nth_step(G, s, r):
    """The r-th (from 0; r < ``n_steps``) legal step, ascending (one load)."""
    return np.int64(i8_at(G, R_STEP_TO)[legal_at(G, s) * G[R_DEG] + r])


@helper
def step_options(G, s, m):
    """STEP options from option m on (legal steps, ascending); the new count. The board's
    most neighbours are written, a fixed trip count (slots past the count are free); the
    state is read before the options are written (they share G, so would be reloaded)."""
    n = n_steps(G, s)
    row = legal_at(G, s) * G[R_DEG]
    for k in range(G[R_DEG]):
        option(G, m + k, O_STEP, np.int64(i8_at(G, R_STEP_TO)[row + k]))
    return m + n


@helper
def look(G, s, d):
    h0 = d * G[R_H]
    for h in range(h0, h0 + G[R_H]):
        if G[BOARD + h] != EMPTY and G[FACE_UP + h] == 0:
            G[SEEN + s * MAXN + G[BOARD + h]] = 1


@helper
def house_options(G, s, d, skip_traps):
    """HOUSE options for the tiles of district d (without traps if skip_traps); count."""
    m = 0
    h0 = d * G[R_H]
    for h in range(h0, h0 + G[R_H]):
        t = G[BOARD + h]
        if t != EMPTY and not (skip_traps and G[TK + t] == TRAP):
            option(G, m, O_HOUSE, h)
            m += 1
    return m
