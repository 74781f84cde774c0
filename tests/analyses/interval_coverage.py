"""Coverage of every interval kind the analyses print, and the size of their tests, measured
on synthetic tournaments and ladders with planted truth at a chosen number of game indices.

Each kind is a function (reps, clusters, seed) -> booleans, one per interval (covered) or test
(rejected at 5%), computed by the functions the analyses call. ``test_coverage.py`` checks
them at modest replication counts; ``python tests/analyses/interval_coverage.py`` (from the project
root, the project importable) prints the table of docs/analyses.md:

    python tests/analyses/interval_coverage.py --reps 1000 --ladder-reps 200 --clusters 12,40,200
"""
from __future__ import annotations

import argparse
import functools
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).parent))

from analyses import ladder  # noqa: E402
from analyses.compare import fixed_interval  # noqa: E402
from analyses.diff import paired  # noqa: E402
from analyses.stats import (clustered_wilson, difference, equal_shares_test,  # noqa: E402
                            influence_se, moments_of, ratio, ratio_influence, t95, t_interval)
from synth import Clustered, gumbel_game, true_cell  # noqa: E402

STRENGTHS = (0.0, 0.3, 0.6)
"""The synthetic tournament's three policies (3 seats, 21 seatings: every rotation)."""
SEAT_BONUS = (0.8, 0.0, 0.0)
"""The planted start-seat bonus (a fair game has none)."""
LADDER = {"weak": 0.0, "mid": 0.4, "strong": 0.9}
"""The synthetic ladder's rungs (Plackett-Luce strengths: every cell and rating exact)."""
LADDER_BONUS = (0.8, 0.0, -0.3, 0.0)


@functools.lru_cache(maxsize=4)
def null(reps: int, clusters: int, seed: int) -> Clustered:
    """Policies differ; no seat advantage, no effect of the thing or the attribute."""
    return Clustered(reps, clusters, STRENGTHS, seed=seed)


@functools.lru_cache(maxsize=4)
def planted(reps: int, clusters: int, seed: int) -> Clustered:
    """A start-seat bonus, and the thing (present in about half the game indices) helps p0."""
    return Clustered(reps, clusters, STRENGTHS, seat_bonus=SEAT_BONUS, thing_bonus=1.0,
                     seed=seed + 1)


def seat_sums(g: Clustered) -> np.ndarray:
    """Per replicate and cluster: each seat's win shares, then its seat-games: [R, C, 2P]."""
    w = g.win.sum(axis=2)
    return np.concatenate([w, np.full(w.shape, float(len(g.seatings)))], axis=-1)


def with_without(y: np.ndarray, n: np.ndarray, present: np.ndarray) -> np.ndarray:
    """The variables (y1, n1, y, n) of ``stats.difference`` per replicate and cluster."""
    return np.stack([y * present, n * present, y, n], axis=-1)


def attribute_sums(g: Clustered, values: np.ndarray, a: int = 0) -> np.ndarray:
    """(y1, n1, y, n) over all seat-games: those whose seat holds attribute ``a``."""
    held = (g.attribute == a)[:, :, None, :]                    # [R, C, 1, P]
    s = len(g.seatings)
    return np.stack([(values * held).sum(axis=(2, 3)), s * held.sum(axis=(2, 3)),
                     values.sum(axis=(2, 3)), np.full(g.thing.shape, float(s * g.players))],
                    axis=-1)


def ahead_sums(g: Clustered, i: int, j: int) -> tuple[np.ndarray, float]:
    """Per replicate and cluster: meetings of policy i with j at one table where i finished
    ahead, and the meetings [R, C, 2]; and the true share ahead (scores are independent
    normals, so each meeting's chance is a normal tail)."""
    pol, s = g.seatings, g.score
    mean = np.asarray(g.strengths)[pol] + g.seat_bonus[None, :]
    ahead = np.zeros(s.shape[:2])
    chances = []
    for k in range(len(pol)):
        for a in np.flatnonzero(pol[k] == i):
            for b in np.flatnonzero(pol[k] == j):
                ahead += s[:, :, k, a] > s[:, :, k, b]
                z = (mean[k, a] - mean[k, b]) / (np.hypot(g.sd, 1.0) * math.sqrt(2))
                chances.append(0.5 * math.erfc(-z / math.sqrt(2)))
    return np.stack([ahead, np.full(ahead.shape, float(len(chances)))], -1), np.mean(chances)


def inside(low, high, truth) -> np.ndarray:
    return np.ravel((low <= truth) & (truth <= high))


def policy_win_rate(reps: int, clusters: int, seed: int) -> np.ndarray:
    g = null(reps, clusters, seed)
    truth = g.win_probability()
    out = []
    for k in range(len(STRENGTHS)):
        _, low, high, _ = clustered_wilson(*moments_of(g.policy_sums(k, g.win)))
        out.append(inside(low, high, truth[g.seatings == k].mean()))
    return np.concatenate(out)


def seat_win_rate(reps: int, clusters: int, seed: int) -> np.ndarray:
    g = null(reps, clusters, seed)
    x, p = seat_sums(g), g.players
    return np.concatenate([inside(*clustered_wilson(*moments_of(x[..., [s, p + s]]))[1:3], 1 / p)
                           for s in range(p)])


def seat_mean_score(reps: int, clusters: int, seed: int) -> np.ndarray:
    g = null(reps, clusters, seed)
    truth = np.asarray(STRENGTHS)[g.seatings].mean()    # the same for every rotated seat
    score, x, p = g.score.sum(axis=2), seat_sums(g), g.players
    out = []
    for s in range(p):
        mean, se = ratio(*moments_of(np.stack([score[..., s], x[..., p + s]], axis=-1)))
        out.append(inside(*t_interval(mean, se, clusters), truth))
    return np.concatenate(out)


def head_to_head(reps: int, clusters: int, seed: int) -> np.ndarray:
    g = null(reps, clusters, seed)
    out = []
    for i, j in ((0, 1), (0, 2), (2, 1)):
        x, truth = ahead_sums(g, i, j)
        rate, se = ratio(*moments_of(x))
        out.append(inside(*t_interval(rate, se, clusters, (0, 1)), truth))
    return np.concatenate(out)


def seat_test_size(reps: int, clusters: int, seed: int) -> np.ndarray:
    g = null(reps, clusters, seed)
    c, t, m = moments_of(seat_sums(g))
    return np.array([equal_shares_test(c[r], t[r], m[r], False)[2] < 0.05 for r in range(reps)])


def _event(g: Clustered, clusters: int) -> tuple[np.ndarray, np.ndarray]:
    """Covered and rejected (p from the pooled variance) of the thing's effect on each
    policy's win rate and mean score."""
    extra = g.thing_bonus * (g.seatings == 0)
    gap = g.win_probability(extra) - g.win_probability()
    covered, rejected = [], []
    for k in range(len(STRENGTHS)):
        mask = g.seatings == k
        for values, truth in ((g.win, gap[mask].mean()), (g.score, g.thing_bonus * (k == 0))):
            x = g.policy_sums(k, values)
            d, se, se0 = difference(*moments_of(with_without(x[..., 0], x[..., 1], g.thing)))
            covered.append(inside(*t_interval(d, se, clusters), truth))
            rejected.append(np.ravel(np.abs(d) > t95(clusters) * se0))
    return np.concatenate(covered), np.concatenate(rejected)


def _character(g: Clustered, clusters: int) -> tuple[np.ndarray, np.ndarray]:
    covered, rejected = [], []
    for a in range(3):
        for values in (g.win, g.score):
            d, se, se0 = difference(*moments_of(attribute_sums(g, values, a)))
            covered.append(inside(*t_interval(d, se, clusters), 0.0))
            rejected.append(np.ravel(np.abs(d) > t95(clusters) * se0))
    return np.concatenate(covered), np.concatenate(rejected)


def _pick(measure, make, i: int):
    """A kind: output ``i`` (0 covered, 1 rejected) of ``measure`` on ``make``'s tournaments."""
    def kind(reps: int, clusters: int, seed: int) -> np.ndarray:
        return measure(make(reps, clusters, seed), clusters)[i]
    return kind


def character_win_rate(reps: int, clusters: int, seed: int) -> np.ndarray:
    g = null(reps, clusters, seed)
    _, low, high, _ = clustered_wilson(*moments_of(attribute_sums(g, g.win)[..., :2]))
    return inside(low, high, 1 / g.players)


def _replays(g: Clustered) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The planted tournament replayed on the same luck with the thing in every game and in
    none (a switch-off): p0's win shares [R, C, S, P] with and without, and p0's true win
    rate with and without."""
    p0 = (g.seatings == 0).astype(float)
    off = g.score - g.thing_bonus * p0 * g.thing[..., None, None]
    wins = []
    for score in (off + g.thing_bonus * p0, off):
        best = score.argmax(axis=-1)
        wins.append((best[..., None] == np.arange(g.players)).astype(float))
    truth = [g.win_probability(extra)[g.seatings == 0].mean()
             for extra in (g.thing_bonus * p0, None)]
    return wins[0], wins[1], truth[0], truth[1]


def counterfactual_effect(reps: int, clusters: int, seed: int) -> np.ndarray:
    """As ``counterfactual_impact``: with minus without of p0's win rate on paired replays,
    each side's influence per game index (``ratio_influence``), CR1 of their difference."""
    g = planted(reps, clusters, seed)
    on, off, t_on, t_off = _replays(g)
    y_on, y_off = (g.policy_sums(0, w) for w in (on, off))
    out = []
    for r in range(reps):
        (r_on, psi_on), (r_off, psi_off) = (ratio_influence(y[r, :, 0], y[r, :, 1])
                                            for y in (y_on, y_off))
        low, high = t_interval(r_on - r_off, influence_se(psi_on - psi_off), clusters)
        out.append(low <= t_on - t_off <= high)
    return np.array(out)


def paired_diff(reps: int, clusters: int, seed: int) -> np.ndarray:
    """As ``analyses diff``: ``diff.paired`` on p0's mean win share per game index under the
    rules with and without the thing."""
    g = planted(reps, clusters, seed)
    on, off, t_on, t_off = _replays(g)
    rows = [pl.DataFrame({"rep": np.repeat(np.arange(reps), clusters), "variant": label,
                          "game": np.tile(np.arange(clusters), reps),
                          "v": (y[..., 0] / y[..., 1]).reshape(-1)})
            for label, y in (("a", g.policy_sums(0, off)), ("b", g.policy_sums(0, on)))]
    t = paired(pl.concat(rows), ["rep"], "a", "b")
    return inside(t["ci_low"].to_numpy(), t["ci_high"].to_numpy(), t_on - t_off)


def compare_diff(reps: int, clusters: int, seed: int) -> np.ndarray:
    """As ``compare``: D = p0's win share - p1's per game index, averaged over its seatings."""
    g = null(reps, clusters, seed)
    truth = g.win_probability()
    d = (g.policy_sums(0, g.win)[..., 0] - g.policy_sums(1, g.win)[..., 0]) / len(g.seatings)
    target = ((truth * (g.seatings == 0)).sum() - (truth * (g.seatings == 1)).sum()) \
        / len(g.seatings)
    ends = np.array([fixed_interval(d[r], (-1, 1))[:2] for r in range(reps)])
    return inside(ends[:, 0], ends[:, 1], target)


@functools.lru_cache(maxsize=8)
def decision_share(reps: int, clusters: int, seed: int) -> np.ndarray:
    """A share of decisions (meaningful, dead: ``analyses.leverage``), the game index the unit:
    games of 1 to 19 sampled decisions, each game with its own chance of the property (Beta(2,
    3): mean 0.4), so the decisions of one game are alike."""
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 20, (reps, clusters))
    y = rng.binomial(n, rng.beta(2.0, 3.0, (reps, clusters)))
    share, se = ratio(*moments_of(np.stack([y, n], axis=-1).astype(np.float64)))
    return inside(*t_interval(share, se, clusters, (0.0, 1.0)), 0.4)


def _ladders(reps: int, clusters: int, seed: int, rotation: str, bonus: bool
             ) -> tuple[tuple[np.ndarray, ...], ...]:
    """Per replicate ladder of ``LADDER`` at 4 players on ``clusters`` game indices in all:
    cells covered, ratings covered, variance share covered."""
    players, names = 4, list(LADDER)
    seats = LADDER_BONUS if bonus else (0.0,) * players
    game = gumbel_game(LADDER, seats)
    n = clusters // players if rotation == "across" else clusters
    elo = {k: 400 * v / math.log(10) for k, v in LADDER.items()}
    centre = np.mean(list(elo.values()))
    share = np.mean([((true_cell(LADDER, seats, a, b, players) - 1 / players)
                      / (1 - 1 / players)) ** 2 for a in names for b in names if a != b])
    out = []
    for rep in range(reps):
        lad = ladder(game, names, players, n, seed + rep, rotation=rotation, progress=False)
        m = lad.matrix
        cells = [true_cell(LADDER, seats, a, b, players) for a, b in m.select("rung",
                                                                              "opponent").rows()]
        rat = lad.ratings
        v = lad.variance.row(0, named=True)
        out.append((inside(m["ci_low"].to_numpy(), m["ci_high"].to_numpy(), np.array(cells)),
                    inside(rat["bt_low"].to_numpy(), rat["bt_high"].to_numpy(),
                           np.array([elo[r] - centre for r in rat["rung"]])),
                    np.array([v["share_low"] <= share <= v["share_high"]])))
    return tuple(out)


def _ladder_kind(part: int, rotation: str, bonus: bool = False):
    def kind(reps: int, clusters: int, seed: int) -> np.ndarray:
        return np.concatenate([x[part] for x in _ladders(reps, clusters, seed, rotation, bonus)])
    return kind


Kind = Callable[[int, int, int], np.ndarray]
KINDS: dict[str, tuple[str, bool, Kind]] = {
    # name: (what the truth is, whether the kind runs ladders, the measure)
    "win rate by policy (clustered Wilson)": ("coverage", False, policy_win_rate),
    "win rate by seat (clustered Wilson)": ("coverage", False, seat_win_rate),
    "mean score by seat (t)": ("coverage", False, seat_mean_score),
    "finish ahead, pairwise (t)": ("coverage", False, head_to_head),
    "event effect, none planted (t)": ("coverage", False, _pick(_event, null, 0)),
    "event effect, planted (t)": ("coverage", False, _pick(_event, planted, 0)),
    "character effect, none planted (t)": ("coverage", False, _pick(_character, null, 0)),
    "character win rate (clustered Wilson)": ("coverage", False, character_win_rate),
    "counterfactual effect, paired replays (t)": ("coverage", False, counterfactual_effect),
    "paired difference, `diff` (t)": ("coverage", False, paired_diff),
    "`compare` difference (t)": ("coverage", False, compare_diff),
    "share of decisions, `leverage` (t)": ("coverage", False, decision_share),
    "ladder cell, seats within each index": ("coverage", True, _ladder_kind(0, "within")),
    "ladder cell, seats across indices, seat bonus": ("coverage", True,
                                                      _ladder_kind(0, "across", True)),
    "Bradley-Terry rating (bootstrap), within": ("coverage", True, _ladder_kind(1, "within")),
    "Bradley-Terry rating (bootstrap), across": ("coverage", True, _ladder_kind(1, "across")),
    "variance share (bootstrap), within": ("coverage", True, _ladder_kind(2, "within")),
    "variance share (bootstrap), across": ("coverage", True, _ladder_kind(2, "across")),
    "seat test (F), fair game": ("size", False, seat_test_size),
    "event test, no effect": ("size", False, _pick(_event, null, 1)),
    "character test, no effect": ("size", False, _pick(_character, null, 1)),
}


def table(clusters: list[int], reps: int, ladder_reps: int, seed: int = 0) -> str:
    """The Markdown table: per kind and number of game indices, the share covered (or
    rejected at 5%) with its count of intervals."""
    head = " | ".join(f"{c} game indices" for c in clusters)
    lines = [f"| interval or test | measures | {head} |",
             "|---|---|" + "---|" * len(clusters)]
    for name, (what, is_ladder, kind) in KINDS.items():
        cells = []
        for c in clusters:
            x = kind(ladder_reps if is_ladder else reps, c, seed)
            cells.append(f"{np.mean(x):.1%} ({x.size:,})")
        lines.append(f"| {name} | {what} | " + " | ".join(cells) + " |")
        print(lines[-1], file=sys.stderr, flush=True)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=1000, help="synthetic tournaments per size")
    p.add_argument("--ladder-reps", type=int, default=200, help="synthetic ladders per size")
    p.add_argument("--clusters", default="12,40,200", help="game indices, comma separated")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    start = time.perf_counter()
    print(table([int(c) for c in args.clusters.split(",")], args.reps, args.ladder_reps,
                args.seed))
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
