"""Verdicts by skill: the course across rungs from statuses and tested changes, on patterns and
on synthetic rungs with planted effects (a change is reported only where a test of it says
so, whatever the rungs' sizes); rung specs refused in one line."""
import os

import numpy as np
import polars as pl
import pytest
from scipy import stats as sp

from analyses.skill import (APPEARS, CHANGES, FLIPS, HOLDS, NEGLIGIBLE, NONE, STEADY,
                            UNDETERMINED, VANISHES, check_rungs, course, judge, parse_rungs,
                            rung_verdicts, summarise)
from synth import bloom_frame

R3 = ["random", "greedy", "careful"]
H, N, U = HOLDS, NEGLIGIBLE, UNDETERMINED


@pytest.mark.parametrize("status,signs,changed,cls,words", [
    ((H, H, H), (1, 1, 1), (False, False), HOLDS, "holds at random, greedy and careful"),
    ((H, H, H), (-1, -1, -1), (True, False), CHANGES,
     "changes between random and greedy (holds at random, greedy and careful)"),
    ((N, N, N), (1, -1, 1), (False, False), NEGLIGIBLE, "negligible at random, greedy and careful"),
    # holding at the big rungs and not at a small one is power, not skill: no tested change
    ((H, H, U), (1, 1, 1), (False, False), STEADY,
     "holds at random and greedy; undetermined at careful; no change shown"),
    ((H, N, N), (1, 1, -1), (False, False), STEADY,
     "holds at random; negligible at greedy and careful; no change shown"),
    ((H, N, N), (1, 1, -1), (True, False), VANISHES,
     "vanishes between random and greedy (holds at random; negligible at greedy and careful)"),
    # a significant change to an undetermined rung is a change, not a vanishing
    ((H, U, N), (1, 1, 1), (True, False), CHANGES,
     "changes between random and greedy (holds at random; undetermined at greedy; "
     "negligible at careful)"),
    ((N, N, H), (1, -1, -1), (False, True), APPEARS,
     "appears between greedy and careful (negligible at random and greedy; holds at careful)"),
    ((H, H, H), (1, -1, -1), (True, False), FLIPS,
     "flips between random (+) and greedy (-) (holds (+) at random; holds (-) at greedy and "
     "careful)"),
    # opposite signs that both hold, without a significant change, are not a flip
    ((H, H, H), (1, -1, -1), (False, False), STEADY,
     "holds (+) at random; holds (-) at greedy and careful; no change shown"),
    ((H, None, N), (1, 0, 1), (True,), VANISHES,
     "vanishes between random and careful (holds at random; not measured at greedy; "
     "negligible at careful)"),
    ((None, H, None), (0, 1, 0), (), HOLDS,
     "not measured at random and careful; holds at greedy"),
    ((None, None, None), (0, 0, 0), (), NONE, "measured at no rung"),
])
def test_course_patterns(status, signs, changed, cls, words):
    assert course(status, signs, changed, R3) == (cls, words)


def test_course_needs_one_status_per_rung_and_one_change_per_pair():
    with pytest.raises(ValueError, match="one status and sign per rung: 2 statuses"):
        course((H, H), (1, 1), (False,), R3)
    with pytest.raises(ValueError, match="one change per pair of measured rungs: 1 for 3"):
        course((H, H, H), (1, 1, 1), (False,), R3)


@pytest.fixture(scope="module")
def planted():
    """Three synthetic rungs of 4,000 four-seat games with planted effects, margin 5 points:
    seat 0 gets +6 points at 'weak', -6 at 'mid', nothing at 'strong' (where it gains from
    seat 3: flips twice); seat 3 gets -8 at every rung, but its win rate moves with seat 0's
    (changes); event upper_hand gives seat 0 +4 only at 'weak' (vanishes), the_works only at
    'strong' (appears), more_or_less never (negligible). One planted event per rung at most: 7
    of the 10 events are drawn, so a planted event shows as a small opposite association of
    the others (about a ninth of it), inside the margin."""
    plants = {"weak": ((6, 0, 0, -8), {"upper_hand": 4}),
              "mid": ((-6, 0, 0, -8), {}),
              "strong": ((0, 0, 0, -8), {"the_works": 4})}
    parts = [rung_verdicts(bloom_frame(4000, policies=(r,) * 4, seed=i, seat_bonus=seat,
                                       event_bonus=ev), r)
             for i, (r, (seat, ev)) in enumerate(plants.items())]
    table, changes = judge(parts, list(plants), margin=0.05)
    return table, changes, summarise(table, changes, list(plants))


@pytest.mark.parametrize("verdict,cls,words", [
    ("seat 0: win rate - 1/4", FLIPS, "flips between weak (+) and mid (-); flips between mid "
     "(-) and strong (+) (holds (+) at weak and strong; holds (-) at mid)"),
    ("seat 3: win rate - 1/4", CHANGES, "changes between weak and mid; changes between mid "
     "and strong (holds at weak, mid and strong)"),
    ("event upper_hand: win rate with - without (seat 0)", VANISHES,
     "vanishes between weak and mid (holds at weak; negligible at mid; undetermined at strong)"),
    ("event the_works: win rate with - without (seat 0)", APPEARS,
     "appears between mid and strong (undetermined at weak; negligible at mid; holds at "
     "strong)"),
    ("event more_or_less: win rate with - without (seat 0)", NEGLIGIBLE,
     "negligible at weak, mid and strong"),
])
def test_planted_effects_are_classified_as_planted(planted, verdict, cls, words):
    _, _, summary = planted
    row = summary.filter(pl.col("verdict") == verdict)
    assert row.select("across", "reading").rows() == [(cls, words)]


def test_planted_table_holds_where_planted_with_intervals(planted):
    table, changes, summary = planted
    seat0 = table.filter(pl.col("verdict") == "seat 0: win rate - 1/4").sort("rung")
    assert seat0["rung"].to_list() == ["mid", "strong", "weak"]
    assert seat0["sign"].to_list() == [-1, 1, 1]
    assert (seat0["ci_low"] < seat0["estimate"]).all() and \
        (seat0["estimate"] < seat0["ci_high"]).all()
    # where it holds, the interval excludes 0 on the side of its sign
    held = table.filter(pl.col("holds"))
    assert ((held["sign"] > 0) == (held["ci_low"] > 0)).all()
    assert ((held["sign"] < 0) == (held["ci_high"] < 0)).all()
    # negligible: the 90% interval (estimate -/+ 1.645 se) inside the margin
    neg = table.filter(pl.col("status") == NEGLIGIBLE)
    assert ((neg["estimate"].abs() + 1.64 * neg["se"]) < 0.05).all()
    # the minimum detectable effect is 2.8 standard errors (80% power at 0.05)
    assert np.allclose(table["mde"] / table["se"], 2.8, atol=0.01)
    # one Holm family over the whole table: adjusted p never below the raw p
    ok = table.filter(pl.col("p").is_not_nan())
    assert (ok["p_adj"] >= ok["p"]).all() and ok["p_adj"].max() <= 1.0
    # a change per verdict and pair of neighbouring rungs, paired on the shared game indices
    assert changes.height == 2 * summary.height
    assert (changes["shared"] == 4000).all()
    assert ((changes["ci_low"] < changes["diff"]) & (changes["diff"] < changes["ci_high"])).all()
    # every verdict once in the summary, in the order first measured
    assert summary.height == table["verdict"].n_unique()
    assert summary["verdict"][0] == "seat 0: win rate - 1/4"


KEPT = ("upper_hand", "the_works")
SIZES = {"a": 10_000, "b": 10_000, "c": 10_000, "d": 200}


def replicate(rep: int, plants: dict) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """One synthetic ladder of rungs ``SIZES`` (independent seeds), events reduced to two,
    ``plants``: rung -> (seat bonus, event bonus)."""
    drop = [f"event_{e}" for e in
            ("more_or_less", "black_market", "black_distillery", "empty_handed",
             "perilous_places", "protected_places", "flock_together", "tenth_event")]
    parts = [rung_verdicts(bloom_frame(n, policies=(r,) * 4, seed=[rep, k],
                                       seat_bonus=plants[r][0], event_bonus=plants[r][1],
                                       events_only=True).drop(drop), r)
             for k, (r, n) in enumerate(SIZES.items())]
    table, changes = judge(parts, list(SIZES))
    return table, changes, summarise(table, changes, list(SIZES))


def test_equal_effects_on_rungs_of_unequal_size_report_no_change():
    """Seat 0 +1 point (about +8 win-rate points) and event upper_hand +2 points to seat 0
    (about +7) at every rung of 10,000, 10,000, 10,000 and 200 games: both hold at the big
    rungs and cannot at the small one (its minimum detectable effect is about 10 and 20
    points), which is power, not skill. A change is reported (anywhere in the family) in at most
    5% of 40 replications (``FULL_CALIBRATION=1``: 80; 2 and 3 of them measured): the count is
    what a 5% rate gives (a one-sided binomial test at 1% does not reject: it fails at 7 of
    40, 0.3% of the time at a 5% rate, 71% at 20%)."""
    plants = dict.fromkeys(SIZES, ((1, 0, 0, 0), {"upper_hand": 2}))
    reps = 80 if os.environ.get("FULL_CALIBRATION") else 40
    reported = 0
    for rep in range(reps):
        table, changes, summary = replicate(rep, plants)
        reported += changes["changed"].any()
    small = table.filter((pl.col("rung") == "d") & pl.col("verdict").str.starts_with("seat 0"))
    assert small["mde"].item() > 0.08
    assert sp.binom.sf(reported - 1, reps, 0.05) > 0.01, f"{reported} of {reps}"


def test_rungs_that_share_their_luck_are_compared_paired():
    """Two rungs of equal strength on the fake game, whose luck is a function of (seed, game
    index) only, as the engines' decks are: the seats' changes are tested paired on the game
    index, so the shared luck cancels (standard errors about a quarter below the unpaired
    ones) and a change is reported at about the 5% level (40 of 1,000 measured)."""
    import fakegame
    reps = 150
    reported, ratio = 0, []
    for rep in range(reps):
        parts = [rung_verdicts(fakegame.simulate([p] * 4, 3000, rep), p) for p in ("mid", "twin")]
        table, changes = judge(parts, ["mid", "twin"])
        reported += changes["changed"].any()
        se = table.pivot("rung", index="verdict", values="se")
        paired = (changes["ci_high"] - changes["ci_low"]).to_numpy() / (2 * 1.96)
        ratio.append(np.mean(paired / np.hypot(se["mid"], se["twin"]).to_numpy()))
    assert (changes["shared"] == 3000).all()
    assert np.mean(ratio) < 0.85
    assert sp.binom.sf(reported - 1, reps, 0.05) > 0.01, f"{reported} of {reps}"


def test_a_planted_change_is_found():
    """The same plants at 'a' and 'b', gone from 'c' (10,000 games each) and 'd': seat 0's
    edge vanishes between b and c (negligible at c) and the event's change is found, in nearly
    every replication."""
    plants = {"a": ((1, 0, 0, 0), {"upper_hand": 2}), "b": ((1, 0, 0, 0), {"upper_hand": 2}),
              "c": ((0, 0, 0, 0), {}), "d": ((0, 0, 0, 0), {})}
    reps = 15
    seat = event = 0
    for rep in range(100, 100 + reps):
        _, changes, summary = replicate(rep, plants)
        words = dict(summary.select("verdict", "reading").iter_rows())
        seat += words["seat 0: win rate - 1/4"].startswith("vanishes between b and c")
        event += changes.filter(
            (pl.col("verdict") == "event upper_hand: win rate with - without (seat 0)")
            & (pl.col("from") == "b"))["changed"].item()
    assert seat >= reps - 1 and event >= reps - 1


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
    table, _, summary = planted
    wide = skill_table(table, summary, ["weak", "mid", "strong"])
    assert wide.columns == ["verdict", "weak: pct points [95% CI]", "mid: pct points [95% CI]",
                            "strong: pct points [95% CI]", "across the rungs"]
    assert wide.height == summary.height
    row = wide.row(0, named=True)
    assert row["verdict"] == "seat 0: win rate - 1/4"
    assert row["weak: pct points [95% CI]"].startswith("+")
    assert "] holds (MDE " in row["weak: pct points [95% CI]"]
    assert row["across the rungs"].startswith("flips between weak (+) and mid (-)")


@pytest.mark.parametrize("margin", [0.0, 1.0, -0.02])
def test_a_margin_outside_0_1_is_refused_before_anything_is_played(tmp_path, margin):
    from analyses.balance import balance
    with pytest.raises(ValueError, match="margin must be a win-rate difference between 0 and 1"):
        balance(tmp_path / "rep", margin=margin)
    assert not (tmp_path / "rep").exists()


def test_default_rungs_are_the_weakest_and_the_two_strongest_by_rating():
    from analyses.balance import default_rungs
    ratings = pl.DataFrame({"policy": ["a", "b", "c", "d", "e"],
                            "bt_elo": [120.0, 40.0, None, -30.0, -200.0]})
    import types

    import bloomsim
    no_search = types.SimpleNamespace()
    assert default_rungs(ratings, no_search) == ["e", "b", "a"]
    assert default_rungs(ratings.head(2), no_search) == ["b", "a"]
    assert default_rungs(ratings, bloomsim) == ["e", "b", "a", "distilled",
                                                bloomsim.agent.strong]


def test_headline_counts_holds_only_over_the_rungs_where_measured(planted):
    # seat 3 holds at every rung; measured at the weak rung alone it holds there only, and the
    # headline must not count it as holding at all three; changes are named only where tested
    from analyses.report import skill_part
    from analyses.skill import SkillVerdicts
    table, changes, _ = planted
    rungs = ["weak", "mid", "strong"]
    cut = table.filter((pl.col("verdict") != "seat 3: win rate - 1/4")
                       | (pl.col("rung") == "weak"))
    moved = changes.filter(pl.col("verdict") != "seat 3: win rate - 1/4")
    summary = summarise(cut, moved, rungs)
    assert summary.filter(pl.col("verdict") == "seat 3: win rate - 1/4")["measured"].item() == 1
    sv = SkillVerdicts("bloomsim", tuple(rungs), 4000, 4, 0, None, cut, moved, summary,
                       {"seat": 0.05, "event": 0.05, "enchanted": 0.05}, (4000,) * 3)
    headline, body = skill_part(sv)
    held = summary.filter(pl.col("across") == HOLDS)
    full = held.filter(pl.col("measured") == 3).height
    assert f"{held.height} hold at every rung where measured (" in headline
    assert "1 at 1 of 3" in headline
    assert (f"{full} at all 3 rungs" in headline) == (full > 0)
    assert "negligible: within -/+5.0 points" in headline
    assert ("event upper_hand: win rate with - without (seat 0): vanishes between weak and mid"
            in headline)
    assert "holds</i>, is negligible" in body or "<i>negligible</i>" in body
