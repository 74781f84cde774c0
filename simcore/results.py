"""The result frame both games share: one row per game and seat, plus game-level columns.

Ranks and win shares are computed once here so that ties mean the same in every game: rank 1
is best, k players tied for first each get a win share of 1/k. The lead after each round
(``led_rounds``) is defined once here too (``mark_leaders``).
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl
from numba import njit


@njit(cache=True)
def rank_and_share(primary, secondary, n_players, rank, win):
    """Rank seats by (primary, secondary), higher is better; write rank and win share."""
    n_best = 0
    for i in range(n_players):
        r = 1
        for j in range(n_players):
            if primary[j] > primary[i] or (primary[j] == primary[i]
                                           and secondary[j] > secondary[i]):
                r += 1
        rank[i] = r
        if r == 1:
            n_best += 1
    for i in range(n_players):
        win[i] = 1.0 / n_best if rank[i] == 1 else 0.0


LEAD_ROUNDS = 63
"""Rounds a ``led_rounds`` column records: bit k-1 for round k, so the Int64 stays
non-negative. Rounds after the 63rd are not recorded (the game-level ``rounds`` column says how
many were played)."""


def mark_leaders(scores: Sequence[int], rnd: int, led: list[int]) -> None:
    """After round ``rnd`` (from 1) and all its scoring: set bit ``rnd - 1`` of ``led[s]`` for
    every seat s holding the highest score (every seat tied at the top leads). The reference
    engines call this; the compiled engines write the same loop into their state."""
    if rnd > LEAD_ROUNDS:
        return
    top = max(scores)
    for s, v in enumerate(scores):
        if v == top:
            led[s] |= 1 << (rnd - 1)


RULES = "rules"
"""The column that says which game and which rules produced a row (``rules_label``)."""


def rules_label(game, rules) -> str:
    """``"<game>:<12 hex digits>"``: the game's name and the start of the sha256 of its rules
    as data (``game``: its ``simcore.games.Game``, whose ``rules_data`` gives the data), so rows
    of the same rules carry the same label and rows of other rules (a variant, a rules file)
    another. ``simulate(out=...)``'s manifest keeps the rules themselves."""
    data = game.rules_data(rules) if game.rules_data is not None else {}
    text = json.dumps(data, sort_keys=True, default=str, ensure_ascii=False)
    return f"{game.name}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def tag(df: pl.DataFrame, label: str) -> pl.DataFrame:
    """The frame with its ``rules`` column (Categorical: 4 bytes a row)."""
    return df.with_columns(pl.lit(label, dtype=pl.Categorical).alias(RULES))


def categorical(name: str, labels: Sequence[str], codes: np.ndarray) -> pl.Series:
    """A Categorical column of ``labels[codes]``: gathered from the few labels by their codes,
    far cheaper than casting a column of Python strings."""
    return (pl.Series(name, list(labels), dtype=pl.String).cast(pl.Categorical)
            .gather(pl.Series(codes, dtype=pl.UInt32)))


def frame(game_start: int, policies: Sequence[str], seat_cols: Mapping[str, np.ndarray],
          game_cols: Mapping[str, np.ndarray]) -> pl.DataFrame:
    """Build the tidy frame from ``seat_cols`` arrays [G, P] and ``game_cols`` arrays [G]
    (each in the column's final dtype; contiguous arrays build fastest).

    Column order: game, seat, policy, then seat columns, then game columns (repeated per seat).
    """
    first = next(iter(seat_cols.values()))
    n_games, n_players = first.shape
    cols: dict[str, pl.Series] = {
        "game": pl.Series("game", np.repeat(np.arange(game_start, game_start + n_games,
                                                      dtype=np.int64), n_players)),
        "seat": pl.Series("seat", np.tile(np.arange(n_players, dtype=np.int8), n_games)),
        "policy": categorical("policy", policies,
                              np.tile(np.arange(n_players, dtype=np.uint32), n_games)),
    }
    for name, arr in seat_cols.items():
        if arr.shape != (n_games, n_players):
            raise ValueError(f"seat column {name!r} has shape {arr.shape}, "
                             f"expected {(n_games, n_players)}")
        cols[name] = pl.Series(name, arr.reshape(-1))
    for name, arr in game_cols.items():
        if arr.shape != (n_games,):
            raise ValueError(f"game column {name!r} has shape {arr.shape}, expected {(n_games,)}")
        cols[name] = pl.Series(name, np.repeat(arr, n_players))
    return pl.DataFrame(cols)
