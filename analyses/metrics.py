"""Designer metrics: how a game plays, beyond who wins. Per group (variant, player count, ...):
game length, the score margin between first and second, ties, how games end, how often the
lead changes hands and how often the leader after each round goes on to win, each with a 95%
interval. A game index counts once (its seatings averaged first), so the intervals take the
game as the unit, as every table of ``analyses`` does.

The lead comes from the column the game declares as its ``lead`` (``simcore.games.Game``):
bit k-1 of a seat's value is set when the seat held (or shared) the highest score after round
k. Definitions (docs/workbench.md):

- a **lead change** is a round after which one seat leads alone and that seat is not the one
  that last led alone (rounds where seats are tied at the top change nothing; the first seat
  to lead alone is not a change);
- **the leader after round k wins**: the mean win share of the seats leading after round k
  (a lone leader's win share; tied leaders' shares averaged, as a tie splits a win), over the
  games that reached round k.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from simcore import games
from simcore.results import LEAD_ROUNDS
from simcore.summary import wilson

from .data import Frame, collect, columns, game_of, lazy
from .stats import t95, t_interval


def leader_column(k: int) -> str:
    """The metric column of the leader-after-round-k share (k from 1)."""
    return f"leader_wins_r{k}"


def lead_rounds(lf: pl.LazyFrame, lead: str) -> int:
    """The most rounds any game of these results recorded in ``lead`` (its highest bit)."""
    top = collect(lf.select(pl.col(lead).max()))[0, 0]
    return 0 if top is None else int(top).bit_length()


def lead_changes(unique: np.ndarray) -> np.ndarray:
    """Per game, the lead changes from ``unique`` [games, rounds]: the seat leading alone after
    each round, or -1 (seats tied at the top, or the round not played)."""
    last = np.full(unique.shape[0], -1, np.int64)
    changes = np.zeros(unique.shape[0], np.int64)
    for k in range(unique.shape[1]):
        u = unique[:, k]
        alone = u >= 0
        changes += alone & (last >= 0) & (u != last)
        last = np.where(alone, u, last)
    return changes


def numbers(spec: games.Game) -> set[str]:
    """The designer metrics that count something per game (each length, the margin, lead
    changes); the others are shares of games."""
    return {*spec.lengths, "margin", "lead_changes"}


def per_game(df: Frame, by: Sequence[str], spec: games.Game | None = None
             ) -> tuple[pl.DataFrame, list[str]]:
    """One row per game (``by``, the game index and its seating) with every designer metric's
    value in that game, and the metric names: each length column the game declares,
    ``margin``, ``tie``, ``ended_<column>`` for each ending, and where the game declares a
    ``lead`` column, ``lead_changes`` and ``leader_wins_r<k>`` (null where the game did not
    reach round k), and with a ``rounds`` column ``lead_truncated`` (1 for a game longer than
    the ``LEAD_ROUNDS`` its lead record holds: its lead changes are those of those rounds)."""
    lf = lazy(df)
    names = columns(lf)
    spec = game_of(lf) if spec is None else spec
    by = list(by)
    game = [*by, "game", *(["seating"] if "seating" in names and "seating" not in by else [])]
    lengths = [c for c in spec.lengths if c in names]
    endings = [c for c in spec.endings if c in names]
    ranked = pl.col(spec.score).cast(pl.Float64).sort(descending=True)
    aggs = [*[pl.col(c).first().cast(pl.Float64).alias(c) for c in lengths],
            *[pl.col(c).first().cast(pl.Float64).alias(f"ended_{c}") for c in endings],
            (ranked.first() - ranked.slice(1, 1).first()).alias("margin"),
            (pl.col("rank") == 1).sum().gt(1).cast(pl.Float64).alias("tie")]
    metrics = [*lengths, "margin", "tie", *[f"ended_{c}" for c in endings]]
    rounds = lead_rounds(lf, spec.lead) if spec.lead and spec.lead in names else 0
    win = pl.col("win").cast(pl.Float64)
    for k in range(rounds):
        led = (pl.col(spec.lead) & (1 << k)) != 0
        n = led.sum()
        aggs += [pl.when(n > 0).then((win * led.cast(pl.Float64)).sum() / n)
                 .alias(leader_column(k + 1)),
                 pl.when(n == 1).then(pl.col("seat").filter(led).first().cast(pl.Int64))
                 .otherwise(-1).alias(f"_alone{k}")]
    if rounds and "rounds" in names:        # games longer than the record holds
        aggs.append((pl.col("rounds").first() > LEAD_ROUNDS).cast(pl.Float64)
                    .alias("lead_truncated"))
        metrics.append("lead_truncated")
    per = collect(lf.group_by(game).agg(aggs))
    if rounds:
        alone = [f"_alone{k}" for k in range(rounds)]
        changes = lead_changes(per.select(alone).to_numpy())
        per = per.drop(alone).with_columns(lead_changes=pl.Series(changes, dtype=pl.Float64))
        metrics += ["lead_changes", *[leader_column(k + 1) for k in range(rounds)]]
    return per, metrics


def designer_metrics(df: Frame, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Per group of ``by`` (default: ``variant`` and ``n_players`` where present): ``games``
    (game indices) and, for each metric, its mean with ``<metric>_low`` / ``<metric>_high``
    (95%):

    - each length column the game declares (``decisions``, ``rounds``, ``turns``, ...),
    - ``margin``: the winner's score minus the runner-up's,
    - ``tie``: the share of games with tied winners,
    - ``ended_<column>``: the share of games that ended each way the game declares (e.g.
      at dawn, at the turn cap),
    - where the game records the lead: ``lead_changes`` per game, and for each round k
      ``leader_wins_r<k>``: how often the leader after round k wins (module docstring), over
      the games that reached round k (``leader_wins_r<k>_games``; a Wilson interval);
      ``lead_truncated``: the share of games longer than the 63 rounds the lead record
      holds (their lead changes are counted over the first 63).

    Means take t(C - 1) intervals over their C game indices (shares clipped to [0, 1]; NaN
    under 2); ``leader_table`` lays the
    per-round shares out one row per round.
    """
    lf = lazy(df)
    names = columns(lf)
    by = [c for c in ("variant", "n_players") if c in names] if by is None else list(by)
    per, metrics = per_game(lf, by)
    per_index = per.group_by([*by, "game"]).agg(pl.col(m).mean() for m in metrics)
    leaders = [m for m in metrics if m.startswith("leader_wins_r")]
    t = per_index.group_by(by).agg(
        games=pl.len(),
        **{m: pl.col(m).mean() for m in metrics},
        **{f"{m}_se": pl.col(m).std() / pl.col(m).count().sqrt() for m in metrics},
        **{f"{m}_n": pl.col(m).count() for m in metrics},
        **{f"{m}_games": pl.col(m).count() for m in leaders}).sort(by)
    shares = {"tie", "lead_truncated", *[m for m in metrics if m.startswith("ended_")]}

    def bounds(m: str) -> list[pl.Series | pl.Expr]:
        n = t[f"{m}_n"].to_numpy().astype(np.float64)
        est = t[m].fill_null(np.nan).to_numpy()
        if m in leaders:                      # a share of fewer games as k grows: Wilson
            lo, hi = wilson(est * n, n, t95(n))
            return [pl.Series(f"{m}_low", lo), pl.Series(f"{m}_high", hi),
                    pl.col(f"{m}_games")]
        lo, hi = t_interval(est, t[f"{m}_se"].fill_null(np.nan).to_numpy(), n,
                            (0.0, 1.0) if m in shares else (-np.inf, np.inf))
        return [pl.Series(f"{m}_low", lo), pl.Series(f"{m}_high", hi)]
    return t.select(*by, "games", *[e for m in metrics for e in (pl.col(m), *bounds(m))])


def leader_table(t: pl.DataFrame) -> pl.DataFrame:
    """The ``leader_wins_r<k>`` columns of a ``designer_metrics`` table as rows: per group and
    round, the games that reached it and how often its leader won, with the interval."""
    by = t.columns[:t.columns.index("games")]
    rounds = sorted(int(c[len("leader_wins_r"):]) for c in t.columns
                    if c.startswith("leader_wins_r") and c[len("leader_wins_r"):].isdigit())
    parts = [t.select(*by, pl.lit(k, pl.Int16).alias("round"),
                      pl.col(f"{leader_column(k)}_games").alias("games"),
                      pl.col(leader_column(k)).alias("leader_wins"),
                      pl.col(f"{leader_column(k)}_low").alias("leader_wins_low"),
                      pl.col(f"{leader_column(k)}_high").alias("leader_wins_high"))
             for k in rounds]
    if not parts:
        return pl.DataFrame()
    return pl.concat(parts).filter(pl.col("games") > 0).sort([*by, "round"])
