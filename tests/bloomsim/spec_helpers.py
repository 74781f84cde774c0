"""Helpers for the spec scenario tests: a scripted policy that picks options by meaning
(target area / tower / role), records every question it was asked, and fails on a question
it was not told to expect; cloud tiles by stars; name look-ups; a brute-force set scorer."""

from __future__ import annotations

import functools
from itertools import combinations

import numpy as np

from bloomsim import policies as P
from bloomsim import reference as R

DECLINE = "decline"  # the decline / stop row (F_PASS = 1)
ANY = "any"  # the first non-pass row (SELECT: any role; GATHER / WORKS: take / pay)
CARD = "card"  # ALTERNATIVE: the card's own effect (first row)
EVENT = "event"  # ALTERNATIVE: the event's effect (second row)

KINDS = {name: i for i, name in enumerate(P.KIND_NAMES)}


class Script:
    """A policy ``f(kind, obs, opts, n_opts, rng) -> index`` answering from per-kind queues.

    ``Script(seat, log, move=[area], deliver=[tower, DECLINE], lead=[(role, brave)], ...)``.
    Every question is recorded in ``calls`` (kind, option rows) and in the shared ``log``
    as (seat, kind name); a question whose queue is empty raises AssertionError."""

    def __init__(self, seat: int, log: list | None = None, **queues):
        self.seat = seat
        self.log = log if log is not None else []
        self.queues = {KINDS[k]: list(v) for k, v in queues.items()}
        self.calls: list[tuple[int, np.ndarray]] = []

    def __call__(self, kind, obs, opts, n_opts, rng):
        rows = np.array(opts[:n_opts], dtype=np.float64).copy()
        self.calls.append((int(kind), rows))
        self.log.append((self.seat, P.KIND_NAMES[kind]))
        q = self.queues.get(int(kind))
        if not q:
            raise AssertionError(
                f"seat {self.seat}: unexpected {P.KIND_NAMES[kind]} decision; options:\n{rows}")
        return pick(int(kind), rows, q.pop(0))

    def asked(self, kind: str) -> list[np.ndarray]:
        return [rows for k, rows in self.calls if k == KINDS[kind]]

    def offered(self, kind: str, call: int = 0) -> set[int]:
        """Targets of the non-pass options of the call-th question of this kind."""
        rows = self.asked(kind)[call]
        return {int(r[P.F_TARGET]) for r in rows if r[P.F_PASS] == 0}

    def leftover(self) -> dict:
        return {P.KIND_NAMES[k]: v for k, v in self.queues.items() if v}


def pick(kind: int, rows: np.ndarray, want) -> int:
    idx = None
    if isinstance(want, str) and want == DECLINE:
        idx = _first(rows, lambda r: r[P.F_PASS] == 1)
    elif isinstance(want, str) and want == ANY:
        idx = _first(rows, lambda r: r[P.F_PASS] == 0)
    elif kind == P.ALTERNATIVE:
        idx = {CARD: 0, EVENT: 1}[want]
    elif kind == P.LEAD:
        role, brave = want
        idx = _first(rows, lambda r: r[P.F_ROLE] == role and r[P.F_BRAVE] == int(brave)
                     and r[P.F_PASS] == 0)
    elif kind == P.FOLLOW:
        idx = _first(rows, lambda r: r[P.F_BRAVE] == int(want) and r[P.F_PASS] == 0)
    elif kind == P.SELECT:
        idx = _first(rows, lambda r: r[P.F_ROLE] == want and r[P.F_PASS] == 0)
    else:
        idx = _first(rows, lambda r: r[P.F_TARGET] == want and r[P.F_PASS] == 0)
    if idx is None:
        raise AssertionError(f"{P.KIND_NAMES[kind]}: no option {want!r} among\n{rows}")
    return idx


def _first(rows, cond):
    for i, r in enumerate(rows):
        if cond(r):
            return i
    return None


def new(n: int = 4, seed: int = 0, rules=None, keep_clouds: bool = False):
    """A fresh game with no clouds (unless kept) and every seat scripted to answer nothing."""
    g = R.new_game(rules=rules, n_players=n, seed=seed)
    g.round = 1
    if not keep_clouds:
        g.clouds = {}
    log: list = []
    for s in range(n):
        g.policies[s] = Script(s, log)
    return g, log


def script(g, seat: int, log: list | None = None, **queues) -> Script:
    sc = Script(seat, log, **queues)
    g.policies[seat] = sc
    return sc


def A(g, name: str) -> int:
    return R.area(g, name)


def T(g, name: str) -> int:
    return R.tower(g, name)


def Ro(g, name: str) -> int:
    return R.role(g, name)


def ev(g, name: str) -> int:
    return list(g.rules.event_ids).index(name)


def tiles(rules) -> list[tuple[int, int]]:
    """(stars, lightning) of each cloud tile, in the rules' order."""
    out = []
    for t in rules.cloud_tiles:
        out += [(int(t["stars"]), int(t["lightning"]))] * int(t["count"])
    return out


def put_cloud(g, name: str, stars: int) -> int:
    """Place an unused tile with ``stars`` stars on a free cloud space of area ``name``;
    returns its lightning."""
    free = [i for i, a in enumerate(g.cloud_space_area) if a == A(g, name) and i not in g.clouds]
    if not free:
        raise ValueError(f"no free cloud space on {name}")
    used = set(g.clouds.values())
    for i, (s, light) in enumerate(tiles(g.rules)):
        if s == stars and i not in used:
            g.clouds[free[0]] = i
            return light
    raise ValueError(stars)


def clouded(g, name: str) -> bool:
    return R.clouded(g, A(g, name))


def total_resources(g, seat: int) -> int:
    return sum(g.potions[seat]) + g.wands[seat]


@functools.lru_cache(maxsize=None)
def brute_sets(counts: tuple[int, int, int, int], four: int = 4, three: int = 2) -> int:
    """Best score over every way to take sets of 4 and of 3 different kinds out of counts."""
    best = 0
    for size, pts in ((4, four), (3, three)):
        for kinds in combinations(range(4), size):
            if all(counts[k] > 0 for k in kinds):
                rest = tuple(c - (k in kinds) for k, c in enumerate(counts))
                best = max(best, pts + brute_sets(rest, four, three))
    return best
