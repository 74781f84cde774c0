"""The intransitivity lens: the Hodge split, the cyclic share's interval on planted truths
(a rock-paper-scissors triple found, a ranking's interval holding 0), Nash averaging and
Alpha-Rank on known games, and clear errors."""
import fakegame
import numpy as np
import polars as pl
import pytest
from synth import duel_frame

import bloomsim
import rapinsim
from analyses import intransitivity
from analyses.cli import main
from analyses.intransitivity import (alpharank, cyclic_share, default_population, hodge,
                                     log_odds, measure, nash, paired_share, share)
from analyses.tournament import meetings, resample, wins_per_game

RPS = np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]], dtype=float)
STRENGTH = np.array([0.0, 0.4, 0.8])
RANKING = STRENGTH[:, None] - STRENGTH[None, :]


def test_hodge_splits_a_matrix_into_orthogonal_ranking_and_cycle():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 5))
    f = x - x.T
    grad, cyc = hodge(f)
    assert np.allclose(grad + cyc, f)
    assert abs(np.sum(grad * cyc)) < 1e-9                     # orthogonal
    assert np.allclose(hodge(grad)[0], grad)                  # a ranking is all gradient
    assert np.allclose(cyc.sum(axis=1), 0)                    # a cycle has no net flow
    assert share(RPS) == pytest.approx(1) and share(RANKING) == pytest.approx(0)
    # per pair: the cycle 0.3^2 each, the ranking 0.4^2 + 0.8^2 + 0.4^2 in all
    assert share(RANKING + 0.3 * RPS) == pytest.approx(0.27 / (0.27 + 0.96))


def _cyclic(logits, clusters, seed, replicates=200):
    names, per_game = wins_per_game(meetings(duel_frame(logits, clusters, seed)))
    k = len(names)
    return cyclic_share(per_game.sum(axis=0).reshape(k, k),
                        resample(per_game, replicates, seed).reshape(replicates, k, k),
                        per_game.shape[0]).row(0, named=True)


def test_a_planted_rock_paper_scissors_triple_is_found():
    for seed in range(3):
        c = _cyclic(0.8 * RPS, 200, seed)
        assert c["ci_low"] > 0.5 and c["share"] > 0.9


def test_a_ranking_s_interval_holds_zero_and_a_planted_mix_is_covered():
    """A few replicates each (docs/analyses.md gives 200): a ranking's interval holds 0 in
    every one, a planted 15% cyclic share is inside the interval in most."""
    truth = share(RANKING + 0.3 * RPS)
    ranking = [_cyclic(RANKING, 200, 10 + r) for r in range(8)]
    mixed = [_cyclic(RANKING + 0.3 * RPS, 200, 20 + r) for r in range(8)]
    assert all(c["ci_low"] == 0 for c in ranking)
    assert sum(c["ci_low"] <= truth <= c["ci_high"] for c in mixed) >= 6


def test_the_log_odds_of_a_ranking_are_a_gradient():
    p = 1 / (1 + np.exp(-RANKING))                      # Bradley-Terry shares
    f = log_odds(p * 1e6)
    assert share(f) < 1e-9
    assert share(p - 0.5) > 1e-4                       # the margin bends: not a gradient


def test_nash_averaging_gives_a_cycle_uniform_mass_and_splits_copies():
    assert np.allclose(nash(RPS), 1 / 3, atol=1e-6)
    # rock, a copy of rock, paper, scissors: max entropy splits rock's mass between copies
    copy = RPS[[0, 0, 1, 2]][:, [0, 0, 1, 2]]
    assert np.allclose(nash(copy), [1 / 6, 1 / 6, 1 / 3, 1 / 3], atol=1e-4)
    assert np.allclose(nash(RANKING), [0, 0, 1])        # a dominant strategy takes it all
    # a strategy that ties the cycle's members could join: the largest support is found
    a = np.zeros((4, 4))
    a[:3, :3] = RPS
    assert np.allclose(nash(a), 1 / 4, atol=1e-4)        # equilibria t -> ((1 - t) / 3, .., t)


def test_alpharank_ranks_a_dominant_strategy_first_and_a_cycle_evenly():
    ahead = np.array([[0.5, 0.45, 0.3, 0.6], [0.55, 0.5, 0.2, 0.7], [0.7, 0.8, 0.5, 0.55],
                      [0.4, 0.3, 0.45, 0.5]])
    pi = alpharank(ahead)
    assert np.argmax(pi) == 2 and pi[2] > 0.9 and pi.sum() == pytest.approx(1)
    assert np.allclose(alpharank(0.5 + 0.2 * RPS), 1 / 3)
    stacked = alpharank(np.stack([ahead, ahead.T]))          # a stack: each on its own
    assert np.allclose(stacked[0], pi) and np.allclose(stacked[1], alpharank(ahead.T))


def test_the_paired_change_of_the_cyclic_share_finds_a_planted_cycle_and_holds_zero():
    """The diff's row: rules B turning a ranking into a cycle on the same game indices."""
    ranking = meetings(duel_frame(RANKING, 200, 3))
    grown = paired_share(ranking, meetings(duel_frame(0.8 * RPS, 200, 4)), replicates=200)
    assert grown["ci_low"] > 0.5 and grown["b"] > 0.9 and grown["p"] < 1e-6
    same = paired_share(ranking, meetings(duel_frame(RANKING, 200, 5)), replicates=200)
    assert same["ci_low"] <= 0 <= same["ci_high"]
    assert paired_share(ranking, ranking, replicates=50)["diff"] == 0
    with pytest.raises(ValueError, match="same policies on the same game indices"):
        paired_share(ranking, meetings(duel_frame(RANKING, 150, 3)))


def test_the_diff_gains_the_cyclic_share_row_from_three_policies_besides_random():
    from analyses.diff import cycle_rows
    both = pl.concat([duel_frame(RANKING, 100, 3).with_columns(variant=pl.lit("A")),
                      duel_frame(0.8 * RPS, 100, 4).with_columns(variant=pl.lit("B"))])
    [rows] = cycle_rows(both, ["p0", "p1", "p2", "random"])
    row = rows.row(0, named=True)
    assert row["metric"] == "cyclic share" and row["group"] == "p0, p1, p2"
    assert row["games"] == 100 and row["ci_low"] > 0.5
    assert cycle_rows(both, ["p0", "p1", "random"]) == []


def test_measure_on_a_planted_cycle_and_ranking():
    cyc = measure(duel_frame(0.8 * RPS, 200, 1), replicates=100)
    assert cyc.cyclic["ci_low"][0] > 0.5
    assert np.allclose(cyc.ratings["nash_mass"].to_numpy(), 1 / 3, atol=0.12)
    assert cyc.matrix.height == 3 and "cyclic share" in cyc.text()
    rank = measure(duel_frame(RANKING, 200, 1), replicates=100)
    top = rank.ratings.sort("alpharank", descending=True)["policy"][0]
    assert top == "p2" == rank.ratings.sort("bt_elo", descending=True)["policy"][0]
    assert rank.ratings.filter(policy="p2")["nash_mass"][0] == pytest.approx(1)


def test_a_population_is_played_on_a_game_and_checked():
    r = intransitivity(fakegame, ["weak", "mid", "strong"], players=2, games=40, seed=3,
                       replicates=50)
    assert r.results is not None and set(r.ratings["policy"]) == {"weak", "mid", "strong"}
    assert "caution: only" not in r.text()
    few = intransitivity(fakegame, ["weak", "mid", "strong"], players=2, games=12, replicates=20)
    assert "caution: only 12 game indices (fewer than 20)" in few.text()
    assert r.ratings.sort("alpharank", descending=True)["policy"][0] == "strong"
    with pytest.raises(ValueError, match="at least 3 policies"):
        intransitivity(fakegame, ["weak", "mid"], players=2, games=5)
    with pytest.raises(ValueError, match="unknown policy 'nosuch'"):
        intransitivity(fakegame, ["weak", "mid", "nosuch"], players=2, games=5)
    with pytest.raises(ValueError, match="no search agents"):
        intransitivity(fakegame, ["weak", "mid", "strong"], players=2, games=5, search=True)
    with pytest.raises(ValueError, match="no head-to-head meetings of \\['twin'\\]"):
        measure(duel_frame(RPS, 5), ["p0", "p1", "twin"])
    apart = duel_frame(RPS, 5).filter(~pl.col("seating").is_in(["p0|p1", "p1|p0"]))
    with pytest.raises(ValueError, match="never met at one table: \\[\\('p0', 'p1'\\)\\]"):
        measure(apart)


def test_the_default_population_and_the_command_line(capsys):
    pop = default_population(bloomsim)
    assert "random" not in pop and {"cloud", "distilled", *bloomsim.TUNED} <= set(pop)
    for mod in (bloomsim, rapinsim):                 # each tuned variant is a heuristic's name
        assert [mod.heuristic(t).name for t in mod.TUNED] == list(mod.TUNED)
    assert main(["intransitivity", "bloomsim", "--population", "greedy", "careful"]) == 2
    assert "at least 3 policies" in capsys.readouterr().err
    assert main(["intransitivity", "bloomsim", "--population", "greedy", "careful",
                 "nosuch"]) == 2
    assert "unknown policy 'nosuch'" in capsys.readouterr().err


def test_the_report_reads_the_lens_off_its_own_tournament(tmp_path):
    from synth import Clustered

    from analyses.report import game_section
    sec = game_section(Clustered(1, 40, (0.0, 0.3, 0.6), seed=2).frame(0), tmp_path)
    assert any("Cyclic share of the head-to-head among p0, p1, p2" in h for h in sec.headlines)
    assert 'id="bloomsim-cycles"' in "".join(sec.body)
    assert "Caution:</b> only" not in "".join(sec.body)      # 40 game indices: no caution
