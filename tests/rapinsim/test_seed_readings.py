"""The readings of seed 002 that the defaults follow, and the options that keep the other
readings: each rule from the seed's sentence (quoted), on a hand-built position of the
reference engine and in whole games of both engines (reference and compiled).

Districts and houses are 0-based (district 3 of the rulebook is ``2``); house = 3 * d + k.
"""
import numpy as np
import polars as pl
import pytest

from rapin_helpers import RULES, Dice, Script, game, house
from rapinsim import api, simulate
from rapinsim import reference as ref
from rapinsim import stats as S
from rapinsim.policies import (ACTION, CHARACTER, CHARACTER_VALUE, DISGUISE, F_ARG, F_WHAT,
                               O_ITEM, O_PASS, O_SEARCH, OB_ACTIONS, OB_CHARS, OB_DISTRICT,
                               OB_RIZE)
from rapinsim.rules import (CHARACTERS, ITEMS, LAPIN, INABA, CHIYA, N_CHANCE, WHISTLE,
                            load_rules)
from simcore.policy import policy
from simcore.rng import PyRng, randint, root_key

DISGUISE_ITEM = ITEMS.index("disguise")
ENGINES = ("compiled", "reference")


class Recorder(Script):
    """A Script that also keeps each decision's observation and option rows."""

    def __init__(self, *wishes):
        super().__init__(*wishes)
        self.seen = []

    def __call__(self, kind, obs, opts, n, rng):
        self.seen.append((kind, obs.copy(), opts[:n].copy()))
        return super().__call__(kind, obs, opts, n, rng)


def logs(policies, n, seed, rules=RULES, characters=None, engine="compiled"):
    """(seat, win, game, chars, led, decision logs) of games 0..n-1 in one engine."""
    rules, pol, fixed = api._check(policies, rules, characters)
    return api.play_arrays(pol, rules, fixed, root_key(seed), 0, n, engine, log=True)


def same_games(policies, n, seed, rules, characters=None):
    """Both engines play the same n games; the compiled engine's arrays."""
    c = logs(policies, n, seed, rules, characters, "compiled")
    r = logs(policies, n, seed, rules, characters, "reference")
    for a, b in zip(c[:5], r[:5]):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(c[5], r[5]):
        np.testing.assert_array_equal(a, b)
    return c


@policy("last_free")
def last_free(kind, obs, opts, n_opts, rng):
    """Takes the last character still free, then always the first option (pass, ...)."""
    return n_opts - 1 if kind == CHARACTER else 0


@policy("hider")
def hider(kind, obs, opts, n_opts, rng):
    """Uses a disguise whenever it may (action or reaction), else plays at random."""
    if kind == DISGUISE:
        return 1
    for i in range(n_opts):
        if opts[i, F_WHAT] == O_ITEM and opts[i, F_ARG] == DISGUISE_ITEM:
            return i
    return randint(rng, 0, n_opts)


@policy("whistler")
def whistler(kind, obs, opts, n_opts, rng):
    """Blows the whistle whenever it holds one, else plays at random."""
    for i in range(n_opts):
        if opts[i, F_WHAT] == O_ITEM and opts[i, F_ARG] == WHISTLE:
            return i
    return randint(rng, 0, n_opts)


# ---------------------------------------------------------------- 1. choosing characters

def test_players_choose_their_characters_in_seat_order_from_those_still_free():
    """「プレイヤーはリゼ警部以外の好きなキャラクターを選びます」: seat 0 first, each
    from the characters nobody has taken yet; the board is empty while they choose."""
    pols = [Recorder({F_ARG: INABA}), Recorder({F_ARG: LAPIN}), Recorder({F_ARG: CHIYA})]
    st = ref.setup(RULES, pols, ["a", "b", "c"], 5, 0)
    assert st.chars == [INABA, LAPIN, CHIYA] and st.inaba_set
    assert any(ref.is_chest(st, t) for t in range(30))          # Inaba's tile set is dealt
    assert [k for s, k, n, c in st.decisions[:3]] == [CHARACTER] * 3
    assert [s for s, k, n, c in st.decisions[:3]] == [0, 1, 2]
    free = [[int(a) for a in p.seen[0][2][:, F_ARG]] for p in pols]
    assert free == [[0, 1, 2, 3, 4, 5], [0, 1, 2, 4, 5], [1, 2, 4, 5]]
    kind, obs, _ = pols[1].seen[0]
    assert kind == CHARACTER and obs[OB_CHARS + 0] == INABA and obs[OB_CHARS + 2] == -1
    assert obs[OB_RIZE] == -1 and obs[OB_DISTRICT] == -1


@pytest.mark.parametrize("engine", ENGINES)
def test_each_engine_offers_the_free_characters_in_roster_order(engine):
    """「好きなキャラクターを選びます」 in both engines: a player who always takes the last
    free character gets the roster from its end, seat by seat."""
    rules = RULES.replace(max_player_turns=30)
    seat, win, g, chars, _, log = logs([last_free] * 4, 3, 1, rules, engine=engine)
    assert (chars == [CHARACTERS.index(c) for c in ("chiya", "cocoa", "inaba", "aoyama")]).all()
    for lg in log:
        assert lg[:4, 1].tolist() == [CHARACTER] * 4 and lg[:4, 2].tolist() == [6, 5, 4, 3]
    same_games([last_free] * 4, 3, 1, rules)


def test_the_draw_option_deals_the_characters_at_random_in_both_engines():
    """``character_selection = "draw"``: the characters are dealt from the roster on the
    chance stream (no decision), for measuring the characters themselves."""
    rules = RULES.replace(character_selection="draw")
    seat, win, g, chars, _, log = same_games(["random", "careful", "greedy"], 12, 8, rules)
    for k in range(12):
        assert chars[k].tolist() == ref.draw_characters(PyRng(root_key(8), k, N_CHANCE, 6),
                                                   range(6), 3)
        assert CHARACTER not in log[k][:, 1]


@pytest.mark.parametrize("engine", ENGINES)
def test_fixed_characters_override_the_choice(engine):
    df = simulate(["careful", "random"], 4, 2, characters=["aoyama", "inaba"], engine=engine,
                  progress=False)
    assert df["character"].cast(pl.String).to_list() == ["aoyama", "inaba"] * 4
    _, _, _, _, _, log = logs(["careful", "random"], 2, 2, characters=["aoyama", "inaba"],
                           engine=engine)
    assert all(CHARACTER not in lg[:, 1] for lg in log)


@pytest.mark.parametrize("lineup", [["careful", "greedy", "careful"],
                                    ["evader", "keeper", "evader"]])
def test_heuristics_choose_the_free_character_of_highest_value(lineup):
    """careful, greedy, evader and keeper take the free character of the highest
    ``CHARACTER_VALUE``, in seat order; values closer than the policies' tie jitter (0.5) are
    a tie broken at random."""
    chars = same_games(lineup, 40, 3, RULES)[3]
    for row in chars:
        free = set(range(6))
        for c in row.tolist():
            assert c in free
            assert CHARACTER_VALUE[c] > max(CHARACTER_VALUE[f] for f in free) - 0.5
            free.remove(c)
    best = max(range(6), key=lambda c: CHARACTER_VALUE[c])
    assert (chars[:, 0] == best).all()          # seat 0: the best, far ahead of the rest


def test_the_random_policy_chooses_uniformly():
    df = simulate(["random", "random"], 6000, 4, progress=False).filter(pl.col("seat") == 0)
    share = df["character"].cast(pl.String).value_counts(normalize=True)
    assert share.height == 6 and share["proportion"].min() > 1 / 6 - 0.02
    assert share["proportion"].max() < 1 / 6 + 0.02


# ---------------------------------------------------------------- 2. the disguise, an action

def test_the_disguise_is_an_action_of_the_turn_and_hides_until_the_next_turn():
    """「自分の手番では以下を組み合わせて最大３アクションします。…・アイテム/スキルを
    使う」: using the disguise is one of the turn's three actions; Rize finds nobody
    disguised until that player's next turn begins."""
    p0 = Recorder({F_WHAT: O_ITEM, F_ARG: DISGUISE_ITEM}, {F_WHAT: O_PASS})
    st = game(["cocoa", "chiya"], p0, Script())
    dis, gold = ref.give(st, 0, "disguise"), ref.give(st, 0, "brown2")
    st.pos, st.rize = [3, 8], 2                         # Rize enters district 3 next
    ref.play_turn(st, 0)
    assert [obs[OB_ACTIONS] for k, obs, o in p0.seen] == [3, 2]   # it cost one action
    assert st.loc[dis] == ref.DISCARDED and st.disguised[0]
    assert st.seat_stats[0, S.S_ITEM + DISGUISE_ITEM] == 1
    assert not ref.item_usable(st, 0, DISGUISE_ITEM)    # no second one while disguised
    ref.rize_moves(st)
    assert st.rize == 3 and st.pos[0] == 3 and st.loc[gold] == ref.HAND
    assert st.seat_stats[0, S.S_FOUND] == 0 and DISGUISE not in [k for k, n in p0.calls]
    # seat 0's next turn: the disguise is off, Rize (back behind) finds it
    st.rules, st.rize, st.rng = RULES.replace(max_player_turns=1), 2, Dice(0, 1)
    ref.play(st)
    assert not st.disguised[0] and st.seat_stats[0, S.S_FOUND] == 1
    assert st.loc[gold] != ref.HAND + 0 and st.pos[0] == 5


def test_the_reaction_option_makes_the_disguise_free_and_never_an_action():
    st = game(["cocoa", "chiya"], rules=RULES.replace(disguise="reaction"))
    ref.give(st, 0, "disguise")
    assert not ref.item_usable(st, 0, DISGUISE_ITEM)
    st = game(["cocoa", "chiya"])
    ref.give(st, 0, "disguise")
    assert ref.item_usable(st, 0, DISGUISE_ITEM)


@pytest.mark.parametrize("mode", ["action", "reaction"])
def test_both_engines_play_the_disguise_as_the_rules_say(mode):
    """「アイテム/スキルを使う」 is an action by default: no DISGUISE decision is ever asked
    then, while the reaction option asks it when Rize finds a player holding one."""
    rules = RULES.replace(disguise=mode, items={**RULES.items, "disguise": 4, "lamp": 0,
                                                "coffee": 1})
    seat, win, g, chars, _, log = same_games([hider] * 4, 30, 6, rules)
    seat, win, g, chars, _, log = logs([hider] * 4, 400, 6, rules)
    asked = sum(int((lg[:, 1] == DISGUISE).sum()) for lg in log)
    assert seat[S.S_ITEM + DISGUISE_ITEM].sum() > 50
    assert (asked == 0) if mode == "action" else (asked > 50)


# ---------------------------------------------------------------- 3. an item that moves Rize

def test_the_whistle_calls_rize_back_and_he_finds_who_is_there():
    """「リゼ警部は数字が大きくなる方向へ１歩進みます。（アイテムを使った時などを除く）」:
    the whistle (default ``whistle_steps`` -1) moves Rize one district back against his
    route at once, entering it as on an escort, and he finds the players there."""
    st = game(["cocoa", "chiya", "lapin"], Script({F_WHAT: O_ITEM, F_ARG: WHISTLE}),
              Script(), Script())
    w, gold = ref.give(st, 0, "whistle"), ref.give(st, 2, "brown2")
    st.pos, st.rize = [4, 8, 1], 2
    st.rng = Dice(0, 0)                                 # seat 2 loses its treasure; die 1
    ref.play_turn(st, 0)
    assert st.loc[w] == ref.DISCARDED and st.seat_stats[0, S.S_ITEM + WHISTLE] == 1
    assert st.seat_stats[:, S.S_FOUND].tolist() == [0, 0, 1]
    assert st.rize == 2 and st.pos[2] == 2              # escorted 1 from district 1 (0-based)
    assert st.board[house(2)] == gold and st.face_up[house(2)]   # put back on the way


def test_the_whistle_may_hold_rize_or_push_him_on():
    """``whistle_steps`` 0: Rize skips his next step; 2: he goes two districts on at once,
    finding only where he stops (not those he passes, as on an escort)."""
    st = game(["cocoa", "chiya"], Script({F_WHAT: O_ITEM, F_ARG: WHISTLE}), Script(),
              rules=RULES.replace(whistle_steps=0, max_player_turns=1))
    ref.give(st, 0, "whistle")
    st.pos, st.rize = [3, 8], 2
    ref.play(st)
    assert st.rize == 2 and st.seat_stats[0, S.S_FOUND] == 0
    st = game(["cocoa", "chiya", "lapin"], Script({F_WHAT: O_ITEM, F_ARG: WHISTLE}),
              Script(), Script(), rules=RULES.replace(whistle_steps=2))
    ref.give(st, 0, "whistle")
    st.pos, st.rize = [0, 3, 4], 2
    st.rng = Dice(0)                                    # die 1 for seat 2 (nothing to lose)
    ref.play_turn(st, 0)
    assert st.seat_stats[:, S.S_FOUND].tolist() == [0, 0, 1] and st.rize == 5


@pytest.mark.parametrize("steps", [-1, 0, 2])
def test_both_engines_play_the_whistle(steps):
    rules = RULES.replace(whistle_steps=steps, items={**RULES.items, "whistle": 4, "lamp": 0,
                                                      "coffee": 1})
    same_games([whistler, "careful", whistler, "greedy"], 25, 9, rules)
    seat = logs([whistler, "careful", whistler, "greedy"], 300, 9, rules)[0]
    assert seat[S.S_ITEM + WHISTLE].sum() > 100


def test_the_default_tile_set_has_a_whistle():
    assert load_rules().items.get("whistle", 0) >= 1


# ---------------------------------------------------------------- 4. every assumption is data

def score_of(chars, holdings, rules=RULES):
    st = game(chars, rules=rules, inaba_set=True)
    given = []
    for s, names in enumerate(holdings):
        for name in names:
            ref.give(st, s, ref.find_tile(st, name, given.count(name)))
            given.append(name)
    ref.score(st)
    return st.win.tolist()


def test_the_chest_counts_for_others_only_as_the_option_says():
    """「宝のタイルを一番多く持っていたプレイヤーが勝利です」: whether the chest is a
    treasure for anyone but Inaba is not in the seed; ``chest_counts_for_others``."""
    hold = [["chest", "brown1"], ["brown1", "brown1"], ["brown1"]]
    chars = ["cocoa", "chiya", "lapin"]
    assert score_of(chars, hold) == [0.0, 1.0, 0.0]     # 2 tiles each, ties by rabbits: 1 < 2
    hold = [["chest", "brown3"], ["brown1"], ["brown1"]]
    assert score_of(chars, hold) == [1.0, 0.0, 0.0]
    off = RULES.replace(chest_counts_for_others=False)
    assert score_of(chars, hold, off) == [1.0, 0.0, 0.0]    # 1 tile each, 3 rabbits > 1
    assert score_of(chars, [["chest", "brown1"], ["brown1", "brown1"], []], off) == [0, 1, 0]
    assert score_of(chars, [["chest", "brown2"], ["brown1"], []], off) == [1, 0, 0]
    assert score_of(chars, [["chest", "brown1"], ["brown2"], []], off) == [0, 1, 0]
    assert score_of(chars, [["chest", "brown1"], ["brown2"], []]) == [1, 0, 0]


@pytest.mark.parametrize("counts", [True, False])
def test_both_engines_score_the_chest_as_the_option_says(counts):
    """Whole games with Inaba at the table: each game's winners are the seats the rules'
    ranking names, the chest counted (or not) for the others."""
    rules = RULES.replace(chest_counts_for_others=counts)
    chars = ["inaba", "aoyama", "chimame", "lapin"]
    for engine, n in (("compiled", 3000), ("reference", 60)):
        df = simulate(["greedy", "careful", "greedy", "random"], n, 3, rules=rules,
                      characters=chars, engine=engine, progress=False)
        inaba = df["character"].cast(pl.String) == "inaba"
        prim = (df["treasures"].cast(pl.Int32) - (df["chest"].cast(pl.Int32) * (~inaba)
                                                  * (not counts)))
        prim = pl.when(inaba & (df["chest"] == 1)).then(127).when(inaba).then(-1) \
            .otherwise(prim)
        ranked = df.with_columns(prim=prim).with_columns(
            top=(pl.col("prim") == pl.col("prim").max().over("game")))
        ranked = ranked.with_columns(best=pl.col("top") & (
            pl.col("rabbits") == pl.col("rabbits").filter(pl.col("top")).max().over("game")))
        want = ranked.with_columns(w=pl.col("best").cast(pl.Float32)
                                   / pl.col("best").cast(pl.Float32).sum().over("game"))
        assert (want["w"] == df["win"]).all(), engine
        if engine == "compiled":
            others = df.filter(~inaba & (df["chest"] == 1))
            assert others.height > 20                  # the rule is exercised


def test_being_found_on_your_own_turn_ends_it_unless_the_option_says_otherwise():
    """Not in the seed (``found_ends_turn``): blowing the whistle while standing behind Rize
    brings him onto you; by default that ends the turn."""
    for ends, calls in ((True, 1), (False, 2)):        # the turn goes on: a second action
        p0 = Script({F_WHAT: O_ITEM, F_ARG: WHISTLE})
        st = game(["cocoa", "chiya"], p0, Script(),
                  rules=RULES.replace(found_ends_turn=ends))
        ref.give(st, 0, "whistle")
        st.pos, st.rize = [1, 8], 2
        st.rng = Dice(0)                                # die 1: escorted to district 2
        ref.play_turn(st, 0)
        assert st.seat_stats[0, S.S_FOUND] == 1 and len(p0.calls) == calls


def test_pitfall_skips_as_many_turns_as_the_rules_say():
    st = game(["cocoa", "chiya"], rules=RULES.replace(pitfall_skips=2))
    ref.pitfall(st, 0, house(4))
    assert st.skip == [2, 0]


def test_search_stays_an_action_that_ends_the_turn():
    """「宝を探すをするとすぐに自分の手番が終わります」 still holds with the new items."""
    st = game(["cocoa", "chiya"], Script({F_WHAT: O_SEARCH}))
    ref.put(st, "brown2", house(4))
    st.pos, st.rize = [4, 8], 0
    ref.play_turn(st, 0)
    assert len(st.policies[0].calls) == 1 and st.policies[0].calls[0][0] == ACTION
