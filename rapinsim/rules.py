"""Every rule parameter of the Lapin treasure hunt, validated, and its array form for the kernels.

The file format is the one of ``data/rules.json`` (nested as the published defaults); a user's
file may be JSON or TOML and needs only the keys it changes. ``Rules.replace(**kw)`` overrides
from Python with the flat field names below (``FIELDS``). Where each value comes from (seed,
reading, gap or invention) is data too: ``data/provenance.json``, printed by ``rapinsim rules``;
``docs/rapinsim-rules.md`` explains each one.
"""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from simcore.summary import check_nesting, read_rules_file

DATA = Path(__file__).parent / "data" / "rules.json"
RING10 = DATA.parent / "ring10.json"   # the specification's board: a ring of 10, bridge 3-8

# Components whose effects are code: the rules data sets how many of each there are.
ITEMS = ("lamp", "coffee", "disguise", "bicycle", "map", "whistle")
TRAPS = ("alarm", "pitfall", "prank")
CHARACTERS = ("lapin", "chimame", "aoyama", "inaba", "cocoa", "chiya")
LAMP, COFFEE, DISGUISE, BICYCLE, MAP, WHISTLE = range(6)
ALARM, PITFALL, PRANK = range(3)
LAPIN, CHIMAME, AOYAMA, INABA, COCOA, CHIYA = range(6)

# Tile kinds, and a house without a tile (both engines).
TREASURE, ITEM, TRAP = 0, 1, 2
EMPTY = -1
MAX_PLAYERS = 6
CHANCE = {"layout": "the tiles' places in the houses (setup)",
          "characters": "the characters dealt (setup, when character_selection is draw)",
          "start": "Rize's start district (the setup die roll)",
          "escort": "how far the found are escorted (a die roll each time)",
          "hands": "which tile a hand loses at random (being found, a prank, hypnotism)"}
"""The game's chance sources (``Game.chance``), each drawing from its own stream
(``simcore.rng``): source i from stream i, the seats from the streams after them."""
CH_LAYOUT, CH_CHARACTERS, CH_START, CH_ESCORT, CH_HANDS = (
    list(CHANCE).index(n) for n in ("layout", "characters", "start", "escort", "hands"))
N_CHANCE = len(CHANCE)
MAX_DISTRICTS = 40     # the largest town (the compiled engine lays its state out for it)
MAX_HOUSES = 120       # the most houses (tiles)
MAX_BROWN = 20         # the most brown (or white) rabbits a treasure tile shows
CHARACTER_SELECTIONS = ("choice", "draw")   # rules field ``character_selection``
DISGUISE_MODES = ("action", "reaction")     # rules field ``disguise``

FIELDS = {
    "players_min": "fewest players",
    "players_max": "most players",
    "actions_per_turn": "actions in a turn",
    "districts": "districts on the board",
    "houses_per_district": "houses (tiles) per district",
    "route": "Rize's patrol route, district numbers in order (a ring)",
    "extra_edges": "roads/bridges players may step along besides the ring",
    "rize_start": "Rize's start district for each face of the die",
    "die_sides": "sides of the die",
    "treasures": "treasure tiles: (brown rabbits, white rabbits, count)",
    "items": "item tiles by item",
    "traps": "trap tiles by trap",
    "inaba_replaces_brown": "brown value of the treasure the chest replaces with Inaba",
    "white_pair_value": "brown rabbits a pair of white-rabbit tiles counts as",
    "empty_districts_for_dawn": "empty districts that bring the dawn marker",
    "time_markers_permanent": "a refilled district keeps its time marker",
    "coffee_ends_turn": "the coffee ends the turn like a search",
    "max_player_turns": "safety cap on player turns (stalled games)",
    "characters": "the roster of characters players choose (or draw) from",
    "character_selection": "'choice': players choose their characters in seat order "
                           "(the seed); 'draw': dealt at random (for measuring "
                           "characters)",
    "inaba_can_win_on_count": "Inaba may also win on treasure count",
    "step_into_rize_next": "a player may step into the district Rize enters next",
    "rize_finds": "Rize finds the players in a district he enters (false: nobody is "
                  "found, a what-if switch)",
    "bicycle_steps": "steps the bicycle gives for one action",
    "cocoa_steps": "steps Cocoa's skill gives for one action",
    "disguise": "'action': using the disguise costs an action on your turn and hides you "
                "until your next turn (the seed's turn); 'reaction': free when found",
    "whistle_steps": "the whistle moves Rize this many districts at once (negative: back "
                     "against his route), he finds who is there; 0: he skips his next step",
    "chest_counts_for_others": "the chest counts as a treasure tile (0 rabbits) for anyone "
                               "but Inaba",
    "found_ends_turn": "being found on your own turn (alarm, whistle) ends the turn",
    "pitfall_skips": "turns a pitfall makes its player skip",
}
"""Every rules field and what it sets (the names ``Rules.replace`` takes)."""

# Where each field lives in a rules file (nested as the published defaults).
FILE_KEYS = {
    ("players", "min"): "players_min",
    ("players", "max"): "players_max",
    ("board", "districts"): "districts",
    ("board", "houses_per_district"): "houses_per_district",
    ("board", "route"): "route",
    ("board", "extra_edges"): "extra_edges",
    ("tiles", "treasure"): "treasures",
    ("tiles", "item"): "items",
    ("tiles", "trap"): "traps",
    ("inaba_tiles", "replace_treasure_brown"): "inaba_replaces_brown",
}
_NESTED = {k[0] for k in FILE_KEYS}


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


@dataclass(frozen=True)
class Rules:
    """All rule parameters; see ``FIELDS`` and docs/rapinsim-rules.md. Validated on creation."""

    players_min: int = 2
    players_max: int = 6
    actions_per_turn: int = 3
    districts: int = 16
    houses_per_district: int = 3
    route: tuple = tuple(range(1, 17))
    extra_edges: tuple = ((1, 8), (2, 7), (3, 6), (5, 12), (6, 11), (7, 10), (9, 16), (10, 15),
                          (11, 14))
    rize_start: tuple = (2, 2, 7, 7)
    die_sides: int = 4
    treasures: tuple = ((1, 0, 8), (2, 0, 6), (3, 0, 6), (0, 4, 4))
    items: dict = field(default_factory=lambda: {"lamp": 3, "coffee": 3, "disguise": 2,
                                                 "bicycle": 2, "map": 2, "whistle": 1})
    traps: dict = field(default_factory=lambda: {"alarm": 3, "pitfall": 5, "prank": 3})
    inaba_replaces_brown: int = 1
    white_pair_value: int = 4
    empty_districts_for_dawn: int = 6
    time_markers_permanent: bool = True
    coffee_ends_turn: bool = True
    max_player_turns: int = 400
    characters: tuple = CHARACTERS
    inaba_can_win_on_count: bool = False
    step_into_rize_next: bool = True
    rize_finds: bool = True
    bicycle_steps: int = 3
    cocoa_steps: int = 3
    character_selection: str = "choice"
    disguise: str = "action"
    whistle_steps: int = -1
    chest_counts_for_others: bool = True
    found_ends_turn: bool = True
    pitfall_skips: int = 1
    source: str = field(default="<rules>", compare=False)

    def __post_init__(self):
        for name in FIELDS:
            check_nesting(getattr(self, name), f"{self.source}: rules field {name!r}")
        norm = _normalise(self)
        for k, v in norm.items():
            object.__setattr__(self, k, v)
        _validate(self)

    def replace(self, **kw) -> Rules:
        """A copy with some fields changed (flat field names, see ``FIELDS``)."""
        bad = sorted(set(kw) - set(FIELDS))
        if bad:
            raise ValueError(f"{self.source}: unknown rules field(s) {bad}; "
                             f"fields are {sorted(FIELDS)}")
        return dataclasses.replace(self, source=f"{self.source} (with overrides)", **kw)

    @property
    def n_tiles(self) -> int:
        return self.districts * self.houses_per_district

    def arrays(self) -> RuleArrays:
        """The rules as a NamedTuple of numpy arrays and ints, built once for the kernels."""
        return _arrays(self)

    def tile_set(self, with_inaba: bool) -> list[tuple[int, int, int, int, int]]:
        """The house tiles as (kind, sub, brown, white tile 0/1, chest) in order: treasures,
        items, traps. With Inaba one ``inaba_replaces_brown`` treasure becomes the chest."""
        tiles = []
        chest_done = not with_inaba
        for brown, white, count in self.treasures:
            for _ in range(count):
                if not chest_done and white == 0 and brown == self.inaba_replaces_brown:
                    tiles.append((TREASURE, -1, 0, 0, 1))
                    chest_done = True
                else:
                    tiles.append((TREASURE, -1, brown, int(white > 0), 0))
        for i, name in enumerate(ITEMS):
            tiles += [(ITEM, i, 0, 0, 0)] * self.items.get(name, 0)
        for i, name in enumerate(TRAPS):
            tiles += [(TRAP, i, 0, 0, 0)] * self.traps.get(name, 0)
        return tiles


class RuleArrays(NamedTuple):
    """Rules for the kernels: districts 0-based, tiles indexed by physical tile number."""

    n_districts: int
    n_houses: int             # houses per district
    actions: int
    die_sides: int
    dawn_empties: int
    max_turns: int
    white_pair: int
    permanent_markers: bool
    coffee_ends_turn: bool
    inaba_count_win: bool
    step_into_rize_next: bool
    rize_finds: bool
    bicycle_steps: int
    cocoa_steps: int
    choose_characters: bool   # character_selection == "choice"
    disguise_action: bool     # disguise == "action"
    whistle_steps: int
    chest_for_others: bool
    found_ends_turn: bool
    pitfall_skips: int
    route: np.ndarray         # [D] int8: districts in patrol order
    route_pos: np.ndarray     # [D] int8: index of each district in the route
    adj: np.ndarray           # [D, D] bool: players may step between the two
    rize_start: np.ndarray    # [die_sides] int8: start district per die face - 1
    tile_kind: np.ndarray     # [2, N] int8: tile set without / with Inaba
    tile_sub: np.ndarray      # [2, N] int8: item or trap id, -1 for treasures
    tile_brown: np.ndarray    # [2, N] int8
    tile_white: np.ndarray    # [2, N] int8: 1 for a white-rabbit tile
    tile_chest: np.ndarray    # [2, N] int8
    roster: np.ndarray        # [C] int8: character ids players choose (or draw) from


def _arrays(r: Rules) -> RuleArrays:
    d = r.districts
    route = np.array([x - 1 for x in r.route], np.int8)
    pos = np.zeros(d, np.int8)
    pos[route] = np.arange(d, dtype=np.int8)
    adj = np.zeros((d, d), np.bool_)
    for i in range(d):
        a, b = route[i], route[(i + 1) % d]
        adj[a, b] = adj[b, a] = True
    for a, b in r.extra_edges:
        adj[a - 1, b - 1] = adj[b - 1, a - 1] = True
    np.fill_diagonal(adj, False)
    sets = [r.tile_set(False), r.tile_set(True)]
    cols = [np.array([[t[k] for t in s] for s in sets], np.int8) for k in range(5)]
    return RuleArrays(
        d, r.houses_per_district, r.actions_per_turn, r.die_sides, r.empty_districts_for_dawn,
        r.max_player_turns, r.white_pair_value, r.time_markers_permanent, r.coffee_ends_turn,
        r.inaba_can_win_on_count, r.step_into_rize_next, r.rize_finds, r.bicycle_steps,
        r.cocoa_steps, r.character_selection == "choice", r.disguise == "action",
        r.whistle_steps, r.chest_counts_for_others, r.found_ends_turn, r.pitfall_skips,
        route, pos, adj, np.array([x - 1 for x in r.rize_start], np.int8), *cols,
        np.array([CHARACTERS.index(c) for c in r.characters], np.int8))


# ---------------------------------------------------------------- validation

def _err(r: Rules, name: str, msg: str) -> ValueError:
    return ValueError(f"{r.source}: rules field {name!r}: {msg}")


def _normalise(r: Rules) -> dict[str, Any]:
    """Lists from files become tuples; mappings are copied. Shapes are checked here."""
    out = {}
    for name in ("route", "characters"):
        v = getattr(r, name)
        if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple)):
            raise _err(r, name, f"must be a list, got {v!r}")
        out[name] = tuple(v)
    for name, width in (("extra_edges", 2), ("treasures", 3)):
        v = getattr(r, name)
        if not isinstance(v, (list, tuple)) or not all(
                isinstance(e, (list, tuple)) and len(e) == width for e in v):
            raise _err(r, name, f"must be a list of {width}-element lists, got {v!r}")
        out[name] = tuple(tuple(e) for e in v)
    for name in ("items", "traps"):
        v = getattr(r, name)
        if not isinstance(v, dict):
            raise _err(r, name, f"must be a mapping of name to count, got {v!r}")
        out[name] = dict(v)
    rs = r.rize_start
    if isinstance(rs, dict):
        rs = _faces_from_keys(r, rs)
    if not isinstance(rs, (list, tuple)):
        raise _err(r, "rize_start", f"must be a list (district per die face), got {rs!r}")
    out["rize_start"] = tuple(rs)
    return out


def _faces_from_keys(r: Rules, m: dict) -> list:
    """The published form ``{"d4_1_2": 2, "d4_3_4": 7}``: faces 1, 2 -> district 2, ..."""
    if not _is_int(r.die_sides):      # the keys are read by it, before _validate checks it
        raise _err(r, "die_sides", f"must be an integer, got {r.die_sides!r}")
    faces = {}
    for k, v in m.items():
        mt = re.fullmatch(r"d(\d+)((?:_\d+)+)", str(k))
        if not mt or int(mt.group(1)) != r.die_sides:
            raise _err(r, "rize_start", f"key {k!r} must look like 'd{r.die_sides}_1_2'")
        for f in mt.group(2).strip("_").split("_"):
            if int(f) in faces:
                raise _err(r, "rize_start", f"die face {f} given twice")
            faces[int(f)] = v
    # compared within the faces given, never a range of die_sides: it is not checked yet, and
    # a die of millions of sides must not cost their memory before it is refused
    if len(faces) != r.die_sides or sorted(faces) != list(range(1, len(faces) + 1)):
        raise _err(r, "rize_start", f"must name every die face 1..{r.die_sides} once, "
                                    f"got faces {sorted(faces)}")
    return [faces[f] for f in range(1, len(faces) + 1)]


def check_board_sense(r: Rules) -> None:
    """A town that can be played, once the route, edges and Rize's start are known to name
    districts: a dawn that can come (it needs more empty districts than the town has
    otherwise). Every district is reachable and Rize starts on the board by construction: the
    route is a ring through every district (``route`` must be a permutation of them) and each
    die face names a district."""
    if r.empty_districts_for_dawn > r.districts:
        raise _err(r, "empty_districts_for_dawn", f"{r.empty_districts_for_dawn} empty "
                   f"districts can never happen in a town of {r.districts}: the dawn would "
                   f"never come")


def _validate(r: Rules) -> None:
    ints = {"players_min": (2, MAX_PLAYERS), "players_max": (2, MAX_PLAYERS),
            "actions_per_turn": (1, 10), "districts": (3, MAX_DISTRICTS),
            "houses_per_district": (1, 6),
            "die_sides": (1, 20), "inaba_replaces_brown": (0, 20), "white_pair_value": (0, 100),
            "empty_districts_for_dawn": (1, MAX_DISTRICTS), "max_player_turns": (1, 30000),
            "bicycle_steps": (1, 10), "cocoa_steps": (1, 10), "whistle_steps": (-3, 3),
            "pitfall_skips": (0, 5)}
    for name, (lo, hi) in ints.items():
        v = getattr(r, name)
        if not _is_int(v):
            raise _err(r, name, f"must be an integer, got {v!r}")
        if not lo <= v <= hi:
            raise _err(r, name, f"must be from {lo} to {hi}, got {v}")
    for name in ("time_markers_permanent", "coffee_ends_turn", "inaba_can_win_on_count",
                 "step_into_rize_next", "rize_finds", "chest_counts_for_others",
                 "found_ends_turn"):
        if not isinstance(getattr(r, name), bool):
            raise _err(r, name, f"must be true or false, got {getattr(r, name)!r}")
    for name, allowed in (("character_selection", CHARACTER_SELECTIONS),
                          ("disguise", DISGUISE_MODES)):
        if getattr(r, name) not in allowed:
            raise _err(r, name, f"must be one of {list(allowed)}, got {getattr(r, name)!r}")
    if r.players_min > r.players_max:
        raise _err(r, "players_min", f"{r.players_min} exceeds players_max {r.players_max}")
    d = r.districts
    if r.n_tiles > MAX_HOUSES:
        raise _err(r, "districts", f"{d} districts x {r.houses_per_district} houses exceeds "
                                   f"{MAX_HOUSES} houses")
    districts = set(range(1, d + 1))
    if not all(_is_int(x) for x in r.route) or sorted(r.route) != sorted(districts):
        raise _err(r, "route", f"must be a permutation of the districts 1..{d}, got "
                               f"{list(r.route)}")
    for e in r.extra_edges:
        if not all(_is_int(x) and x in districts for x in e) or e[0] == e[1]:
            raise _err(r, "extra_edges", f"edge {list(e)} must join two different districts "
                                         f"of 1..{d}")
    if len(r.rize_start) != r.die_sides or not all(_is_int(x) and x in districts
                                                     for x in r.rize_start):
        raise _err(r, "rize_start", f"must give a district of 1..{d} for each of the "
                                    f"{r.die_sides} die faces, got {list(r.rize_start)}")
    check_board_sense(r)
    for t in r.treasures:
        if not all(_is_int(x) and x >= 0 for x in t) or max(t[:2]) > MAX_BROWN:
            raise _err(r, "treasures", f"entry {list(t)} must be (brown, white, count) of "
                                       f"small non-negative integers")
        if t[0] > 0 and t[1] > 0:
            raise _err(r, "treasures", f"entry {list(t)}: a tile shows brown or white "
                                       f"rabbits, not both")
    for name, known in (("items", ITEMS), ("traps", TRAPS)):
        for k, v in getattr(r, name).items():
            if k not in known:
                raise _err(r, name, f"unknown {name[:-1]} {k!r}; known: {list(known)}")
            if not _is_int(v) or v < 0:
                raise _err(r, name, f"count of {k!r} must be a non-negative integer, got {v!r}")
    for c in r.characters:
        if c not in CHARACTERS:
            raise _err(r, "characters", f"unknown character {c!r}; known: {list(CHARACTERS)}")
    if len(set(r.characters)) != len(r.characters) or len(r.characters) < 2:
        raise _err(r, "characters", f"must list at least 2 distinct characters, got "
                                    f"{list(r.characters)}")
    n = sum(t[2] for t in r.treasures) + sum(r.items.values()) + sum(r.traps.values())
    if n != r.n_tiles:
        raise _err(r, "treasures", f"the tiles ({n}: treasures + items + traps) must match "
                                   f"the {r.n_tiles} houses ({d} districts x "
                                   f"{r.houses_per_district})")
    if "inaba" in r.characters and not any(t[0] == r.inaba_replaces_brown and t[1] == 0
                                           and t[2] > 0 for t in r.treasures):
        raise _err(r, "inaba_replaces_brown", f"no brown-{r.inaba_replaces_brown} treasure "
                                              f"for the chest to replace")


# ---------------------------------------------------------------- files

def load_rules(path: str | Path | None = None) -> Rules:
    """Rules from a JSON or TOML file (keys it lacks keep the defaults); None: the defaults."""
    if path is None:
        return _from_mapping(json.loads(DATA.read_text()), str(DATA))
    data = read_rules_file(path)
    return _from_mapping(data, str(path))


def _from_mapping(data: dict, source: str) -> Rules:
    kw: dict[str, Any] = {}
    for key, val in data.items():
        if key == "about":
            continue
        if key in _NESTED:
            if not isinstance(val, dict):
                raise ValueError(f"{source}: rules key {key!r} must be a mapping")
            for sub, v in val.items():
                if key == "inaba_tiles" and sub == "with":
                    if v != "chest":
                        raise ValueError(f"{source}: rules key 'inaba_tiles.with' must be "
                                         f"'chest', got {v!r}")
                    continue
                if (key, sub) not in FILE_KEYS:
                    raise ValueError(f"{source}: unknown rules key {f'{key}.{sub}'!r}")
                kw[FILE_KEYS[key, sub]] = v
        elif key in FIELDS and key not in FILE_KEYS.values():
            kw[key] = val
        else:
            raise ValueError(f"{source}: unknown rules key {key!r}")
    if "treasures" in kw:
        kw["treasures"] = _treasures_from_file(kw["treasures"], source)
    if isinstance(kw.get("rize_start"), dict) and "die_sides" not in kw:
        kw.setdefault("die_sides", 4)
    return Rules(source=source, **kw)


def _treasures_from_file(v, source):
    out = []
    if not isinstance(v, list):
        raise ValueError(f"{source}: rules field 'treasures': must be a list")
    for e in v:
        if not isinstance(e, dict) or set(e) - {"brown", "white", "count"} or "count" not in e:
            raise ValueError(f"{source}: rules field 'treasures': entry {e!r} must be "
                             f"{{'brown' or 'white': n, 'count': k}}")
        out.append((e.get("brown", 0), e.get("white", 0), e["count"]))
    return out


def rules_or_default(rules: Rules | str | Path | None) -> Rules:
    if rules is None:
        return load_rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, (str, Path)):
        return load_rules(rules)
    raise ValueError(f"rules must be a Rules, a path to a rules file or None, got {rules!r}")
