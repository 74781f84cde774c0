"""Every rule parameter of Broom Service, validated once, then turned into arrays for the kernels.

``Rules`` is a frozen dataclass whose fields are the top-level keys of the rules data
(``data/rules.json``). A user's JSON or TOML file replaces any top-level key it names (the rest
keep their defaults); ``rules.replace(key=value)`` does the same from Python. Every check raises
a ``ValueError`` that names the field and the file, so nothing invalid reaches compiled code.
``rules.tables()`` converts once into ``Tables``, the NamedTuple of numpy arrays the engine reads.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np

from simcore.summary import check_nesting, read_rules_file

DEFAULT_PATH = Path(__file__).with_name("data") / "rules.json"

COLOURS = ("green", "purple", "orange")
RESOURCES = COLOURS + ("wand",)          # resource kinds, in this order everywhere
CASTLE, WATER = "castle", "water"        # terrain codes 0 and 1; land terrains follow
ROLE_KINDS = ("witch", "gatherer", "druid", "weather_fairy")
EVENT_KINDS = {                          # kind -> (timing, required parameters)
    "more_or_less": ("selection", ("hand_size_choices", "points_by_hand_size")),
    "black_market": ("cowardly_alternative", ("gain",)),
    "black_distillery": ("cowardly_alternative", ("gain",)),
    # the option ``empty_handed`` decides what the card does, so either timing may be written
    "empty_handed": (("turns", "round_end"), ("max_potions", "points")),
    "perilous_places": ("round_end", ("points_per_pawn",)),
    "protected_places": ("round_end", ("points_per_pawn",)),
    "upper_hand": ("round_end", ("winner_points", "winner_pays_bid")),
    "the_works": ("round_end", ("set_points", "max_sets")),
    "flock_together": ("round_end", ("points",)),
    "tenth_event": ("turns", ()),
}
RESHUFFLE_OPTIONS = ("all_roles", "set_aside_revealed")
START_PLAYER_OPTIONS = ("last_brave", "lead_holder")
PERILOUS_OPTIONS = ("lose", "gain_or_lose")
EMPTY_HANDED_OPTIONS = ("pay_nothing", "few_potions_score", "hold_nothing")
UNNAMED_TERRAIN_OPTIONS = ("as_listed", "zero")
PAWN_START_OPTIONS = ("one_per_castle", "choose")
# the terrains seed 001's Perilous Places example names (「エミリーは森と大草原にいます」)
PERILOUS_SEED_TERRAINS = ("forest", "meadow")
MAX_PLAYERS = 6
CHANCE = {"tiles": "the cloud tiles' places on the board (setup)",
          "events": "the event deck's order (setup)",
          "enchanted": "the enchanted deck's order (setup, and each reshuffle)"}
"""The game's chance sources (``Game.chance``), each drawing from its own stream
(``simcore.rng``): source i from stream i, the seats from the streams after them."""
CH_TILES, CH_EVENTS, CH_ENCHANTED = (list(CHANCE).index(n) for n in ("tiles", "events",
                                                                      "enchanted"))
N_CHANCE = len(CHANCE)
MAX_ROUNDS = 8          # enchanted_<role> columns are uint8 round bitmasks (and led_rounds
#                         travels in the int16 seat outputs)
MAX_ROLES = 16
MAX_CLOUD_TILES = 1000  # each game holds and shuffles the whole deck: it bounds a game's cost
MAX_TERRAINS = 31      # castle, water and the land terrains: a role's are an int32 bitmask

OPTION_DEFAULTS = {"enchanted_reshuffle": "all_roles", "druid_needs_terrain": True,
                   "enchanted_deck": None, "next_start_player": "last_brave",
                   "perilous_places": "lose", "perilous_unnamed_terrains": "as_listed",
                   "empty_handed": "pay_nothing", "pawn_start": "one_per_castle"}


def _freeze(x):
    if isinstance(x, dict):
        return MappingProxyType({k: _freeze(v) for k, v in x.items()})
    if isinstance(x, list | tuple):
        return tuple(_freeze(v) for v in x)
    return x


def _thaw(x):
    if isinstance(x, MappingProxyType | dict):
        return {k: _thaw(v) for k, v in x.items()}
    if isinstance(x, tuple | list):
        return [_thaw(v) for v in x]
    return x


class _Check:
    """Raises ValueErrors that name the field and the source file."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, msg: str):
        raise ValueError(f"rules {self.source}: {where}: {msg}")

    def int(self, where, v, lo=None, hi=None):
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(where, f"must be an integer, got {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.fail(where, f"must be between {lo} and {hi}, got {v}")
        return v

    def dict(self, where, v, required=(), optional=()):
        if not isinstance(v, dict | MappingProxyType):
            self.fail(where, f"must be a table/object, got {type(v).__name__}")
        unknown = sorted(set(v) - set(required) - set(optional))
        if unknown:
            allowed = sorted(set(required) | set(optional))
            self.fail(where, f"unknown key(s) {unknown}; allowed: {allowed}")
        missing = [k for k in required if k not in v]
        if missing:
            self.fail(where, f"missing key(s) {missing}")
        return v

    def list(self, where, v, min_len=0):
        if not isinstance(v, list | tuple):
            self.fail(where, f"must be a list, got {type(v).__name__}")
        if len(v) < min_len:
            self.fail(where, f"must have at least {min_len} entries, got {len(v)}")
        return v

    def str(self, where, v, choices=None):
        if not isinstance(v, str):
            self.fail(where, f"must be a string, got {v!r}")
        if choices is not None and v not in choices:
            self.fail(where, f"must be one of {list(choices)}, got {v!r}")
        return v

    def gains(self, where, v, keys=RESOURCES):
        self.dict(where, v, optional=keys)
        for k, n in v.items():
            self.int(f"{where}.{k}", n, 0, 100)
        return v


@dataclass(frozen=True)
class Rules:
    """All rule parameters; see ``docs/bloomsim-rules.md`` for their meaning."""

    players: Any
    rounds: int
    start_score: int
    score_floor: Any
    hand_size: int
    start_potions: Any
    start_wands: Any
    enchanted_total: int
    enchanted_penalty: int
    brave_bonus: Any
    roles: Any
    events: Any
    events_used: int
    lightning_points: Any
    lightning_points_beyond_table: int
    resource_sets: Any
    cloud_tiles: Any
    board: Any
    enchanted_reshuffle: str = OPTION_DEFAULTS["enchanted_reshuffle"]
    druid_needs_terrain: bool = OPTION_DEFAULTS["druid_needs_terrain"]
    enchanted_deck: Any = OPTION_DEFAULTS["enchanted_deck"]   # role ids; None: every role
    next_start_player: str = OPTION_DEFAULTS["next_start_player"]
    perilous_places: str = OPTION_DEFAULTS["perilous_places"]
    perilous_unnamed_terrains: str = OPTION_DEFAULTS["perilous_unnamed_terrains"]
    empty_handed: str = OPTION_DEFAULTS["empty_handed"]
    pawn_start: str = OPTION_DEFAULTS["pawn_start"]
    about: str = ""
    source: str = "(built in)"

    # ------------------------------------------------------------ construction

    @classmethod
    def from_dict(cls, data: dict, source: str = "(dict)") -> "Rules":
        """Validate ``data`` (all keys present) and build the rules."""
        check_nesting(data, f"rules {source}")
        c = _Check(source)
        names = [f.name for f in fields(cls) if f.name != "source"]
        optional = ("about",) + tuple(OPTION_DEFAULTS)
        c.dict("top level", data, required=[n for n in names if n not in optional],
               optional=optional)
        values = {k: _freeze(_thaw(v)) for k, v in data.items()}
        rules = cls(**values, source=source)
        rules._validate(c)
        rules.__dict__["_tables"] = None
        return rules

    def to_dict(self) -> dict:
        """The rules as plain JSON-ready data (round-trips through ``from_dict``)."""
        return {f.name: _thaw(getattr(self, f.name)) for f in fields(self) if f.name != "source"}

    def replace(self, **changes) -> "Rules":
        """A copy with some top-level values replaced, validated again."""
        return Rules.from_dict({**self.to_dict(), **changes}, source=f"{self.source} + replace()")

    # ------------------------------------------------------------ derived names

    @property
    def land_terrains(self) -> tuple[str, ...]:
        """Land terrains in order of first appearance on the board (codes 2, 3, ...)."""
        seen = []
        for a in self.board["areas"]:
            if a["terrain"] not in (CASTLE, WATER) and a["terrain"] not in seen:
                seen.append(a["terrain"])
        return tuple(seen)

    @property
    def terrains(self) -> tuple[str, ...]:
        return (CASTLE, WATER) + self.land_terrains

    @property
    def role_ids(self) -> tuple[str, ...]:
        return tuple(r["id"] for r in self.roles)

    @property
    def event_ids(self) -> tuple[str, ...]:
        return tuple(e["id"] for e in self.events)

    @property
    def area_ids(self) -> tuple[str, ...]:
        return tuple(a["id"] for a in self.board["areas"])

    @property
    def tower_ids(self) -> tuple[str, ...]:
        return tuple(t["id"] for t in self.board["towers"])

    @property
    def cloud_space_ids(self) -> tuple[str, ...]:
        """A name for each cloud space: its area's id, then ``_2``, ``_3``, ... for the further
        spaces of an area that holds several clouds."""
        out, seen = [], {}
        for a in self.board["cloud_spaces"]:
            seen[a] = seen.get(a, 0) + 1
            out.append(a if seen[a] == 1 else f"{a}_{seen[a]}")
        return tuple(out)

    @property
    def enchanted_deck_roles(self) -> tuple[int, ...]:
        """Indices of the roles in the enchanted deck, in role order (so the listing order of
        ``enchanted_deck`` does not change the games; every role: the default games)."""
        if self.enchanted_deck is None:
            return tuple(range(len(self.roles)))
        return tuple(i for i, r in enumerate(self.role_ids) if r in self.enchanted_deck)

    def event_kind(self, i: int) -> str:
        e = self.events[i]
        return e.get("kind", e["id"])

    def points_per_pawn(self, i: int) -> dict[str, int]:
        """Event i's points for a pawn by terrain, as played: with ``perilous_unnamed_terrains``
        ``"zero"``, Perilous Places scores 0 on the terrains no seed names for it (the seeds'
        silence read as 0)."""
        pts = dict(self.events[i]["points_per_pawn"])
        if self.event_kind(i) == "perilous_places" and self.perilous_unnamed_terrains == "zero":
            pts = {t: v for t, v in pts.items() if t in PERILOUS_SEED_TERRAINS}
        return pts

    def free_payments(self, i: int) -> bool:
        """Event i makes the round's deliveries and charms cost nothing (Empty Handed read as
        seed 000 says: 「リソースを支払う必要がなくなります」)."""
        return (self.event_kind(i) == "empty_handed"
                and self.empty_handed in ("pay_nothing", "hold_nothing"))

    def free_holding(self, i: int) -> bool:
        """Event i also lifts the need to hold what a delivery or charm costs (Empty Handed,
        option ``hold_nothing``: the seed's words read as no resources needed at all)."""
        return self.event_kind(i) == "empty_handed" and self.empty_handed == "hold_nothing"

    # ------------------------------------------------------------ validation

    def _validate(self, c: _Check) -> None:
        c.dict("players", self.players, required=("min", "max"))
        lo = c.int("players.min", self.players["min"], 2, MAX_PLAYERS)
        c.int("players.max", self.players["max"], lo, MAX_PLAYERS)
        c.int("rounds", self.rounds, 1, MAX_ROUNDS)
        c.int("start_score", self.start_score, -1000, 1000)
        if not (self.score_floor is None or self.score_floor == "none"):
            c.int("score_floor", self.score_floor, -1000, 1000)
        c.gains("start_potions", self.start_potions, COLOURS)
        c.dict("start_wands", self.start_wands, required=("first_player", "last_player", "others"))
        for k, v in self.start_wands.items():
            c.int(f"start_wands.{k}", v, 0, 100)
        c.int("enchanted_total", self.enchanted_total, 0, MAX_ROLES)
        c.int("enchanted_penalty", self.enchanted_penalty, 0, 1000)
        c.dict("brave_bonus", self.brave_bonus, required=("druid", "weather_fairy"))
        for k, v in self.brave_bonus.items():
            c.int(f"brave_bonus.{k}", v, -1000, 1000)
        c.str("enchanted_reshuffle", self.enchanted_reshuffle, RESHUFFLE_OPTIONS)
        c.str("next_start_player", self.next_start_player, START_PLAYER_OPTIONS)
        c.str("perilous_places", self.perilous_places, PERILOUS_OPTIONS)
        c.str("perilous_unnamed_terrains", self.perilous_unnamed_terrains,
              UNNAMED_TERRAIN_OPTIONS)
        c.str("empty_handed", self.empty_handed, EMPTY_HANDED_OPTIONS)
        c.str("pawn_start", self.pawn_start, PAWN_START_OPTIONS)
        if not isinstance(self.druid_needs_terrain, bool):
            c.fail("druid_needs_terrain",
                   f"must be true or false, got {self.druid_needs_terrain!r}")
        c.str("about", self.about)
        self._validate_board(c)
        self._validate_roles(c)
        self._validate_events(c)
        c.list("lightning_points", self.lightning_points, 1)
        for i, v in enumerate(self.lightning_points):
            c.int(f"lightning_points[{i}]", v, -1000, 1000)
        c.int("lightning_points_beyond_table", self.lightning_points_beyond_table, -1000, 1000)
        c.dict("resource_sets", self.resource_sets, required=("four_kinds", "three_kinds"))
        for k, v in self.resource_sets.items():
            c.int(f"resource_sets.{k}", v, 0, 1000)
        c.list("cloud_tiles", self.cloud_tiles, 1)
        n_tiles = 0
        for i, t in enumerate(self.cloud_tiles):
            c.dict(f"cloud_tiles[{i}]", t, required=("stars", "lightning", "count"))
            c.int(f"cloud_tiles[{i}].stars", t["stars"], 0, 100)
            c.int(f"cloud_tiles[{i}].lightning", t["lightning"], 0, 100)
            n_tiles += c.int(f"cloud_tiles[{i}].count", t["count"], 0, 1000)
        if n_tiles > MAX_CLOUD_TILES:
            c.fail("cloud_tiles", f"{n_tiles:,} tiles in all, more than {MAX_CLOUD_TILES:,} "
                   f"(every game holds and shuffles the whole deck); give fewer")
        if n_tiles < len(self.board["cloud_spaces"]):
            c.fail("cloud_tiles", f"{n_tiles} tiles cannot cover "
                   f"{len(self.board['cloud_spaces'])} cloud spaces")
        if self.enchanted_total - lo > len(self.roles):
            c.fail("enchanted_total", f"{self.enchanted_total} - {lo} players reveals more roles "
                   f"than the {len(self.roles)} that exist")
        self._validate_enchanted_deck(c, self.enchanted_total - lo)

    def _validate_enchanted_deck(self, c: _Check, reveal: int) -> None:
        """Known, distinct role ids, at least as many as one round reveals (the fewest players
        reveal the most), so a reveal never runs out of cards even after a reshuffle."""
        if self.enchanted_deck is None:
            return
        c.list("enchanted_deck", self.enchanted_deck)
        for i, r in enumerate(self.enchanted_deck):
            if c.str(f"enchanted_deck[{i}]", r) not in self.role_ids:
                c.fail(f"enchanted_deck[{i}]",
                       f"unknown role {r!r}; roles: {list(self.role_ids)}")
            if r in self.enchanted_deck[:i]:
                c.fail(f"enchanted_deck[{i}]", f"role {r!r} is listed twice")
        if len(self.enchanted_deck) < reveal:
            c.fail("enchanted_deck", f"{len(self.enchanted_deck)} card(s) cannot supply the "
                   f"{reveal} enchanted roles a round reveals with {self.players['min']} players "
                   f"(enchanted_total {self.enchanted_total} - players.min)")

    def _validate_board(self, c: _Check) -> None:
        b = c.dict("board", self.board,
                   required=("areas", "adjacent", "castles", "cloud_spaces", "towers"))
        ids = {}
        c.list("board.areas", b["areas"], 2)
        if len(b["areas"]) > 127:
            c.fail("board.areas", f"at most 127 areas, got {len(b['areas'])}")
        for i, a in enumerate(b["areas"]):
            c.dict(f"board.areas[{i}]", a, required=("id", "terrain"), optional=("x", "y"))
            c.str(f"board.areas[{i}].id", a["id"])
            c.str(f"board.areas[{i}].terrain", a["terrain"])
            if a["id"] in ids:
                c.fail(f"board.areas[{i}].id", f"duplicate area id {a['id']!r}")
            ids[a["id"]] = a["terrain"]
        if len(self.terrains) > MAX_TERRAINS:
            c.fail("board.areas", f"at most {MAX_TERRAINS - 2} land terrains, got "
                                  f"{len(self.land_terrains)}")

        def area(where, name):
            if not isinstance(name, str) or name not in ids:
                c.fail(where, f"unknown area {name!r}")
            return name

        c.list("board.adjacent", b["adjacent"])
        for i, pair in enumerate(b["adjacent"]):
            c.list(f"board.adjacent[{i}]", pair, 2)
            if len(pair) != 2:
                c.fail(f"board.adjacent[{i}]", f"must name two areas, got {list(pair)}")
            x, y = (area(f"board.adjacent[{i}]", n) for n in pair)
            if x == y:
                c.fail(f"board.adjacent[{i}]", f"area {x!r} cannot be adjacent to itself")
        c.list("board.castles", b["castles"], 2)
        if len(b["castles"]) != 2:
            c.fail("board.castles", f"must name exactly two castle areas, got {len(b['castles'])}")
        for i, n in enumerate(b["castles"]):
            if ids[area(f"board.castles[{i}]", n)] != CASTLE:
                c.fail(f"board.castles[{i}]", f"area {n!r} has terrain {ids[n]!r}, not 'castle'")
        # one entry per cloud space, naming its area: an area named k times holds k clouds
        c.list("board.cloud_spaces", b["cloud_spaces"])
        for i, n in enumerate(b["cloud_spaces"]):
            if ids[area(f"board.cloud_spaces[{i}]", n)] in (CASTLE, WATER):
                c.fail(f"board.cloud_spaces[{i}]",
                       f"a cloud space cannot be on {ids[n]} area {n!r}")
        c.list("board.towers", b["towers"], 1)
        seen = set()
        for i, t in enumerate(b["towers"]):
            w = f"board.towers[{i}]"
            c.dict(w, t, required=("id", "colour", "shape", "points", "wands", "areas"))
            if c.str(f"{w}.id", t["id"]) in seen:
                c.fail(f"{w}.id", f"duplicate tower id {t['id']!r}")
            seen.add(t["id"])
            c.str(f"{w}.colour", t["colour"], COLOURS)
            c.str(f"{w}.shape", t["shape"], ("round", "square"))
            c.int(f"{w}.points", t["points"], -1000, 1000)
            c.int(f"{w}.wands", t["wands"], 0, 100)
            c.list(f"{w}.areas", t["areas"], 1)
            for n in t["areas"]:
                if ids[area(f"{w}.areas", n)] == WATER:
                    c.fail(f"{w}.areas", f"tower {t['id']!r} touches water area {n!r}")
            if len(set(t["areas"])) != len(t["areas"]):
                c.fail(f"{w}.areas", "names an area twice")
        check_board_sense(ids, b["adjacent"], b["castles"], b["cloud_spaces"], b["towers"],
                          c.fail)

    def _validate_roles(self, c: _Check) -> None:
        c.list("roles", self.roles, 1)
        if len(self.roles) > MAX_ROLES:
            c.fail("roles", f"at most {MAX_ROLES} roles, got {len(self.roles)}")
        land = self.land_terrains
        seen = set()
        for i, r in enumerate(self.roles):
            w = f"roles[{i}]"
            c.dict(w, r, required=("id", "kind"),
                   optional=("terrain", "colour", "cowardly", "brave"))
            if c.str(f"{w}.id", r["id"]) in seen:
                c.fail(f"{w}.id", f"duplicate role id {r['id']!r}")
            seen.add(r["id"])
            kind = c.str(f"{w}.kind", r["kind"], ROLE_KINDS)
            need = {"witch": ("terrain",), "druid": ("terrain",), "weather_fairy": (),
                    "gatherer": ("colour", "cowardly", "brave")}[kind]
            c.dict(w, r, required=("id", "kind") + need)
            if "terrain" in need:
                c.list(f"{w}.terrain", r["terrain"], 1)
                for t in r["terrain"]:
                    c.str(f"{w}.terrain", t)
                    if t not in land:
                        c.fail(f"{w}.terrain",
                               f"{t!r} is not a land terrain of the board {list(land)}")
            if kind == "gatherer":
                c.str(f"{w}.colour", r["colour"], COLOURS)
                c.gains(f"{w}.cowardly", r["cowardly"])
                c.gains(f"{w}.brave", r["brave"])
        c.int("hand_size", self.hand_size, 1, len(self.roles))

    def _validate_events(self, c: _Check) -> None:
        c.list("events", self.events, 0)
        land = self.land_terrains
        seen = set()
        for i, e in enumerate(self.events):
            w = f"events[{i}]"
            if not isinstance(e, dict | MappingProxyType) or "id" not in e:
                c.fail(w, "each event needs an 'id'")
            kind = e.get("kind", e["id"])
            if not isinstance(kind, str) or kind not in EVENT_KINDS:
                c.fail(w, f"event {e['id']!r} has unknown kind {kind!r}; known kinds: "
                       f"{sorted(EVENT_KINDS)} (set 'kind' to reuse one under a new id)")
            timing, params = EVENT_KINDS[kind]
            c.dict(w, e, required=("id", "timing") + params, optional=("kind", "note"))
            if c.str(f"{w}.id", e["id"]) in seen:
                c.fail(f"{w}.id", f"duplicate event id {e['id']!r}")
            seen.add(e["id"])
            if e["timing"] not in ((timing,) if isinstance(timing, str) else timing):
                c.fail(f"{w}.timing", f"a {kind} event resolves at {timing!r}, got {e['timing']!r}")
            if kind == "more_or_less":
                ch = c.list(f"{w}.hand_size_choices", e["hand_size_choices"], 1)
                for n in ch:
                    c.int(f"{w}.hand_size_choices", n, 1, len(self.roles))
                pts = c.dict(f"{w}.points_by_hand_size", e["points_by_hand_size"],
                             optional=[str(n) for n in range(1, len(self.roles) + 1)])
                for n in ch:
                    if str(n) not in pts:
                        c.fail(f"{w}.points_by_hand_size", f"no points for hand size {n}")
                    c.int(f"{w}.points_by_hand_size.{n}", pts[str(n)], -1000, 1000)
            elif kind in ("black_market", "black_distillery"):
                c.gains(f"{w}.gain", e["gain"], RESOURCES + ("any_potion",))
            elif kind == "empty_handed":
                c.int(f"{w}.max_potions", e["max_potions"], 0, 10000)
                c.int(f"{w}.points", e["points"], -1000, 1000)
            elif kind in ("perilous_places", "protected_places"):
                c.dict(f"{w}.points_per_pawn", e["points_per_pawn"], optional=land)
                # Perilous Places only takes points away (seed 000) unless the option says
                losses_only = kind == "perilous_places" and self.perilous_places == "lose"
                for t, v in e["points_per_pawn"].items():
                    c.int(f"{w}.points_per_pawn.{t}", v, -1000, 1000)
                    if losses_only and v > 0:
                        c.fail(f"{w}.points_per_pawn.{t}",
                               f"Perilous Places only takes points away, got {v:+d} (the "
                               f"option perilous_places: 'gain_or_lose' allows a gain)")
            elif kind == "upper_hand":
                c.int(f"{w}.winner_points", e["winner_points"], -1000, 1000)
                if not isinstance(e["winner_pays_bid"], bool):
                    c.fail(f"{w}.winner_pays_bid", "must be true or false")
            elif kind == "the_works":
                c.int(f"{w}.set_points", e["set_points"], -1000, 1000)
                c.int(f"{w}.max_sets", e["max_sets"], 0, 100)
            elif kind == "flock_together":
                c.int(f"{w}.points", e["points"], -1000, 1000)
        c.int("events_used", self.events_used, 0, len(self.events))

    # ------------------------------------------------------------ for the kernels

    def tables(self) -> "Tables":
        """The rules as arrays for the compiled engine (built once, then cached)."""
        if self.__dict__.get("_tables") is None:
            self.__dict__["_tables"] = _build_tables(self)
        return self.__dict__["_tables"]

    def max_resources(self) -> int:
        """An upper bound on one player's resources at any time (sizes the bid options)."""
        gains = [sum(self.start_potions.values()) + max(self.start_wands.values())]
        per_play = [0]
        for r in self.roles:
            if r["kind"] == "gatherer":
                per_play += [sum(r["cowardly"].values()), sum(r["brave"].values())]
        for e in self.events:
            if "gain" in e:
                per_play.append(sum(e["gain"].values()))
        per_play.append(max(t["wands"] for t in self.board["towers"]))
        hand = max([self.hand_size] + [max(e["hand_size_choices"]) for e in self.events
                                       if "hand_size_choices" in e])
        return gains[0] + self.rounds * hand * max(per_play)


# Scalar parameters, slots of Tables.p
(P_N_ROLES, P_ROUNDS, P_START_SCORE, P_HAS_FLOOR, P_FLOOR, P_HAND_SIZE, P_START_GREEN,
 P_START_PURPLE, P_START_ORANGE, P_WANDS_FIRST, P_WANDS_LAST, P_WANDS_OTHERS, P_ENCH_TOTAL,
 P_ENCH_PENALTY, P_BONUS_DRUID, P_BONUS_FAIRY, P_RESHUFFLE_ALL, P_DRUID_TERRAIN, P_EVENTS_USED,
 P_SET4, P_SET3, P_MAX_BID, P_LIGHT_BEYOND, P_CASTLE_A, P_CASTLE_B, P_ADJ_PTR, P_ADJ,
 P_TOWER_PTR, P_TOWER_AREAS, P_AREA_TOWER_PTR, P_AREA_TOWERS, P_ENCH_DECK,
 P_START_LEAD, P_PAWN_CHOOSE) = range(34)
# columns of Tables.tower
TW_COLOUR, TW_ROUND, TW_POINTS, TW_WANDS = range(4)
# columns of Tables.role: kind, terrain bitmask, cowardly gain (g, p, o, wand), brave gain
RO_KIND, RO_TERRAINS, RO_COWARDLY, RO_BRAVE = 0, 1, 2, 6
# columns of Tables.event; EC_HAND + n: More or Less? points for hand size n (NO_HAND: not
# allowed); then points per pawn by terrain code from ev_terrain_col(n_roles)
# EC_FREE: 1 when the round's deliveries and charms cost nothing (``Rules.free_payments``), 2
# when they also need nothing held (``Rules.free_holding``)
EC_KIND, EC_LIMIT, EC_POINTS, EC_PAYS, EC_ANY_POTION, EC_GAIN, EC_FREE, EC_HAND = \
    0, 1, 2, 3, 4, 5, 9, 10
NO_HAND = -32768


def check_board_sense(terrain: Mapping[str, str], adjacent: Sequence, castles: Sequence[str],
                      cloud_spaces: Sequence[str], towers: Sequence[Mapping],
                      fail: Callable[[str, str], Any]) -> None:
    """A board that can be played: every cloud space next to an area a pawn can stand on (else
    nothing could charm its cloud), every land area reachable from a castle over land (else
    its clouds, towers and deliveries are out of play). ``terrain``: area id -> terrain, the
    other arguments as in ``board``; ``fail(where, message)`` raises. Clouds do not count as
    walls here: a cloud next to a reachable area can be charmed away."""
    nbrs: dict[str, list[str]] = {a: [] for a in terrain}
    for x, y in adjacent:
        nbrs[x].append(y)
        nbrs[y].append(x)
    for i, a in enumerate(cloud_spaces):
        if all(terrain[n] == WATER for n in nbrs[a]):
            fail(f"board.cloud_spaces[{i}]", f"cloud space {a!r} is next to no land or castle "
                 f"area, so no pawn could ever charm its cloud")
    seen, todo = set(castles), list(castles)
    while todo:                     # pawns leave the castles and walk over land, never water
        for n in nbrs[todo.pop()]:
            if n not in seen and terrain[n] not in (CASTLE, WATER):
                seen.add(n)
                todo.append(n)
    cut = [a for a, t in terrain.items() if t not in (CASTLE, WATER) and a not in seen]
    if cut:
        on = [t["id"] for t in towers if not set(t["areas"]) & seen]
        fail("board.adjacent", f"land area {cut[0]!r} cannot be reached from a castle over "
             f"land" + (f" (nor can {len(cut) - 1} more: {cut[1:6]})" if len(cut) > 1 else "")
             + (f"; towers {on} stand only there" if on else ""))


def ev_terrain_col(n_roles: int) -> int:
    return EC_HAND + n_roles + 1


class Tables(NamedTuple):
    """The rules packed into a few arrays for the kernels (few arrays keep calls cheap).

    Codes: terrain 0 castle, 1 water, 2+ land (``Rules.terrains``); colours and resources in
    ``RESOURCES`` order; role kinds in ``ROLE_KINDS`` order; event codes ``EV_*``.
    """

    p: np.ndarray           # [34] int64 scalar parameters (P_*); P_ENCH_DECK: role bitmask
    area: np.ndarray        # [A, 1 + A] int16: terrain code, then adjacency row (0/1)
    graph: np.ndarray       # int32 CSR lists at offsets p[P_ADJ_PTR], ...: neighbours of each
    #                         area (ascending), areas of each tower, towers of each area
    tower: np.ndarray       # [K, 4] int16 (TW_*)
    role: np.ndarray        # [R, 10] int32 (RO_*)
    event: np.ndarray       # [E, EC_HAND + R + 1 + T] int16 (EC_*)
    cloud_area: np.ndarray  # [C] int16 area of each cloud space (an area may hold several)
    tiles: np.ndarray       # [N, 2] int16 every cloud tile: stars, lightning
    lightning: np.ndarray   # [L] int16 lightning points by bolts


# event codes used by the kernels (Black Market and Distillery share one mechanism)
EV_NONE, EV_MORE_OR_LESS, EV_ALTERNATIVE, EV_EMPTY_HANDED, EV_PAWN_TERRAIN, EV_UPPER_HAND, \
    EV_THE_WORKS, EV_FLOCK = range(8)
EVENT_CODES = {"tenth_event": EV_NONE, "more_or_less": EV_MORE_OR_LESS,
               "black_market": EV_ALTERNATIVE, "black_distillery": EV_ALTERNATIVE,
               "empty_handed": EV_EMPTY_HANDED, "perilous_places": EV_PAWN_TERRAIN,
               "protected_places": EV_PAWN_TERRAIN, "upper_hand": EV_UPPER_HAND,
               "the_works": EV_THE_WORKS, "flock_together": EV_FLOCK}
WITCH, GATHERER, DRUID, FAIRY = range(4)


def _build_tables(r: Rules) -> Tables:
    b = r.board
    terr = {t: i for i, t in enumerate(r.terrains)}
    aidx = {a: i for i, a in enumerate(r.area_ids)}
    A, R, E, T = len(aidx), len(r.roles), len(r.events), len(terr)
    towers = b["towers"]
    nbrs = [set() for _ in range(A)]
    for x, y in b["adjacent"]:
        nbrs[aidx[x]].add(aidx[y])
        nbrs[aidx[y]].add(aidx[x])
    area = np.zeros((A, 1 + A), np.int16)
    for i, a in enumerate(b["areas"]):
        area[i, 0] = terr[a["terrain"]]
        for j in nbrs[i]:
            area[i, 1 + j] = 1
    lists = {P_ADJ_PTR: [sorted(s) for s in nbrs],
             P_TOWER_PTR: [[aidx[n] for n in t["areas"]] for t in towers],
             P_AREA_TOWER_PTR: [[k for k, t in enumerate(towers) if a in t["areas"]]
                                for a in r.area_ids]}
    p = np.zeros(34, np.int64)
    graph: list[int] = []
    for slot, ls in lists.items():           # a pointer block, then the flat list after it
        p[slot] = len(graph)
        p[slot + 1] = len(graph) + len(ls) + 1
        acc = [0]
        for x in ls:
            acc.append(acc[-1] + len(x))
        graph += [int(p[slot + 1]) + v for v in acc] + [v for x in ls for v in x]
    tower = np.array([[COLOURS.index(t["colour"]), t["shape"] == "round", t["points"],
                       t["wands"]] for t in towers], np.int16)
    role = np.zeros((R, 10), np.int32)
    for i, x in enumerate(r.roles):
        role[i, RO_KIND] = ROLE_KINDS.index(x["kind"])
        for t in x.get("terrain", ()):
            role[i, RO_TERRAINS] |= 1 << terr[t]
        for k, res in enumerate(RESOURCES):
            role[i, RO_COWARDLY + k] = x.get("cowardly", {}).get(res, 0)
            role[i, RO_BRAVE + k] = x.get("brave", {}).get(res, 0)
    tcol = ev_terrain_col(R)
    event = np.zeros((E, tcol + T), np.int16)
    event[:, EC_HAND:tcol] = NO_HAND
    for i, e in enumerate(r.events):
        kind = r.event_kind(i)
        event[i, EC_KIND] = EVENT_CODES[kind]
        if kind == "more_or_less":
            for n in e["hand_size_choices"]:
                event[i, EC_HAND + n] = e["points_by_hand_size"][str(n)]
        elif "gain" in e:
            for k, res in enumerate(RESOURCES):
                event[i, EC_GAIN + k] = e["gain"].get(res, 0)
            event[i, EC_ANY_POTION] = e["gain"].get("any_potion", 0)
        elif kind == "empty_handed":
            event[i, EC_LIMIT], event[i, EC_POINTS] = e["max_potions"], e["points"]
            event[i, EC_FREE] = r.free_payments(i) + r.free_holding(i)
        elif "points_per_pawn" in e:
            for t, v in r.points_per_pawn(i).items():
                event[i, tcol + terr[t]] = v
        elif kind == "upper_hand":
            event[i, EC_POINTS], event[i, EC_PAYS] = e["winner_points"], e["winner_pays_bid"]
        elif kind == "the_works":
            event[i, EC_POINTS], event[i, EC_LIMIT] = e["set_points"], e["max_sets"]
        elif kind == "flock_together":
            event[i, EC_POINTS] = e["points"]
    no_floor = r.score_floor is None or r.score_floor == "none"
    p[P_N_ROLES], p[P_ROUNDS], p[P_START_SCORE] = R, r.rounds, r.start_score
    p[P_HAS_FLOOR], p[P_FLOOR] = int(not no_floor), 0 if no_floor else r.score_floor
    p[P_HAND_SIZE] = r.hand_size
    p[P_START_GREEN:P_START_ORANGE + 1] = [r.start_potions.get(c, 0) for c in COLOURS]
    p[P_WANDS_FIRST] = r.start_wands["first_player"]
    p[P_WANDS_LAST] = r.start_wands["last_player"]
    p[P_WANDS_OTHERS] = r.start_wands["others"]
    p[P_ENCH_TOTAL], p[P_ENCH_PENALTY] = r.enchanted_total, r.enchanted_penalty
    p[P_BONUS_DRUID] = r.brave_bonus["druid"]
    p[P_BONUS_FAIRY] = r.brave_bonus["weather_fairy"]
    p[P_RESHUFFLE_ALL] = r.enchanted_reshuffle == "all_roles"
    p[P_DRUID_TERRAIN] = r.druid_needs_terrain
    p[P_ENCH_DECK] = sum(1 << i for i in r.enchanted_deck_roles)
    p[P_START_LEAD] = r.next_start_player == "lead_holder"
    p[P_PAWN_CHOOSE] = r.pawn_start == "choose"
    p[P_EVENTS_USED] = r.events_used
    p[P_SET4], p[P_SET3] = r.resource_sets["four_kinds"], r.resource_sets["three_kinds"]
    p[P_MAX_BID] = r.max_resources()
    p[P_LIGHT_BEYOND] = r.lightning_points_beyond_table
    p[P_CASTLE_A], p[P_CASTLE_B] = (aidx[n] for n in b["castles"])
    tiles = np.array([[t["stars"], t["lightning"]] for t in r.cloud_tiles
                      for _ in range(t["count"])], np.int16).reshape(-1, 2)
    return Tables(p=p, area=area, graph=np.array(graph, np.int32), tower=tower, role=role,
                  event=event, cloud_area=np.array([aidx[n] for n in b["cloud_spaces"]], np.int16),
                  tiles=tiles, lightning=np.array(r.lightning_points, np.int16))


def load_rules(path: str | os.PathLike | None = None, **changes) -> Rules:
    """The default rules, or a JSON/TOML file laid over them (``laid_over``); ``changes``
    replace whole top-level values."""
    base = json.loads(DEFAULT_PATH.read_text())
    if path is None:
        return Rules.from_dict({**base, **changes}, source=str(DEFAULT_PATH))
    data = read_rules_file(path)
    return Rules.from_dict({**laid_over(base, data), **changes}, source=str(path))


def laid_over(base: dict, data: dict) -> dict:
    """``data`` over ``base``, table by table: a file that gives only
    ``start_wands.first_player`` keeps the defaults' other ``start_wands`` entries. Lists are
    replaced whole (a list's items have no names to merge by)."""
    return {**base, **{k: laid_over(base[k], v) if isinstance(v, dict)
                       and isinstance(base.get(k), dict) else v for k, v in data.items()}}


def default_rules() -> Rules:
    """The built-in rules (cached: one conversion to arrays per process)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_rules()
    return _DEFAULT


_DEFAULT: Rules | None = None
