"""Differential (reference vs compiled), reproducibility and conformance of whole games."""
import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rapinsim import api, new_game, simulate
from rapinsim.game import GAME
from rapinsim import policies as P
from rapinsim import reference as ref
from rapinsim.distilled import distilled
from rapinsim import stats as S
from rapinsim.rules import CHARACTERS, ITEMS, RING10, TRAPS, load_rules
from simcore.policy import policy
from simcore.restrict import restricted
from simcore.rng import NO_REDRAW, redraw_key, root_key

RULES = load_rules()
BOARDS = [RULES, load_rules(RING10)]     # the default town (4 x 4) and the spec's ring of 10
NAMES = ["random", "careful", "greedy", "evader", "keeper"]
PLAYED = [*NAMES, "distilled"]   # the built-ins the engines play (distilled: weights passed in)


def both(policies, n, seed, rules=RULES, characters=None, start=0, redraw=NO_REDRAW):
    rules, pol, fixed = api._check(policies, rules, characters)
    key = root_key(seed)
    c = api.play_arrays(pol, rules, fixed, key, start, n, "compiled", log=True, redraw=redraw)
    r = api.play_arrays(pol, rules, fixed, key, start, n, "reference", log=True, redraw=redraw)
    return c, r


def assert_same(c, r):
    for a, b in zip(c[:5], r[:5]):        # seat, win, game, chars, led_rounds
        np.testing.assert_array_equal(a, b)
    for la, lb in zip(c[5], r[5]):
        np.testing.assert_array_equal(la, lb)


variants = st.fixed_dictionaries({}, optional={
    "coffee_ends_turn": st.booleans(),
    "time_markers_permanent": st.booleans(),
    "step_into_rize_next": st.booleans(),
    "rize_finds": st.booleans(),
    "inaba_can_win_on_count": st.booleans(),
    "actions_per_turn": st.integers(1, 4),
    "empty_districts_for_dawn": st.integers(2, 8),
    "max_player_turns": st.integers(5, 120),
    "bicycle_steps": st.integers(1, 4),
    "character_selection": st.sampled_from(["choice", "draw"]),
    "disguise": st.sampled_from(["action", "reaction"]),
    "whistle_steps": st.integers(-3, 3),
    "chest_counts_for_others": st.booleans(),
    "found_ends_turn": st.booleans(),
    "pitfall_skips": st.integers(0, 3),
})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), n_players=st.integers(2, 6), data=st.data(),
       overrides=variants, board=st.sampled_from(BOARDS))
def test_reference_and_compiled_play_the_same_games(seed, n_players, data, overrides, board):
    policies = data.draw(st.lists(st.sampled_from(PLAYED), min_size=n_players,
                                  max_size=n_players))
    chars = data.draw(st.none() | st.permutations(CHARACTERS).map(lambda c: c[:n_players]))
    c, r = both(policies, 3, seed, board.replace(**overrides), chars)
    assert_same(c, r)


@pytest.mark.parametrize("board", range(len(BOARDS)))
def test_evader_and_keeper_play_the_same_games_in_both_engines(board):
    """The two policies that read Rize's predicted path and the held chest (the observation's
    ``OB_RIZE_TO``, ``OB_CHEST_HELD``, ``OB_DIE``), with Inaba in every game so the keeper
    holds, guards and loses the chest."""
    pols = ["keeper", "evader", "random", "keeper", "evader", "careful"]
    chars = ["inaba", "aoyama", "lapin", "cocoa", "chiya", "chimame"]
    for n in (2, 4, 6):
        c, r = both(pols[:n], 6, 40 + board, BOARDS[board], chars[:n])
        assert_same(c, r)
    assert c[0][S.S_CHEST].sum() > 0               # someone held the chest at the end


BIG_BOARDS = [
    # the most districts (the compiled engine lays its state out for 40 districts, 120 houses)
    dict(districts=40, houses_per_district=3, route=tuple(range(40, 0, -1)),
         extra_edges=((3, 30), (1, 20), (5, 6)),
         treasures=((1, 0, 30), (2, 0, 30), (3, 0, 20), (0, 4, 10)),
         items={"lamp": 3, "coffee": 5, "disguise": 4, "bicycle": 3, "map": 3, "whistle": 2},
         traps={"alarm": 4, "pitfall": 3, "prank": 3}, empty_districts_for_dawn=30),
    # the most houses per district, a big die
    dict(districts=20, houses_per_district=6, route=tuple(range(1, 21)), extra_edges=(),
         die_sides=20, rize_start=tuple(range(1, 21)),
         treasures=((1, 0, 40), (2, 0, 30), (3, 0, 20), (0, 4, 10)),
         items={"lamp": 3, "coffee": 3, "disguise": 3, "bicycle": 3, "map": 3},
         traps={"alarm": 2, "pitfall": 2, "prank": 1}),
    # the fewest districts and houses
    dict(districts=3, houses_per_district=1, route=(2, 3, 1), extra_edges=(),
         rize_start=(2, 2, 3, 3), treasures=((1, 0, 2),), items={}, traps={"alarm": 1},
         empty_districts_for_dawn=1),
]


@pytest.mark.parametrize("board", range(len(BIG_BOARDS)))
def test_reference_and_compiled_agree_on_the_largest_and_smallest_boards(board):
    rules = RULES.replace(**BIG_BOARDS[board])
    n = 2 if rules.districts == 3 else 6
    pols = (["greedy", "careful", "random", "random", "careful", "greedy"])[:n]
    c, r = both(pols, 8, 5 + board, rules)
    assert_same(c, r)


@pytest.mark.parametrize("redrawn", [0b11111, 0b00101, 0b11010, 0b1111100000])
def test_engines_agree_with_sources_drawn_anew(redrawn):
    """A redraw (chance sources, seats: a bit mask of streams) plays the same game in both
    engines, and changes the games."""
    rules = RULES.replace(character_selection="draw")
    pols = ["greedy", "random", "careful", "random"]
    c, r = both(pols, 6, 3, rules, redraw=(redrawn, redraw_key(3, 2)))
    assert_same(c, r)
    base, _ = both(pols, 6, 3, rules)
    assert not np.array_equal(base[0], c[0])


def test_every_character_and_rule_is_exercised_in_differential_games():
    """Many fixed games: compiled == reference, and every item, trap and skill happens."""
    c, r = both(["greedy", "careful", "random", "greedy", "careful", "random"], 40, 7)
    assert_same(c, r)
    seat = c[0]
    for i in range(len(ITEMS)):
        if ITEMS[i] != "disguise":
            assert seat[S.S_ITEM + i].sum() > 0, ITEMS[i]
    assert seat[S.S_ITEM + ITEMS.index("disguise")].sum() > 0
    for i in range(len(TRAPS)):
        assert seat[S.S_TRAP + i].sum() > 0, TRAPS[i]
    used = {CHARACTERS[ch] for ch, u in zip(c[3].ravel(), seat[S.S_SKILL_USED].ravel())
            if u}
    assert used == set(CHARACTERS)


def test_user_policies_same_frame_any_threads():
    @policy("last")
    def last(kind, obs, opts, n_opts, rng):
        return n_opts - 1

    pols = [last, "careful", last, "random"]
    a = simulate(pols, 300, 5, threads=1, progress=False)
    assert a.equals(simulate(pols, 300, 5, threads=2, progress=False))


def test_policy_swap_keeps_the_deal():
    """Common random numbers: the policies do not change the tile shuffle or Rize's start."""
    a = simulate(["random", "random", "random"], 50, 3, characters=["lapin", "cocoa", "chiya"],
                 progress=False)
    b = simulate(["careful", "greedy", "random"], 50, 3, characters=["lapin", "cocoa", "chiya"],
                 progress=False)
    assert a["rize_start"].equals(b["rize_start"])


@policy("passer")
def passer(kind, obs, opts, n_opts, rng):
    """Always the first option: passes every turn, so nobody searches and the game stalls."""
    return 0


def test_led_rounds_stop_at_63_rounds_alike_in_both_engines():
    c, r = both([passer, passer], 2, 3, RULES.replace(max_player_turns=151))
    assert_same(c, r)
    game, led = c[2], c[4]
    assert (game[S.G_STALLED] == 1).all() and (game[S.G_ROUNDS] == 76).all()  # 75 + a part
    assert (led == (1 << 63) - 1).all()      # no treasures: both lead every recorded round


def test_led_rounds_mark_the_treasure_leaders():
    df = simulate(["greedy", "careful", "random"], 400, 8, progress=False).sort("game", "seat")
    led = df["led_rounds"].to_numpy().reshape(-1, 3)
    rounds, turns = (df[c].to_numpy().reshape(-1, 3)[:, 0] for c in ("rounds", "turns"))
    treasures = df["treasures"].to_numpy().reshape(-1, 3)
    assert (rounds == (turns + 2) // 3).all() and rounds.max() <= 63
    assert (np.bitwise_or.reduce(led, axis=1) == (1 << rounds.astype(np.int64)) - 1).all()
    # the last round ends with the game: its leaders hold the most treasure tiles
    last = (led >> (rounds[:, None] - 1).astype(np.int64)) & 1
    assert (last == (treasures == treasures.max(axis=1, keepdims=True))).all()


def check_invariants(st):
    n = st.rules.n_tiles
    where = {"board": 0, "hand": 0, "bag": 0, "trap": 0, "item": 0}
    for t, loc in enumerate(st.loc):
        if 0 <= loc < n:
            assert st.board[loc] == t
            where["board"] += 1
        elif ref.HAND <= loc < ref.HAND + st.n_players:
            where["hand"] += 1
        elif loc == ref.BAG:
            where["bag"] += 1
        elif loc == ref.REMOVED:
            assert ref.kind_of(st, t) == 2
            where["trap"] += 1
        else:
            assert loc == ref.DISCARDED and ref.kind_of(st, t) == 1
            where["item"] += 1
    assert sum(where.values()) == n == st.rules.n_tiles
    assert where["bag"] == len(st.bag) and where["board"] == sum(b != ref.EMPTY for b in st.board)
    for s in range(st.n_players):
        if st.chars[s] == 3:
            assert len([t for t in range(n) if st.loc[t] == ref.HAND + s]) <= 1


def test_conformance_invariants_over_many_reference_games(monkeypatch):
    steps, searches = [], []
    real_step, real_search, real_turn = ref.step, ref.search, ref.play_turn

    def step(st, s, d):
        assert d != st.rize and st.rules.route and st.ra.adj[st.pos[s], d]
        steps.append(d)
        real_step(st, s, d)

    def search(st, s, h):
        d = ref.district_of(st, h)
        assert st.pos[s] == d != st.rize and not ref.players_in(st, d, but=s)
        searches.append(h)
        real_search(st, s, h)

    def play_turn(st, s):
        check_invariants(st)
        real_turn(st, s)
        check_invariants(st)

    monkeypatch.setattr(ref, "step", step)
    monkeypatch.setattr(ref, "search", search)
    monkeypatch.setattr(ref, "play_turn", play_turn)
    key = root_key(5)
    pols = [ref.builtin(i % 5) for i in range(5)]
    for g in range(25):
        game = ref.play_game(BOARDS[g % 2], pols, NAMES, key, g)
        check_invariants(game)
        assert game.over or game.stalled
        assert game.turns <= game.rules.max_player_turns
    assert steps and searches


def test_frame_counters_agree():
    # characters dealt at random: the four heuristics would all choose past Inaba
    df = simulate(["greedy", "careful", "evader", "keeper"], 2000, 21, progress=False,
                  rules=RULES.replace(character_selection="draw"))
    assert df.height == 8000
    assert (df["tiles_treasure"] + df["tiles_item"] + df["tiles_trap"] >= df["searches"]).all()
    assert (sum(df[f"trap_{t}"].cast(pl.Int32) for t in TRAPS) == df["tiles_trap"]).all()
    games = df.group_by("game").agg(
        pl.col("found").sum(), pl.col("searches").sum(),
        pl.sum_horizontal([pl.col(f"found_d{k}").first() for k in range(1, 17)]).alias("fd"),
        pl.sum_horizontal([pl.col(f"searches_d{k}").first() for k in range(1, 17)]).alias("sd"),
        pl.col("win").sum().alias("w"), pl.col("stalled").first(), pl.col("dawn").first())
    assert (games["found"] == games["fd"]).all() and (games["searches"] == games["sd"]).all()
    assert ((games["w"] - 1).abs() < 1e-5).all()
    assert (games["stalled"] ^ games["dawn"]).all()
    assert df.filter(pl.col("skill_used") == 0)["skill_turn"].eq(-1).all()
    inaba = df.filter((pl.col("character") == "inaba") & (pl.col("chest") == 1))
    assert inaba.height > 0 and (inaba["win"] == 1).all()


@pytest.mark.parametrize("board", range(len(BOARDS)))
def test_builtin_heuristics_read_only_the_observation_written_for_them(board):
    """The compiled engine writes a built-in policy only ``BUILTIN_OBS`` (the evader, the
    keeper and the distilled policy also ``PREDICTING_OBS``, the last ``DISTILLED_OBS``) and no
    ``UNREAD_FEATURES`` column: with every other field and those columns scrambled they play
    the same games."""

    def scrambled(pid):
        keep = list(P.BUILTIN_OBS) + (list(P.PREDICTING_OBS) if pid >= P.EVADER else []) + (
            list(P.DISTILLED_OBS) if pid == P.DISTILLED else [])
        junk = np.ones(P.N_OBS, bool)
        junk[keep] = False
        play = distilled() if pid == P.DISTILLED else ref.builtin(pid)

        def f(kind, obs, opts, n, rng):
            o = obs.copy()
            o[junk] = 1000.0 + 7.0 * np.flatnonzero(junk)
            rows = opts.copy()
            rows[:, list(P.UNREAD_FEATURES)] = -999.0
            return play(kind, o, rows, n, rng)
        return f
    pids = [P.CAREFUL, P.GREEDY, P.EVADER, P.KEEPER, P.DISTILLED]
    chars = [1, 0, 2, 4]
    for game in range(6):
        seats = pids[game % 2:game % 2 + 4]
        names = [{v: k for k, v in P.BUILTIN_IDS.items()}[p] for p in seats]
        key = root_key(board)
        a = ref.play_game(BOARDS[board], [distilled() if p == P.DISTILLED else ref.builtin(p)
                                          for p in seats], names, key, game,
                          chars if game % 2 else None)
        b = ref.play_game(BOARDS[board], [scrambled(p) for p in seats], names, key, game,
                          chars if game % 2 else None)
        assert a.decisions == b.decisions and len(a.decisions) > 20


@pytest.mark.parametrize("case", range(4))
def test_both_engines_show_a_user_policy_the_same_observations(case):
    """The reference engine's observation at every decision of a user policy's game equals the
    compiled one's (its forward model writes every seat's ``observe``), field by field: the
    default town, the ring of 10 with other rules, the largest board."""
    rules, n = [(RULES, 4), (BOARDS[1].replace(time_markers_permanent=False, whistle_steps=0,
                                               disguise="reaction"), 6),
                (RULES.replace(**BIG_BOARDS[0]), 5), (RULES, 2)][case]
    shown = []

    def recorder(kind, obs, opts, n_opts, rng):
        shown.append(obs.copy())
        return len(shown) * 7 % n_opts

    seed = 60 + case
    st_ = ref.play_game(rules, [recorder] * n, ["recorder"] * n, root_key(seed), 0)
    g = new_game(n, seed, rules=rules)
    for (seat, _, n_opts, choice), obs in zip(st_.decisions, shown, strict=True):
        assert g.to_act == (seat, n_opts)
        np.testing.assert_array_equal(g.observation(seat), obs)
        g.step(choice)
    assert g.done and len(shown) > 50


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), base=st.sampled_from(NAMES[1:]), data=st.data(),
       others=st.lists(st.sampled_from(PLAYED), min_size=1, max_size=4))
def test_engines_agree_on_heuristics_with_other_weights(seed, base, data, others):
    w = {name: data.draw(st.floats(lo, min(hi, 30.0)).map(lambda x: round(x, 2)), label=name)
         for name, (lo, hi) in zip(P.WEIGHTS.names, P.WEIGHTS.bounds)}
    c, r = both([P.heuristic(base, **w), *others], 3, seed)
    assert_same(c, r)


ROW_PROBES = [p.name for p in GAME.probes if p.mode != "horizon"]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32),
       seats=st.lists(st.tuples(st.sampled_from(PLAYED), st.none() | st.sampled_from(ROW_PROBES)),
                      min_size=2, max_size=6))
def test_engines_agree_on_restricted_seats(seed, seats):
    """Restricted play (``simcore.restrict``): a seat under any probe, of any base policy."""
    c, r = both([p if probe is None else restricted(p, probe) for p, probe in seats], 3, seed)
    assert_same(c, r)
