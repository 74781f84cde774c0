"""The Lapin treasure hunt in plain Python: the executable specification.

One function per rule, named as the rulebook names it; ``docs/rapinsim-rules.md`` is the prose.
It plays the same game as the compiled engine for the same (seed, game): each chance source's
stream (``rules.CHANCE``: characters when they are dealt, tile layout, Rize's start die,
escort dice, random tile losses) is drawn in the same order and policies get the same
observation and options.

A position can be built by hand for a scenario test::

    st = new_state(rules, ["lapin", "cocoa"], policies=[first, first])
    put(st, "alarm", house=4)          # a named tile into a house
    st.pos = [1, 5]; st.rize = 0
    search(st, 0, 4)                   # apply one rule

Districts and houses are 0-based here (district number - 1; house = district * houses + k).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from simcore.policy import ask_reference
from simcore.results import mark_leaders, rank_and_share
from simcore.rng import NO_REDRAW, PyRng

from . import stats as S
from .policies import (ACTION, DISGUISE, DISTRICT, F_ARG, F_DISTRICT, F_EXTRA, F_HOUSE, F_KNOWN,
                       F_PLAYERS, F_RIZE, F_SUB, F_TILE, F_TILES, F_UNSEEN, F_VALUE, F_WHAT,
                       HOUSE, KIND_NAMES, MAX_OPTS, N_FEATURES, N_OBS, O_HOUSE, O_ITEM, O_NO,
                       O_PASS, O_PLAYER, O_SEARCH, O_SKILL, O_STEP, O_STOP, O_YES, OB_ACTIONS,
                       OB_CHAR, OB_CHARS, OB_CHEST_HELD, OB_DAWN, OB_DIE, OB_DISTRICT, OB_ITEMS,
                       OB_LETTER, OB_MARKERS, OB_NITEMS, OB_PLAYERS, OB_POS, OB_RABBITS, OB_RIZE,
                       OB_RIZE_STEPS, OB_RIZE_TO, OB_SEARCHED, OB_SEAT, OB_SKILL, OB_TREAS,
                       OB_TREASURES, OB_TURN, PLACE, STEP, TARGET, CHEST_TILE, O_DISTRICT,
                       choose_builtin, choose_weighted)
from .policies import CHARACTER, O_CHARACTER
from .policies import (OB_ACTING, OB_ACTING_ACTIONS, OB_ACTING_SEARCHED, OB_BAG, OB_BAG_BROWN,
                       OB_BAG_TILE, OB_BAG_WHITE, OB_BROWN, OB_DISGUISED, OB_HELD_BY_BROWN,
                       OB_HOUSE, OB_HOUSE_BROWN, OB_HOUSE_SEEN, OB_HOUSE_TILE, OB_HOUSE_WHITE,
                       OB_LETTERS, OB_LETTER_PENDING, OB_MARKED, OB_RIZE_HELD, OB_SKILLS, OB_SKIPS,
                       OB_WALK_LEFT, OB_WHITE)
from .rules import (AOYAMA, BICYCLE, CH_CHARACTERS, CH_ESCORT, CH_HANDS, CH_LAYOUT, CH_START,
                    CHARACTERS, CHIMAME, CHIYA, COCOA, COFFEE, DISGUISE as DISGUISE_ITEM, EMPTY,
                    INABA, ITEM, ITEMS, LAMP, LAPIN, MAP, MAX_BROWN, MAX_DISTRICTS, MAX_HOUSES,
                    MAX_PLAYERS, N_CHANCE, TRAP, TRAPS, TREASURE, WHISTLE, RuleArrays, Rules)

HAND = 120       # loc of a tile held by seat s: HAND + s
BAG = 126        # loc of a tile Rize carries
REMOVED = -1     # loc of a resolved trap
DISCARDED = -2   # loc of a used or discarded item

Policy = Callable[[int, np.ndarray, np.ndarray, int, np.ndarray], int]


@dataclass
class State:
    """One game. Lists indexed by house, tile, seat or district; see the module docstring."""

    rules: Rules
    chars: list[int]                  # [P] character id per seat
    policies: list[Policy]            # [P]
    names: list[str]                  # [P] policy names for errors and the log
    rng: PyRng
    inaba_set: bool                   # the tile set with the chest is in use
    board: list[int]                  # [N] tile in each house, EMPTY
    face_up: list[bool]               # [N] the house's tile lies face up
    loc: list[int]                    # [N] where each tile is (house, HAND + s, BAG, ...)
    returned: list[bool]              # [N] came back onto the board: its kind is public
    seen: list[list[bool]]            # [P][N] the seat has looked at that tile
    pos: list[int]                    # [P] district of each pawn, -1 before placement
    rize: int = 0
    skip: list[int] = field(default_factory=list)            # [P] turns to skip (pitfall)
    skill_used: list[bool] = field(default_factory=list)     # [P]
    letter: list[int] = field(default_factory=list)          # [P] notice-letter district or -1
    letter_pending: list[bool] = field(default_factory=list)  # [P] FAQ: take at turn start
    disguised: list[bool] = field(default_factory=list)      # [P] hidden until the own turn
    marker: list[int] = field(default_factory=list)          # [D] time marker number, 0 none
    n_marked: int = 0                 # districts holding a time marker
    next_marker: int = 1
    bag: list[int] = field(default_factory=list)             # tiles Rize carries, oldest first
    dawn: int = -1                    # district of the dawn marker
    turns: int = 0                    # player turns begun
    rounds: int = 0                   # rounds ended (a round: every seat's turn, or the end)
    over: bool = False
    stalled: bool = False
    dawn_end: bool = False
    acting: int = -1                  # seat whose turn it is
    actions_left: int = 0
    turn_end: bool = False
    searched: bool = False
    chiya_hold: bool = False
    walk_left: int = 0                # steps left in a bicycle or Cocoa walk (public)
    seat_stats: np.ndarray = None     # [P, stats.N_SEAT] int16
    win: np.ndarray = None            # [P] float32
    game_stats: np.ndarray = None     # [stats.N_GAME + 2 D] int32
    led_rounds: list = field(default_factory=list)  # [P] bitmask: led after round r
    decisions: list = field(default_factory=list)  # (seat, kind, n_opts, choice)
    log: list | None = None           # readable lines, when asked for
    game_index: int = 0
    ra: RuleArrays = None             # the rules' tables (rules.arrays())

    @property
    def n_players(self) -> int:
        return len(self.chars)


# ---------------------------------------------------------------- small helpers

def _t(st):
    return st.ra


def kind_of(st, t):
    return int(_t(st).tile_kind[int(st.inaba_set), t])


def sub_of(st, t):
    return int(_t(st).tile_sub[int(st.inaba_set), t])


def is_chest(st, t):
    return bool(_t(st).tile_chest[int(st.inaba_set), t])


def tile_name(st, t) -> str:
    ra, k = _t(st), int(st.inaba_set)
    kind = ra.tile_kind[k, t]
    if kind == TREASURE:
        if ra.tile_chest[k, t]:
            return "chest"
        return "white" if ra.tile_white[k, t] else f"brown{ra.tile_brown[k, t]}"
    return (ITEMS if kind == ITEM else TRAPS)[ra.tile_sub[k, t]]


def houses(st, d):
    h = st.rules.houses_per_district
    return range(d * h, (d + 1) * h)


def district_of(st, house):
    return house // st.rules.houses_per_district


def route_next(st, d, by=1):
    """The district ``by`` steps from d along Rize's route (by -1: the one before it)."""
    ra = _t(st)
    return int(ra.route[(ra.route_pos[d] + by) % st.rules.districts])


def rize_steps(st, d):
    """Rize's patrol steps until he enters district d (0: he is there)."""
    ra = _t(st)
    return int((ra.route_pos[d] - ra.route_pos[st.rize]) % st.rules.districts)


def held(st, s, kind):
    """Tiles of a kind seat s holds, in tile order (the order random picks index)."""
    return [t for t, where in enumerate(st.loc) if where == HAND + s and kind_of(st, t) == kind]


def holds_chest(st, s) -> bool:
    """Seat s holds Inaba's chest (public: treasures lie face up)."""
    return any(is_chest(st, t) for t in held(st, s, TREASURE))


def held_item(st, s, item):
    return [t for t in held(st, s, ITEM) if sub_of(st, t) == item]


def treasures_and_rabbits(st, s):
    ra, k = _t(st), int(st.inaba_set)
    tr = held(st, s, TREASURE)
    white = sum(int(ra.tile_white[k, t]) for t in tr)
    brown = sum(int(ra.tile_brown[k, t]) for t in tr)
    return len(tr), brown + st.rules.white_pair_value * (white // 2)


def put_back(st, t, h, face_up) -> None:
    """Tile t into the empty house h, back from a hand or Rize's bag: everyone saw it come back,
    so its kind is public (a treasure: which one, as everyone has seen it)."""
    st.board[h], st.face_up[h], st.loc[t] = t, face_up, h
    st.returned[t] = True


def tiles_in(st, d):
    return [h for h in houses(st, d) if st.board[h] != EMPTY]


def unseen_in(st, s, d):
    """Face-down tiles of district d that seat s has not looked at."""
    return [h for h in tiles_in(st, d) if not st.face_up[h] and not st.seen[s][st.board[h]]]


def players_in(st, d, but=-1):
    return [q for q in range(st.n_players) if st.pos[q] == d and q != but]


def say(st, msg):
    if st.log is not None:
        st.log.append(msg)


def _stat(st, s, col, add=1):
    st.seat_stats[s, col] += add


def _dname(d):
    return f"district {d + 1}"


def _who(st, s):
    return f"seat {s} ({CHARACTERS[st.chars[s]]})"


# ---------------------------------------------------------------- construction

def new_state(rules: Rules, characters: Sequence[str | int], policies: Sequence[Policy] = (),
              names: Sequence[str] = (), key: int = 0, game: int = 0,
              inaba_set: bool | None = None) -> State:
    """An empty board with pawns unplaced: the start of setup, or of a hand-built position."""
    chars = [CHARACTERS.index(c) if isinstance(c, str) else int(c) for c in characters]
    p, n = len(chars), rules.n_tiles
    st = State(rules=rules, chars=chars, policies=list(policies),
               names=list(names) or [f"policy{s}" for s in range(p)],
               rng=PyRng(key, game, N_CHANCE, MAX_PLAYERS),
               inaba_set=(INABA in chars) if inaba_set is None else inaba_set,
               board=[EMPTY] * n, face_up=[False] * n, loc=[REMOVED] * n, returned=[False] * n,
               seen=[[False] * n for _ in range(p)], pos=[-1] * p, game_index=game,
               ra=rules.arrays())
    st.skip, st.skill_used = [0] * p, [False] * p
    st.letter, st.letter_pending, st.disguised = [-1] * p, [False] * p, [False] * p
    st.marker = [0] * rules.districts
    st.seat_stats = np.zeros((p, S.N_SEAT), np.int16)
    st.seat_stats[:, S.S_SKILL_TURN] = -1
    st.win = np.zeros(p, np.float32)
    st.led_rounds = [0] * p
    st.game_stats = np.zeros(S.N_GAME + 2 * rules.districts, np.int32)
    return st


def find_tile(st, name: str, nth: int = 0) -> int:
    """The tile number of a named tile ("lamp", "alarm", "brown3", "white", "chest")."""
    found = [t for t in range(st.rules.n_tiles) if tile_name(st, t) == name]
    if len(found) <= nth:
        raise ValueError(f"no tile {name!r} (#{nth}) in this tile set")
    return found[nth]


def put(st, name_or_tile, house: int, face_up: bool = False) -> int:
    """Put a tile (by name or number) into an empty house of a hand-built position."""
    t = find_tile(st, name_or_tile) if isinstance(name_or_tile, str) else name_or_tile
    if st.board[house] != EMPTY:
        raise ValueError(f"house {house} is not empty")
    st.board[house], st.face_up[house], st.loc[t] = t, face_up, house
    return t


def give(st, seat: int, name_or_tile) -> int:
    """Put a tile into a seat's hand (treasures are face up: everybody has seen them)."""
    t = find_tile(st, name_or_tile) if isinstance(name_or_tile, str) else name_or_tile
    st.loc[t] = HAND + seat
    for q in range(st.n_players):
        st.seen[q][t] = st.seen[q][t] or q == seat or kind_of(st, t) == TREASURE
    return t


# ---------------------------------------------------------------- decisions

def observation(st, s) -> np.ndarray:
    """What seat s knows (policies.py documents every entry)."""
    obs = np.zeros(N_OBS, np.float32)
    tr, rab = treasures_and_rabbits(st, s)
    mine = st.acting == s
    obs[OB_SEAT], obs[OB_PLAYERS], obs[OB_DISTRICT], obs[OB_RIZE] = s, st.n_players, \
        st.pos[s], st.rize
    obs[OB_ACTIONS] = st.actions_left if mine else 0
    obs[OB_TURN], obs[OB_MARKERS], obs[OB_DAWN] = st.turns, st.n_marked, st.dawn
    obs[OB_CHAR], obs[OB_SKILL], obs[OB_LETTER] = st.chars[s], not st.skill_used[s], \
        st.letter[s]
    obs[OB_RIZE_STEPS] = rize_steps(st, st.pos[s]) if st.pos[s] >= 0 else -1
    obs[OB_TREASURES], obs[OB_RABBITS] = tr, rab
    obs[OB_SEARCHED] = st.searched if mine else 0
    for i in range(len(ITEMS)):
        obs[OB_ITEMS + i] = len(held_item(st, s, i))
    obs[OB_DIE] = st.rules.die_sides
    for q in range(MAX_PLAYERS):
        if q < st.n_players:
            obs[OB_POS + q], obs[OB_TREAS + q] = st.pos[q], treasures_and_rabbits(st, q)[0]
            obs[OB_NITEMS + q], obs[OB_CHARS + q] = len(held(st, q, ITEM)), st.chars[q]
            obs[OB_CHEST_HELD + q] = holds_chest(st, q)
            obs[OB_RIZE_TO + q] = rize_steps(st, st.pos[q]) if st.pos[q] >= 0 else -1
        else:
            obs[OB_POS + q] = obs[OB_TREAS + q] = obs[OB_NITEMS + q] = obs[OB_CHARS + q] = -1
            obs[OB_CHEST_HELD + q] = obs[OB_RIZE_TO + q] = -1
    public_table(st, obs)
    return obs


def public_table(st, obs) -> None:
    """The rest of the public table (``OB_ACTING`` on; rules, "Knowledge")."""
    ra, k = _t(st), int(st.inaba_set)
    turn = st.acting >= 0
    obs[OB_ACTING] = st.acting
    obs[OB_ACTING_ACTIONS] = st.actions_left if turn else 0
    obs[OB_ACTING_SEARCHED] = st.searched if turn else 0
    obs[OB_RIZE_HELD], obs[OB_BAG] = st.chiya_hold, len(st.bag)
    obs[OB_WALK_LEFT] = st.walk_left
    for f in (OB_SKIPS, OB_SKILLS, OB_DISGUISED, OB_LETTERS, OB_LETTER_PENDING, OB_BROWN,
              OB_WHITE):
        obs[f:f + MAX_PLAYERS] = -1                 # no seat
    obs[OB_HELD_BY_BROWN:OB_HELD_BY_BROWN + MAX_PLAYERS * (MAX_BROWN + 1)] = -1
    for q in range(st.n_players):
        tr = held(st, q, TREASURE)
        obs[OB_SKIPS + q], obs[OB_SKILLS + q] = st.skip[q], not st.skill_used[q]
        obs[OB_DISGUISED + q], obs[OB_LETTERS + q] = st.disguised[q], st.letter[q]
        obs[OB_LETTER_PENDING + q] = st.letter_pending[q]
        obs[OB_BROWN + q] = sum(int(ra.tile_brown[k, t]) for t in tr)
        obs[OB_WHITE + q] = sum(int(ra.tile_white[k, t]) for t in tr)
        by_brown = OB_HELD_BY_BROWN + q * (MAX_BROWN + 1)
        obs[by_brown:by_brown + MAX_BROWN + 1] = 0
        for t in tr:
            obs[by_brown + int(ra.tile_brown[k, t])] += 1
    obs[OB_MARKED:OB_MARKED + MAX_DISTRICTS] = -1
    for d in range(st.rules.districts):
        obs[OB_MARKED + d] = st.marker[d] != 0
    for h, t in enumerate(st.board):
        obs[OB_HOUSE + h] = -1 if t == EMPTY else st.face_up[h]
        obs[OB_HOUSE_SEEN + h] = -1 if t == EMPTY else sum(
            int(st.seen[q][t]) << q for q in range(len(st.seen)))
    obs[OB_HOUSE + len(st.board):OB_HOUSE + MAX_HOUSES] = -1
    obs[OB_HOUSE_SEEN + len(st.board):OB_HOUSE_SEEN + MAX_HOUSES] = -1
    for fields, tiles, known in (
            ((OB_HOUSE_TILE, OB_HOUSE_BROWN, OB_HOUSE_WHITE), st.board,
             [t != EMPTY and (st.face_up[h] or st.returned[t]) for h, t in enumerate(st.board)]),
            ((OB_BAG_TILE, OB_BAG_BROWN, OB_BAG_WHITE), st.bag, [True] * len(st.bag))):
        code, brown, white = fields                 # what everyone knows the tile is
        obs[code:code + MAX_HOUSES], obs[brown:brown + MAX_HOUSES] = -1, 0
        obs[white:white + MAX_HOUSES] = 0
        for i, t in enumerate(tiles):
            if known[i]:
                obs[code + i] = CHEST_TILE if is_chest(st, t) else kind_of(st, t)
                obs[brown + i], obs[white + i] = ra.tile_brown[k, t], ra.tile_white[k, t]


def option(st, s, what, district, arg=-1, house=-1, extra=0) -> list[float]:
    """One row of option features as seat s sees them (policies.py documents the columns)."""
    row = [0.0] * N_FEATURES
    row[F_WHAT], row[F_ARG], row[F_DISTRICT], row[F_HOUSE] = what, arg, district, house
    row[F_TILE], row[F_SUB], row[F_EXTRA] = -1, -1, extra
    if district < 0:                 # a character choice: nothing is on the board yet
        return row
    if house >= 0:
        t = st.board[house]
        if st.face_up[house] or st.seen[s][t]:
            ra, k = _t(st), int(st.inaba_set)
            kind = kind_of(st, t)
            row[F_KNOWN] = 1
            row[F_TILE] = CHEST_TILE if is_chest(st, t) else kind
            if kind == TREASURE:
                row[F_VALUE] = ra.tile_brown[k, t] + ra.tile_white[k, t] * (
                    st.rules.white_pair_value / 2)
            else:
                row[F_SUB] = sub_of(st, t)
    row[F_RIZE] = rize_steps(st, district)
    row[F_PLAYERS] = len(players_in(st, district, but=s))
    row[F_TILES] = len(tiles_in(st, district))
    row[F_UNSEEN] = len(unseen_in(st, s, district))
    return row


def decide(st, s, kind, options: list[list[float]]) -> int:
    """Ask seat s's policy to choose among the options (even a single one); an illegal
    answer is an error."""
    n = len(options)
    opts = np.zeros((MAX_OPTS, N_FEATURES), np.float32)
    opts[:n] = options
    st.game_stats[S.G_DECISIONS] += 1
    return ask_reference(st.rng, st.policies[s], s, kind, observation(st, s), opts, n,
                         game="rapinsim", names=st.names, kind_names=KIND_NAMES,
                         game_index=st.game_index, decisions=st.decisions)


# ---------------------------------------------------------------- setup (rules section 2)

def draw_characters(rng: PyRng, roster: Sequence[int], n_players: int) -> list[int]:
    """Each seat in turn draws a distinct character from the roster (characters stream): the
    rules option ``character_selection = "draw"``."""
    pool = list(roster)
    for s in range(n_players):
        j = s + rng.randint(CH_CHARACTERS, len(pool) - s)
        pool[s], pool[j] = pool[j], pool[s]
    return pool[:n_players]


def choose_characters(st, roster: Sequence[int]) -> None:
    """「好きなキャラクターを選びます」: in seat order, seat 0 first, each player chooses a
    character still free (decision CHARACTER, options in roster order)."""
    free = list(roster)
    for s in range(st.n_players):
        c = decide(st, s, CHARACTER, [option(st, s, O_CHARACTER, -1, arg=c) for c in free])
        st.chars[s] = free.pop(c)
        say(st, f"seat {s} chooses {CHARACTERS[st.chars[s]]}")
    st.inaba_set = INABA in st.chars


def shuffle_tiles(st) -> None:
    """Shuffle the tile set and place one tile face down per house."""
    tiles = list(range(st.rules.n_tiles))
    st.rng.shuffle(CH_LAYOUT, tiles)
    for h, t in enumerate(tiles):
        st.board[h], st.face_up[h], st.loc[t] = t, False, h


def roll_rize_start(st) -> None:
    """The d4 puts Rize on his start district (1-2 -> 2, 3-4 -> 7 by default)."""
    face = st.rng.randint(CH_START, st.rules.die_sides)
    st.rize = st.rules.rize_start[face] - 1
    st.game_stats[S.G_RIZE_START] = st.rize + 1
    say(st, f"Rize starts in {_dname(st.rize)} (die {face + 1})")


def place_pawns(st) -> None:
    """From the start player's right neighbour counter-clockwise (seat P-1 first, seat 0 last),
    each pawn goes to a district holding no pawn and not Rize."""
    for s in range(st.n_players - 1, -1, -1):
        free = [d for d in range(st.rules.districts) if d != st.rize and not players_in(st, d)]
        d = free[decide(st, s, PLACE, [option(st, s, O_DISTRICT, d) for d in free])]
        st.pos[s] = d
        say(st, f"{_who(st, s)} starts in {_dname(d)}")


def setup(rules: Rules, policies: Sequence[Policy], names: Sequence[str], key: int, game: int,
          characters: Sequence[int] | None = None, log: bool = False,
          redraw: tuple[int, int] = NO_REDRAW) -> State:
    """Rules section 2, chance draws in the engines' order. Characters: ``characters`` if
    given, else chosen or drawn as ``character_selection`` says; ``redraw``: the streams drawn
    anew (``simcore.rng``)."""
    rng = PyRng(key, game, N_CHANCE, MAX_PLAYERS, redraw)
    p = len(policies)
    choose = characters is None and rules.character_selection == "choice"
    if characters is None and not choose:
        characters = draw_characters(rng, _roster(rules), p)
    st = new_state(rules, [-1] * p if choose else characters, policies, names, key, game)
    st.rng = rng
    st.log = [] if log else None
    if choose:
        st.rize = -1                 # not on the board yet
        choose_characters(st, _roster(rules))
    shuffle_tiles(st)
    roll_rize_start(st)
    place_pawns(st)
    return st


def _roster(rules):
    return [CHARACTERS.index(c) for c in rules.characters]


# ---------------------------------------------------------------- the board

def update_time_marker(st, d) -> None:
    """An empty district gets the next time marker; with ``time_markers_permanent`` off a
    refilled district loses it again."""
    empty = not tiles_in(st, d)
    if empty and st.marker[d] == 0:
        st.marker[d] = st.next_marker
        st.next_marker += 1
        st.n_marked += 1
        say(st, f"  {_dname(d)} is empty: time marker {st.marker[d]}")
    elif not empty and st.marker[d] and not st.rules.time_markers_permanent:
        st.marker[d] = 0
        st.n_marked -= 1


def can_search(st, s) -> bool:
    """Search conditions: a tile here, no other pawn and not Rize, no search yet this turn."""
    d = st.pos[s]
    return (not st.searched and d != st.rize and not players_in(st, d, but=s)
            and bool(tiles_in(st, d)))


def legal_steps(st, s) -> list[int]:
    """Adjacent districts, never Rize's (nor the one he enters next if the option says so)."""
    ra, d = _t(st), st.pos[s]
    nxt = route_next(st, st.rize)
    return [e for e in range(st.rules.districts) if ra.adj[d, e] and e != st.rize
            and (st.rules.step_into_rize_next or e != nxt)]


# ---------------------------------------------------------------- taking tiles

def take_tile(st, s, h) -> None:
    """Take the tile of house h: a treasure face up, an item into the hand, a trap is resolved
    and removed. Then the district may get a time marker."""
    t, d = st.board[h], district_of(st, h)
    st.board[h], st.face_up[h] = EMPTY, False
    st.seen[s][t] = True
    kind = kind_of(st, t)
    _stat(st, s, S.S_TAKEN + kind)
    say(st, f"  {_who(st, s)} takes {tile_name(st, t)} from house {h}")
    if kind == TRAP:
        st.loc[t] = REMOVED
        _stat(st, s, S.S_TRAP + sub_of(st, t))
        (alarm, pitfall, prank)[sub_of(st, t)](st, s, h)
    else:
        receive(st, s, t, h)
    update_time_marker(st, d)


def receive(st, s, t, h) -> None:
    """A taken treasure or item goes to the player; Inaba holds at most one tile, so the held
    tile goes into the emptied house with its face kept (treasure up, item down)."""
    if st.chars[s] == INABA:
        for u in held(st, s, TREASURE) + held(st, s, ITEM):
            put_back(st, u, h, kind_of(st, u) == TREASURE)
            say(st, f"  Inaba swaps: {tile_name(st, u)} goes into house {h}")
    st.loc[t] = HAND + s
    if kind_of(st, t) == TREASURE:
        for q in range(st.n_players):
            st.seen[q][t] = True


def search(st, s, h) -> None:
    """Search: look at one house's tile and take it; the turn ends at once."""
    d = district_of(st, h)
    say(st, f"{_who(st, s)} searches house {h} in {_dname(d)}")
    _stat(st, s, S.S_SEARCHES)
    st.game_stats[S.N_GAME + d] += 1
    st.searched = True
    take_tile(st, s, h)
    st.turn_end = True


def step(st, s, d) -> None:
    """Step to an adjacent district; Lapin entering her notice-letter district takes a tile."""
    st.pos[s] = d
    say(st, f"{_who(st, s)} steps to {_dname(d)}")
    if st.letter[s] == d:
        notice_letter_take(st, s)


# ---------------------------------------------------------------- traps (rules section 7)

def alarm(st, s, h) -> None:
    """Rize moves straight to the trap's district and finds every player in it."""
    d = district_of(st, h)
    say(st, f"  alarm: Rize rushes to {_dname(d)}")
    rize_enters(st, d)
    if not st.over:
        find_players(st, d)


def pitfall(st, s, h) -> None:
    """The player skips their next turn (``pitfall_skips`` turns)."""
    st.skip[s] += st.rules.pitfall_skips
    say(st, f"  pitfall: {_who(st, s)} skips the next turn")


def prank(st, s, h) -> None:
    """Discard one random item; without items return one random treasure face up to the trap's
    house."""
    items = held(st, s, ITEM)
    if items:
        t = items[st.rng.randint(CH_HANDS, len(items))]
        st.loc[t] = DISCARDED
        say(st, f"  prank: {_who(st, s)} discards {tile_name(st, t)}")
        return
    tr = held(st, s, TREASURE)
    if tr:
        t = tr[st.rng.randint(CH_HANDS, len(tr))]
        put_back(st, t, h, True)
        say(st, f"  prank: {_who(st, s)} returns {tile_name(st, t)} to house {h}")


# ---------------------------------------------------------------- items (rules section 6)

def discard_item(st, s, item) -> None:
    """A used item leaves the game (its first tile in tile order)."""
    st.loc[held_item(st, s, item)[0]] = DISCARDED
    _stat(st, s, S.S_ITEM + item)
    say(st, f"{_who(st, s)} uses the {ITEMS[item]}")


def item_usable(st, s, item) -> bool:
    """Items are offered only where they can do something."""
    if item == LAMP:
        return bool(unseen_in(st, s, st.pos[s]))
    if item == COFFEE:
        return can_search(st, s) and len(tiles_in(st, st.pos[s])) >= 2
    if item == BICYCLE:
        return bool(legal_steps(st, s))
    if item == MAP:
        return any(unseen_in(st, s, d) for d in range(st.rules.districts))
    if item == DISGUISE_ITEM:        # an action unless the rules make it a reaction
        return st.rules.disguise == "action" and not st.disguised[s]
    return True                      # the whistle


def lamp(st, s) -> None:
    """Look at the face-down tiles of your district; traps do not trigger; nothing is taken."""
    discard_item(st, s, LAMP)
    for h in unseen_in(st, s, st.pos[s]):
        st.seen[s][st.board[h]] = True


def coffee(st, s) -> None:
    """Search two houses in one action, taking both (traps trigger). The second search needs
    the search conditions still to hold after the first tile."""
    discard_item(st, s, COFFEE)
    d = st.pos[s]
    _stat(st, s, S.S_SEARCHES)
    st.game_stats[S.N_GAME + d] += 1
    st.searched = True
    for k in range(2):
        if k == 1 and not (st.pos[s] == d and d != st.rize and not players_in(st, d, but=s)
                           and tiles_in(st, d)):
            break
        hs = tiles_in(st, d)
        take_tile(st, s, hs[decide(st, s, HOUSE, [option(st, s, O_HOUSE, d, house=h)
                                                  for h in hs])])
        if st.over or st.turn_end:
            break
    if st.rules.coffee_ends_turn:
        st.turn_end = True


def walk(st, s, n_steps) -> None:
    """Up to n steps for one action (the bicycle, Cocoa): the first step is taken, then the
    player may stop."""
    for k in range(n_steps):
        dests = legal_steps(st, s)
        if not dests:
            break
        opts = [option(st, s, O_STEP, e) for e in dests]
        if k > 0:
            opts.append(option(st, s, O_STOP, st.pos[s]))
        st.walk_left = n_steps - k
        c = decide(st, s, STEP, opts)
        if c == len(dests):
            break
        step(st, s, dests[c])
        if st.over or st.turn_end:
            break
    st.walk_left = 0


def bicycle(st, s) -> None:
    """Step up to ``bicycle_steps`` times for one action."""
    discard_item(st, s, BICYCLE)
    walk(st, s, st.rules.bicycle_steps)


def map_(st, s) -> None:
    """Look at any one face-down tile on the board."""
    discard_item(st, s, MAP)
    hs = [h for d in range(st.rules.districts) for h in unseen_in(st, s, d)]
    h = hs[decide(st, s, HOUSE, [option(st, s, O_HOUSE, district_of(st, h), house=h)
                                 for h in hs])]
    st.seen[s][st.board[h]] = True


def disguise_action(st, s) -> None:
    """The disguise as an action (the seed's turn: using an item is one of its actions): you
    are hidden, Rize finds you nowhere, until the start of your next turn."""
    discard_item(st, s, DISGUISE_ITEM)
    st.disguised[s] = True


def whistle(st, s) -> None:
    """The whistle (an exception to Rize's one step, 「アイテムを使った時などを除く」): Rize
    moves ``whistle_steps`` districts along his route at once (negative: back), entering each
    as he does on an escort, and finds the players where he stops; with 0 he skips his next
    step instead."""
    discard_item(st, s, WHISTLE)
    n = st.rules.whistle_steps
    if n == 0:
        st.chiya_hold = True
        say(st, "  the whistle holds Rize")
        return
    for _ in range(abs(n)):
        rize_enters(st, route_next(st, st.rize, 1 if n > 0 else -1))
        if st.over:
            return
    say(st, f"  the whistle calls Rize to {_dname(st.rize)}")
    find_players(st, st.rize)


def disguise(st, s) -> bool:
    """Reaction when Rize finds you (the rules option ``disguise = "reaction"``): discard a
    disguise and you are not found."""
    if st.rules.disguise != "reaction" or not held_item(st, s, DISGUISE_ITEM):
        return False
    d = st.pos[s]
    if decide(st, s, DISGUISE, [option(st, s, O_NO, d), option(st, s, O_YES, d)]) == 1:
        discard_item(st, s, DISGUISE_ITEM)
        return True
    return False


ITEM_ACTIONS = {LAMP: lamp, COFFEE: coffee, BICYCLE: bicycle, MAP: map_,
                DISGUISE_ITEM: disguise_action, WHISTLE: whistle}


# ---------------------------------------------------------------- skills (rules section 8)

def aoyama_targets(st, s) -> list[int]:
    ra, d = _t(st), st.pos[s]
    return [q for q in range(st.n_players) if q != s and (st.pos[q] == d or ra.adj[d, st.pos[q]])
            and held(st, q, TREASURE)]


def skill_usable(st, s) -> bool:
    c = st.chars[s]
    if st.skill_used[s]:
        return False
    if c == CHIMAME:
        return can_search(st, s)
    if c == AOYAMA:
        return bool(aoyama_targets(st, s))
    if c == INABA:
        return any(unseen_in(st, s, d) for d in range(st.rules.districts))
    if c == COCOA:
        return bool(legal_steps(st, s))
    return True                      # Lapin, Chiya


def notice_letter(st, s) -> None:
    """Lapin's 予告状: mark any other district."""
    ds = [d for d in range(st.rules.districts) if d != st.pos[s]]
    st.letter[s] = ds[decide(st, s, DISTRICT, [option(st, s, O_DISTRICT, d) for d in ds])]
    say(st, f"  Lapin marks {_dname(st.letter[s])}")


def notice_letter_take(st, s) -> None:
    """Lapin takes one tile of the marked district for free (not a search; traps trigger).
    The letter stays until a tile is taken."""
    d = st.letter[s]
    hs = tiles_in(st, d)
    if not hs:
        return
    st.letter[s] = -1
    say(st, f"  notice letter: Lapin takes a tile in {_dname(d)}")
    take_tile(st, s, hs[decide(st, s, HOUSE, [option(st, s, O_HOUSE, d, house=h) for h in hs])])


def chimame(st, s) -> None:
    """Look at every tile of the district and take one (a search: it ends the turn). Looked-at
    traps do not trigger; only if all are traps the chosen one does."""
    d = st.pos[s]
    for h in unseen_in(st, s, d):
        st.seen[s][st.board[h]] = True
    hs = tiles_in(st, d)
    safe = [h for h in hs if kind_of(st, st.board[h]) != TRAP]
    hs = safe or hs
    _stat(st, s, S.S_SEARCHES)
    st.game_stats[S.N_GAME + d] += 1
    st.searched = True
    take_tile(st, s, hs[decide(st, s, HOUSE, [option(st, s, O_HOUSE, d, house=h) for h in hs])])
    st.turn_end = True


def hypnotism(st, s) -> None:
    """Aoyama's 催眠術: a player in the same or an adjacent district returns a random treasure
    face down into an empty house of Aoyama's district (else the next one along the route).
    Ends the turn."""
    qs = aoyama_targets(st, s)
    opts = [option(st, s, O_PLAYER, st.pos[q], arg=q,
                   extra=treasures_and_rabbits(st, q)[0]) for q in qs]
    q = qs[decide(st, s, TARGET, opts)]
    tr = held(st, q, TREASURE)
    t = tr[st.rng.randint(CH_HANDS, len(tr))]
    d = st.pos[s]
    while not [h for h in houses(st, d) if st.board[h] == EMPTY]:
        d = route_next(st, d)
    h = next(h for h in houses(st, d) if st.board[h] == EMPTY)
    put_back(st, t, h, False)
    say(st, f"  hypnotism: {_who(st, q)} returns {tile_name(st, t)} face down to house {h}")
    update_time_marker(st, d)
    st.turn_end = True


def inaba_look(st, s) -> None:
    """Inaba's skill: look at every face-down tile of one district."""
    ds = [d for d in range(st.rules.districts) if unseen_in(st, s, d)]
    d = ds[decide(st, s, DISTRICT, [option(st, s, O_DISTRICT, d) for d in ds])]
    for h in unseen_in(st, s, d):
        st.seen[s][st.board[h]] = True


def cocoa(st, s) -> None:
    """Cocoa: step up to ``cocoa_steps`` times for one action."""
    walk(st, s, st.rules.cocoa_steps)


def chiya(st, s) -> None:
    """Chiya: Rize does not move after this turn."""
    st.chiya_hold = True


SKILLS = {LAPIN: notice_letter, CHIMAME: chimame, AOYAMA: hypnotism, INABA: inaba_look,
          COCOA: cocoa, CHIYA: chiya}


def use_skill(st, s) -> None:
    st.skill_used[s] = True
    _stat(st, s, S.S_SKILL_USED)
    st.seat_stats[s, S.S_SKILL_TURN] = st.turns
    say(st, f"{_who(st, s)} uses the skill")
    SKILLS[st.chars[s]](st, s)


# ---------------------------------------------------------------- Rize (rules section 4)

def return_tiles(st, d) -> None:
    """Rize puts carried tiles into the empty houses of a district he enters (treasures face
    up, items face down), oldest first."""
    for h in houses(st, d):
        if st.board[h] == EMPTY and st.bag:
            t = st.bag.pop(0)
            put_back(st, t, h, kind_of(st, t) == TREASURE)
            say(st, f"  Rize puts {tile_name(st, t)} back into house {h}")
    update_time_marker(st, d)


def rize_enters(st, d) -> None:
    """Rize enters a district: the game ends there if it holds the dawn marker; otherwise he
    returns carried tiles."""
    st.rize = d
    if d == st.dawn:
        st.over = st.dawn_end = True
        say(st, f"Rize reaches the dawn in {_dname(d)}: the game ends")
        return
    return_tiles(st, d)


def lose_tile(st, s) -> None:
    """A found player loses a random treasure, else a random item, else nothing."""
    tiles = held(st, s, TREASURE) or held(st, s, ITEM)
    if tiles:
        t = tiles[st.rng.randint(CH_HANDS, len(tiles))]
        st.loc[t] = BAG
        st.bag.append(t)
        _stat(st, s, S.S_LOST)
        say(st, f"  Rize takes {tile_name(st, t)} from {_who(st, s)}")


def find_players(st, d) -> None:
    """Rize finds the players in district d: each loses a tile, the group rolls the die once and
    is escorted that far along the route; players where the move ends are found in turn (a
    chain), each player at most once per chain. With ``rize_finds`` false nobody is found."""
    if not st.rules.rize_finds:
        return
    handled = [False] * st.n_players
    while True:
        group = []
        for s in range(st.n_players):
            if st.pos[s] != d or handled[s]:
                continue
            handled[s] = True
            if st.disguised[s]:
                say(st, f"  {_who(st, s)} is in disguise: not found")
                continue
            if disguise(st, s):
                say(st, f"  {_who(st, s)} escapes in disguise")
                continue
            say(st, f"  Rize finds {_who(st, s)} in {_dname(d)}")
            _stat(st, s, S.S_FOUND)
            st.game_stats[S.N_GAME + st.rules.districts + d] += 1
            lose_tile(st, s)
            group.append(s)
            if s == st.acting and st.rules.found_ends_turn:
                st.turn_end = True
        if not group:
            return
        escort(st, group)
        if st.over:
            return
        d = st.rize


def escort(st, group) -> None:
    """The found players roll the die and move that many districts with Rize."""
    roll = st.rng.randint(CH_ESCORT, st.rules.die_sides) + 1
    say(st, f"  escort: die {roll}")
    for _ in range(roll):
        nxt = route_next(st, st.rize)
        for s in group:
            st.pos[s] = nxt
        rize_enters(st, nxt)
        if st.over:
            return
    for s in group:
        if st.letter[s] == st.rize:
            st.letter_pending[s] = True


def rize_moves(st) -> None:
    """After a player's turn Rize steps one district along his route and finds who is there."""
    nxt = route_next(st, st.rize)
    say(st, f"Rize steps to {_dname(nxt)}")
    rize_enters(st, nxt)
    if not st.over:
        find_players(st, nxt)


def dawn_check(st) -> None:
    """Once the set number of districts is marked, the dawn marker goes on Rize's district."""
    if st.dawn < 0 and st.n_marked >= st.rules.empty_districts_for_dawn:
        st.dawn = st.rize
        say(st, f"dawn marker on {_dname(st.rize)}")


# ---------------------------------------------------------------- turns (rules section 3)

def action_options(st, s) -> tuple[list, list]:
    """(what, argument) of every legal action, with its feature row."""
    d = st.pos[s]
    acts, rows = [(O_PASS, -1)], [option(st, s, O_PASS, d)]
    for e in legal_steps(st, s):
        acts.append((O_STEP, e))
        rows.append(option(st, s, O_STEP, e))
    if can_search(st, s):
        for h in tiles_in(st, d):
            acts.append((O_SEARCH, h))
            rows.append(option(st, s, O_SEARCH, d, house=h))
    for i in range(len(ITEMS)):
        n = len(held_item(st, s, i))
        if n and item_usable(st, s, i):
            acts.append((O_ITEM, i))
            rows.append(option(st, s, O_ITEM, d, arg=i, extra=n))
    if skill_usable(st, s):
        acts.append((O_SKILL, -1))
        rows.append(option(st, s, O_SKILL, d, extra=st.chars[s]))
    return acts, rows


def play_turn(st, s) -> None:
    """Up to the set number of actions; a search (or being found) ends the turn."""
    st.acting, st.turn_end, st.searched, st.chiya_hold = s, False, False, False
    st.actions_left = st.rules.actions_per_turn
    if st.letter_pending[s]:
        st.letter_pending[s] = False
        if st.pos[s] == st.letter[s]:
            notice_letter_take(st, s)
    while st.actions_left > 0 and not st.turn_end and not st.over:
        acts, rows = action_options(st, s)
        what, arg = acts[decide(st, s, ACTION, rows)]
        st.actions_left -= 1
        if what == O_PASS:
            say(st, f"{_who(st, s)} passes")
            st.turn_end = True
        elif what == O_STEP:
            step(st, s, arg)
        elif what == O_SEARCH:
            search(st, s, arg)
        elif what == O_ITEM:
            ITEM_ACTIONS[arg](st, s)
        else:
            use_skill(st, s)
    st.acting = -1


def play(st) -> State:
    """Turns clockwise from seat 0, each followed by Rize's move, until the dawn or the cap."""
    cur = 0
    while not st.over:
        if st.turns >= st.rules.max_player_turns:
            st.stalled = True
            break
        st.turns += 1
        say(st, f"-- turn {st.turns}: {_who(st, cur)} in {_dname(st.pos[cur])}, Rize in "
                f"{_dname(st.rize)}")
        st.chiya_hold = False
        st.disguised[cur] = False        # a disguise hides until the own next turn
        if st.skip[cur]:
            st.skip[cur] -= 1
            say(st, f"{_who(st, cur)} skips the turn")
        else:
            play_turn(st, cur)
        if st.over:
            break
        if st.chiya_hold:
            say(st, "Rize is held: he does not move")
        else:
            rize_moves(st)
            if st.over:
                break
        dawn_check(st)
        cur = (cur + 1) % st.n_players
        if cur == 0:
            end_round(st)
    if st.rounds * st.n_players < st.turns:      # the game ended within a round
        end_round(st)
    score(st)
    return st


def end_round(st) -> None:
    """A round ends when every seat has had its turn (and Rize his moves), or with the game:
    who holds the most treasure tiles (the ``treasures`` column) leads."""
    st.rounds += 1
    mark_leaders([treasures_and_rabbits(st, s)[0] for s in range(st.n_players)], st.rounds,
                 st.led_rounds)


# ---------------------------------------------------------------- the end (rules section 5)

def score(st) -> None:
    """Most treasure tiles wins, ties by brown rabbits, then shared; Inaba wins alone holding the
    chest and otherwise (by default) cannot win. Another player's chest counts as a treasure
    tile of 0 rabbits unless ``chest_counts_for_others`` is off."""
    p = st.n_players
    primary, secondary = np.zeros(p, np.int16), np.zeros(p, np.int16)
    for s in range(p):
        tr, rab = treasures_and_rabbits(st, s)
        chest = holds_chest(st, s)
        st.seat_stats[s, S.S_TREASURES], st.seat_stats[s, S.S_RABBITS] = tr, rab
        st.seat_stats[s, S.S_CHEST] = chest
        primary[s], secondary[s] = tr, rab
        if chest and st.chars[s] != INABA and not st.rules.chest_counts_for_others:
            primary[s] -= 1
        if st.chars[s] == INABA:
            if chest:
                primary[s] = 127
            elif not st.rules.inaba_can_win_on_count:
                primary[s] = -1
    rank = np.zeros(p, np.int8)
    rank_and_share(primary, secondary, p, rank, st.win)
    st.seat_stats[:, S.S_RANK] = rank
    g = st.game_stats
    g[S.G_TURNS], g[S.G_STALLED], g[S.G_DAWN] = st.turns, st.stalled, st.dawn_end
    g[S.G_ROUNDS] = st.rounds
    say(st, "result: " + ", ".join(f"{_who(st, s)} {st.seat_stats[s, S.S_TREASURES]} treasures "
                                   f"{st.seat_stats[s, S.S_RABBITS]} rabbits win {st.win[s]:g}"
                                   for s in range(p)))


def builtin(pid: int, weights: Sequence[float] | None = None) -> Policy:
    """A built-in policy as a callable for this engine (the same compiled function), with
    other heuristic ``weights`` (``policies.WEIGHTS``) if given."""
    if weights is None:
        return lambda kind, obs, opts, n, rng: choose_builtin(pid, kind, obs, opts, n, rng)
    w = tuple(float(x) for x in weights)
    return lambda kind, obs, opts, n, rng: choose_weighted(pid, w, kind, obs, opts, n, rng)


def play_game(rules: Rules, policies: Sequence[Policy], names: Sequence[str], key: int,
              game: int, characters: Sequence[int] | None = None, log: bool = False,
              redraw: tuple[int, int] = NO_REDRAW) -> State:
    """Set up and play one game."""
    return play(setup(rules, policies, names, key, game, characters, log, redraw))
