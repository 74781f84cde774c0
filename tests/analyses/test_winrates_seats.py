"""Win rates and seat advantage on hand-built and synthetic frames."""
import numpy as np
import polars as pl
import pytest
from scipy import stats

from analyses import InputError, seat_advantage, win_rates
from synth import bloom_frame, rapin_frame


def tiny() -> pl.DataFrame:
    """Three 2-player games: a wins, a tie, b wins."""
    return pl.DataFrame({"game": [0, 0, 1, 1, 2, 2], "seat": [0, 1] * 3,
                         "policy": ["a", "b"] * 3, "rank": [1, 2, 1, 1, 2, 1],
                         "win": [1.0, 0.0, 0.5, 0.5, 0.0, 1.0], "n_players": [2] * 6,
                         "score": [5, 3, 4, 4, 2, 6], "pts_towers": [0] * 6})


def test_win_rates_counts_ties_as_shares():
    t = win_rates(tiny())
    assert t.columns == ["policy", "games", "wins", "win_rate", "ci_low", "ci_high", "clusters",
                         "n_eff"]
    assert t["policy"].to_list() == ["a", "b"]
    assert t["games"].to_list() == [3, 3]
    assert t["wins"].to_list() == [1.5, 1.5]
    assert t["win_rate"].to_list() == [0.5, 0.5]
    low, high = stats.binomtest(1, 2).proportion_ci(method="wilson")  # same p, other n
    assert t["ci_low"][0] < 0.5 < t["ci_high"][0]
    assert t["ci_low"][0] < low  # 3 game indices: the t(2) quantile, wider than n = 2's normal


def test_win_rates_lazy_equals_eager_and_groups_by_several():
    df = bloom_frame(3000, policies=("x", "y", "x", "y"), seed=4)
    assert win_rates(df.lazy(), by=["policy", "seat"]).equals(win_rates(df, by=["policy", "seat"]))
    assert win_rates(df, by="seat").height == 4


def test_win_rates_bad_input_is_named():
    with pytest.raises(InputError, match="'nope'"):
        win_rates(tiny(), by=["nope"])
    with pytest.raises(InputError, match="DataFrame"):
        win_rates({"win": [1]})


def test_planted_seat_advantage_is_found_and_test_matches_scipy():
    df = bloom_frame(20000, seat_bonus=(2, 0, 0, 0), seed=5)
    t = seat_advantage(df)
    assert t["seat"].to_list() == [0, 1, 2, 3]
    assert t["ci_low"][0] > 0.25 and (t["ci_high"][1:] < 0.25).all()
    ref = stats.chisquare(t["wins"].to_numpy(), np.full(4, 20000 / 4))
    assert t["chi2"][0] == pytest.approx(ref.statistic)
    assert t["p_value"][0] == pytest.approx(ref.pvalue, rel=1e-9)
    assert t["dof"][0] == 3
    assert t["mean_score"][0] - t["mean_score"][1] == pytest.approx(2, abs=0.3)


def test_no_seat_advantage_is_not_flagged():
    # fixed seeds: the null is true, so p stays above 0.01 in at least 9 of 10 data sets
    ps = [seat_advantage(bloom_frame(4000, seed=100 + i))["p_value"][0] for i in range(10)]
    assert sum(p < 0.01 for p in ps) <= 1


def test_seat_advantage_uses_treasures_for_rapinsim_and_splits_player_counts():
    df = pl.concat([rapin_frame(2000, seed=1),
                    rapin_frame(2000, policies=("random",) * 3, seed=2)], how="diagonal")
    t = seat_advantage(df)
    assert t["score"].unique().to_list() == ["treasures"]
    assert t.group_by("n_players").len().sort("n_players")["len"].to_list() == [3, 4]
    assert t.filter(pl.col("n_players") == 3)["dof"][0] == 2
    assert t.filter(pl.col("n_players") == 3)["expected"][0] == pytest.approx(1 / 3)
