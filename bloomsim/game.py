"""Broom Service's declaration of the game contract (``simcore.games``): what analyses,
benchmarks and tools need to know of it."""
from __future__ import annotations

import json
from typing import Any

from simcore import provenance
from simcore.games import (Alternative, Game, Probe, Things, Variant, _names, default_players,
                           register)

from . import policies as P

from .rules import (CHANCE, EMPTY_HANDED_OPTIONS, PAWN_START_OPTIONS, PERILOUS_OPTIONS,
                    RESHUFFLE_OPTIONS, START_PLAYER_OPTIONS, UNNAMED_TERRAIN_OPTIONS)


REPLACED = "replaced in place by a card with no effect: the same games, all other draws unchanged"
REMOVED = "removed from the event deck: the deck without it, so the event draws change"


def switch_offs(rules: Any, players: int | None = None, events: str = "replace"
                ) -> list[Variant]:
    """Each event card, as ``events`` says: ``"replace"`` puts a card with no effect (the rules'
    no-effect kind ``tenth_event``) in its place, so every draw of every game (event order,
    enchanted roles, tiles) stays as it was; ``"remove"`` takes it out of the event deck, so
    the game draws its events from the other cards; ``"both"`` gives both rows. A card of the
    no-effect kind itself is only removed (replacing it would change nothing). Each enchanted
    role leaves the enchanted deck (``enchanted_deck``: it is never enchanted, other roles in
    its place), where enchanted roles exist: at ``players`` seats if given, else at the fewest
    players the rules allow (a role whose removal would leave fewer cards than a round reveals
    is not switched off)."""
    out: list[Variant] = []
    deck = rules.to_dict()["events"]
    for i, e in enumerate(rules.event_ids):
        if events in ("replace", "both") and rules.event_kind(i) != "tenth_event":
            blank = {"id": e, "kind": "tenth_event", "timing": "turns",
                     "note": "no effect: stands in for the card switched off"}
            out.append(("event", e, REPLACED, rules.replace(
                events=[blank if ev["id"] == e else ev for ev in deck])))
        if events in ("remove", "both"):
            rest = [ev for ev in deck if ev["id"] != e]
            out.append(("event", e, REMOVED, rules.replace(
                events=rest, events_used=min(rules.events_used, len(rest)))))
    reveal = rules.enchanted_total - (rules.players["min"] if players is None else players)
    roles = [rules.role_ids[i] for i in rules.enchanted_deck_roles]
    if reveal > 0 and len(roles) > reveal:
        out += [("enchanted", r, "left out of the enchanted deck (never enchanted; other roles "
                 "are enchanted in its place, so the draws change)",
                 rules.replace(enchanted_deck=[x for x in roles if x != r])) for r in roles]
    return out


ACTIONS = (("witch_flight", "fly a witch", P.MOVE), ("delivery", "deliver a potion", P.DELIVER),
           ("charm", "charm a cloud", P.CHARM), ("gathering", "take the gatherer's resources",
                                                 P.GATHER),
           ("works", "pay The Works!", P.WORKS))
"""The actions a probe restricts by their decision kind: (id, in words, kind); its other
option is to decline."""


def probes() -> tuple[Probe, ...]:
    """Never / always: select each role (the default rules' roles), declare brave, take each
    action of ``ACTIONS`` (decline it / never decline), take the event of an alternative
    card; and a horizon-limited search agent (one round's playouts)."""
    from .rules import default_rules
    names = dict(_names("bloomsim", "data/guide.json"))
    out = []
    for mode in ("never", "always"):
        out += [Probe(r, mode, f"{mode} select the {names.get(r, r)}", (P.SELECT,), P.F_ROLE,
                      i, i) for i, r in enumerate(default_rules().role_ids)]
        out.append(Probe("brave", mode, f"{mode} brave", (P.LEAD, P.FOLLOW), P.F_BRAVE, 1, 1))
        out += [Probe(a, mode, f"{mode} {words}", (kind,), P.F_PASS, 0, 0)
                for a, words, kind in ACTIONS]
        out.append(Probe("event", mode, f"{mode} the event of an alternative card",
                         (P.ALTERNATIVE,), P.F_ROLE, -1, -1))
    out.append(Probe("1_round", "horizon", "search playouts cut at one round",
                     settings="horizon=1"))
    return tuple(out)


def rules_text(rules: Any) -> str:
    """The rules in force as JSON (a rules file to edit), then each value with its provenance
    tag."""
    return provenance.rules_text(GAME, rules, json.dumps(rules.to_dict(), indent=1))


def board(rules: Any) -> dict:
    """The ``board`` mapping of the rules data: areas (with grid x, y), towers, cloud spaces."""
    return rules.board


def board_plot(board: dict, lf: Any, default_rules: bool) -> Any:
    from .plots import board_plot as draw   # matplotlib only when a report draws it
    return draw(board, lf, default_rules)


GAME = register(Game(
    name="bloomsim", title="Broom Service", players=default_players(__package__), score="score",
    marks=("score", "pts_towers"), chance=CHANCE,
    things=(Things("event", "prefix", "event_", seat_level=False),
            Things("enchanted", "prefix", "enchanted_", seat_level=False,
                   label="enchanted role")),
    switch_offs=switch_offs, board=board, board_plot=board_plot,
    provenance="data/provenance.json", provenance_keys={"event": "events"},
    speed_goal=100_000, lengths=("decisions", "rounds"), lead="led_rounds",
    round_of=lambda obs, players: int(obs[P.O_ROUND]),
    rules_data=lambda rules: rules.to_dict(), rules_text=rules_text,
    rules_guide="data/guide.json",
    choices={"enchanted_reshuffle": RESHUFFLE_OPTIONS, "next_start_player": START_PLAYER_OPTIONS,
             "perilous_places": PERILOUS_OPTIONS,
             "perilous_unnamed_terrains": UNNAMED_TERRAIN_OPTIONS,
             "empty_handed": EMPTY_HANDED_OPTIONS, "pawn_start": PAWN_START_OPTIONS},
    probes=probes(),
    alternatives=(
        Alternative("Perilous Places: hill, mountain 0", "perilous_unnamed_terrains",
                    {"perilous_unnamed_terrains": "zero"}),
        Alternative("Empty Handed: +3 for at most 3 potions", "events.empty_handed",
                    {"empty_handed": "few_potions_score"}),
        Alternative("Empty Handed: nothing need be held", "code.empty_handed_holding",
                    {"empty_handed": "hold_nothing"}),
        Alternative("pawns: each picks its castle", "pawn_start", {"pawn_start": "choose"}))))
