"""Round robin of policies: every line-up, every seat rotation, the same games for all."""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .data import Frame, collect, game_key, lazy, require
from .games import check_policies, game_module, play, policy_name
from .stats import Z95, wilson


@dataclass(frozen=True)
class Tournament:
    results: pl.DataFrame    # every game of every seating (``seating`` column names it)
    pairwise: pl.DataFrame   # policy, opponent: share of head-to-head finishes ahead, 95% CI
    matrix: pl.DataFrame     # the same shares as a policy x opponent table
    ratings: pl.DataFrame    # per policy: win rate (Wilson) beside its Bradley-Terry rating


def lineups(policies: Sequence[Any], players: int) -> list[tuple[Any, ...]]:
    """Every multiset of ``players`` policies with at least two different ones (a table of a
    single policy compares nothing), in a fixed order."""
    return [c for c in itertools.combinations_with_replacement(policies, players)
            if len({policy_name(p) for p in c}) > 1]


def rotations(lineup: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The distinct cyclic rotations of a seat order: every policy takes every seat while the
    order around the table (who plays after whom) is kept."""
    out: list[tuple[Any, ...]] = []
    for k in range(len(lineup)):
        r = tuple(lineup[k:]) + tuple(lineup[:k])
        if [policy_name(p) for p in r] not in [[policy_name(p) for p in o] for o in out]:
            out.append(r)
    return out


def tournament(game: Any, policies: Sequence[Any], players: int, n_games: int, seed: int,
               *, rules: Any = None) -> Tournament:
    """Play every line-up of ``policies`` at ``players`` seats in every rotation, each seating
    on the same ``n_games`` games of ``seed`` (common random numbers: the policies meet the
    same decks in every seat), and summarise head-to-head results.

    Total games: ``n_games`` x (number of seatings).
    """
    mod = game_module(game)
    policies = check_policies(mod, policies, 2)
    if isinstance(players, bool) or not isinstance(players, int) or players < 2:
        raise ValueError(f"players must be an integer >= 2, got {players!r}")
    frames = [play(mod, seating, n_games, seed, rules)
              for lineup in lineups(policies, players) for seating in rotations(lineup)]
    results = pl.concat(frames, how="vertical_relaxed")
    pw = pairwise(results)
    return Tournament(results, pw, matrix(pw), ratings(results, pw))


def pairwise(df: Frame) -> pl.DataFrame:
    """For each ordered pair of different policies at one table: the share of their meetings
    in which ``policy`` finished ahead of ``opponent`` (a tie in rank counts 1/2), with a 95%
    interval that treats each game index as one unit (games of one index share their decks
    across seatings, so they are not independent)."""
    lf = lazy(df)
    key = game_key(lf)
    require(lf, [*key, "seat", "policy", "rank"])
    a = lf.select(*key, "seat", pl.col("policy").cast(pl.String), "rank")
    pairs = (a.join(a, on=key, suffix="_o")
             .filter(pl.col("policy") != pl.col("policy_o"))
             .with_columns(ahead=(pl.col("rank") < pl.col("rank_o")).cast(pl.Float64)
                           + 0.5 * (pl.col("rank") == pl.col("rank_o")).cast(pl.Float64)))
    per_game = pairs.group_by("policy", "policy_o", "game").agg(
        m=pl.col("ahead").mean(), k=pl.len())
    t = collect(per_game.group_by("policy", "policy_o").agg(
        games=pl.len(), meetings=pl.col("k").sum(), ahead=(pl.col("m") * pl.col("k")).sum(),
        mean=pl.col("m").mean(), sd=pl.col("m").std())).sort("policy", "policy_o")
    se = t["sd"].to_numpy() / np.sqrt(t["games"].to_numpy())
    rate = t["ahead"].to_numpy() / t["meetings"].to_numpy()
    return pl.DataFrame({"policy": t["policy"], "opponent": t["policy_o"],
                         "games": t["games"].cast(pl.Int64),
                         "meetings": t["meetings"].cast(pl.Int64), "ahead": t["ahead"],
                         "ahead_rate": rate, "ci_low": rate - Z95 * se, "ci_high": rate + Z95 * se})


def matrix(pw: pl.DataFrame) -> pl.DataFrame:
    """The pairwise table as ``policy`` rows by opponent columns, cells "ahead_rate [low, high]"."""
    cell = pl.format("{} [{}, {}]",
                     *(pl.col(c).round(3) for c in ("ahead_rate", "ci_low", "ci_high")))
    wide = pw.with_columns(cell=cell).pivot("opponent", index="policy", values="cell")
    names = sorted(set(pw["policy"]) | set(pw["opponent"]))
    return wide.select("policy", *[n for n in names if n in wide.columns]).sort("policy")


def bradley_terry(pw: pl.DataFrame, iterations: int = 1000, tol: float = 1e-10) -> dict[str, float]:
    """Bradley-Terry strengths fitted to the head-to-head counts (Hunter's MM algorithm),
    returned as Elo-scale ratings (400 log10 strength) centred on 0."""
    names = sorted(set(pw["policy"]) | set(pw["opponent"]))
    idx = {n: i for i, n in enumerate(names)}
    k = len(names)
    wins = np.zeros((k, k))
    for r in pw.iter_rows(named=True):
        wins[idx[r["policy"]], idx[r["opponent"]]] += r["ahead"]
    meet = wins + wins.T
    p = np.ones(k)
    for _ in range(iterations):
        denom = (meet / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, wins.sum(axis=1) / np.where(denom > 0, denom, 1), p)
        new = np.maximum(new, 1e-12)
        new /= np.exp(np.mean(np.log(new)))
        done = np.max(np.abs(new - p)) < tol
        p = new
        if done:
            break
    elo = 400 * np.log10(p)
    return {n: float(elo[i] - elo.mean()) for n, i in idx.items()}


def ratings(df: Frame, pw: pl.DataFrame) -> pl.DataFrame:
    """Win rate per policy (Wilson 95%) beside its Bradley-Terry rating."""
    lf = lazy(df)
    t = collect(lf.group_by(pl.col("policy").cast(pl.String)).agg(
        games=pl.len().cast(pl.Int64), wins=pl.col("win").cast(pl.Float64).sum()))
    low, high = wilson(t["wins"].to_numpy(), t["games"].to_numpy())
    bt = bradley_terry(pw)
    return t.with_columns(win_rate=pl.col("wins") / pl.col("games"), ci_low=low, ci_high=high,
                          bt_elo=pl.col("policy").replace_strict(bt, default=None,
                                                                 return_dtype=pl.Float64)
                          ).sort("bt_elo", descending=True)
