"""Decision leverage and accuracy (``analyses.leverage``): a planted dead choice is found dead
and a choice that matters is not, the tables' figures are the decisions' own, and the same
arguments give the same decisions on any thread count. The full-size validation is
``python -m analyses leverage bloomsim --rules`` on the planted rules (docs/analyses.md)."""
import numpy as np
import polars as pl
import pytest

import bloomsim
from analyses import leverage
from analyses.cli import main
from analyses.report import leverage_part
from analyses.stats import moments_of, ratio, t_interval
from simcore import games

FIELD = ["cloud", "careful", "random"]
RULES = bloomsim.load_rules()
PLANTED = RULES.replace(hand_size=len(RULES.role_ids), events_used=0)
"""Every role goes into every hand and no event changes the hands: the order in which a seat
selects its roles changes nothing, so every ``select`` decision is dead."""


def _small(rules, threads=1):
    return leverage("bloomsim", 3, 120, FIELD, playouts=4, seed=1, threads=threads,
                    rules=rules, per_game=10)


@pytest.fixture(scope="module")
def planted():
    return _small(PLANTED)


@pytest.fixture(scope="module")
def control():
    return _small(RULES, threads=2)


def _kind(lev, kind):
    return lev.table.filter((pl.col("by") == "kind") & (pl.col("group") == kind)).row(
        0, named=True)


def test_a_planted_dead_choice_is_found_dead_and_one_that_matters_is_not(planted, control):
    dead = _kind(planted, "select")
    assert dead["decisions"] >= 20 and dead["dead"] >= 95 and dead["leverage"] < 1
    live = _kind(control, "select")
    assert live["decisions"] >= 20 and live["dead_high"] < 95 and live["leverage_low"] > 1


def test_tables_are_the_decisions_own_figures(control):
    d = control.decisions
    assert d.height == 120 and d["game"].n_unique() == 12
    assert (d["best"] >= d["second"]).all() and (d["second"] >= d["worst"]).all()
    assert np.allclose(d["leverage"], d["best"] - d["worst"])
    assert np.allclose(d["loss"], d["best"] - d["taken"]) and (d["loss"] >= 0).all()
    assert set(d["policy"]) == set(FIELD) and set(d["phase"]) == {"early", "middle", "late"}
    for by in ("kind", "phase", "round", "seat"):
        assert control.table.filter(pl.col("by") == by)["decisions"].sum() == 120
    assert d["round"].min() >= 1 and d["round"].max() <= RULES.rounds
    assert d.sort("game", "decision").group_by("game").agg(
        (pl.col("round").diff().fill_null(0) >= 0).all())["round"].all()   # never goes back
    every = control.table.filter(pl.col("by") == "all").row(0, named=True)
    per_game = d.group_by("game").agg(pl.col("leverage").sum(), pl.len()).sort("game")
    est, se = ratio(*moments_of(per_game.select("leverage", "len").to_numpy()))
    low, high = t_interval(est, se, 12.0, (0, 100))
    assert np.isclose(every["leverage"], est) and np.isclose(every["leverage_low"], low)
    assert np.isclose(every["leverage_high"], high)
    assert control.accuracy["decisions"].sum() == 120


def test_the_same_arguments_give_the_same_decisions_on_any_thread_count(control):
    assert control.decisions.equals(_small(RULES, threads=1).decisions)


def test_the_report_part_has_one_headline_and_the_tables(control):
    headline, body = leverage_part(control)
    assert headline.startswith("Decisions: ") and "% of decisions are meaningful" in headline
    assert "most leveraged decision kind is" in headline
    assert body.count("<table>") == 2 and 'id="bloomsim-leverage"' in body


@pytest.mark.parametrize("kw, match", [
    ({"policies": ["random"]}, "one policy per seat"), ({"positions": 0}, "positions"),
    ({"playouts": True}, "playouts"), ({"threads": 0}, "threads"),
])
def test_bad_arguments_are_named(kw, match):
    with pytest.raises(ValueError, match=match):
        leverage("rapinsim", **{"players": 3, "positions": 3, **kw})


def test_the_command_prints_the_tables_and_the_headline(capsys):
    assert main(["leverage", "rapinsim", "--players", "3", "--positions", "20",
                 "--playouts", "2", "--policy", "careful", "--policy", "greedy",
                 "--policy", "random"]) == 0
    out = capsys.readouterr().out
    assert "leverage, points" in out and "loss per decision, points" in out
    assert "% of decisions are meaningful" in out


def test_the_diff_pairs_leverage_by_game_index():
    from analyses.diff import diff
    planted = {"hand_size": len(RULES.role_ids), "events_used": 0}
    t = diff("bloomsim", None, planted, FIELD, 3, 10, seed=1, leverage_positions=60)
    rows = {r["group"]: r for r in t.filter(pl.col("metric") == "decisions").to_dicts()}
    assert set(rows) == {"leverage (best - worst option)", "meaningful share", "dead share"}
    dead = rows["dead share"]
    assert dead["games"] == 6 and dead["percent"] and dead["b"] > dead["a"]
    assert dead["ci_low"] <= dead["diff"] <= dead["ci_high"]


def test_the_lapin_round_is_a_turn_each_from_what_the_seat_sees():
    from simcore.forward import positions
    spec = games.get("rapinsim")
    for p in positions("rapinsim", 3, ["keeper"] * 3, 1, 40, 2):
        obs = p.observation(p.current.seat)
        assert spec.round_of(obs, 3) == p.state()["turns"][0] // 3 + 1
