"""Spreading a batch of games over threads, the same way for both engines.

Each engine compiles one ``nogil`` kernel that plays the games of rows ``lo .. hi-1`` into the
batch's result arrays; ``spread`` hands out units of ``UNIT`` games to
``numba.get_num_threads()`` Python threads, which run the kernel side by side (it holds no
GIL). Units go to whichever thread is free, so a thread slowed by another process on a shared
machine does not hold the batch up, and numba's parallel backend (``prange``), which cost
seconds of every cold compile, is not needed. Games seed their own streams (``simcore.rng``),
so the split never changes a game.
"""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numba

UNIT = 512
"""Games per unit of work: a few milliseconds, so handing units out costs nothing measurable
and the last unit leaves a thread idle only briefly."""


def spread(play_rows: Callable[[int, int], None], n: int, unit: int = UNIT) -> None:
    """Call ``play_rows(lo, hi)`` over ``0 .. n-1`` in units of ``unit`` rows, on
    ``numba.get_num_threads()`` threads of this caller (``play_rows`` must release the GIL)."""
    threads = min(numba.get_num_threads(), -(-n // unit))
    if threads <= 1:
        play_rows(0, n)
        return
    with ThreadPoolExecutor(threads, thread_name_prefix="simcore-games") as pool:
        for done in [pool.submit(play_rows, lo, min(n, lo + unit)) for lo in range(0, n, unit)]:
            done.result()
