"""Bit-set helpers both engines use (hands, offered items and roles kept as bit sets)."""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

_ONE = np.uint64(1)


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of a uint64 (one machine instruction)."""
    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@njit(cache=True, inline="always")
def nth_set_bit(w, r):
    """The index of the r-th (from 0) set bit of the 64-bit word w; r < its set bits."""
    w = np.uint64(w)
    for _ in range(r):
        w &= w - _ONE
    return np.int64(trailing_zeros(w))
