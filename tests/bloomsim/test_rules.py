"""Rules data: loading, replacing, and a clear ValueError naming field and file for bad input."""
import json

import pytest

from bloomsim import load_rules
from bloomsim.rules import DEFAULT_PATH, Rules


def test_defaults_load_and_round_trip(rules):
    assert rules.rounds == 7 and rules.enchanted_penalty == 3
    assert Rules.from_dict(rules.to_dict()).to_dict() == rules.to_dict()


def test_replace_one_value(rules):
    r = rules.replace(enchanted_penalty=2)
    assert r.enchanted_penalty == 2 and rules.enchanted_penalty == 3
    assert r.tables().p is not rules.tables().p


def test_json_and_toml_files_override_top_level_keys(tmp_path):
    j = tmp_path / "r.json"
    j.write_text(json.dumps({"start_score": 5, "lightning_points": [0, 2, 4]}))
    r = load_rules(j)
    assert r.start_score == 5 and r.lightning_points == (0, 2, 4) and r.rounds == 7
    t = tmp_path / "r.toml"
    t.write_text('start_score = 6\nenchanted_reshuffle = "all_roles"\n[resource_sets]\n'
                 'four_kinds = 5\nthree_kinds = 1\n')
    r = load_rules(t)
    assert r.start_score == 6 and r.resource_sets["four_kinds"] == 5
    assert r.enchanted_reshuffle == "all_roles"


def test_a_partial_table_in_a_file_keeps_the_defaults_other_entries(tmp_path, rules):
    t = tmp_path / "r.toml"
    t.write_text("[start_wands]\nfirst_player = 2\n")
    assert load_rules(t).start_wands == {**rules.start_wands, "first_player": 2}


def _bad(tmp_path, change, match):
    data = json.loads(DEFAULT_PATH.read_text())
    change(data)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=match) as e:
        load_rules(f)
    assert "bad.json" in str(e.value)


def test_unknown_key(tmp_path):
    _bad(tmp_path, lambda d: d.update(enchanted_penality=2), r"unknown key.*enchanted_penality")


def test_wrong_type(tmp_path):
    _bad(tmp_path, lambda d: d.update(rounds="7"), r"rounds: must be an integer")


def test_adjacency_to_missing_area(tmp_path):
    _bad(tmp_path, lambda d: d["board"]["adjacent"].append(["A00", "Z99"]),
         r"board.adjacent\[\d+\]: unknown area 'Z99'")


def test_tower_touching_water(tmp_path):
    _bad(tmp_path, lambda d: d["board"]["towers"][0]["areas"].append("A22"),
         r"towers\[0\].areas: tower 'T01' touches water area 'A22'")


def test_cloud_space_on_castle(tmp_path):
    _bad(tmp_path, lambda d: d["board"]["cloud_spaces"].append("A00"),
         r"cloud space cannot be on castle area 'A00'")


def test_event_of_unknown_kind(tmp_path):
    _bad(tmp_path, lambda d: d["events"].append({"id": "storm", "timing": "turns"}),
         r"event 'storm' has unknown kind")


def test_event_wrong_timing(tmp_path):
    def change(d):
        d["events"][4]["timing"] = "turns"
    _bad(tmp_path, change, r"events\[4\].timing")


def test_role_terrain_not_on_board(tmp_path):
    def change(d):
        d["roles"][0]["terrain"] = ["desert"]
    _bad(tmp_path, change, r"roles\[0\].terrain: 'desert' is not a land terrain")


def test_more_terrains_than_a_role_bitmask_holds(tmp_path):
    def many(d):                # each land area a terrain of its own; a role names the last
        seen = {"castle", "water"}
        for i, a in enumerate(d["board"]["areas"]):
            if a["terrain"] in seen - {"castle", "water"}:
                a["terrain"] = last = f"t{i}"
            seen.add(a["terrain"])
        d["roles"][0]["terrain"] = [last]                                 # code 31 or more
    _bad(tmp_path, many, r"board.areas: at most 29 land terrains, got \d+")


def test_too_few_cloud_tiles(tmp_path):
    def change(d):
        d["cloud_tiles"] = [{"stars": 1, "lightning": 1, "count": 3}]
    _bad(tmp_path, change, r"cloud_tiles: 3 tiles cannot cover 18")


def test_bad_option_value(rules):
    with pytest.raises(ValueError, match="enchanted_reshuffle: must be one of"):
        rules.replace(enchanted_reshuffle="sometimes")
    with pytest.raises(ValueError, match="next_start_player: must be one of"):
        rules.replace(next_start_player="oldest")


def test_perilous_gain_refused_from_a_file_unless_the_option_allows_it(tmp_path):
    def gain(d):
        d["events"][4]["points_per_pawn"]["meadow"] = 5
    _bad(tmp_path, gain, r"events\[4\]\.points_per_pawn\.meadow: Perilous Places only takes "
                         r"points away, got \+5 \(the option perilous_places: 'gain_or_lose'")
    data = json.loads(DEFAULT_PATH.read_text())
    gain(data)
    data["perilous_places"] = "gain_or_lose"
    f = tmp_path / "old.json"
    f.write_text(json.dumps(data))
    assert load_rules(f).events[4]["points_per_pawn"]["meadow"] == 5


def test_an_area_may_hold_several_cloud_spaces(rules):
    board = rules.to_dict()["board"]
    board["cloud_spaces"] += ["A03", "A03"]
    r = rules.replace(board=board)
    assert r.cloud_space_ids[-3:] == ("A53", "A03_2", "A03_3")
    assert list(r.tables().cloud_area).count(rules.area_ids.index("A03")) == 3


def test_enchanted_deck_round_trips_through_a_file(tmp_path, rules):
    assert rules.enchanted_deck is None and rules.enchanted_deck_roles == tuple(range(10))
    r = rules.replace(enchanted_deck=["hill_witch", "forest_witch", "peak_druid"])
    assert r.enchanted_deck_roles == (0, 2, 8)          # role order, not listing order
    f = tmp_path / "deck.json"
    f.write_text(json.dumps(r.to_dict()))
    assert load_rules(f).to_dict() == r.to_dict()


@pytest.mark.parametrize("deck,match", [
    (["forest_witch", "dragon", "hill_witch"], r"enchanted_deck\[1\]: unknown role 'dragon'"),
    (["forest_witch", "hill_witch", "forest_witch"],
     r"enchanted_deck\[2\]: role 'forest_witch' is listed twice"),
    (["forest_witch", "hill_witch"], r"enchanted_deck: 2 card\(s\) cannot supply the 3 enchanted"),
    ("forest_witch", r"enchanted_deck: must be a list"),
])
def test_bad_enchanted_deck(tmp_path, deck, match):
    _bad(tmp_path, lambda d: d.update(enchanted_deck=deck), match)


def test_small_enchanted_deck_is_fine_when_fewer_roles_are_revealed(rules):
    # with 3 players at least, a round reveals 2 enchanted roles
    r = rules.replace(players={"min": 3, "max": 5},
                      enchanted_deck=["herb_gatherer", "weather_fairy"])
    assert r.enchanted_deck_roles == (4, 9)


def test_missing_file_and_bad_suffix(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_rules(tmp_path / "nope.json")
    (tmp_path / "r.yaml").write_text("x: 1")
    with pytest.raises(ValueError, match="use a .json or .toml"):
        load_rules(tmp_path / "r.yaml")


def test_invalid_json(tmp_path):
    (tmp_path / "r.json").write_text("{")
    with pytest.raises(ValueError, match="not a valid JSON"):
        load_rules(tmp_path / "r.json")
