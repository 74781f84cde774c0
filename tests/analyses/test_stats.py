"""The statistics against scipy's values."""
import numpy as np
import pytest
from scipy import stats

from analyses.stats import Z95, adjust_pvalues, chi2_sf, mean_interval, two_sided_p, wilson


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (517, 1000), (12, 40000)])
def test_wilson_matches_scipy(k, n):
    low, high = wilson(k, n)
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert low == pytest.approx(ref.low, abs=1e-12)
    assert high == pytest.approx(ref.high, abs=1e-12)


def test_wilson_takes_fractional_wins_and_empty_groups():
    low, high = wilson(np.array([2.5, 0.0]), np.array([10, 0]))
    assert 0 < low[0] < 0.25 < high[0] < 1
    assert np.isnan(low[1]) and np.isnan(high[1])


def test_mean_interval_matches_normal_and_t_for_large_n():
    x = np.random.default_rng(1).normal(0.3, 2.0, 5000)
    mean, se, low, high = mean_interval(x.sum(), (x * x).sum(), x.size)
    assert mean == pytest.approx(x.mean(), rel=1e-12)
    assert se == pytest.approx(stats.sem(x), rel=1e-9)
    ref = stats.norm.interval(0.95, loc=x.mean(), scale=stats.sem(x))
    assert (low, high) == pytest.approx(ref, rel=1e-9)
    t = stats.ttest_1samp(x, 0).confidence_interval(0.95)
    # normal instead of Student quantile: under 0.1% of the half-width at this n
    assert (high - low) / (t.high - t.low) == pytest.approx(1, abs=1e-3)


@pytest.mark.parametrize("dof", [1, 2, 3, 4, 5, 7])
@pytest.mark.parametrize("x", [0.01, 0.7, 3.0, 11.3, 40.0])
def test_chi2_tail_matches_scipy(x, dof):
    assert chi2_sf(x, dof) == pytest.approx(stats.chi2.sf(x, dof), rel=1e-10, abs=1e-300)


def test_two_sided_p_matches_scipy():
    z = np.array([0.0, 1.0, Z95, 4.5, -2.2])
    assert two_sided_p(z) == pytest.approx(2 * stats.norm.sf(np.abs(z)), rel=1e-12)


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
    with pytest.raises(ValueError, match="degrees of freedom"):
        chi2_sf(1.0, 0)
