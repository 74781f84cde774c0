"""Traps (rules section 7): what a taken trap tile does (``tiles.take_tile`` springs it).
"""
from __future__ import annotations

from simcore.rng import randint

from ..rules import CH_HANDS, ITEM, TREASURE
from .tables import R_PIT_SKIPS
from .state import HNI, HTRE, OVER, SKIP, hand_remove, helper, nth_held, streams
from .board import put_tile
from .rize import find_players, rize_enters


@helper
def alarm(G, d):
    """Rize moves straight to the trap's district d and finds every player in it."""
    rize_enters(G, d)
    if G[OVER] == 0:
        find_players(G, d)


@helper
def pitfall(G, s):
    """The player skips their next turn (``pitfall_skips`` turns)."""
    G[SKIP + s] += G[R_PIT_SKIPS]


@helper
def prank(G, s, h):
    """Discard one random item; without items return one random treasure face up to the trap's
    house h."""
    n = G[HNI + s]
    if n > 0:
        hand_remove(G, s, nth_held(G, s, ITEM, randint(streams(G), CH_HANDS, n)))
    else:
        n = G[HTRE + s]
        if n > 0:
            u = nth_held(G, s, TREASURE, randint(streams(G), CH_HANDS, n))
            hand_remove(G, s, u)
            put_tile(G, h, u, 1)
