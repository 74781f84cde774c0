"""Decision kinds, what a policy sees, and the built-in policies of the Lapin treasure hunt.

A policy is ``f(kind, obs, opts, n_opts, rng) -> index`` (``simcore.policy``). It sees only what
its player knows at the table (rules section 9): pawns, Rize, markers, face-up tiles, every
player's treasures and item count, its own items, and the face-down tiles *it* has looked at.

Decision kinds (``kind``):

- ``PLACE``    choose the start district (options: free districts).
- ``ACTION``   the next action of the turn: pass, step, search a house, use an item, the skill.
- ``STEP``     one more step of a bicycle or Cocoa move (options: districts, then ``STOP``).
- ``HOUSE``    choose a house: each coffee search, the map, Chimame's take, the notice letter.
- ``DISTRICT`` choose a district: Lapin's notice letter, Inaba's look.
- ``TARGET``   choose a player: Aoyama's hypnotism.
- ``DISGUISE`` reaction when Rize finds you holding a disguise: ``NO`` or ``YES`` (only with
  the rules option ``disguise = "reaction"``; by default the disguise is an ``ACTION``).
- ``CHARACTER`` choose your character at setup (rules option ``character_selection =
  "choice"``, the default): seats choose in seat order, seat 0 first, each from the characters
  still free (options ``O_CHARACTER``, ``F_ARG`` the character id, in roster order). Nothing
  is on the board yet: the observation's districts and Rize are -1, and so is the character
  of every seat that has not chosen.

Each option is one row of ``opts`` (float32, ``N_FEATURES`` columns):

- ``F_WHAT``     option code: ``O_PASS, O_STEP, O_SEARCH, O_ITEM, O_SKILL, O_STOP, O_HOUSE,
  O_DISTRICT, O_PLAYER, O_NO, O_YES, O_CHARACTER``.
- ``F_ARG``      item id for ``O_ITEM`` (``rules.ITEMS`` order), target seat for ``O_PLAYER``,
  character id for ``O_CHARACTER``, else -1.
- ``F_DISTRICT`` the district the option concerns (0-based: step destination, the house's
  district, the marked district, the target's district; else the player's own district).
- ``F_HOUSE``    house index (district * houses + k) for ``O_SEARCH`` and ``O_HOUSE``, else -1.
- ``F_KNOWN``    1 if the player knows that house's tile (face up or looked at), else 0.
- ``F_TILE``     known tile kind: 0 treasure, 1 item, 2 trap, 3 Inaba's chest; -1 unknown.
- ``F_VALUE``    known treasure's brown rabbits (a white-rabbit tile counts half a pair).
- ``F_SUB``      known item or trap id, else -1.
- ``F_RIZE``     Rize's patrol steps until he enters that district (0: he is there; 1: next).
- ``F_PLAYERS``  other players in that district.
- ``F_TILES``    tiles on the board there.
- ``F_UNSEEN``   face-down tiles there the player has not looked at.
- ``F_EXTRA``    ``O_ITEM``: how many of that item the player holds; ``O_SKILL``: the
  character id; ``O_PLAYER``: the target's treasures; else 0.

An ``O_CHARACTER`` row has only ``F_WHAT`` and ``F_ARG``; its other columns are -1 (district,
house, tile, sub) or 0.

``obs`` (float32, ``N_OBS``): ``OB_SEAT, OB_PLAYERS, OB_DISTRICT, OB_RIZE`` (districts 0-based),
``OB_ACTIONS`` (actions left), ``OB_TURN`` (player turns so far), ``OB_MARKERS`` (time markers
on the board), ``OB_DAWN`` (dawn district, -1 before dawn), ``OB_CHAR`` (own character id),
``OB_SKILL`` (1 while the skill is unused), ``OB_LETTER`` (own notice-letter district, -1 none),
``OB_RIZE_STEPS`` (Rize's steps to the own district), ``OB_TREASURES, OB_RABBITS`` (own),
``OB_SEARCHED`` (searched this turn), then ``OB_ITEMS + i`` own count of item i, and per seat
``s`` (``MAX_PLAYERS`` slots, -1 where no seat): ``OB_POS + s``, ``OB_TREAS + s``,
``OB_NITEMS + s``, ``OB_CHARS + s``, ``OB_CHEST_HELD + s`` (1 while seat s holds Inaba's chest:
treasures lie face up, so it is public; it tells the chest from a lone white-rabbit tile, both
one treasure of 0 rabbits), ``OB_RIZE_TO + s`` (Rize's patrol steps until he enters seat s's
district, 0: he is there); then ``OB_DIE`` (sides of the escort die). The rest of the public
table follows (rules section "Knowledge" lists every public fact; tests/rapinsim/
test_observation.py checks each reads off the observation and nothing hidden leaks in):
``OB_ACTING`` (seat whose turn it is, -1 between turns and at setup), ``OB_ACTING_ACTIONS`` and
``OB_ACTING_SEARCHED`` (that turn's actions left and search; 0 between turns), ``OB_RIZE_HELD``
(1: Rize does not move after this turn: Chiya's skill, a whistle of 0), ``OB_BAG`` (tiles Rize
carries), ``OB_WALK_LEFT`` (at a ``STEP`` decision the steps left in the bicycle's or Cocoa's
walk, this one included; else 0); per seat ``s`` (-1 where no seat): ``OB_SKIPS + s`` (turns
still to skip, pitfall), ``OB_SKILLS + s`` (1 while its skill is unused), ``OB_DISGUISED + s``,
``OB_LETTERS + s`` (its notice-letter district, -1 none), ``OB_LETTER_PENDING + s`` (1: it takes
at its letter when its next turn starts), ``OB_BROWN + s`` and ``OB_WHITE + s`` (brown rabbits
and white-rabbit tiles it holds), ``OB_HELD_BY_BROWN + s * (MAX_BROWN + 1) + b`` (its treasures
of b brown rabbits: with the white tiles and the chest, which treasures it holds); per district
``d`` (``MAX_DISTRICTS`` slots, -1 where none) ``OB_MARKED + d`` (1: a time marker); per house
``h`` (``MAX_HOUSES`` slots) ``OB_HOUSE + h`` (-1 empty, no such house or before the deal, 0
face down, 1 face up), ``OB_HOUSE_TILE + h`` (what everyone knows the tile is, in ``F_TILE``
codes: 0 a treasure, 1 an item, 3 Inaba's chest, -1 unknown or none; known are a face-up
treasure and a tile that came back from a hand or Rize's bag: a treasure, face down too after
Aoyama's hypnotism, as everyone has seen it, an item as an item) with ``OB_HOUSE_BROWN + h`` and
``OB_HOUSE_WHITE + h`` (that treasure's brown rabbits, 1 for a white-rabbit tile) and
``OB_HOUSE_SEEN + h`` (bit q: seat q has looked at the tile; -1 empty), then the
tiles Rize carries, oldest first, alike (``OB_BAG_TILE + i``, -1 none; ``OB_BAG_BROWN + i``,
``OB_BAG_WHITE + i``). What a seat alone knows of a face-down tile reaches it through the option
rows (``F_KNOWN``...) where the house is an option. A user policy (and search) gets the whole
observation.

The compiled engine writes a built-in heuristic only the fields it reads (``BUILTIN_OBS``; the
rest cost careful ~9% of its time): careful and greedy read ``OB_SEAT, OB_PLAYERS, OB_ACTIONS,
OB_CHAR, OB_RIZE_STEPS, OB_SEARCHED, OB_TREASURES``, the evader and the keeper also
``OB_CHARS``, ``OB_CHEST_HELD``, ``OB_RIZE_TO`` and ``OB_DIE``, and ``distilled`` those and
``OB_TREAS`` (``DISTILLED_OBS``); none reads the public table from ``OB_ACTING`` on. Nor do they
read the option columns ``F_DISTRICT``, ``F_HOUSE`` and ``F_SUB``
(``UNREAD_FEATURES``), which the compiled engine writes for user policies only.

Built-in policies (``POLICIES``, dispatched by id inside the engine):

``random``: every legal option equally likely, at every decision; a baseline and the fastest.

``careful``: a thief who never ends a turn where Rize steps next: it scores each option and
takes the best (ties broken at random). It chooses the free character of the highest
``CHARACTER_VALUE``. Searching or passing in the district Rize enters next
is nearly ruled out; it steps away, or plays Chiya's skill to hold Rize, instead. It uses what
it has seen: known treasures first, unseen tiles next, known items after, known traps never;
the lamp before searching a district with unseen tiles; it starts far ahead of Rize and always
uses a disguise when found (the reaction rules) or, as an action, early in a turn, when
it holds a treasure and Rize's patrol may reach its district before its next turn (within as
many steps as there are players); the whistle where Rize steps next, before its search (to
stay and search there: by default the whistle sends him one district back).

``evader``: predicts Rize's path before its next turn (``rize_reach``: one patrol step after
each of the players' turns, plus an expected escort, the die's mean, for each other player he
would find on the way, and again for the players that escort's end would find: the chain) and
plays as ``careful`` with every district in that path counted as the danger ``careful`` sees
only in Rize's next district: it searches when its district is out of the path, steps out of it
otherwise, and places its pawn far ahead of Rize. Its character, the disguise and the whistle
it plays as ``careful`` does.

``keeper``: the ``evader`` that keeps Inaba's chest. Holding the chest (``OB_CHEST_HELD``) it
reckons every escort at the die's largest face, and Inaba holding it never searches or takes a
tile (Inaba holds one tile: any take would swap the chest back onto the board) and passes where
safe. Inaba without the chest searches for it and leaves known other tiles alone (they cannot
make Inaba win); another character takes a known chest first when Inaba plays, to keep it from
Inaba.

``greedy``: chooses characters by ``CHARACTER_VALUE`` too; uses items and its skill as soon
as they are legal (coffee, lamp, map, bicycle, disguise, whistle, skill),
searches whatever it can (known treasures first, avoiding known traps), walks toward the most
tiles and ignores Rize except that it always uses a disguise.
"""
from __future__ import annotations

from numba import njit, types
from numba.extending import intrinsic

from simcore.layout import Layout
from simcore.policy import POLICY_SIG, UserPolicy, Weights, policy
from simcore.rng import randint, uniform

from .rules import (AOYAMA, BICYCLE, CHIMAME, CHIYA, COCOA, COFFEE, DISGUISE as DISGUISE_ITEM,
                    INABA, ITEMS, LAMP, LAPIN, MAP, MAX_BROWN, MAX_DISTRICTS, MAX_HOUSES,
                    MAX_PLAYERS, WHISTLE)

PLACE, ACTION, STEP, HOUSE, DISTRICT, TARGET, DISGUISE, CHARACTER = range(8)
KIND_NAMES = ("place", "action", "step", "house", "district", "target", "disguise",
              "character")

(O_PASS, O_STEP, O_SEARCH, O_ITEM, O_SKILL, O_STOP, O_HOUSE, O_DISTRICT, O_PLAYER, O_NO, O_YES,
 O_CHARACTER) = range(12)
OPTION_NAMES = ("pass", "step", "search", "item", "skill", "stop", "house", "district",
                "player", "no", "yes", "character")

(F_WHAT, F_ARG, F_DISTRICT, F_HOUSE, F_KNOWN, F_TILE, F_VALUE, F_SUB, F_RIZE, F_PLAYERS,
 F_TILES, F_UNSEEN, F_EXTRA) = range(13)
N_FEATURES = 13
CHEST_TILE = 3

OBS = Layout("observation")     # (documented above)
OB_SEAT = OBS.field("seat")
OB_PLAYERS = OBS.field("players")
OB_DISTRICT = OBS.field("district")
OB_RIZE = OBS.field("rize")
OB_ACTIONS = OBS.field("actions", meaning="actions left")
OB_TURN = OBS.field("turn", meaning="player turns so far")
OB_MARKERS = OBS.field("markers", meaning="time markers on the board")
OB_DAWN = OBS.field("dawn", meaning="dawn district, -1 before dawn")
OB_CHAR = OBS.field("character")
OB_SKILL = OBS.field("skill", meaning="1 while the skill is unused")
OB_LETTER = OBS.field("letter", meaning="own notice-letter district, -1 none")
OB_RIZE_STEPS = OBS.field("rize_steps", meaning="Rize's steps to the own district")
OB_TREASURES = OBS.field("treasures")
OB_RABBITS = OBS.field("rabbits")
OB_SEARCHED = OBS.field("searched", meaning="searched this turn")
OB_ITEMS = OBS.field("items", len(ITEMS), "own count of each item")
OB_POS = OBS.field("positions", MAX_PLAYERS, "each seat's district, -1 no seat")
OB_TREAS = OBS.field("treasures_of", MAX_PLAYERS)
OB_NITEMS = OBS.field("items_of", MAX_PLAYERS)
OB_CHARS = OBS.field("characters", MAX_PLAYERS)
OB_CHEST_HELD = OBS.field("chest_held", MAX_PLAYERS)
OB_RIZE_TO = OBS.field("rize_to", MAX_PLAYERS, "Rize's patrol steps to each seat's district")
OB_DIE = OBS.field("die", meaning="sides of the escort die")
# The rest of the public table (appended: the fields above keep their offsets), for user
# policies and search; the built-in heuristics read none of it (rules, "Knowledge").
OB_ACTING = OBS.field("acting", meaning="seat whose turn it is, -1 between turns")
OB_ACTING_ACTIONS = OBS.field("acting_actions", meaning="actions left in that turn")
OB_ACTING_SEARCHED = OBS.field("acting_searched", meaning="that seat searched this turn")
OB_RIZE_HELD = OBS.field("rize_held", meaning="1: Rize does not move after this turn")
OB_BAG = OBS.field("bag", meaning="tiles Rize carries")
OB_WALK_LEFT = OBS.field("walk_left", meaning="steps left in the acting seat's walk, 0 none")
OB_SKIPS = OBS.field("skips", MAX_PLAYERS, "each seat's turns still to skip (pitfall)")
OB_SKILLS = OBS.field("skills", MAX_PLAYERS, "1 while that seat's skill is unused")
OB_DISGUISED = OBS.field("disguised", MAX_PLAYERS, "1: in disguise until its next turn")
OB_LETTERS = OBS.field("letters", MAX_PLAYERS, "each seat's notice-letter district, -1 none")
OB_LETTER_PENDING = OBS.field("letter_pending", MAX_PLAYERS,
                              "1: takes at its letter when its next turn starts")
OB_BROWN = OBS.field("brown_of", MAX_PLAYERS, "brown rabbits each seat holds")
OB_WHITE = OBS.field("white_of", MAX_PLAYERS, "white-rabbit tiles each seat holds")
OB_HELD_BY_BROWN = OBS.field("held_by_brown", MAX_PLAYERS * (MAX_BROWN + 1),
                             "[s * (MAX_BROWN + 1) + b] treasures of b brown rabbits seat s holds")
OB_MARKED = OBS.field("marked", MAX_DISTRICTS, "1: the district holds a time marker")
OB_HOUSE = OBS.field("houses", MAX_HOUSES, "-1 empty or no house, 0 face down, 1 face up")
OB_HOUSE_TILE = OBS.field("house_tiles", MAX_HOUSES, "what everyone knows the house's tile is "
                          "(F_TILE codes: 0 treasure, 1 item, 3 chest), -1 unknown or none")
OB_HOUSE_BROWN = OBS.field("house_brown", MAX_HOUSES, "that known treasure's brown rabbits")
OB_HOUSE_WHITE = OBS.field("house_white", MAX_HOUSES, "1: it is a white-rabbit tile")
OB_HOUSE_SEEN = OBS.field("house_seen", MAX_HOUSES, "bit q set: seat q has looked at the house's "
                          "tile (looks are played in the open), -1 empty or no house")
OB_BAG_TILE = OBS.field("bag_tiles", MAX_HOUSES, "the tiles Rize carries, oldest first (F_TILE "
                        "codes), -1 none")
OB_BAG_BROWN = OBS.field("bag_brown", MAX_HOUSES, "a carried treasure's brown rabbits")
OB_BAG_WHITE = OBS.field("bag_white", MAX_HOUSES, "1: a carried white-rabbit tile")
N_OBS = OBS.size
MAX_OPTS = 128

RANDOM, CAREFUL, GREEDY, EVADER, KEEPER = range(5)

# The observation fields a built-in heuristic reads (careful, greedy; the evader and the keeper
# also the per-seat ones and the die): the compiled engine writes them only (``observe``), and
# tests/rapinsim/test_engines.py checks the heuristics play the same with the others scrambled.
BUILTIN_OBS = (OB_SEAT, OB_PLAYERS, OB_ACTIONS, OB_CHAR, OB_RIZE_STEPS, OB_SEARCHED,
               OB_TREASURES)
PREDICTING_OBS = tuple(range(OB_CHARS, OB_CHARS + MAX_PLAYERS)) + tuple(
    range(OB_CHEST_HELD, OB_RIZE_TO + MAX_PLAYERS)) + (OB_DIE,)
DISTILLED_OBS = tuple(range(OB_TREAS, OB_TREAS + MAX_PLAYERS))   # and PREDICTING_OBS
# The feature columns no built-in heuristic reads: the compiled engine leaves them unwritten
# for them (``features``).
UNREAD_FEATURES = (F_DISTRICT, F_HOUSE, F_SUB)

# What the heuristic policies think a character is worth when they choose one (by character
# id, rules.CHARACTERS order): the characters' win rates in percent in 4-player games of
# careful and greedy play on the default town with the characters dealt at random (50,000
# games, seed 15; the
# snippet in docs/rapinsim-rules.md, "Choosing characters"), so a heuristic player takes the
# character that wins most often with such play.
CHARACTER_VALUE = (28.7, 36.3, 28.3, 2.5, 26.1, 27.9)
POLICIES = {"random": RANDOM, "careful": CAREFUL, "greedy": GREEDY, "evader": EVADER,
            "keeper": KEEPER}
TUNED = ("greedy[unknown=20.0,treasure=25.0,step_tiles=1.0,place_tiles=2.0]",)
"""Heuristics with the weights ``analyses.tune`` found (greedy's race winner against careful,
evader and keeper; docs/analyses.md, "Tuning a heuristic"):
the intransitivity lens (``analyses.intransitivity``) plays them beside the built-ins."""
DISTILLED = len(POLICIES)
"""The id of ``distilled`` (``distilled.py``): a built-in like the heuristics, whose weights
the batch passes into the engine (``engine.rule_vector``)."""
BUILTIN_IDS = {**POLICIES, "distilled": DISTILLED}

# The weights of the heuristics' option scores (``_score``; the same for every heuristic):
# what a house of unknown tile is worth to search or take, a known treasure (plus its brown
# rabbits), a known item; a step's value per tile in a district free of pawns and Rize and per
# unseen tile there, what stepping into danger costs with actions left (the last action: 40),
# and a start district's value per tile (plus Rize's steps to it).
DEFAULT_W = (8.0, 20.0, 12.0, 1.0, 0.5, 6.0, 0.3)
WEIGHTS = Weights(
    game="rapinsim",
    names=("unknown", "treasure", "item", "step_tiles", "step_unseen", "step_danger",
           "place_tiles"),
    meanings=("score of searching (or taking) a house whose tile it does not know",
              "score of a known treasure, plus its brown rabbits",
              "score of a known item tile",
              "a step's score per tile in a district with no other pawn and without Rize",
              "a step's score per tile there it has not seen",
              "what stepping into danger (Rize's path) costs while actions are left",
              "a start district's score per tile on it (plus Rize's steps to it)"),
    bounds=((0.0, 100.0), (0.0, 100.0), (0.0, 100.0), (0.0, 10.0), (0.0, 10.0),
            (0.0, 100.0), (0.0, 10.0)),
    defaults={name: DEFAULT_W for name in ("careful", "greedy", "evader", "keeper")},
    other=DEFAULT_W)
"""The heuristics' weights (``heuristic``): the engine reads a seat's from G."""
heuristic = WEIGHTS.heuristic
_WT = types.UniTuple(types.float64, len(DEFAULT_W))

__all__ = ["KIND_NAMES", "POLICIES", "POLICY_SIG", "UserPolicy", "choose_builtin", "policy"]


@njit(cache=True, inline="always")
def _best(pid, w, kind, obs, opts, n, rng):
    """Index of the highest score (``_score``), ties broken by a random jitter below 0.5.
    Careful and greedy count a fixed stretch of Rize's route as danger; the evader and the
    keeper predict it (``_danger_reach``). Two loops: one shared loop measured 4-6% slower
    for careful and greedy."""
    if pid <= GREEDY:
        return _argmax(pid, w, kind, obs, opts, n, rng, 1.0 if pid == CAREFUL else 0.0, False)
    return _argmax(pid, w, kind, obs, opts, n, rng, _danger_reach(pid, obs, opts, n),
                   pid == KEEPER)


@njit(cache=True, inline="always")
def _argmax(pid, w, kind, obs, opts, n, rng, reach, keeper):
    best, arg = -1e30, 0
    for i in range(n):
        s = _score(pid, kind, data_ptr(obs), data_ptr(opts[i]), reach, w)
        if keeper:
            s = _keeper_score(kind, obs, opts[i], reach, s)
        s += 0.5 * uniform(rng, 0)
        if s > best:
            best, arg = s, i
    return arg


@njit(cache=True, inline="always")
def _character_value(c):
    return CHARACTER_VALUE[int(c)]


@njit(cache=True, inline="always")
def rize_reach(obs, escort):
    """Rize's predicted steps before this player's next turn: one after each player's turn,
    plus ``escort`` steps for each other player standing within them (he finds them and the
    die moves him on with them), again for the players the longer path then reaches (the
    chain)."""
    me, n = obs[OB_SEAT], int(obs[OB_PLAYERS])
    reach = obs[OB_PLAYERS]
    found = 0
    grew = True
    while grew:
        grew = False
        for q in range(n):
            x = obs[OB_RIZE_TO + q]
            if q != me and (found >> q) & 1 == 0 and 1 <= x <= reach:
                found |= 1 << q
                reach += escort
                grew = True
    return reach


@njit(cache=True, inline="always")
def _danger_reach(pid, obs, opts, n):
    """How far along Rize's route the evader and the keeper count a district as in danger
    (greedy: nowhere, careful: his next district): the evader his predicted path (escorts at
    the die's mean), the keeper holding the chest the path with every escort at the die's
    largest face. Where no option leaves the predicted path (the player stays, or steps, out
    of it), they fall back to careful's danger: Rize's next district."""
    die = obs[OB_DIE]
    if pid == KEEPER and obs[OB_CHEST_HELD + int(obs[OB_SEAT])] > 0:
        reach = rize_reach(obs, die)
    else:
        reach = rize_reach(obs, (die + 1) / 2)
    here = obs[OB_RIZE_STEPS]
    if here == 0 or here > reach:
        return reach
    for i in range(n):
        x = opts[i, F_RIZE]
        if opts[i, F_WHAT] == O_STEP and x > reach:
            return reach
    return 1.0


@njit(cache=True, inline="always")
def _tile_score(o, inaba, w):
    """What a house is worth to search, from what the player knows of it (weights ``w``)."""
    if o[F_KNOWN] == 0:
        return w[0]
    t = o[F_TILE]
    if t == CHEST_TILE:
        return 40.0 if inaba else 12.0
    if t == 0:
        return w[1] + o[F_VALUE]
    if t == 1:
        return w[2]
    return -50.0


@intrinsic
def data_ptr(typingctx, arr):
    """The data pointer of a contiguous array (``_score`` takes the observation and the option
    row as two pointers, not as two array structs of seven fields each; the engine's G)."""
    def codegen(context, builder, sig, args):
        return context.make_array(sig.args[0])(context, builder, args[0]).data
    return types.CPointer(arr.dtype)(arr), codegen


_F32P = types.CPointer(types.float32)


@njit(cache=True, inline="always")
def _keeper_score(kind, obs, o, reach, score):
    """The keeper's score of an option: the evader's ``score`` but where the chest decides.
    Inaba holding the chest never takes a tile (it would swap the chest out) and stays where
    Rize will not come; Inaba without it wants only the chest; anyone else takes a known chest
    first when Inaba plays."""
    w = o[F_WHAT]
    here_danger = 1 <= obs[OB_RIZE_STEPS] <= reach
    inaba = obs[OB_CHAR] == INABA
    takes = w == O_SEARCH or kind == HOUSE or (w == O_ITEM and o[F_ARG] == COFFEE) or (
        w == O_SKILL and o[F_EXTRA] == CHIMAME)
    if inaba:
        if obs[OB_CHEST_HELD + int(obs[OB_SEAT])] > 0:
            if takes and kind != HOUSE:
                return -200.0
            if kind == ACTION and w == O_PASS and not here_danger:
                return 10.0
            return score
        if takes and o[F_KNOWN] == 1 and o[F_TILE] != CHEST_TILE:
            return -20.0 if kind == ACTION else 1.0
        return score
    if takes and o[F_TILE] == CHEST_TILE:
        for q in range(int(obs[OB_PLAYERS])):
            if obs[OB_CHARS + q] == INABA:
                return 45.0
    return score


@njit(types.float64(types.int64, types.int64, _F32P, _F32P, types.float64, _WT),
      cache=True, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _score(pid, kind, obs, o, reach, wt):
    """An option's score (compiled once, not inlined: inlining it cost seconds of compile),
    with the weights ``wt`` (``WEIGHTS``). A district is in danger when Rize enters it within
    ``reach`` steps (``_danger_reach``)."""
    w = o[F_WHAT]
    inaba = obs[OB_CHAR] == INABA
    last = obs[OB_ACTIONS] <= 1
    here_danger = 1 <= obs[OB_RIZE_STEPS] <= reach
    if kind == DISGUISE:
        return 1.0 if w == O_YES else 0.0
    if kind == CHARACTER:
        return _character_value(o[F_ARG])
    if kind == PLACE:
        return o[F_RIZE] + wt[6] * o[F_TILES]
    if kind == TARGET:
        return o[F_EXTRA]
    if kind == DISTRICT:
        return o[F_UNSEEN] + 0.5 * o[F_TILES] - 3.0 * (o[F_RIZE] == 1)
    if kind == HOUSE:
        return _tile_score(o, inaba, wt)
    greedy = pid == GREEDY
    danger = 1 <= o[F_RIZE] <= reach
    if w == O_PASS or w == O_STOP:
        if kind == STEP:       # stopping keeps the player where it is
            return -40.0 if danger else 2.0 + o[F_TILES] * (o[F_PLAYERS] == 0)
        return -100.0 if (danger or here_danger and not greedy) else -5.0
    if w == O_SEARCH:
        return _tile_score(o, inaba, wt) - (100.0 if danger else 0.0)
    if w == O_STEP:
        free = o[F_PLAYERS] == 0 and o[F_RIZE] != 0
        s = 3.0 + wt[3] * (o[F_TILES] * free) + wt[4] * o[F_UNSEEN]
        if danger:
            s -= 40.0 if last else wt[5]
        return s
    if w == O_ITEM:
        item = o[F_ARG]
        if item == COFFEE:
            return 30.0 if greedy else 9.0 - 100.0 * danger
        if item == LAMP:
            return 25.0 if greedy else 15.0 * (o[F_UNSEEN] > 0) - 20.0 * danger
        if item == MAP:
            return 20.0 if greedy else 1.0
        if item == BICYCLE:
            return 15.0 if greedy else (18.0 if here_danger else -1.0)
        if item == DISGUISE_ITEM:      # an action: hides until the own next turn
            if greedy:
                return 14.0
            comes = 0 < obs[OB_RIZE_STEPS] <= obs[OB_PLAYERS]   # Rize may come before then
            return 26.0 if comes and obs[OB_TREASURES] > 0 else -50.0
        if item == WHISTLE:            # calls Rize away to stay and search where he comes next
            nxt = obs[OB_RIZE_STEPS] == 1
            return 13.0 if greedy else (24.0 if nxt and not obs[OB_SEARCHED] else -60.0)
        return 0.0
    if w == O_SKILL:
        if greedy:
            return 28.0
        c = o[F_EXTRA]
        if c == CHIYA:
            return 40.0 if here_danger else -2.0
        if c == COCOA:
            return 17.0 if here_danger else 1.0
        if c == CHIMAME:
            return -90.0 if danger else 25.0
        if c == AOYAMA:
            return -90.0 if danger else 18.0
        if c == LAPIN or c == INABA:
            return 4.0
        return 0.0
    return 0.0


@njit(cache=True, inline="always")
def random_policy(kind, obs, opts, n_opts, rng):
    return randint(rng, 0, n_opts)


@njit(types.int64(types.int64, _WT, *POLICY_SIG.args), cache=True, _nrt=False)
def choose_weighted(pid, w, kind, obs, opts, n_opts, rng):
    """The built-in policy ``pid``'s choice with the heuristic weights ``w`` (``WEIGHTS``)."""
    if pid == RANDOM:
        return random_policy(kind, obs, opts, n_opts, rng)
    return _best(pid, w, kind, obs, opts, n_opts, rng)


@njit(types.int64(types.int64, *POLICY_SIG.args), cache=True, _nrt=False)
def choose_builtin(pid, kind, obs, opts, n_opts, rng):
    """The built-in policy ``pid``'s choice."""
    return choose_weighted(pid, DEFAULT_W, kind, obs, opts, n_opts, rng)
