"""The search figures: iterations/s per core are counted from the decisions actually timed,
and the OpenSpiel peer rows are left out cleanly where OpenSpiel is absent. No timing is
asserted."""
import numpy as np
import pytest

from benchmarks import agents, peer
from benchmarks.__main__ import parser, run
from benchmarks.report import markdown
from simcore import search as SR


@pytest.mark.parametrize("algo, iterations, worlds", [
    ("ismcts", 100, 8), ("flat", 37, 8), ("pimc", 100, 8), ("pimc", 8, 8), ("pimc", 1000, 3)])
def test_iterations_per_decision_are_those_the_search_loop_runs(algo, iterations, worlds):
    agent = SR.Agent(algo, iterations, "random", determinizations=worlds)
    params = np.zeros(SR.AGENT_WORDS, np.int64)
    params[SR.A_ALGO], params[SR.A_ITER], params[SR.A_DETS] = (SR.ALGOS.index(algo),
                                                               iterations, worlds)
    g = np.zeros(SR.region_words(params, 4), np.int64)
    SR.begin(g, 0, params, 4, 1)
    ran = 0
    while SR.next_iteration(g, 0):      # each iteration credited at once, its path empty
        SR.end_iteration(g, 0, np.zeros(2), np.zeros(2, np.int64), 2)
        ran += 1
    assert ran == agent.iterations_per_decision
    assert agent.iterations_per_decision == (96 if (algo, iterations) == ("pimc", 100)
                                             else 999 if worlds == 3 else iterations)


def test_iterations_per_core_count_every_timed_decision_over_its_thread_time(monkeypatch):
    clock = [0.0]
    calls = []

    def search(position, i):           # a decision of 10 ms of the thread's CPU
        calls.append((position, i))
        clock[0] += 0.01

    monkeypatch.setattr(agents.time, "thread_time", lambda: clock[0])
    rec = agents.time_searches(search, ["a", "b", "c"], iterations=50, reps=2)
    assert calls[0] == ("a", 0)                               # the untimed first call
    assert calls[1:] == [("a", 0), ("b", 1), ("c", 2)] * 2
    assert rec["timed_iterations"] == 50 * 3 * 2 == 50 * (len(calls) - 1)
    assert rec["positions"] == 3 and rec["reps"] == 2 and rec["iterations_per_decision"] == 50
    assert rec["iterations_per_cpu_s"] == pytest.approx(50 / 0.01)
    assert rec["decisions_per_s"] == pytest.approx(1 / rec["decision_s"])


def test_without_open_spiel_the_peer_rows_are_skipped_with_one_note(monkeypatch):
    monkeypatch.setattr(peer, "available", lambda: False)
    res = run(parser().parse_args(["--smoke", "--sections", "peer"]), "test")
    assert res["peer"] is None and res["peer_search"] == []
    assert [n for n in res["notes"] if n.startswith("peer:")] == [
        "peer: open_spiel is not installed (install the project's extra: "
        "pip install '.[peers]'); OpenSpiel hearts and ISMCTS skipped"]
    text = markdown(res)
    assert "(peer)" not in text and "## Search agents" not in text
    rates = [g for g in res["goals"] if "search iterations/s per core" in g["goal"]]
    assert rates and all(g["figure"] == "not measured" for g in rates)
