"""The per-game result arrays both engines fill, and their columns in the results frame.

A game's seat counters are ``seat[:, g]`` ([N_SEAT, P], int16), its game counters
``game[:, g]`` ([N_GAME + 2 * D], int32: ``searches_d<k>`` then ``found_d<k>`` follow the fixed
ones): column-major, so that each results column is one contiguous block. The rounds each seat
led after, ``led[g]`` ([P] int64 bitmasks, ``simcore.results.mark_leaders``), need more bits
than a counter. Names and dtypes follow docs/results-schema.md.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from simcore.layout import Layout
from simcore.results import categorical, frame

from .rules import CHARACTERS, ITEMS, TRAPS

SEAT = Layout("seat counters")
S_TREASURES = SEAT.field("treasures", meaning="treasure tiles held at the end")
S_RABBITS = SEAT.field("rabbits")
S_CHEST = SEAT.field("chest", meaning="holds Inaba's chest")
S_SEARCHES = SEAT.field("searches")
S_TAKEN = SEAT.field("taken", 4, "tiles taken, by tile kind")
S_TRAP = SEAT.field("traps", len(TRAPS), "traps sprung, by trap")
S_ITEM = SEAT.field("items", len(ITEMS), "items used, by item")
S_SKILL_USED = SEAT.field("skill_used")
S_SKILL_TURN = SEAT.field("skill_turn")
S_FOUND = SEAT.field("found", meaning="times found by Rize")
S_LOST = SEAT.field("lost", meaning="tiles lost")
S_RANK = SEAT.field("rank")
N_SEAT = SEAT.size

GAME = Layout("game counters")
G_TURNS = GAME.field("turns")
G_STALLED = GAME.field("stalled", meaning="ended at the turn cap")
G_DAWN = GAME.field("dawn", meaning="ended at dawn")
G_RIZE_START = GAME.field("rize_start", meaning="Rize's start district + 1")
G_DECISIONS = GAME.field("decisions")
G_ROUNDS = GAME.field("rounds")
N_GAME = GAME.size              # then searches_d<k> at N_GAME + d, found_d<k> at N_GAME + D + d

SEAT_COLUMNS = (
    [("treasures", S_TREASURES, np.int8), ("rabbits", S_RABBITS, np.int16),
     ("chest", S_CHEST, np.int8), ("searches", S_SEARCHES, np.int16),
     ("tiles_treasure", S_TAKEN, np.int16), ("tiles_item", S_TAKEN + 1, np.int16),
     ("tiles_trap", S_TAKEN + 2, np.int16)]
    + [(f"trap_{t}", S_TRAP + i, np.int8) for i, t in enumerate(TRAPS)]
    + [(f"item_{t}", S_ITEM + i, np.int8) for i, t in enumerate(ITEMS)]
    + [("skill_used", S_SKILL_USED, np.int8), ("skill_turn", S_SKILL_TURN, np.int16),
       ("found", S_FOUND, np.int16), ("tiles_lost", S_LOST, np.int16)])


def new_arrays(n_games: int, n_players: int, n_districts: int):
    """Zeroed result arrays for a batch: seat [N_SEAT, G, P], win [G, P],
    game [N_GAME + 2 * D, G], characters [G, P], led [G, P]."""
    return (np.zeros((N_SEAT, n_games, n_players), np.int16),
            np.zeros((n_games, n_players), np.float32),
            np.zeros((N_GAME + 2 * n_districts, n_games), np.int32),
            np.zeros((n_games, n_players), np.int8),
            np.zeros((n_games, n_players), np.int64))


def to_frame(game_start: int, names, seat, win, game, chars, led, n_districts
             ) -> pl.DataFrame:
    """The results frame of a batch, columns as in docs/results-schema.md."""
    n_games, n_players = win.shape
    cols = {name: seat[i].astype(dt, copy=False)
            for name, i, dt in SEAT_COLUMNS}
    cols["rank"] = seat[S_RANK].astype(np.int8)
    cols["win"] = win
    cols["led_rounds"] = led
    games = {"n_players": np.full(n_games, n_players, np.int8),
             "decisions": game[G_DECISIONS],
             "turns": game[G_TURNS].astype(np.int16),
             "rounds": game[G_ROUNDS].astype(np.int16), "stalled": game[G_STALLED].astype(bool),
             "dawn": game[G_DAWN].astype(bool), "rize_start": game[G_RIZE_START].astype(np.int8)}
    for d in range(n_districts):
        games[f"searches_d{d + 1}"] = game[N_GAME + d].astype(np.int16)
    for d in range(n_districts):
        games[f"found_d{d + 1}"] = game[N_GAME + n_districts + d].astype(np.int16)
    df = frame(game_start, names, cols, games)
    df = df.insert_column(3, categorical("character", CHARACTERS, chars.reshape(-1)))
    return df
