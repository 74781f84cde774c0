"""Names as the seeds give them wherever a person reads (``simcore.games.display_names``):
every thing's id has one, tables and the command line show them, data frames keep ids."""
import polars as pl
import pytest

from analyses import display
from simcore import games
from simcore.summary import simulate_summary


def _ids(name):
    rules = games.get(name).module().load_rules()
    if name == "bloomsim":
        return set(rules.role_ids) | set(rules.event_ids)
    return set(rules.characters) | set(rules.items) | set(rules.traps)


@pytest.mark.parametrize("name", ["bloomsim", "rapinsim"])
def test_every_thing_has_a_display_name_and_every_name_a_thing(name):
    names = games.display_names(games.get(name))
    ids = _ids(name) | ({"chest"} if name == "rapinsim" else set())
    assert set(names) == ids
    assert all(n and n != i for i, n in names.items())


def test_the_seeds_names_with_the_other_language_beside_them():
    bloom, rapin = (games.get(g) for g in ("bloomsim", "rapinsim"))
    # seed 000: 「「増やす？減らす？」のイベントが公開されている場合は例外です。」; seed 001:
    # “More or Less ? ”
    assert games.display_name(bloom, "more_or_less") == "More or Less? (増やす？減らす？)"
    assert games.display_name(bloom, "upper_hand") == "The Upper Hand"
    assert "天気の妖精" in games.display_name(bloom, "weather_fairy")
    # seed 002: 「「大泥棒イナバ」とその他のキャラクターで勝利条件が異なります。」
    assert games.display_name(rapin, "inaba") == "Inaba the great thief (大泥棒イナバ)"
    assert games.display_name(rapin, "no_such_id") == "no_such_id"


def test_tables_show_names_and_keep_other_values():
    t = pl.DataFrame({"kind": ["event", "event"], "thing": ["upper_hand", "tenth_event"],
                      "group": ["greedy", "all"], "games_with": [3, 4]})
    shown = display.named(t, "bloomsim")
    assert shown["thing"].to_list() == ["The Upper Hand", "the tenth card (its text is not known)"]
    assert shown["group"].to_list() == ["greedy", "all"] and shown["kind"].equals(t["kind"])
    assert t["thing"].to_list() == ["upper_hand", "tenth_event"]         # the data keep ids


def test_the_command_line_summary_names_the_characters():
    df = pl.DataFrame({"game": [0, 0], "seat": [0, 1], "policy": ["a", "b"],
                       "character": ["chimame", "cocoa"], "win": [1.0, 0.0],
                       "found": [0, 1], "turns": [10, 10]})
    text = simulate_summary(games.get("rapinsim"), df)
    assert "Chimame Detectives (チマメ探偵団)" in text and "Cocoa" in text
    assert "chimame " not in text


def test_figures_drop_the_japanese_their_fonts_lack():
    latin = games.display_names(games.get("bloomsim"), latin=True)
    assert latin["more_or_less"] == "More or Less?" and latin["forest_witch"] == "forest witch"
    assert latin["tenth_event"] == "the tenth card (its text is not known)"


def test_verdicts_name_their_thing_and_keep_other_words():
    """The skill and robustness tables' verdicts (``display.named``, column ``verdict``): the
    thing's id before the colon becomes its name; a policy's or a seat's verdict is left."""
    t = pl.DataFrame({"verdict": ["event more_or_less: win rate with - without (seat 0)",
                                  "character cocoa: win rate with - without (all seats)",
                                  "careful: win rate - 1/4", "seat 0: win rate - 1/4"]})
    b = display.named(t, "bloomsim")["verdict"].to_list()
    assert b[0] == "event More or Less? (増やす？減らす？): win rate with - without (seat 0)"
    assert b[1:] == t["verdict"].to_list()[1:]
    r = display.named(t, "rapinsim")["verdict"].to_list()
    assert r[1] == "character Cocoa: win rate with - without (all seats)"
    assert r[0] == t["verdict"][0] and r[2:] == t["verdict"].to_list()[2:]
