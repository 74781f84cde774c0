"""Fault injection for the reports: one line for bad input, a report swapped in whole, and
Ctrl-C during the balance job saying where the finished results are."""
import importlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import bloomsim
from analyses.data import InputError
from analyses.report import report

report_mod = importlib.import_module("analyses.report")    # analyses.report is also a function

ROOT = Path(__file__).resolve().parents[2]


def cli(*args, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "analyses", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, **kw)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    path = tmp_path_factory.mktemp("res") / "r.parquet"
    bloomsim.simulate(["random", "greedy", "random"], 200, 1).write_parquet(path)
    return path


@pytest.fixture(scope="module")
def frame(results):
    import polars as pl
    return pl.read_parquet(results)


@pytest.mark.parametrize("command", [["seats"], ["report", "--out", "rep"]])
def test_results_with_no_rows_are_one_line(command, results, tmp_path):
    import polars as pl
    empty = tmp_path / "empty.parquet"
    pl.read_parquet(results).head(0).write_parquet(empty)
    p = cli(command[0], str(empty), *command[1:], cwd=tmp_path)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 2
    assert err.splitlines() == [f"analyses: error: {empty}: no games in these results (0 rows)"]
    assert not (tmp_path / "rep").exists() and not (tmp_path / "rep.partial").exists()


def test_balance_with_one_player_is_one_line(tmp_path):
    p = cli("balance", "--players", "1", "--out", str(tmp_path / "rep"))
    out, err = p.communicate(timeout=300)
    assert (p.returncode, err) == (2, "analyses: error: players must be an integer >= 2, "
                                      "got 1\n")


def test_a_port_out_of_range_is_one_line():
    p = cli("whatif", "bloomsim", "--port", "99999")
    out, err = p.communicate(timeout=300)
    assert (p.returncode, err) == (2, "analyses: error: port must be from 1 to 65535, "
                                      "got 99999\n")


@pytest.mark.parametrize("command", [
    ["diff", "bloomsim", "RULES", "default"],
    ["sweep", "bloomsim", "--rules", "RULES", "--scheduler", "inprocess"],
])
def test_a_bad_rules_file_in_diff_and_sweep_is_named_as_given(command, tmp_path):
    bad = tmp_path / "mine.json"
    bad.write_text('{"rounds": 0}')
    p = cli(*[str(bad) if a == "RULES" else a for a in command], "--policy", "random",
            "--players", "3", "--games", "10")
    out, err = p.communicate(timeout=300)
    assert p.returncode == 2
    assert len(err.splitlines()) == 1, err
    assert err.endswith(f": rules {bad}: rounds: must be between 1 and 8, got 0\n"), err


def test_a_failed_report_leaves_the_old_one_whole(frame, tmp_path, monkeypatch):
    out = tmp_path / "rep"
    report(frame, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def disk_full(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(report_mod, "write_page", disk_full)     # after the plots were written
    with pytest.raises(OSError):
        report(frame, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert not report_mod.partial_folder(out).exists()
    monkeypatch.undo()
    assert report(frame, out) == out / "index.html"
    assert sorted(p.name for p in out.iterdir()) == sorted(before)


def test_a_report_never_replaces_a_folder_that_is_not_a_report(frame, tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(InputError, match="non-empty folder that holds no report"):
        report(frame, tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


def test_ctrl_c_during_balance_keeps_the_old_report_and_says_where_the_results_are(tmp_path):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "index.html").write_text("the old report")
    p = cli("balance", "--out", str(out), "--games", "20000", "--counterfactual-games", "200")
    for line in p.stdout:
        if "tournament games played and written" in line:
            p.send_signal(signal.SIGINT)
            break
    _, err = p.communicate(timeout=300)
    partial = report_mod.partial_folder(out)
    assert p.returncode == 130, err
    assert err.splitlines() == [
        f"analyses: interrupted; the results finished so far are in {partial} "
        f"(bloomsim-results.parquet); {out} is unchanged"]
    assert [f.name for f in out.iterdir()] == ["index.html"]
    assert (out / "index.html").read_text() == "the old report"
    import polars as pl
    done = pl.read_parquet(partial / "bloomsim-results.parquet")
    assert done.height > 0 and done["seating"].n_unique() == 124
