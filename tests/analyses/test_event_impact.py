"""Event impact: planted effects are recovered, null effects are not flagged beyond the rate
the adjustment promises, and the counterfactual mode measures cause on paired games."""
import numpy as np
import polars as pl
import pytest

import fakegame
from analyses import counterfactual_impact, event_impact
from synth import BLOOM_EVENTS, BLOOM_ROLES, bloom_frame, rapin_frame


def test_planted_event_effect_is_recovered():
    df = bloom_frame(20000, event_bonus={"upper_hand": 4}, seed=11)
    t = event_impact(df)
    assert set(t["kind"]) == {"event", "enchanted"}
    assert set(t.filter(pl.col("kind") == "event")["thing"]) == set(BLOOM_EVENTS)
    assert set(t.filter(pl.col("kind") == "enchanted")["thing"]) == set(BLOOM_ROLES)
    assert t["by"].unique().to_list() == ["seat"]  # one policy: grouped by seat
    row = t.filter((pl.col("thing") == "upper_hand") & (pl.col("group") == "0")).row(0, named=True)
    assert row["score_ci_low"] < 4 < row["score_ci_high"]   # the planted +4 points
    assert row["win_ci_low"] > 0.05 and row["p_win_adj"] < 1e-6
    assert row["games_with"] + row["games_without"] == 20000
    top = t.sort(pl.col("win_diff").abs(), descending=True).row(0, named=True)
    assert (top["thing"], top["group"]) == ("upper_hand", "0")
    # the other seats lose what seat 0 gains
    others = t.filter((pl.col("thing") == "upper_hand") & (pl.col("group") != "0"))
    assert (others["win_ci_high"] < 0).all()


def test_null_effects_flagged_no_more_than_holm_promises():
    # 20 data sets without any planted effect, 80 rows each: Holm keeps the chance of any
    # adjusted p < 0.05 in a data set at 5%, so about 1 of 20; allow 3 (fixed seeds)
    flagged, raw = 0, []
    for i in range(20):
        t = event_impact(bloom_frame(3000, seed=200 + i))
        flagged += int((t["p_win_adj"] < 0.05).any() or (t["p_score_adj"] < 0.05).any())
        raw.append(t["p_win"].to_numpy())
    assert flagged <= 3
    assert np.mean(np.concatenate(raw) < 0.05) < 0.08  # raw p-values near their 5%


def test_rapinsim_seat_level_things_and_planted_item():
    df = rapin_frame(20000, policies=("a", "b", "a", "b"), item_bonus={"lamp": 1}, seed=12)
    t = event_impact(df)
    assert set(t["kind"]) == {"item", "trap", "character", "found"}
    assert t["group"].unique().to_list() == ["all"]
    # found ~ Poisson(0.5): quartiles 0, 0, 1 -> one split, found at least once
    assert t.filter(pl.col("kind") == "found")["thing"].to_list() == ["1+ times"]
    assert (t["games_with"] > 0).all() and (t["games_without"] > 0).all()
    lamp = t.filter(pl.col("thing") == "lamp").row(0, named=True)
    assert lamp["score_ci_low"] < 1 < lamp["score_ci_high"]
    assert lamp["p_win_adj"] < 1e-6
    rest = t.filter(pl.col("thing") != "lamp")
    assert (rest["p_score_adj"] > 0.05).all()


def test_by_policy_when_several_policies_and_explicit_by():
    df = bloom_frame(2000, policies=("p", "q", "p", "q"), seed=3)
    assert event_impact(df)["by"].unique().to_list() == ["policy"]
    assert set(event_impact(df, by="seat")["group"]) == {"0", "1", "2", "3"}
    assert event_impact(df, adjust="bh")["p_win_adj"].min() >= 0


def test_counterfactual_measures_cause_on_the_same_games():
    variants = [("policy", "strong", "plays as weak", {"strong": 0.0}),
                ("policy", "nothing", "no change", {})]
    t = counterfactual_impact(fakegame, ["strong", "weak", "mid"], 3000, 5, variants=variants)
    strong = t.filter((pl.col("thing") == "strong")
                      & (pl.col("group") == "strong")).row(0, named=True)
    assert strong["win_ci_low"] > 0.1 and strong["p_win_adj"] < 1e-6
    assert strong["games"] == 3000
    # switching nothing off replays exactly the same games: no difference at all
    same = t.filter(pl.col("thing") == "nothing")
    assert (same["win_diff"] == 0).all() and (same["score_diff"] == 0).all()
    assert (same["p_win"] == 1.0).all()     # the same (no) change in every game: sign test


def test_counterfactual_reuses_games_already_played_as_its_base():
    variants = [("policy", "strong", "plays as weak", {"strong": 0.0})]
    table = ["strong", "weak", "mid"]
    played = counterfactual_impact(fakegame, table, 500, 5, variants=variants)
    base = fakegame.simulate(table, 800, 5).filter(pl.col("game") < 500)
    assert counterfactual_impact(fakegame, table, 500, 5, variants=variants,
                                 base=base).equals(played)
    with pytest.raises(ValueError, match="base must hold games 0..599"):
        counterfactual_impact(fakegame, table, 600, 5, variants=variants, base=base)


def test_counterfactual_needs_a_game_it_knows_or_variants():
    with pytest.raises(ValueError, match="variants"):
        counterfactual_impact(fakegame, ["strong", "weak"], 10, 0)


def test_switch_offs_of_the_real_rules_remove_each_thing():
    bloomsim = pytest.importorskip("bloomsim")
    rapinsim = pytest.importorskip("rapinsim")
    from analyses import switch_offs
    bloom = switch_offs(bloomsim, events="remove")
    base = bloomsim.load_rules()
    assert [name for k, name, _, _ in bloom if k == "event"] == list(base.event_ids)
    assert [name for k, name, _, _ in bloom if k == "enchanted"] == list(base.role_ids)
    for kind, name, _, rules in bloom:
        if kind == "event":
            assert name not in rules.event_ids
            assert len(rules.event_ids) == len(base.event_ids) - 1
        else:                                       # the role is left out of the deck only
            assert name not in rules.enchanted_deck and name in rules.role_ids
            assert len(rules.enchanted_deck) == len(base.role_ids) - 1
    # 5 players: no enchanted roles, so nothing of them to switch off
    assert {k for k, _, _, _ in switch_offs(bloomsim, players=5)} == {"event"}
    assert {k for k, _, _, _ in switch_offs(bloomsim, players=4)} == {"event", "enchanted"}
    lapin = switch_offs(rapinsim)
    kinds = {(k, n) for k, n, _, _ in lapin}
    assert ("item", "lamp") in kinds and ("trap", "alarm") in kinds
    assert ("character", "inaba") in kinds and ("found", "by Rize") in kinds
    for kind, name, _, rules in lapin:
        if kind == "item":
            assert rules.items[name] == 0 and rules.n_tiles == rapinsim.load_rules().n_tiles
        if kind == "character":
            assert name not in rules.characters
        assert rules.rize_finds == (kind != "found")
    # a character leaves the roster only where the rest still seat the players
    seated = rapinsim.load_rules().replace(characters=("inaba", "chimame", "aoyama"))
    assert {k for k, _, _, _ in switch_offs(rapinsim, seated, players=2)} >= {"character"}
    assert "character" not in {k for k, _, _, _ in switch_offs(rapinsim, seated, players=3)}


def test_counterfactual_rows_for_enchanted_roles_and_being_found():
    bloomsim = pytest.importorskip("bloomsim")
    rapinsim = pytest.importorskip("rapinsim")
    from analyses import switch_offs
    roles = [v for v in switch_offs(bloomsim, players=3) if v[0] == "enchanted"][:2]
    t = counterfactual_impact(bloomsim, ["greedy", "random", "greedy"], 200, 3,
                              variants=roles)
    assert set(t["thing"]) == {v[1] for v in roles} and set(t["group"]) == {"greedy", "random"}
    assert (t["score_diff"] != 0).any()           # other roles are enchanted in its place
    found = [v for v in switch_offs(rapinsim) if v[0] == "found"]
    t = counterfactual_impact(rapinsim, ["careful", "greedy"], 200, 3, variants=found)
    assert t["thing"].to_list() == ["by Rize"] * 2 and (t["win_diff"] != 0).any()


def test_an_event_card_replaced_in_place_leaves_every_other_draw_unchanged():
    bloomsim = pytest.importorskip("bloomsim")
    from analyses import switch_offs
    from bloomsim.game import REMOVED, REPLACED
    replaced = [v for v in switch_offs(bloomsim) if v[0] == "event"]
    # every card but the empty tenth, which has no effect to switch off
    assert [v[1] for v in replaced] == [e for e in bloomsim.load_rules().event_ids
                                        if e != "tenth_event"]
    assert {v[2] for v in replaced} == {REPLACED}
    both = [v[2] for v in switch_offs(bloomsim, events="both") if v[0] == "event"]
    assert both == [REPLACED, REMOVED] * 9 + [REMOVED]
    table = ["greedy", "cloud", "careful", "random"]
    base = bloomsim.simulate(table, 300, 5, progress=False)
    _, name, _, rules = next(v for v in replaced if v[1] == "upper_hand")
    assert rules.event_ids == bloomsim.load_rules().event_ids     # same deck, same order
    off = bloomsim.simulate(table, 300, 5, rules=rules, progress=False)
    drawn = [c for c in base.columns if c.startswith(("event_", "enchanted_"))]
    assert off.select(drawn).equals(base.select(drawn))           # every draw as it was
    without = pl.col("event_upper_hand") == 0
    assert off["rules"][0] != base["rules"][0]                    # the rows say their rules
    off, base = off.drop("rules"), base.drop("rules")
    assert off.filter(without).equals(base.filter(without))       # games without it: the same
    assert not off.filter(~without).equals(base.filter(~without))  # with it: the card mattered
    with pytest.raises(ValueError, match="events must be one of"):
        switch_offs(bloomsim, events="drop")


def _pair(a: pl.DataFrame, b: pl.DataFrame) -> pl.DataFrame:
    return pl.concat([a.with_columns(variant=pl.lit("A")), b.with_columns(variant=pl.lit("B"))])


def test_paired_impact_recovers_a_planted_change_and_pairing_cancels_the_luck():
    from analyses.event_impact import paired_impact
    a = rapin_frame(3000, seed=5)
    b = rapin_frame(3000, seed=5, item_bonus={"lamp": 2})   # the same games, +2 to lamp users
    t = paired_impact(_pair(a, b), "A", "B")
    lamp = t.filter((pl.col("thing") == "lamp") & (pl.col("measure") == "score")).row(0, named=True)
    assert lamp["games"] == 3000 and lamp["by"] == "all"
    assert lamp["diff"] == pytest.approx(2.0) and lamp["b"] - lamp["a"] == pytest.approx(2.0)
    # the same luck under both rules: the paired interval is far narrower than either impact's
    assert lamp["ci_high"] - lamp["ci_low"] < 0.05 and lamp["p"] < 1e-6
    win = t.filter((pl.col("thing") == "lamp") & (pl.col("measure") == "win"))
    assert win["ci_low"][0] > 0
    same = paired_impact(_pair(a, a), "A", "B")
    assert (same["diff"] == 0).all()


def test_paired_impact_intervals_cover_a_null_difference_at_their_rate():
    """Rules A and B with independent luck and no difference: the 95% intervals of every
    impact cover 0 about 95% of the time."""
    from analyses.event_impact import paired_impact
    covered = total = 0
    for seed in range(60):
        t = paired_impact(_pair(rapin_frame(400, seed=seed),
                                rapin_frame(400, seed=10_000 + seed)), "A", "B")
        covered += ((t["ci_low"] <= 0) & (t["ci_high"] >= 0)).sum()
        total += t.height
    assert total > 60 * 10 and 0.92 <= covered / total <= 0.98
