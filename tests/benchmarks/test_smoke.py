"""The whole harness end to end on both real engines, at tiny sizes (``--smoke``).

No timing is asserted: the machine is shared and CI is noisy. What is checked is that every
section runs and that the results file carries every figure the goals need.
"""
import json
import subprocess
import sys

from benchmarks.plan import PLANS


def test_smoke_run_writes_every_figure(tmp_path):
    out, png, md = tmp_path / "r.json", tmp_path / "r.png", tmp_path / "r.md"
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--smoke", "--json", str(out),
                           "--plot", str(png), "--markdown", str(md)],
                          capture_output=True, text=True, timeout=1800, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(out.read_text())
    assert res["mode"] == "smoke" and res["games"] == ["bloomsim", "rapinsim"]
    for game in res["games"]:
        runs = [r for r in res["throughput"] if r["game"] == game]
        assert {r["engine"] for r in runs} == {"compiled", "reference"}
        assert all(r["games_per_s"] > 0 and r["decisions_per_s"] > 0 for r in runs)
        assert [r["kind"] for r in res["startup"] if r["game"] == game] == ["warm"]
        assert [r["n_games"] for r in res["memory"] if r["game"] == game] == [2_000]
        recs = [r for r in res["agents"] if r["game"] == game]
        assert [r["agent"] for r in recs] == ["flat-8", "pimc-8", "ismcts-8"]
        assert all(r["decisions_per_s"] > 0 for r in recs)
        budget = PLANS["smoke"].agent_budgets[0]        # pimc-8 too: 8 worlds of 1 iteration
        assert all(r["timed_iterations"] == budget * r["positions"] * r["reps"]
                   and r["iterations_per_cpu_s"] > 0 for r in recs)
        timed = [recs[-1][k] for k in ("threads_1", "threads_2") if k in recs[-1]]
        assert timed and all(g["games"] == PLANS["smoke"].agent_games for g in timed)
        assert all(g["s_per_game"] > 0 and 0 <= g["agent_win"] <= 1 for g in timed)
        assert all(g["scaling"] > 0 and g["wall_scaling"] > 0 for g in timed)
        assert len({g["agent_win"] for g in timed}) == 1     # the same games on every count
    assert "## Search agents" in md.read_text()
    assert not any(n.startswith("WARNING") for n in res["notes"]), res["notes"]
    measured = [g for g in res["goals"] if g["value"] is not None]
    assert len(measured) >= 10   # all but cold start, memory at 10M and maybe the peer
    assert png.stat().st_size > 1000 and "## Goals" in md.read_text()
    assert "## Goals" in proc.stdout

