"""Few game indices and degenerate results: t and F references, refusals in one line where a
test cannot be computed, never a verdict without a p-value."""
import numpy as np
import polars as pl
import pytest

from analyses import seat_advantage
from analyses.display import seats_notes
from analyses.plots import seat_plot
from analyses.report import seat_headline
from analyses.stats import Z95, clustered_wilson, equal_shares_test, moments_of, wilson
from synth import Clustered
from interval_coverage import seat_sums


def test_wilson_bounds_are_exact_at_0_and_100_percent():
    for n in (3, 7, 100, 37.5, 1000):
        assert wilson(0, n)[0] == 0.0 and wilson(n, n)[1] == 1.0


def test_clustered_wilson_at_100_percent_is_never_wider_than_at_96():
    """Every cluster holds 4 seat-games of the policy: at 96% the design effect is estimated,
    at 100% it cannot be, and the interval must not widen as the rate grows."""
    rng = np.random.default_rng(0)
    for _ in range(20):
        wins = np.full(50, 4.0)
        wins[rng.choice(50, 8, replace=False)] = 3.0           # 192 of 200: 96%
        x96 = np.stack([wins, np.full(50, 4.0)], axis=-1)
        x100 = np.stack([np.full(50, 4.0), np.full(50, 4.0)], axis=-1)
        _, lo96, hi96, _ = clustered_wilson(*moments_of(x96))
        _, lo100, hi100, _ = clustered_wilson(*moments_of(x100))
        assert hi100 - lo100 <= hi96 - lo96 and lo100 >= lo96 and hi100 == 1.0
        _, lo0, hi0, _ = clustered_wilson(*moments_of(x100 * [0, 1]))
        assert lo0 == 0.0 and hi0 == pytest.approx(1 - lo100)


def test_t_interval_covers_closer_to_95_than_the_normal_at_12_game_indices():
    g = Clustered(400, 12, (0.0, 0.3, 0.6), seed=12)
    truth = g.win_probability()
    t_cover, z_cover = [], []
    for k in range(len(g.names)):
        p = truth[g.seatings == k].mean()
        c, t, m = moments_of(g.policy_sums(k, g.win))
        for z, covered in (((), t_cover), ((Z95,), z_cover)):      # default: t(C - 1)
            _, low, high, _ = clustered_wilson(c, t, m, *z)
            covered += list((low <= p) & (p <= high))
    assert abs(np.mean(t_cover) - 0.95) < abs(np.mean(z_cover) - 0.95)
    assert np.mean(t_cover) > np.mean(z_cover)


def test_seat_test_holds_its_size_at_12_game_indices():
    """The chi-square reference rejects this fair game 12-13% of the time; F(2, 10) about 6%."""
    g = Clustered(1000, 12, (0.0, 0.3, 0.6), seed=13)
    c, t, m = moments_of(seat_sums(g))
    p = [equal_shares_test(c[r], t[r], m[r], False)[2] for r in range(len(c))]
    assert np.mean(np.array(p) < 0.05) <= 0.085


def test_seat_test_refuses_with_no_more_game_indices_than_free_shares():
    g = Clustered(1, 3, (0.0, 0.3, 0.6, 0.9), players=4, seed=3)
    stat, dof, p, name = equal_shares_test(*(a[0] for a in moments_of(seat_sums(g))), False)
    assert np.isnan(p) and name.startswith("not computable: 3 game indices for 3")
    table = seat_advantage(g.frame(0))
    notes = " ".join(seats_notes(table))
    assert "not computable" in notes and "seats are not equal" not in notes
    assert "only 3 game indices" in notes
    headline = seat_headline(table)
    assert "seat test not computable: 3 game indices" in headline and "not equal" not in headline
    assert "not computable" in seat_plot(table).axes[0].get_xlabel()


def test_a_seat_that_never_wins_gives_no_verdict():
    g = Clustered(1, 30, (0.0, 0.3, 0.6), seat_bonus=(0.0, 0.0, -100.0), seed=4)
    t = seat_advantage(g.frame(0))
    assert t.filter(t["seat"] == 2)["wins"][0] == 0
    notes = " ".join(seats_notes(t))
    assert "not computable" in notes and "no evidence" not in notes and "p = ," not in notes


def test_the_same_change_in_every_game_index_gets_the_sign_test_not_p_0():
    from analyses.diff import paired
    per = pl.DataFrame({"metric": ["m"] * 4, "variant": ["a", "a", "b", "b"],
                        "game": [0, 1, 0, 1], "v": [1.0, 2.0, 1.5, 2.5]})
    t = paired(per, ["metric"], "a", "b").row(0, named=True)
    assert t["diff"] == 0.5 and t["p"] == 0.5          # 2 games, same sign: 2 / 2^2
    same = paired(per.with_columns(v=pl.col("game").cast(pl.Float64)), ["metric"], "a", "b")
    assert same["p"][0] == 1.0


def test_the_win_rate_table_warns_under_20_game_indices(tmp_path, capsys):
    from analyses.cli import main
    for clusters, warned in ((12, True), (20, False)):
        path = tmp_path / f"r{clusters}.parquet"
        Clustered(1, clusters, (0.0, 0.3, 0.6), seed=5).frame(0).write_parquet(path)
        assert main(["winrates", str(path)]) == 0
        out = capsys.readouterr().out
        assert ("caution: only 12 game indices (fewer than 20)" in out) == warned


def _t_half(se: float, games: int) -> float:
    from scipy import stats
    return stats.t.ppf(0.975, games - 1) * se


def test_compare_and_tune_take_the_t_interval_with_few_game_indices():
    """The fixed-sample interval of ``compare`` (and ``tune``'s check) is scipy's one-sample
    t interval, clipped to the differences of shares can take, with its caution under 20."""
    from scipy import stats
    from analyses.compare import fixed_interval, fixed_label
    x = np.array([0.5, -0.25, 0.75, 0.0, 0.25, 1.0])
    lo, hi, p = fixed_interval(x)
    ci, test = stats.ttest_1samp(x, 0).confidence_interval(), stats.ttest_1samp(x, 0)
    assert (lo, hi, p) == pytest.approx((ci.low, ci.high, test.pvalue), rel=1e-9)
    assert fixed_interval(np.array([1.0, 1.0, 0.5]), (-1, 1))[1] == 1.0
    assert "t(5) interval" in fixed_label("paired", 6) and "only 6 game indices" in \
        fixed_label("paired", 6)
    assert "caution" not in fixed_label("paired", 20)


def test_designer_metrics_take_the_t_interval_with_few_game_indices():
    from test_metrics import lead_frame
    games = [[[0], [1]], [[0], [0]], [[1], [0], [1]], [[2]], [[0], [2], [0], [1]]]
    t = designer_metrics_row(lead_frame(games, [[0], [1], [0], [2], [0]]))
    per = np.array([1, 0, 2, 0, 3], dtype=float)
    half = _t_half(per.std(ddof=1) / np.sqrt(5), 5)
    assert (t["lead_changes_low"], t["lead_changes_high"]) == pytest.approx(
        (per.mean() - half, per.mean() + half), rel=1e-9)
    lo, hi = wilson(t["leader_wins_r1"] * 5, 5, _t_half(1.0, 5))
    assert (t["leader_wins_r1_low"], t["leader_wins_r1_high"]) == pytest.approx((lo, hi))


def designer_metrics_row(df: pl.DataFrame) -> dict:
    from analyses.metrics import designer_metrics
    return designer_metrics(df).row(0, named=True)


def test_the_sweep_table_and_the_solver_take_the_t_interval_with_few_game_indices():
    from analyses.solve import Estimate
    from analyses.sweep import table
    def frame(won):
        n = len(won)
        return pl.DataFrame({"variant": ["v"] * 2 * n, "n_players": [2] * 2 * n,
                             "seating": ["a|b"] * 2 * n, "game": np.repeat(np.arange(n), 2),
                             "seat": [0, 1] * n, "win": [w for x in won for w in (x, 1 - x)],
                             "rank": [r for x in won for r in ((1, 2) if x else (2, 1))],
                             "score": [5] * 2 * n, "pts_towers": [0] * 2 * n})
    won = [1.0, 0.0] * 5
    row = table(frame(won)).row(0, named=True)
    half = _t_half(np.std(won, ddof=1) / np.sqrt(10), 10)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((0.5 - half, 0.5 + half))
    row = table(frame([1.0, 0.0, 0.0, 1.0, 0.0])).row(0, named=True)
    assert (row["ci_low"], row["ci_high"]) == (0.0, 1.0)          # clipped to a share's range
    assert Estimate(0, 5, 0.5, 0.1).interval() == pytest.approx((0.5 - _t_half(0.1, 5),
                                                                 0.5 + _t_half(0.1, 5)))
