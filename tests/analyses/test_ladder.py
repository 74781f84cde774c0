"""The skill ladder: its statistics on a synthetic game with planted, exactly known win
probabilities and ratings; its design (rotation, shared game indices); bad input; one small
real run per game; the command line."""
import math

import numpy as np
import polars as pl
import pytest

from analyses import ladder
from analyses.cli import main
from analyses.ladder import family_of
from simcore import games
from synth import gumbel_game, true_cell


STRENGTH = {"weak": 0.0, "mid": 0.4, "strong": 0.9}
RUNGS = ["weak", "mid", "strong"]


def test_matrix_and_ratings_cover_their_planted_truth():
    """50 ladders of 150 game indices: the win-rate intervals cover the planted cell
    probabilities, the Bradley-Terry intervals the planted ratings, about 95% of the time, and
    the ratings climb the ladder."""
    game = gumbel_game(STRENGTH)
    elo = {k: 400 * v / math.log(10) for k, v in STRENGTH.items()}
    centre = np.mean(list(elo.values()))
    cover_cell, cover_bt, ordered, est = [], [], 0, []
    reps = 50
    for rep in range(reps):
        lad = ladder(game, RUNGS, 3, 150, rep, progress=False)
        for r in lad.matrix.iter_rows(named=True):
            truth = true_cell(STRENGTH, (0, 0, 0), r["rung"], r["opponent"], 3)
            cover_cell.append(r["ci_low"] <= truth <= r["ci_high"])
            est.append(r["win_rate"] - truth)
        for r in lad.ratings.iter_rows(named=True):
            cover_bt.append(r["bt_low"] <= elo[r["rung"]] - centre <= r["bt_high"])
        ordered += lad.ranked == tuple(RUNGS)
    assert 0.90 <= np.mean(cover_cell) <= 0.99, np.mean(cover_cell)
    assert 0.88 <= np.mean(cover_bt) <= 1.0, np.mean(cover_bt)
    assert abs(np.mean(est)) < 0.01                       # unbiased on average
    assert ordered == reps


def test_rotation_cancels_a_seat_advantage_and_x_chess_hits_its_planted_value():
    """A large start-seat bonus: each cell estimates the mean over the rotated seats (within
    3.3 standard errors, a 99.9% band, on this one seed: the 95% coverage is checked over
    replicates above and below), and each neighbouring pair's x%-chess weight is
    (w - 1/P) / (1 - 1/P) with the planted value in the same band."""
    bonus = (0.8, 0.0, -0.3, 0.0)
    lad = ladder(gumbel_game(STRENGTH, bonus), RUNGS, 4, 2000, 3, progress=False)

    def z(value, low, high, truth):
        return abs(value - truth) / ((high - low) / (2 * 1.96))
    for r in lad.matrix.iter_rows(named=True):
        truth = true_cell(STRENGTH, bonus, r["rung"], r["opponent"], 4)
        assert z(r["win_rate"], r["ci_low"], r["ci_high"], truth) < 3.3, (r, truth)
    assert lad.steps.select("lower", "higher").rows() == [("weak", "mid"), ("mid", "strong")]
    for s in lad.steps.iter_rows(named=True):
        share = (true_cell(STRENGTH, bonus, s["higher"], s["lower"], 4) - 0.25) / 0.75
        assert z(s["x_chess"], s["x_chess_low"], s["x_chess_high"], share) < 3.3
        assert s["x_chess"] == pytest.approx((s["win_rate"] - 0.25) / 0.75)
        assert s["x_chess_low"] == pytest.approx((s["ci_low"] - 0.25) / 0.75)
        assert s["games"] == 4 * 2000 and s["clusters"] == 2000 and s["competent"]
    assert lad.chess_text().startswith("Between the two highest-rated competent rungs, strong "
                                       "with one seat against 3 x mid wins ")
    assert "x%-chess weight of this pair" in lad.chess_text()


def test_x_chess_interval_covers_its_planted_value():
    """40 ladders with a seat advantage: the x%-chess interval covers the planted weight
    about 95% of the time."""
    bonus = (0.8, 0.0, -0.3)
    game = gumbel_game({"weak": 0.0, "strong": 0.7}, bonus)
    share = (true_cell({"weak": 0.0, "strong": 0.7}, bonus, "strong", "weak", 3) - 1 / 3) / (2 / 3)
    hits = [s["x_chess_low"] <= share <= s["x_chess_high"]
            for s in (ladder(game, ["weak", "strong"], 3, 200, 100 + rep, progress=False)
                      .steps.row(0, named=True) for rep in range(40))]
    assert 0.85 <= np.mean(hits) <= 1.0, np.mean(hits)


def test_equal_rungs_show_pure_luck():
    """Rungs of equal strength: every cell near 1/P and the x%-chess interval holds 0."""
    lad = ladder(gumbel_game({"a": 0.2, "b": 0.2}), ["a", "b"], 3, 1500, 5, progress=False)
    s = lad.steps.row(0, named=True)
    assert s["x_chess_low"] < 0 < s["x_chess_high"]
    assert (lad.matrix["ci_low"] < 1 / 3).all() and (lad.matrix["ci_high"] > 1 / 3).all()


def test_the_random_floor_is_never_an_end_of_the_headline_pair():
    """Any policy beats ``random`` (an x%-chess near 1 in both games): the headline pair is
    the top pair of the others, and with one other rung there is none."""
    strength = {"random": -3.0, "mid": 0.4, "strong": 0.9}
    lad = ladder(gumbel_game(strength), ["random", "mid", "strong"], 3, 200, 0, progress=False)
    assert lad.steps["competent"].to_list() == [False, True]
    assert "strong with one seat against 2 x mid" in lad.chess_text()
    two = ladder(gumbel_game(strength), ["random", "strong"], 3, 50, 0, progress=False)
    assert two.chess_text().startswith("x%-chess: not computable: fewer than two competent")


def test_a_rung_that_never_finished_ahead_is_ranked_lowest_and_one_never_behind_highest():
    """Their ratings are bounds set by the prior (no placed rung can be below the one that
    never finished ahead), so the order read lowest first starts and ends with them."""
    strength = {"random": -40.0, "mid": 0.4, "strong": 0.9, "best": 40.0}
    lad = ladder(gumbel_game(strength), ["mid", "strong", "best", "random"], 3, 30, 0,
                 progress=False)
    assert lad.ranked == ("random", "mid", "strong", "best")
    assert lad.ratings["bt_flag"].to_list()[0].startswith("never finished ahead")
    assert lad.ratings["bt_flag"].to_list()[-1].startswith("never finished behind")


def test_variance_share_recovers_a_planted_skill_spread():
    """40 ladders of 200 game indices: the share of outcome variance due to skill is
    unbiased for the planted share and its bootstrap interval covers it about 95% of the
    time. Planted: at these tables a seat's true win probability is w for the one seat of a
    pairing and (1 - w)/(P - 1) for the others, so the share is the mean over pairings of
    ((w - 1/P) / (1 - 1/P))^2 (the observed variance being 1/P (1 - 1/P))."""
    x = np.array([(true_cell(STRENGTH, (0, 0, 0), a, b, 3) - 1 / 3) / (2 / 3)
                  for a in RUNGS for b in RUNGS if a != b])
    planted = float(np.mean(x ** 2))                     # 4.3%
    rows = [ladder(gumbel_game(STRENGTH), RUNGS, 3, 200, 300 + rep, progress=False)
            .variance.row(0, named=True) for rep in range(40)]
    est = np.array([r["share"] for r in rows])
    assert abs(est.mean() - planted) < 3 * est.std() / math.sqrt(len(est)), (est.mean(), planted)
    cover = np.mean([r["share_low"] <= planted <= r["share_high"] for r in rows])
    assert 0.85 <= cover <= 1.0, cover
    r = rows[0]
    assert (r["population"], r["cells"], r["clusters"]) == ("weak, mid, strong", 6, 200)
    assert r["var_observed"] == pytest.approx(2 / 9)      # no ties: 1/P (1 - 1/P)


def test_variance_share_at_two_players_where_a_seating_serves_two_pairs():
    """At 2 players the table (A, B) is both A's pairing and B's: the share still hits its
    planted value (within 3.3 of its bootstrap standard errors on this one seed)."""
    x = np.array([2 * true_cell(STRENGTH, (0, 0), a, b, 2) - 1
                  for a in RUNGS for b in RUNGS if a != b])
    r = ladder(gumbel_game(STRENGTH), RUNGS, 2, 1000, 7, progress=False).variance.row(0, named=True)
    se = (r["share_high"] - r["share_low"]) / (2 * 1.96)
    assert abs(r["share"] - np.mean(x ** 2)) < 3.3 * se, (r, np.mean(x ** 2))
    assert r["cells"] == 6 and r["var_observed"] == pytest.approx(0.25)


def test_variance_share_of_equal_players_is_zero():
    """Three rungs of equal strength: every interval starts at 0 and the estimates are near
    0 (the observed variance is all sampling variance)."""
    rows = [ladder(gumbel_game({"a": 0.2, "b": 0.2, "c": 0.2}), ["a", "b", "c"], 3, 150, rep,
                   progress=False).variance.row(0, named=True) for rep in range(20)]
    assert all(r["share_low"] == 0 <= r["share"] <= r["share_high"] < 0.03 for r in rows)
    assert np.mean([r["share"] for r in rows]) < 0.005


def test_variance_share_leaves_the_random_floor_out_of_its_population():
    strength = {"random": -3.0, "mid": 0.4, "strong": 0.9}
    lad = ladder(gumbel_game(strength), ["random", "mid", "strong"], 3, 100, 0, progress=False)
    assert lad.variance["population"][0] == "mid, strong" and lad.variance["cells"][0] == 2
    assert lad.variance_text().startswith("Share of the outcome variance due to skill among "
                                          "mid, strong: ")
    md = lad.markdown()
    assert md.index("Share of the outcome variance") < md.index("x%-chess")
    two = ladder(gumbel_game(strength), ["random", "strong"], 3, 50, 0, progress=False)
    assert two.variance["population"][0] == "random, strong"


def test_luck_headlines_caution_under_20_game_indices():
    lad = ladder(gumbel_game(STRENGTH), RUNGS, 3, 12, 0, progress=False)
    for text in (lad.variance_text(), lad.chess_text()):
        assert text.endswith("(only 12 game indices (fewer than 20): intervals and tests are "
                             "approximate)")
    assert "approximate" not in ladder(gumbel_game(STRENGTH), RUNGS, 3, 20, 0,
                                       progress=False).variance_text()
    one = ladder(gumbel_game(STRENGTH), RUNGS, 3, 1, 0, progress=False).variance_text()
    assert one.endswith(": not computable from 1 game index (its sampling variance needs 2 or "
                        "more)")


def test_rungs_that_play_alike_win_exactly_one_in_p_with_a_finite_interval():
    """Two names for one way of playing: rotated over the seats of a game index that shares
    all its luck, the one seat wins exactly 1/P of each index (zero variance between
    indices); the interval falls back to the clusters as its n rather than NaN."""
    game = gumbel_game({"a": 0.2, "b": 0.2})
    plain = game.simulate
    game.simulate = lambda pol, n, seed, **kw: plain(["a"] * len(pol), n, seed, **kw) \
        .with_columns(policy=pl.Series(np.tile(np.array(pol, dtype=object), n).astype(str)))
    lad = ladder(game, ["a", "b"], 4, 100, 0, progress=False)
    assert (lad.matrix["win_rate"] == 0.25).all()
    assert (lad.matrix["ci_low"] < 0.25).all() and (lad.matrix["ci_high"] > 0.25).all()
    assert (lad.matrix["n_eff"] == 100).all()


def test_design_rotates_one_seat_over_shared_game_indices():
    calls = []
    game = gumbel_game(STRENGTH)
    plain = game.simulate

    def simulate(policies, n_games, seed, **kw):
        calls.append((tuple(policies), n_games, seed, kw.get("threads")))
        return plain(policies, n_games, seed, **kw)
    game.simulate = simulate
    done = []
    lad = ladder(game, RUNGS, 4, 30, 11, threads=2, progress=lambda d, t: done.append((d, t)))
    assert len(calls) == 3 * 2 * 4                 # K(K-1) ordered pairs x P seats
    assert {c[1:] for c in calls} == {(30, 11, 2)}  # the same games, threads passed on
    for a in RUNGS:
        for b in RUNGS:
            if a != b:
                seats = [c[0].index(a) for c in calls if c[0].count(a) == 1
                         and c[0].count(b) == 3]
                assert sorted(seats) == [0, 1, 2, 3]
    assert done[-1] == (24 * 30, 24 * 30)
    assert lad.matrix.height == 6 and (lad.matrix["games"] == 4 * 30).all()
    assert (lad.matrix["clusters"] == 30).all()
    calls.clear()
    two = ladder(game, RUNGS, 2, 30, 11, progress=False)
    assert len(calls) == 6                          # (A, B) at seat 0 is (B, A) at seat 1
    assert two.results["seating"].n_unique() == 6 and two.matrix.height == 6
    pair = two.matrix.filter(pl.col("rung") == "weak", pl.col("opponent") == "strong")
    back = two.matrix.filter(pl.col("rung") == "strong", pl.col("opponent") == "weak")
    assert pair["win_rate"][0] + back["win_rate"][0] == pytest.approx(1.0)


def test_rotation_across_plays_seat_blocks_of_game_indices_at_the_same_cost():
    """The seating with the one-seat rung at seat s plays its own block of game indices: the
    same games in number, P times the game indices, one game of every pair on each."""
    calls = []
    game = gumbel_game(STRENGTH)
    plain = game.simulate

    def simulate(policies, n_games, seed, **kw):
        calls.append((tuple(policies), n_games, kw.get("first_game", 0)))
        return plain(policies, n_games, seed, **kw)
    game.simulate = simulate
    lad = ladder(game, RUNGS, 4, 30, 11, rotation="across", progress=False)
    assert len(calls) == 3 * 2 * 4
    for table, n, first in calls:
        one = next(p for p in table if table.count(p) == 1)
        assert (n, first) == (30, 30 * table.index(one))
    assert (lad.matrix["games"] == 120).all() and (lad.matrix["clusters"] == 120).all()
    per_index = lad.results.group_by("game", "seating").len()["len"]
    assert lad.results["game"].n_unique() == 120 and (per_index == 4).all()
    assert lad.indices == 120 and "rotated across 120 game indices" in lad.markdown()
    calls.clear()
    two = ladder(game, RUNGS, 2, 30, 11, rotation="across", progress=False)
    assert len(calls) == 6 and {c[2] for c in calls} == {0, 30}
    assert (two.matrix["games"] == 60).all() and (two.matrix["clusters"] == 60).all()
    with pytest.raises(ValueError, match="rotation must be one of"):
        ladder(game, RUNGS, 2, 30, 11, rotation="diagonal")


def test_rotation_across_covers_the_planted_cells_with_a_seat_advantage():
    """60 ladders of 3 rungs at 3 players, 14 game indices per seating (42 in all), a large
    start-seat bonus that no longer cancels within a game index: the cells estimate the mean
    over the seats without bias and their intervals cover it about 95% of the time (the seat
    blocks are strata, so a little more)."""
    bonus = (0.8, 0.0, -0.3)
    game = gumbel_game(STRENGTH, bonus)
    cover, err = [], []
    for rep in range(60):
        lad = ladder(game, RUNGS, 3, 14, 500 + rep, rotation="across", progress=False)
        for r in lad.matrix.iter_rows(named=True):
            truth = true_cell(STRENGTH, bonus, r["rung"], r["opponent"], 3)
            cover.append(r["ci_low"] <= truth <= r["ci_high"])
            err.append(r["win_rate"] - truth)
    assert 0.92 <= np.mean(cover) <= 0.995, np.mean(cover)
    assert abs(np.mean(err)) < 3 * np.std(err) / math.sqrt(len(err))


def test_skill_curve_per_family_against_the_strongest_other_rung():
    strength = {"random": 0.0, "mc-10": 0.2, "mc-100": 0.6, "mc-1000": 1.0, "greedy": 0.5,
                "greedy-5": 0.4}
    rungs = ["random", "mc-10", "greedy", "mc-100", "mc-1000"]
    lad = ladder(gumbel_game(strength), rungs, 3, 400, 2, progress=False)
    c = lad.curves
    assert c["budget"].to_list() == [10, 100, 1000]
    assert set(c["reference"]) == {"greedy"} and set(c["family"]) == {"mc"}
    for r in c.iter_rows(named=True):
        truth = true_cell(strength, (0, 0, 0), r["rung"], "greedy", 3)
        assert r["ci_low"] <= truth <= r["ci_high"]
        cell = lad.matrix.filter(pl.col("rung") == r["rung"], pl.col("opponent") == "greedy")
        assert r["win_rate"] == cell["win_rate"][0]
    assert c["win_rate"].is_sorted()
    assert set(lad.figures()) == {"ladder-matrix", "ladder-skill-curve"}
    assert "Skill curve per family" in lad.markdown()
    only = ladder(gumbel_game(strength), ["mc-10", "mc-100", "mc-1000"], 3, 50, 2,
                  progress=False)
    assert only.curves["rung"].to_list() == ["mc-100", "mc-1000"]
    assert set(only.curves["reference"]) == {"mc-10"}
    two = ladder(gumbel_game(strength), ["mc-10", "random", "greedy-5", "mc-100"], 2, 20, 0,
                 progress=False).curves
    assert dict(zip(two["rung"], two["reference"], strict=True)) == {
        "mc-10": "random", "mc-100": "random", "greedy-5": "random"}
    fams = ladder(gumbel_game(strength), ["mc-10", "greedy-5", "mc-100"], 2, 20, 0,
                  progress=False).curves
    assert dict(zip(fams["rung"], fams["reference"], strict=True)) == {
        "mc-10": "greedy-5", "mc-100": "greedy-5", "greedy-5": "mc-100"}
    assert ladder(gumbel_game(strength), rungs, 2, 20, 0, reference="random",
                  progress=False).curves["reference"].unique().to_list() == ["random"]
    assert family_of("ismcts-1000") == ("ismcts", 1000) and family_of("careful") is None
    assert family_of("ismcts-x") is None


def test_a_rung_declared_stronger_that_rates_lower_is_noted_and_never_called_stronger():
    lad = ladder(gumbel_game(STRENGTH), ["strong", "weak"], 2, 500, 0, progress=False)
    assert any("weak is declared stronger than strong but rates lower" in n for n in lad.notes)
    assert "declared" in lad.markdown()
    # the ladder is read in the rated order: the lower-rated rung is the weak end everywhere
    assert lad.ranked == ("weak", "strong") and lad.ratings["rung"].to_list() == ["weak", "strong"]
    assert lad.chess_text().startswith("Between the two highest-rated competent rungs, strong "
                                       "with one seat against 1 x weak")
    assert lad.table()["rung"].to_list() == ["weak", "strong"]
    step = lad.steps.row(0, named=True)
    assert (step["lower"], step["higher"]) == ("weak", "strong") and step["diff_low"] > 0
    assert step["win_rate"] > 0.5


def test_rungs_the_ratings_do_not_tell_apart_are_noted():
    lad = ladder(gumbel_game({"a": 0.2, "b": 0.2}), ["a", "b"], 3, 300, 5, progress=False)
    step = lad.steps.row(0, named=True)
    assert step["diff_low"] < step["diff"] < step["diff_high"] and step["diff_low"] < 0
    assert any("are not told apart by their ratings" in n for n in lad.notes)


def test_readable_outputs(tmp_path):
    lad = ladder(gumbel_game(STRENGTH), RUNGS, 3, 60, 0, progress=False)
    t = lad.table()
    assert t.columns == ["rung", *RUNGS] and t["rung"].to_list() == RUNGS
    assert t.filter(pl.col("rung") == "mid")["mid"][0] == ""
    md = lad.markdown()
    assert "| weak" in md and "Bradley-Terry" in md and "x%-chess" in md
    page = lad.write(tmp_path / "lad")
    text = page.read_text()
    assert "ladder-matrix.png" in text and "x%-chess" in text
    assert (tmp_path / "lad" / "ladder.md").read_text() == md
    assert pl.read_parquet(tmp_path / "lad" / "results.parquet").height == lad.results.height


@pytest.mark.parametrize("agents,players,n,match", [
    (["weak"], 3, 10, "at least 2 rungs"),
    ("weak,mid", 3, 10, "at least 2 rungs"),
    (["weak", "mid", "weak"], 3, 10, "'weak' appears more than once"),
    (["weak", "nope"], 3, 10, "unknown policy 'nope'"),
    (["weak", "mid"], 1, 10, "players must be an integer >= 2"),
    (["weak", "mid"], True, 10, "players must be"),
    (["weak", "mid"], 3, 0, "n_games must be a positive integer"),
])
def test_bad_input_is_one_line_naming_the_problem(agents, players, n, match):
    with pytest.raises(ValueError, match=match) as e:
        ladder(gumbel_game(STRENGTH), agents, players, n, 0)
    assert "\n" not in str(e.value)


def test_unknown_reference_is_refused():
    with pytest.raises(ValueError, match="reference 'x' is not one of the rungs"):
        ladder(gumbel_game(STRENGTH), RUNGS, 3, 10, 0, reference="x")


SHIPPED = [m.split(".")[0] for m in games.BUILTIN]   # the games of this distribution


@pytest.mark.parametrize("game", SHIPPED)
def test_small_real_ladder(game):
    spec = games.get(game)
    lad = ladder(game, ["random", "greedy"], 3, 40, 1, progress=False)
    assert lad.results["seating"].n_unique() == 6
    assert lad.matrix.height == 2 and (lad.matrix["games"] == 120).all()
    assert not lad.steps["competent"].any()
    assert lad.chess_text().startswith("x%-chess: not computable")
    assert lad.ratings["rung"].to_list() == ["random", "greedy"]
    # reproducible on any thread count
    again = ladder(game, ["random", "greedy"], 3, 40, 1, threads=1, progress=False)
    assert again.matrix.equals(lad.matrix)
    hi = spec.players[1] + 1
    with pytest.raises(ValueError, match="players"):
        ladder(game, ["random", "greedy"], hi, 5, 0, progress=False)


def test_cli_prints_the_ladder_and_writes_its_page(tmp_path, capsys):
    game = SHIPPED[-1]
    out = tmp_path / "lad"
    assert main(["ladder", game, "--agents", "random,greedy", "--players", "3", "--games", "20",
                 "--seed", "4", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "x%-chess" in text and "one seat \\ P-1 seats" in text
    assert (out / "index.html").exists() and (out / "ladder-matrix.png").exists()
    assert main(["ladder", game, "--agents", "random,greedy", "--players", "3", "--games", "4",
                 "--rotation", "across"]) == 0
    assert "rotated across 12 game indices" in capsys.readouterr().out
    assert main(["ladder", game, "--agents", "random", "--players", "3", "--games", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("analyses: error: a ladder needs at least 2 rungs") and "\n" not in err
    assert main(["ladder", game, "--agents", "random,nope", "--players", "3",
                 "--games", "5"]) == 2
    assert "unknown policy 'nope'" in capsys.readouterr().err
