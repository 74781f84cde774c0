"""Reference engine vs compiled engine: the same games (frames) and the same decisions (logs)."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bloomsim
from bloomsim import api
from bloomsim.game import GAME
from bloomsim.rules import default_rules
from simcore.rng import NO_REDRAW, redraw_key, root_key

NAMES = ["random", "greedy", "careful", "cloud", "distilled"]
ROLE_IDS = default_rules().role_ids


SPACES = default_rules().board["cloud_spaces"]


def _variant(rules, reshuffle, druid_terrain, floor, penalty, events_used, hand_size, deck,
             start_player="last_brave", perilous_gain=0, more_clouds=(), empty="pay_nothing",
             unnamed="as_listed", pawns="one_per_castle"):
    """The rules with these options; ``perilous_gain``: meadow's Perilous Places value under
    the option that allows a gain (0: the default values); ``more_clouds``: a further cloud
    space on each of these areas (an area named k times holds k + 1 clouds); ``empty``,
    ``unnamed`` and ``pawns``: the options ``empty_handed``, ``perilous_unnamed_terrains`` and
    ``pawn_start``."""
    events = rules.to_dict()["events"]
    board = rules.to_dict()["board"]
    board["cloud_spaces"] += list(more_clouds)
    perilous = "lose"
    if perilous_gain:
        perilous = "gain_or_lose"
        events[rules.event_ids.index("perilous_places")]["points_per_pawn"]["meadow"] = \
            perilous_gain
    return rules.replace(enchanted_reshuffle=reshuffle, druid_needs_terrain=druid_terrain,
                         score_floor=floor, enchanted_penalty=penalty, events_used=events_used,
                         hand_size=hand_size, enchanted_deck=deck, next_start_player=start_player,
                         perilous_places=perilous, events=events, board=board,
                         empty_handed=empty, perilous_unnamed_terrains=unnamed,
                         pawn_start=pawns)


def _compare(rules, policies, seed, start, n, redraw=NO_REDRAW):
    sp = api.seat_policies(policies, rules)
    fast = api.play_compiled(rules, sp, root_key(seed), start, n, log=True, redraw=redraw)
    slow = api.play_reference(rules, sp, root_key(seed), start, n, redraw=redraw)
    assert fast.logs == slow.logs
    assert api.to_frame(rules, sp.names, fast).equals(api.to_frame(rules, sp.names, slow))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), start=st.integers(0, 10**6),
       policies=st.lists(st.sampled_from(NAMES), min_size=2, max_size=5),
       reshuffle=st.sampled_from(["set_aside_revealed", "all_roles"]),
       druid_terrain=st.booleans(), floor=st.sampled_from([0, None, 5]),
       penalty=st.integers(0, 6), events_used=st.integers(0, 10),
       hand_size=st.integers(3, 5),
       deck=st.none() | st.lists(st.sampled_from(ROLE_IDS), min_size=3, unique=True),
       start_player=st.sampled_from(["last_brave", "lead_holder"]),
       perilous_gain=st.sampled_from([0, 5]),
       more_clouds=st.lists(st.sampled_from(SPACES), max_size=6),
       empty=st.sampled_from(["pay_nothing", "few_potions_score", "hold_nothing"]),
       unnamed=st.sampled_from(["as_listed", "zero"]),
       pawns=st.sampled_from(["one_per_castle", "choose"]), redrawn=st.integers(0, 511))
def test_engines_agree(seed, start, policies, reshuffle, druid_terrain, floor, penalty,
                       events_used, hand_size, deck, start_player, perilous_gain, more_clouds,
                       empty, unnamed, pawns, redrawn):
    """... also with the streams of the bit mask ``redrawn`` drawn anew (a redraw)."""
    rules = _variant(default_rules(), reshuffle, druid_terrain, floor, penalty, events_used,
                     hand_size, deck, start_player, perilous_gain, more_clouds, empty, unnamed,
                     pawns)
    _compare(rules, policies, seed, start, 2, (redrawn, redraw_key(seed, 1)))


def test_engines_agree_on_every_event():
    # events_used=10 draws all ten events over 7 rounds; enough seeds see each one
    rules = default_rules().replace(events_used=10)
    for seed in range(4):
        _compare(rules, NAMES, seed, 0, 3)


def test_engines_agree_on_the_other_readings_and_crowded_clouds():
    # the options restoring the other readings (lead holder starts; Perilous meadow +5 and
    # hill, mountain 0; Empty Handed scores few potions; each pawn's castle chosen), and a
    # board where six areas hold two clouds each (all 24 tiles on the board)
    rules = _variant(default_rules().replace(events_used=10), "set_aside_revealed", True, 0,
                     3, 10, 4, None, "lead_holder", 5, SPACES[:6], "few_potions_score", "zero",
                     "choose")
    crowded = _variant(default_rules(), "set_aside_revealed", True, 0, 3, 7, 4, None,
                       more_clouds=SPACES[:6])
    for seed in range(3):
        _compare(rules, NAMES, seed, 0, 3)
        _compare(crowded, NAMES, seed, 0, 3)


def test_engines_agree_with_an_event_replaced_in_place():
    # the counterfactual of analyses.switch_offs: a card's entry becomes the no-effect kind
    events = default_rules().to_dict()["events"]
    for e in ("upper_hand", "more_or_less", "black_market"):
        blank = [{"id": e, "kind": "tenth_event", "timing": "turns"} if ev["id"] == e else ev
                 for ev in events]
        rules = default_rules().replace(events=blank, events_used=10)
        _compare(rules, NAMES, 11, 0, 3)


WEIGHT = st.floats(0.0, 4.0).map(lambda x: round(x, 2))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), start=st.integers(0, 10**6),
       base=st.sampled_from(["greedy", "careful", "cloud"]), points=WEIGHT, wands=WEIGHT,
       lightning=WEIGHT, max_risk=st.sampled_from([0.0, 0.25, 0.5, 1.0, float("inf")]),
       others=st.lists(st.sampled_from(NAMES), min_size=1, max_size=4))
def test_engines_agree_on_heuristics_with_other_weights(seed, start, base, points, wands,
                                                        lightning, max_risk, others):
    h = bloomsim.heuristic(base, points=points, wands=wands, lightning=lightning,
                           max_risk=max_risk)
    _compare(default_rules(), [h, *others], seed, start, 3)


ROW_PROBES = [p.name for p in GAME.probes if p.mode != "horizon"]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), start=st.integers(0, 10**6),
       seats=st.lists(st.tuples(st.sampled_from(NAMES + ["careful[points=1.5]"]),
                                st.none() | st.sampled_from(ROW_PROBES)),
                      min_size=2, max_size=5))
def test_engines_agree_on_restricted_seats(seed, start, seats):
    """Restricted play (``simcore.restrict``): a seat under any probe, of any base policy."""
    from simcore.restrict import restricted
    policies = [p if probe is None else restricted(p, probe) for p, probe in seats]
    _compare(default_rules(), policies, seed, start, 2)


def test_engines_agree_on_a_restricted_user_policy():
    from simcore.policy import policy
    from simcore.restrict import restricted

    @policy("last_option")
    def last_option(kind, obs, opts, n_opts, rng):
        return n_opts - 1

    for probe in ("never_brave", "always_weather_fairy", "never_delivery"):
        _compare(default_rules(), [restricted(last_option, probe), "cloud", "distilled"], 5, 0,
                 2)
