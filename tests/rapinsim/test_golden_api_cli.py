"""Golden transcripts (REGEN_GOLDEN=1 rewrites them), the API's bad input, the CLI."""
import os
import re
from pathlib import Path

import polars as pl
import pytest

import rapinsim
from rapinsim import cli, policy, replay, simulate

GOLDEN = Path(__file__).parent / "golden"
GAMES = {
    "four_players": (["careful", "greedy", "random", "random"], 1, 0, None, {}),
    "inaba_vs_lapin": (["greedy", "careful"], 2, 3, ["inaba", "lapin"], {}),
    "six_players": (["random", "careful", "greedy", "random", "careful", "greedy"], 3, 1, None,
                    {}),
    # the other readings: characters dealt at random, the disguise a free reaction, the
    # whistle holding Rize, the chest no treasure for others
    "draw_reaction": (["greedy", "careful", "greedy", "careful", "random"], 4, 2, None,
                      dict(character_selection="draw", disguise="reaction", whistle_steps=0,
                           chest_counts_for_others=False)),
    "keeper_and_evader": (["keeper", "evader", "careful", "random"], 4, 2,
                          ["inaba", "aoyama", "cocoa", "chiya"], {}),
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_transcripts(name):
    policies, seed, game, chars, options = GAMES[name]
    rules = rapinsim.load_rules().replace(**options) if options else None
    text = replay(policies, seed, game, characters=chars, rules=rules)
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("REGEN_GOLDEN") == "1":
        path.write_text(text)
    assert text == path.read_text()


def test_simulate_frame_columns_follow_the_schema():
    df = simulate(["random", "careful"], 20, 0, progress=False)
    assert df.columns[:4] == ["game", "seat", "policy", "character"]
    assert df.schema["win"] == pl.Float32 and df.schema["rank"] == pl.Int8
    assert df.schema["treasures"] == pl.Int8 and df.schema["stalled"] == pl.Boolean
    for col in ("trap_alarm", "item_map", "skill_turn", "searches_d10", "found_d1", "turns",
                "dawn", "rize_start", "tiles_lost", "decisions", "n_players", "chest"):
        assert col in df.columns
    assert df.group_by("game").agg(pl.col("character").n_unique())["character"].min() == 2


def test_reference_engine_frame_equals_compiled():
    a = simulate(["greedy", "random", "careful"], 6, 4, progress=False)
    b = simulate(["greedy", "random", "careful"], 6, 4, engine="reference", progress=False)
    assert a.equals(b)


def test_out_streams_parquet(tmp_path):
    lf = simulate(["random", "random"], 50, 1, out=tmp_path / "res", progress=False)
    assert lf.collect().equals(simulate(["random", "random"], 50, 1, progress=False))


@pytest.mark.parametrize("kw, match", [
    (dict(policies=["random"]), "2 to 6 players, but 1"),
    (dict(policies=["random"] * 7), "2 to 6 players, but 7"),
    (dict(policies=["random", "clever"]), "unknown policy 'clever'"),
    (dict(characters=["lapin"]), "1 given for 2 seats"),
    (dict(characters=["lapin", "lapin"]), "distinct"),
    (dict(characters=["lapin", "rize"]), "unknown character 'rize'"),
    (dict(engine="gpu"), "engine must be"),
    (dict(n_games=0), "n_games must be a positive integer"),
    (dict(seed=-1), "seed must be a non-negative integer"),
    (dict(threads=99), "threads must be"),
    (dict(rules=42), "rules must be"),
])
def test_bad_input_is_a_clear_value_error(kw, match):
    args = dict(policies=["random", "random"], n_games=2, seed=0)
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        simulate(args.pop("policies"), args.pop("n_games"), args.pop("seed"), progress=False,
                 **args)


@policy("always_last")
def always_last(kind, obs, opts, n_opts, rng):
    return n_opts                                      # one past the end: illegal


@policy("first_option")
def first_option(kind, obs, opts, n_opts, rng):
    return 0


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_illegal_user_choice_names_policy_seat_and_decision(engine):
    with pytest.raises(ValueError, match=r"'always_last' at seat 1 .*illegal choice \d+ for "
                                         r"decision 'place'"):
        simulate(["random", always_last], 3, 0, engine=engine, progress=False,
                 characters=["lapin", "cocoa"])
    with pytest.raises(ValueError, match=r"'always_last' at seat 1 .*illegal choice \d+ for "
                                         r"decision 'character'"):
        simulate(["random", always_last], 3, 0, engine=engine, progress=False)


def test_user_policy_plays_in_both_engines_alike():
    a = simulate([first_option, "careful", first_option], 5, 9, progress=False)
    b = simulate([first_option, "careful", first_option], 5, 9, engine="reference",
                 progress=False)
    assert a.equals(b) and a["policy"].cast(pl.String)[0] == "first_option"


def test_cli_simulate_replay_rules_and_errors(capsys, tmp_path):
    assert cli.main(["simulate", "--policy", "random", "careful", "--games", "200", "--seed",
                     "1", "--character", "lapin", "chiya"]) == 0
    out = capsys.readouterr().out
    assert "careful" in out and "Lapin (ラパン)" in out and "95% Wilson" in out
    assert cli.main(["replay", "--policy", "random", "greedy", "--seed", "1", "--game",
                     "2"]) == 0
    assert "Rize starts" in capsys.readouterr().out
    assert cli.main(["rules"]) == 0
    out = capsys.readouterr().out
    # each value with its provenance tag (rapinsim/data/provenance.json)
    for name, tag in (("route", "invention"), ("coffee_ends_turn", "reading"),
                      ("character_selection", "seed"), ("disguise", "gap"),
                      ("whistle_steps", "invention"), ("chest_counts_for_others", "gap"),
                      ("found_ends_turn", "gap"), ("pitfall_skips", "gap"),
                      ("characters", "invention")):
        assert re.search(rf"^{name} .*\[{tag}\] ", out, re.M), name
    assert "  characters.cocoa [invention]" in out
    assert cli.main(["simulate", "--policy", "random", "--games", "5", "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rapinsim: error:") and err.count("\n") == 1
    bad = tmp_path / "r.json"
    bad.write_text('{"board": {"route": [1, 2]}}')
    assert cli.main(["rules", "--rules", str(bad)]) == 2
    assert "route" in capsys.readouterr().err


def test_cli_user_policy_from_a_script(capsys):
    script = Path(__file__).parents[2] / "examples" / "rapinsim_user_policy.py"
    assert cli.main(["simulate", "--policy", f"{script}:cautious", "random", "--games", "50",
                     "--seed", "2"]) == 0
    assert "cautious" in capsys.readouterr().out


def test_package_exports():
    assert set(rapinsim.__all__) >= {"simulate", "replay", "load_rules", "Rules", "POLICIES",
                                     "policy"}
    assert {"random", "careful", "greedy"} <= set(rapinsim.POLICIES)
