"""Verdicts tagged with the assumptions they rest on (analyses.robust) on the shipped games:
an alternative that cannot be played at the table, one that removes a thing, bad ones."""
import pytest

from analyses import robustness
from analyses.cli import main


def test_an_alternative_unplayable_at_the_table_is_untested_never_robust():
    """The seed's three characters cannot seat four players: the roster is untested there, and
    a verdict robust to the others says so."""
    r = robustness("rapinsim", None, ["careful", "greedy"], 4, 40, seed=1)
    assert [n for n, _ in r.untested] == ["roster: the seed's three"]
    assert "3 characters" in r.untested[0][1]
    tags = r.summary["tag"].to_list()
    assert all(t != "robust" for t in tags)
    assert all("untested: roster" in t for t in tags if t.startswith("robust"))


def test_the_whistle_s_verdict_depends_on_taking_the_whistle_out():
    r = robustness("rapinsim", [{"items.whistle": 0,
                                 "treasures": [[1, 0, 9], [2, 0, 6], [3, 0, 6], [0, 4, 4]]}],
                   ["careful", "greedy"], 3, 40, seed=1)
    assert "absent under it" in r.tag("item whistle: win rate with - without (all seats)")


@pytest.mark.parametrize("alt, match", [
    ({"no_such_rule": 1}, "no_such_rule"),
    ({"bicycle_steps": "lots"}, "bicycle_steps"),
    ({"items.kite": 1}, "kite"),
    ("missing-rules.json", "does not exist"),
    (None, "unknown policy 'nosuch'"),
])
def test_a_bad_alternative_is_named_before_anything_is_played(alt, match):
    with pytest.raises(ValueError, match=match):
        robustness("rapinsim", alt, ["careful", "nosuch"] if alt is None else ["careful"], 3,
                   10)


def test_the_command_line_reads_files_and_values_and_names_bad_ones(tmp_path, capsys):
    (tmp_path / "default.json").write_text("{}")
    assert main(["robustness", "rapinsim", "--alt", str(tmp_path / "default.json"),
                 "--games", "5"]) == 2
    assert "default" in capsys.readouterr().err
    assert main(["robustness", "rapinsim", "--alt", "bicycle_steps=", "--games", "5"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    assert main(["robustness", "rapinsim", "--players", "3", "--policy", "careful",
                 "--alt", 'characters=["inaba","chimame","aoyama"];bicycle_steps=2',
                 "--games", "20", "--causal-games", "5"]) == 0
    out = capsys.readouterr().out
    assert "characters=" in out and "seat 0: win rate - 1/3" in out
    assert "win rate replayed without it, with - without (seat 0)" in out


def test_the_robustness_part_names_things_as_the_seeds_do():
    """The headline and table of a verdict that depends on an alternative read the event's
    display name, never its id (the data keeps the id)."""
    import polars as pl

    from analyses.report import robust_part
    from analyses.robust import CHANGE_COLUMNS, DEPENDS, Robustness

    verdict = "event upper_hand: win rate with - without (seat 0)"
    changes = pl.DataFrame([{"verdict": verdict, "kind": "event", "alternative": "alt",
                             "default": 0.1, "diff": -0.2, "ci_low": -0.3, "ci_high": -0.1,
                             "p": 1e-4, "p_equiv": 0.9, "mde": 0.05, "margin": 0.02,
                             "percent": True, "absent": False}], schema=CHANGE_COLUMNS
                           ).with_columns(p_adj=pl.lit(1e-4), depends=True, negligible=False)
    summary = pl.DataFrame({"verdict": [verdict], "kind": ["event"], "estimate": [0.1],
                            "tag": [f"{DEPENDS}: alt"], "depends": [["alt"]], "mde": [0.05],
                            "margin": [0.02], "status": ["holds"]})
    r = Robustness("bloomsim", ("careful", "greedy"), 2, 10, 0, 0.02, (("alt", "key"),), (),
                   pl.DataFrame(), changes, summary)
    headline, body = robust_part(r)
    assert "The Upper Hand" in headline and "The Upper Hand" in body
    assert "upper_hand" not in headline + body
