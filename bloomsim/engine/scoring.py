"""Scoring (reference: "scoring helpers", "end of game"): the score marker (``add_points``),
a seat's resources, and the end of game's lightning and resource-set points."""
from __future__ import annotations

import numpy as np
from numba import njit

from ..rules import P_FLOOR, P_HAS_FLOOR, P_LIGHT_BEYOND, P_SET3, P_SET4
from .state import I8, ST, S_FLOOR, S_GREEN, S_ORANGE, S_PURPLE, S_SCORE, S_WANDS, TT, sc
from .tables import T_N_LIGHT, lightning_of


@njit((TT, ST, I8, I8, I8), cache=True, _nrt=False, no_cpython_wrapper=True)
def add_points(t, s, seat, delta, src):
    """Move the score marker; the track never goes below the floor."""
    s.g[sc(seat, src)] += delta
    new = s.g[sc(seat, S_SCORE)] + delta
    if t[P_HAS_FLOOR] and new < t[P_FLOOR]:
        s.g[sc(seat, S_FLOOR)] += t[P_FLOOR] - new
        new = t[P_FLOOR]
    s.g[sc(seat, S_SCORE)] = new


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def total_resources(g, seat):
    return (g[sc(seat, S_GREEN)] + g[sc(seat, S_PURPLE)] + g[sc(seat, S_ORANGE)]
            + g[sc(seat, S_WANDS)])


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def lightning_points(t, bolts):
    L = t[T_N_LIGHT]
    if bolts < L:
        return np.int64(lightning_of(t, bolts))
    return np.int64(lightning_of(t, L - 1)) + (bolts - L + 1) * t[P_LIGHT_BEYOND]


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def resource_set_points(t, g, p, o, w):
    """Best split of the four resource kinds into sets of 4 and of 3 different kinds."""
    best = 0
    for x in range(min(g, p, o, w) + 1):
        y = 0
        while (min(g - x, y + 1) + min(p - x, y + 1) + min(o - x, y + 1)
               + min(w - x, y + 1)) >= 3 * (y + 1):
            y += 1
        best = max(best, x * t[P_SET4] + y * t[P_SET3])
    return best
