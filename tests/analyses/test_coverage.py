"""Coverage and size on tournament-shaped data with known truth (``synth.Clustered``): the
seatings of a game index share its luck, its event and its seats' attributes, as the real
tournaments do. Every interval the report shows covers the truth near its 95%, every test
holds its 5% size and finds a planted effect; the numpy estimators are the ones the analyses
call (checked equal on one replicate through the polars path)."""
import numpy as np
import polars as pl
import pytest

from analyses import event_impact, seat_advantage, win_rates
from analyses.tournament import pairwise
from analyses.stats import (clustered_wilson, difference, equal_shares_test, moments_of,
                            ratio, t95, wilson)
from synth import Clustered

REPS, CLUSTERS = 300, 150
STRENGTHS = (0.0, 0.3, 0.6)


@pytest.fixture(scope="module")
def null():
    """No seat advantage, no effect of the thing or the attribute; policies differ."""
    return Clustered(REPS, CLUSTERS, STRENGTHS, seed=1)


@pytest.fixture(scope="module")
def planted():
    """A start-seat bonus, and the thing helps policy p0; the attribute c0 helps its seat."""
    return Clustered(REPS, CLUSTERS, STRENGTHS, seat_bonus=(0.8, 0.0, 0.0), thing_bonus=1.0,
                     attribute_bonus=1.0, seed=2)


def near_95(covered) -> bool:
    return 0.925 <= np.mean(covered) <= 0.975


def seat_sums(g: Clustered) -> np.ndarray:
    """Per replicate and cluster: each seat's win shares, then its seat-games: [R, C, 2P]."""
    w = g.win.sum(axis=2)
    return np.concatenate([w, np.full(w.shape, float(len(g.seatings)))], axis=-1)


def with_without(y: np.ndarray, n: np.ndarray, present: np.ndarray) -> np.ndarray:
    """The variables (y1, n1, y, n) of ``stats.difference`` per replicate and cluster."""
    return np.stack([y * present, n * present, y, n], axis=-1)


def test_policy_win_rate_interval_covers_the_truth(null):
    truth = null.win_probability()
    covered, naive = [], []
    for k in range(len(STRENGTHS)):
        x = null.policy_sums(k, null.win)
        p = truth[null.seatings == k].mean()
        _, low, high, n_eff = clustered_wilson(*moments_of(x))
        covered += list((low <= p) & (p <= high))
        lo, hi = wilson(x[..., 0].sum(-1), x[..., 1].sum(-1))   # rows as independent
        naive += list((lo <= p) & (p <= hi))
        assert np.median(n_eff) < 0.7 * x[0, :, 1].sum()       # the seatings share luck
    assert near_95(covered)
    assert np.mean(naive) < 0.9    # what the row-level interval gave


def test_seat_intervals_cover_and_the_seat_test_holds_its_size(null):
    x = seat_sums(null)
    c, t, m = moments_of(x)
    p = null.players
    tests = [equal_shares_test(c[r], t[r], m[r], False) for r in range(REPS)]
    assert {(d, name) for _, d, _, name in tests} == {(p - 1, "cluster-robust Wald, F reference")}
    size = np.mean([pv < 0.05 for _, _, pv, _ in tests])
    assert 0.025 <= size <= 0.085
    pearson = [equal_shares_test(c[r], t[r], m[r], True)[2] for r in range(REPS)]
    assert np.mean(np.array(pearson) < 0.05) > 0.25     # rows as independent: a fair game flagged
    covered = []
    for s in range(p):
        _, low, high, _ = clustered_wilson(*moments_of(x[..., [s, p + s]]))
        covered += list((low <= 1 / p) & (1 / p <= high))
    assert near_95(covered)
    # mean score per seat: the same for every seat of a rotated tournament
    truth = np.asarray(STRENGTHS)[null.seatings].mean()
    score = null.score.sum(axis=2)
    covered = []
    for s in range(p):
        mean, se = ratio(*moments_of(np.stack([score[..., s], x[..., p + s]], axis=-1)))
        covered += list(np.abs(mean - truth) <= t95(CLUSTERS) * se)
    assert near_95(covered)


def test_seat_test_finds_a_planted_start_seat_bonus(planted):
    c, t, m = moments_of(seat_sums(planted))
    power = np.mean([equal_shares_test(c[r], t[r], m[r], False)[2] < 0.05
                     for r in range(REPS)])
    assert power > 0.8
    truth = planted.win_probability()[:, 0].mean()
    x = seat_sums(planted)[..., [0, planted.players]]
    _, low, high, _ = clustered_wilson(*moments_of(x))
    assert near_95((low <= truth) & (truth <= high))


def test_game_level_thing_null_size_and_coverage(null):
    covered, rejected = [], []
    for k in range(len(STRENGTHS)):
        for values in (null.win, null.score):
            x = null.policy_sums(k, values)
            d, se, se0 = difference(*moments_of(with_without(x[..., 0], x[..., 1],
                                                             null.thing)))
            covered += list(np.abs(d) <= t95(CLUSTERS) * se)
            rejected += list(np.abs(d) > t95(CLUSTERS) * se0)
    assert near_95(covered)
    assert 0.025 <= np.mean(rejected) <= 0.075


def test_game_level_thing_planted_effect_is_covered_and_found(planted):
    extra = planted.thing_bonus * (planted.seatings == 0)
    p_with, p_without = planted.win_probability(extra), planted.win_probability()
    covered, found = [], []
    for k in range(len(STRENGTHS)):
        mask = planted.seatings == k
        for values, truth in ((planted.win, (p_with - p_without)[mask].mean()),
                              (planted.score, planted.thing_bonus * (k == 0))):
            x = planted.policy_sums(k, values)
            d, se, se0 = difference(*moments_of(with_without(x[..., 0], x[..., 1],
                                                             planted.thing)))
            covered += list(np.abs(d - truth) <= t95(CLUSTERS) * se)
            if k == 0:
                found += list(np.abs(d) > t95(CLUSTERS) * se0)
    assert near_95(covered)
    assert np.mean(found) > 0.8


def attribute_sums(g: Clustered, values: np.ndarray, a: int = 0) -> np.ndarray:
    """(y1, n1, y, n) over all seat-games: those whose seat holds attribute ``a``."""
    held = (g.attribute == a)[:, :, None, :]                    # [R, C, 1, P]
    s = len(g.seatings)
    return np.stack([(values * held).sum(axis=(2, 3)), s * held.sum(axis=(2, 3)),
                     values.sum(axis=(2, 3)), np.full(g.thing.shape, float(s * g.players))],
                    axis=-1)


def test_seat_level_attribute_null_size_and_coverage(null):
    covered, rejected = [], []
    for a in range(3):
        for values in (null.win, null.score):
            x = attribute_sums(null, values, a)
            d, se, se0 = difference(*moments_of(x))
            covered += list(np.abs(d) <= t95(CLUSTERS) * se)
            rejected += list(np.abs(d) > t95(CLUSTERS) * se0)
    assert near_95(covered)
    assert 0.025 <= np.mean(rejected) <= 0.075
    # the character's win rate (what the report's table shows) covers its fair 1/P
    x = attribute_sums(null, null.win)[..., :2]
    _, low, high, _ = clustered_wilson(*moments_of(x))
    assert near_95((low <= 1 / null.players) & (1 / null.players <= high))


def test_seat_level_attribute_planted_effect_is_found(planted):
    d, _, se0 = difference(*moments_of(attribute_sums(planted, planted.win)))
    assert np.mean(d > t95(CLUSTERS) * se0) > 0.8


def ahead_sums(g: Clustered, i: int, j: int) -> tuple[np.ndarray, float]:
    """Per replicate and cluster: meetings of policy i with j at one table where i finished
    ahead, and the meetings [R, C, 2]; and the true share ahead (scores are independent
    normals, so each meeting's chance is a normal tail)."""
    import math
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


def test_head_to_head_interval_covers_the_truth(null):
    covered = []
    for i, j in ((0, 1), (0, 2), (2, 1)):
        x, truth = ahead_sums(null, i, j)
        rate, se = ratio(*moments_of(x))
        covered += list(np.abs(rate - truth) <= t95(CLUSTERS) * se)
    assert near_95(covered)


def test_the_analyses_compute_exactly_these_statistics(planted):
    bloom, lapin = planted.frame(0), planted.frame(0, game="rapinsim")
    wr = win_rates(bloom)
    for k, row in enumerate(wr.iter_rows(named=True)):
        rate, low, high, _ = clustered_wilson(*moments_of(planted.policy_sums(k,
                                                                           planted.win)[0]))
        assert [row["win_rate"], row["ci_low"], row["ci_high"]] == pytest.approx(
            [float(rate), float(low), float(high)], rel=1e-9)
    seats = seat_advantage(bloom)
    c, t, m = moments_of(seat_sums(planted)[0])
    chi2, dof, p, name = equal_shares_test(c, t, m, False)
    assert seats["chi2"][0] == pytest.approx(chi2, rel=1e-9) and seats["test"][0] == name
    assert seats["design"][0] == "rotated"
    ev = event_impact(bloom).filter(pl.col("group") == "p0").row(0, named=True)
    x = planted.policy_sums(0, planted.win)[0]
    d, se, _ = difference(*moments_of(with_without(x[:, 0], x[:, 1], planted.thing[0])))
    assert ev["win_diff"] == pytest.approx(d, rel=1e-9)
    assert ev["win_ci_high"] - ev["win_ci_low"] == pytest.approx(2 * t95(CLUSTERS) * se, rel=1e-9)
    pw = pairwise(bloom).filter((pl.col("policy") == "p0") & (pl.col("opponent") == "p2"))
    rate, se = ratio(*moments_of(ahead_sums(planted, 0, 2)[0][0]))
    assert pw["ahead_rate"][0] == pytest.approx(rate, rel=1e-9)
    assert pw["ci_high"][0] - pw["ci_low"][0] == pytest.approx(2 * t95(CLUSTERS) * se, rel=1e-9)
    ch = event_impact(lapin).filter(pl.col("thing") == "c0").row(0, named=True)
    d, se, _ = difference(*moments_of(attribute_sums(planted, planted.win)[0]))
    assert ch["win_diff"] == pytest.approx(d, rel=1e-6)
    assert ch["win_ci_high"] - ch["win_ci_low"] == pytest.approx(2 * t95(CLUSTERS) * se, rel=1e-6)
