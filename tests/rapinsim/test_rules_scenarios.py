"""One scenario per rule on hand-built positions of the reference engine.

Districts and houses are 0-based (district 3 of the rulebook is ``2``); house = 3 * d + k.
"""
import pytest

import rapinsim
from rapinsim import reference as ref
from rapinsim import stats as S
from rapinsim.policies import (
    ACTION,
    DISGUISE,
    F_ARG,
    F_DISTRICT,
    F_HOUSE,
    F_WHAT,
    HOUSE,
    O_ITEM,
    O_PASS,
    O_SEARCH,
    O_SKILL,
    O_STEP,
    O_YES,
    STEP,
)
from rapin_helpers import RULES, Dice, Script, game, house


# ---------------------------------------------------------------- setup

def test_setup_rize_die_and_counter_clockwise_placement():
    pols = [Script(), Script(), Script()]
    st = ref.setup(RULES, pols, ["a", "b", "c"], 123, 0, characters=[0, 4, 5])
    assert st.rize in (1, 6)
    assert [s for s, kind, n, c in st.decisions] == [2, 1, 0]
    assert len(set(st.pos)) == 3 and st.rize not in st.pos
    assert sorted(st.board) == list(range(30))


def test_characters_drawn_distinct_from_roster():
    from rapinsim.rules import N_CHANCE
    from simcore.rng import PyRng
    for g in range(20):
        chars = ref.draw_characters(PyRng(1, g, N_CHANCE, 6), list(range(6)), 6)
        assert sorted(chars) == list(range(6))


# ---------------------------------------------------------------- steps and searches

def test_never_step_into_rizes_district_but_next_to_him_allowed():
    st = game(["cocoa", "chiya"])
    st.pos, st.rize = [1, 5], 2
    assert ref.legal_steps(st, 0) == [0]              # 2 is Rize's; ring 1-2-3
    st.pos[0], st.rize = 3, 1
    assert 2 in ref.legal_steps(st, 0)                 # Rize steps into 2 next: allowed
    st.rules = RULES.replace(step_into_rize_next=False)
    st.ra = st.rules.arrays()
    assert 2 not in ref.legal_steps(st, 0)


def test_search_conditions_and_the_turn_ends():
    st = game(["cocoa", "chiya"])
    ref.put(st, "brown2", house(4))
    st.pos, st.rize = [4, 4], 0
    assert not ref.can_search(st, 0)                   # another player here
    st.pos = [4, 7]
    st.rize = 4
    assert not ref.can_search(st, 0)                   # Rize here
    st.rize = 0
    assert ref.can_search(st, 0)
    st.policies[0] = Script({F_WHAT: O_SEARCH, F_HOUSE: house(4)}, {F_WHAT: O_PASS})
    st.turns = 1
    ref.play_turn(st, 0)
    assert ref.treasures_and_rabbits(st, 0) == (1, 2)
    assert len(st.policies[0].calls) == 1              # the search ended the turn
    assert all(st.seen[q][ref.find_tile(st, "brown2")] for q in range(2))


def test_three_actions_then_the_turn_ends():
    st = game(["chiya", "lapin"])
    st.pos, st.rize = [0, 5], 8
    st.policies[0] = Script({F_WHAT: O_STEP, F_DISTRICT: 1}, {F_WHAT: O_STEP, F_DISTRICT: 2},
                            {F_WHAT: O_STEP, F_DISTRICT: 3}, {F_WHAT: O_STEP, F_DISTRICT: 4})
    ref.play_turn(st, 0)
    assert st.pos[0] == 3 and len(st.policies[0].calls) == 3


def test_item_taken_face_down_is_known_only_to_its_taker():
    st = game(["cocoa", "chiya"])
    lamp = ref.put(st, "lamp", house(2))
    st.pos, st.rize = [2, 6], 0
    ref.search(st, 0, house(2))
    assert st.loc[lamp] == ref.HAND and st.seen[0][lamp] and not st.seen[1][lamp]


# ---------------------------------------------------------------- items

def test_lamp_looks_without_taking_or_triggering():
    st = game(["cocoa", "chiya"])
    ref.give(st, 0, "lamp")
    alarm = ref.put(st, "alarm", house(2, 0))
    gold = ref.put(st, "brown3", house(2, 1))
    st.pos, st.rize = [2, 6], 0
    ref.lamp(st, 0)
    assert st.seen[0][alarm] and st.seen[0][gold] and not st.seen[1][alarm]
    assert st.board[house(2)] == alarm and st.rize == 0
    assert st.seat_stats[0, S.S_ITEM + 0] == 1 and not ref.held(st, 0, 1)


def test_coffee_takes_two_traps_trigger_and_ends_the_turn():
    st = game(["cocoa", "chiya"])
    ref.give(st, 0, "coffee")
    ref.put(st, "pitfall", house(2, 0))
    ref.put(st, "brown3", house(2, 1))
    ref.put(st, "brown1", house(2, 2))
    st.pos, st.rize = [2, 6], 0
    st.policies[0] = Script({F_WHAT: O_ITEM, F_ARG: 1}, {F_HOUSE: house(2, 0)},
                            {F_HOUSE: house(2, 1)})
    ref.play_turn(st, 0)
    assert st.skip[0] == 1 and ref.treasures_and_rabbits(st, 0) == (1, 3)
    assert st.board[house(2, 2)] != ref.EMPTY and st.turn_end
    assert st.seat_stats[0, S.S_SEARCHES] == 1 and st.searched


def test_coffee_second_search_stops_when_the_alarm_brought_rize():
    st = game(["cocoa", "chiya"])
    ref.give(st, 0, "coffee")
    ref.put(st, "alarm", house(2, 0))
    ref.put(st, "brown3", house(2, 1))
    st.pos, st.rize = [2, 6], 0
    st.policies[0] = Script({F_HOUSE: house(2, 0)})
    ref.coffee(st, 0)
    assert st.seat_stats[0, S.S_TAKEN + 0] == 0 and st.seat_stats[0, S.S_FOUND] == 1


def test_disguise_as_a_reaction_option_cancels_the_find():
    st = game(["cocoa", "chiya"], Script({F_WHAT: O_YES}), Script(),
              rules=RULES.replace(disguise="reaction"))
    ref.give(st, 0, "disguise")
    ref.give(st, 0, "brown2")
    st.pos, st.rize = [3, 8], 2
    ref.rize_moves(st)
    assert st.rize == 3 and st.pos[0] == 3
    assert st.seat_stats[0, S.S_FOUND] == 0 and st.seat_stats[0, S.S_LOST] == 0
    assert not ref.held(st, 0, 1) and st.seat_stats[0, S.S_ITEM + 2] == 1
    assert st.policies[0].calls == [(DISGUISE, 2)]


def test_bicycle_steps_up_to_three_for_one_action():
    st = game(["chiya", "lapin"])
    ref.give(st, 0, "bicycle")
    st.pos, st.rize = [0, 9], 6
    st.policies[0] = Script({F_WHAT: O_ITEM, F_ARG: 3}, {F_DISTRICT: 1}, {F_DISTRICT: 2},
                            {F_DISTRICT: 7}, {F_WHAT: O_PASS})
    st.actions_left = 3
    ref.play_turn(st, 0)
    assert st.pos[0] == 7                              # 1 -> 2 -> 3 -> bridge to 8
    assert st.policies[0].calls[1:4] == [(STEP, 2), (STEP, 3), (STEP, 4)]


def test_map_looks_at_any_one_face_down_tile():
    st = game(["chiya", "lapin"], Script({F_HOUSE: house(8, 2)}), Script())
    ref.give(st, 0, "map")
    t = ref.put(st, "prank", house(8, 2))
    st.pos, st.rize = [0, 5], 3
    ref.map_(st, 0)
    assert st.seen[0][t] and st.board[house(8, 2)] == t


# ---------------------------------------------------------------- traps

def test_alarm_brings_rize_who_drops_carried_tiles_and_finds_everyone():
    st = game(["lapin", "chiya", "cocoa"])
    ref.put(st, "alarm", house(4, 0))
    carried = ref.find_tile(st, "brown3")
    st.bag = [carried]
    st.loc[carried] = ref.BAG
    st.pos, st.rize = [4, 4, 9], 0
    st.letter[0] = 4
    ref.notice_letter_take(st, 0)                      # a shared district: not a search
    assert st.board[house(4, 0)] == carried and st.face_up[house(4, 0)]
    assert st.seat_stats[0, S.S_FOUND] == 1 and st.seat_stats[1, S.S_FOUND] == 1
    assert st.seat_stats[:, S.S_TRAP + 0].tolist() == [1, 0, 0]
    assert st.pos[0] == st.pos[1] == st.rize != 4


def test_alarm_into_the_dawn_district_ends_the_game():
    st = game(["cocoa", "chiya"])
    ref.put(st, "alarm", house(4, 0))
    st.pos, st.rize, st.dawn = [4, 8], 1, 4
    ref.search(st, 0, house(4, 0))
    assert st.over and st.dawn_end and st.seat_stats[0, S.S_FOUND] == 0


def test_pitfall_skips_the_next_turn_and_rize_still_moves():
    st = game(["cocoa", "chiya"])
    st.pos, st.rize = [4, 8], 0
    st.rules = RULES.replace(max_player_turns=3)
    ref.put(st, "pitfall", house(4))
    ref.pitfall(st, 0, house(4))
    ref.play(st)
    assert st.turns == 3 and st.skip == [0, 0] and st.rize == 3 and st.stalled
    assert len([c for c in st.policies[0].calls]) == 1      # seat 0 played turn 3 only


def test_prank_discards_a_random_item_else_returns_a_treasure_face_up():
    st = game(["cocoa", "chiya"])
    lamp = ref.give(st, 0, "lamp")
    gold = ref.give(st, 0, "brown2")
    ref.prank(st, 0, house(5))
    assert st.loc[lamp] == ref.DISCARDED and st.loc[gold] == ref.HAND
    assert st.seat_stats[0, S.S_ITEM + 0] == 0          # discarded, not used
    ref.prank(st, 0, house(5))
    assert st.board[house(5)] == gold and st.face_up[house(5)]


# ---------------------------------------------------------------- skills

def test_lapin_notice_letter_on_her_own_turn_takes_a_free_tile():
    st = game(["lapin", "chiya"])
    st.pos, st.rize = [0, 2], 6
    gold = ref.put(st, "brown3", house(2, 1))
    st.policies[0] = Script({F_WHAT: O_SKILL}, {F_DISTRICT: 2}, {F_WHAT: O_STEP, F_DISTRICT: 1},
                            {F_WHAT: O_STEP, F_DISTRICT: 2}, {F_HOUSE: house(2, 1)})
    ref.play_turn(st, 0)
    assert st.loc[gold] == ref.HAND and st.letter[0] == -1
    assert st.seat_stats[0, S.S_SEARCHES] == 0 and st.seat_stats[0, S.S_SKILL_USED] == 1


def test_lapin_moved_there_by_rize_takes_at_the_start_of_her_next_turn():
    """FAQ: escorted into the marked district, she takes the tile at her next turn's start,
    without spending an action."""
    st = game(["lapin", "chiya"])
    gold = ref.put(st, "brown3", house(5, 0))
    st.pos, st.rize, st.letter = [3, 9], 2, [5, -1]
    st.rng = Dice(1)                                    # escort die shows 2: district 4 -> 6
    ref.rize_moves(st)
    assert st.pos[0] == 5 and st.letter_pending[0] and st.loc[gold] == house(5, 0)
    st.policies[0] = Script({F_HOUSE: house(5, 0)}, {F_WHAT: O_PASS})
    ref.play_turn(st, 0)
    assert st.loc[gold] == ref.HAND                     # taken before any action
    assert st.policies[0].calls[0] == (HOUSE, 1) and st.policies[0].calls[1][0] == ACTION
    assert st.actions_left == 2


def test_lapin_moved_through_her_district_takes_nothing():
    st = game(["lapin", "chiya"])
    ref.put(st, "brown3", house(5, 0))
    st.pos, st.rize, st.letter = [4, 9], 3, [5, -1]
    st.rng = Dice(2)                                    # 5 -> 8, passing 6
    ref.rize_moves(st)
    assert st.pos[0] == 7 and not st.letter_pending[0]


def test_chimame_looks_at_all_and_takes_a_safe_tile_else_a_trap_triggers():
    st = game(["chimame", "chiya"], Script({F_HOUSE: house(2, 2)}), Script())
    a = ref.put(st, "alarm", house(2, 0))
    ref.put(st, "pitfall", house(2, 1))
    gold = ref.put(st, "brown1", house(2, 2))
    st.pos, st.rize = [2, 7], 0
    ref.chimame(st, 0)
    assert st.seen[0][a] and st.loc[gold] == ref.HAND and st.turn_end
    assert st.policies[0].calls == [(HOUSE, 1)]         # traps are not offered
    st2 = game(["chimame", "chiya"], Script({F_HOUSE: house(2, 1)}), Script())
    ref.put(st2, "alarm", house(2, 0))
    ref.put(st2, "pitfall", house(2, 1))
    st2.pos, st2.rize = [2, 7], 0
    ref.chimame(st2, 0)
    assert st2.skip[0] == 1 and st2.rize == 0           # only the chosen trap triggers


def test_aoyama_hypnotism_returns_a_random_treasure_face_down():
    st = game(["aoyama", "cocoa"], Script({F_ARG: 1}), Script())
    gold = ref.give(st, 1, "brown3")
    for k in range(3):
        ref.put(st, ["lamp", "map", "prank"][k], house(4, k))
    st.pos, st.rize = [4, 3], 8                         # adjacent districts 5 and 4
    ref.hypnotism(st, 0)
    assert st.board[house(5, 0)] == gold and not st.face_up[house(5, 0)]   # next district
    assert st.turn_end and ref.treasures_and_rabbits(st, 1) == (0, 0)
    st.pos[1] = 7
    assert not ref.aoyama_targets(st, 0)


def test_inaba_swaps_his_one_tile_with_face_kept_and_the_chest_wins_alone():
    st = game(["inaba", "cocoa"])
    assert st.inaba_set
    chest = ref.put(st, "chest", house(2, 0))
    lamp = ref.put(st, "lamp", house(3, 0))
    st.pos, st.rize = [2, 8], 0
    ref.search(st, 0, house(2, 0))
    st.searched = False
    st.pos[0] = 3
    ref.search(st, 0, house(3, 0))
    assert st.board[house(3, 0)] == chest and st.face_up[house(3, 0)]
    assert st.loc[lamp] == ref.HAND
    st.searched = False
    ref.search(st, 0, house(3, 0))
    assert st.loc[chest] == ref.HAND and st.board[house(3, 0)] == lamp
    assert not st.face_up[house(3, 0)]
    ref.give(st, 1, ref.find_tile(st, "brown3", 0))
    ref.give(st, 1, ref.find_tile(st, "brown3", 1))
    ref.score(st)
    assert st.win.tolist() == [1, 0] and st.seat_stats[0, S.S_RANK] == 1


def test_inaba_without_the_chest_never_wins_on_count_by_default():
    for on_count, expected in ((False, [0, 1]), (True, [0.5, 0.5])):
        st = game(["inaba", "cocoa"], rules=RULES.replace(inaba_can_win_on_count=on_count))
        ref.give(st, 0, "brown2")
        ref.give(st, 1, ref.find_tile(st, "brown2", 1))
        ref.score(st)
        assert st.win.tolist() == expected


def test_inaba_look_sees_a_whole_district():
    st = game(["inaba", "cocoa"], Script({F_DISTRICT: 6}), Script())
    ts = [ref.put(st, n, house(6, k)) for k, n in enumerate(["lamp", "alarm", "brown2"])]
    st.pos, st.rize = [0, 3], 9
    ref.inaba_look(st, 0)
    assert all(st.seen[0][t] for t in ts) and not any(st.seen[1][t] for t in ts)


def test_cocoa_steps_three_times_for_one_action():
    st = game(["cocoa", "chiya"])
    st.pos, st.rize = [0, 9], 6
    st.policies[0] = Script({F_WHAT: O_SKILL}, {F_DISTRICT: 1}, {F_DISTRICT: 2},
                            {F_DISTRICT: 3}, {F_WHAT: O_PASS})
    ref.play_turn(st, 0)
    assert st.pos[0] == 3 and st.skill_used[0]


def test_chiya_holds_rize_but_the_dawn_check_still_happens():
    st = game(["chiya", "cocoa"])
    st.rules = RULES.replace(empty_districts_for_dawn=1, max_player_turns=1)
    st.ra = st.rules.arrays()
    st.pos, st.rize = [0, 5], 3
    ref.put(st, "brown1", house(9, 0))
    st.policies[0] = Script({F_WHAT: O_SKILL}, {F_WHAT: O_PASS})
    for d in range(9):
        ref.update_time_marker(st, d)
    ref.play(st)
    assert st.rize == 3 and st.dawn == 3


# ---------------------------------------------------------------- Rize

def test_found_players_lose_a_treasure_before_an_item_and_are_escorted_with_rize():
    st = game(["cocoa", "chiya", "lapin"])
    lamp = ref.give(st, 0, "lamp")
    gold = ref.give(st, 0, "brown1")
    st.pos, st.rize = [3, 3, 9], 2
    for h in range(30):
        if h // 3 != 3:
            ref.put(st, [t for t in range(30) if st.loc[t] == ref.REMOVED][0], h)
    st.rng = Dice(0, 1)                                 # seat 0 loses its only treasure
    ref.rize_moves(st)
    assert st.loc[gold] == ref.BAG and st.loc[lamp] == ref.HAND
    assert st.pos[0] == st.pos[1] == st.rize != 3
    assert st.seat_stats[:, S.S_FOUND].tolist() == [1, 1, 0]
    assert st.seat_stats[:, S.S_LOST].tolist() == [1, 0, 0]


def test_rize_finds_nobody_when_the_option_is_off():
    # no tile lost, no escort die, no chain, the disguise kept (no chance draw, no question)
    st = game(["cocoa", "chiya"], rules=RULES.replace(rize_finds=False))
    disguise, gold = ref.give(st, 0, "disguise"), ref.give(st, 0, "brown2")
    st.pos, st.rize = [3, 3], 2
    st.rng = Dice()
    ref.rize_moves(st)
    assert st.rize == 3 and st.pos == [3, 3]
    assert st.loc[disguise] == st.loc[gold] == ref.HAND and not st.bag
    assert st.seat_stats[:, S.S_FOUND].tolist() == [0, 0] and not st.policies[0].calls
    ref.put(st, "alarm", house(5))
    st.pos = [3, 5]
    ref.search(st, 1, house(5))                         # the alarm brings Rize: nobody found
    assert st.rize == 5 and st.pos == [3, 5] and st.seat_stats[:, S.S_FOUND].tolist() == [0, 0]


def test_compiled_games_find_nobody_when_the_option_is_off():
    df = rapinsim.simulate(["greedy", "random", "careful"], 300, seed=4,
                           rules=RULES.replace(rize_finds=False))
    assert (df["found"] == 0).all() and (df["tiles_lost"] == 0).all()
    assert rapinsim.simulate(["greedy", "random", "careful"], 300, seed=4)["found"].sum() > 0


def test_rize_returns_tiles_on_the_way_and_keeps_the_rest_for_later():
    st = game(["cocoa", "chiya"])
    gold, lamp = ref.give(st, 0, "brown2"), ref.give(st, 0, "lamp")
    st.bag = [gold, lamp]
    st.loc[gold] = st.loc[lamp] = ref.BAG
    fill = iter([t for t in range(30) if st.loc[t] == ref.REMOVED])
    for h in range(30):
        if h not in (house(4, 1), house(7, 2)):
            ref.put(st, next(fill), h)
    ref.rize_enters(st, 4)
    assert st.board[house(4, 1)] == gold and st.face_up[house(4, 1)] and st.bag == [lamp]
    ref.rize_enters(st, 5)
    assert st.bag == [lamp]                             # no empty house there: kept
    ref.rize_enters(st, 7)
    assert st.board[house(7, 2)] == lamp and not st.face_up[house(7, 2)] and not st.bag


def test_chain_finds_each_player_once_and_not_those_passed_through():
    st = game(["cocoa", "chiya", "lapin", "aoyama"])
    st.pos, st.rize = [3, 4, 5, 5], 2
    st.rng = Dice(1, 3)                                 # 4 -> 6 (passing 5), then 6 -> 10
    ref.rize_moves(st)
    found = st.seat_stats[:, S.S_FOUND].tolist()
    assert found == [1, 0, 1, 1]                        # 5 was passed, 6 was where it ended
    assert st.pos == [5, 4, 9, 9] and st.rize == 9      # seat 0 stays where its move ended


def test_chain_stops_after_each_player_was_found_once():
    st = game(["cocoa", "chiya"])
    st.pos, st.rize = [3, 7], 2
    st.rng = Dice(3, 3, 3)                              # 4 -> 8 finds seat 1; 8 -> 2 nobody
    ref.rize_moves(st)
    assert st.seat_stats[:, S.S_FOUND].tolist() == [1, 1] and st.rize == 1


def test_time_markers_and_the_dawn_and_the_end():
    st = game(["cocoa", "chiya"], rules=RULES.replace(empty_districts_for_dawn=2))
    ref.put(st, ref.find_tile(st, "brown1", 0), house(1, 1))
    ref.put(st, ref.find_tile(st, "brown1", 1), house(1, 2))
    rest = iter([t for t in range(30) if st.loc[t] == ref.REMOVED])
    for h in range(house(2), 30):
        ref.put(st, next(rest), h)
    ref.update_time_marker(st, 0)
    assert st.marker[0] == 1 and st.n_marked == 1
    st.pos, st.rize = [1, 8], 6
    ref.search(st, 0, house(1, 1))
    assert st.n_marked == 1
    st.searched = False
    ref.search(st, 0, house(1, 2))
    assert st.n_marked == 2 and st.marker[1] == 2
    st.pos = [-1, -1]                                   # off the board: Rize only patrols
    ref.dawn_check(st)
    assert st.dawn == 6                                 # on Rize's district after his move
    for _ in range(9):
        ref.rize_moves(st)
        assert not st.over
    ref.rize_moves(st)
    assert st.over and st.dawn_end and st.rize == 6


def test_refilled_district_keeps_its_marker_unless_the_option_says_otherwise():
    for permanent in (True, False):
        st = game(["cocoa", "chiya"], rules=RULES.replace(time_markers_permanent=permanent))
        ref.update_time_marker(st, 0)
        ref.put(st, "brown1", house(0))
        ref.update_time_marker(st, 0)
        assert st.n_marked == (1 if permanent else 0)


def test_stall_cap_ends_and_flags_the_game():
    st = ref.setup(RULES.replace(max_player_turns=4), [Script(), Script()], ["a", "b"], 1, 0,
                   characters=[4, 5])
    ref.play(st)
    assert st.stalled and st.turns == 4 and st.game_stats[S.G_STALLED] == 1


def test_scoring_tiles_then_rabbits_white_pairs_then_shared():
    st = game(["cocoa", "chiya", "lapin"])
    ref.give(st, 0, ref.find_tile(st, "white", 0))
    ref.give(st, 0, ref.find_tile(st, "white", 1))     # a pair: 4 rabbits
    ref.give(st, 1, ref.find_tile(st, "brown3", 0))
    ref.give(st, 1, ref.find_tile(st, "brown1", 0))
    ref.give(st, 2, ref.find_tile(st, "brown3", 1))
    ref.score(st)
    assert st.seat_stats[:, S.S_RABBITS].tolist() == [4, 4, 3]
    assert st.win.tolist() == [0.5, 0.5, 0] and st.seat_stats[:, S.S_RANK].tolist() == [1, 1, 3]


def test_illegal_choice_names_policy_seat_and_decision():
    with pytest.raises(ValueError, match=r"'bad' at seat 1 .*illegal choice 99.*'place'"):
        ref.setup(RULES, [Script(), lambda *a: 99], ["ok", "bad"], 1, 0, characters=[0, 1])
