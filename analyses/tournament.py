"""Round robin of policies: every line-up, every seat rotation, the same games for all."""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from simcore.runner import check_int

from .data import Frame, collect, game_key, lazy, require
from .display import rate_ci
from .games import check_policies, game_module, play, policy_name
from .stats import Z95, wilson


@dataclass(frozen=True)
class Tournament:
    results: pl.DataFrame    # every game of every seating (``seating`` column names it)
    pairwise: pl.DataFrame   # policy, opponent: share of head-to-head finishes ahead, 95% CI
    matrix: pl.DataFrame     # the same shares as a policy x opponent table
    ratings: pl.DataFrame    # per policy: win rate (Wilson) beside its Bradley-Terry rating
    #                          with a 95% bootstrap interval (bt_elo, bt_low, bt_high)


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
    check_int("players", players, 2)
    frames = [play(mod, seating, n_games, seed, rules)
              for lineup in lineups(policies, players) for seating in rotations(lineup)]
    results = pl.concat(frames, how="vertical_relaxed")
    met = meetings(results)
    pw = pairwise(results, met)
    return Tournament(results, pw, matrix(pw), ratings(results, met))


def meetings(df: Frame) -> pl.DataFrame:
    """Head-to-head counts per ordered pair of different policies and game index:
    ``meetings`` (pairs of their seats at one table) and ``ahead`` (those where ``policy``
    finished ahead of ``opponent``, a tie in rank counting 1/2). Game indices are the unit of
    the intervals: the seatings of a tournament replay the same indices, so games of one
    index share their decks and are not independent."""
    lf = lazy(df)
    key = game_key(lf)
    require(lf, [*key, "seat", "policy", "rank"])
    a = lf.select(*key, "seat", pl.col("policy").cast(pl.String), "rank")
    pairs = (a.join(a, on=key, suffix="_o")
             .filter(pl.col("policy") != pl.col("policy_o"))
             .with_columns(ahead=(pl.col("rank") < pl.col("rank_o")).cast(pl.Float64)
                           + 0.5 * (pl.col("rank") == pl.col("rank_o")).cast(pl.Float64)))
    return collect(pairs.group_by(pl.col("policy"), pl.col("policy_o").alias("opponent"), "game")
                   .agg(meetings=pl.len(), ahead=pl.col("ahead").sum()))


def pairwise(df: Frame, met: pl.DataFrame | None = None) -> pl.DataFrame:
    """For each ordered pair of different policies at one table: the share of their meetings
    in which ``policy`` finished ahead of ``opponent`` (a tie in rank counts 1/2), with a 95%
    interval that treats each game index as one unit. ``met``: ``meetings(df)`` when it is
    already computed."""
    met = meetings(df) if met is None else met
    t = (met.with_columns(m=pl.col("ahead") / pl.col("meetings"))
         .group_by("policy", "opponent")
         .agg(games=pl.len(), meetings=pl.col("meetings").sum(), ahead=pl.col("ahead").sum(),
              sd=pl.col("m").std())
         .sort("policy", "opponent"))
    se = t["sd"].to_numpy() / np.sqrt(t["games"].to_numpy())
    rate = t["ahead"].to_numpy() / t["meetings"].to_numpy()
    return pl.DataFrame({"policy": t["policy"], "opponent": t["opponent"],
                         "games": t["games"].cast(pl.Int64),
                         "meetings": t["meetings"].cast(pl.Int64), "ahead": t["ahead"],
                         "ahead_rate": rate, "ci_low": rate - Z95 * se, "ci_high": rate + Z95 * se})


def matrix(pw: pl.DataFrame) -> pl.DataFrame:
    """The pairwise table as ``policy`` rows by opponent columns, cells "ahead_rate [low, high]"
    in percent ("51.7% [49.4, 53.9]")."""
    cell = rate_ci("ahead_rate", "ci_low", "ci_high")
    wide = pw.with_columns(cell=cell).pivot("opponent", index="policy", values="cell")
    names = sorted(set(pw["policy"]) | set(pw["opponent"]))
    return wide.select("policy", *[n for n in names if n in wide.columns]).sort("policy")


def _fit_bt(wins: np.ndarray, iterations: int = 1000, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry fit (Hunter's MM algorithm) of ``wins[..., i, j]`` (times i finished
    ahead of j), for a stack of such matrices at once; Elo-scale ratings (400 log10
    strength) centred on 0, shape ``wins.shape[:-1]``."""
    meet = wins + np.swapaxes(wins, -1, -2)
    won = wins.sum(axis=-1)
    p = np.ones(won.shape)
    for _ in range(iterations):
        denom = (meet / (p[..., :, None] + p[..., None, :])).sum(axis=-1)
        new = np.maximum(np.where(denom > 0, won / np.where(denom > 0, denom, 1), p), 1e-12)
        new /= np.exp(np.mean(np.log(new), axis=-1, keepdims=True))
        done = np.max(np.abs(new - p)) < tol
        p = new
        if done:
            break
    elo = 400 * np.log10(p)
    return elo - elo.mean(axis=-1, keepdims=True)


def bradley_terry(pw: pl.DataFrame, iterations: int = 1000, tol: float = 1e-10) -> dict[str, float]:
    """Bradley-Terry ratings fitted to the head-to-head counts of ``pairwise`` (Hunter's MM
    algorithm), on the Elo scale (400 log10 strength) centred on 0."""
    names = sorted(set(pw["policy"]) | set(pw["opponent"]))
    idx = {n: i for i, n in enumerate(names)}
    wins = np.zeros((len(names), len(names)))
    for r in pw.iter_rows(named=True):
        wins[idx[r["policy"]], idx[r["opponent"]]] += r["ahead"]
    elo = _fit_bt(wins, iterations, tol)
    return {n: float(elo[i]) for n, i in idx.items()}


BOOTSTRAP = 400
"""Bootstrap replicates of the Bradley-Terry intervals (percentile ends at 2.5% and 97.5%)."""


def bt_intervals(met: pl.DataFrame, replicates: int = BOOTSTRAP, seed: int = 0
                 ) -> pl.DataFrame:
    """Bradley-Terry ratings (Elo scale, centred on 0) with 95% intervals from a bootstrap
    over game indices: each replicate draws the game indices with replacement and refits on
    all the meetings of the drawn indices (percentile interval, fixed ``seed``).

    Why this bootstrap: one game index is played in every seating of a tournament (common
    random numbers) and holds several meetings per table, so meetings are not independent;
    an interval from the BT likelihood's Fisher information would treat them as independent
    and come out too narrow. Resampling whole game indices keeps their dependence.
    ``met``: ``meetings(df)``. Columns: policy, bt_elo, bt_low, bt_high.
    """
    names = sorted(set(met["policy"]) | set(met["opponent"]))
    idx = {n: i for i, n in enumerate(names)}
    games, g = np.unique(met["game"].to_numpy(), return_inverse=True)
    k = len(names)
    per_game = np.zeros((games.size, k * k))
    cell = met["policy"].replace_strict(idx).to_numpy() * k + \
        met["opponent"].replace_strict(idx).to_numpy()
    np.add.at(per_game, (g, cell), met["ahead"].to_numpy())
    elo = _fit_bt(per_game.sum(axis=0).reshape(k, k))
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(games.size, np.full(games.size, 1 / games.size), size=replicates)
    boot = _fit_bt((draws @ per_game).reshape(replicates, k, k))
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    return pl.DataFrame({"policy": names, "bt_elo": elo, "bt_low": low, "bt_high": high})


def ratings(df: Frame, met: pl.DataFrame | None = None) -> pl.DataFrame:
    """Win rate per policy (Wilson 95%) beside its Bradley-Terry rating with a 95% interval
    (``bt_intervals``). ``met``: ``meetings(df)`` when it is already computed."""
    lf = lazy(df)
    met = meetings(lf) if met is None else met
    t = collect(lf.group_by(pl.col("policy").cast(pl.String)).agg(
        games=pl.len().cast(pl.Int64), wins=pl.col("win").cast(pl.Float64).sum()))
    low, high = wilson(t["wins"].to_numpy(), t["games"].to_numpy())
    return (t.with_columns(win_rate=pl.col("wins") / pl.col("games"), ci_low=low, ci_high=high)
            .join(bt_intervals(met), on="policy", how="left")
            .sort("bt_elo", descending=True, nulls_last=True))
