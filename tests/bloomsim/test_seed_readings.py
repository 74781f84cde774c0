"""The rules as the seed texts state them (Perilous Places, next start player, several clouds
in one area), each played as a whole scripted game in BOTH engines (the same frame and the same
decision log), plus the hand-built positions of the reference engine.

The games run on a small test board (``tiny_rules``)::

    F2 - F1 - C1 - M2 - C2 - M1 - F2        C1, C2 castles; M2 a meadow with two clouds;
    F2 - H1 - X1                            a square tower on H1 (no test delivers)
"""
import numpy as np
import pytest
from numba import njit

import bloomsim
from bloomsim import api
from bloomsim import policies as P
from bloomsim import reference as R
from bloomsim.rules import default_rules, load_rules
from simcore.rng import root_key

from bloom_helpers import area, event, position, role

IDS = default_rules().role_ids
FOREST_WITCH, MEADOW_WITCH, HILL_WITCH, MOUNTAIN_WITCH, HERB, FRUIT, ROOT, VALLEY_DRUID, \
    FAIRY = (IDS.index(r) for r in (
        "forest_witch", "meadow_witch", "hill_witch", "mountain_witch", "herb_gatherer",
        "fruit_gatherer", "root_gatherer", "valley_druid", "weather_fairy"))
AREAS = ("C1", "C2", "F1", "F2", "M1", "M2", "H1", "X1")
M2 = AREAS.index("M2")
PATH = np.array([AREAS.index(a) for a in ("M1", "F2", "H1", "X1")])
PERILOUS = {"id": "perilous_places", "timing": "round_end",
            "points_per_pawn": {"forest": -1, "meadow": -3, "hill": -2, "mountain": -2}}


def tiny_rules(**changes):
    """The test board above, 2-card hands, no enchanted roles with 2 players, no events."""
    d = default_rules().to_dict()
    d["board"] = {
        "areas": [{"id": a, "terrain": t} for a, t in zip(AREAS, (
            "castle", "castle", "forest", "forest", "meadow", "meadow", "hill", "mountain"))],
        "adjacent": [["C1", "F1"], ["F1", "F2"], ["C1", "M2"], ["C2", "M2"], ["C2", "M1"],
                     ["M1", "F2"], ["F2", "H1"], ["H1", "X1"]],
        "castles": ["C1", "C2"],
        "cloud_spaces": ["M2", "M2"],
        "towers": [{"id": "T1", "colour": "green", "shape": "square", "points": 1, "wands": 0,
                    "areas": ["H1"]}]}
    d.update(cloud_tiles=[{"stars": 1, "lightning": 1, "count": 1},
                          {"stars": 1, "lightning": 2, "count": 1}],
             start_wands={"first_player": 2, "last_player": 1, "others": 2},
             enchanted_total=2, hand_size=2, events=[], events_used=0)
    d.update(changes)
    return bloomsim.Rules.from_dict(d, source="tiny_rules")


def both_engines(rules, policies, seed=1, n=1):
    """The frame and the decision logs of games 0..n-1, the same in both engines."""
    sp = api.seat_policies(policies, rules)
    fast = api.play_compiled(rules, sp, root_key(seed), 0, n, log=True)
    slow = api.play_reference(rules, sp, root_key(seed), 0, n)
    assert fast.logs == slow.logs
    df = api.to_frame(rules, sp.names, fast)
    assert df.equals(api.to_frame(rules, sp.names, slow))
    return df, fast.logs


@njit
def _pick_roles(opts, n_opts, want):
    for i in range(n_opts):
        if opts[i, P.F_PASS] == 0 and (want >> np.int64(opts[i, P.F_ROLE])) & 1:
            return i
    return 0


@njit
def _play(opts, n_opts, r, brave):
    """The option that plays role r (brave or cowardly), else the first."""
    for i in range(n_opts):
        if opts[i, P.F_ROLE] == r and opts[i, P.F_BRAVE] == brave:
            return i
    return 0


# ---------------------------------------------------------------- Perilous Places

def test_perilous_values_are_losses_only_by_default():
    # seed 000: 「ラウンド終了時に次の地形エリアにコマがある場合、対応する勝利点を失います。」
    values = default_rules().events[event("perilous_places")]["points_per_pawn"]
    assert dict(values) == {"forest": -1, "meadow": -3, "hill": -2, "mountain": -2}


def test_perilous_rulebook_example_read_as_losses():
    # seed 001: 「ダニエルのコマは、2つとも森にいます。彼は2勝利点を失います。エミリーは森と大草原に
    # います。彼女は4勝利点を得ます。」 - "gains 4" read as a slip for "loses 4"
    # (seed 000: 「対応する勝利点を失います」)
    g = position()
    g.pawns = [[area("A02"), area("A03")], [area("A02"), area("A01")], [area("A00"), area("A56")]]
    g.event = event("perilous_places")
    R.round_end_event(g)
    assert g.pts["pts_events"] == [-2, -4, 0]


def _gain_reading(rules):
    """The example read as printed ("she gains 4": meadow +5), under the option allowing it."""
    events = rules.to_dict()["events"]
    for e in events:
        if e.get("kind", e["id"]) == "perilous_places":
            e["points_per_pawn"]["meadow"] = 5
    return rules.replace(perilous_places="gain_or_lose", events=events)


def test_perilous_gain_needs_the_option():
    events = default_rules().to_dict()["events"]
    events[event("perilous_places")]["points_per_pawn"]["meadow"] = 5
    with pytest.raises(ValueError, match=r"events\[4\]\.points_per_pawn\.meadow: Perilous "
                                         r"Places only takes points away, got \+5"):
        default_rules().replace(events=events)
    g = position(rules=_gain_reading(default_rules()))
    g.pawns = [[area("A02"), area("A03")], [area("A02"), area("A01")], [area("A00"), area("A56")]]
    g.event = event("perilous_places")
    R.round_end_event(g)
    assert g.pts["pts_events"] == [-2, 4, 0]


def test_perilous_option_is_checked():
    with pytest.raises(ValueError, match="perilous_places: must be one of"):
        default_rules().replace(perilous_places="gain")


def _perilous_rules():
    """Perilous Places in both rounds (a second card of the same kind)."""
    return tiny_rules(rounds=2, events=[PERILOUS, {**PERILOUS, "id": "perilous_again",
                                                   "kind": "perilous_places"}], events_used=2)


@bloomsim.policy("perilous_walk")
def perilous_walk(kind, obs, opts, n_opts, rng):
    """Round 1: forest witch (C1 -> F1) and meadow witch (C2 -> M1): Emily's forest + meadow.
    Round 2: forest witch, the last move offered (M1 -> F2): Daniel's two forests."""
    if kind == P.SELECT:
        want = (1 << MEADOW_WITCH) if obs[P.O_ROUND] == 1 else (1 << HERB)
        return _pick_roles(opts, n_opts, want | (1 << FOREST_WITCH))
    if kind == P.MOVE:
        return n_opts - 2
    return 0


@pytest.mark.parametrize("gain_reading,points", [(False, -4 - 2), (True, 4 - 2)])
def test_perilous_places_in_both_engines(gain_reading, points):
    # seed 000: 「ラウンド終了時に次の地形エリアにコマがある場合、対応する勝利点を失います。」
    rules = _perilous_rules()
    if gain_reading:
        rules = _gain_reading(rules)
    df, logs = both_engines(rules, [perilous_walk, perilous_walk])
    assert df["pts_events"].to_list() == [points, points]
    assert df["pawn_end_a"].to_list() == [AREAS.index("F1")] * 2
    assert df["pawn_end_b"].to_list() == [AREAS.index("F2")] * 2


# ---------------------------------------------------------------- the next start player

def _lead_then_run_out(rules):
    """Seat 0 leads herb brave (seat 1 follows cowardly), then fruit cowardly, and has no card
    left: the lead passes to seat 1, who leads root cowardly."""
    g = position(n_players=2, rules=rules)
    g.round = 1
    g.hands = [{role("herb_gatherer"), role("fruit_gatherer")},
               {role("herb_gatherer"), role("root_gatherer")}]
    g.leader = g.last_brave = g.start_player = 0
    # seat 0: lead herb brave (options herb cowardly, herb brave, fruit ...), gather; lead
    # fruit cowardly, gather. Seat 1: follow cowardly, gather; lead root cowardly, gather.
    g.policies = [R.scripted([1, 0, 0, 0]), R.scripted([0, 0, 0, 0])]
    while any(g.hands):
        R.play_turn(g)
    return g


def test_next_start_player_is_the_last_brave_player():
    # seed 000: 「次のスタートプレイヤーは、前のラウンドで最後に勇敢な行動をしたプレイヤーです。」
    g = _lead_then_run_out(default_rules())
    assert g.leader == 1 and g.brave_done == [1, 0]
    assert R.next_start_player(g) == 0


def test_next_start_player_lead_holder_option():
    g = _lead_then_run_out(load_rules(next_start_player="lead_holder"))
    assert R.next_start_player(g) == 1


def test_nobody_brave_the_start_player_stays():
    # seed 000 (a turn): 「全てのプレイヤーが「臆病な行動」を取った場合は、スタートプレイヤーは
    # 変わりません。」 - a round without a brave action keeps its start player too
    g = position(n_players=3)
    g.round = 1
    g.hands = [{role("herb_gatherer")}, {role("root_gatherer")}, {role("fruit_gatherer")}]
    g.leader = g.last_brave = g.start_player = 1
    g.policies = [R.scripted([0, 0]) for _ in range(3)]
    while any(g.hands):
        R.play_turn(g)
    assert g.leader == 0 and sum(g.brave_done) == 0
    assert R.next_start_player(g) == 1


@bloomsim.policy("brave_once")
def brave_once(kind, obs, opts, n_opts, rng):
    """Seat 0 holds herb + fruit, seat 1 herb + root; herb is led brave in round 1 only,
    everything else is cowardly (and taken)."""
    if kind == P.SELECT:
        other = FRUIT if obs[P.O_SEAT] == 0 else ROOT
        return _pick_roles(opts, n_opts, (1 << HERB) | (1 << other))
    if kind == P.LEAD and obs[P.O_ROUND] == 1:
        return _play(opts, n_opts, HERB, 1)
    return 0


@pytest.mark.parametrize("option,leaders", [
    ("last_brave", [0, 0, 1] * 3),                 # the brave seat 0 starts rounds 2 and 3
    ("lead_holder", [0, 0, 1, 1, 1, 0, 0, 0, 1]),  # round 2: seat 1, who held the lead
])
def test_next_start_player_in_both_engines(option, leaders):
    # seed 000: 「次のスタートプレイヤーは、前のラウンドで最後に勇敢な行動をしたプレイヤーです。」
    # Round 1: seat 0 acts brave, runs out, the lead passes to seat 1. Round 2: nobody is brave
    # and the lead again ends with seat 1; round 3 starts with seat 0 ("last_brave").
    rules = tiny_rules(rounds=3, next_start_player=option)
    df, logs = both_engines(rules, [brave_once, brave_once])
    assert [s for s, kind, n, c in logs[0] if kind == P.LEAD] == leaders
    assert df["brave_done"].to_list() == [1, 0]


# ---------------------------------------------------------------- several clouds in an area

def test_cloud_spaces_may_share_an_area():
    rules = tiny_rules()
    assert rules.cloud_space_ids == ("M2", "M2_2")
    g = R.new_game(rules, n_players=2, seed=3)
    assert sorted(g.clouds) == [0, 1] and g.cloud_space_area == [M2, M2]


def test_an_area_stays_closed_until_its_last_cloud_is_charmed():
    # seed 001: 「1つ以上の雲タイルがある陸地、または水域へはコマを動かすことができません。」
    g = R.new_game(tiny_rules(), n_players=2, seed=3)
    g.round = 1
    witch = role("meadow_witch")
    assert R.witch_moves(g, 0, witch) == [(1, AREAS.index("M1"))]     # M2: two clouds
    assert R.charmable(g, 0) == [0, 1]                                # each cloud on its own
    g.policies[0] = R.scripted([0])
    R.weather_fairy(g, 0, role("weather_fairy"), brave=False)
    assert R.clouded(g, M2) and R.witch_moves(g, 0, witch) == [(1, AREAS.index("M1"))]
    g.round = 2
    g.policies[0] = R.scripted([0])
    R.weather_fairy(g, 0, role("weather_fairy"), brave=False)
    assert not R.clouded(g, M2) and g.lightning[0] == 3 and g.clouds_charmed[0] == 2
    assert g.charmed_round == [1, 2]
    assert (0, M2) in R.witch_moves(g, 0, witch)


@bloomsim.policy("clear_the_meadow")
def clear_the_meadow(kind, obs, opts, n_opts, rng):
    """Seat 0 holds the fairy and the meadow witch, seat 1 the meadow witch and the herb
    gatherer; the fairy is led first and charms the first cloud offered; a witch moves into M2
    when it can and stays otherwise."""
    if kind == P.SELECT:
        other = FAIRY if obs[P.O_SEAT] == 0 else HERB
        return _pick_roles(opts, n_opts, (1 << MEADOW_WITCH) | (1 << other))
    if kind == P.LEAD:
        for i in range(n_opts):
            if opts[i, P.F_ROLE] == FAIRY and opts[i, P.F_BRAVE] == 0:
                return i
    if kind == P.MOVE:
        for i in range(n_opts):
            if opts[i, P.F_TARGET] == M2 and opts[i, P.F_PASS] == 0:
                return i
        return n_opts - 1
    return 0


def test_two_clouds_in_one_area_in_both_engines():
    # seed 001: 「1つ以上の雲タイルがある陸地、または水域へはコマを動かすことができません。」
    # Round 1: seat 0 charms one of M2's two clouds; M2 stays closed to both meadow witches.
    # Round 2: seat 0 charms the other; both witches enter M2.
    df, logs = both_engines(tiny_rules(rounds=2), [clear_the_meadow, clear_the_meadow])
    moves = [n for s, kind, n, c in logs[0] if kind == P.MOVE]
    charms = [n for s, kind, n, c in logs[0] if kind == P.CHARM]
    assert moves == [2, 2, 4, 4]          # round 1: M1 or stay; round 2: M2 (either pawn), M1
    assert charms == [3, 2]               # two clouds on M2 (and decline), then one
    assert df["clouds"].to_list() == [2, 0]
    assert df["pts_lightning"].to_list() == [default_rules().lightning_points[3], 0]
    assert df["charmed_M2"].to_list() == [1, 1] and df["charmed_M2_2"].to_list() == [2, 2]
    assert df["pawn_end_a"].to_list() == [M2, M2]


# ---------------------------------------------------------------- Empty Handed

EMPTY = {"id": "empty_handed", "timing": "turns", "max_potions": 3, "points": 3}


def _empty_handed_rules(option):
    """One round under Empty Handed on the test board, with a square green tower (2 points) on
    M1, the meadow next to castle C2."""
    board = tiny_rules().to_dict()["board"]
    board["towers"].append({"id": "T2", "colour": "green", "shape": "square", "points": 2,
                            "wands": 0, "areas": ["M1"]})
    return tiny_rules(rounds=1, board=board, events=[EMPTY], events_used=1, empty_handed=option)


@bloomsim.policy("deliver_and_charm")
def deliver_and_charm(kind, obs, opts, n_opts, rng):
    """Seat 0 holds the meadow witch and the fairy: it leads the witch brave (C2 -> M1, a
    green potion to T2), then the fairy cowardly (a cloud on M2). Seat 1 holds two gatherers
    and takes what they give."""
    if kind == P.SELECT:
        want = (1 << MEADOW_WITCH) | (1 << FAIRY) if obs[P.O_SEAT] == 0 else \
            (1 << HERB) | (1 << ROOT)
        return _pick_roles(opts, n_opts, want)
    if kind == P.LEAD and obs[P.O_SEAT] == 0:
        return _play(opts, n_opts, MEADOW_WITCH, 1)
    return 0


@pytest.mark.parametrize("option,resources,events", [
    ("pay_nothing", [5, 6], [0, 0]),          # the potion and the wand stay with seat 0
    ("few_potions_score", [3, 6], [3, 0]),    # paid; 2 potions left: +3 at the round's end
])
def test_empty_handed_in_both_engines(option, resources, events):
    # seed 000: 「リソースを支払う必要がなくなります。」 (resources no longer have to be paid);
    # seed 001: 「リソースは、プレイヤーの手元に置かれています。」 (they stay with the player)
    df, logs = both_engines(_empty_handed_rules(option), [deliver_and_charm] * 2)
    assert df["deliveries"].to_list() == [1, 0] and df["clouds"].to_list() == [1, 0]
    assert df["pts_towers"].to_list() == [2, 0]
    assert df["resources_left"].to_list() == resources
    assert df["pts_events"].to_list() == events


def test_empty_handed_free_payments_show_in_the_options():
    # what a policy sees: a delivery and a charm that cost nothing, still only with the potion
    # and the wands in hand (the seed frees the payment, not the need to hold them)
    g = position(n_players=2, rules=_empty_handed_rules("pay_nothing"))
    g.event, g.round = 0, 1
    g.clouds = {0: 0}
    g.pawns[0] = [AREAS.index("C1"), AREAS.index("M1")]
    rows = R.card_features(g, 0, role("valley_druid"), 0), R.card_features(g, 0, FAIRY, 0)
    assert [r[P.F_PAY_POTIONS] for r in rows] == [0, 0] and rows[1][P.F_PAY_WANDS] == 0
    assert rows[0][P.F_POINTS] == 2 and rows[1][P.F_LIGHTNING] == 1
    g.potions[0], g.wands[0] = [0, 1, 1], 0
    assert R.druid_towers(g, 0, role("valley_druid")) == [] and R.charmable(g, 0) == []


@pytest.mark.parametrize("option,done", [("pay_nothing", 0), ("hold_nothing", 1)])
def test_empty_handed_with_nothing_in_hand_in_both_engines(option, done):
    # seed 000: 「リソースを支払う必要がなくなります。」 (resources no longer have to be paid)
    # read two ways: the payment is freed, so a delivery still needs the potion and a charm
    # the wands (the default); or nothing need be held at all (option hold_nothing): seat 0,
    # with no potion and no wand, still delivers to T2 and charms a cloud on M2
    empty = {"green": 0, "purple": 0, "orange": 0}
    rules = _empty_handed_rules(option).replace(
        start_potions=empty, start_wands={"first_player": 0, "last_player": 0, "others": 0})
    df, logs = both_engines(rules, [deliver_and_charm] * 2)
    assert df["deliveries"].to_list() == [done, 0] and df["clouds"].to_list() == [done, 0]
    assert df["pts_towers"].to_list() == [2 * done, 0]
    assert df["resources_left"][0] == 0 and df["pts_events"].to_list() == [0, 0]


def test_empty_handed_option_is_checked():
    with pytest.raises(ValueError, match="empty_handed: must be one of"):
        default_rules().replace(empty_handed="free")


# ---------------------------------------------------------------- Perilous hill and mountain

@bloomsim.policy("to_the_mountain")
def to_the_mountain(kind, obs, opts, n_opts, rng):
    """Round 1: meadow, forest, hill witch take pawn b C2 -> M1 -> F2 -> H1 (a hill); round 2:
    the mountain witch takes it on to X1 (a mountain), then two gatherers. Pawn a stays in C1."""
    if kind == P.SELECT:
        want = ((1 << MEADOW_WITCH) | (1 << FOREST_WITCH) | (1 << HILL_WITCH)
                if obs[P.O_ROUND] == 1 else (1 << MOUNTAIN_WITCH) | (1 << HERB) | (1 << FRUIT))
        return _pick_roles(opts, n_opts, want)
    if kind == P.LEAD:
        return _play(opts, n_opts, MEADOW_WITCH, 0)
    if kind == P.MOVE:
        best, at = 0, -1
        for i in range(n_opts - 1):
            for k in range(4):
                if opts[i, P.F_TARGET] == PATH[k] and k > at:
                    best, at = i, k
        return best
    return 0


@pytest.mark.parametrize("option,points", [("as_listed", -2 - 2), ("zero", 0)])
def test_perilous_hill_and_mountain_in_both_engines(option, points):
    # seed 000: 「ラウンド終了時に次の地形エリアにコマがある場合、対応する勝利点を失います。」 and
    # seed 001's example names only forest and meadow (「エミリーは森と大草原にいます」): the
    # seeds are silent on hill and mountain, -2 (the specification's) or 0
    rules = _perilous_rules().replace(hand_size=3, perilous_unnamed_terrains=option)
    assert rules.points_per_pawn(0) == ({"forest": -1, "meadow": -3} if option == "zero" else
                                        {"forest": -1, "meadow": -3, "hill": -2, "mountain": -2})
    df, logs = both_engines(rules, [to_the_mountain, to_the_mountain])
    assert df["pawn_end_a"].to_list() == [AREAS.index("C1")] * 2
    assert df["pawn_end_b"].to_list() == [AREAS.index("X1")] * 2
    assert df["pts_events"].to_list() == [points, points]


def test_perilous_unnamed_option_is_checked():
    with pytest.raises(ValueError, match="perilous_unnamed_terrains: must be one of"):
        default_rules().replace(perilous_unnamed_terrains="0")


# ---------------------------------------------------------------- enchanted reshuffle

def _distinct_per_round(df, rules):
    """Distinct enchanted roles in each round of each game (rows: games, columns: rounds)."""
    ench = df.filter(df["seat"] == 0).select(
        f"enchanted_{r}" for r in rules.role_ids).to_numpy().astype(int)
    return np.stack([((ench >> k) & 1).sum(axis=1) for k in range(rules.rounds)], axis=1)


@pytest.mark.parametrize("option", ["all_roles", "set_aside_revealed"])
def test_enchanted_reshuffle_in_both_engines(option):
    # seed 000: 「山札が尽きている場合、10枚全ての役割カードをシャッフルし、新たな山札を作ります。」
    # With 2 players a round reveals 3 of the 10 cards: round 4 takes the 10th, then reshuffles
    # all 10 (the default) and may reveal that role again (it counts once); round 7 takes 2
    # more and reshuffles. ``set_aside_revealed`` keeps this round's roles out of the new deck.
    rules = default_rules().replace(enchanted_reshuffle=option, events_used=0, rounds=7)
    df, logs = both_engines(rules, ["random", "random"], seed=4, n=24)
    per_round = _distinct_per_round(df, rules)
    mid = [3, 6]                                   # rounds 4 and 7: reshuffled mid-reveal
    assert (np.delete(per_round, mid, axis=1) == 3).all()
    assert ((per_round[:, mid] >= 2) & (per_round[:, mid] <= 3)).all()
    assert (per_round[:, mid] == 2).any() == (option == "all_roles")


# ---------------------------------------------------------------- the pawns' start

@bloomsim.policy("gather_only")
def gather_only(kind, obs, opts, n_opts, rng):
    """Gatherers only: no pawn ever moves."""
    if kind == P.SELECT:
        return _pick_roles(opts, n_opts, (1 << HERB) | (1 << FRUIT) | (1 << ROOT))
    return 0


def test_pawns_start_one_in_each_castle_in_both_engines():
    # seed 000: 「それぞれをボード上の城の絵が描かれた場所のどちらかにおきます。」 (each on one of
    # the castle spaces): by default one pawn in each castle, no choice (the START decision
    # is asked only under option pawn_start: "choose")
    df, logs = both_engines(tiny_rules(), [gather_only] * 3, n=2)
    assert df["pawn_end_a"].to_list() == [AREAS.index("C1")] * 6
    assert df["pawn_end_b"].to_list() == [AREAS.index("C2")] * 6
    assert not any(kind in (P.MOVE, P.START) for s, kind, n, c in logs[0] + logs[1])


@bloomsim.policy("castle_by_seat")
def castle_by_seat(kind, obs, opts, n_opts, rng):
    """START: seat s puts both pawns in castle s % 2 (C1, C2); then gatherers only."""
    if kind == P.START:
        return int(obs[P.O_SEAT]) % 2
    if kind == P.SELECT:
        return _pick_roles(opts, n_opts, (1 << HERB) | (1 << FRUIT) | (1 << ROOT))
    return 0


def test_pawns_choose_their_castle_in_both_engines():
    # seed 000: 「それぞれをボード上の城の絵が描かれた場所のどちらかにおきます。」 read as each
    # pawn on either castle (option pawn_start: "choose"): seat by seat, pawn by pawn, two
    # castles offered; both pawns may share one
    df, logs = both_engines(tiny_rules(pawn_start="choose"), [castle_by_seat] * 3)
    c1, c2 = AREAS.index("C1"), AREAS.index("C2")
    assert df["pawn_end_a"].to_list() == df["pawn_end_b"].to_list() == [c1, c2, c1]
    starts = [(s, n, c) for s, kind, n, c in logs[0] if kind == P.START]
    assert starts == [(0, 2, 0), (0, 2, 0), (1, 2, 1), (1, 2, 1), (2, 2, 0), (2, 2, 0)]


def test_the_heuristics_start_near_a_tower_and_spread_the_pair():
    # T2 (green, 2 points) on M1 is one step from C2 and none from C1: greedy's first pawn
    # starts at C2; its second pawn would reach nothing new at either castle, takes the first
    # row (C1): the pair spread. A seat with no green potion reaches nothing: C1, C1.
    rules = _empty_handed_rules("pay_nothing").replace(pawn_start="choose", rounds=1)
    g = R.new_game(rules, n_players=2, policies=[P.greedy_policy] * 2)
    c1, c2 = AREAS.index("C1"), AREAS.index("C2")
    assert [R.start_points(g, 0, c, -1) for c in (c1, c2)] == [0, 2]
    assert [R.start_points(g, 0, c, c2) for c in (c1, c2)] == [0, 0]
    assert g.pawns == [[c2, c1], [c2, c1]]
    no_green = rules.replace(start_potions={"green": 0, "purple": 1, "orange": 1})
    assert R.new_game(no_green, n_players=2, policies=[P.greedy_policy] * 2).pawns == \
        [[c1, c1], [c1, c1]]
    df, logs = both_engines(rules, ["greedy", "careful"])
    assert [c for s, kind, n, c in logs[0] if kind == P.START] == [1, 0, 1, 0]


def test_pawn_start_option_is_checked():
    with pytest.raises(ValueError, match="pawn_start: must be one of"):
        default_rules().replace(pawn_start="anywhere")


# ---------------------------------------------------------------- the brave bonus

@njit
def _witch_druid_fairy(kind, obs, opts, n_opts, brave):
    """Seat 0 holds the meadow witch, the valley druid and the fairy: the witch cowardly
    (C2 -> M1), then the druid (a potion to T2 on M1) and the fairy (a cloud on M2), both
    ``brave`` or both cowardly. Seat 1 holds three gatherers."""
    if kind == P.SELECT:
        want = ((1 << MEADOW_WITCH) | (1 << VALLEY_DRUID) | (1 << FAIRY) if obs[P.O_SEAT] == 0
                else (1 << HERB) | (1 << FRUIT) | (1 << ROOT))
        return _pick_roles(opts, n_opts, want)
    if kind == P.LEAD:
        for r, b in ((MEADOW_WITCH, 0), (VALLEY_DRUID, brave), (FAIRY, brave)):
            for i in range(n_opts):
                if opts[i, P.F_ROLE] == r and opts[i, P.F_BRAVE] == b:
                    return i
    return 0


@bloomsim.policy("bonus_brave")
def bonus_brave(kind, obs, opts, n_opts, rng):
    return _witch_druid_fairy(kind, obs, opts, n_opts, 1)


@bloomsim.policy("bonus_cowardly")
def bonus_cowardly(kind, obs, opts, n_opts, rng):
    return _witch_druid_fairy(kind, obs, opts, n_opts, 0)


@pytest.mark.parametrize("policy,bonus", [(bonus_brave, 3 + 3), (bonus_cowardly, 0)])
def test_brave_bonus_needs_a_brave_druid_or_fairy_in_both_engines(policy, bonus):
    # seed 001: 「強気なドルイドは、配達した塔が示しているより3勝利点多く獲得します。プレイヤーが
    # ポーションを届けることができたら、さらに3勝利点を獲得することができるだけです。”強気” である
    # 必要はありません。」 - the last sentence ("it need not be brave") read as a slip for "being
    # brave is not enough" (seed 000: 「勇敢なドルイドの場合、…追加で3点獲得します。」): a cowardly
    # druid or fairy that delivers or charms gets no bonus
    rules = _empty_handed_rules("pay_nothing").replace(events=[], events_used=0, hand_size=3)
    df, logs = both_engines(rules, [policy, policy])
    assert df["deliveries"].to_list() == [1, 0] and df["clouds"].to_list() == [1, 0]
    assert df["pts_towers"].to_list() == [2, 0]
    assert df["pts_brave"].to_list() == [bonus, 0]
