"""The kingmaking lens: planted kingmaker rounds of a toy game found (recall >= 95%) and its
control rounds not (false positives <= 5%), the crowned seat's standing, the judgement of one
decision, the summary's intervals, the report part and clear errors."""
import kingtoy
import numpy as np
import polars as pl
import pytest

import bloomsim
import rapinsim
from analyses import kingmaking
from analyses.kingmaking import ROLES, judge, measure, summarise
from analyses.report import kingmaking_part

GAMES = 300
SEED = 1


@pytest.fixture(scope="module")
def toy():
    """The lens over GAMES toy games (about a third of each type), with each game's type."""
    r = measure(lambda p, g: kingtoy.new_game(SEED, g), [3], GAMES, lambda p: ["random"] * 3)
    types = {g: kingtoy.spec(SEED, g).type for g in range(GAMES)}
    return r, types


def test_planted_kingmakers_are_found_and_controls_are_not(toy):
    r, types = toy
    flagged = r.decisions.filter(pl.col("kingmaker"))
    found = set(flagged.filter(pl.col("decision") == kingtoy.FILLER)["game"])
    planted = {g for g, t in types.items() if t == "king"}
    controls = {g for g, t in types.items() if t != "king"}
    assert min(len(planted), len(controls)) > 60
    assert len(found & planted) / len(planted) >= 0.95                    # recall
    false = set(flagged["game"]) - planted | set(
        flagged.filter(pl.col("decision") != kingtoy.FILLER)["game"])
    assert len(false) / len(controls) <= 0.05                              # false positives
    row = r.summary.row(0, named=True)
    share = len(planted) / GAMES
    assert row["share_low"] <= share <= row["share_high"]
    assert row["games"] == GAMES and row["decisions"] == flagged.height


def test_the_crowned_seat_and_its_standing_match_the_exact_values(toy):
    """Judged on exact values, each planted decision gives the same crowned seat and role as
    the lens's Monte Carlo evaluation, and the mean swing is the planted one."""
    r, types = toy
    km = r.decisions.filter(pl.col("kingmaker"))
    same, swings = 0, []
    for x in km.iter_rows(named=True):
        g = kingtoy.new_game(SEED, x["game"])
        choice = g.copy().play(None).history[x["decision"]]
        exact = judge(kingtoy.spec(SEED, x["game"]).final, kingtoy.CHOOSER, choice)
        same += (exact.crowned, exact.role) == (x["crowned"], x["role"])
        swings.append(exact.swing)
    assert same / km.height >= 0.95
    row = r.summary.row(0, named=True)
    assert row["swing_low"] <= np.mean(swings) <= row["swing_high"]
    assert row["other"] == 0                         # three seats: no third contender


def test_judge_reads_one_decision():
    v = np.array([[0.70, 0.20, 0.00, 0.10],           # seat 2 decides; seat 0 gains 0.5
                  [0.20, 0.60, 0.01, 0.19]])
    j = judge(v, seat=2, choice=1)
    assert j.kingmaker and j.decider == pytest.approx(0.01)
    assert j.swing == pytest.approx(0.5) and j.crowned == 1
    assert j.role == "runner-up"                      # seat 1 stood second by the mean
    assert not judge(v, seat=2, choice=1, threshold=0.01).kingmaker       # 1% is not below
    assert not judge(v, seat=2, choice=1, swing=0.51).kingmaker
    assert judge(v, seat=3, choice=0).decider == pytest.approx(0.19)


def _result() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Four games at 3 players: game 0 with two kingmaker decisions, game 2 with one."""
    d = pl.DataFrame({"players": [3, 3, 3, 3], "game": [0, 0, 1, 2],
                      "decision": [5, 9, 4, 7], "seat": [2, 1, 0, 2], "options": [2] * 4,
                      "kind": ["x"] * 4, "decider": [0.0, 0.01, 0.3, 0.0],
                      "swing": [0.4, 0.6, 0.5, 0.2], "crowned": [0, 2, 1, 1],
                      "role": ["leader", "runner-up", "leader", "leader"],
                      "kingmaker": [True, True, False, True]})
    g = pl.DataFrame({"players": [3] * 4, "game": [0, 1, 2, 3], "decisions": [10] * 4,
                      "evaluated": [2, 1, 1, 0], "kingmakers": [2, 0, 1, 0]})
    return d, g


def test_summary_takes_the_game_index_as_its_unit():
    d, g = _result()
    s = summarise(d, g).row(0, named=True)
    assert s["share"] == 0.5 and s["share_low"] < 0.5 < s["share_high"]
    assert s["decisions"] == 3 and s["swing"] == pytest.approx(1.2 / 3)
    assert s["swing_low"] < s["swing"] < s["swing_high"]
    assert s["leader"] == pytest.approx(2 / 3) and s["runner-up"] == pytest.approx(1 / 3)
    assert sum(s[r] for r in ROLES) == pytest.approx(1)
    assert (s["evaluated"], s["screened"]) == (4, 40)


def test_report_part_has_one_headline_with_the_figures():
    d, g = _result()
    from analyses.kingmaking import Kingmaking
    r = Kingmaking(d, g, summarise(d, g), {"threshold": 0.02, "swing": 0.2, "playouts": 128,
                                            "screens": (4, 32)})
    headline, body = kingmaking_part(r, "bloomsim")
    assert "a kingmaker decision in 50.0%" in headline and "leader 66.7%" in headline
    assert "screens of 4 then 32 playouts" in body and 'id="bloomsim-kingmaking"' in body
    assert "games with a kingmaker decision" in body
    assert "Caution" in body                           # 4 game indices


@pytest.mark.parametrize("kw, words", [
    ({"threshold": 2.0}, "threshold must be a probability"),
    ({"swing": -0.1}, "swing must be a probability"),
    ({"players": 9}, "players"),
    ({"games": 0}, "games"),
    ({"policies": ["careful", "greedy"]}, "one policy for every seat"),
])
def test_bad_input_is_refused_in_words(kw, words):
    with pytest.raises(ValueError, match=words):
        kingmaking(bloomsim, **kw)


def test_a_game_s_verdicts_do_not_depend_on_the_run_s_size(toy):
    r, _ = toy
    small = measure(lambda p, g: kingtoy.new_game(SEED, g), [3], 20, lambda p: ["random"] * 3)
    assert small.decisions.equals(r.decisions.filter(pl.col("game") < 20))


def test_games_scanned_side_by_side_give_the_same_figures():
    one, two = (kingmaking(rapinsim, 3, 3, playouts=8, screens=(2,), threads=t)
                for t in (1, 2))
    assert one.decisions.height and one.decisions.equals(two.decisions)
    assert one.games.equals(two.games)
    with pytest.raises(ValueError, match="threads"):
        kingmaking(rapinsim, 3, 1, threads=0)


def test_the_command_runs_a_real_game_and_prints_the_table(capsys):
    from analyses.cli import main
    assert main(["kingmaking", "rapinsim", "--players", "3", "--games", "1",
                 "--playouts", "16"]) == 0
    out = capsys.readouterr().out
    assert "games with a kingmaker decision" in out and "3 players, 1 games" in out
    assert main(["kingmaking", "rapinsim", "--screens", "4,x"]) == 2
    assert "--screens takes playouts" in capsys.readouterr().err


def test_the_diff_pairs_the_kingmaking_share_on_game_indices():
    from analyses.diff import diff
    t = diff("rapinsim", None, {"actions_per_turn": 3}, ["greedy", "careful"], 3, 10, seed=1,
             kingmaking=2)
    row = t.filter(pl.col("metric") == "kingmaking").row(0, named=True)
    assert row["games"] == 2 and row["percent"] and row["p_adj"] >= row["p"]
    assert row["group"] == "games with a kingmaker decision"
