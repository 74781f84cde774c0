"""The statistics against scipy's values."""
import numpy as np
import pytest
from scipy import stats

from analyses.stats import (Z95, adjust_pvalues, adjust_table, clustered_wilson,
                            cr_var, difference, equal_shares_test, moments_of, ratio,
                            t95, two_sided_p, wilson)


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (517, 1000), (12, 40000)])
def test_wilson_matches_scipy(k, n):
    low, high = wilson(k, n)
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert low == pytest.approx(ref.low, abs=1e-12)
    assert high == pytest.approx(ref.high, abs=1e-12)


def test_score_p_is_the_test_the_wilson_interval_inverts():
    from analyses.stats import score_p
    rng = np.random.default_rng(3)
    n = rng.uniform(20, 5000, 400)
    rate = rng.uniform(0.02, 0.98, 400)
    p0 = rng.uniform(0.05, 0.95, 400)
    low, high = wilson(rate * n, n)
    outside = (p0 < low) | (p0 > high)
    p = score_p(rate, n, p0)
    assert ((p < 0.05) == outside).all() and outside.any() and (~outside).any()
    assert score_p(0.3, 1000, 0.3) == pytest.approx(1.0)
    # the score statistic: z on the null variance p0 (1 - p0) / n, normal tail from scipy
    z = (0.28 - 0.25) / np.sqrt(0.25 * 0.75 / 800)
    assert score_p(0.28, 800, 0.25) == pytest.approx(2 * stats.norm.sf(z))


def test_wilson_takes_fractional_wins_and_empty_groups():
    low, high = wilson(np.array([2.5, 0.0]), np.array([10, 0]))
    assert 0 < low[0] < 0.25 < high[0] < 1
    assert np.isnan(low[1]) and np.isnan(high[1])


def test_ratio_with_one_row_per_cluster_is_the_sample_mean_and_its_sem():
    x = np.random.default_rng(1).normal(0.3, 2.0, 5000)
    mean, se = ratio(*moments_of(np.stack([x, np.ones_like(x)], axis=-1)))
    assert mean == pytest.approx(x.mean(), rel=1e-12)
    assert se == pytest.approx(stats.sem(x), rel=1e-9)      # CR1 = the usual n - 1


def test_cr_var_is_the_variance_of_cluster_sums_and_needs_two_clusters():
    x = np.random.default_rng(2).normal(size=(40, 3))
    g = np.array([0.5, -1.0, 2.0])
    assert cr_var(g, *moments_of(x)) == pytest.approx(40 * np.var(x @ g, ddof=1), rel=1e-9)
    assert np.isnan(cr_var(g, *moments_of(x[:1])))


def test_clustered_wilson_is_wilson_for_independent_0_1_wins_and_widens_for_shared_luck():
    rng = np.random.default_rng(3)
    w = (rng.random(4000) < 0.3).astype(float)
    rate, low, high, n_eff = clustered_wilson(*moments_of(np.stack([w, np.ones_like(w)], -1)))
    assert n_eff == pytest.approx(3999, rel=1e-9)            # n - 1 from CR1's C / (C - 1)
    assert (low, high) == pytest.approx(wilson(w.sum() * 3999 / 4000, 3999, t95(4000)),
                                        rel=1e-12)
    # 10 seat-games per cluster that win or lose together: worth 400 independent ones
    together = np.repeat(w[:400], 10).reshape(400, 10).sum(axis=1)
    x = np.stack([together, np.full(400, 10.0)], axis=-1)
    assert clustered_wilson(*moments_of(x))[3] == pytest.approx(400, rel=0.01)
    never = np.stack([np.zeros(50), np.full(50, 4.0)], axis=-1)
    rate, low, high, n_eff = clustered_wilson(*moments_of(never))
    assert rate == 0 and n_eff == 200 and low == 0       # at 0%: the seat-games, no design effect
    assert high == pytest.approx(wilson(0, 200, t95(50))[1])


def test_difference_of_independent_groups_is_welch_and_the_pooled_se_is_the_t_tests():
    rng = np.random.default_rng(4)
    a, b = rng.normal(1.0, 1.0, 300), rng.normal(0.8, 2.0, 500)
    y, present = np.concatenate([a, b]), np.repeat([1.0, 0.0], [300, 500])
    x = np.stack([y * present, present, y, np.ones_like(y)], axis=-1)
    d, se, se0 = difference(*moments_of(x))
    assert d == pytest.approx(a.mean() - b.mean(), rel=1e-12)
    welch = np.sqrt(a.var(ddof=1) / 300 + b.var(ddof=1) / 500)
    assert se == pytest.approx(welch, rel=2e-3)
    assert se0 > 0


def test_equal_shares_test_is_pearson_with_one_game_per_cluster():
    rng = np.random.default_rng(5)
    winner = rng.choice(4, size=2000, p=[0.28, 0.24, 0.24, 0.24])
    x = np.concatenate([np.eye(4)[winner], np.ones((2000, 4))], axis=-1)
    stat, dof, p, name = equal_shares_test(*moments_of(x), True)
    ref = stats.chisquare(np.bincount(winner, minlength=4))
    assert (stat, p, dof) == pytest.approx((ref.statistic, ref.pvalue, 3), rel=1e-9)
    wald = equal_shares_test(*moments_of(x), False)
    assert wald[3] == "cluster-robust Wald, F reference" and wald[0] == pytest.approx(stat, rel=0.1)


def test_adjust_table_adjusts_all_columns_as_one_family():
    import polars as pl
    t = adjust_table(pl.DataFrame({"p_a": [0.01, 0.04], "p_b": [0.03, 0.005]}), ["p_a", "p_b"])
    assert t["p_a_adj"].to_list() + t["p_b_adj"].to_list() == pytest.approx(
        list(adjust_pvalues(np.array([0.01, 0.04, 0.03, 0.005]))))


def test_two_sided_p_and_t95_match_scipy():
    z = np.array([0.0, 1.0, Z95, 4.5, -2.2])
    assert two_sided_p(z) == pytest.approx(2 * stats.norm.sf(np.abs(z)), rel=1e-12)
    assert two_sided_p(z, 11) == pytest.approx(2 * stats.t.sf(np.abs(z), 11), rel=1e-12)
    assert t95([12, 1]) == pytest.approx([stats.t.ppf(0.975, 11), np.nan], nan_ok=True)


def test_holm_textbook_example():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 -> max so far 0.06
    assert adjust_pvalues(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_bh_matches_scipy_and_keeps_nan():
    p = np.random.default_rng(3).uniform(0, 0.2, 30)
    assert adjust_pvalues(p, "bh") == pytest.approx(stats.false_discovery_control(p))
    out = adjust_pvalues(np.array([0.01, np.nan, 0.02]), "holm")
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.02) and out[2] == pytest.approx(0.02)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="adjustment"):
        adjust_pvalues(np.array([0.1]), "bonferonni")
