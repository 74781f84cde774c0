"""The Lapin treasure hunt's declaration of the game contract (``simcore.games``): what
analyses, benchmarks and tools need to know of it."""
from __future__ import annotations

import dataclasses
from typing import Any

from simcore import provenance
from simcore.games import (Alternative, Game, Probe, Things, Variant, _names, default_players,
                           register)

from . import policies as P
from .rules import CHANCE, CHARACTER_SELECTIONS, CHARACTERS, DISGUISE_MODES, ITEMS, TRAP, TREASURE

ACTIONS = (("search", "search a house", P.F_WHAT, P.O_SEARCH),
           ("step", "step to a district", P.F_WHAT, P.O_STEP),
           ("pass", "end the turn early", P.F_WHAT, P.O_PASS),
           ("skill", "use the character's skill", P.F_WHAT, P.O_SKILL),
           ("known_trap", "search (or take) a house known to hold a trap", P.F_TILE, TRAP),
           ("known_treasure", "search (or take) a house known to hold a treasure", P.F_TILE,
            TREASURE))
"""The actions a probe restricts: (id, in words, feature column, value), at the action and
house decisions."""


def probes() -> tuple[Probe, ...]:
    """Never / always: use each item, choose each character (where characters are chosen),
    take each action of ``ACTIONS``; and a horizon-limited player: the evader and the keeper
    (who predict Rize's path to their next turn) cut to ``careful``'s one step ahead."""
    names = dict(_names("rapinsim", "data/guide.json"))
    out = []
    for mode in ("never", "always"):
        out += [Probe(x, mode, f"{mode} use the {names.get(x, x)}", (P.ACTION,), P.F_ARG, i, i)
                for i, x in enumerate(ITEMS)]
        out += [Probe(c, mode, f"{mode} choose {names.get(c, c)}", (P.CHARACTER,), P.F_ARG,
                      i, i) for i, c in enumerate(CHARACTERS)]
        out += [Probe(a, mode, f"{mode} {words}", (P.ACTION, P.HOUSE), col, v, v)
                for a, words, col, v in ACTIONS]
    out.append(Probe("one_step", "horizon", "Rize foreseen one step ahead, not to the next turn",
                     swap=(("evader", "careful"), ("keeper", "careful"))))
    return tuple(out)


def switch_offs(rules: Any, players: int | None = None, events: str = "replace"
                ) -> list[Variant]:
    """Each item's or trap's tiles become the lowest brown treasure (the tile count must match
    the houses), each character leaves the roster (where the rest still seat ``players``, if
    given), and being found is switched off (row ``found`` / ``by Rize``; ``rize_finds=False``:
    Rize finds nobody). The town has no deck of cards, so ``events`` changes nothing here."""
    out: list[Variant] = []
    brown = min(t[0] for t in rules.treasures if t[1] == 0 and t[2] > 0)
    for field_name, kind in (("items", "item"), ("traps", "trap")):
        for thing, n in getattr(rules, field_name).items():
            if n == 0:
                continue
            treasures = tuple((t[0], t[1], t[2] + n) if t[0] == brown and t[1] == 0 else t
                              for t in rules.treasures)
            out.append((kind, thing, f"its {n} tile(s) become brown-{brown} treasures",
                        rules.replace(**{field_name: {**getattr(rules, field_name), thing: 0}},
                                      treasures=treasures)))
    for c in rules.characters if players is None or len(rules.characters) > players else ():
        out.append(("character", c, "left out of the roster",
                    rules.replace(characters=tuple(x for x in rules.characters if x != c))))
    if rules.rize_finds:
        change = "being found switched off: Rize finds nobody (rize_finds=false)"
        out.append(("found", "by Rize", change, rules.replace(rize_finds=False)))
    return out


def board(rules: Any) -> dict:
    """The town as plain data: districts, the ring route and the extra roads and bridges."""
    return {"districts": rules.districts, "route": list(rules.route),
            "extra_edges": [list(e) for e in rules.extra_edges]}


def board_plot(board: dict, lf: Any, default_rules: bool) -> Any:
    from .plots import board_plot as draw   # matplotlib only when a report draws it
    return draw(board, lf, default_rules)


def rules_data(rules: Any) -> dict:
    """The rules' fields as plain data (the names ``rules.replace`` takes)."""
    return {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)
            if f.name != "source"}


GAME = register(Game(
    name="rapinsim", title="Lapin treasure hunt", players=default_players(__package__),
    score="treasures",
    marks=("treasures", "character"), chance=CHANCE,
    things=(Things("item", "prefix", "item_", seat_level=True),
            Things("trap", "prefix", "trap_", seat_level=True),
            Things("character", "value", "character", seat_level=True),
            Things("found", "at_least", "found", seat_level=True)),
    switch_offs=switch_offs, board=board, board_plot=board_plot,
    provenance="data/provenance.json",
    provenance_keys={"item": "items", "trap": "traps", "character": "characters"},
    measuring={"character_selection": "draw"},
    measuring_note="characters dealt at random (rules option character_selection = draw; by "
                   "default the players choose)",
    speed_goal=200_000, lengths=("decisions", "turns", "rounds"),
    endings=("dawn", "stalled"), lead="led_rounds",
    round_of=lambda obs, players: int(obs[P.OB_TURN]) // players + 1,  # a turn each: a round
    rules_data=rules_data,
    choices={"character_selection": CHARACTER_SELECTIONS, "disguise": DISGUISE_MODES},
    seat_options=(("--character", "characters",
                   "fix one character per seat (default: the players choose, or the rules' "
                   "character_selection = draw deals them)"),),
    rules_text=lambda rules: provenance.rules_text(GAME, rules), rules_guide="data/guide.json",
    probes=probes(),
    alternatives=(
        Alternative("town: the ring of 10", "districts", file="data/ring10.json"),
        Alternative("roster: the seed's three", "characters",
                    {"characters": ["inaba", "chimame", "aoyama"]}),
        Alternative("whistle out", "items.whistle",     # its tile becomes a brown-1 treasure
                    {"items.whistle": 0, "treasures": [[1, 0, 9], [2, 0, 6], [3, 0, 6],
                                                       [0, 4, 4]]}))))
