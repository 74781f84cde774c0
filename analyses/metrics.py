"""Designer metrics: how a game plays, beyond who wins. Per group (variant, player count, ...):
game length, the score margin between first and second, ties, and how games end, each with a
95% interval. A game index counts once (its seatings averaged first), so the intervals take the
game as the unit, as every table of ``analyses`` does."""
from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from simcore.summary import Z95

from .data import Frame, columns, game_of, lazy


def _per_game(lf: pl.LazyFrame, by: list[str], score: str, lengths: Sequence[str],
              endings: Sequence[str]) -> pl.LazyFrame:
    """One row per game (index and seating): its length, margin, tie and ending."""
    names = columns(lf)
    game = [*by, "game", *(["seating"] if "seating" in names and "seating" not in by else [])]
    ranked = pl.col(score).cast(pl.Float64).sort(descending=True)
    return lf.group_by(game).agg(
        *[pl.col(c).first().cast(pl.Float64).alias(c) for c in lengths],
        *[pl.col(c).first().cast(pl.Float64).alias(f"ended_{c}") for c in endings],
        margin=ranked.first() - ranked.slice(1, 1).first(),
        tie=(pl.col("rank") == 1).sum().cast(pl.Float64).gt(1).cast(pl.Float64))


def designer_metrics(df: Frame, by: Sequence[str] | None = None) -> pl.DataFrame:
    """Per group of ``by`` (default: ``variant`` and ``n_players`` where present): ``games``
    (game indices) and, for each metric, its mean with ``<metric>_low`` / ``<metric>_high``:

    - each length column the game declares (``decisions``, ``turns``, ...),
    - ``margin``: the winner's score minus the runner-up's,
    - ``tie``: the share of games with tied winners,
    - ``ended_<column>``: the share of games that ended each way the game declares (e.g.
      at dawn, at the turn cap).

    Lead changes over a game and how often the leader after each round wins need the scores
    after every round, which the results frame does not hold.
    """
    lf = lazy(df)
    names = columns(lf)
    spec = game_of(lf)
    by = [c for c in ("variant", "n_players") if c in names] if by is None else list(by)
    lengths = [c for c in spec.lengths if c in names]
    endings = [c for c in spec.endings if c in names]
    per = _per_game(lf, by, spec.score, lengths, endings)
    metrics = [*lengths, "margin", "tie", *[f"ended_{c}" for c in endings]]
    per_index = per.group_by([*by, "game"]).agg(pl.col(m).mean() for m in metrics)
    t = per_index.group_by(by).agg(
        games=pl.len(),
        **{m: pl.col(m).mean() for m in metrics},
        **{f"{m}_se": pl.col(m).std() / pl.len().sqrt() for m in metrics}).sort(by)
    shares = {"tie", *[f"ended_{c}" for c in endings]}

    def bounds(m: str) -> tuple[pl.Expr, pl.Expr]:
        lo, hi = pl.col(m) - Z95 * pl.col(f"{m}_se"), pl.col(m) + Z95 * pl.col(f"{m}_se")
        if m in shares:                       # a share's interval stays within [0, 1]
            lo, hi = lo.clip(0.0, 1.0), hi.clip(0.0, 1.0)
        return lo.alias(f"{m}_low"), hi.alias(f"{m}_high")
    return t.select(*by, "games", *[e for m in metrics for e in (pl.col(m), *bounds(m))]
                    ).collect()
