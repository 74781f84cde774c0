import json

import pytest

from benchmarks import agents, goals, ledger, throughput
from benchmarks.__main__ import main
from benchmarks.plan import GOAL_PLAYERS, PLANS
from benchmarks.report import markdown, plot
from benchmarks.stats import summary
from benchmarks.throughput import Config
from benchmarks.userpolicy import NAME as USER_POLICY


def test_summary_is_median_min_max():
    assert summary("x", [3.0, 1.0, 10.0]) == {"x": 3.0, "x_min": 1.0, "x_max": 10.0}
    with pytest.raises(ValueError, match="no measurements of x"):
        summary("x", [])


def test_time_config_counts_games_and_decisions_of_the_same_games(fake_game):
    cfg = Config("bloomsim", "compiled", "random", 4, 1, 100)
    rec, df = throughput.time_config(fake_game.engine.simulate, cfg, ["random"] * 4, 7, reps=3,
                                     min_rep_s=0)
    assert df.height == 400 and rec["reps"] == 3 and len(rec["seconds_per_call"]) == 3
    assert rec["decisions_per_game"] == 12.0   # 10 + (g + 7) % 5 over 100 games averages 12
    assert rec["games_per_s_min"] <= rec["games_per_s"] <= rec["games_per_s_max"]
    assert rec["decisions_per_s"] == pytest.approx(12 * rec["games_per_s"])
    assert rec["games_per_cpu_s"] > 0
    assert fake_game.engine.calls[0] == ("compiled", 4, 10, 1)   # the untimed warm-up


def test_goal_ratios_are_timed_side_by_side_in_turns(fake_game):
    # 1 -> 2 threads and a heuristic's slowdown are ratios: at the goal's player count every
    # thread count (and at the sweep batch every policy) of a batch size take turns, so a burst
    # of load hits them alike
    plan = PLANS["quick"]
    cs = throughput.configs(fake_game, plan, ["random", "slowpoke"])
    groups = throughput.side_by_side(cs)
    together = [g for g in groups if g[0].n_players == GOAL_PLAYERS]
    assert [g[0].batch for g in together] == sorted({*plan.batches, plan.sweep_batch})
    for g in together:
        policies = {"random", "slowpoke"} if g[0].batch == plan.sweep_batch else {"random"}
        assert set(g) == {Config(g[0].game, "compiled", p, GOAL_PLAYERS, t, g[0].batch)
                          for p in policies for t in plan.threads}
    assert all(len(g) == 1 for g in groups if g[0].n_players != GOAL_PLAYERS)
    assert sorted((c for g in groups for c in g), key=cs.index) == cs
    cfgs = [Config("bloomsim", "compiled", "random", 4, 1, 100),
            Config("bloomsim", "compiled", "random", 2, 1, 50)]
    out = throughput.time_configs(fake_game.engine.simulate, cfgs, [["random"] * 4,
                                  ["random"] * 2], 7, reps=2, min_rep_s=0)
    assert [r["n_players"] for r, _ in out] == [4, 2] and out[1][1].height == 100
    timed = [c[1] for c in fake_game.engine.calls[2:]]     # after the two warm-ups
    assert timed == [4, 2, 4, 2]


def test_configs_sweep_batches_players_and_policies_without_duplicates(fake_game):
    plan = PLANS["quick"]
    cs = throughput.configs(fake_game, plan, ["random", "slowpoke"])
    assert len(cs) == len(set(cs))
    assert [c.batch for c in cs] == sorted(c.batch for c in cs)
    assert {c.n_players for c in cs} == {2, 3, 4, 5}
    assert {c.batch for c in cs if c.policy == "slowpoke"} == {plan.sweep_batch}
    assert {c.threads for c in cs} == set(plan.threads)


def test_benchmark_times_every_config_and_the_reference_on_the_same_games(fake_game):
    records, notes = throughput.benchmark(fake_game, PLANS["smoke"], lambda line: None)
    engines = {r["engine"] for r in records}
    assert engines == {"compiled", "reference"} and notes == []
    assert {r["policy"] for r in records} == {"random", "slowpoke", USER_POLICY}
    ref = next(r for r in records if r["engine"] == "reference")
    assert ref["threads"] == 1 and ref["batch"] <= PLANS["smoke"].ref_games


def _results(**over):
    """A small synthetic run: bloomsim only, figures chosen to hit each branch of the goals."""
    base = {"game": "bloomsim", "engine": "compiled", "policy": "random",
            "n_players": GOAL_PLAYERS, "reps": 3, "decisions_per_game": 50.0, "load": 0.5}

    def rec(threads, batch, gps, **kw):
        r = dict(base, threads=threads, batch=batch, **kw)
        r.update(summary("games_per_s", [gps * 0.9, gps, gps * 1.1]))
        r.update(summary("decisions_per_s", [50 * gps * 0.9, 50 * gps, 50 * gps * 1.1]))
        r.update(summary("games_per_cpu_s", [gps / threads] * 3))
        return r

    res = {
        "command": "python -m benchmarks --test", "mode": "quick", "seed": 1,
        "started_utc": "2026-11-30 00:00", "wall_s": 10.0, "load_start": 0.1, "load_end": 0.2,
        "games": ["bloomsim"], "notes": ["a note"],
        "machine": {"cpu": "Test CPU", "cores": 2, "numba_threads": 2, "memory_gb": 8,
                    "python": "3.11", "versions": {"numba": "0.68"}, "commit": "abc"},
        "throughput": [rec(1, 1000, 50_000), rec(2, 1000, 95_000),
                       rec(1, 100_000, 60_000), rec(2, 100_000, 120_000),
                       rec(2, 100_000, 30_000, policy="slowpoke"),
                       rec(1, 100_000, 45_000, policy="slowpoke"),
                       rec(1, 100_000, 15_000, policy="distilled"),
                       rec(2, 100_000, 1_000, policy=USER_POLICY),
                       rec(1, 50, 400, engine="reference")],
        "startup": [dict(game="bloomsim", kind=k, reps=1, load=0.1,
                         **summary("first_result_s", [s]), **summary("process_s", [s + 0.2]),
                         **summary("user_policy_compile_s", [0.1]),
                         **summary("user_first_result_s", [0.2]))
                    for k, s in (("cold", 40.0), ("warm", 1.5))],
        "memory": [{"game": "bloomsim", "n_games": 200_000, "peak_rss_mb": 900.0,
                    "base_rss_mb": 300.0, "half_peak_rss_mb": 880.0, "games_per_s": 1e5,
                    "parquet_mb": 5.0, "load": 0.3}],
        "peer": None,
    }
    res.update(over)
    res["goals"] = goals.evaluate(res)
    return res


def test_goals_report_each_figure_and_verdict():
    by = {(g["goal"], g["target"]): g for g in _results()["goals"]}
    assert len(by) == 12
    speed = by[("Broom Service, 4 random players", ">= 100,000 games/s")]
    assert speed["passed"] and speed["value"] == 120_000
    ratio = by[("Broom Service, 4 random players", ">= 100x the reference (1 thread each)")]
    assert ratio["value"] == 150 and ratio["passed"]
    heur = by[("Broom Service, strongest heuristic", "within 3x of random")]
    assert heur["value"] == 4 and heur["passed"] is False and "slowpoke" in heur["figure"]
    dist = by[("Broom Service, distilled policy",
               ">= 20,000 games/s per core, within 3x of the heuristics")]
    assert dist["value"] == 15_000 and dist["passed"] is False
    assert "3.00x slower than slowpoke" in dist["figure"]
    threads = by[("Broom Service, 1 -> 2 threads", ">= 1.8x")]
    assert threads["value"] == 2 and "per CPU-second 100% of 1 thread's" in threads["figure"]
    assert by[("Broom Service, cold start to first result", "<= 30 s")]["passed"] is False
    assert by[("Broom Service, warm start to first result", "<= 2 s")]["passed"] is True
    mem = by[("Broom Service, 10M games streamed to Parquet", "<= 2 GB resident")]
    assert mem["passed"] is None and "200,000 games" in mem["figure"]   # too small to judge
    peer = by[("Broom Service vs OpenSpiel hearts from Python",
               ">= 10x its decisions/s per core")]
    assert peer["passed"] is None and peer["figure"] == "not measured"
    search = by[("Broom Service, one ISMCTS-1000 seat and 3 heuristic seats",
                 "<= 1 s per game on 1 thread")]
    assert search["passed"] is None and search["figure"] == "not measured"


def test_goal_against_the_peer_uses_one_thread_decisions():
    peer = {"decisions_per_s": 100_000.0}
    g = next(g for g in goals.evaluate(_results(peer=peer)) if "OpenSpiel" in g["goal"])
    assert g["value"] == pytest.approx(30.0) and g["passed"]   # 50 * 60,000 / 100,000


def _agent(**kw) -> dict:
    """An agents-section record of ISMCTS-1000 in Broom Service."""
    return {"game": "bloomsim", "agent": "ismcts-1000", "decisions_per_s": 50.0, "load": 0.5,
            **summary("iterations_per_cpu_s", [40_000.0, 50_000.0, 60_000.0]), **kw}


def _peer_search(bot: str, rate: float) -> dict:
    return {"game": "open_spiel leduc_poker", "bot": bot, "class": f"{bot}.ISMCTSBot",
            "agent": "ismcts-1000", "version": "2.0.2", "decisions_per_s": rate / 1000,
            "load": 0.5, **summary("iterations_per_cpu_s", [rate])}


def test_search_goals_read_the_agents_section():
    agents = [{**_agent(),
               "threads_1": {"games": 2, "s_per_game": 1.25, "games_per_s": 0.8},
               "threads_2": {"games": 4, "s_per_game": 0.7, "games_per_s": 1.5,
                             "scaling": 1.85, "wall_scaling": 1.79}}]
    by = {g["goal"]: g for g in goals.evaluate(_results(agents=agents))}
    one = by["Broom Service, one ISMCTS-1000 seat and 3 heuristic seats"]
    assert one["value"] == 1.25 and one["passed"] is False and "1.25 s per game" in one["figure"]
    two = by["Broom Service, ISMCTS-1000 games from 1 to 2 threads"]
    assert two["value"] == 1.85 and two["passed"] is True and "1.79x wall" in two["figure"]
    rate = by["Broom Service, ISMCTS-1000 search iterations/s per core"]
    assert rate["value"] == 50_000 and rate["passed"] is None and rate["figure"] == "50,000"


def test_search_rate_stands_beside_open_spiel_ismcts_in_goals_and_tables():
    peers = [_peer_search("C++", 400_000.0), _peer_search("Python", 15_000.0)]
    res = _results(agents=[_agent()], peer_search=peers)
    rate = next(g for g in res["goals"] if "iterations/s per core" in g["goal"])
    assert rate["figure"] == "50,000 (OpenSpiel ISMCTS, leduc poker: C++ 400,000, Python 15,000)"
    assert rate["figure"] in [g["figure"] for g in ledger.entry(res)["goals"]]   # --record
    text = markdown(res)
    assert "| bloomsim | ismcts-1000 | 50.0 | 50,000 (40,000-60,000) |" in text
    assert ("| open_spiel leduc_poker (peer) | ismcts-1000, Python (`Python.ISMCTSBot`) | 15.0 "
            "| 15,000 (15,000-15,000) |") in text
    assert "The games differ: leduc poker" in text


def test_busy_games_are_those_that_ended_before_a_thread_went_idle():
    # two threads: games 0 and 1 start at once; 2 starts when 0 ends; 1 ends, no game is left
    spans = [(0.0, 1.0), (0.0, 1.5), (1.0, 2.2)]
    assert agents.busy(spans, 2) == [True, True, False]
    assert agents.busy(spans[:2], 2) == [True, False]
    assert agents.busy(spans, 1) == [True, True, True]


def test_report_tables_and_plot(tmp_path):
    res = _results()
    text = markdown(res)
    assert "| Broom Service, 4 random players | >= 100,000 games/s | 120,000 games/s" in text
    assert "**FAIL**" in text and "- a note" in text
    plot(res, tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 1000
    json.dumps(res)   # the results file is plain JSON


@pytest.mark.parametrize("argv, message", [
    (["--reps", "0"], "--reps: expected a positive integer"),
    (["--games", "chess"], "invalid choice: 'chess'"),
    (["--quick", "--smoke"], "not allowed with argument"),
    (["--json", "/no/such/folder/x.json"], "not a file in an existing folder"),
])
def test_bad_arguments_get_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err and err.count("\n") == 1
