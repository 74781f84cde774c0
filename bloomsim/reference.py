"""The reference engine: Broom Service as plain, readable Python, one function per rule.

This is the executable specification. It reads the rules data directly (names, not arrays),
draws from the same ``simcore.rng`` streams in the same order as the compiled engine, and asks
the same policies the same questions (``policies`` documents the decisions and their features),
so a (seed, game) is the same game in both engines: ``tests/bloomsim`` checks they agree.

Build a position by hand for a scenario test::

    g = new_game(n_players=3, seed=1)          # set up: clouds, decks, resources, pawns
    g.potions[0] = [0, 2, 0]; g.pawns[0] = [area(g, "A13"), area(g, "A00")]
    g.policies[0] = scripted([0, 0])           # the choices seat 0 will make
    druid(g, 0, role(g, "peak_druid"), brave=True)
    assert g.score[0] == ...

Areas, towers and roles are indices in the rules' lists; ``area(g, id)``, ``tower(g, id)`` and
``role(g, id)`` translate names.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from simcore.policy import ask_reference
from simcore.results import mark_leaders
from simcore.rng import NO_REDRAW, PyRng, root_key

from . import policies as P
from .rules import (CASTLE, CH_ENCHANTED, CH_EVENTS, CH_TILES, COLOURS, EVENT_CODES, N_CHANCE,
                    WATER, Rules, default_rules)

MAX_PLAYERS = 6
OBS_LEN = P.obs_len(MAX_PLAYERS)
PTS = ("pts_towers", "pts_brave", "pts_events", "pts_enchanted", "pts_lightning", "pts_sets",
       "pts_floor")


@dataclass
class Game:
    """One game's full state (the reference engine's position)."""

    rules: Rules
    n_players: int
    policies: list                      # per seat: f(kind, obs, opts, n_opts, rng) -> int
    names: list
    rng: PyRng
    game_index: int = 0
    verbose: bool = False
    # board (built from the rules)
    terrain: list = field(default_factory=list)        # [A] terrain name
    neighbours: list = field(default_factory=list)     # [A] sorted neighbour indices
    towers_of_area: list = field(default_factory=list)  # [A] ascending tower indices
    # the position
    round: int = 0                      # 1-based once the game runs
    selecting: bool = False             # hands are being chosen: their sizes are secret
    turn: int = 0                       # turn of the round, 0-based
    start_player: int = 0
    leader: int = 0
    last_brave: int = 0                 # who last acted bravely this round (start player if none)
    event: int = -1                     # index in rules.events of the event in force, -1 none
    event_deck: list = field(default_factory=list)
    enchanted_deck: list = field(default_factory=list)
    enchanted: set = field(default_factory=set)        # roles enchanted this round
    revealed_this_round: list = field(default_factory=list)
    cloud_space_area: list = field(default_factory=list)  # [C] area of each cloud space
    clouds: dict = field(default_factory=dict)         # cloud space -> tile index (uncharmed)
    tower_filled: list = field(default_factory=list)   # [K] round tower holds a potion
    score: list = field(default_factory=list)
    pts: dict = field(default_factory=dict)            # breakdown name -> [P]
    potions: list = field(default_factory=list)        # [P][3] green, purple, orange
    wands: list = field(default_factory=list)
    pawns: list = field(default_factory=list)          # [P][2] area
    lightning: list = field(default_factory=list)      # bolts of charmed clouds
    hands: list = field(default_factory=list)          # [P] set of roles
    played: list = field(default_factory=list)         # [P] set of roles played this round
    # counters for the results
    deliveries: list = field(default_factory=list)
    clouds_charmed: list = field(default_factory=list)
    brave_done: list = field(default_factory=list)
    brave_cancelled: list = field(default_factory=list)
    led_rounds: list = field(default_factory=list)     # [P] bitmask: led after round r
    event_round: list = field(default_factory=list)    # [E] round revealed, 0 never
    enchanted_rounds: list = field(default_factory=list)  # [R] bitmask
    tower_deliveries: list = field(default_factory=list)  # [K]
    charmed_round: list = field(default_factory=list)   # [C] round charmed, 0 never
    decisions: list = field(default_factory=list)      # (seat, kind, n_opts, choice)
    log: list = field(default_factory=list)

    def say(self, text: str) -> None:
        if self.verbose:
            self.log.append(text)


# ---------------------------------------------------------------- names

def area(g: Game, name: str) -> int:
    return g.rules.area_ids.index(name)


def tower(g: Game, name: str) -> int:
    return g.rules.tower_ids.index(name)


def role(g: Game, name: str) -> int:
    return g.rules.role_ids.index(name)


def _area_name(g, a):
    return f"{g.rules.area_ids[a]}({g.terrain[a]})"


def _role_name(g, r):
    return g.rules.role_ids[r]


def scripted(choices: Sequence[int]) -> Callable:
    """A policy that makes the given choices in order (for scenario tests)."""
    queue = list(choices)

    def choose(kind, obs, opts, n_opts, rng):
        if not queue:
            raise AssertionError(f"scripted policy ran out of choices at a {P.KIND_NAMES[kind]} "
                                 f"decision with {n_opts} options")
        return queue.pop(0)
    return choose


# ---------------------------------------------------------------- setup

def new_game(rules: Rules | None = None, n_players: int = 4, policies: Sequence | None = None,
             seed: int = 0, game: int = 0, *, key: int | None = None,
             names: Sequence[str] | None = None, verbose: bool = False,
             redraw: tuple[int, int] = NO_REDRAW) -> Game:
    """A game after setup (spec section 1): ready for round 1. Its streams derive from
    ``key`` (``simcore.rng.root_key``), else from ``seed``; ``redraw``: the streams drawn
    anew (``simcore.rng``)."""
    rules = rules or default_rules()
    if policies is None:
        policies = [P.random_policy] * n_players
    g = Game(rules=rules, n_players=n_players, policies=list(policies),
             names=list(names or [getattr(p, "__name__", "policy") for p in policies]),
             rng=PyRng(root_key(seed) if key is None else key, game, N_CHANCE, n_players,
                       redraw),
             game_index=game, verbose=verbose)
    b = rules.board
    g.terrain = [a["terrain"] for a in b["areas"]]
    ids = rules.area_ids
    g.neighbours = [set() for _ in ids]
    for x, y in b["adjacent"]:
        g.neighbours[ids.index(x)].add(ids.index(y))
        g.neighbours[ids.index(y)].add(ids.index(x))
    g.neighbours = [sorted(s) for s in g.neighbours]
    g.towers_of_area = [[k for k, t in enumerate(b["towers"]) if a in t["areas"]] for a in ids]
    g.tower_filled = [False] * len(b["towers"])
    g.tower_deliveries = [0] * len(b["towers"])
    setup(g)
    return g


def setup(g: Game) -> None:
    """Spec 1: resources, pawns in the castles, clouds, event deck, enchanted deck; with
    ``pawn_start: "choose"`` each seat then places its pawns (``place_pawns``)."""
    r, n = g.rules, g.n_players
    g.score = [r.start_score] * n
    g.pts = {k: [0] * n for k in PTS}
    g.potions = [[r.start_potions.get(c, 0) for c in COLOURS] for _ in range(n)]
    g.wands = [r.start_wands["first_player"] if s == 0 else r.start_wands["last_player"]
               if s == n - 1 else r.start_wands["others"] for s in range(n)]
    castles = [g.rules.area_ids.index(c) for c in r.board["castles"]]
    g.pawns = [list(castles) for _ in range(n)]
    g.lightning = [0] * n
    g.hands = [set() for _ in range(n)]
    g.played = [set() for _ in range(n)]
    for k in ("deliveries", "clouds_charmed", "brave_done", "brave_cancelled"):
        setattr(g, k, [0] * n)
    g.led_rounds = [0] * n
    g.event_round = [0] * len(r.events)
    g.enchanted_rounds = [0] * len(r.roles)
    # clouds: every tile shuffled, one face up on each cloud space
    # (an area may hold several cloud spaces)
    tiles = [i for i, t in enumerate(_tiles(r))]
    g.rng.shuffle(CH_TILES, tiles)
    g.cloud_space_area = [g.rules.area_ids.index(a) for a in r.board["cloud_spaces"]]
    g.clouds = {i: tiles[i] for i in range(len(g.cloud_space_area))}
    g.charmed_round = [0] * len(g.cloud_space_area)
    # events: shuffle all, the first events_used form the deck
    deck = list(range(len(r.events)))
    g.rng.shuffle(CH_EVENTS, deck)
    g.event_deck = deck[:r.events_used]
    # enchanted roles (fewer than enchanted_total players): one colour's cards of the roles in
    # the enchanted deck (``enchanted_deck``), shuffled
    if enchanted_per_round(g) > 0:
        g.enchanted_deck = list(r.enchanted_deck_roles)
        g.rng.shuffle(CH_ENCHANTED, g.enchanted_deck)
    if r.pawn_start == "choose":
        place_pawns(g)


def place_pawns(g: Game) -> None:
    """Option ``pawn_start: "choose"`` (seed 000: 「それぞれをボード上の城の絵が描かれた場所の
    どちらかにおきます。」, each pawn on either castle): seat by seat, each pawn in turn starts at
    the castle its seat picks."""
    castles = [g.rules.area_ids.index(c) for c in g.rules.board["castles"]]
    for seat in range(g.n_players):
        for p in (0, 1):
            other = g.pawns[seat][0] if p == 1 else -1
            rows = [row(target=c, points=start_points(g, seat, c, other)) for c in castles]
            g.pawns[seat][p] = castles[decide(g, seat, P.START, rows)]
            g.say(f"   seat {seat} starts pawn {p} at {_area_name(g, g.pawns[seat][p])}")


def within_step(g: Game, a: int, k: int) -> bool:
    """Tower k touches area a or one of its neighbours (a pawn at a reaches it in one move)."""
    return any(x == a or x in g.neighbours[a]
               for x in (g.rules.area_ids.index(n) for n in g.rules.board["towers"][k]["areas"]))


def start_points(g: Game, seat: int, a: int, other: int) -> int:
    """A START row's points: the best tower within one step of castle area a the seat can
    deliver to now, not already within one step of its other pawn's area ``other`` (-1: not
    placed yet); 0 if none."""
    return max((t["points"] for k, t in enumerate(g.rules.board["towers"])
                if deliverable(g, seat, k) and within_step(g, a, k)
                and not (other >= 0 and within_step(g, other, k))), default=0)


def _tiles(r: Rules) -> list[tuple[int, int]]:
    """Every cloud tile as (stars, lightning), in data order."""
    return [(t["stars"], t["lightning"]) for t in r.cloud_tiles for _ in range(t["count"])]


def enchanted_per_round(g: Game) -> int:
    return max(0, g.rules.enchanted_total - g.n_players)


# ---------------------------------------------------------------- scoring helpers

def add_points(g: Game, seat: int, delta: int, source: str) -> None:
    """Move the score marker; the track has a floor (``score_floor``) it never goes below."""
    g.pts[source][seat] += delta
    new = g.score[seat] + delta
    floor = g.rules.score_floor
    if floor is not None and floor != "none" and new < floor:
        g.pts["pts_floor"][seat] += floor - new
        new = floor
    g.score[seat] = new


def resources(g: Game, seat: int) -> list[int]:
    """[green, purple, orange, wand]."""
    return g.potions[seat] + [g.wands[seat]]


def gain(g: Game, seat: int, amounts: Sequence[int]) -> None:
    for c in range(3):
        g.potions[seat][c] += amounts[c]
    g.wands[seat] += amounts[3]


# ---------------------------------------------------------------- decisions

def observe(g: Game, seat: int) -> np.ndarray:
    """What ``seat`` may know (spec 7), laid out as documented in ``policies``."""
    o = np.full(OBS_LEN, -1.0, np.float32)
    o[P.O_ROUND], o[P.O_PLAYERS], o[P.O_SEAT] = g.round, g.n_players, seat
    o[P.O_EVENT] = g.event
    o[P.O_EVENT_CODE] = _event_code(g) if g.event >= 0 else -1
    o[P.O_ENCHANTED] = _mask(g.enchanted)
    o[P.O_HAND] = _mask(g.hands[seat])
    o[P.O_LEADER], o[P.O_TURN] = g.leader, g.turn
    o[P.O_PLAYED] = _mask(set().union(*g.played))
    for k in range(g.n_players):
        s = (seat + k) % g.n_players
        b = P.O_SEATS + k * P.SEAT_FIELDS
        o[b + P.S_SCORE] = g.score[s]
        o[b + P.S_GREEN:b + P.S_ORANGE + 1] = g.potions[s]
        o[b + P.S_WANDS], o[b + P.S_LIGHTNING] = g.wands[s], g.lightning[s]
        o[b + P.S_CARDS] = -1 if g.selecting and k > 0 else len(g.hands[s])
        o[b + P.S_PLAYED] = _mask(g.played[s])
        o[b + P.S_PAWN_A], o[b + P.S_PAWN_B] = g.pawns[s]
    return o


def _mask(roles) -> int:
    return sum(1 << r for r in roles)


def _event_code(g: Game) -> int:
    return EVENT_CODES[g.rules.event_kind(g.event)]


def row(**features) -> list:
    """One option's feature row (``policies.F_*``; unnamed features are 0, target -1)."""
    r = [0.0] * P.N_FEATURES
    r[P.F_ROLE] = r[P.F_TARGET] = -1
    for k, v in features.items():
        r[getattr(P, "F_" + k.upper())] = v
    return r


def decide(g: Game, seat: int, kind: int, rows: list) -> int:
    """Ask the seat's policy; a single option is taken without asking."""
    n = len(rows)
    if n == 1:
        return 0
    opts = np.zeros((n, P.N_FEATURES), np.float32)
    opts[:] = rows
    return ask_reference(g.rng, g.policies[seat], seat, kind, observe(g, seat), opts, n,
                         game="bloomsim", names=g.names, kind_names=P.KIND_NAMES,
                         game_index=g.game_index, decisions=g.decisions)


# ---------------------------------------------------------------- what a card can do now

def deliverable(g: Game, seat: int, k: int) -> bool:
    """A potion can go to tower k: a round tower must be empty; the player needs its colour
    (unless ``unheld``)."""
    t = g.rules.board["towers"][k]
    return (t["shape"] == "square" or not g.tower_filled[k]) and \
        (g.potions[seat][COLOURS.index(t["colour"])] > 0 or unheld(g))


def best_delivery(g: Game, seat: int, towers) -> int | None:
    """Points of the best tower among ``towers`` the seat can deliver to now, None if none."""
    pts = [g.rules.board["towers"][k]["points"] for k in towers if deliverable(g, seat, k)]
    return max(pts) if pts else None


def pays(g: Game) -> int:
    """1 if this round's deliveries and charms are paid for, 0 under a card that makes them
    free (Empty Handed, as seed 000 reads: the resources stay with the player)."""
    return int(not (g.event >= 0 and g.rules.free_payments(g.event)))


def unheld(g: Game) -> bool:
    """The round's card lifts the need to hold what a delivery or charm costs (Empty Handed,
    option ``hold_nothing``): any open tower takes a potion, any cloud next to a pawn charms."""
    return g.event >= 0 and g.rules.free_holding(g.event)


def clouded(g: Game, a: int) -> bool:
    """Area a holds one or more clouds (seed 001: no pawn enters such an area)."""
    return any(g.cloud_space_area[i] == a for i in g.clouds)


def witch_moves(g: Game, seat: int, r: int) -> list[tuple[int, int]]:
    """(pawn, area): one step to an adjacent area of the witch's terrain without a cloud."""
    terr = g.rules.roles[r]["terrain"]
    return [(p, n) for p in (0, 1) for n in g.neighbours[g.pawns[seat][p]]
            if g.terrain[n] in terr and not clouded(g, n)]


def druid_towers(g: Game, seat: int, r: int) -> list[int]:
    """Towers the druid can deliver to: touching an area with one of the player's pawns (of one
    of the druid's terrains, with ``druid_needs_terrain``)."""
    terr = g.rules.roles[r]["terrain"]
    areas = {a for a in g.pawns[seat]
             if not g.rules.druid_needs_terrain or g.terrain[a] in terr}
    return [k for k, t in enumerate(g.rules.board["towers"])
            if any(g.rules.area_ids.index(a) in areas for a in t["areas"])
            and deliverable(g, seat, k)]


def charmable(g: Game, seat: int) -> list[int]:
    """Cloud spaces whose cloud the seat can charm (in rules order): next to one of its pawns,
    paid in wands (unless ``unheld``). Each cloud of an area with several is charmed on its
    own."""
    tiles = _tiles(g.rules)
    out = []
    for i, a in enumerate(g.cloud_space_area):
        if i in g.clouds and any(p in g.neighbours[a] for p in g.pawns[seat]) \
                and (g.wands[seat] >= tiles[g.clouds[i]][0] or unheld(g)):
            out.append(i)
    return out


def card_features(g: Game, seat: int, r: int, brave: int) -> list:
    """The features of playing role r (cowardly or brave) from the current position."""
    spec = g.rules.roles[r]
    pts = pay_p = pay_w = gain_p = gain_w = light = 0
    if spec["kind"] == "witch" and brave:
        best = [b for p, a in witch_moves(g, seat, r)
                if (b := best_delivery(g, seat, g.towers_of_area[a])) is not None]
        if best:
            pts, pay_p = max(best), pays(g)
    elif spec["kind"] == "druid":
        best = best_delivery(g, seat, druid_towers(g, seat, r))
        if best is not None:
            pts, pay_p = best + (g.rules.brave_bonus["druid"] if brave else 0), pays(g)
    elif spec["kind"] == "weather_fairy":
        tiles = _tiles(g.rules)
        options = sorted((-tiles[g.clouds[i]][1], tiles[g.clouds[i]][0])
                         for i in charmable(g, seat))
        if options:
            light, pay_w = -options[0][0], options[0][1] * pays(g)
            pts = g.rules.brave_bonus["weather_fairy"] if brave else 0
    elif spec["kind"] == "gatherer":
        amounts = spec["brave" if brave else "cowardly"]
        gain_p = sum(amounts.get(c, 0) for c in COLOURS)
        gain_w = amounts.get("wand", 0)
    penalty = g.rules.enchanted_penalty if r in g.enchanted else 0
    return row(role=r, brave=brave, points=pts, pay_potions=pay_p, pay_wands=pay_w,
               gain_potions=gain_p, gain_wands=gain_w, lightning=light, penalty=penalty,
               target=r)


def cancel_risk(g: Game, later: Sequence[int], r: int) -> float:
    """Expected number of ``later`` players holding role r, from public knowledge: each holds
    (cards left) of the roles nobody has played yet this round."""
    played = set().union(*g.played) - {r}
    unplayed = len(g.rules.roles) - len(played)
    risk = 0.0
    for s in later:
        risk += len(g.hands[s]) / unplayed
    return risk


# ---------------------------------------------------------------- the round

def play_game(g: Game) -> Game:
    """Seven rounds (spec 2), then end scoring (spec 5)."""
    for _ in range(g.rules.rounds):
        play_round(g)
    end_of_game(g)
    return g


def play_round(g: Game) -> None:
    g.round += 1
    g.turn = 0
    g.say(f"== Round {g.round}: start player seat {g.start_player}")
    reveal_event(g)
    reveal_enchanted_roles(g)
    g.played = [set() for _ in range(g.n_players)]
    select_roles(g)
    g.leader = g.last_brave = g.start_player
    while any(g.hands):
        play_turn(g)
    round_end_event(g)
    mark_leaders(g.score, g.round, g.led_rounds)
    g.start_player = next_start_player(g)
    g.say("   scores " + " ".join(f"{s}:{v}" for s, v in enumerate(g.score)))


def next_start_player(g: Game) -> int:
    """Seed 000: "the next start player is the player who last acted bravely in the previous
    round"; if nobody did, the start player stays (as a turn's leader does when everyone is
    cowardly). Option ``next_start_player: "lead_holder"``: whoever holds the lead at the end."""
    if g.rules.next_start_player == "lead_holder":
        return g.leader
    return g.last_brave


def reveal_event(g: Game) -> None:
    """Spec 2.1: the top event card replaces the previous one."""
    i = g.round - 1
    g.event = g.event_deck[i] if i < len(g.event_deck) else -1
    if g.event >= 0:
        g.event_round[g.event] = g.round
        g.say(f"event: {g.rules.events[g.event]['id']}")


def reveal_enchanted_roles(g: Game) -> None:
    """Spec 2.2: reveal (enchanted_total - players) roles; an empty deck is reshuffled from all
    its cards (``enchanted_deck``), setting aside those revealed this round
    (``enchanted_reshuffle``)."""
    n = enchanted_per_round(g)
    if n == 0:
        return
    g.revealed_this_round = []
    for _ in range(n):
        if not g.enchanted_deck:
            keep = [] if g.rules.enchanted_reshuffle == "all_roles" else g.revealed_this_round
            g.enchanted_deck = [r for r in g.rules.enchanted_deck_roles if r not in keep]
            g.rng.shuffle(CH_ENCHANTED, g.enchanted_deck)
            g.say("enchanted deck reshuffled")
        g.revealed_this_round.append(g.enchanted_deck.pop(0))
    g.enchanted = set(g.revealed_this_round)
    for r in g.enchanted:
        g.enchanted_rounds[r] |= 1 << (g.round - 1)
    g.say("enchanted: " + ", ".join(_role_name(g, r) for r in sorted(g.enchanted)))


def hand_sizes(g: Game) -> list[int]:
    """Allowed hand sizes this round: ``hand_size``, or More or Less?'s choices."""
    if g.event >= 0 and g.rules.event_kind(g.event) == "more_or_less":
        return sorted(g.rules.events[g.event]["hand_size_choices"])
    return [g.rules.hand_size]


def select_roles(g: Game) -> None:
    """Spec 2.3: each player secretly picks their hand, one card at a time (then More or Less?
    scores the sizes)."""
    sizes = hand_sizes(g)
    g.selecting = True
    for s in range(g.n_players):
        hand = g.hands[s] = set()
        while len(hand) < max(sizes):
            rows = [card_features(g, s, r, 1) for r in range(len(g.rules.roles)) if r not in hand]
            for x in rows:
                x[P.F_BRAVE] = 0
            if len(hand) in sizes:
                rows.append(_stop_row())
            c = decide(g, s, P.SELECT, rows)
            if rows[c][P.F_PASS]:
                break
            hand.add(int(rows[c][P.F_ROLE]))
        g.say(f"seat {s} selects " + ", ".join(_role_name(g, r) for r in sorted(hand)))
    g.selecting = False
    if g.event >= 0 and g.rules.event_kind(g.event) == "more_or_less":
        more_or_less(g)


def _stop_row() -> list:
    r = row()
    r[P.F_PASS] = 1
    return r


def more_or_less(g: Game) -> None:
    """More or Less?: points by the number of cards chosen, after the reveal."""
    pts = g.rules.events[g.event]["points_by_hand_size"]
    for s in range(g.n_players):
        add_points(g, s, pts[str(len(g.hands[s]))], "pts_events")
        g.say(f"seat {s} chose {len(g.hands[s])} cards: {pts[str(len(g.hands[s]))]:+d}")


# ---------------------------------------------------------------- a turn

def pass_lead(g: Game) -> None:
    """Spec 3.1: a leader without cards passes the lead clockwise to the next player with cards."""
    while not g.hands[g.leader]:
        g.leader = (g.leader + 1) % g.n_players


def play_card(g: Game, seat: int, r: int) -> None:
    """The card leaves the hand face up; an enchanted role costs its penalty at once (spec 3.6)."""
    g.hands[seat].discard(r)
    g.played[seat].add(r)
    if r in g.enchanted:
        add_points(g, seat, -g.rules.enchanted_penalty, "pts_enchanted")
        g.say(f"   seat {seat} pays {g.rules.enchanted_penalty} for enchanted {_role_name(g, r)}")


def play_turn(g: Game) -> None:
    """Spec 3: lead, everyone else in clockwise order follows with the same role if they hold it,
    the last brave player acts and leads next."""
    pass_lead(g)
    leader, n = g.leader, g.n_players
    rows = []
    later = [(leader + k) % n for k in range(1, n)]
    for r in sorted(g.hands[leader]):
        rows.append(card_features(g, leader, r, 0))
        brave = card_features(g, leader, r, 1)
        brave[P.F_RISK] = cancel_risk(g, later, r)
        rows.append(brave)
    c = decide(g, leader, P.LEAD, rows)
    r, brave = int(rows[c][P.F_ROLE]), int(rows[c][P.F_BRAVE])
    g.say(f"turn {g.turn}: seat {leader} leads {_role_name(g, r)} "
          f"{'brave' if brave else 'cowardly'}")
    play_card(g, leader, r)
    bravest = leader if brave else -1
    if not brave:
        cowardly_action(g, leader, r)
    for k in range(1, n):
        s = (leader + k) % n
        if r not in g.hands[s]:
            continue
        brave_row = card_features(g, s, r, 1)
        brave_row[P.F_RISK] = cancel_risk(g, [(leader + j) % n for j in range(k + 1, n)], r)
        c = decide(g, s, P.FOLLOW, [card_features(g, s, r, 0), brave_row])
        g.say(f"   seat {s} follows {'brave' if c else 'cowardly'}")
        play_card(g, s, r)
        if c == 1:
            if bravest >= 0:
                g.brave_cancelled[bravest] += 1
                g.say(f"   seat {bravest}'s brave action is cancelled")
            bravest = s
        else:
            cowardly_action(g, s, r)
    if bravest >= 0:
        g.brave_done[bravest] += 1
        brave_action(g, bravest, r)
        g.leader = g.last_brave = bravest
    g.turn += 1


def cowardly_action(g: Game, seat: int, r: int) -> None:
    """The card's cowardly effect, or (Black Market / Distillery) the event's instead."""
    if g.event >= 0 and "gain" in g.rules.events[g.event]:
        e = g.rules.events[g.event]["gain"]
        ev = row(target=g.event, gain_potions=sum(e.get(c, 0) for c in COLOURS)
                 + e.get("any_potion", 0), gain_wands=e.get("wand", 0))
        if decide(g, seat, P.ALTERNATIVE, [card_features(g, seat, r, 0), ev]) == 1:
            black_market(g, seat)
            return
    role_action(g, seat, r, brave=False)


def brave_action(g: Game, seat: int, r: int) -> None:
    g.say(f"   seat {seat} acts brave")
    role_action(g, seat, r, brave=True)


def role_action(g: Game, seat: int, r: int, brave: bool) -> None:
    kind = g.rules.roles[r]["kind"]
    {"witch": witch, "gatherer": gatherer, "druid": druid,
     "weather_fairy": weather_fairy}[kind](g, seat, r, brave)


# ---------------------------------------------------------------- the roles (spec 4)

def witch(g: Game, seat: int, r: int, brave: bool) -> None:
    """Move one pawn to an adjacent area of the witch's terrain; brave: then deliver there."""
    moves = witch_moves(g, seat, r)
    rows = []
    for p, a in moves:
        best = best_delivery(g, seat, g.towers_of_area[a])
        rows.append(row(role=r, brave=int(brave), target=a, points=best or 0))
    rows.append(_stop_row())
    c = decide(g, seat, P.MOVE, rows)
    if c == len(moves):
        g.say(f"   seat {seat} does not move")
        return
    p, a = moves[c]
    g.say(f"   seat {seat} moves pawn {p} {_area_name(g, g.pawns[seat][p])} -> {_area_name(g, a)}")
    g.pawns[seat][p] = a
    if brave:
        deliver_potion(g, seat, r, [k for k in g.towers_of_area[a] if deliverable(g, seat, k)],
                       brave=True, bonus=0)


def druid(g: Game, seat: int, r: int, brave: bool) -> None:
    """Deliver one potion without moving; brave: +bonus if a delivery happened."""
    deliver_potion(g, seat, r, druid_towers(g, seat, r), brave,
                   bonus=g.rules.brave_bonus["druid"] if brave else 0)


def deliver_potion(g: Game, seat: int, r: int, towers: list[int], brave: bool,
                   bonus: int) -> None:
    """Pay a potion of the roof colour to one tower (unless ``pays`` says the round's payments
    are free): a round tower closes for the game and gives its wands; a square tower stays
    open. Score its points (and the brave bonus)."""
    spec = g.rules.board["towers"]
    pay = pays(g)
    rows = [row(role=r, brave=int(brave), target=k, points=spec[k]["points"] + bonus,
                pay_potions=pay, gain_wands=spec[k]["wands"] if spec[k]["shape"] == "round" else 0)
            for k in towers]
    rows.append(_stop_row())
    c = decide(g, seat, P.DELIVER, rows)
    if c == len(towers):
        g.say(f"   seat {seat} delivers nothing")
        return
    k = towers[c]
    t = spec[k]
    g.potions[seat][COLOURS.index(t["colour"])] -= pay
    if t["shape"] == "round":
        g.tower_filled[k] = True
        g.wands[seat] += t["wands"]
    add_points(g, seat, t["points"], "pts_towers")
    if bonus:
        add_points(g, seat, bonus, "pts_brave")
    g.deliveries[seat] += 1
    g.tower_deliveries[k] += 1
    g.say(f"   seat {seat} delivers {t['colour']} to {t['id']} (+{t['points']}"
          f"{f' +{bonus}' if bonus else ''})")


def gatherer(g: Game, seat: int, r: int, brave: bool) -> None:
    """Take the gatherer's resources (cowardly 1, brave 3 by default), or decline."""
    amounts = g.rules.roles[r]["brave" if brave else "cowardly"]
    got = [amounts.get(k, 0) for k in COLOURS + ("wand",)]
    take = card_features(g, seat, r, int(brave))
    if decide(g, seat, P.GATHER, [take, _stop_row()]) == 1:
        g.say(f"   seat {seat} declines to gather")
        return
    gain(g, seat, got)
    g.say(f"   seat {seat} gathers {got}")


def weather_fairy(g: Game, seat: int, r: int, brave: bool) -> None:
    """Charm a cloud next to one of one's pawns, paying its stars in wands (unless ``pays`` says
    the round's payments are free); keep it for its lightning; brave: +bonus if a cloud was
    charmed."""
    tiles = _tiles(g.rules)
    pay = pays(g)
    clouds = charmable(g, seat)
    bonus = g.rules.brave_bonus["weather_fairy"] if brave else 0
    rows = [row(role=r, brave=int(brave), target=g.cloud_space_area[i], points=bonus,
                pay_wands=tiles[g.clouds[i]][0] * pay, lightning=tiles[g.clouds[i]][1])
            for i in clouds]
    rows.append(_stop_row())
    c = decide(g, seat, P.CHARM, rows)
    if c == len(clouds):
        g.say(f"   seat {seat} charms nothing")
        return
    i = clouds[c]
    a = g.cloud_space_area[i]
    stars, bolts = tiles[g.clouds.pop(i)]
    g.wands[seat] -= stars * pay
    g.lightning[seat] += bolts
    g.clouds_charmed[seat] += 1
    g.charmed_round[i] = g.round
    if bonus:
        add_points(g, seat, bonus, "pts_brave")
    g.say(f"   seat {seat} charms the cloud on {_area_name(g, a)} ({stars} stars, {bolts} bolts)")


# ---------------------------------------------------------------- events (spec 6)

def black_market(g: Game, seat: int) -> None:
    """Black Market / Black Distillery: the event's gain instead of the cowardly effect."""
    e = g.rules.events[g.event]["gain"]
    gain(g, seat, [e.get(k, 0) for k in COLOURS + ("wand",)])
    got = [e.get(k, 0) for k in COLOURS + ("wand",)]
    for _ in range(e.get("any_potion", 0)):
        c = decide(g, seat, P.COLOUR, [row(target=i, gain_potions=1) for i in range(3)])
        g.potions[seat][c] += 1
        got[c] += 1
    g.say(f"   seat {seat} uses {g.rules.events[g.event]['id']} instead: gains {got}")


def round_end_event(g: Game) -> None:
    if g.event < 0:
        return
    kind = g.rules.event_kind(g.event)
    rule = {"empty_handed": None if g.rules.free_payments(g.event) else empty_handed,
            "perilous_places": places,
            "protected_places": places, "upper_hand": upper_hand, "the_works": the_works,
            "flock_together": flock_together}.get(kind)
    if rule is not None:
        rule(g, g.rules.events[g.event])


def empty_handed(g: Game, e) -> None:
    """Each player holding at most ``max_potions`` potions scores ``points`` (option
    ``empty_handed: "few_potions_score"``, the specification's reading)."""
    for s in range(g.n_players):
        if sum(g.potions[s]) <= e["max_potions"]:
            add_points(g, s, e["points"], "pts_events")
            g.say(f"   empty handed: seat {s} {e['points']:+d}")


def places(g: Game, e) -> None:
    """Perilous / Protected Places: points for each pawn by its area's terrain (castle 0; the
    terrains as ``Rules.points_per_pawn`` plays them)."""
    pts = g.rules.points_per_pawn(g.event)
    for s in range(g.n_players):
        total = sum(pts.get(g.terrain[a], 0) for a in g.pawns[s])
        add_points(g, s, total, "pts_events")
        g.say(f"   places: seat {s} {total:+d}")


def upper_hand(g: Game, e) -> None:
    """Everyone secretly reveals some of their resources; the highest (ties: all) score and pay
    what they revealed. A reveal of 0 never wins."""
    totals = [sum(resources(g, s)) for s in range(g.n_players)]
    bids = []
    for s in range(g.n_players):
        others = max(totals[j] for j in range(g.n_players) if j != s)
        rows = [row(target=b, points=e["winner_points"] if b > others else 0)
                for b in range(totals[s] + 1)]
        bids.append(decide(g, s, P.BID, rows))
    best = max(bids)
    g.say(f"   upper hand bids {bids}")
    if best == 0:
        return
    for s in range(g.n_players):
        if bids[s] != best:
            continue
        add_points(g, s, e["winner_points"], "pts_events")
        if e["winner_pays_bid"]:
            for _ in range(best):
                kinds = [k for k, v in enumerate(resources(g, s)) if v > 0]
                c = decide(g, s, P.PAY, [row(target=k, pay_potions=int(k < 3),
                                             pay_wands=int(k == 3)) for k in kinds])
                gain(g, s, [-int(k == kinds[c]) for k in range(4)])


def the_works(g: Game, e) -> None:
    """Each player may pay up to ``max_sets`` sets of 4 different resources for ``set_points``."""
    for s in range(g.n_players):
        for _ in range(e["max_sets"]):
            if min(resources(g, s)) == 0:
                break
            pay = row(points=e["set_points"], pay_potions=3, pay_wands=1)
            if decide(g, s, P.WORKS, [pay, _stop_row()]) == 1:
                break
            gain(g, s, [-1, -1, -1, -1])
            add_points(g, s, e["set_points"], "pts_events")
            g.say(f"   the works: seat {s} pays a set {e['set_points']:+d}")


def flock_together(g: Game, e) -> None:
    """Points to each player whose two pawns stand on the same land terrain."""
    for s in range(g.n_players):
        a, b = (g.terrain[x] for x in g.pawns[s])
        if a == b and a not in (CASTLE, WATER):
            add_points(g, s, e["points"], "pts_events")
            g.say(f"   flock together: seat {s} {e['points']:+d}")


# ---------------------------------------------------------------- end of game (spec 5)

def lightning_points(rules: Rules, bolts: int) -> int:
    table = rules.lightning_points
    if bolts < len(table):
        return table[bolts]
    return table[-1] + (bolts - len(table) + 1) * rules.lightning_points_beyond_table


def resource_set_points(rules: Rules, counts: Sequence[int]) -> int:
    """Best split of [green, purple, orange, wand] into sets of 4 and of 3 different kinds."""
    four, three = rules.resource_sets["four_kinds"], rules.resource_sets["three_kinds"]
    best = 0
    for x in range(min(counts) + 1):
        rest = [c - x for c in counts]
        y = 0
        while sum(min(c, y + 1) for c in rest) >= 3 * (y + 1):
            y += 1
        best = max(best, x * four + y * three)
    return best


def end_of_game(g: Game) -> None:
    for s in range(g.n_players):
        add_points(g, s, lightning_points(g.rules, g.lightning[s]), "pts_lightning")
        add_points(g, s, resource_set_points(g.rules, resources(g, s)), "pts_sets")
    g.say("final " + " ".join(f"{s}:{v}" for s, v in enumerate(g.score)))


def ranks(g: Game) -> tuple[list[int], list[float]]:
    """Rank 1 = most points, then most resources left; tied winners share the win."""
    key = [(g.score[s], sum(resources(g, s))) for s in range(g.n_players)]
    rank = [1 + sum(key[j] > key[i] for j in range(g.n_players)) for i in range(g.n_players)]
    n_best = rank.count(1)
    return rank, [1.0 / n_best if r == 1 else 0.0 for r in rank]
