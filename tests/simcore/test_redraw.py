"""A redraw draws the named chance sources anew and holds every other draw (simcore.simulate's
``redraw``), in every game's declaration and both engines."""
import pytest

import bloomsim
import rapinsim
from bloomsim import reference as bref
from bloomsim.rules import CH_EVENTS, CH_TILES
from rapinsim import reference as rref
from rapinsim.rules import CH_START, load_rules
from simcore import games
from simcore.rng import redraw_key, root_key
from simcore.simulate import POLICIES, redraw_sources, redraw_streams


@pytest.mark.parametrize("name", ["bloomsim", "rapinsim"])
def test_every_game_declares_its_chance_sources(name):
    spec = games.get(name)
    assert len(spec.chance) >= 3 and all(spec.chance.values())
    assert redraw_sources(spec) == (*spec.chance, POLICIES)


def test_the_streams_of_a_redraw():
    spec = games.get("bloomsim")
    assert redraw_streams(spec, 5, None) == (0, 0)
    assert redraw_streams(spec, 5, ("events", 2)) == (1 << CH_EVENTS, redraw_key(5, 2))
    mask, _ = redraw_streams(spec, 5, (["tiles", POLICIES], 0))
    assert mask & 1 << CH_TILES and mask >> len(spec.chance) == (1 << 16) - 1


@pytest.mark.parametrize("bad", [("dice", 0), ("events",), "events", ((), 0), ("events", -1)])
def test_a_bad_redraw_is_refused(bad):
    with pytest.raises(ValueError, match="redraw"):
        redraw_streams(games.get("bloomsim"), 5, bad)


def test_broom_service_events_drawn_anew_hold_the_tiles():
    key, alt = root_key(4), redraw_key(4, 0)
    moved = 0
    for game in range(6):
        a = bref.new_game(n_players=3, key=key, game=game)
        b = bref.new_game(n_players=3, key=key, game=game, redraw=(1 << CH_EVENTS, alt))
        assert a.clouds == b.clouds and a.enchanted_deck == b.enchanted_deck
        moved += a.event_deck != b.event_deck
    assert moved >= 5


def test_lapin_start_drawn_anew_holds_the_layout():
    rules = load_rules().replace(character_selection="draw")
    pols = [rref.builtin(0, None)] * 3
    key, alt = root_key(4), redraw_key(4, 0)
    moved = 0
    for game in range(8):
        a = rref.setup(rules, pols, ["a", "b", "c"], key, game)
        b = rref.setup(rules, pols, ["a", "b", "c"], key, game, redraw=(1 << CH_START, alt))
        assert a.board == b.board and a.chars == b.chars
        moved += a.rize != b.rize
    assert moved >= 4


def test_a_redraw_of_the_policies_changes_nothing_when_no_seat_draws():
    """Broom Service's heuristics draw nothing from their streams (the Lapin hunt's break near
    ties at random); random seats do."""
    table = ["cloud", "careful", "greedy"]
    base = bloomsim.simulate(table, 30, 2, progress=False)
    assert base.equals(bloomsim.simulate(table, 30, 2, progress=False, redraw=(POLICIES, 0)))


@pytest.mark.parametrize("mod", [bloomsim, rapinsim])
def test_a_redraw_of_the_policies_changes_random_seats(mod):
    rand = mod.simulate(["random"] * 3, 30, 2, progress=False)
    assert not rand.equals(mod.simulate(["random"] * 3, 30, 2, progress=False,
                                        redraw=(POLICIES, 0)))


@pytest.mark.parametrize("mod", [bloomsim, rapinsim])
def test_a_redraw_is_the_same_games_whatever_the_threads(mod):
    one = mod.simulate(["random", "random", "random"], 40, 9, progress=False, threads=1,
                       redraw=(next(iter(games.of_module(mod).chance)), 3))
    two = mod.simulate(["random", "random", "random"], 40, 9, progress=False, threads=2,
                       redraw=(next(iter(games.of_module(mod).chance)), 3))
    assert one.equals(two)
    assert not one.equals(mod.simulate(["random"] * 3, 40, 9, progress=False))


def test_replay_tells_the_game_a_redraw_played():
    pols = ["random", "greedy", "careful"]
    df = bloomsim.simulate(pols, 1, 3, progress=False, redraw=("events", 1))
    text = bloomsim.replay(pols, 3, 0, redraw=("events", 1))
    for s, score in enumerate(df.sort("seat")["score"]):
        assert f"seat {s} ({pols[s]}): {score} points" in text
    assert text != bloomsim.replay(pols, 3, 0)
    assert rapinsim.replay(pols[:2], 3, 0, redraw=("layout", 1)) != rapinsim.replay(pols[:2],
                                                                                   3, 0)
