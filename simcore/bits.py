"""Bit-set helpers both engines use (hands, offered items and roles kept as bit sets)."""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

_ONE = np.uint64(1)
_HALVES = (np.uint64(32), np.uint64(16), np.uint64(8), np.uint64(4), np.uint64(2), np.uint64(1))


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of a uint64 (one machine instruction)."""
    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def nth_set_bit(w, r):
    """The index of the r-th (from 0) set bit of the 64-bit word w; r < its set bits. A
    binary search by the set bits of each lower half, without branches: r is often a random
    draw, and a loop of r steps mispredicts its exit."""
    w, r, at = np.uint64(w), np.uint64(r), np.uint64(0)
    for half in _HALVES:
        low = popcount(w & ((_ONE << half) - _ONE))
        up = r >= low           # the bit is in the upper half
        w = (w >> half) if up else w
        r = (r - low) if up else r
        at = (at + half) if up else at
    return np.int64(at)
