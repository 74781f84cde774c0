"""Rules data: defaults, files (JSON and TOML), overrides and validation errors."""
import json

import pytest

from rapinsim.rules import DATA, RING10, Rules, load_rules


def test_defaults_file_equals_dataclass_defaults():
    r = load_rules()
    assert r == Rules()
    assert r.n_tiles == 48 and len(r.tile_set(False)) == 48
    assert r.rize_start == (2, 2, 7, 7)


def test_inaba_set_replaces_one_brown_one_with_the_chest():
    r = load_rules()
    plain, inaba = r.tile_set(False), r.tile_set(True)
    assert sum(t[4] for t in inaba) == 1 and sum(t[4] for t in plain) == 0
    brown1 = [t for t in plain if t[0] == 0 and t[2] == 1]
    assert len(brown1) - 1 == len([t for t in inaba if t[0] == 0 and t[2] == 1 and not t[4]])


def test_toml_file_with_some_keys(tmp_path):
    p = tmp_path / "r.toml"
    p.write_text("actions_per_turn = 2\ncoffee_ends_turn = false\nrize_finds = false\n"
                 "[board]\nextra_edges = [[3, 8], [1, 6]]\n")
    r = load_rules(p)
    assert r.actions_per_turn == 2 and not r.coffee_ends_turn and not r.rize_finds
    assert r.extra_edges == ((3, 8), (1, 6)) and r.source == str(p)


def test_the_seeds_other_readings_from_a_file(tmp_path):
    p = tmp_path / "r.toml"
    p.write_text('character_selection = "draw"\ndisguise = "reaction"\nwhistle_steps = 0\n'
                 'chest_counts_for_others = false\nfound_ends_turn = false\n'
                 'pitfall_skips = 2\n')
    r = load_rules(p)
    assert (r.character_selection, r.disguise, r.whistle_steps) == ("draw", "reaction", 0)
    assert not r.chest_counts_for_others and not r.found_ends_turn and r.pitfall_skips == 2
    d = load_rules()
    assert (d.character_selection, d.disguise, d.whistle_steps) == ("choice", "action", -1)


def test_replace_overrides_and_rejects_unknown_fields():
    r = load_rules().replace(max_player_turns=50)
    assert r.max_player_turns == 50
    with pytest.raises(ValueError, match="unknown rules field.*colour"):
        r.replace(colour=1)


def write(tmp_path, data):
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(data))
    return p


@pytest.mark.parametrize("data, match", [
    ({"board": {"route": [1, 2, 3, 4, 5, 6, 7, 8, 9, 9]}}, "route.*permutation"),
    ({"board": {"extra_edges": [[3, 17]]}}, "extra_edges.*edge \\[3, 17\\]"),
    ({"tiles": {"item": {"lamp": 3, "coffee": 2, "disguise": 2, "bicycle": 1, "map": 1}}},
     "treasures.*must match the 48 houses"),
    ({"board": {"districts": 10, "route": list(range(1, 11)), "extra_edges": []}},
     "treasures.*must match the 30 houses \\(10 districts x 3\\)"),
    ({"tiles": {"item": {"laser": 1}}}, "items.*unknown item 'laser'"),
    ({"tiles": {"trap": {"alarm": 2, "pitfall": 3, "quicksand": 2}}}, "unknown trap"),
    ({"characters": ["lapin", "rize"]}, "unknown character 'rize'"),
    ({"actions_per_turn": "3"}, "actions_per_turn.*must be an integer"),
    ({"coffee_ends_turn": 1}, "coffee_ends_turn.*true or false"),
    ({"rize_finds": "no"}, "rize_finds.*true or false"),
    ({"colour": "red"}, "unknown rules key 'colour'"),
    ({"board": {"size": 3}}, "unknown rules key 'board.size'"),
    ({"board": {"a\nb": 3}}, r"unknown rules key 'board.a\\nb'"),
    ({"rize_start": {"d4_1_2": 2}}, "rize_start.*every die face"),
    ({"die_sides": 4.0, "rize_start": {"d4_1_2": 2, "d4_3_4": 7}},
     "die_sides.*must be an integer, got 4.0"),
    ({"players": {"min": 4, "max": 3}}, "players_min"),
    ({"character_selection": "pick"}, "character_selection.*one of \\['choice', 'draw'\\]"),
    ({"disguise": True}, "disguise.*one of \\['action', 'reaction'\\]"),
    ({"whistle_steps": 4}, "whistle_steps.*from -3 to 3"),
    ({"pitfall_skips": -1}, "pitfall_skips.*from 0 to 5"),
    ({"chest_counts_for_others": "yes"}, "chest_counts_for_others.*true or false"),
    ({"found_ends_turn": 0}, "found_ends_turn.*true or false"),
])
def test_bad_files_name_the_field_and_the_file(tmp_path, data, match):
    p = write(tmp_path, data)
    with pytest.raises(ValueError, match=match) as e:
        load_rules(p)
    assert str(p) in str(e.value) and "\n" not in str(e.value)


def test_unreadable_and_missing_files(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{not json")
    with pytest.raises(ValueError, match="not a valid JSON"):
        load_rules(p)
    with pytest.raises(ValueError, match="does not exist"):
        load_rules(tmp_path / "none.toml")


def test_shipped_defaults_are_the_published_ones():
    data = json.loads(DATA.read_text())
    assert data["board"]["districts"] == 16 and len(data["board"]["extra_edges"]) == 9
    assert data["rize_start"] == {"d4_1_2": 2, "d4_3_4": 7} and data["max_player_turns"] == 400


def test_the_default_town_is_a_4x4_grid_walked_as_a_serpentine():
    """Rize's route 1..16 snakes through four rows of four (1-4, 8-5, 9-12, 16-13) and the
    roads also join each district to the ones above and below it, so a district next to
    Rize's path is often far behind him along it."""
    r = load_rules()
    row = {d: (d - 1) // 4 for d in range(1, 17)}
    col = {d: (d - 1) % 4 if row[d] % 2 == 0 else 3 - (d - 1) % 4 for d in range(1, 17)}
    grid = {(a, b) for a in range(1, 17) for b in range(a + 1, 17)
            if abs(row[a] - row[b]) + abs(col[a] - col[b]) == 1}
    ring = {(a, a + 1) for a in range(1, 16)} | {(1, 16)}
    assert r.route == tuple(range(1, 17))
    assert set(r.extra_edges) == grid - ring
    assert r.n_tiles == 48 and sum(c for _, _, c in r.treasures) == 24
    assert sum(r.items.values()) == 13 and sum(r.traps.values()) == 11


def test_the_specifications_ring_of_ten_is_shipped_as_a_rules_file():
    r = load_rules(RING10)
    assert r.districts == 10 and r.route == tuple(range(1, 11)) and r.extra_edges == ((3, 8),)
    assert r.n_tiles == 30 and r.treasures == ((1, 0, 5), (2, 0, 4), (3, 0, 4), (0, 4, 2))
    assert r.items == {"lamp": 2, "coffee": 2, "disguise": 1, "bicycle": 1, "map": 1,
                       "whistle": 1}
    assert r.traps == {"alarm": 2, "pitfall": 3, "prank": 2}
    assert r == load_rules().replace(                  # only the board and its tiles differ
        districts=10, route=tuple(range(1, 11)), extra_edges=((3, 8),),
        treasures=r.treasures, items=r.items, traps=r.traps)
