"""One scenario per rule: a hand-built position, one action, the exact result (reference engine).

Board facts used (default data): castles A00 and A56; A00 touches A01 and A10 (meadows);
tower T01 (orange, round, 2 points, 1 wand) stands on A01/A11; S03 (purple, square, 4 points)
on A11/A12/A21; T03 (orange round 4) and S06 (green square 2) touch A13 (hill).
Cloud tiles 0-7 are (1 star, 1 bolt), 8-15 (2, 2), 16-23 (3, 3).
"""
import functools
import itertools

import pytest

import bloomsim
from bloomsim import policies as P
from bloomsim import reference as R
from bloomsim.rules import load_rules

from bloom_helpers import area, event, position, role, set_clouds, tower, with_cloud_spaces


# ---------------------------------------------------------------- setup (spec 1)

@pytest.mark.parametrize("n,wands", [(2, [1, 1]), (3, [1, 2, 1]), (5, [1, 2, 2, 2, 1])])
def test_setup_resources_pawns_wands(n, wands):
    g = R.new_game(n_players=n, seed=3)
    assert g.wands == wands
    assert g.potions == [[1, 1, 1]] * n
    assert g.score == [10] * n
    assert g.pawns == [[area("A00"), area("A56")]] * n
    assert len(g.clouds) == 18 and len(set(g.clouds.values())) == 18
    assert len(g.event_deck) == 7 and len(set(g.event_deck)) == 7


@pytest.mark.parametrize("n,per_round", [(2, 3), (3, 2), (4, 1), (5, 0)])
def test_enchanted_roles_per_round(n, per_round):
    # a role revealed twice in one round (after a reshuffle of all 10 cards) counts once
    g = R.new_game(n_players=n, seed=4)
    for rnd in range(1, 8):
        g.round = rnd
        R.reveal_enchanted_roles(g)
        assert len(g.revealed_this_round) == per_round
        assert set(g.revealed_this_round) == g.enchanted


def test_enchanted_reshuffle_sets_aside_this_rounds_roles():
    # 2 players reveal 3 a round: round 4 reveals the 10th card, then reshuffles mid-reveal
    rules = load_rules(enchanted_reshuffle="set_aside_revealed")
    for seed in range(30):
        g = R.new_game(rules, n_players=2, seed=seed)
        for rnd in range(1, 8):
            g.round = rnd
            R.reveal_enchanted_roles(g)
            assert len(g.enchanted) == 3


def test_enchanted_reshuffle_all_roles_can_repeat_a_role():
    rules = load_rules()
    sizes = set()
    for seed in range(40):
        g = R.new_game(rules, n_players=2, seed=seed)
        for rnd in range(1, 8):
            g.round = rnd
            R.reveal_enchanted_roles(g)
            sizes.add(len(g.enchanted))
    assert sizes == {2, 3}


@pytest.mark.parametrize("reshuffle", ["set_aside_revealed", "all_roles"])
def test_role_left_out_of_the_enchanted_deck_is_never_enchanted(reshuffle):
    # a 3-card deck with 2 players: every round reveals (at most) exactly those 3 roles
    deck = ["forest_witch", "herb_gatherer", "weather_fairy"]
    rules = load_rules(enchanted_deck=deck, enchanted_reshuffle=reshuffle)
    allowed = {role(r) for r in deck}
    for seed in range(20):
        g = R.new_game(rules, n_players=2, seed=seed)
        for rnd in range(1, 8):
            g.round = rnd
            R.reveal_enchanted_roles(g)
            assert g.enchanted <= allowed
            if reshuffle == "set_aside_revealed":
                assert g.enchanted == allowed


def test_compiled_games_never_enchant_a_role_left_out():
    rules = load_rules(enchanted_deck=[r for r in load_rules().role_ids if r != "hill_witch"])
    df = bloomsim.simulate(["greedy", "random", "careful"], 300, seed=5, rules=rules)
    assert (df["enchanted_hill_witch"] == 0).all()
    assert (df["enchanted_meadow_witch"] > 0).any()


def test_full_enchanted_deck_in_any_order_plays_the_default_games():
    ids = list(load_rules().role_ids)
    default = bloomsim.simulate(["greedy", "random"], 200, seed=11)
    listed = bloomsim.simulate(["greedy", "random"], 200, seed=11,
                               rules=load_rules(enchanted_deck=ids[::-1]))
    assert default.drop("rules").equals(listed.drop("rules"))   # (the label: the data differ)


# ---------------------------------------------------------------- witches (spec 4)

def test_cowardly_witch_moves_one_pawn_to_adjacent_area_of_its_terrain():
    g = position()
    g.policies[0] = R.scripted([1])          # options: A01, A10 (pawn a), A46 (pawn b), decline
    R.witch(g, 0, role("meadow_witch"), brave=False)
    assert g.pawns[0] == [area("A10"), area("A56")]
    assert g.score[0] == 10 and g.potions[0] == [1, 1, 1]


def test_witch_options_and_clouds_block_movement(rules):
    g = position(rules=with_cloud_spaces(rules, "A01"))
    set_clouds(g, A01=0)
    assert R.witch_moves(g, 0, role("meadow_witch")) == [(0, area("A10")), (1, area("A46"))]
    assert R.witch_moves(g, 0, role("forest_witch")) == []


def test_brave_witch_moves_then_delivers_to_a_round_tower():
    g = position(potions=[[0, 0, 1], [1, 1, 1], [1, 1, 1]])
    g.policies[0] = R.scripted([0, 0])       # move to A01, deliver to T01
    R.witch(g, 0, role("meadow_witch"), brave=True)
    assert g.pawns[0][0] == area("A01")
    assert g.potions[0] == [0, 0, 0]
    assert g.score[0] == 12 and g.pts["pts_towers"][0] == 2
    assert g.wands[0] == 2                   # 1 + the tower's wand
    assert g.tower_filled[tower("T01")] and g.deliveries[0] == 1


def test_round_tower_takes_one_potion_per_game():
    g = position(potions=[[0, 0, 2], [1, 1, 1], [1, 1, 1]])
    g.tower_filled[tower("T01")] = True
    g.pawns[0] = [area("A01"), area("A56")]
    assert not R.deliverable(g, 0, tower("T01"))
    assert R.best_delivery(g, 0, g.towers_of_area[area("A01")]) is None


def test_brave_witch_may_not_deliver_without_the_roof_colour():
    g = position(potions=[[1, 1, 0], [1, 1, 1], [1, 1, 1]])
    g.policies[0] = R.scripted([0])          # move to A01: no orange potion, nothing to ask
    R.witch(g, 0, role("meadow_witch"), brave=True)
    assert g.pawns[0][0] == area("A01") and g.score[0] == 10 and g.deliveries[0] == 0


def test_pawn_never_reenters_a_castle():
    g = position()
    g.pawns[0] = [area("A10"), area("A56")]
    assert all(a != area("A00") for _, a in R.witch_moves(g, 0, role("meadow_witch")))


# ---------------------------------------------------------------- druids

def test_cowardly_druid_delivers_to_square_tower_which_never_fills():
    g = position(potions=[[0, 2, 0], [1, 1, 1], [1, 1, 1]])
    g.pawns[0] = [area("A11"), area("A56")]
    g.policies[0] = R.scripted([0, 0])
    R.druid(g, 0, role("valley_druid"), brave=False)
    R.druid(g, 0, role("valley_druid"), brave=False)
    assert g.potions[0] == [0, 0, 0]
    assert g.score[0] == 18 and g.pts["pts_brave"][0] == 0
    assert g.tower_deliveries[tower("S03")] == 2 and not g.tower_filled[tower("S03")]


def test_brave_druid_bonus_only_when_delivered():
    g = position(potions=[[0, 1, 0], [0, 0, 0], [1, 1, 1]])
    g.pawns[0] = [area("A11"), area("A56")]
    g.pawns[1] = [area("A11"), area("A56")]
    g.policies[0] = R.scripted([0])
    R.druid(g, 0, role("valley_druid"), brave=True)
    R.druid(g, 1, role("valley_druid"), brave=True)      # no potion: only "decline"
    assert g.score == [17, 10, 10]
    assert g.pts["pts_brave"] == [3, 0, 0] and g.pts["pts_towers"] == [4, 0, 0]


def test_druid_needs_a_pawn_on_one_of_its_terrains():
    g = position(potions=[[1, 1, 1]] * 3)
    g.pawns[0] = [area("A13"), area("A56")]              # hill
    assert R.druid_towers(g, 0, role("valley_druid")) == []
    assert R.druid_towers(g, 0, role("peak_druid")) == [tower("T03"), tower("S06")]
    g2 = position(rules=load_rules(druid_needs_terrain=False), potions=[[1, 1, 1]] * 3)
    g2.pawns[0] = [area("A13"), area("A56")]
    assert R.druid_towers(g2, 0, role("valley_druid")) == [tower("T03"), tower("S06")]


# ---------------------------------------------------------------- gatherers and the fairy

@pytest.mark.parametrize("brave,potions,wands", [(False, [2, 1, 1], 1), (True, [3, 1, 1], 2)])
def test_herb_gatherer(brave, potions, wands):
    g = position()
    g.policies[0] = R.scripted([0])
    R.gatherer(g, 0, role("herb_gatherer"), brave)
    assert g.potions[0] == potions and g.wands[0] == wands


def test_gatherer_may_decline():
    g = position()
    g.policies[0] = R.scripted([1])
    R.gatherer(g, 0, role("root_gatherer"), True)
    assert g.potions[0] == [1, 1, 1] and g.wands[0] == 1


def test_weather_fairy_charms_adjacent_cloud_paying_stars():
    g = position(wands=[2, 2, 2])
    set_clouds(g, A12=8, A53=0)          # A12: 2 stars 2 bolts; A53 far away
    g.pawns[0] = [area("A11"), area("A56")]
    a12 = g.rules.board["cloud_spaces"].index("A12")
    assert R.charmable(g, 0) == [a12]
    g.policies[0] = R.scripted([0])
    g.round = 3
    R.weather_fairy(g, 0, role("weather_fairy"), brave=True)
    assert g.wands[0] == 0 and g.lightning[0] == 2 and not R.clouded(g, area("A12"))
    assert g.score[0] == 13 and g.pts["pts_brave"][0] == 3
    assert g.charmed_round[a12] == 3 and g.clouds_charmed[0] == 1


def test_weather_fairy_needs_enough_wands_and_brave_bonus_needs_a_charm():
    g = position(wands=[1, 1, 1])
    set_clouds(g, A12=8)
    g.pawns[0] = [area("A11"), area("A56")]
    assert R.charmable(g, 0) == []
    R.weather_fairy(g, 0, role("weather_fairy"), brave=True)  # only "decline": not asked
    assert g.score[0] == 10 and g.lightning[0] == 0


def test_a_castle_counts_for_charming(rules):
    g = position(rules=with_cloud_spaces(rules, "A10"), wands=[3, 3, 3])
    set_clouds(g, A10=0)
    assert R.charmable(g, 0) == [len(rules.board["cloud_spaces"])]     # the added space


# ---------------------------------------------------------------- turns (spec 3)

def _hands(g, *hands):
    g.hands = [set(h) for h in hands]


def test_later_brave_cancels_earlier_brave_and_leads():
    herb = role("herb_gatherer")
    g = position()
    _hands(g, {herb}, {herb}, {herb})
    g.policies = [R.scripted([1]), R.scripted([1, 0]), R.scripted([0, 0])]
    R.play_turn(g)
    assert g.potions == [[1, 1, 1], [3, 1, 1], [2, 1, 1]]  # seat 2 cowardly acts at once
    assert g.wands == [1, 3, 1]
    assert g.brave_cancelled == [1, 0, 0] and g.brave_done == [0, 1, 0]
    assert g.leader == 1 and g.hands == [set(), set(), set()]


def test_nobody_brave_leader_stays():
    herb, fruit = role("herb_gatherer"), role("fruit_gatherer")
    g = position()
    _hands(g, {herb, fruit}, {herb}, set())
    g.leader = 0
    g.policies = [R.scripted([0, 0]), R.scripted([0, 0]), R.scripted([])]  # lead herb cowardly
    R.play_turn(g)
    assert g.leader == 0 and g.potions[0] == [2, 1, 1] and g.potions[1] == [2, 1, 1]


def test_lead_passes_clockwise_to_next_player_with_cards():
    fruit = role("fruit_gatherer")
    g = position()
    _hands(g, set(), set(), {fruit})
    g.leader = 0
    g.policies[2] = R.scripted([0, 0])
    R.play_turn(g)
    assert g.leader == 2 and g.potions[2] == [1, 1, 2]


def test_lead_options_are_each_card_cowardly_then_brave():
    herb, fairy = role("herb_gatherer"), role("weather_fairy")
    g = position()
    _hands(g, {fairy, herb}, set(), set())
    seen = []

    def spy(kind, obs, opts, n, rng):
        seen.append((kind, [(int(o[P.F_ROLE]), int(o[P.F_BRAVE])) for o in opts[:n]]))
        return 0
    g.policies[0] = spy
    R.play_turn(g)
    assert seen[0] == (P.LEAD, [(herb, 0), (herb, 1), (fairy, 0), (fairy, 1)])


def test_enchanted_role_costs_points_whenever_played():
    herb = role("herb_gatherer")
    g = position()
    g.enchanted = {herb}
    _hands(g, {herb}, {herb}, {herb})
    g.policies = [R.scripted([1]), R.scripted([1, 0]), R.scripted([0, 0])]
    R.play_turn(g)
    assert g.pts["pts_enchanted"] == [-3, -3, -3]
    assert g.score == [7, 7, 7]


def test_score_floor_keeps_the_marker_at_zero():
    g = position(score=[1, 10, 10])
    R.add_points(g, 0, -3, "pts_enchanted")
    assert g.score[0] == 0 and g.pts["pts_floor"][0] == 2 and g.pts["pts_enchanted"][0] == -3
    g2 = position(rules=load_rules(score_floor=None), score=[1, 10, 10])
    R.add_points(g2, 0, -3, "pts_enchanted")
    assert g2.score[0] == -2


def test_careful_risk_counts_later_players_with_cards():
    herb = role("herb_gatherer")
    g = position()
    _hands(g, {herb}, set(), {1, 2})
    assert R.cancel_risk(g, [1, 2], herb) == pytest.approx(2 / 10)
    g.played = [set(), {5, 6}, set()]
    assert R.cancel_risk(g, [1, 2], herb) == pytest.approx(2 / 8)
    assert R.cancel_risk(g, [1], herb) == 0


def test_round_plays_every_selected_card_in_4_to_10_turns():
    for seed in range(4):
        g = R.new_game(n_players=4, seed=seed)
        for _ in range(7):
            R.play_round(g)
            assert not any(g.hands)
            assert all(len(p) in range(1, 6) for p in g.played)
            assert (max(len(p) for p in g.played) <= g.turn <= len(g.rules.roles))
            assert min(min(p) for p in g.potions) >= 0 and min(g.wands) >= 0


# ---------------------------------------------------------------- events (spec 6)

def test_more_or_less_hand_sizes_and_points():
    g = position(n_players=2)
    g.event = event("more_or_less")
    # seat 0: a card, then "stop" (row 9 after the 9 cards left); seat 1: five cards
    g.policies = [R.scripted([0, 9]), R.scripted([0, 0, 0, 0, 0])]
    R.select_roles(g)
    assert [len(h) for h in g.hands] == [1, 5]
    assert g.score == [16, 7] and g.pts["pts_events"] == [6, -3]


def test_black_market_replaces_cowardly_effect():
    g = position()
    g.event = event("black_market")
    g.policies[0] = R.scripted([1])
    R.cowardly_action(g, 0, role("herb_gatherer"))
    assert g.potions[0] == [1, 1, 1] and g.wands[0] == 2


def test_black_distillery_potion_of_choice():
    g = position()
    g.event = event("black_distillery")
    g.policies[0] = R.scripted([1, 1])        # the event, then purple
    R.cowardly_action(g, 0, role("herb_gatherer"))
    assert g.potions[0] == [1, 2, 1] and g.wands[0] == 1


def test_black_market_card_effect_still_possible():
    g = position()
    g.event = event("black_market")
    g.policies[0] = R.scripted([0, 0])        # the card, then take the herb
    R.cowardly_action(g, 0, role("herb_gatherer"))
    assert g.potions[0] == [2, 1, 1] and g.wands[0] == 1


def _end(g, name):
    g.event = event(name)
    R.round_end_event(g)


def test_empty_handed_score_option_counts_potions_not_wands():
    g = position(potions=[[1, 1, 1], [2, 1, 1], [0, 0, 0]], wands=[9, 0, 0],
                 rules=load_rules(empty_handed="few_potions_score"))
    _end(g, "empty_handed")
    assert g.score == [13, 10, 13]


def test_protected_places_rulebook_example():
    g = position()
    g.pawns = [[area("A05"), area("A04")], [area("A02"), area("A01")], [area("A00"), area("A56")]]
    _end(g, "protected_places")
    assert g.pts["pts_events"] == [0, 2, 0]


def test_upper_hand_highest_bids_win_and_pay():
    g = position()
    g.policies = [R.scripted([2, 0, 2]), R.scripted([2, 3, 3]), R.scripted([1])]
    _end(g, "upper_hand")
    assert g.pts["pts_events"] == [5, 5, 0]
    assert g.potions[0] == [0, 1, 1] and g.wands[0] == 0    # paid a green, then a wand
    assert g.potions[1] == [1, 1, 1] and g.wands[1] == 0    # paid two wands
    assert sum(R.resources(g, 2)) == 4                     # a losing bid costs nothing


def test_upper_hand_zero_never_wins():
    g = position()
    g.policies = [R.scripted([0]), R.scripted([0]), R.scripted([0])]
    _end(g, "upper_hand")
    assert g.score == [10, 10, 10]


def test_the_works_one_set_of_four_kinds():
    g = position(potions=[[2, 2, 2], [1, 1, 1], [1, 1, 1]], wands=[2, 0, 1])
    g.policies = [R.scripted([0]), R.scripted([]), R.scripted([1])]
    _end(g, "the_works")
    assert g.pts["pts_events"] == [6, 0, 0]
    assert g.potions[0] == [1, 1, 1] and g.wands[0] == 1


def test_flock_together_same_terrain_not_castles():
    g = position()
    g.pawns = [[area("A01"), area("A46")], [area("A00"), area("A56")], [area("A01"), area("A02")]]
    _end(g, "flock_together")
    assert g.pts["pts_events"] == [4, 0, 0]


def test_tenth_event_does_nothing():
    g = position()
    _end(g, "tenth_event")
    assert g.score == [10, 10, 10]


# ---------------------------------------------------------------- end of game (spec 5)

def test_lightning_table_and_beyond(rules):
    assert [R.lightning_points(rules, b) for b in (0, 1, 4, 10, 11, 13)] == [0, 1, 8, 35, 41, 53]


@functools.lru_cache(maxsize=None)
def _brute_sets(counts, four=4, three=2):
    """Every way to take sets one at a time (exhaustive search)."""
    best = 0
    for k in (4, 3):
        for kinds in itertools.combinations(range(4), k):
            if all(counts[i] > 0 for i in kinds):
                rest = tuple(c - (i in kinds) for i, c in enumerate(counts))
                best = max(best, (four if k == 4 else three) + _brute_sets(rest, four, three))
    return best


def test_resource_sets_best_split_matches_brute_force(rules):
    for counts in itertools.product(range(5), repeat=4):
        assert R.resource_set_points(rules, counts) == _brute_sets(counts), counts


def test_ties_share_the_win_and_resources_break_ties():
    g = position(score=[20, 20, 20], potions=[[1, 1, 1], [1, 1, 1], [0, 0, 0]],
                 wands=[1, 1, 3])
    rank, win = R.ranks(g)
    assert rank == [1, 1, 3] and win == [0.5, 0.5, 0.0]
