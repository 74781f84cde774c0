"""Restricted play (``analyses.restricted``): planted truth found at small sizes. The
documented full-size run is ``python -m analyses restricted GAME`` (docs/analyses.md)."""
import polars as pl
import pytest

from analyses import restricted
from analyses.report import restricted_part
from analyses.restricted import (COSTLY, INDISPENSABLE, USELESS, Restriction, _rung_probes,
                                 headline, summarise, verdict)
from bloomsim.game import GAME as BLOOM
from bloomsim.rules import default_rules
from rapinsim.game import GAME as LAPIN


@pytest.fixture(scope="module")
def bloom():
    """Broom Service without event cards (the alternative card's event is never offered:
    never taking it cannot matter), and never delivering a potion (the towers are most of the
    points)."""
    return restricted("bloomsim", players=2, policy="cloud", probes=["never_event",
                                                                     "never_delivery"],
                      games=30, rungs=[], rules=default_rules().replace(events_used=0),
                      threads=1)


def test_a_probe_that_cannot_act_is_useless_with_an_interval_of_zero(bloom):
    row = bloom.table.filter(pl.col("probe") == "never_event").row(0, named=True)
    assert row["diff"] == row["ci_low"] == row["ci_high"] == 0.0
    assert row["p"] == 1.0 and row["verdict"] == USELESS


def test_a_probe_that_forbids_what_matters_is_costly(bloom):
    row = bloom.table.filter(pl.col("probe") == "never_delivery").row(0, named=True)
    assert row["ci_high"] < 0 and row["p_adj"] < 0.05
    assert row["verdict"] in (INDISPENSABLE, COSTLY)
    assert "never deliver a potion" in bloom.headline()


def test_lapin_never_searching_is_indispensable():
    r = restricted("rapinsim", players=2, policy="careful", probes=["never_search"], games=20,
                   rungs=[], threads=1)
    row = r.table.row(0, named=True)
    assert row["ci_high"] < 0 and row["verdict"] in (INDISPENSABLE, COSTLY)


def test_every_game_declares_at_least_30_probes_and_a_horizon_limited_player():
    for g in (BLOOM, LAPIN):
        assert len(g.probes) >= 30
        assert len({p.name for p in g.probes}) == len(g.probes)
        assert any(p.mode == "horizon" for p in g.probes)


def test_probes_apply_by_rung():
    """A search agent takes the horizon probe only (as the agent with the probe's settings);
    a heuristic every row probe; Lapin's evader its short-sighted twin."""
    at_search = _rung_probes(BLOOM.probes, "ismcts-30")
    assert [(p.name, pol) for p, pol in at_search] == [("horizon_1_round",
                                                       "ismcts-30[horizon=1]")]
    at_cloud = _rung_probes(BLOOM.probes, "cloud")
    assert len(at_cloud) == len(BLOOM.probes) - 1
    assert ("never_brave", "cloud[never=brave]") in [(p.name, pol) for p, pol in at_cloud]
    assert ("horizon_one_step", "careful") in [(p.name, pol) for p, pol in
                                               _rung_probes(LAPIN.probes, "evader")]


def test_unknown_probe_names_the_games_probes():
    with pytest.raises(ValueError, match="unknown probe 'never_dragon'.*never_forest_witch"):
        restricted("bloomsim", probes=["never_dragon"], games=2)
    import bloomsim
    with pytest.raises(ValueError, match="unknown probe 'always_x'.*never_brave"):
        bloomsim.simulate(["cloud[always=x]", "cloud"], 1, seed=0)
    with pytest.raises(ValueError, match="search agent.*cannot be restricted"):
        bloomsim.simulate(["ismcts-10[never=brave]", "cloud"], 1, seed=0)


def test_verdicts():
    assert verdict("never", 0.002, -0.005, 0.009, 1.0) == USELESS
    assert verdict("never", -0.2, -0.3, -0.1, 0.001) == INDISPENSABLE
    assert verdict("always", 0.2, 0.1, 0.3, 0.001) == "dominant"
    assert verdict("never", -0.03, -0.05, -0.01, 0.01) == COSTLY
    assert verdict("never", -0.03, -0.08, 0.02, 0.3) == "undetermined"


def test_report_part_of_a_small_result():
    table = pl.DataFrame({
        "rung": ["cloud", "cloud", "distilled", "distilled"],
        "probe": ["never_brave", "never_event", "never_brave", "never_event"],
        "label": ["never brave", "never the event", "never brave", "never the event"],
        "mode": ["never"] * 4, "policy": ["x"] * 4, "games": [100] * 4,
        "diff": [-0.2, 0.0, -0.15, 0.001], "ci_low": [-0.25, 0.0, -0.2, -0.004],
        "ci_high": [-0.15, 0.0, -0.1, 0.006], "p": [1e-6, 1.0, 1e-5, 0.7],
        "p_adj": [4e-6, 1.0, 3e-5, 1.0],
        "verdict": [INDISPENSABLE, USELESS, INDISPENSABLE, USELESS]})
    r = Restriction("bloomsim", 4, 100, 0, ("cloud", "distilled"), table,
                    summarise(table, ["cloud", "distilled"]), pl.DataFrame())
    assert r.summary.filter(pl.col("probe") == "never_brave")["holds_at"][0] == \
        "cloud, distilled"
    assert headline(table).startswith("most indispensable: never brave (-20.0 points at cloud)")
    head, body = restricted_part(r)
    assert "useless (within -/+1 point): never the event" in head
    assert "-20.0% [-25.0%, -15.0%]" in body and "Restricted play" in body


def test_a_restricted_policy_plays_in_compare():
    import analyses
    c = analyses.compare("bloomsim", "cloud[never=delivery]", "cloud", n_games=6)
    assert c.a == "cloud[never=delivery]" and c.diff < 0
    with pytest.raises(ValueError, match="unknown probe 'never_x'"):
        analyses.compare("bloomsim", "cloud[never=x]", "cloud", n_games=2)


def test_the_diff_pairs_each_probe_s_cost_and_same_rules_change_nothing():
    from analyses.diff import diff
    same = diff("rapinsim", None, {"actions_per_turn": 3}, ["keeper", "evader"], 2, 4, seed=1,
                restricted=6)
    rows = same.filter(pl.col("metric") == "restricted play")
    assert rows.height >= 60 and (rows["games"] == 6).all()
    assert any(g.startswith("never search a house at ") for g in rows["group"])
    assert (rows["diff"] == 0).all() and (rows["p"] == 1).all()   # the very same games
    moved = diff("rapinsim", None, {"actions_per_turn": 2}, ["keeper", "evader"], 2, 4, seed=1,
                 restricted=6).filter(pl.col("metric") == "restricted play")
    assert (moved["diff"] != 0).any()
