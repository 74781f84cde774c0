"""The fresh-interpreter measurements, run on a tiny fake engine module put on PYTHONPATH."""
import dataclasses

import pytest

from benchmarks import isolated
from benchmarks.plan import PLANS, Game

FAKE = '''
import os
import numpy as np
from simcore.results import frame

POLICIES = {"random": 0}


def simulate(policies, n_games, seed, *, engine="compiled", threads=None, progress=None,
             out=None):
    names = [p if isinstance(p, str) else p.name for p in policies]
    df = frame(0, names, {"rank": np.ones((n_games, len(policies)), np.int8)},
               {"decisions": np.full(n_games, 10, np.int32)})
    if out is None:
        return df
    os.makedirs(out)
    df.write_parquet(os.path.join(out, "part-000000.parquet"))
'''


@pytest.fixture
def fake_module(tmp_path, monkeypatch):
    (tmp_path / "fakeengine.py").write_text(FAKE)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    return Game("fakeengine", "Fake")


def test_startup_cold_then_warm_in_fresh_interpreters(fake_module):
    plan = dataclasses.replace(PLANS["smoke"], cold_reps=1, warm_reps=2)
    cold, warm = isolated.startup(fake_module, plan)
    assert (cold["kind"], cold["reps"], warm["kind"], warm["reps"]) == ("cold", 1, "warm", 2)
    for rec in (cold, warm):
        assert 0 < rec["first_result_s"] < rec["process_s"]
        assert rec["user_policy_compile_s"] > 0 and rec["user_first_result_s"] > 0


def test_startup_without_cold_runs_fills_the_inherited_cache_first(fake_module):
    (rec,) = isolated.startup(fake_module, PLANS["smoke"])
    assert rec["kind"] == "warm" and rec["reps"] == 1


def test_memory_reports_peak_rss_and_parquet_size(fake_module):
    rec = isolated.memory(fake_module, dataclasses.replace(PLANS["smoke"], memory_games=5000))
    assert rec["n_games"] == 5000 and rec["parquet_mb"] > 0
    assert rec["peak_rss_mb"] >= rec["half_peak_rss_mb"] >= rec["base_rss_mb"] > 10


def test_a_failing_child_raises_with_its_error(fake_module):
    with pytest.raises(RuntimeError, match="No module named 'nosuchengine'"):
        isolated.child(["first-result", "nosuchengine", 1])
