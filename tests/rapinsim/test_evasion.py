"""The default town, the observation of Rize's path and of the held chest, and the two policies
that use them (evader, keeper): scenarios on hand-built positions and whole compiled games.

Seed 002: 「パトロール中のリゼ警部の動きを推測して逃げたり」 (predict the patrolling Inspector
Rize's moves and escape him) is the game's central skill, and 「「大泥棒イナバ」はゲーム終了時に
「千両箱」タイルを持っていることができれば単独勝利です」 (Inaba wins alone holding the chest at the
end). Districts are 0-based here (district 3 of the board is ``2``); house = 3 * d + k.
"""
import numpy as np
import pytest

import rapinsim
from rapinsim import engine as E
from rapinsim import policies as P
from rapinsim import reference as ref
from rapinsim.rules import ITEMS, load_rules

RULES = load_rules()        # the default town: a 4 x 4 grid, Rize's route a serpentine 1..16


def table(chars, pids, rize, pos, rules=RULES):
    st = ref.new_state(rules, chars, [ref.builtin(p) for p in pids])
    st.rize, st.pos = rize, list(pos)
    return st


def first_action(st, s):
    """Seat s's policy's first action of a turn: (what, argument)."""
    st.acting, st.actions_left, st.turn_end, st.searched = s, 3, False, False
    acts, rows = ref.action_options(st, s)
    return acts[ref.decide(st, s, P.ACTION, rows)]


# ---------------------------------------------------------------- the board, both engines

def test_a_road_or_bridge_joins_districts_far_apart_on_rizes_route():
    """「隣り合う区画とは道や橋を挟んで隣り合った区画」: from district 3 the roads lead to 2 and 4
    along Rize's route and to 6 across it, three of his steps further on."""
    st = table(["cocoa", "chiya"], [0, 0], rize=0, pos=[2, 12])
    assert ref.legal_steps(st, 0) == [1, 3, 5]
    assert [ref.rize_steps(st, d) for d in (1, 3, 5)] == [1, 3, 5]


@pytest.mark.parametrize("board", ["default", "step_into_rize_next"])
def test_compiled_step_tables_equal_the_reference_steps_everywhere(board):
    """The compiled engine's legal steps (rule tables) equal the reference's for every district
    of Rize and of the pawn on the default town."""
    rules = RULES if board == "default" else RULES.replace(step_into_rize_next=False)
    v = E.rule_vector(rules, 2, np.zeros(2, np.int64), np.zeros(E.P, np.int64),
                      np.full(E.P, -1, np.int8), 0)
    deg = v[E.R_DEG]
    step_to = v[E.R_STEP_TO:].view(np.int8)
    st = table(["cocoa", "chiya"], [0, 0], rize=0, pos=[0, 0], rules=rules)
    for r in range(rules.districts):
        for a in range(rules.districts):
            st.rize, st.pos[0] = r, a
            at = r * E.MAXD + a
            n = v[E.R_NSTEPS + at]
            assert list(step_to[at * deg:at * deg + n]) == ref.legal_steps(st, 0)


# ---------------------------------------------------------------- the observation

def test_the_observation_tells_the_held_chest_from_a_lone_white_tile():
    """Both hold one treasure of 0 rabbits; only the chest can make Inaba win alone."""
    st = table(["inaba", "cocoa", "chiya"], [0, 0, 0], rize=0, pos=[4, 9, 14])
    ref.give(st, 0, "chest")
    ref.give(st, 1, "white")
    for s in range(3):
        ob = ref.observation(st, s)
        assert [ob[P.OB_TREAS + q] for q in range(3)] == [1, 1, 0]
        assert [ob[P.OB_CHEST_HELD + q] for q in range(6)] == [1, 0, 0, -1, -1, -1]
    assert ref.observation(st, 1)[P.OB_RABBITS] == ref.observation(st, 0)[P.OB_RABBITS] == 0


def test_the_observation_gives_rizes_steps_to_every_pawn_and_the_die():
    st = table(["lapin", "cocoa", "chiya"], [0, 0, 0], rize=14, pos=[15, 0, 14])
    ob = ref.observation(st, 1)
    assert [ob[P.OB_RIZE_TO + q] for q in range(4)] == [1, 2, 0, -1]
    assert ob[P.OB_RIZE_STEPS] == ob[P.OB_RIZE_TO + 1] and ob[P.OB_DIE] == 4


@rapinsim.policy("stop_when_holding_the_chest")
def stop_when_holding_the_chest(kind, obs, opts, n_opts, rng):
    """Searches whatever it can; answers illegally (the engine raises, naming the decision) at
    its first decision holding the chest, so the error proves the field was set."""
    if obs[P.OB_CHEST_HELD + int(obs[P.OB_SEAT])] > 0:
        return n_opts
    for i in range(n_opts):
        if opts[i, P.F_WHAT] == P.O_SEARCH or opts[i, P.F_WHAT] == P.O_HOUSE:
            return i
    return rapinsim.policies.randint(rng, 0, n_opts)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_both_engines_tell_a_player_that_it_holds_the_chest(engine):
    with pytest.raises(ValueError, match="stop_when_holding_the_chest.*seat 0") as e:
        rapinsim.simulate([stop_when_holding_the_chest, "careful"], 40, 3, engine=engine,
                          characters=["inaba", "cocoa"], progress=False)
    assert "game" in str(e.value)


def test_both_engines_stop_at_the_same_decision():
    msgs = []
    for engine in ("compiled", "reference"):
        with pytest.raises(ValueError) as e:
            rapinsim.simulate([stop_when_holding_the_chest, "evader"], 40, 3, engine=engine,
                              characters=["inaba", "cocoa"], progress=False)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# ---------------------------------------------------------------- the evader

def four_players_rize_in_1(pids):
    """Rize in district 1; seat 0 in district 3, the others far along his route (so nobody he
    finds on the way lengthens it): before seat 0's next turn he steps into 2, 3, 4 and 5."""
    st = table(["aoyama", "chiya", "lapin", "cocoa"], pids, rize=0, pos=[2, 9, 12, 15])
    ref.put(st, "brown3", 3 * 2)                          # a tile to search in district 3
    ref.put(st, "brown2", 3 * 5)                          # and one in district 6
    return st


def test_the_evader_steps_out_of_rizes_predicted_path():
    """「リゼ警部の動きを推測して逃げたり」: district 3 is two of Rize's steps away, inside the
    four he takes before the evader plays again; the road to 6 leads out of his path."""
    st = four_players_rize_in_1([P.EVADER] + [P.RANDOM] * 3)
    ob = ref.observation(st, 0)
    assert P.rize_reach.py_func(ob, 2.5) == 4
    assert first_action(st, 0) == (P.O_STEP, 5)


def test_careful_sees_only_rizes_next_district_and_searches_in_his_path():
    st = four_players_rize_in_1([P.CAREFUL] + [P.RANDOM] * 3)
    assert first_action(st, 0) == (P.O_SEARCH, 6)


def test_the_evader_searches_where_rize_will_not_come():
    st = four_players_rize_in_1([P.EVADER] + [P.RANDOM] * 3)
    st.pos[0] = 5                                          # district 6: five steps away
    assert first_action(st, 0) == (P.O_SEARCH, 15)


def test_the_chain_lengthens_the_predicted_path():
    """A player Rize finds on the way is escorted on with him (the d4): the district just
    beyond his own steps is in danger too."""
    st = four_players_rize_in_1([P.EVADER] + [P.RANDOM] * 3)
    st.pos = [5, 2, 12, 15]            # seat 1 in district 3, in his path: the path grows
    ob = ref.observation(st, 0)
    assert P.rize_reach.py_func(ob, 2.5) == 6.5
    assert first_action(st, 0)[0] == P.O_STEP


# ---------------------------------------------------------------- the keeper

def inaba_in_a_safe_district(pid, held):
    st = table(["inaba", "cocoa"], [pid, P.RANDOM], rize=0, pos=[8, 14])
    ref.put(st, "brown3", 3 * 8)
    ref.give(st, 0, held)
    return st


def test_the_keeper_holding_the_chest_does_not_swap_it_back_onto_the_board():
    """「「大泥棒イナバ」はゲーム終了時に「千両箱」タイルを持っていることができれば単独勝利です」:
    Inaba holds one tile, so a search would put the chest back into the house searched."""
    st = inaba_in_a_safe_district(P.KEEPER, "chest")
    assert first_action(st, 0) == (P.O_PASS, -1)


def test_the_evader_has_no_chest_rule_and_searches_the_chest_away():
    st = inaba_in_a_safe_district(P.EVADER, "chest")
    assert first_action(st, 0) == (P.O_SEARCH, 24)


def test_the_keeper_holding_a_lone_white_tile_searches_on():
    st = inaba_in_a_safe_district(P.KEEPER, "white")
    assert first_action(st, 0) == (P.O_SEARCH, 24)


def test_another_keeper_takes_a_known_chest_to_keep_it_from_inaba():
    st = table(["cocoa", "inaba"], [P.KEEPER, P.RANDOM], rize=0, pos=[8, 14])
    ref.put(st, "brown3", 3 * 8)
    ref.put(st, "chest", 3 * 8 + 1, face_up=True)
    st.acting, st.actions_left = 0, 3
    acts, rows = ref.action_options(st, 0)
    assert acts[ref.decide(st, 0, P.ACTION, rows)] == (P.O_SEARCH, 25)


def test_inaba_keeps_the_chest_more_often_with_the_keeper():
    """Whole compiled games, Inaba in seat 0 against three careful players: the chest (Inaba's
    only way to win) at the end of the game."""
    rate = {}
    for pol in ("evader", "keeper"):
        df = rapinsim.simulate([pol, "careful", "careful", "careful"], 3000, 5,
                               characters=["inaba", "lapin", "cocoa", "chiya"], progress=False)
        rate[pol] = df.filter(df["seat"] == 0)["chest"].mean()
    assert rate["keeper"] > 2 * rate["evader"] and rate["keeper"] > 0.08


# ---------------------------------------------------------------- as careful: disguise, whistle

@pytest.mark.parametrize("pid", [P.CAREFUL, P.EVADER, P.KEEPER])
def test_the_whistle_where_rize_steps_next_before_the_search(pid):
    """The whistle (「アイテムを使った時などを除く」) sends Rize one district back when he
    would step into the player's district next: the evader and the keeper use it as careful
    does, to stay and search there."""
    st = table(["aoyama", "cocoa"], [pid, P.RANDOM], rize=0, pos=[1, 14])
    ref.put(st, "brown3", 3 * 1)
    ref.give(st, 0, "whistle")
    assert first_action(st, 0) == (P.O_ITEM, ITEMS.index("whistle"))


@pytest.mark.parametrize("pid", [P.CAREFUL, P.EVADER, P.KEEPER])
def test_the_disguise_as_an_action_with_a_treasure_when_rize_may_come(pid):
    """The disguise as an action (hides its player until its next turn): holding a treasure,
    with Rize within as many steps as there are players, all three use it first."""
    st = table(["aoyama", "cocoa"], [pid, P.RANDOM], rize=0, pos=[2, 14])
    ref.give(st, 0, "brown2")
    ref.give(st, 0, "disguise")
    assert first_action(st, 0) == (P.O_ITEM, ITEMS.index("disguise"))
