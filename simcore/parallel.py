"""Spreading a batch of games over threads, the same way for both engines.

Each engine compiles one ``nogil`` kernel that plays units of games into the batch's result
arrays, each unit claimed with ``claim`` from a counter the threads share, until none is left;
``spread`` runs that kernel on ``numba.get_num_threads()`` Python threads side by side while
the calling thread waits (and so can take a Ctrl-C). Units go
to whichever thread is free, so a thread slowed by another process on a shared machine does not
hold the batch up, and numba's parallel backend (``prange``), which cost seconds of every cold
compile, is not needed. Claiming is one atomic add inside the kernel: a thread never returns to
Python (and waits for the GIL, which a frame being built may hold for milliseconds) between
units. Games seed their own streams (``simcore.rng``), so the split never changes a game.
"""
from __future__ import annotations

import threading
from collections.abc import Callable

import numba
import numpy as np
from numba import njit, types
from numba.extending import intrinsic

UNIT = 64
"""Games per unit of work: about a millisecond of heuristic games, so a thread left without
work at the end of a batch idles only briefly, and the claims (one atomic add each) cost
nothing measurable. A batch with a search seat claims games one by one (``unit_of``)."""


def unit_of(searching: bool) -> int:
    """Games per unit of a batch: one where a seat searches (a game takes a fraction of a
    second, and 64 of them would keep a batch of fewer games on one thread and leave the other
    idle for up to a minute at the end of a larger one), else ``UNIT``."""
    return 1 if searching else UNIT


@intrinsic
def _fetch_add(typingctx, counter, delta):
    """Atomically add ``delta`` to ``counter[0]``; returns the value before."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None

    def codegen(context, builder, sig, args):
        ptr = context.make_array(sig.args[0])(context, builder, args[0]).data
        return builder.atomic_rmw("add", ptr, args[1], "monotonic")
    return types.int64(counter, types.int64), codegen


@njit(cache=True, inline="always")
def claim(counter, n):
    """Claim the next unit of rows ``lo .. hi-1`` of ``0 .. n-1``; ``lo == hi`` when none is
    left. ``counter``: ``counter(unit)``, shared by the batch's threads."""
    lo = min(_fetch_add(counter, counter[1]), n)
    return lo, min(lo + counter[1], n)


def counter(unit: int = UNIT) -> np.ndarray:
    """A batch's counter for ``claim``: the next row (0), then ``unit``, the rows per unit."""
    return np.array([0, unit], np.int64)


def spread(play_units: Callable[[np.ndarray], None], n: int, unit: int = UNIT) -> None:
    """Call ``play_units(counter)`` on ``numba.get_num_threads()`` threads at once (fewer for a
    small batch); it must release the GIL and play the units of ``unit`` rows of ``n`` it
    ``claim``s until none is left.

    The calling thread only waits, so that Ctrl-C stops the batch between units: the wait is
    interrupted, the counter is set past the last row (no thread claims another unit) and the
    KeyboardInterrupt goes on. Compiled code cannot be interrupted inside a unit, so a user
    policy that never returns keeps its thread spinning; the threads are daemons, so the
    process can still exit."""
    shared = counter(unit)
    failed: list[BaseException] = []

    def run():
        try:
            play_units(shared)
        except BaseException as e:  # noqa: BLE001 - raised again in the calling thread
            failed.append(e)
    threads = [threading.Thread(target=run, name=f"simcore-games-{i}", daemon=True)
               for i in range(max(1, min(numba.get_num_threads(), -(-n // unit))))]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():       # a signal may wake another thread: look every 0.1 s
                t.join(0.1)
    except KeyboardInterrupt:
        shared[0] = n
        raise
    if failed:
        raise failed[0]
