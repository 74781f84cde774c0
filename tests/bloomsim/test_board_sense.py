"""Boards that load but cannot be played are refused, naming the area (and the Lapin town's
dawn that could never come)."""
import copy
import json
from pathlib import Path

import pytest

import bloomsim
import rapinsim
from bloomsim.rules import Rules

DEFAULT = json.loads((Path(bloomsim.__file__).parent / "data" / "rules.json").read_text())


def board_with(change) -> dict:
    doc = copy.deepcopy(DEFAULT)
    change(doc["board"])
    return doc


def without(*areas):
    def change(b):
        b["adjacent"] = [e for e in b["adjacent"] if not set(e) & set(areas)]
    return change


def edges_only_within(island):
    """Cut every edge between ``island`` and the rest of the board."""
    def change(b):
        b["adjacent"] = [e for e in b["adjacent"] if (e[0] in island) == (e[1] in island)]
    return change


@pytest.mark.parametrize("change, where, said", [
    (without("A13"), "board.adjacent", "land area 'A13' cannot be reached from a castle over "
                                       "land"),
    (lambda b: b.update(adjacent=[]), "board.cloud_spaces[0]",
     "cloud space 'A03' is next to no land or castle area, so no pawn could ever charm its "
     "cloud"),
    (without("A05"), "board.cloud_spaces[1]", "cloud space 'A05' is next to no land or castle"),
    (without("A00", "A56"), "board.adjacent", "land area 'A01' cannot be reached from a castle "
                                              "over land (nor can 35 more:"),
])
def test_an_unplayable_board_is_refused_naming_the_area(change, where, said):
    with pytest.raises(ValueError) as e:
        Rules.from_dict(board_with(change), "my.json")
    assert str(e.value).startswith(f"rules my.json: {where}: {said}")


def test_towers_on_an_unreachable_island_are_named():
    island = {"A05", "A06", "A15", "A16"}          # the north-east corner: towers T12, T19
    with pytest.raises(ValueError, match=r"board.adjacent: land area 'A05' cannot be reached "
                                         r"from a castle over land \(nor can 3 more: "
                                         r"\['A06', 'A15', 'A16'\]\); towers \['T12', 'T19'\] "
                                         r"stand only there"):
        Rules.from_dict(board_with(edges_only_within(island)), "my.json")


def test_the_default_board_and_a_reachable_variant_load():
    Rules.from_dict(board_with(lambda b: None), "x")
    kept = board_with(without("A13"))                 # give A13 one way in: from A12
    kept["board"]["adjacent"].append(["A12", "A13"])
    assert bloomsim.simulate(["random"] * 3, 5, 1, rules=Rules.from_dict(kept, "x")).height == 15


def test_a_lapin_dawn_that_cannot_come_is_refused():
    rules = rapinsim.load_rules()
    d = rules.districts
    with pytest.raises(ValueError, match=rf"rules field 'empty_districts_for_dawn': {d + 1} "
                                         rf"empty districts can never happen in a town of {d}"):
        rules.replace(empty_districts_for_dawn=d + 1)
    assert rules.replace(empty_districts_for_dawn=d).empty_districts_for_dawn == d
