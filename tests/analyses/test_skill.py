"""Verdicts by skill: the classification across rungs, on sign patterns and on synthetic rungs
with planted effects; rung specs refused in one line."""
import polars as pl
import pytest

from analyses.skill import (APPEARS, FLIPS, HOLDS, NONE, SOME, VANISHES, check_rungs, classify,
                            judge, parse_rungs, rung_verdicts, summarise)
from synth import bloom_frame

R3 = ["random", "greedy", "careful"]


@pytest.mark.parametrize("signs,cls,words", [
    ((1, 1, 1), HOLDS, "holds at random, greedy and careful"),
    ((-1, -1, -1), HOLDS, "holds at random, greedy and careful"),
    ((1, 0, 0), VANISHES, "holds at random, vanishes at greedy"),
    ((1, 1, 0), VANISHES, "holds at random and greedy, vanishes at careful"),
    ((0, 0, -1), APPEARS, "appears at careful"),
    ((0, 1, 1), APPEARS, "appears at greedy, holds at greedy and careful"),
    ((1, -1, -1), FLIPS, "flips between random (+) and greedy (-)"),
    ((-1, 0, 1), FLIPS, "flips between random (-) and careful (+)"),
    ((1, 0, 1), SOME, "holds at random and careful only"),
    ((0, 0, 0), NONE, "holds at no rung"),
    ((1, None, 0), VANISHES, "holds at random, vanishes at careful (not measured at greedy)"),
    ((None, 1, None), HOLDS, "holds at greedy (not measured at random and careful)"),
    ((None, None, None), NONE, "measured at no rung"),
])
def test_classify_sign_patterns(signs, cls, words):
    assert classify(signs, R3) == (cls, words)


def test_classify_needs_one_sign_per_rung():
    with pytest.raises(ValueError, match="one sign per rung: 2 signs for 3 rungs"):
        classify((1, 0), R3)


@pytest.fixture(scope="module")
def planted():
    """Three synthetic rungs of 4,000 four-seat games with planted effects: seat 0 gets +6
    points at 'weak', -6 at 'mid', nothing at 'strong' (where it gains from seat 3: flips);
    seat 3 gets -8 at every rung (holds); event upper_hand gives seat 0 +4 only at 'weak'
    (vanishes), the_works only at 'strong' (appears), more_or_less never (holds at none). One
    planted event per rung at most: 7 of the 10 events are drawn, so a planted event shows as a
    small opposite association of the others (about a ninth of it), well inside the Holm
    threshold here."""
    plants = {"weak": ((6, 0, 0, -8), {"upper_hand": 4}),
              "mid": ((-6, 0, 0, -8), {}),
              "strong": ((0, 0, 0, -8), {"the_works": 4})}
    parts = [rung_verdicts(bloom_frame(4000, policies=(r,) * 4, seed=i, seat_bonus=seat,
                                       event_bonus=ev), r)
             for i, (r, (seat, ev)) in enumerate(plants.items())]
    table = judge(pl.concat(parts))
    return table, summarise(table, list(plants))


@pytest.mark.parametrize("verdict,cls,words", [
    ("seat 0: win rate - 1/4", FLIPS, "flips between weak (+) and mid (-)"),
    ("seat 3: win rate - 1/4", HOLDS, "holds at weak, mid and strong"),
    ("event upper_hand: win rate with - without (seat 0)", VANISHES,
     "holds at weak, vanishes at mid"),
    ("event the_works: win rate with - without (seat 0)", APPEARS, "appears at strong"),
    ("event more_or_less: win rate with - without (seat 0)", NONE, "holds at no rung"),
])
def test_planted_effects_are_classified_as_planted(planted, verdict, cls, words):
    table, summary = planted
    row = summary.filter(pl.col("verdict") == verdict)
    assert row.select("across", "reading").rows() == [(cls, words)]


def test_planted_table_holds_where_planted_with_intervals(planted):
    table, summary = planted
    seat0 = table.filter(pl.col("verdict") == "seat 0: win rate - 1/4").sort("rung")
    assert seat0["rung"].to_list() == ["mid", "strong", "weak"]
    assert seat0["sign"].to_list() == [-1, 1, 1]
    assert (seat0["ci_low"] < seat0["estimate"]).all() and \
        (seat0["estimate"] < seat0["ci_high"]).all()
    # where it holds, the interval excludes 0 on the side of its sign
    held = table.filter(pl.col("holds"))
    assert ((held["sign"] > 0) == (held["ci_low"] > 0)).all()
    assert ((held["sign"] < 0) == (held["ci_high"] < 0)).all()
    # one Holm family over the whole table: adjusted p never below the raw p
    ok = table.filter(pl.col("p").is_not_nan())
    assert (ok["p_adj"] >= ok["p"]).all() and ok["p_adj"].max() <= 1.0
    # every verdict once in the summary, in the order first measured
    assert summary.height == table["verdict"].n_unique()
    assert summary["verdict"][0] == "seat 0: win rate - 1/4"


@pytest.mark.parametrize("text,message", [
    ("random,,careful", "the spec at position 2 of ['random', '', 'careful'] is empty"),
    ("random", "give at least two rungs to compare, got ['random']"),
    ("random,careful,random", "'random' given twice"),
    (" ,random", "the spec at position 1"),
])
def test_bad_rung_lists_are_refused_in_one_line(text, message):
    with pytest.raises(ValueError, match="^rungs: ") as e:
        parse_rungs(text)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_rungs_must_be_a_list():
    with pytest.raises(ValueError, match="rungs must be a list of policy specs, got 'random'"):
        check_rungs("random")
    assert parse_rungs(" random , careful ") == ["random", "careful"]


def test_skill_table_reads_one_row_per_verdict(planted):
    from analyses.display import skill_table
    table, summary = planted
    wide = skill_table(table, summary, ["weak", "mid", "strong"])
    assert wide.columns == ["verdict", "weak: pct points [95% CI]", "mid: pct points [95% CI]",
                            "strong: pct points [95% CI]", "across the rungs"]
    assert wide.height == summary.height
    row = wide.row(0, named=True)
    assert row["verdict"] == "seat 0: win rate - 1/4"
    assert row["weak: pct points [95% CI]"].startswith("+") and \
        row["weak: pct points [95% CI]"].endswith("] holds")
    assert row["across the rungs"] == "flips between weak (+) and mid (-)"


def test_default_rungs_are_the_weakest_and_the_two_strongest_by_rating():
    from analyses.balance import default_rungs
    ratings = pl.DataFrame({"policy": ["a", "b", "c", "d", "e"],
                            "bt_elo": [120.0, 40.0, None, -30.0, -200.0]})
    assert default_rungs(ratings, False) == ["e", "b", "a"]
    assert default_rungs(ratings.head(2), False) == ["b", "a"]
    assert default_rungs(ratings, True) == ["e", "b", "a", "ismcts-32"]


def test_headline_counts_holds_only_over_the_rungs_where_measured(planted):
    # seat 3 holds at every rung; measured at the weak rung alone it holds there only, and the
    # headline must not count it as holding at all three
    from analyses.report import skill_part
    from analyses.skill import SkillVerdicts
    table, _ = planted
    rungs = ["weak", "mid", "strong"]
    cut = table.filter((pl.col("verdict") != "seat 3: win rate - 1/4")
                       | (pl.col("rung") == "weak"))
    summary = summarise(cut, rungs)
    assert summary.filter(pl.col("verdict") == "seat 3: win rate - 1/4")["measured"].item() == 1
    sv = SkillVerdicts("bloomsim", tuple(rungs), 4000, 4, 0, None, cut, summary, (4000,) * 3)
    headline, _ = skill_part(sv)
    held = summary.filter(pl.col("across") == HOLDS)
    full = held.filter(pl.col("measured") == 3).height
    assert f"{held.height} hold at every rung where measured (" in headline
    assert "1 at 1 of 3" in headline
    assert (f"{full} at all 3 rungs" in headline) == (full > 0)
