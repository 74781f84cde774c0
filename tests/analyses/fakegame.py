"""A fake game module with the public shape of bloomsim/rapinsim (``simulate``, ``POLICIES``):
policy strength and a seat advantage are planted, the chance of each game depends only on
(seed, game index) like the real engines, and every call is recorded so tests can check which
seatings and seeds were played."""
from __future__ import annotations

import numpy as np
import polars as pl

from synth import ranks_and_wins

POLICIES = {"weak": 0.0, "mid": 0.3, "twin": 0.3, "strong": 0.6}
SEAT_BONUS = 0.2
calls: list[tuple[tuple[str, ...], int, int]] = []


def simulate(policies, n_games, seed, *, rules=None, progress=None):
    """Scores: per-seat luck (a function of seed and game index only) + the policy's own noise
    + policy strength + a start-seat bonus; ranked with a random tie-break."""
    calls.append((tuple(policies), n_games, seed))
    strength = dict(POLICIES, **(rules or {}))
    players = len(policies)
    luck = np.random.default_rng([seed, 1]).normal(0, 1, (n_games, 6))[:, :players]
    pol = np.array([strength[p] for p in policies])
    # each policy plays in its own way: noise from its own stream (seed, policy, seat), so two
    # equally strong policies still differ game by game
    style = np.stack([np.random.default_rng([seed, 3, list(POLICIES).index(p), s])
                      .normal(0, 0.7, n_games) for s, p in enumerate(policies)], axis=1)
    score = luck + style + pol[None, :]
    score[:, 0] += SEAT_BONUS
    score = np.round(score * 4).astype(np.int16)
    tie = np.random.default_rng([seed, 2]).random((n_games, players))
    rank, win = ranks_and_wins(score, tie)
    g = np.repeat(np.arange(n_games, dtype=np.int64), players)
    return pl.DataFrame({
        "game": g, "seat": np.tile(np.arange(players, dtype=np.int8), n_games),
        "policy": pl.Series(np.tile(np.array(policies, dtype=object), n_games),
                            dtype=pl.String).cast(pl.Categorical),
        "rank": rank.reshape(-1), "win": win.reshape(-1), "score": score.reshape(-1),
        "pts_towers": score.reshape(-1), "n_players": np.full(g.size, players, np.int8)})
