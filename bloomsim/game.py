"""Broom Service's declaration of the game contract (``simcore.games``): what analyses,
benchmarks and tools need to know of it."""
from __future__ import annotations

import json
from importlib import resources
from typing import Any

from simcore.games import Game, Things, Variant, register

from .rules import PERILOUS_OPTIONS, RESHUFFLE_OPTIONS, START_PLAYER_OPTIONS


def switch_offs(rules: Any, players: int | None = None) -> list[Variant]:
    """Each event card leaves the event deck (the game draws its events from the other cards);
    each enchanted role leaves the enchanted deck (``enchanted_deck``: it is never enchanted),
    where enchanted roles exist: at ``players`` seats if given, else at the fewest players the
    rules allow (a role whose removal would leave fewer cards than a round reveals is not
    switched off)."""
    out: list[Variant] = []
    events = rules.to_dict()["events"]
    for e in rules.event_ids:
        rest = [ev for ev in events if ev["id"] != e]
        out.append(("event", e, "removed from the event deck",
                    rules.replace(events=rest, events_used=min(rules.events_used, len(rest)))))
    reveal = rules.enchanted_total - (rules.players["min"] if players is None else players)
    deck = [rules.role_ids[i] for i in rules.enchanted_deck_roles]
    if reveal > 0 and len(deck) > reveal:
        out += [("enchanted", r, "left out of the enchanted deck (never enchanted)",
                 rules.replace(enchanted_deck=[x for x in deck if x != r])) for r in deck]
    return out


def board(rules: Any) -> dict:
    """The ``board`` mapping of the rules data: areas (with grid x, y), towers, cloud spaces."""
    return rules.board


def board_plot(board: dict, lf: Any, default_rules: bool) -> Any:
    from .plots import board_plot as draw   # matplotlib only when a report draws it
    return draw(board, lf, default_rules)


def _players() -> tuple[int, int]:
    data = json.loads(resources.files(__package__).joinpath("data/rules.json").read_text())
    return data["players"]["min"], data["players"]["max"]


GAME = register(Game(
    name="bloomsim", title="Broom Service", players=_players(), score="score",
    marks=("score", "pts_towers"),
    things=(Things("event", "prefix", "event_", seat_level=False),
            Things("enchanted", "prefix", "enchanted_", seat_level=False)),
    switch_offs=switch_offs, board=board, board_plot=board_plot,
    assumption_note="The board is the rules data's default approximation of the printed map, "
                    "not the map itself; the cloud tiles, the lightning table and several "
                    "event values are assumptions too (docs/bloomsim-rules.md).",
    speed_goal=100_000, rules_data=lambda rules: rules.to_dict(),
    choices={"enchanted_reshuffle": RESHUFFLE_OPTIONS, "next_start_player": START_PLAYER_OPTIONS,
             "perilous_places": PERILOUS_OPTIONS}))
