"""Luck by source: the share of outcome variance owed to each chance source of a game (Broom
Service's event deck, Lapin's dice, ...), found by drawing that source anew with every other
draw held (``simulate(..., redraw=...)``: each source has its own stream per game).

For a source s, Jansen's estimator of its total-effect index is
T_s = E[(Y - Y_s)^2] / (2 Var Y), where Y is a game's outcome and Y_s the same game with s
drawn anew; Var Y comes the same way from games with every source drawn anew (independent
games): 2 Var Y = E[(Y - Y_all)^2]. T_s is the share of the variance that s takes with all its
interactions, so the shares of several sources can sum past 1 where sources interact (and
below 1 with what no source explains: none here, every draw is some source's). The outcome is
a vector over seats (each seat's win share, or each seat's score less the table's mean score)
and the indices are its variance summed over seats (Gamboa et al. 2014); the unit of every
interval is the game index.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from simcore.runner import check_int
from simcore.simulate import POLICIES, redraw_sources

from . import display
from .games import check_players, check_policies, check_run, game_module, game_spec, policy_name
from .stats import few_clusters

BOOT = 1000
"""Bootstrap resamples of game indices behind each interval."""

OUTCOMES = {"win": "the seats' win shares",
            "margin": "the seats' scores less the table's mean score"}
"""The outcomes a source's share is measured on, and how pages name them."""

POLICIES_SAID = "the policies' own draws (every seat's stream: a random policy, a search)"


@dataclass(frozen=True)
class Luck:
    game: str
    table: tuple[str, ...]   # the policy at each seat
    n_games: int             # game indices (each played 2 + sources times)
    seed: int
    shares: pl.DataFrame     # per outcome and source: total-effect share, 95% interval

    def text(self, outcome: str = "win") -> str:
        """One sentence: each source's share of the outcome's variance, largest first."""
        t = self.shares.filter(pl.col("outcome") == outcome).sort("share", descending=True,
                                                                   nulls_last=True)
        if t["share"].is_null().all():
            return (f"Luck by source: not computable from {self.n_games:,} game indices (the "
                    f"outcome never varied, or fewer than 2 indices)")
        parts = [f"{r['source']} {_pct(r)}" for r in t.iter_rows(named=True)]
        return (f"Luck by source, share of the variance of {OUTCOMES[outcome]} that drawing "
                f"one source anew moves ({' | '.join(self.table)}): {', '.join(parts)} "
                f"(total-effect shares, Jansen's estimator: each with its interactions, so "
                f"they may sum past 100%; 95% bootstrap interval over {self.n_games:,} game "
                f"indices of seed {self.seed})" + _caution(self.n_games))

    def readable(self) -> pl.DataFrame:
        """The table as pages print it."""
        return self.shares.select(
            "outcome", "source", "draws",
            display.rate_ci("share", "share_low", "share_high").alias(
                "total-effect share [95% CI]"))


def _pct(r: dict) -> str:
    return f"{r['share']:.0%} [{r['share_low']:.0%}, {r['share_high']:.0%}]"


def _caution(n: int) -> str:
    said = few_clusters(n)
    return f"; caution: {said}" if said else ""


def total_effects(base: np.ndarray, every: np.ndarray, redrawn: Mapping[str, np.ndarray],
                  boot: int = BOOT, seed: int = 0) -> pl.DataFrame:
    """Jansen's total-effect index of each source, with a 95% percentile bootstrap interval
    over the rows (game indices). ``base``: [n, k] each game's outcome (k components, summed);
    ``every``: the same games with every source drawn anew; ``redrawn``: per source, the same
    games with that source alone drawn anew. An index is null where the outcome never varied
    or n < 2; estimates and bounds are clipped to [0, 1], where the index lies."""
    base = np.asarray(base, np.float64).reshape(len(base), -1)
    n = base.shape[0]
    sq = {s: ((base - np.asarray(y, np.float64).reshape(n, -1)) ** 2).sum(axis=1)
          for s, y in {"": every, **redrawn}.items()}
    den = sq[""].mean() if n else 0.0
    rows = {s: [] for s in redrawn}
    if n >= 2 and den > 0:
        rng = np.random.default_rng(seed)
        for _ in range(0, boot, 100):           # 100 resamples at a time: bounded memory
            idx = rng.integers(0, n, (min(100, boot), n))
            d = sq[""][idx].mean(axis=1)
            for s in redrawn:
                rows[s].append(np.where(d > 0, sq[s][idx].mean(axis=1) / np.maximum(d, 1e-300),
                                        np.nan))
    out = []
    for s in redrawn:
        if rows[s]:
            b = np.concatenate(rows[s])[:boot]
            lo, hi = np.clip(np.nanquantile(b, [0.025, 0.975]), 0, 1)
            out.append((s, min(sq[s].mean() / den, 1.0), lo, hi))
        else:
            out.append((s, None, None, None))
    return pl.DataFrame(out, schema={"source": pl.String, "share": pl.Float64,
                                     "share_low": pl.Float64, "share_high": pl.Float64},
                        orient="row").with_columns(clusters=pl.lit(n, pl.Int64))


def outcomes(df: pl.DataFrame, score: str, players: int) -> dict[str, np.ndarray]:
    """Each outcome of a results frame as [games, seats] (rows sorted by game and seat)."""
    df = df.sort("game", "seat")
    win = df["win"].to_numpy().astype(np.float64).reshape(-1, players)
    pts = df[score].to_numpy().astype(np.float64).reshape(-1, players)
    return {"win": win, "margin": pts - pts.mean(axis=1, keepdims=True)}


def luck_by_source(game: Any, policies: Sequence[Any], players: int, games: int, seed: int,
                   *, sources: Sequence[str] | None = None, rules: Any = None,
                   threads: int | None = None, boot: int = BOOT) -> Luck:
    """Each chance source's total-effect share of the outcome variance at one table: the
    policies seated in turn (seat i plays ``policies[i % len(policies)]``) on game indices
    ``0..games-1`` of ``seed``, played once as drawn, once with every source drawn anew, and
    once per source with that source alone drawn anew (``sources``: the game's chance sources
    and ``"policies"``, every seat's own stream; default all of them). Costs (2 + sources)
    x ``games`` games."""
    mod = game_module(game)
    spec = game_spec(mod)
    players = check_players(mod, players)
    check_int("games", games, 2)
    check_int("boot", boot, 100)
    table = check_policies(mod, list(policies), 1, distinct=False)
    table = [table[i % len(table)] for i in range(players)]
    known = redraw_sources(spec)
    sources = list(known if sources is None else sources)
    bad = [s for s in sources if s not in known]
    if bad or not sources or len(set(sources)) != len(sources):
        raise ValueError(f"sources: give distinct chance sources of {spec.name} among "
                         f"{list(known)}, got {sources}")
    check_run(mod, games * (2 + len(sources)), players, rules=rules, held=games)
    kwargs = {"rules": rules} if rules is not None else {}
    if threads is not None:
        kwargs["threads"] = threads

    def run(redraw: tuple | None) -> dict[str, np.ndarray]:
        df = mod.simulate(table, games, seed, progress=False, redraw=redraw, **kwargs)
        return outcomes(df, spec.score, players)

    base, every = run(None), run((list(known), 0))
    redrawn = {s: run((s, 0)) for s in sources}
    said = {**spec.chance, POLICIES: POLICIES_SAID}
    parts = [total_effects(base[o], every[o], {s: redrawn[s][o] for s in sources}, boot, seed)
             .with_columns(outcome=pl.lit(o), draws=pl.col("source").replace_strict(said))
             for o in OUTCOMES]
    shares = pl.concat(parts).select("outcome", "source", "draws", "share", "share_low",
                                     "share_high", "clusters")
    return Luck(spec.name, tuple(policy_name(p) for p in table), games, seed, shares)
