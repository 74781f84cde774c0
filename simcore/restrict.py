"""Restricted play (Jaffe 2012): a seat plays its policy with the options a probe
(``simcore.games.Probe``) matches removed before the policy chooses (``never``) or kept alone
(``always``), in the compiled engines at full speed and in the reference engines alike.

A restricted seat is named ``base[never=thing]`` (``cloud[never=witch]``,
``careful[points=1.2,always=brave]``), or built with ``restricted(base, "never_witch")``. The
engines play it under the policy id ``RESTRICTED_ID`` with its words (``words``: the base
policy's id and the probe) and choose with ``restrict_rows`` then the base policy; the
reference engines wrap the base policy in ``RowRestriction``, which also counts how often
the probe acted.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from .games import Probe

RESTRICTED_ID = -63
"""The policy id of a restricted seat in every engine (user policies are -1 - i, i < 8,
search seats ``simcore.search.SEARCH_ID``)."""
R_BASE, R_KINDS, R_COLUMN, R_LO, R_HI, R_ALWAYS = range(6)
RW = 6
"""Words per seat: the base policy's id, the probed kinds (bit mask), the feature column,
its lowest and highest matching value (float64 bits) and 1 for ``always``."""
ROW_MODES = ("never", "always")
_SPEC = re.compile(r"^\s*(.*?)\s*\[(.*)\]\s*$")


@dataclass(frozen=True)
class Restricted:
    """A policy (a built-in name, a heuristic, a user policy) played under one probe."""

    base: Any
    probe: str          # the probe's name, ``never_witch``

    @property
    def name(self) -> str:
        mode, _, thing = self.probe.partition("_")
        base = self.base if isinstance(self.base, str) else getattr(self.base, "name",
                                                                    repr(self.base))
        inner = f"{mode}={thing}"
        return f"{base[:-1]},{inner}]" if base.endswith("]") else f"{base}[{inner}]"


def restricted(base: Any, probe: str) -> Any:
    """``base`` played under the probe named ``probe`` (``"never_witch"``): for a name, the
    policy name ``base[never=witch]``; else a ``Restricted`` the resolver takes. A horizon
    probe is another policy (``horizon_limited``)."""
    if not isinstance(probe, str) or "_" not in probe:
        raise ValueError(f"a probe is named mode_thing (e.g. 'never_witch'), got {probe!r}")
    r = Restricted(base, probe)
    return r.name if isinstance(base, str) else r


def horizon_limited(base: Any, probe: Probe, is_agent: bool) -> str | None:
    """The horizon-limited player a ``horizon`` probe makes of ``base``: its ``swap`` twin, or
    (``is_agent``: ``base`` is a search agent's name) the agent with the probe's settings
    (``ismcts-30[horizon=1]``); None where the probe does not apply to ``base``."""
    swap = dict(probe.swap)
    if isinstance(base, str) and base in swap:
        return swap[base]
    if is_agent and probe.settings and isinstance(base, str):
        return f"{base[:-1]},{probe.settings}]" if base.endswith("]") else \
            f"{base}[{probe.settings}]"
    return None


def find(probes: Sequence[Probe], game: str, name: str) -> Probe:
    """The probe called ``name`` among a game's; a clear error listing them otherwise."""
    for p in probes:
        if p.name == name:
            return p
    raise ValueError(f"{game}: unknown probe {name!r}; its probes are "
                     f"{[p.name for p in probes]}")


def is_restricted(p: Any) -> bool:
    """Whether a seat's entry is a restricted policy (``Restricted``, ``base[never=thing]``)."""
    if isinstance(p, Restricted):
        return True
    m = _SPEC.match(p) if isinstance(p, str) else None
    return bool(m) and any(x.partition("=")[0].strip() in ROW_MODES
                           for x in m.group(2).split(","))


def split(p: Any, probes: Sequence[Probe], game: str) -> tuple[Any, Probe | None]:
    """A seat's entry as (base policy, row probe or None): ``cloud[never=witch]`` ->
    ``("cloud", never_witch)``, other settings in the brackets kept with the base."""
    if isinstance(p, Restricted):
        base, probe = p.base, find(probes, game, p.probe)
    elif isinstance(p, str) and (m := _SPEC.match(p)):
        items = [x.strip() for x in m.group(2).split(",") if x.strip()]
        mine = [x for x in items if x.partition("=")[0].strip() in ROW_MODES]
        if not mine:
            return p, None
        if len(mine) > 1:
            raise ValueError(f"{game}: policy {p!r} gives {len(mine)} restrictions; a seat "
                             f"plays under one")
        mode, _, thing = (x.strip() for x in mine[0].partition("="))
        rest = [x for x in items if x not in mine]
        base = f"{m.group(1)}[{','.join(rest)}]" if rest else m.group(1)
        probe = find(probes, game, f"{mode}_{thing}")
    else:
        return p, None
    if probe.mode not in ROW_MODES:
        raise ValueError(f"{game}: probe {probe.name!r} is a horizon-limited player, not a "
                         f"restriction of options (analyses.restricted plays it)")
    return base, probe


def words(base_id: int, probe: Probe) -> np.ndarray:
    """The engine's words for one restricted seat (``RW``)."""
    w = np.zeros(RW, np.int64)
    w[R_BASE] = base_id
    w[R_KINDS] = sum(1 << k for k in set(probe.kinds))
    w[R_COLUMN] = probe.column
    w[R_LO:R_HI + 1].view(np.float64)[:] = (probe.lo, probe.hi)
    w[R_ALWAYS] = probe.mode == "always"
    return w


@njit(cache=True, _nrt=False)
def restrict_rows(opts, n, kind, kinds, column, lo, hi, always, keep):
    """Apply a probe to the n option rows of a decision of ``kind``: when it removes some
    options (and leaves one), move the kept rows to the front in order, their indices into
    ``keep``, and return how many are kept; else 0 (the kind is not probed, nothing is
    removed or, ``always``, nothing matches), or -1 when every option matched a ``never``
    probe (played unrestricted)."""
    if not (kinds >> kind) & 1:
        return 0
    m = 0
    for i in range(n):
        v = opts[i, column]
        if (lo <= v and v <= hi) == (always != 0):
            keep[m] = i
            m += 1
    if m == n:
        return 0
    if m == 0:
        return 0 if always else -1
    for j in range(m):
        if keep[j] != j:
            for f in range(opts.shape[1]):
                opts[j, f] = opts[keep[j], f]
    return m


class RowRestriction:
    """The reference engines' restricted seat: ``policy`` choosing among the rows the probe
    keeps; ``counts`` tallies the probed decisions where it removed options (``removed``) and
    where every option matched a ``never`` probe (``unrestricted``)."""

    def __init__(self, policy: Any, probe: Probe):
        self.policy, self.probe = policy, probe
        w = words(0, probe)
        self.args = (int(w[R_KINDS]), probe.column, float(probe.lo), float(probe.hi),
                     int(w[R_ALWAYS]))
        self.counts = {"removed": 0, "unrestricted": 0}

    def __call__(self, kind, obs, opts, n_opts, rng):
        rows = np.array(opts[:n_opts], np.float32)
        keep = np.zeros(n_opts, np.int64)
        m = restrict_rows(rows, n_opts, kind, *self.args, keep)
        if m == -1:
            self.counts["unrestricted"] += 1
        if m <= 0:
            return self.policy(kind, obs, opts, n_opts, rng)
        self.counts["removed"] += 1
        if m == 1:
            return int(keep[0])
        c = self.policy(kind, obs, rows, m, rng)
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool) and 0 <= c < m:
            return int(keep[c])
        raise ValueError(f"returned {c!r} among the {m} options left by probe "
                         f"{self.probe.name!r} (legal: 0..{m - 1})")
