"""Built-in Broom Service policies, and what every policy sees.

A policy is ``f(kind, obs, opts, n_opts, rng) -> index`` (``simcore.policy``). ``kind`` is one of
the decision kinds below; ``opts[:n_opts]`` holds one row of features per legal option; ``obs``
is the deciding player's view (spec section 7: public facts plus their own hand, never another
hand, another player's secret choice or a future card).

Decision kinds (options in this exact order):

- ``SELECT``: add one role to the hand for this round: one row per role not yet chosen
  (ascending role index), then a stop row (``PASS`` = 1) when the hand may stop at this size
  (More or Less?). Chosen one card at a time until the hand is full.
- ``LEAD``: for each role in hand (ascending): cowardly, then brave.
- ``FOLLOW``: the led role is in hand and must be played: cowardly, brave.
- ``ALTERNATIVE``: Black Market / Distillery after a cowardly play: the card's effect, the event.
- ``COLOUR``: a potion of one's choice: green, purple, orange.
- ``MOVE``: witch: one row per (pawn, destination) (pawn 0 first, neighbours ascending), then
  decline.
- ``DELIVER``: one row per tower that can take a potion now (ascending), then decline.
- ``CHARM``: one row per cloud that can be charmed now (cloud spaces in rules order), then decline.
- ``GATHER``: take the gatherer's resources, or decline.
- ``BID``: The Upper Hand: resources to reveal, 0 .. all one holds (row i = bid i).
- ``PAY``: a winning bidder pays one resource: one row per kind held (green, purple, orange, wand).
- ``WORKS``: The Works!: pay one set of 4 different resources, or decline.
- ``START``: with ``pawn_start: "choose"``, at setup, seat by seat, each pawn (pawn 0 first):
  the castle it starts at: castle A, castle B (``board.castles``); ``F_POINTS``: the best tower
  the seat can deliver to now within one step of that castle, not already within one step of
  its pawn placed before (a pawn adds reach: the heuristics spread the pair where both reach).

A decision with a single legal option is taken without asking the policy (and is not logged).

Option features (columns of ``opts``), 0 where they do not apply:

- ``F_ROLE``: the role concerned (index in the rules' ``roles``), -1 if none.
- ``F_BRAVE``: 1 if this option declares (or is part of) a brave action.
- ``F_POINTS``: points this option scores now if carried out as well as possible (a card: the
  best delivery or bonus its effect can reach from the current position; a tower: its points plus
  a brave druid's bonus; a bid: the winner's points when the bid surely wins).
- ``F_PAY_POTIONS``, ``F_PAY_WANDS``: resources the option spends (a card: of its best use).
- ``F_GAIN_POTIONS``, ``F_GAIN_WANDS``: resources it gains.
- ``F_LIGHTNING``: lightning bolts it gains (a charm, or the best charm a fairy card reaches).
- ``F_RISK``: for brave declarations: the expected number of players still to act this turn who
  hold the same role (their cards left / roles nobody has played yet this round). 0 means no one
  can cancel it.
- ``F_PENALTY``: enchanted-role points lost by playing this card.
- ``F_TARGET``: the area (MOVE, CHARM, START), tower (DELIVER), colour or resource kind
  (COLOUR, PAY),
  bid (BID) or event index (ALTERNATIVE); -1 if none.
- ``F_PASS``: 1 for decline / stop options.

Observation (``obs``), all float32: ``O_ROUND`` (1-based), ``O_PLAYERS``, ``O_SEAT``,
``O_EVENT`` (index in the rules' events, -1 none), ``O_EVENT_CODE`` (``rules.EV_*``),
``O_ENCHANTED`` (bitmask of enchanted roles), ``O_HAND`` (own hand, bitmask), ``O_LEADER``,
``O_TURN`` (turn of the round, 0-based), ``O_PLAYED`` (bitmask of roles played this round); then
per seat, starting with oneself and going clockwise, a block of ``SEAT_FIELDS`` at
``O_SEATS + k * SEAT_FIELDS``: score, green, purple, orange, wands, lightning, cards left in hand,
played roles this round (bitmask), pawn a area, pawn b area. Unused seat blocks are -1; while
hands are being selected, the other seats' cards in hand are -1 (their size is secret).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from simcore.policy import POLICY_SIG, Weights
from simcore.rng import randint

(SELECT, LEAD, FOLLOW, ALTERNATIVE, COLOUR, MOVE, DELIVER, CHARM, GATHER, BID, PAY, WORKS,
 START) = range(13)
KIND_NAMES = ("select", "lead", "follow", "alternative", "colour", "move", "deliver", "charm",
              "gather", "bid", "pay", "works", "start")

(F_ROLE, F_BRAVE, F_POINTS, F_PAY_POTIONS, F_PAY_WANDS, F_GAIN_POTIONS, F_GAIN_WANDS,
 F_LIGHTNING, F_RISK, F_PENALTY, F_TARGET, F_PASS) = range(12)
N_FEATURES = 12
BRAVE_OK = 0.0
"""F_RISK at or below which no later player can hold the role (nobody can cancel)."""

(O_ROUND, O_PLAYERS, O_SEAT, O_EVENT, O_EVENT_CODE, O_ENCHANTED, O_HAND, O_LEADER, O_TURN,
 O_PLAYED) = range(10)
O_SEATS = 10
(S_SCORE, S_GREEN, S_PURPLE, S_ORANGE, S_WANDS, S_LIGHTNING, S_CARDS, S_PLAYED, S_PAWN_A,
 S_PAWN_B) = range(10)
SEAT_FIELDS = 10


def obs_len(max_players: int) -> int:
    return O_SEATS + SEAT_FIELDS * max_players


@njit(POLICY_SIG, cache=True)
def random_policy(kind, obs, opts, n_opts, rng):
    """Uniform over the legal options."""
    return randint(rng, 0, n_opts)


@njit(cache=True, _nrt=False, inline="always")
def _score(points, penalty, gain_potions, gain_wands, lightning, pay, w_points, w_gain_wands,
           w_lightning):
    """The weighted value of an option with these features (``pay``: potions + wands paid);
    the same from integers as from a row's float32 features (small integers, exact)."""
    return (w_points * points - penalty + 0.5 * gain_potions + w_gain_wands * gain_wands
            + w_lightning * lightning - 0.25 * pay)


@njit(cache=True, _nrt=False, inline="always")
def _value(o, w_points, w_gain_wands, w_lightning):
    """The weighted value of option row o (``_best``)."""
    return _score(o[F_POINTS], o[F_PENALTY], o[F_GAIN_POTIONS], o[F_GAIN_WANDS], o[F_LIGHTNING],
                  o[F_PAY_POTIONS] + o[F_PAY_WANDS], w_points, w_gain_wands, w_lightning)


@njit(cache=True, _nrt=False)
def _best(opts, n_opts, weights):
    """Index of the option with the highest weighted value (first on ties); brave options
    whose F_RISK exceeds ``max_risk`` are never chosen. ``weights``: one of the tuples below,
    passed whole (careful +5% against its four items passed as *args)."""
    w_points, w_gain_wands, w_lightning, max_risk = weights
    best, best_v = 0, -1e30
    for i in range(n_opts):
        o = opts[i]
        if o[F_BRAVE] > 0 and o[F_RISK] > max_risk:
            continue
        v = _value(o, w_points, w_gain_wands, w_lightning)
        if v > best_v:
            best, best_v = i, v
    return best


# weights of _best (points, gained wands, lightning, max risk) for the heuristic policies
GREEDY_W = (1.0, 0.5, 1.0, np.inf)
CAREFUL_W = (1.0, 0.5, 1.0, BRAVE_OK)
CLOUD_W = (0.5, 1.5, 3.0, 0.5)
WEIGHTS = Weights(
    game="bloomsim", names=("points", "wands", "lightning", "max_risk"),
    meanings=("value of a point scored now (F_POINTS)",
              "value of a wand gained (F_GAIN_WANDS; a potion gained is worth 0.5, a resource "
              "paid -0.25, an enchanted role's penalty -1 per point)",
              "value of a lightning bolt gained (F_LIGHTNING)",
              "largest cancel risk (F_RISK: expected later holders of the role) at which it "
              "still goes brave; 0: only when nobody can cancel, inf: always"),
    bounds=((0.0, 10.0), (0.0, 10.0), (0.0, 10.0), (0.0, np.inf)),
    defaults={"greedy": GREEDY_W, "careful": CAREFUL_W, "cloud": CLOUD_W},
    other=(0.0, 0.0, 0.0, np.inf))
"""The heuristics' weights (``heuristic``): the engine reads a seat's from its state."""
heuristic = WEIGHTS.heuristic


def weighted(weights) -> object:
    """The heuristic with these four weights as a policy function (the reference engines' way
    to play a ``heuristic`` with other weights)."""
    w = tuple(float(x) for x in weights)

    def weighted_policy(kind, obs, opts, n_opts, rng):
        return _best(opts, n_opts, w)
    return weighted_policy


@njit(POLICY_SIG, cache=True)
def greedy_policy(kind, obs, opts, n_opts, rng):
    """Points now: the option with the most immediate points (resources count half)."""
    return _best(opts, n_opts, GREEDY_W)


@njit(POLICY_SIG, cache=True)
def careful_policy(kind, obs, opts, n_opts, rng):
    """Greedy, but brave only when no later player can still hold the role."""
    return _best(opts, n_opts, CAREFUL_W)


@njit(POLICY_SIG, cache=True)
def cloud_policy(kind, obs, opts, n_opts, rng):
    """Clouds and lightning: values bolts and wands highly, brave when cancelling is unlikely."""
    return _best(opts, n_opts, CLOUD_W)


POLICIES = {"random": random_policy, "greedy": greedy_policy, "careful": careful_policy,
            "cloud": cloud_policy}
"""Built-in policies by name; the engine dispatches them by their position (the id)."""
RANDOM, GREEDY, CAREFUL, CLOUD = range(4)
TUNED = ("careful[points=1.75,wands=1.0,lightning=0.5,max_risk=1.0]",)
"""Heuristics with the weights ``analyses.tune`` found (careful's, tuned against cloud, greedy
and careful; docs/analyses.md, "Tuning a heuristic"):
the intransitivity lens (``analyses.intransitivity``) plays them beside the built-ins."""
DISTILLED = len(POLICIES)
"""The id of ``distilled`` (``distilled.py``): a built-in like the heuristics, whose weights
the batch passes into the engine (``engine.with_distilled``)."""
BUILTIN_IDS = {**{name: i for i, name in enumerate(POLICIES)}, "distilled": DISTILLED}


@njit(cache=True, _nrt=False, inline="always")
def is_heuristic(pid):
    """Whether policy id ``pid`` is a heuristic the engine plays without writing option rows
    (``_best`` of values found as the options are)."""
    return RANDOM < pid < DISTILLED


@njit(cache=True, _nrt=False, inline="always")
def scores_cards(pid):
    """Whether policy id ``pid`` is one the engine plays at the card decisions (SELECT, LEAD,
    FOLLOW) without writing their rows: a heuristic, or ``distilled`` scoring each option as
    it is found (``engine.heuristics``)."""
    return RANDOM < pid <= DISTILLED


DESCRIPTIONS = {
    "random": "Uniform over the legal options at every decision: the baseline, and the "
              "fastest (the engine skips computing features for it).",
    "greedy": "Takes whatever scores most points right now: selects the roles whose best use "
              "from the current position is worth most, always goes brave when that adds "
              "points, delivers to the best tower, values resources at half a point.",
    "careful": "Plays like greedy but declares brave only when no player still to act this "
               "turn can hold the role (every later player's hand is empty, known from the "
               "public cards played), so its brave actions are never cancelled.",
    "cloud": "Clouds and lightning: values lightning bolts three times and wands 1.5 times, "
             "points at half; charms clouds whenever it can and goes brave when the expected "
             "number of later holders of the role is at most one half.",
}
