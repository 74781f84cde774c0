"""Coverage and size on tournament-shaped data with known truth (``synth.Clustered``): the
seatings of a game index share its luck, its event and its seats' attributes, as the real
tournaments do. Every interval kind of ``coverage.KINDS`` covers the truth near its 95% and
every test holds its 5% size at 150 game indices (the table of docs/analyses.md, at 12, 40
and 200, is ``python tests/analyses/interval_coverage.py``'s); the numpy estimators are the ones the
analyses call (checked equal on one replicate through the polars path)."""
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import interval_coverage as coverage
from analyses import event_impact, seat_advantage, win_rates
from analyses.tournament import pairwise
from analyses.stats import (clustered_wilson, difference, equal_shares_test, moments_of,
                            ratio, t95, wilson)
from interval_coverage import KINDS, STRENGTHS, ahead_sums, attribute_sums, seat_sums, with_without
from synth import Clustered

REPS, CLUSTERS, SEED = 300, 150, 1
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def planted():
    """A start-seat bonus, and the thing helps policy p0; the attribute c0 helps its seat."""
    return Clustered(REPS, CLUSTERS, STRENGTHS, seat_bonus=(0.8, 0.0, 0.0), thing_bonus=1.0,
                     attribute_bonus=1.0, seed=2)


@pytest.mark.parametrize("name", [n for n, (_, ladders, _) in KINDS.items() if not ladders])
def test_every_interval_covers_and_every_test_holds_its_size(name):
    """300 synthetic tournaments of 150 game indices: coverage inside 92.5-97.5% (about 2.5
    binomial standard errors of 300 intervals around 95%), a test's size inside 2.5-8.5%."""
    what, _, kind = KINDS[name]
    x = kind(REPS, CLUSTERS, SEED)
    low, high = (0.925, 0.975) if what == "coverage" else (0.025, 0.085)
    assert low <= np.mean(x) <= high, (name, np.mean(x))


def test_the_ladder_kinds_measure_one_interval_per_cell_rating_and_share():
    """Two ladders of 3 rungs at 4 seats per rotation (the ladders' coverage itself is
    test_ladder.py's): 6 cells, 3 ratings, 1 variance share each."""
    sizes = {n: kind(2, 12, 0).size for n, (_, ladders, kind) in KINDS.items() if ladders}
    assert sorted(set(sizes.values())) == [2, 6, 12]


def test_the_docs_table_has_every_kind_of_the_command():
    text = (ROOT / "docs" / "analyses.md").read_text(encoding="utf-8")
    rows = re.findall(r"^ *\| (.+?) \| (coverage|size) \|", text, re.M)
    assert [name for name, _ in rows] == list(KINDS)


def test_intervals_that_take_rows_as_independent_undercover():
    """What the clustered intervals are for: rows as independent cover a policy's win rate
    under 90% and Pearson's chi-square flags a fair game's seats over 25% of the time."""
    g = coverage.null(REPS, CLUSTERS, SEED)
    truth = g.win_probability()
    naive = []
    for k in range(len(STRENGTHS)):
        x = g.policy_sums(k, g.win)
        p = truth[g.seatings == k].mean()
        lo, hi = wilson(x[..., 0].sum(-1), x[..., 1].sum(-1))
        naive += list((lo <= p) & (p <= hi))
        _, _, _, n_eff = clustered_wilson(*moments_of(x))
        assert np.median(n_eff) < 0.7 * x[0, :, 1].sum()       # the seatings share luck
    assert np.mean(naive) < 0.9
    c, t, m = moments_of(seat_sums(g))
    pearson = [equal_shares_test(c[r], t[r], m[r], True)[2] for r in range(REPS)]
    assert np.mean(np.array(pearson) < 0.05) > 0.25


def test_seat_test_finds_a_planted_start_seat_bonus(planted):
    c, t, m = moments_of(seat_sums(planted))
    power = np.mean([equal_shares_test(c[r], t[r], m[r], False)[2] < 0.05
                     for r in range(REPS)])
    assert power > 0.8


def test_planted_effects_are_found(planted):
    """The event (p0's win rate) and the attribute (c0's seat) at 5%, in over 80% of runs."""
    x = planted.policy_sums(0, planted.win)
    d, _, se0 = difference(*moments_of(with_without(x[..., 0], x[..., 1], planted.thing)))
    assert np.mean(np.abs(d) > t95(CLUSTERS) * se0) > 0.8
    d, _, se0 = difference(*moments_of(attribute_sums(planted, planted.win)))
    assert np.mean(d > t95(CLUSTERS) * se0) > 0.8


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
