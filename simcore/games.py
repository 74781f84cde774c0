"""The game contract and its registry: what a game declares so that analyses, benchmarks and tools
reach it without knowing its name.

A game is a package with a public module (``simulate``, ``replay``, ``load_rules``,
``POLICIES``) and one small module that declares a :class:`Game`. The registry finds the games
shipped here, those installed under the entry-point group ``simcore.games``, and any registered
at run time with :func:`register` (a game defined in a script or a test).
"""
from __future__ import annotations

import functools
import importlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from importlib.metadata import entry_points
from typing import Any

from . import jitcache

BUILTIN = ("bloomsim.game", "rapinsim.game")
"""The modules that declare the games shipped in this distribution (attribute ``GAME``)."""

ENTRY_POINTS = "simcore.games"


@dataclass(frozen=True)
class Things:
    """A family of things whose impact on results the analyses measure (``event_impact``).

    ``how`` says how the family is read off a results frame:

    - ``"prefix"``: one thing per column starting with ``column`` (the rest of the name is the
      thing), present where the column is above 0 (an event card's round, an item's uses);
    - ``"value"``: one thing per value of the column ``column``, present where it equals that
      value (a character);
    - ``"at_least"``: one thing per quartile k of the count column ``column``, present where the
      count is at least k (being found k+ times).

    ``seat_level``: True when the thing happens to one seat (seat-games with and without it are
    compared), False when it changes the whole game.
    """

    kind: str
    how: str
    column: str
    seat_level: bool
    label: str = ""     # how pages name one of them ("enchanted role"); default: the kind

    def __post_init__(self):
        if self.how not in ("prefix", "value", "at_least"):
            raise ValueError(f"Things.how must be 'prefix', 'value' or 'at_least', "
                             f"got {self.how!r}")


Variant = tuple[str, str, str, Any]
"""A counterfactual: (kind, thing, what was changed, the rules without the thing)."""


@dataclass(frozen=True)
class Alternative:
    """Another reading of one thing the default rules assume (a provenance entry tagged gap,
    reading or invention): the robustness check (``analyses.robust``) re-measures every
    headline verdict under it, on the same games.

    ``changes``: rules values laid over the defaults, as a sweep takes them (a dotted key
    reaches into a mapping or, by its ``id``, into a list of entries:
    ``"events.perilous_places.points_per_pawn.hill"``); ``file``: a rules file in the game's
    package played instead of the defaults (the changes laid over it)."""

    name: str                      # how tables name it, e.g. "town: the ring of 10"
    tests: str                     # the provenance key whose tag it tests, e.g. "districts"
    changes: Mapping[str, Any] = field(default_factory=dict)
    file: str = ""

    def __post_init__(self):
        if not self.changes and not self.file:
            raise ValueError(f"alternative {self.name!r}: give changes or a rules file")


PROBE_MODES = ("never", "always", "horizon")


@dataclass(frozen=True)
class Probe:
    """A restriction of one seat's play (restricted play, Jaffe 2012; ``simcore.restrict``):
    at decisions of the ``kinds`` (the game's decision kind ids), the option rows whose feature
    ``column`` lies in ``[lo, hi]`` are removed before the seat's policy chooses (``"never"``;
    when every option matches, the decision is played unrestricted) or are the only ones kept
    whenever one is legal (``"always"``). A ``"horizon"`` probe is a horizon-limited player
    instead: a search agent with the ``settings`` (``"horizon=1"``), or for a policy named in
    ``swap`` its short-sighted twin (``(("evader", "careful"),)``). The policy name
    ``cloud[never=witch]`` plays ``cloud`` under the probe of ``thing`` ``witch`` and mode
    ``never`` (``name``: ``never_witch``)."""

    thing: str                     # what it restricts, an id: "witch", "brave", "1_round"
    mode: str                      # "never", "always" or "horizon"
    label: str                     # how tables name it: "never the Witch"
    kinds: tuple[int, ...] = ()
    column: int = 0
    lo: float = 0.0
    hi: float = 0.0
    settings: str = ""
    swap: tuple[tuple[str, str], ...] = ()

    def __post_init__(self):
        if self.mode not in PROBE_MODES:
            raise ValueError(f"probe {self.thing!r}: mode must be one of {PROBE_MODES}, "
                             f"got {self.mode!r}")
        rows = self.mode != "horizon"
        if rows != bool(self.kinds) or (not rows and not (self.settings or self.swap)):
            raise ValueError(f"probe {self.name!r}: a horizon probe gives settings or swaps, "
                             f"the others decision kinds")
        if self.lo > self.hi:
            raise ValueError(f"probe {self.name!r}: lo {self.lo} is above hi {self.hi}")

    @property
    def name(self) -> str:
        """The probe's id, ``never_witch``."""
        return f"{self.mode}_{self.thing}"


@dataclass(frozen=True)
class Game:
    """What one game declares. Every callable takes plain arguments and is cheap to call."""

    name: str                      # the public module, e.g. "bloomsim"
    title: str                     # how pages name it, e.g. "Broom Service"
    players: tuple[int, int]       # fewest and most players the default rules allow
    score: str                     # the results column that ranks players
    marks: tuple[str, ...]         # columns only this game's results have (tells frames apart)
    things: tuple[Things, ...] = ()
    chance: Mapping[str, str] = field(default_factory=dict)
    """The game's chance sources, name -> what it draws, in stream order: source i draws from
    random stream i of each game, the seats from the streams after them (``simcore.rng``), so
    one source can be drawn anew with the others held (``simulate(..., redraw=...)``,
    ``analyses.luck_by_source``)."""
    switch_offs: Callable[[Any, int | None, str], list[Variant]] | None = None
    """(rules, players, events) -> every thing the rules data can switch off, as rules variants;
    ``events`` ("replace", "remove" or "both") says how a card drawn from a deck is switched
    off: replaced in place by a card with no effect, or removed from the deck."""
    board: Callable[[Any], dict] | None = None
    """rules -> the board as plain data (what the board plot draws)."""
    board_plot: Callable[[dict, Any, bool], Any] | None = None
    """(board, results LazyFrame, default rules?) -> a matplotlib Figure of the board with what
    the results did on it."""
    provenance: str = ""
    """The file in the game's package (JSON) that tags every rules value and reading seed,
    reading, gap or invention (``simcore.provenance``): what ``GAME rules`` prints beside
    each value and the balance report's assumptions box lists; "" when the game has none."""
    provenance_keys: Mapping[str, str] = field(default_factory=dict)
    """Per kind of thing (``Things.kind``): the provenance key its things sit under
    (``"event": "events"``: card ``x`` is ``events.x``), so a headline about a thing names the
    assumptions it rests on."""
    measuring: Mapping[str, Any] = field(default_factory=dict)
    """Rules values under which the balance report plays its tournament a second time, for the
    table by character only (every other figure plays the defaults): e.g. characters dealt at
    random rather than chosen, so that the table measures the characters rather than who chose
    them from which seat."""
    measuring_note: str = ""
    """The measuring rules in words, as a phrase the report puts inside its sentences."""
    speed_goal: int = 0
    """Games per second the benchmarks expect for 4 random players on 2 threads."""
    lengths: tuple[str, ...] = ("decisions",)
    """Game-level columns that measure a game's length (decisions, turns, ...)."""
    endings: tuple[str, ...] = ()
    """Game-level boolean columns that say how a game ended (e.g. at dawn, at the turn cap)."""
    lead: str = ""
    """The seat-level Int64 column whose bit k-1 is set when the seat held (or shared) the
    highest score after round k (``simcore.results.mark_leaders``); "" when the results do not
    record it. The designer metrics read lead changes and early leaders from it."""
    round_of: Callable[[Any, int], int] | None = None
    """(the acting seat's observation, players) -> the round (1-based) a decision falls in,
    read off what the seat sees: the decision leverage lens's table by round; None when the
    game has no rounds."""
    rules_data: Callable[[Any], dict] | None = None
    """rules -> its values as plain data, keyed as ``rules.replace(...)`` takes them (what the
    what-if page offers as form controls)."""
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The text-valued rules options and the values each may take."""
    seat_options: tuple[tuple[str, str, str], ...] = ()
    """(command-line flag, ``simulate``/``replay`` keyword, help): options given per seat
    beyond the policies (e.g. fixed characters)."""
    rules_text: Callable[[Any], str] | None = None
    """rules -> what ``GAME rules`` prints: the rules in force, each with its provenance tag."""
    rules_guide: str = ""
    """The file in the game's package (JSON) that names, groups and explains the rules values
    for people (the what-if page): ``{"groups": [{"id", "title", "about", "report",
    "values": [{"name", "label", "help", "options"?}]}], "names": {id: name}}`` (``options``:
    names of a choice's values; ``names``: what people read for each id of the game's things,
    ``display_names``), groups in the rulebook's order, ``report`` the balance report's
    section that measures them; "" when the game has none."""
    alternatives: tuple[Alternative, ...] = ()
    """The other readings of the default rules' gaps, readings and inventions that the balance
    report's verdicts are re-measured under (``analyses.robust``), each naming the provenance
    entry it tests."""

    probes: tuple[Probe, ...] = ()
    """The restrictions ``analyses.restricted`` measures (restricted play): never / always
    each role, item or action, and a horizon-limited search player; a policy name takes one
    as ``base[never=thing]`` (``simcore.restrict``)."""

    def module(self) -> Any:
        """The game's public module (``simulate``, ``replay``, ``load_rules``, ``POLICIES``)."""
        return importlib.import_module(self.name)


def rules_guide(game: Game) -> list[dict]:
    """The groups of the game's rules guide (``Game.rules_guide``), or none."""
    if not game.rules_guide:
        return []
    return json.loads(resources.files(game.name).joinpath(game.rules_guide).read_text())["groups"]


def display_names(game: Game, latin: bool = False) -> dict[str, str]:
    """Each id of the game's things (an event card, a role, a character, an item) -> the name
    people read: the seeds' name, with the other language beside it where the seeds give both
    (the rules guide's ``names``). Tables, pages and plots show these; data frames keep ids.
    ``latin``: without a bracketed part in Japanese, for figures (matplotlib's own fonts have
    no Japanese glyphs)."""
    names = dict(_names(game.name, game.rules_guide)) if game.rules_guide else {}
    if latin:
        names = {k: re.sub(r" \([^)]*[^\x00-\xff][^)]*\)", "", v) for k, v in names.items()}
    return names


@functools.lru_cache(maxsize=None)
def _names(package: str, guide: str) -> tuple[tuple[str, str], ...]:
    text = resources.files(package).joinpath(guide).read_text(encoding="utf-8")
    return tuple(json.loads(text).get("names", {}).items())


def display_name(game: Game, thing: str) -> str:
    """The name people read for one id (``display_names``); an id without one reads as
    itself."""
    return display_names(game).get(thing, thing)


def default_players(package: str) -> tuple[int, int]:
    """The player range of a game package's default rules data (``data/rules.json``'s
    ``players``), read without importing its engine."""
    data = json.loads(resources.files(package).joinpath("data/rules.json").read_text())
    return data["players"]["min"], data["players"]["max"]


_REGISTRY: dict[str, Game] = {}
_LOADED = False


def register(game: Game) -> Game:
    """Add a game (replacing one of the same name); returns it, so a module can write
    ``GAME = register(Game(...))``."""
    if not isinstance(game, Game):
        raise TypeError(f"register() takes a simcore.games.Game, got {type(game).__name__}")
    _REGISTRY[game.name] = game
    return game


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    # the first game compiles here while the others compile in processes of their own
    aside = {mod: jitcache.compile_aside(mod.split(".")[0]) for mod in BUILTIN[1:]}
    try:
        for mod in BUILTIN:
            if aside.get(mod) is not None:
                aside[mod].wait()
            register(importlib.import_module(mod).GAME)
    finally:
        for proc in aside.values():
            if proc is not None and proc.poll() is None:
                proc.kill()
    for ep in entry_points(group=ENTRY_POINTS):
        if ep.name not in _REGISTRY:
            register(ep.load())


def names() -> list[str]:
    """Every registered game's name, shipped games first."""
    _load()
    return list(_REGISTRY)


def get(name: str) -> Game:
    _load()
    if name in _REGISTRY:
        return _REGISTRY[name]
    raise ValueError(f"unknown game {name!r}; games are {list(_REGISTRY)}")


def of_module(module: Any) -> Game | None:
    """The game whose public module this is, or None."""
    _load()
    return _REGISTRY.get(getattr(module, "__name__", None))


def of_columns(columns: Iterable[str]) -> Game:
    """The one game whose marks are all among ``columns``; a clear error otherwise."""
    _load()
    have = set(columns)
    found = [g for g in _REGISTRY.values() if all(m in have for m in g.marks)]
    if len(found) != 1:
        marks = "; ".join(f"{list(g.marks)} of {g.name}" for g in _REGISTRY.values())
        what = "several games" if found else "no game"
        raise ValueError(f"cannot tell which game these results are from ({what} matches; "
                         f"need the columns {marks})")
    return found[0]


def all_games() -> Sequence[Game]:
    _load()
    return list(_REGISTRY.values())
