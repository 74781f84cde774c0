"""Luck by source: Jansen's total-effect estimator against planted truths, its intervals'
coverage, and its arguments."""
import numpy as np
import pytest

from analyses.luck import total_effects


def _design(f, n, rng):
    """Saltelli's design for independent normal inputs: f(A), f(B), f(A with column s of B)."""
    a, b = rng.standard_normal((n, 3)), rng.standard_normal((n, 3))
    redrawn = {}
    for s in range(3):
        ab = a.copy()
        ab[:, s] = b[:, s]
        redrawn[f"x{s + 1}"] = f(ab)
    return f(a), f(b), redrawn


def _interacting(x):
    """Y = X1 + X2 + X1 X3: Var Y = 3, total effects 2/3, 1/3, 1/3 (summing past 1)."""
    return x[:, 0] + x[:, 1] + x[:, 0] * x[:, 2]


def _vector(x):
    """Y = (X1, X2 + X3), variances summed: 1/3 each."""
    return np.stack([x[:, 0], x[:, 1] + x[:, 2]], axis=1)


TRUTH = {_interacting: [2 / 3, 1 / 3, 1 / 3], _vector: [1 / 3, 1 / 3, 1 / 3]}


@pytest.mark.parametrize("f", list(TRUTH))
def test_the_estimates_find_the_planted_total_effects(f):
    t = total_effects(*_design(f, 20_000, np.random.default_rng(1)), boot=200)
    assert t["source"].to_list() == ["x1", "x2", "x3"]
    np.testing.assert_allclose(t["share"].to_numpy(), TRUTH[f], atol=0.03)
    assert (t["share_low"] < t["share"]).all() and (t["share"] < t["share_high"]).all()
    assert (t["clusters"] == 20_000).all()


def test_the_intervals_cover_the_planted_total_effects():
    """200 replications of 400 game indices: each source's 95% interval holds its truth about
    95% of the time (0.88 is 4.6 binomial standard errors below)."""
    rng = np.random.default_rng(7)
    hits = np.zeros(3)
    for rep in range(200):
        t = total_effects(*_design(_interacting, 400, rng), boot=200, seed=rep)
        truth = np.array(TRUTH[_interacting])
        hits += (t["share_low"].to_numpy() <= truth) & (truth <= t["share_high"].to_numpy())
    assert ((hits / 200 >= 0.88) & (hits / 200 <= 0.99)).all(), hits / 200


def test_a_source_that_changes_nothing_has_share_zero():
    base = np.arange(10.0)
    t = total_effects(base, base[::-1], {"none": base}, boot=100)
    assert t.row(0, named=True)["share"] == 0 and t["share_high"][0] == 0


def test_an_outcome_that_never_varies_is_not_computable():
    t = total_effects(np.ones(5), np.ones(5), {"x": np.zeros(5) + 1}, boot=100)
    assert t["share"].is_null().all()


def test_the_shares_are_clipped_to_the_unit_interval():
    """A ratio of two noisy means may pass 1; the index cannot."""
    base = np.array([0.0, 1.0, 0.0, 1.0])
    t = total_effects(base, np.full(4, 0.5), {"x": 1 - base}, boot=100)
    row = t.row(0, named=True)
    assert row["share"] == 1 and 0 <= row["share_low"] <= row["share_high"] <= 1
