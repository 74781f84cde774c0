"""The ``distilled`` policy of the Lapin treasure hunt: search's play fitted over the option
features (``simcore.distill``; the fit in ``data/imitation.json``), then improved by an
evolution strategy against the best heuristics (``analyses.distill.improve``); its weights in
``data/distilled.json``."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from simcore.distill import Features, bundled

from .policies import (DEFAULT_W, F_ARG, F_EXTRA, F_KNOWN, F_PLAYERS, F_RIZE, F_TILE, F_TILES,
                       F_UNSEEN, F_VALUE, F_WHAT, KEEPER, KIND_NAMES, O_CHARACTER, O_ITEM,
                       O_SKILL, OB_ACTIONS, OB_CHEST_HELD, OB_PLAYERS, OB_RIZE_STEPS, OB_SEAT,
                       OB_TREAS, OB_TREASURES, OPTION_NAMES, _danger_reach, _keeper_score,
                       _score, data_ptr)
from .rules import CHARACTERS, ITEMS

FILE = Path(__file__).parent / "data" / "distilled.json"
OPPONENTS = ("keeper", "evader", "careful")
"""The opponents of the search seat whose decisions are recorded (``analyses.distill``)."""

OPTION = (("keeper",) + tuple(f"is_{w}" for w in OPTION_NAMES)
          + tuple(f"item_{i}" for i in ITEMS) + tuple(f"character_{c}" for c in CHARACTERS)
          + ("known", "treasure", "item", "trap", "chest", "value", "danger", "rize_there",
             "rize_next", "players", "tiles", "unseen", "extra"))
GROUPS = (1, len(OPTION_NAMES), len(ITEMS), len(CHARACTERS), 1, 4) + (1,) * 8
_f = np.float64
CONTEXT = ("1", "actions", "lead", "here_danger", "chest_held", "reach/4")


@njit(cache=True, inline="always")
def _option(kind, obs, o, ctx):
    """The option row's features (``OPTION``, laid out by ``GROUPS``: the option code, item,
    character and tile as one-hot indices): ``keeper`` is the keeper heuristic's score,
    ``danger`` whether Rize may reach the option's district before the seat's next turn.
    Inlined into the scorer's loop over the options: a call per option had cost a sixth of a
    distilled game's time, inlining it half a second of cold compile."""
    reach = 4.0 * ctx[5]
    s = _keeper_score(kind, obs, o, reach, _score(KEEPER, kind, data_ptr(obs), data_ptr(o),
                                                   reach, DEFAULT_W))
    w = int(o[F_WHAT])
    known = o[F_KNOWN] > 0
    return (_f(s) / 10.0, w, int(o[F_ARG]) if w == O_ITEM else -1,
            int(o[F_ARG]) if w == O_CHARACTER else int(o[F_EXTRA]) if w == O_SKILL else -1,
            _f(known), int(o[F_TILE]) if known else -1,
            _f(o[F_VALUE]) if known else 0.0, _f(1 <= o[F_RIZE] <= reach), _f(o[F_RIZE] == 0),
            _f(o[F_RIZE] == 1), _f(o[F_PLAYERS]), _f(o[F_TILES]) / 4.0, _f(o[F_UNSEEN]) / 4.0,
            _f(o[F_EXTRA]) if w != O_SKILL else 0.0)


@njit(cache=True, inline="always")
def _context(kind, obs, opts, n_opts):
    """The seat's standing (``CONTEXT``): actions left, its treasures over the most another
    holds, whether Rize may reach it before its next turn, whether it holds Inaba's chest,
    and how far Rize is predicted to reach (the keeper's ``_danger_reach``). Inlined into
    ``weigh``, as ``_option`` into the option loop."""
    reach = _danger_reach(KEEPER, obs, opts, n_opts)
    me = int(obs[OB_SEAT])
    best = np.float32(0.0)
    for q in range(int(obs[OB_PLAYERS])):
        if q != me:
            best = max(best, obs[OB_TREAS + q])
    return (1.0, _f(obs[OB_ACTIONS]) / 3.0, _f(obs[OB_TREASURES] - best) / 2.0,
            _f(1 <= obs[OB_RIZE_STEPS] <= reach), _f(obs[OB_CHEST_HELD + me] > 0),
            _f(reach) / 4.0)


def _prior() -> np.ndarray:
    """The keeper heuristic in these features (its ties broken by a random jitter below 0.5,
    here by the first option)."""
    W = np.zeros((len(KIND_NAMES), len(OPTION), len(CONTEXT)))
    W[:, 0, 0] = 10.0
    return W


FEATURES = Features("rapinsim", 1, KIND_NAMES, OPTION, CONTEXT, _option, _context, _prior,
                    GROUPS)


def distilled():
    """The shipped distilled policy (compiled on first use)."""
    return bundled(FEATURES, FILE)


BUNDLED = {"distilled": distilled}
"""Policies the game ships as data, by name: they play wherever a built-in name does."""
