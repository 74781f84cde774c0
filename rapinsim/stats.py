"""The per-game result arrays both engines fill, and their columns in the results frame.

Seat counters live in ``seat[P, N_SEAT]`` (int16), game counters in ``game[N_GAME + 2 * D]``
(int32: ``searches_d<k>`` then ``found_d<k>`` follow the fixed ones). Names and dtypes follow
docs/results-schema.md.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from simcore.results import frame

from .rules import CHARACTERS, ITEMS, TRAPS

(S_TREASURES, S_RABBITS, S_CHEST, S_SEARCHES, S_TAKEN) = range(5)   # S_TAKEN + tile kind
S_TRAP = 8                      # + trap id
S_ITEM = S_TRAP + len(TRAPS)    # + item id
S_SKILL_USED = S_ITEM + len(ITEMS)
S_SKILL_TURN = S_SKILL_USED + 1
S_FOUND = S_SKILL_TURN + 1
S_LOST = S_FOUND + 1
S_RANK = S_LOST + 1
N_SEAT = S_RANK + 1

G_TURNS, G_STALLED, G_DAWN, G_RIZE_START, G_DECISIONS = range(5)
N_GAME = 5                      # then searches_d<k> at N_GAME + d, found_d<k> at N_GAME + D + d

SEAT_COLUMNS = (
    [("treasures", S_TREASURES, pl.Int8), ("rabbits", S_RABBITS, pl.Int16),
     ("chest", S_CHEST, pl.Int8), ("searches", S_SEARCHES, pl.Int16),
     ("tiles_treasure", S_TAKEN, pl.Int16), ("tiles_item", S_TAKEN + 1, pl.Int16),
     ("tiles_trap", S_TAKEN + 2, pl.Int16)]
    + [(f"trap_{t}", S_TRAP + i, pl.Int8) for i, t in enumerate(TRAPS)]
    + [(f"item_{t}", S_ITEM + i, pl.Int8) for i, t in enumerate(ITEMS)]
    + [("skill_used", S_SKILL_USED, pl.Int8), ("skill_turn", S_SKILL_TURN, pl.Int16),
       ("found", S_FOUND, pl.Int16), ("tiles_lost", S_LOST, pl.Int16)])


def new_arrays(n_games: int, n_players: int, n_districts: int):
    """Zeroed result arrays for a batch: seat [G, P, N_SEAT], win [G, P], game [G, ...],
    characters [G, P]."""
    return (np.zeros((n_games, n_players, N_SEAT), np.int16),
            np.zeros((n_games, n_players), np.float32),
            np.zeros((n_games, N_GAME + 2 * n_districts), np.int32),
            np.zeros((n_games, n_players), np.int8))


def to_frame(game_start: int, names, seat, win, game, chars, n_districts) -> pl.DataFrame:
    """The results frame of a batch, columns as in docs/results-schema.md."""
    n_games, n_players = win.shape
    cols = {name: seat[:, :, i] for name, i, _ in SEAT_COLUMNS}
    cols["rank"] = seat[:, :, S_RANK]
    cols["win"] = win
    games = {"n_players": np.full(n_games, n_players, np.int8),
             "decisions": game[:, G_DECISIONS],
             "turns": game[:, G_TURNS], "stalled": game[:, G_STALLED].astype(bool),
             "dawn": game[:, G_DAWN].astype(bool), "rize_start": game[:, G_RIZE_START]}
    for d in range(n_districts):
        games[f"searches_d{d + 1}"] = game[:, N_GAME + d]
    for d in range(n_districts):
        games[f"found_d{d + 1}"] = game[:, N_GAME + n_districts + d]
    df = frame(game_start, names, cols, games)
    names_arr = np.array(CHARACTERS, dtype=object)[chars.reshape(-1)]
    casts = {name: dt for name, _, dt in SEAT_COLUMNS}
    casts.update({"rank": pl.Int8, "n_players": pl.Int8, "decisions": pl.Int32,
                  "turns": pl.Int16, "rize_start": pl.Int8})
    casts.update({c: pl.Int16 for c in games if c.startswith(("searches_d", "found_d"))})
    df = df.with_columns([pl.col(c).cast(t) for c, t in casts.items()])
    df = df.with_columns(pl.Series("character", names_arr, dtype=pl.String)
                         .cast(pl.Categorical))
    order = ["game", "seat", "policy", "character"] + [c for c in df.columns
                                                       if c not in ("game", "seat", "policy",
                                                                    "character")]
    return df.select(order)
