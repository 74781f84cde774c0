"""Every rules value and reading carries one provenance tag (``simcore.provenance``), and a
malformed provenance file is refused in one line that names the file and the entry."""
import json

import pytest

from simcore import games, provenance

GAMES = [g for g in games.names() if games.get(g).provenance]


def test_the_shipped_games_have_provenance():
    assert {"bloomsim", "rapinsim"} <= set(GAMES)


@pytest.mark.parametrize("name", GAMES)
def test_every_rules_value_has_exactly_known_entries(name):
    game = games.get(name)
    prov = provenance.load(game)              # checks every entry's tag, quote, source
    values = game.rules_data(game.module().load_rules())
    assert provenance.uncovered(prov, values) == []


@pytest.mark.parametrize("name", GAMES)
def test_rules_prints_every_value_with_its_tag(name):
    game = games.get(name)
    text = game.rules_text(game.module().load_rules())
    for key, e in provenance.load(game).items():
        assert f"{key} [{e['tag']}]" in text or f"[{e['tag']}] {e['note']}" in text


def test_the_issues_inventions_and_readings_are_tagged_so():
    bloom, rapin = (provenance.load(games.get(g)) for g in ("bloomsim", "rapinsim"))
    assert bloom["events.empty_handed"]["tag"] == "invention"
    assert bloom["events.perilous_places.hill_mountain"]["tag"] == "gap"
    assert bloom["enchanted_reshuffle"]["tag"] == bloom["empty_handed"]["tag"] == "seed"
    assert "10枚全て" in bloom["enchanted_reshuffle"]["quote"]
    assert "支払う必要がなくなります" in bloom["empty_handed"]["quote"]
    assert bloom["perilous_unnamed_terrains"]["tag"] == "gap"
    for key in ("districts", "route", "items.whistle", "characters", "characters.lapin",
                "characters.cocoa", "characters.chiya", "cocoa_steps", "whistle_steps"):
        assert rapin[key]["tag"] == "invention", key
    assert rapin["characters.chimame"]["tag"] == rapin["characters.inaba"]["tag"] == "seed"


@pytest.mark.parametrize("entry, message", [
    ({"note": "x"}, "tag must be one of"),
    ({"tag": "rumour", "note": "x"}, "tag must be one of"),
    ({"tag": "seed"}, "needs a 'note'"),
    ({"tag": "seed", "note": "x", "seed": "000", "gloss": "g"}, "needs its 'quote'"),
    ({"tag": "reading", "note": "x", "quote": "「q」", "gloss": "g"}, "needs its 'seed'"),
    ({"tag": "seed", "note": "x", "seed": "009", "quote": "「q」", "gloss": "g"}, "seed must be"),
    ({"tag": "gap", "note": "x"}, "needs a 'source'"),
    ({"tag": "invention", "note": "x", "source": "hearsay"}, "needs a 'source'"),
    ({"tag": "gap", "note": "x", "source": "design", "why": "y"}, "unknown field"),
    ("gap", "must be an object"),
])
def test_a_malformed_entry_is_refused_in_one_line(tmp_path, entry, message):
    path = tmp_path / "provenance.json"
    path.write_text(json.dumps({"rounds": entry}))
    with pytest.raises(ValueError, match=message) as err:
        provenance.load(games.get("bloomsim"), path)
    assert "\n" not in str(err.value) and str(path) in str(err.value) and "'rounds'" in \
        str(err.value)


@pytest.mark.parametrize("text, message", [("{", "not JSON"), ("[]", "must be an object")])
def test_a_malformed_file_is_refused_in_one_line(tmp_path, text, message):
    path = tmp_path / "provenance.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        provenance.load(games.get("bloomsim"), path)
    assert "\n" not in str(err.value)


def test_a_missing_or_unknown_key_is_found():
    prov = {"rounds": {"tag": "gap"}, "code.x": {}, "roundz.y": {}}
    assert provenance.uncovered(prov, ["rounds", "players", "about"]) == ["players", "roundz"]
