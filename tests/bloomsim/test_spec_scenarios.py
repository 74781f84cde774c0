"""Scenario tests written from the rules spec (``/work/shared/rules/broom-service.md``), the
Japanese seed texts and ``bloomsim/data/rules.json``, independently of the engine's code.

Each test builds a position by hand on the default board (an approximation of the printed map),
applies ONE rule through the reference engine's public per-rule functions, and asserts the
exact fields that rule should change. Expected values were derived from the spec first.

Board reminder (area ``Ayx``, row y, column x; index 7*y + x)::

    y0: castle meadow forest forest hill     mountain mountain
    y1: meadow meadow forest hill   hill     mountain meadow
    y2: forest hill   WATER  WATER  forest   meadow   mountain
    y3: hill   forest WATER  WATER  meadow   hill     forest
    y4: mount. hill   meadow forest mountain forest   meadow
    y5: mount. mount. hill   meadow forest   hill     castle

Towers used below: T01 orange round 2 pts +1 wand (A01, A11); T03 orange round 4 (A13, A14);
T08 purple round 2 pts +2 wands (A10, A20); T13 purple round 7 (A40, A41); T21 green round 7
(A14, A15); S01 orange square 3 (A20, A21, A31); S03 purple square 4 (A11, A12, A21);
S06 green square 2 (A03, A04, A13).
Potions are [green, purple, orange]; resources [green, purple, orange, wand].
"""

from __future__ import annotations

import copy
from itertools import product

import pytest

from bloomsim import reference as R
from bloomsim.policies import F_BRAVE, F_PASS
from bloomsim.rules import default_rules

from spec_helpers import (ANY, CARD, DECLINE, EVENT, A, Ro, T, brute_sets, ev, new,
                          put_cloud, script, tiles, clouded)

GREEN, PURPLE, ORANGE = 0, 1, 2


def pawns(g, seat):
    return sorted(g.pawns[seat])


def names(g, ids):
    return sorted(A(g, n) for n in ids)


# ----------------------------------------------------------------------------------------------
# 1. Setup
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, wands", [(2, [1, 1]), (3, [1, 2, 1]), (4, [1, 2, 2, 1]),
                                      (5, [1, 2, 2, 2, 1])])
def test_setup_score_potions_wands_by_seat(n, wands):
    g = R.new_game(n_players=n, seed=3)
    assert g.score == [10] * n
    assert [list(p) for p in g.potions] == [[1, 1, 1]] * n
    # start player and the last seat (start player's right) 1 wand, everyone else 2
    assert list(g.wands) == wands
    assert g.lightning == [0] * n


def test_setup_pawns_one_in_each_castle():
    g = R.new_game(n_players=5, seed=1)
    for s in range(5):
        assert pawns(g, s) == names(g, ["A00", "A56"])


@pytest.mark.parametrize("seed", range(5))
def test_setup_18_clouds_on_the_cloud_spaces_from_24_tiles(seed):
    g = R.new_game(n_players=4, seed=seed)
    spaces = {A(g, n) for n in g.rules.board["cloud_spaces"]}
    assert len(spaces) == 18
    assert len(g.clouds) == 18 and {g.cloud_space_area[i] for i in g.clouds} == spaces
    ids = list(g.clouds.values())
    assert len(set(ids)) == 18 and all(0 <= t < len(tiles(g.rules)) == 24 for t in ids)


def test_setup_clouds_are_shuffled():
    layouts = {tuple(sorted(R.new_game(n_players=3, seed=s).clouds.items())) for s in range(8)}
    assert len(layouts) > 1


def test_setup_event_deck_7_of_10_distinct_and_random():
    decks = set()
    for seed in range(12):
        g = R.new_game(n_players=4, seed=seed)
        assert len(g.event_deck) == 7
        assert len(set(g.event_deck)) == 7 and set(g.event_deck) <= set(range(10))
        decks.add(frozenset(g.event_deck))
    assert len(decks) > 1  # the 3 unused cards vary


@pytest.mark.parametrize("n, k", [(2, 3), (3, 2), (4, 1), (5, 0)])
def test_setup_enchanted_roles_per_round_is_5_minus_players(n, k):
    g = R.new_game(n_players=n, seed=2)
    g.round = 1
    assert R.enchanted_per_round(g) == k
    R.reveal_enchanted_roles(g)
    assert len(g.enchanted) == k


def test_enchanted_reveal_replaces_last_rounds():
    g = R.new_game(n_players=3, seed=2)
    g.enchanted_deck = [0, 1, 2, 3]
    g.round = 1
    R.reveal_enchanted_roles(g)
    first = set(g.enchanted)
    g.round = 2
    R.reveal_enchanted_roles(g)
    second = set(g.enchanted)
    assert len(first) == len(second) == 2
    assert first | second == {0, 1, 2, 3} and not first & second


@pytest.mark.parametrize("seed", range(6))
def test_enchanted_reshuffle_mid_reveal_shows_no_role_twice(seed):
    # 2 players reveal 3; only one card left: reshuffle during the reveal, no duplicate (the
    # spec's reading, option enchanted_reshuffle: set_aside_revealed)
    rules = default_rules().replace(enchanted_reshuffle="set_aside_revealed")
    g = R.new_game(rules, n_players=2, seed=seed)
    g.round = 4
    g.enchanted_deck = [7]
    R.reveal_enchanted_roles(g)
    assert len(g.enchanted) == 3 and 7 in g.enchanted


# ----------------------------------------------------------------------------------------------
# 4. Witches
# ----------------------------------------------------------------------------------------------

def test_cowardly_witch_moves_one_pawn_to_adjacent_area_of_its_terrain():
    g, log = new()
    g.pawns[0] = [A(g, "A00"), A(g, "A56")]
    sc = script(g, 0, move=[A(g, "A10")])
    R.witch(g, 0, Ro(g, "meadow_witch"), brave=False)
    # from a castle: A01, A10 (meadow) next to A00; A46 (meadow) next to A56; A55 is hill
    assert sc.offered("move") == set(names(g, ["A01", "A10", "A46"]))
    assert pawns(g, 0) == names(g, ["A10", "A56"])
    assert g.score[0] == 10 and list(g.potions[0]) == [1, 1, 1]  # no delivery when cowardly
    assert not sc.asked("deliver")


def test_witch_never_enters_water_cloud_or_castle():
    g, log = new()
    put_cloud(g, "A20", 1)
    g.pawns[0] = [A(g, "A21"), A(g, "A46")]
    sc = script(g, 0, move=[A(g, "A31")])
    # A21 (hill): A20 forest (cloud), A22 water, A31 forest, A11 meadow;
    # A46 (meadow): A36 forest, A45 forest, A56 castle
    R.witch(g, 0, Ro(g, "forest_witch"), brave=False)
    assert sc.offered("move") == set(names(g, ["A31", "A36", "A45"]))
    assert pawns(g, 0) == names(g, ["A31", "A46"])


def test_witch_never_reenters_a_castle_and_moves_one_step_only():
    g, log = new()
    g.pawns[0] = [A(g, "A01"), A(g, "A46")]
    sc = script(g, 0, move=[DECLINE])
    R.witch(g, 0, Ro(g, "meadow_witch"), brave=False)
    # A01: A00 castle, A02 forest, A11 meadow; A46: A36 forest, A45 forest, A56 castle
    assert sc.offered("move") == {A(g, "A11")}
    assert pawns(g, 0) == names(g, ["A01", "A46"])  # declined: nothing moves


def test_brave_witch_moves_then_delivers_from_the_new_area_only():
    g, log = new()
    g.pawns[0] = [A(g, "A11"), A(g, "A56")]  # A11 touches T01 (orange) and S03 (purple)
    g.wands[0] = 1
    sc = script(g, 0, move=[A(g, "A10")], deliver=[T(g, "T08")])
    R.witch(g, 0, Ro(g, "meadow_witch"), brave=True)
    assert pawns(g, 0) == names(g, ["A10", "A56"])
    assert sc.offered("deliver") == {T(g, "T08")}  # not T01 / S03 of the old area
    assert list(g.potions[0]) == [1, 0, 1]
    assert g.wands[0] == 3  # T08 gives 2 wands
    assert g.score[0] == 12
    assert g.tower_filled[T(g, "T08")]


def test_brave_witch_delivers_one_potion_only():
    g, log = new()
    g.pawns[0] = [A(g, "A04"), A(g, "A00")]
    # A14 touches T03 (orange 4) and T21 (green 7): only one of them
    sc = script(g, 0, move=[A(g, "A14")], deliver=[T(g, "T21")])
    R.witch(g, 0, Ro(g, "hill_witch"), brave=True)
    assert sc.offered("deliver") == {T(g, "T03"), T(g, "T21")}
    assert len(sc.asked("deliver")) == 1
    assert list(g.potions[0]) == [0, 1, 1]
    assert g.score[0] == 17
    assert g.wands[0] == 1
    assert not g.tower_filled[T(g, "T03")]


def test_brave_witch_without_a_deliverable_tower_just_moves():
    g, log = new()
    g.potions[0] = [1, 1, 0]  # no orange: T01 (orange) cannot be served
    g.pawns[0] = [A(g, "A00"), A(g, "A56")]
    sc = script(g, 0, move=[A(g, "A01")])
    R.witch(g, 0, Ro(g, "meadow_witch"), brave=True)
    assert pawns(g, 0) == names(g, ["A01", "A56"])
    assert g.score[0] == 10 and list(g.potions[0]) == [1, 1, 0]
    assert not sc.asked("deliver")


# ----------------------------------------------------------------------------------------------
# Towers
# ----------------------------------------------------------------------------------------------

def test_round_tower_fills_once_and_gives_its_wands():
    g, log = new()
    g.pawns[0] = [A(g, "A10"), A(g, "A00")]
    g.potions[0] = [0, 3, 0]
    g.pawns[1] = [A(g, "A20"), A(g, "A56")]  # A20 also touches T08, and S01 (orange)
    sc0 = script(g, 0, deliver=[T(g, "T08")])
    R.druid(g, 0, Ro(g, "valley_druid"), brave=False)
    assert g.tower_filled[T(g, "T08")]
    assert list(g.potions[0]) == [0, 2, 0] and g.wands[0] == 1 + 2 and g.score[0] == 12
    assert sc0.offered("deliver") == {T(g, "T08")}
    # closed for the rest of the game: neither the same player nor another can serve it
    R.druid(g, 0, Ro(g, "valley_druid"), brave=False)
    assert list(g.potions[0]) == [0, 2, 0] and g.score[0] == 12
    sc1 = script(g, 1, deliver=[DECLINE])
    R.druid(g, 1, Ro(g, "valley_druid"), brave=False)
    assert sc1.offered("deliver") == {T(g, "S01")}
    assert g.score[1] == 10 and list(g.potions[1]) == [1, 1, 1]


def test_square_tower_never_fills_and_the_potion_returns():
    g, log = new()
    g.pawns[0] = [A(g, "A12"), A(g, "A00")]  # A12 (forest) touches only S03 (purple square 4)
    g.potions[0] = [0, 2, 0]
    g.pawns[1] = [A(g, "A11"), A(g, "A00")]
    g.potions[1] = [0, 1, 0]
    script(g, 0, deliver=[T(g, "S03"), T(g, "S03")])
    script(g, 1, deliver=[T(g, "S03")])
    R.druid(g, 0, Ro(g, "valley_druid"), brave=False)
    R.druid(g, 0, Ro(g, "valley_druid"), brave=False)
    R.druid(g, 1, Ro(g, "valley_druid"), brave=False)
    assert not g.tower_filled[T(g, "S03")]
    assert list(g.potions[0]) == [0, 0, 0] and g.score[0] == 18 and g.wands[0] == 1
    assert list(g.potions[1]) == [0, 0, 0] and g.score[1] == 14


def test_delivery_needs_a_potion_of_the_roof_colour():
    g, log = new()
    g.pawns[0] = [A(g, "A13"), A(g, "A00")]  # A13 (hill): T03 orange round, S06 green square
    g.potions[0] = [0, 5, 1]
    sc = script(g, 0, deliver=[DECLINE])
    R.druid(g, 0, Ro(g, "peak_druid"), brave=False)
    assert sc.offered("deliver") == {T(g, "T03")}
    assert g.score[0] == 10 and list(g.potions[0]) == [0, 5, 1]


# ----------------------------------------------------------------------------------------------
# Druids
# ----------------------------------------------------------------------------------------------

def test_cowardly_druid_delivers_without_moving_and_no_bonus():
    g, log = new()
    g.pawns[0] = [A(g, "A11"), A(g, "A56")]  # meadow: T01 (orange 2, +1 wand), S03 (purple 4)
    sc = script(g, 0, deliver=[T(g, "T01")])
    R.druid(g, 0, Ro(g, "valley_druid"), brave=False)
    assert sc.offered("deliver") == {T(g, "T01"), T(g, "S03")}
    assert pawns(g, 0) == names(g, ["A11", "A56"])
    assert g.score[0] == 12 and list(g.potions[0]) == [1, 1, 0] and g.wands[0] == 2


def test_brave_druid_scores_3_more_when_it_delivers():
    g, log = new()
    g.pawns[0] = [A(g, "A11"), A(g, "A56")]
    script(g, 0, deliver=[T(g, "T01")])
    R.druid(g, 0, Ro(g, "valley_druid"), brave=True)
    assert g.score[0] == 10 + 2 + 3 and list(g.potions[0]) == [1, 1, 0] and g.wands[0] == 2


def test_brave_druid_without_delivery_gets_no_bonus():
    g, log = new()
    g.pawns[0] = [A(g, "A11"), A(g, "A56")]
    g.potions[0] = [0, 0, 0]
    R.druid(g, 0, Ro(g, "valley_druid"), brave=True)
    assert g.score[0] == 10
    script(g, 0, deliver=[DECLINE])
    g.potions[0] = [1, 1, 1]
    R.druid(g, 0, Ro(g, "valley_druid"), brave=True)  # declined
    assert g.score[0] == 10 and list(g.potions[0]) == [1, 1, 1]


def test_druid_delivers_only_from_areas_of_its_two_terrains():
    g, log = new()
    g.pawns[0] = [A(g, "A13"), A(g, "A00")]  # hill
    R.druid(g, 0, Ro(g, "valley_druid"), brave=True)  # forest/meadow: nothing to do
    assert g.score[0] == 10 and list(g.potions[0]) == [1, 1, 1]
    sc = script(g, 0, deliver=[T(g, "S06")])
    R.druid(g, 0, Ro(g, "peak_druid"), brave=True)
    assert sc.offered("deliver") == {T(g, "T03"), T(g, "S06")}
    assert g.score[0] == 10 + 2 + 3 and list(g.potions[0]) == [0, 1, 1]
    assert not g.tower_filled[T(g, "S06")]


def test_druid_uses_either_pawn_and_a_tower_belongs_to_every_area_it_touches():
    g, log = new()
    g.potions[0] = [1, 1, 1]
    g.pawns[0] = [A(g, "A13"), A(g, "A41")]  # both hill: T03, S06 and T13 (A40/A41)
    sc = script(g, 0, deliver=[T(g, "T13")])
    R.druid(g, 0, Ro(g, "peak_druid"), brave=False)
    assert sc.offered("deliver") == {T(g, "T03"), T(g, "S06"), T(g, "T13")}
    assert g.score[0] == 17 and list(g.potions[0]) == [1, 0, 1]
    # A21 is hill; S03 also touches meadow A11 and forest A12, S01 forest A20 / A31
    g.pawns[1] = [A(g, "A21"), A(g, "A00")]
    sc1 = script(g, 1, deliver=[T(g, "S01")])
    R.druid(g, 1, Ro(g, "peak_druid"), brave=False)
    assert sc1.offered("deliver") == {T(g, "S01"), T(g, "S03")}
    assert g.score[1] == 13 and list(g.potions[1]) == [1, 1, 0]


def test_druid_cannot_deliver_from_a_castle():
    g, log = new()
    g.pawns[0] = [A(g, "A00"), A(g, "A56")]
    R.druid(g, 0, Ro(g, "valley_druid"), brave=True)
    R.druid(g, 0, Ro(g, "peak_druid"), brave=True)
    assert g.score[0] == 10 and list(g.potions[0]) == [1, 1, 1]


# ----------------------------------------------------------------------------------------------
# Gatherers
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, colour", [("herb_gatherer", GREEN), ("root_gatherer", PURPLE),
                                          ("fruit_gatherer", ORANGE)])
@pytest.mark.parametrize("brave", [False, True])
def test_gatherer_takes_1_potion_or_2_potions_and_a_wand(name, colour, brave):
    g, log = new()
    script(g, 0, gather=[ANY])
    R.gatherer(g, 0, Ro(g, name), brave=brave)
    want = [1, 1, 1]
    want[colour] += 2 if brave else 1
    assert list(g.potions[0]) == want
    assert g.wands[0] == (2 if brave else 1)
    assert g.score[0] == 10


def test_gatherer_may_be_declined():
    g, log = new()
    script(g, 0, gather=[DECLINE])
    R.gatherer(g, 0, Ro(g, "herb_gatherer"), brave=True)
    assert list(g.potions[0]) == [1, 1, 1] and g.wands[0] == 1


# ----------------------------------------------------------------------------------------------
# Weather fairy
# ----------------------------------------------------------------------------------------------

def _fairy_position(g, wands):
    g.pawns[0] = [A(g, "A02"), A(g, "A56")]  # A02 next to A01, A03, A12
    g.wands[0] = wands
    light = put_cloud(g, "A03", 2)
    put_cloud(g, "A12", 3)
    put_cloud(g, "A05", 1)  # two steps away
    return light


@pytest.mark.parametrize("brave, bonus", [(False, 0), (True, 3)])
def test_fairy_charms_an_adjacent_cloud_pays_stars_and_keeps_the_tile(brave, bonus):
    g, log = new()
    light = _fairy_position(g, wands=2)
    sc = script(g, 0, charm=[A(g, "A03")])
    R.weather_fairy(g, 0, Ro(g, "weather_fairy"), brave=brave)
    assert sc.offered("charm") == {A(g, "A03")}  # A12 costs 3 > 2 wands; A05 not adjacent
    assert not clouded(g, "A03")
    assert clouded(g, "A12") and clouded(g, "A05")
    assert g.wands[0] == 0
    assert g.lightning[0] == light == 2
    assert g.score[0] == 10 + bonus


def test_brave_fairy_without_a_charm_gets_no_bonus():
    g, log = new()
    _fairy_position(g, wands=1)  # only 2- and 3-star clouds next to the pawn
    R.weather_fairy(g, 0, Ro(g, "weather_fairy"), brave=True)
    assert g.score[0] == 10 and g.wands[0] == 1 and g.lightning[0] == 0
    g.wands[0] = 2
    script(g, 0, charm=[DECLINE])
    R.weather_fairy(g, 0, Ro(g, "weather_fairy"), brave=True)
    assert g.score[0] == 10 and g.wands[0] == 2 and clouded(g, "A03")


def test_fairy_diagonal_cloud_is_not_adjacent():
    g, log = new()
    g.pawns[0] = [A(g, "A01"), A(g, "A56")]
    put_cloud(g, "A12", 1)  # diagonal to A01
    R.weather_fairy(g, 0, Ro(g, "weather_fairy"), brave=True)
    assert clouded(g, "A12") and g.score[0] == 10 and g.wands[0] == 1


def test_fairy_castle_counts_as_the_pawns_area():
    rules = default_rules()
    board = copy.deepcopy(rules.to_dict()["board"])
    board["cloud_spaces"] = board["cloud_spaces"] + ["A10"]  # a cloud space next to a castle
    g, log = new(rules=rules.replace(board=board))
    g.pawns[0] = [A(g, "A00"), A(g, "A56")]
    light = put_cloud(g, "A10", 1)
    sc = script(g, 0, charm=[A(g, "A10")])
    R.weather_fairy(g, 0, Ro(g, "weather_fairy"), brave=False)
    assert sc.offered("charm") == {A(g, "A10")}
    assert not clouded(g, "A10") and g.wands[0] == 0 and g.lightning[0] == light


def test_charmed_cloud_area_is_open_to_witches():
    g, log = new()
    _fairy_position(g, wands=2)
    R.witch(g, 0, Ro(g, "forest_witch"), brave=False)  # A03, A12 clouded: no move to offer
    assert pawns(g, 0) == names(g, ["A02", "A56"])
    script(g, 0, charm=[A(g, "A03")])
    R.weather_fairy(g, 0, Ro(g, "weather_fairy"), brave=False)
    sc = script(g, 0, move=[A(g, "A03")])
    R.witch(g, 0, Ro(g, "forest_witch"), brave=False)
    assert A(g, "A03") in sc.offered("move")
    assert pawns(g, 0) == names(g, ["A03", "A56"])


# ----------------------------------------------------------------------------------------------
# 3. Turns
# ----------------------------------------------------------------------------------------------

def _turn(n=4, leader=0, hands=None, seed=0):
    g, log = new(n=n, seed=seed)
    g.round = 1
    g.leader = leader
    g.start_player = leader
    for s in range(n):
        g.hands[s] = set(hands.get(s, ())) if hands else set()
        g.played[s] = set()
    return g, log


def test_followers_must_play_the_led_role_in_clockwise_order():
    g, log = new(n=4)
    herb, root, fruit = Ro(g, "herb_gatherer"), Ro(g, "root_gatherer"), Ro(g, "fruit_gatherer")
    g, log = _turn(leader=2, hands={0: {herb, root}, 1: {fruit}, 2: {herb, fruit}, 3: {herb}})
    script(g, 2, log, lead=[(herb, False)], gather=[ANY])
    script(g, 3, log, follow=[False], gather=[ANY])
    script(g, 0, log, follow=[False], gather=[ANY])
    script(g, 1, log)  # seat 1 lacks the role: passes, asked nothing
    R.play_turn(g)
    assert log == [(2, "lead"), (2, "gather"), (3, "follow"), (3, "gather"),
                   (0, "follow"), (0, "gather")]
    assert [g.potions[s][GREEN] for s in range(4)] == [2, 1, 2, 2]
    assert g.hands == [{root}, {fruit}, {fruit}, set()]  # one card each at most
    assert g.leader == 2  # nobody brave: the leader stays


def test_later_brave_cancels_earlier_brave_and_last_brave_acts_and_leads():
    g, log = new(n=4)
    herb = Ro(g, "herb_gatherer")
    g, log = _turn(leader=2, hands={s: {herb} for s in range(4)})
    script(g, 2, log, lead=[(herb, True)])
    script(g, 3, log, follow=[True])  # cancels seat 2
    script(g, 0, log, follow=[False], gather=[ANY])  # cowardly: acts at once
    script(g, 1, log, follow=[True], gather=[ANY])  # cancels seat 3, acts at the end
    R.play_turn(g)
    assert log == [(2, "lead"), (3, "follow"), (0, "follow"), (0, "gather"),
                   (1, "follow"), (1, "gather")]
    assert [list(g.potions[s]) for s in range(4)] == [[2, 1, 1], [3, 1, 1], [1, 1, 1],
                                                      [1, 1, 1]]
    assert list(g.wands) == [1, 3, 2, 1]  # cancelled players get nothing, not even cowardly
    assert all(not h for h in g.hands) and all(g.played[s] == {herb} for s in range(4))
    assert g.leader == 1


def test_leader_brave_uncontested_acts_and_keeps_the_lead():
    g, log = new(n=3)
    fruit = Ro(g, "fruit_gatherer")
    g, log = _turn(n=3, leader=1, hands={1: {fruit}, 2: {Ro(g, "root_gatherer")}})
    script(g, 1, log, lead=[(fruit, True)], gather=[ANY])
    R.play_turn(g)
    assert list(g.potions[1]) == [1, 1, 3] and g.wands[1] == 3
    assert g.leader == 1


def test_cowardly_acts_at_once_before_the_brave_effect():
    g, log = new(n=3)
    fairy = Ro(g, "weather_fairy")
    g, log = _turn(n=3, leader=0, hands={0: {fairy}, 1: {fairy}})
    for s in (0, 1):
        g.pawns[s] = [A(g, "A02"), A(g, "A56")]
        g.wands[s] = 3
    light = put_cloud(g, "A03", 2)  # the only cloud on the board
    script(g, 0, log, lead=[(fairy, True)])
    script(g, 1, log, follow=[False], charm=[A(g, "A03")])
    R.play_turn(g)
    assert g.lightning[1] == light and g.wands[1] == 1 and g.score[1] == 10
    # seat 0's brave fairy found nothing to charm: no bonus, but it still leads
    assert g.lightning[0] == 0 and g.wands[0] == 3 and g.score[0] == 10
    assert g.leader == 0


def test_brave_player_who_does_nothing_still_leads():
    g, log = new(n=3)
    druid = Ro(g, "valley_druid")
    g, log = _turn(n=3, leader=0, hands={0: {druid}, 2: {druid}})
    g.potions[2] = [0, 0, 0]
    script(g, 0, log, lead=[(druid, False)])
    script(g, 2, log, follow=[True])
    R.play_turn(g)
    assert g.leader == 2 and g.score[2] == 10


def test_leader_without_cards_passes_the_lead_clockwise():
    g, log = new(n=4)
    herb = Ro(g, "herb_gatherer")
    g, log = _turn(leader=3, hands={1: {herb}, 2: {Ro(g, "root_gatherer")}})
    R.pass_lead(g)
    assert g.leader == 1  # 3 and 0 hold nothing
    g, log = _turn(leader=3, hands={1: {herb}, 2: {Ro(g, "root_gatherer")}})
    script(g, 1, log, lead=[(herb, False)], gather=[ANY])
    R.play_turn(g)
    assert log == [(1, "lead"), (1, "gather")]
    assert g.potions[1][GREEN] == 2


def test_enchanted_penalty_3_whenever_played_led_followed_brave_cowardly_cancelled():
    g, log = new(n=4)
    herb, root = Ro(g, "herb_gatherer"), Ro(g, "root_gatherer")
    g, log = _turn(leader=0, hands={0: {herb}, 1: {herb}, 2: {herb}, 3: {root}})
    g.enchanted = {herb}
    script(g, 0, log, lead=[(herb, False)], gather=[ANY])  # led, cowardly
    script(g, 1, log, follow=[True])  # followed, brave, cancelled
    script(g, 2, log, follow=[True], gather=[ANY])  # followed, brave, acts
    R.play_turn(g)
    assert g.score == [7, 7, 7, 10]
    assert list(g.potions[0]) == [2, 1, 1]
    assert list(g.potions[1]) == [1, 1, 1] and g.wands[1] == 2
    assert list(g.potions[2]) == [3, 1, 1] and g.wands[2] == 3
    assert g.leader == 2


def test_enchanted_penalty_respects_the_score_floor():
    g, log = new(n=2)
    herb = Ro(g, "herb_gatherer")
    g, log = _turn(n=2, leader=0, hands={0: {herb}})
    g.enchanted = {herb}
    g.score[0] = 1
    script(g, 0, log, lead=[(herb, False)], gather=[DECLINE])
    R.play_turn(g)
    assert g.score[0] == 0


@pytest.mark.parametrize("seed", range(4))
def test_round_invariants_with_random_play(seed):
    """Each role led at most once, 4..10 turns, at most one card per player per turn, every
    selected card played, and the player who last acted bravely starts the next round (the
    start player stays if nobody did)."""
    from bloomsim.policies import KIND_NAMES

    g = R.new_game(n_players=4, seed=seed)
    calls = []
    for s in range(4):
        base = g.policies[s]

        def pol(kind, obs, opts, n_opts, rng, _s=s, _base=base):
            i = _base(kind, obs, opts, n_opts, rng)
            calls.append((_s, KIND_NAMES[kind], opts[i].copy()))
            return i
        g.policies[s] = pol
    bravest = None              # round 1's last brave declaration (never cancelled), if any
    for rnd in range(2):
        first_lead = len(calls)
        R.play_round(g)
        leads = [c for c in calls[first_lead:] if c[1] == "lead"]
        if rnd == 1:
            assert leads[0][0] == bravest
        roles = [int(c[2][0]) for c in leads]
        assert len(roles) == len(set(roles))
        most = max(len(p) for p in g.played)  # 4, or 1..5 under More or Less?
        assert most <= len(roles) <= 10
        if g.rules.event_ids[g.event] != "more_or_less":
            assert all(len(p) == 4 for p in g.played) and len(roles) >= 4
        assert all(not h for h in g.hands)
        braves = [c[0] for c in calls[first_lead:]
                  if c[1] in ("lead", "follow") and c[2][F_BRAVE] == 1]
        bravest = braves[-1] if braves else leads[0][0]


def test_one_card_per_player_per_turn_and_every_selected_card_played():
    g = R.new_game(n_players=3, seed=5)
    g.round = 1
    g.event_deck = [ev(g, "tenth_event")] * 7  # a neutral event
    R.reveal_event(g)
    R.reveal_enchanted_roles(g)
    R.select_roles(g)
    selected = [set(h) for h in g.hands]
    assert all(len(h) == 4 for h in selected)
    turns = 0
    while any(g.hands):
        before = [len(h) for h in g.hands]
        R.play_turn(g)
        turns += 1
        assert all(0 <= b - len(h) <= 1 for b, h in zip(before, g.hands))
    assert 4 <= turns <= 10
    assert [set(p) for p in g.played] == selected


# ----------------------------------------------------------------------------------------------
# 6. Events
# ----------------------------------------------------------------------------------------------

def test_reveal_event_replaces_the_previous_one():
    g = R.new_game(n_players=3, seed=4)
    deck = list(g.event_deck)
    assert g.event == -1
    g.round = 1
    R.reveal_event(g)
    first = g.event
    g.round = 2
    R.reveal_event(g)
    assert {first, g.event} <= set(deck) and first != g.event


def test_more_or_less_points_by_number_of_cards():
    g, log = new(n=5)
    g.event = ev(g, "more_or_less")
    for s, k in enumerate([1, 2, 3, 4, 5]):
        script(g, s, select=[ANY] * k + ([DECLINE] if k < 5 else []))
    R.select_roles(g)
    assert [len(h) for h in g.hands] == [1, 2, 3, 4, 5]
    assert g.score == [16, 14, 12, 10, 7]


def test_normal_selection_is_exactly_4_cards_without_a_stop_option():
    g, log = new(n=3)
    g.event = ev(g, "tenth_event")
    scs = [script(g, s, select=[ANY] * 4) for s in range(3)]
    R.select_roles(g)
    assert [len(h) for h in g.hands] == [4, 4, 4] and g.score == [10, 10, 10]
    for sc in scs:
        assert all((rows[:, F_PASS] == 0).all() for rows in sc.asked("select"))


@pytest.mark.parametrize("choice", [CARD, EVENT])
def test_black_market_replaces_the_cowardly_effect_with_a_wand(choice):
    g, log = new()
    g.event = ev(g, "black_market")
    herb = Ro(g, "herb_gatherer")
    script(g, 0, alternative=[choice], gather=[ANY])
    R.cowardly_action(g, 0, herb)
    if choice == EVENT:
        assert list(g.potions[0]) == [1, 1, 1] and g.wands[0] == 2
    else:
        assert list(g.potions[0]) == [2, 1, 1] and g.wands[0] == 1


def test_black_market_is_not_offered_to_a_brave_player():
    g, log = new()
    g.event = ev(g, "black_market")
    script(g, 0, gather=[ANY])  # an ALTERNATIVE question would fail
    R.brave_action(g, 0, Ro(g, "herb_gatherer"))
    assert list(g.potions[0]) == [3, 1, 1] and g.wands[0] == 2


def test_black_market_through_a_cowardly_follow():
    g, log = new(n=3)
    herb = Ro(g, "herb_gatherer")
    g, log = _turn(n=3, leader=0, hands={0: {herb}, 1: {herb}})
    g.event = ev(g, "black_market")
    script(g, 0, log, lead=[(herb, True)], gather=[ANY])
    script(g, 1, log, follow=[False], alternative=[EVENT])
    R.play_turn(g)
    assert g.wands[1] == 3 and list(g.potions[1]) == [1, 1, 1]
    assert list(g.potions[0]) == [3, 1, 1] and g.wands[0] == 2


def test_black_distillery_gives_a_potion_of_choice_instead_of_moving():
    g, log = new()
    g.event = ev(g, "black_distillery")
    g.pawns[0] = [A(g, "A00"), A(g, "A56")]
    script(g, 0, alternative=[EVENT], colour=[ORANGE])
    R.cowardly_action(g, 0, Ro(g, "meadow_witch"))
    assert list(g.potions[0]) == [1, 1, 2] and g.wands[0] == 1
    assert pawns(g, 0) == names(g, ["A00", "A56"])


def test_tenth_event_has_no_effect():
    g, log = new()
    g.event = ev(g, "tenth_event")
    script(g, 0, gather=[ANY])  # no ALTERNATIVE question
    R.cowardly_action(g, 0, Ro(g, "herb_gatherer"))
    assert list(g.potions[0]) == [2, 1, 1]
    before = (list(g.score), [list(p) for p in g.potions], list(g.wands))
    R.round_end_event(g)
    assert (list(g.score), [list(p) for p in g.potions], list(g.wands)) == before


def test_empty_handed_at_most_3_potions_score_3_and_pay_nothing():
    # the spec's reading, option empty_handed: few_potions_score
    g, log = new(rules=default_rules().replace(empty_handed="few_potions_score"))
    g.event = ev(g, "empty_handed")
    g.potions = [[1, 1, 1], [2, 1, 1], [0, 0, 0], [0, 0, 3]]
    g.wands = [2, 0, 5, 0]
    R.round_end_event(g)
    assert g.score == [13, 10, 13, 13]
    assert [list(p) for p in g.potions] == [[1, 1, 1], [2, 1, 1], [0, 0, 0], [0, 0, 3]]
    assert list(g.wands) == [2, 0, 5, 0]


def test_perilous_places_rulebook_example_and_castles():
    g, log = new()
    g.event = ev(g, "perilous_places")
    g.pawns[0] = [A(g, "A02"), A(g, "A12")]  # forest + forest: -2 (rulebook)
    g.pawns[1] = [A(g, "A03"), A(g, "A01")]  # forest + meadow: -4 (rulebook's "gains 4", a slip)
    g.pawns[2] = [A(g, "A00"), A(g, "A04")]  # castle 0 + hill -2
    g.pawns[3] = [A(g, "A05"), A(g, "A56")]  # mountain -2 + castle 0
    R.round_end_event(g)
    assert g.score == [8, 6, 8, 8]


def test_protected_places_rulebook_example_and_castles():
    g, log = new()
    g.event = ev(g, "protected_places")
    g.pawns[0] = [A(g, "A05"), A(g, "A04")]  # mountain + hill: 0 (rulebook)
    g.pawns[1] = [A(g, "A02"), A(g, "A01")]  # forest + meadow: +2 (rulebook)
    g.pawns[2] = [A(g, "A00"), A(g, "A56")]  # castles: 0
    g.pawns[3] = [A(g, "A04"), A(g, "A13")]  # hill + hill: +2
    R.round_end_event(g)
    assert g.score == [10, 12, 10, 12]


def test_places_score_floor():
    g, log = new()
    g.event = ev(g, "perilous_places")
    g.pawns[0] = [A(g, "A04"), A(g, "A13")]  # hill + hill: -4
    g.score[0] = 1
    R.round_end_event(g)
    assert g.score[0] == 0


def test_upper_hand_highest_reveal_ties_all_win_and_pay():
    g, log = new()
    g.event = ev(g, "upper_hand")
    g.potions = [[1, 1, 1], [2, 2, 0], [1, 0, 0], [0, 0, 0]]
    g.wands = [2, 0, 1, 0]
    script(g, 0, bid=[3], pay=[3, 3, GREEN])
    script(g, 1, bid=[3], pay=[GREEN, GREEN, PURPLE])
    script(g, 2, bid=[1])
    # seat 3 holds nothing: its only reveal is 0
    R.round_end_event(g)
    assert g.score == [15, 15, 10, 10]
    assert list(g.potions[0]) == [0, 1, 1] and g.wands[0] == 0
    assert list(g.potions[1]) == [0, 1, 0] and g.wands[1] == 0
    assert list(g.potions[2]) == [1, 0, 0] and g.wands[2] == 1


def test_upper_hand_a_reveal_of_zero_never_wins():
    g, log = new(n=2)
    g.event = ev(g, "upper_hand")
    script(g, 0, bid=[0])
    script(g, 1, bid=[0])
    R.round_end_event(g)
    assert g.score == [10, 10]
    assert [list(p) for p in g.potions] == [[1, 1, 1]] * 2 and list(g.wands) == [1, 1]


def test_the_works_at_most_one_set_of_4_kinds_for_6():
    g, log = new()
    g.event = ev(g, "the_works")
    g.potions = [[2, 2, 2], [1, 1, 1], [1, 1, 1], [5, 5, 5]]
    g.wands = [2, 0, 1, 5]
    script(g, 0, works=[ANY])
    script(g, 2, works=[DECLINE])
    script(g, 3, works=[ANY])
    # seat 1 has no wand: cannot pay a set of 4 different kinds
    R.round_end_event(g)
    assert g.score == [16, 10, 10, 16]
    assert [list(p) for p in g.potions] == [[1, 1, 1], [1, 1, 1], [1, 1, 1], [4, 4, 4]]
    assert list(g.wands) == [1, 0, 1, 4]


def test_flock_together_same_terrain_not_same_area_castles_do_not_count():
    g, log = new(n=5)
    g.event = ev(g, "flock_together")
    g.pawns[0] = [A(g, "A13"), A(g, "A41")]  # hill, different areas: +4
    g.pawns[1] = [A(g, "A01"), A(g, "A01")]  # same meadow area: +4
    g.pawns[2] = [A(g, "A02"), A(g, "A01")]  # forest + meadow: 0
    g.pawns[3] = [A(g, "A00"), A(g, "A56")]  # two castles: 0
    g.pawns[4] = [A(g, "A00"), A(g, "A00")]  # the same castle: 0
    R.round_end_event(g)
    assert g.score == [14, 14, 10, 10, 10]


# ----------------------------------------------------------------------------------------------
# 5. End of game
# ----------------------------------------------------------------------------------------------

def test_lightning_table_and_beyond_10():
    rules = default_rules()
    table = [0, 1, 3, 5, 8, 11, 15, 19, 24, 29, 35]
    assert [R.lightning_points(rules, b) for b in range(11)] == table
    assert [R.lightning_points(rules, b) for b in (11, 12, 15)] == [41, 47, 65]


def test_resource_sets_match_brute_force_over_all_splits():
    rules = default_rules()
    for counts in product(range(7), repeat=4):
        assert R.resource_set_points(rules, list(counts)) == brute_sets(counts), counts


@pytest.mark.parametrize("counts, pts", [((1, 1, 1, 1), 4), ((1, 1, 1, 0), 2),
                                         ((3, 3, 3, 1), 8), ((1, 2, 2, 2), 6),
                                         ((9, 9, 9, 0), 18), ((10, 10, 10, 10), 40),
                                         ((20, 0, 0, 0), 0), ((2, 2, 0, 1), 2)])
def test_resource_sets_hand_examples(counts, pts):
    assert brute_sets(counts) == pts
    assert R.resource_set_points(default_rules(), list(counts)) == pts


def test_end_of_game_adds_lightning_and_resource_sets():
    g, log = new(n=3)
    g.lightning = [4, 0, 11]
    g.potions = [[1, 2, 2], [0, 0, 0], [3, 3, 3]]
    g.wands = [2, 0, 1]
    R.end_of_game(g)
    assert g.score == [10 + 8 + 6, 10, 10 + 41 + 8]


def test_ranks_most_points_then_most_resources():
    g, log = new()
    g.score = [20, 20, 25, 5]
    g.potions = [[1, 1, 1], [1, 1, 1], [0, 0, 0], [9, 9, 9]]
    g.wands = [2, 0, 0, 9]
    rank, win = R.ranks(g)
    assert list(rank) == [2, 3, 1, 4] and list(win) == [0, 0, 1, 0]
    g.score = [20, 20, 10, 10]
    rank, win = R.ranks(g)
    assert rank[0] == 1 and rank[1] == 2 and list(win) == [1, 0, 0, 0]


def test_ranks_full_tie_shares_the_win():
    g, log = new()
    g.score = [20, 20, 20, 0]
    g.potions = [[1, 1, 1], [0, 2, 2], [1, 1, 0], [9, 9, 9]]
    g.wands = [1, 0, 0, 9]  # 4, 4, 2, 36
    rank, win = R.ranks(g)
    assert rank[0] == rank[1] == 1 and rank[2] > 1 and rank[3] > rank[2]
    assert list(win) == pytest.approx([0.5, 0.5, 0, 0])
    g.wands = [1, 0, 2, 9]  # 4, 4, 4: three-way tie
    rank, win = R.ranks(g)
    assert list(win) == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0])


def test_score_floor_0_and_the_no_floor_option():
    g, log = new(n=2)
    R.add_points(g, 0, -15, "pts_events")
    assert g.score[0] == 0
    g2, log = new(n=2, rules=default_rules().replace(score_floor=None))
    R.add_points(g2, 0, -15, "pts_events")
    assert g2.score[0] == -5


# ----------------------------------------------------------------------------------------------
# More edge cases
# ----------------------------------------------------------------------------------------------

def test_brave_witch_that_does_not_move_cannot_deliver():
    g, log = new()
    g.pawns[0] = [A(g, "A11"), A(g, "A56")]  # A11 touches T01 and S03, but no move: no delivery
    script(g, 0, move=[DECLINE])  # a DELIVER question would fail
    R.witch(g, 0, Ro(g, "meadow_witch"), brave=True)
    assert pawns(g, 0) == names(g, ["A11", "A56"]) and g.score[0] == 10


def test_witch_may_move_into_an_area_with_other_pawns():
    g, log = new()
    g.pawns[1] = [A(g, "A10"), A(g, "A10")]
    g.pawns[0] = [A(g, "A00"), A(g, "A56")]
    sc = script(g, 0, move=[A(g, "A10")])
    R.witch(g, 0, Ro(g, "meadow_witch"), brave=False)
    assert A(g, "A10") in sc.offered("move") and pawns(g, 0) == names(g, ["A10", "A56"])


def test_brave_witch_next_to_a_filled_round_tower_can_use_the_square_one():
    g, log = new()
    g.tower_filled[T(g, "T08")] = True  # A20 touches T08 (filled) and S01 (orange square 3)
    g.pawns[0] = [A(g, "A21"), A(g, "A56")]
    sc = script(g, 0, move=[A(g, "A20")], deliver=[T(g, "S01")])
    R.witch(g, 0, Ro(g, "forest_witch"), brave=True)
    assert sc.offered("deliver") == {T(g, "S01")}
    assert g.score[0] == 13 and list(g.potions[0]) == [1, 1, 0] and g.wands[0] == 1


def test_round_tower_without_wands_gives_none():
    g, log = new()
    g.pawns[0] = [A(g, "A13"), A(g, "A00")]
    script(g, 0, deliver=[T(g, "T03")])  # orange round 4, no wands
    R.druid(g, 0, Ro(g, "peak_druid"), brave=False)
    assert g.score[0] == 14 and g.wands[0] == 1 and g.tower_filled[T(g, "T03")]


def test_druid_without_terrain_condition_option():
    # seed 000 only asks for a pawn in an area of the tower; the spec keeps that reading as the
    # named option druid_needs_terrain = false
    g, log = new(rules=default_rules().replace(druid_needs_terrain=False))
    g.pawns[0] = [A(g, "A13"), A(g, "A00")]  # hill, with the valley (forest/meadow) druid
    sc = script(g, 0, deliver=[T(g, "T03")])
    R.druid(g, 0, Ro(g, "valley_druid"), brave=True)
    assert sc.offered("deliver") == {T(g, "T03"), T(g, "S06")}
    assert g.score[0] == 17


def test_fairy_uses_either_pawn_and_pays_all_stars():
    g, log = new()
    g.pawns[0] = [A(g, "A56"), A(g, "A31")]  # A31 next to A30 (cloud space), A21, A41, A32
    g.wands[0] = 3
    light = put_cloud(g, "A30", 3)
    sc = script(g, 0, charm=[A(g, "A30")])
    R.weather_fairy(g, 0, Ro(g, "weather_fairy"), brave=True)
    assert sc.offered("charm") == {A(g, "A30")}
    assert g.wands[0] == 0 and g.lightning[0] == light == 3 and g.score[0] == 13


def test_lightning_scores_on_the_total_of_bolts_not_per_tile():
    g, log = new(n=2)
    g.pawns[0] = [A(g, "A02"), A(g, "A56")]
    g.wands[0] = 4
    put_cloud(g, "A03", 2)
    put_cloud(g, "A12", 2)
    script(g, 0, charm=[A(g, "A03"), A(g, "A12")])
    R.weather_fairy(g, 0, Ro(g, "weather_fairy"), brave=False)
    R.weather_fairy(g, 0, Ro(g, "weather_fairy"), brave=False)
    assert g.lightning[0] == 4 and g.wands[0] == 0
    g.potions[0] = [0, 0, 0]
    R.end_of_game(g)
    assert g.score[0] == 10 + 8  # table[4], not table[2] + table[2]


def test_lead_offers_every_card_cowardly_and_brave_follow_offers_no_pass():
    g, log = new(n=2)
    herb, root, fairy = (Ro(g, n) for n in ("herb_gatherer", "root_gatherer", "weather_fairy"))
    g, log = _turn(n=2, leader=0, hands={0: {herb, root, fairy}, 1: {herb}})
    s0 = script(g, 0, log, lead=[(herb, False)], gather=[ANY])
    s1 = script(g, 1, log, follow=[False], gather=[ANY])
    R.play_turn(g)
    rows = s0.asked("lead")[0]
    assert sorted((int(r[0]), int(r[1])) for r in rows) == sorted(
        (r, b) for r in (herb, root, fairy) for b in (0, 1))
    rows = s1.asked("follow")[0]
    assert len(rows) == 2 and (rows[:, F_PASS] == 0).all()
    assert sorted(int(r[1]) for r in rows) == [0, 1]


def test_more_or_less_requires_at_least_one_card():
    g, log = new(n=2)
    g.event = ev(g, "more_or_less")
    scs = [script(g, s, select=[ANY, DECLINE]) for s in range(2)]
    R.select_roles(g)
    for sc in scs:
        first = sc.asked("select")[0]
        assert (first[:, F_PASS] == 0).all() and len(first) == 10
    assert g.score == [16, 16]


def test_enchanted_deck_empty_at_the_start_of_a_reveal_is_reshuffled():
    g = R.new_game(n_players=3, seed=9)
    g.round = 5
    g.enchanted_deck = []
    R.reveal_enchanted_roles(g)
    assert len(g.enchanted) == 2 and g.enchanted <= set(range(10))


def test_the_works_exactly_one_set_leaves_nothing():
    g, log = new(n=2)
    g.event = ev(g, "the_works")
    g.potions = [[1, 1, 1], [1, 1, 1]]
    g.wands = [1, 1]
    script(g, 0, works=[ANY])
    script(g, 1, works=[ANY])
    R.round_end_event(g)
    assert g.score == [16, 16]
    assert [list(p) for p in g.potions] == [[0, 0, 0]] * 2 and list(g.wands) == [0, 0]


def test_upper_hand_single_highest_wins():
    g, log = new(n=3)
    g.event = ev(g, "upper_hand")
    g.potions = [[2, 0, 0], [1, 1, 1], [0, 0, 0]]
    g.wands = [0, 0, 4]
    script(g, 0, bid=[2])  # one kind held: no PAY question
    script(g, 1, bid=[1])
    script(g, 2, bid=[1])
    R.round_end_event(g)
    assert g.score == [15, 10, 10]
    assert list(g.potions[0]) == [0, 0, 0]
    assert list(g.potions[1]) == [1, 1, 1] and g.wands[2] == 4


def test_enchanted_penalty_is_paid_when_played_before_the_brave_effect():
    # spec 3.6: the 3 points go "the moment the card is played": 2 -> 0 (floor), then +5 +3
    g, log = new(n=2)
    druid = Ro(g, "valley_druid")
    g, log = _turn(n=2, leader=0, hands={0: {druid}})
    g.enchanted = {druid}
    g.score[0] = 2
    g.pawns[0] = [A(g, "A20"), A(g, "A00")]  # forest: T08 (purple 2, +2 wands), S01 (orange 3)
    script(g, 0, log, lead=[(druid, True)], deliver=[T(g, "S01")])
    R.play_turn(g)
    assert g.score[0] == 0 + 3 + 3


def test_enchanted_penalty_is_paid_before_the_cowardly_effect():
    g, log = new(n=2)
    druid = Ro(g, "valley_druid")
    g, log = _turn(n=2, leader=0, hands={0: {druid}})
    g.enchanted = {druid}
    g.score[0] = 1
    g.pawns[0] = [A(g, "A20"), A(g, "A00")]
    script(g, 0, log, lead=[(druid, False)], deliver=[T(g, "S01")])
    R.play_turn(g)
    assert g.score[0] == 0 + 3


def test_more_or_less_loss_respects_the_floor():
    g, log = new(n=2)
    g.event = ev(g, "more_or_less")
    g.score = [2, 2]
    script(g, 0, select=[ANY] * 5)
    script(g, 1, select=[ANY, DECLINE])
    R.select_roles(g)
    assert g.score == [0, 8]


@pytest.mark.parametrize("n", [2, 5])
def test_a_game_is_7_rounds_with_7_different_events(n):
    from bloomsim.policies import O_EVENT, O_ROUND

    g = R.new_game(n_players=n, seed=11)
    seen = {}
    for s in range(n):
        base = g.policies[s]

        def pol(kind, obs, opts, n_opts, rng, _base=base):
            seen.setdefault(int(obs[O_ROUND]), set()).add(int(obs[O_EVENT]))
            return _base(kind, obs, opts, n_opts, rng)
        g.policies[s] = pol
    R.play_game(g)
    assert sorted(seen) == list(range(1, 8))
    events = [seen[r] for r in range(1, 8)]
    assert all(len(e) == 1 for e in events)  # one event per round
    events = [e.pop() for e in events]
    assert len(set(events)) == 7 and set(events) <= set(range(10))
    assert all(not h for h in g.hands)


def test_observation_hides_other_hands_and_future_decks():
    # spec 7: one's own hand is private; others' hands and the future decks are never seen
    g, log = new(n=3)
    herb, root = Ro(g, "herb_gatherer"), Ro(g, "root_gatherer")
    g.hands = [{herb}, {root}, {herb}]
    before = R.observe(g, 0).copy()
    g.hands = [{herb}, {herb}, {root}]  # same counts, other roles
    g.event_deck = list(reversed(g.event_deck))
    g.enchanted_deck = list(reversed(g.enchanted_deck))
    assert (R.observe(g, 0) == before).all()
    g.hands = [{root}, {herb}, {root}]  # one's own hand is seen
    assert not (R.observe(g, 0) == before).all()


def test_druid_needs_the_pawns_own_area_to_be_of_its_terrain():
    # S03 touches A11 (meadow), A12 (forest) and A21 (hill): a pawn on forest A12 serves it with
    # the valley druid, not with the peak druid, although the tower also touches a hill area
    g, log = new()
    g.pawns[0] = [A(g, "A12"), A(g, "A00")]
    R.druid(g, 0, Ro(g, "peak_druid"), brave=True)
    assert g.score[0] == 10 and list(g.potions[0]) == [1, 1, 1]
    sc = script(g, 0, deliver=[T(g, "S03")])
    R.druid(g, 0, Ro(g, "valley_druid"), brave=True)
    assert sc.offered("deliver") == {T(g, "S03")}
    assert g.score[0] == 17 and list(g.potions[0]) == [1, 0, 1]


def test_witch_offers_each_pawn_separately():
    g, log = new()
    g.pawns[0] = [A(g, "A01"), A(g, "A10")]  # both meadow, both next to meadow A11
    sc = script(g, 0, move=[A(g, "A11")])
    R.witch(g, 0, Ro(g, "meadow_witch"), brave=False)
    rows = sc.asked("move")[0]
    targets = sorted(int(r[10]) for r in rows if r[F_PASS] == 0)
    # A01 -> A11; A10 -> A11 (A00 castle, A20 forest excluded)
    assert targets == [A(g, "A11"), A(g, "A11")]
    assert pawns(g, 0) in (names(g, ["A11", "A10"]), names(g, ["A01", "A11"]))


def test_pass_lead_keeps_a_leader_who_has_cards():
    g, log = _turn(n=3, leader=1, hands={1: {0}, 2: {1}})
    R.pass_lead(g)
    assert g.leader == 1


@pytest.mark.parametrize("event", ["more_or_less", "tenth_event"])
def test_selection_is_secret_and_simultaneous(event):
    # spec 2.3 / 7: nobody sees another player's selection (nor its size) before the reveal
    def first_questions(k0):
        g, log = new(n=3, seed=7)
        g.event = ev(g, event)
        sizes = [k0, 3, 2] if event == "more_or_less" else [4, 4, 4]
        obs = {}
        for s, k in enumerate(sizes):
            sc = script(g, s, select=[ANY] * k + ([DECLINE] if k < 5 else []))
            base = sc.__call__

            def rec(kind, o, opts, n, rng, _s=s, _base=base):
                obs.setdefault(_s, []).append(o.copy())
                return _base(kind, o, opts, n, rng)
            g.policies[s] = rec
        R.select_roles(g)
        return obs

    a, b = first_questions(1), first_questions(5)
    for s in (1, 2):
        assert (a[s][0] == b[s][0]).all()


def test_upper_hand_reveals_are_simultaneous():
    # spec 6: everyone takes resources in hand secretly, all reveal at once
    def second_bidder_view(bid0):
        g, log = new(n=2, seed=3)
        g.event = ev(g, "upper_hand")
        seen = []
        script(g, 0, log, bid=[bid0], pay=[ANY] * 3)
        sc = script(g, 1, log, bid=[0])
        base = sc.__call__

        def rec(kind, o, opts, n, rng):
            seen.append((kind, o.copy(), opts[:n].copy()))
            return base(kind, o, opts, n, rng)
        g.policies[1] = rec
        R.round_end_event(g)
        assert log.index((0, "bid")) < log.index((1, "bid"))  # seat 1 bids second
        return seen[0]

    (k1, o1, r1), (k3, o3, r3) = second_bidder_view(1), second_bidder_view(3)
    assert k1 == k3 and (o1 == o3).all() and (r1 == r3).all()


def test_lead_options_do_not_depend_on_other_players_hidden_cards():
    # spec 7: option features (e.g. the risk of being cancelled) use public knowledge only
    def lead_view(other):
        g, log = new(n=3, seed=2)
        herb, root, fruit = (Ro(g, n) for n in ("herb_gatherer", "root_gatherer",
                                                "fruit_gatherer"))
        g, log = _turn(n=3, leader=0, hands={0: {herb, root}, 1: {other, fruit}, 2: {fruit}})
        sc = script(g, 0, log, lead=[(root, False)], gather=[ANY])
        obs = []
        base = sc.__call__

        def rec(kind, o, opts, n, rng):
            obs.append((o.copy(), opts[:n].copy()))
            return base(kind, o, opts, n, rng)
        g.policies[0] = rec
        script(g, 1, log, follow=[False], gather=[ANY])
        R.play_turn(g)
        return obs[0]

    ids = list(default_rules().role_ids)
    (o1, r1) = lead_view(ids.index("herb_gatherer"))
    (o2, r2) = lead_view(ids.index("weather_fairy"))
    assert (o1 == o2).all() and (r1 == r2).all()


def test_black_market_offered_even_when_the_card_could_do_nothing_and_penalty_still_paid():
    g, log = new(n=2)
    druid = Ro(g, "valley_druid")
    g, log = _turn(n=2, leader=0, hands={0: {druid}})
    g.event = ev(g, "black_market")
    g.enchanted = {druid}
    g.pawns[0] = [A(g, "A00"), A(g, "A56")]  # the druid could deliver nothing from the castles
    script(g, 0, log, lead=[(druid, False)], alternative=[EVENT])
    R.play_turn(g)
    assert g.wands[0] == 2 and g.score[0] == 7 and list(g.potions[0]) == [1, 1, 1]
