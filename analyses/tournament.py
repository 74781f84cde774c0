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
from .games import check_players, check_policies, check_run, game_module, play, policy_name
from .stats import cluster_key, moments, ratio, t_interval
from .winrates import win_rates


@dataclass(frozen=True)
class Tournament:
    results: pl.DataFrame    # every game of every seating (``seating`` column names it)
    pairwise: pl.DataFrame   # policy, opponent: share of head-to-head finishes ahead, 95% CI
    matrix: pl.DataFrame     # the same shares as a policy x opponent table
    ratings: pl.DataFrame    # per policy: win rate (clustered Wilson) beside its Bradley-Terry
    #                          rating with a 95% bootstrap interval (bt_elo, bt_low, bt_high)
    #                          and bt_flag where the data cannot place it


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
    check_players(mod, players)
    check_int("n_games", n_games)
    plan = [seating for lineup in lineups(policies, players) for seating in rotations(lineup)]
    check_run(mod, len(plan) * n_games, players, rules=rules, held=len(plan) * n_games)
    frames = [play(mod, seating, n_games, seed, rules) for seating in plan]
    results = pl.concat(frames, how="vertical_relaxed")
    met = meetings(results)
    pw = pairwise(results, met)
    return Tournament(results, pw, matrix(pw), ratings(results, met))


def meetings(df: Frame) -> pl.DataFrame:
    """Head-to-head counts per ordered pair of different policies and cluster (game index,
    ``stats.cluster_key``): ``meetings`` (pairs of their seats at one table) and ``ahead``
    (those where ``policy`` finished ahead of ``opponent``, a tie in rank counting 1/2). Game
    indices are the unit of the intervals: the seatings of a tournament replay the same
    indices, so games of one index share their decks and are not independent."""
    lf = lazy(df)
    key = game_key(lf)
    require(lf, [*key, "seat", "policy", "rank"])
    unit = cluster_key(lf)
    a = lf.select(*key, "seat", pl.col("policy").cast(pl.String), "rank")
    pairs = (a.join(a, on=key, suffix="_o")
             .filter(pl.col("policy") != pl.col("policy_o"))
             .with_columns(ahead=(pl.col("rank") < pl.col("rank_o")).cast(pl.Float64)
                           + 0.5 * (pl.col("rank") == pl.col("rank_o")).cast(pl.Float64)))
    return collect(pairs.group_by(pl.col("policy"), pl.col("policy_o").alias("opponent"), *unit)
                   .agg(meetings=pl.len(), ahead=pl.col("ahead").sum()))


def pairwise(df: Frame, met: pl.DataFrame | None = None) -> pl.DataFrame:
    """For each ordered pair of different policies at one table: the share of their meetings
    in which ``policy`` finished ahead of ``opponent`` (a tie in rank counts 1/2), with a 95%
    cluster-robust t(C - 1) interval in [0, 1] (``stats.ratio``: each game index is one unit).
    ``met``: ``meetings(df)`` when it is already computed."""
    met = meetings(df) if met is None else met
    t = (met.group_by("policy", "opponent")
         .agg(clusters=pl.len(), ahead=pl.col("ahead").sum(),
              meetings=pl.col("meetings").sum().cast(pl.Float64),
              **{"ahead*ahead": (pl.col("ahead") ** 2).sum(),
                 "ahead*meetings": (pl.col("ahead") * pl.col("meetings")).sum(),
                 "meetings*meetings": (pl.col("meetings").cast(pl.Float64) ** 2).sum()})
         .sort("policy", "opponent"))
    rate, se = ratio(*moments(t, ["ahead", "meetings"]))
    low, high = t_interval(rate, se, t["clusters"].to_numpy(), (0, 1))
    return pl.DataFrame({"policy": t["policy"], "opponent": t["opponent"],
                         "games": t["clusters"].cast(pl.Int64),
                         "meetings": t["meetings"].cast(pl.Int64), "ahead": t["ahead"],
                         "ahead_rate": rate, "ci_low": low, "ci_high": high})


def matrix(pw: pl.DataFrame) -> pl.DataFrame:
    """The pairwise table as ``policy`` rows by opponent columns, cells "ahead_rate [low, high]"
    in percent ("51.7% [49.4, 53.9]")."""
    cell = rate_ci("ahead_rate", "ci_low", "ci_high")
    wide = pw.with_columns(cell=cell).pivot("opponent", index="policy", values="cell")
    names = sorted(set(pw["policy"]) | set(pw["opponent"]))
    return wide.select("policy", *[n for n in names if n in wide.columns]).sort("policy")


PRIOR = 1.0
"""Virtual meetings added to every pair of policies in the Bradley-Terry fit, split evenly (a
tie): negligible beside thousands of real meetings, but it keeps the rating of a policy that
never (or always) finishes ahead finite instead of running off to minus (plus) infinity."""


def _fit_bt(wins: np.ndarray, centre: np.ndarray | None = None, iterations: int = 1000,
            tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry fit (Hunter's MM algorithm) of ``wins[..., i, j]`` (times i finished
    ahead of j) plus ``PRIOR``, for a stack of such matrices at once; Elo-scale ratings (400
    log10 strength) with mean 0 over the policies of ``centre`` (a mask; default all), shape
    ``wins.shape[:-1]``."""
    k = wins.shape[-1]
    wins = wins + PRIOR / 2 * (1 - np.eye(k))
    meet = wins + np.swapaxes(wins, -1, -2)
    won = wins.sum(axis=-1)
    p = np.ones(won.shape)
    for _ in range(iterations):
        denom = (meet / (p[..., :, None] + p[..., None, :])).sum(axis=-1)
        new = np.maximum(np.where(denom > 0, won / np.where(denom > 0, denom, 1), p), 1e-300)
        new /= np.exp(np.mean(np.log(new), axis=-1, keepdims=True))
        done = np.max(np.abs(np.log(new / p))) < tol
        p = new
        if done:
            break
    elo = 400 * np.log10(p)
    mask = np.ones(k, bool) if centre is None or not np.any(centre) else np.asarray(centre)
    return elo - elo[..., mask].mean(axis=-1, keepdims=True)


def bradley_terry(pw: pl.DataFrame, iterations: int = 1000, tol: float = 1e-10) -> dict[str, float]:
    """Bradley-Terry ratings fitted to the head-to-head counts of ``pairwise`` (Hunter's MM
    algorithm, with ``PRIOR``), on the Elo scale (400 log10 strength) centred on 0 over the
    policies the data can place (``degenerate``)."""
    names = sorted(set(pw["policy"]) | set(pw["opponent"]))
    idx = {n: i for i, n in enumerate(names)}
    wins = np.zeros((len(names), len(names)))
    for r in pw.iter_rows(named=True):
        wins[idx[r["policy"]], idx[r["opponent"]]] += r["ahead"]
    elo = _fit_bt(wins, ~degenerate(wins).astype(bool), iterations, tol)
    return {n: float(elo[i]) for n, i in idx.items()}


NEVER_AHEAD, NEVER_BEHIND = ("never finished ahead of another policy: rating set by the prior, "
                             "an upper bound"), ("never finished behind another policy: rating "
                                                 "set by the prior, a lower bound")


def degenerate(wins: np.ndarray) -> np.ndarray:
    """Per policy of a head-to-head matrix: ``NEVER_AHEAD``, ``NEVER_BEHIND`` or "" (the data
    place it). Without ``PRIOR`` the maximum-likelihood rating of a flagged policy is
    infinite; with it, the rating is only a bound, and the others are centred without it."""
    ahead, behind = wins.sum(axis=1), wins.sum(axis=0)
    return np.where(ahead <= 0, NEVER_AHEAD, np.where(behind <= 0, NEVER_BEHIND, ""))


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
    ``met``: ``meetings(df)``. Columns: policy, bt_elo, bt_low, bt_high, bt_flag
    (``degenerate``: "" where the data place the policy).
    """
    names, elo, boot, flag = bt_bootstrap(met, replicates, seed)
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    return pl.DataFrame({"policy": names, "bt_elo": elo, "bt_low": low, "bt_high": high,
                         "bt_flag": flag})


def bt_bootstrap(met: pl.DataFrame, replicates: int = BOOTSTRAP, seed: int = 0
                 ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """The fit and the replicates of ``bt_intervals``: (policies sorted by name, their ratings,
    the bootstrap ratings [replicates, policies], flags), so that any contrast of ratings (the
    difference of two) gets its interval from the same replicates."""
    names, per_game = wins_per_game(met)
    k = len(names)
    total = per_game.sum(axis=0).reshape(k, k)
    flag = degenerate(total)
    elo = _fit_bt(total, flag == "")
    boot = _fit_bt(resample(per_game, replicates, seed).reshape(replicates, k, k), flag == "")
    return names, elo, boot, flag


def wins_per_game(met: pl.DataFrame) -> tuple[list[str], np.ndarray]:
    """The head-to-head counts of ``meetings`` per game index: (policies sorted by name,
    an array [game indices, policies x policies] whose cell i * k + j counts the times i
    finished ahead of j at that index, ties 1/2). Summed over indices it is the tournament's
    wins matrix; the bootstraps resample its rows (``resample``)."""
    names = sorted(set(met["policy"]) | set(met["opponent"]))
    idx = {n: i for i, n in enumerate(names)}
    unit = [c for c in ("seed", "game") if c in met.columns]
    g = met.select(pl.struct(unit).rank("dense")).to_series().to_numpy() - 1
    k = len(names)
    per_game = np.zeros((g.max() + 1, k * k))
    cell = met["policy"].replace_strict(idx).to_numpy() * k + \
        met["opponent"].replace_strict(idx).to_numpy()
    np.add.at(per_game, (g, cell), met["ahead"].to_numpy())
    return names, per_game


def resample(per_game: np.ndarray, replicates: int, seed: int) -> np.ndarray:
    """``replicates`` bootstrap totals of ``per_game``'s rows [replicates, columns]: each draws
    the game indices with replacement (a fixed ``seed`` gives the same draws to every
    statistic bootstrapped from one tournament)."""
    n = per_game.shape[0]
    draws = np.random.default_rng(seed).multinomial(n, np.full(n, 1 / n), size=replicates)
    return draws @ per_game


def ratings(df: Frame, met: pl.DataFrame | None = None) -> pl.DataFrame:
    """Win rate per policy (``win_rates``: clustered Wilson 95%) beside its Bradley-Terry
    rating with a 95% interval and flag (``bt_intervals``). ``met``: ``meetings(df)`` when it
    is already computed."""
    lf = lazy(df)
    met = meetings(lf) if met is None else met
    return (win_rates(lf, ["policy"]).join(bt_intervals(met), on="policy", how="left")
            .sort("bt_elo", descending=True, nulls_last=True))
