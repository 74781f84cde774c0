"""Per-game random streams: the same (seed, game) is the same game everywhere.

Each game owns a few independent splitmix64 streams: first one per chance source the game
declares (``simcore.games.Game.chance``: stream i draws source i's cards, tiles or dice), then
one per seat (stream ``n_chance + seat``: that seat's policy). A stream's state depends only on
the root key, the game's index and the stream number, never on the thread or the batch that
plays it, so a policy that draws more or fewer numbers cannot shift any chance source, nor one
source another (common random numbers). A *redraw* gives the streams of a bit mask another key
(``redraw_key``): those sources are drawn anew and every other draw stays as it was (what
``simcore.simulate``'s ``redraw`` and ``analyses.luck_by_source`` rest on).

The compiled functions work on a ``uint64`` state array (one slot per stream); ``PyRng`` is the
same generator on Python ints for the reference engines. ``tests/simcore`` checks they agree.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB

_U_GOLDEN = np.uint64(GOLDEN)
_U_M1 = np.uint64(_M1)
_U_M2 = np.uint64(_M2)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U11 = np.uint64(11)
_U8 = np.uint64(8)
_U1 = np.uint64(1)


NO_REDRAW = (0, 0)
"""A redraw of no stream: (bit mask of the streams drawn anew, their key)."""

GAMES_LIMIT = 1 << 56
"""Game indices below this get their own streams (``seed_streams`` shifts the index 8 bits
into 64): a larger index would replay a smaller one's game."""


def root_key(seed: int) -> int:
    """The 64-bit root key of a user's seed (any non-negative int)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0])


def redraw_key(seed: int, k: int) -> int:
    """The key of redraw ``k`` of ``seed``'s games: a child of the seed's own entropy
    (``SeedSequence`` spawn key), independent of the root key and of every other redraw."""
    root_key(seed)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"a redraw's key must be a non-negative integer, got {k!r}")
    ss = np.random.SeedSequence(int(seed), spawn_key=(int(k),))
    return int(ss.generate_state(1, np.uint64)[0])


# ---------------------------------------------------------------- compiled

@njit(cache=True, inline="always")
def mix64(z):
    z = np.uint64(z)
    z = (z ^ (z >> _U30)) * _U_M1
    z = (z ^ (z >> _U27)) * _U_M2
    return z ^ (z >> _U31)


@njit(cache=True, inline="always")
def stream_seed(key, game, s, redraw, alt):
    """Stream ``s`` of game number ``game``: from ``alt`` where bit s of ``redraw`` is set,
    else from ``key``."""
    k = np.uint64(alt) if (np.int64(redraw) >> np.int64(s)) & 1 else np.uint64(key)
    return mix64(k ^ mix64((np.uint64(game) << _U8) + np.uint64(s) + _U1))


@njit(cache=True)
def seed_streams(key, game, state, redraw, alt):
    """Fill ``state`` (uint64[n_streams]) with the streams of game number ``game`` (the
    streams of the bit mask ``redraw`` from the key ``alt``: 0 for none)."""
    for s in range(state.shape[0]):
        state[s] = stream_seed(key, game, s, redraw, alt)


@njit(cache=True, _nrt=False)
def reseed(state, seed, keep):
    """New streams from ``seed`` for every stream of ``state`` but ``keep`` (a seat's own, or
    -1): a determinized game's chance and the other seats' coming draws, which the seat
    cannot know."""
    for k in range(state.shape[0]):
        if k != keep:
            state[k] = mix64(np.uint64(seed) ^ mix64(np.uint64(k) + _U_GOLDEN))


@njit(cache=True, inline="always")
def next_u64(state, k):
    state[k] = state[k] + _U_GOLDEN
    return mix64(state[k])


@njit(cache=True, inline="always")
def randint(state, k, n):
    """Uniform integer in [0, n) for 0 < n < 2**32 (Lemire's multiply-shift)."""
    return np.int64(((next_u64(state, k) >> _U32) * np.uint64(n)) >> _U32)


@njit(cache=True, inline="always")
def uniform(state, k):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(state, k) >> _U11) * (1.0 / 9007199254740992.0)


@njit((types.uint64[::1], types.int64, types.int64[::1], types.int64), cache=True)
def shuffle(state, k, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place (one signature: the typing of a call site
    had compiled a second copy for a literal ``n``)."""
    for i in range(n - 1, 0, -1):
        j = randint(state, k, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


@njit((types.uint64[::1], types.int64, types.int64[::1], types.int64), cache=True,
      _nrt=False)
def shuffle_set(state, k, arr, n):
    """``shuffle`` of ``arr[:n]`` sorted first: the result depends on which values the slice
    holds, never on their order (a determinization must not carry the true order of a hidden
    deck into its sample)."""
    for i in range(1, n):
        v, j = arr[i], i
        while j > 0 and arr[j - 1] > v:
            arr[j] = arr[j - 1]
            j -= 1
        arr[j] = v
    shuffle(state, k, arr, n)


# ---------------------------------------------------------------- reference

def _mix64_py(z: int) -> int:
    z &= MASK
    z = ((z ^ (z >> 30)) * _M1) & MASK
    z = ((z ^ (z >> 27)) * _M2) & MASK
    return z ^ (z >> 31)


class PyRng:
    """The same streams as the compiled functions, on Python ints (for the reference engines)."""

    def __init__(self, key: int, game: int, chance: int, seats: int,
                 redraw: tuple[int, int] = NO_REDRAW):
        """``chance`` chance streams, then ``seats`` seat streams; ``redraw``: (bit mask of the
        streams drawn from the other key, that key), as ``seed_streams``."""
        mask, alt = redraw
        self.seat0 = chance
        self.state = [_mix64_py((alt if mask >> s & 1 else key) ^ _mix64_py((game << 8) + s + 1))
                      for s in range(chance + seats)]

    def next_u64(self, k: int) -> int:
        self.state[k] = (self.state[k] + GOLDEN) & MASK
        return _mix64_py(self.state[k])

    def randint(self, k: int, n: int) -> int:
        return ((self.next_u64(k) >> 32) * n) >> 32

    def uniform(self, k: int) -> float:
        return (self.next_u64(k) >> 11) * (1.0 / 9007199254740992.0)

    def shuffle(self, k: int, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.randint(k, i + 1)
            items[i], items[j] = items[j], items[i]

    def seat(self, s: int) -> int:
        """The stream of seat ``s``."""
        return self.seat0 + s

    def stream_array(self, k: int) -> np.ndarray:
        """A one-slot uint64 array holding stream k, to hand to a compiled policy."""
        return np.array([self.state[k]], dtype=np.uint64)

    def set_stream(self, k: int, arr: np.ndarray) -> None:
        """Take back stream k after a compiled policy advanced it."""
        self.state[k] = int(arr[0])
