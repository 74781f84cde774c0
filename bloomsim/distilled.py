"""The ``distilled`` policy of Broom Service: search's play fitted over the option features
(``simcore.distill``; the fit in ``data/imitation.json``), then improved by an evolution
strategy against the best heuristics (``analyses.distill.improve``); its weights in
``data/distilled.json``."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from simcore.distill import Features, bundled

from .policies import (CLOUD_W, F_BRAVE, F_GAIN_POTIONS, F_GAIN_WANDS, F_LIGHTNING, F_PASS,
                       F_PAY_POTIONS, F_PAY_WANDS, F_PENALTY, F_POINTS, F_RISK, F_ROLE,
                       F_TARGET, KIND_NAMES, O_PLAYERS, O_ROUND, O_SEATS, S_GREEN, S_ORANGE,
                       S_PURPLE, S_SCORE, S_WANDS, SEAT_FIELDS, _score)

FILE = Path(__file__).parent / "data" / "distilled.json"
OPPONENTS = ("cloud", "careful", "greedy")
"""The opponents of the search seat whose decisions are recorded (``analyses.distill``)."""
N_ROLES = 10   # the default rules' roles; a role index past them adds no role feature

OPTION = ("cloud", "points", "penalty", "gain_potions", "gain_wands", "lightning", "pay",
          "brave", "brave_risk", "brave_risk_above_0", "brave_risk_above_half", "pass",
          "target") + tuple(f"role_{r}" for r in range(N_ROLES))
GROUPS = (1,) * (len(OPTION) - N_ROLES) + (N_ROLES,)
_f = np.float64
CONTEXT = ("1", "round/7", "lead/10", "potions/5", "wands/3")


@njit(cache=True, _nrt=False, inline="always")
def option_of(points, penalty, gain_potions, gain_wands, lightning, pay, brave, risk, stop,
              target, role):
    """The features (``OPTION``, laid out by ``GROUPS``: the role as a one-hot index) of an
    option with these row values (``cloud`` is the cloud heuristic's value): ``_option`` reads
    them off a row, the engine passes the values it would write there (small integers and a
    float32 risk: the same numbers), so it scores an option without writing its row."""
    risk = risk if brave else 0.0
    cloud = _score(points, penalty, gain_potions, gain_wands, lightning, pay, CLOUD_W[0],
                   CLOUD_W[1], CLOUD_W[2])
    return (_f(cloud), _f(points), _f(penalty), _f(gain_potions), _f(gain_wands),
            _f(lightning), _f(pay), _f(brave), _f(risk), _f(risk > 0.0),
            _f(risk > CLOUD_W[3]), _f(stop), _f(target), int(role))


@njit(cache=True, inline="always")
def _option(kind, obs, o, ctx):
    """The option row's features (``option_of``), inlined into the scorer's loop over the
    options (a call per option costs more than the features)."""
    return option_of(o[F_POINTS], o[F_PENALTY], o[F_GAIN_POTIONS], o[F_GAIN_WANDS],
                     o[F_LIGHTNING], o[F_PAY_POTIONS] + o[F_PAY_WANDS], o[F_BRAVE] > 0,
                     o[F_RISK], o[F_PASS], o[F_TARGET], o[F_ROLE])


@njit(cache=True)
def _context(kind, obs, opts, n_opts):
    """The seat's standing (``CONTEXT``): the round, its lead over the best other score, its
    potions and wands. It reads no option rows: the engine weighs the features before it finds
    the options (``engine.decisions.distilled_weigh``)."""
    best = -1e9
    for k in range(1, int(obs[O_PLAYERS])):
        best = max(best, obs[O_SEATS + k * SEAT_FIELDS + S_SCORE])
    own = O_SEATS
    potions = obs[own + S_GREEN] + obs[own + S_PURPLE] + obs[own + S_ORANGE]
    return (1.0, _f(obs[O_ROUND]) / 7.0, _f(obs[own + S_SCORE] - best) / 10.0,
            _f(potions) / 5.0, _f(obs[own + S_WANDS]) / 3.0)


def _prior() -> np.ndarray:
    """The cloud heuristic in these features: its value, and never a brave option past its
    risk."""
    W = np.zeros((len(KIND_NAMES), len(OPTION), len(CONTEXT)))
    W[:, OPTION.index("cloud"), 0] = 1.0
    W[:, OPTION.index("brave_risk_above_half"), 0] = -100.0
    return W


FEATURES = Features("bloomsim", 1, KIND_NAMES, OPTION, CONTEXT, _option, _context, _prior,
                    GROUPS)


def distilled():
    """The shipped distilled policy (compiled on first use)."""
    return bundled(FEATURES, FILE)


BUNDLED = {"distilled": distilled}
"""Policies the game ships as data, by name: they play wherever a built-in name does."""
