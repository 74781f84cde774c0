"""The measurement ledger: one line per run, what a reader compares across runs."""
import json

import pytest

from benchmarks import ledger
from benchmarks.__main__ import _ledger, main, parser
from test_harness import _results


def _run(**over):
    res = _results()
    res.update(command="python -m benchmarks --quick", mode="quick", started_utc="2026-12-01 10:00",
               wall_s=12.34, load_start=0.5, load_end=0.7)
    res["machine"] = {"cpu": "Test CPU", "cores": 2, "commit": "abc1234",
                      "versions": {"numba": "0.60.0"}}
    res.update(over)
    return res


def test_an_entry_keeps_each_measured_goal_and_where_it_was_measured():
    res = _run()
    e = ledger.entry(res)
    assert e["commit"] == "abc1234" and e["mode"] == "quick" and e["wall_s"] == 12.3
    assert e["machine"] == {"cpu": "Test CPU", "cores": 2, "numba": "0.60.0"}
    measured = [g for g in res["goals"] if g["figure"] != "not measured"]
    assert [g["figure"] for g in e["goals"]] == [g["figure"] for g in measured]
    assert len(e["goals"]) < len(res["goals"])   # the peer was not measured: left out


def test_append_then_read_gives_the_runs_oldest_first(tmp_path):
    book = tmp_path / "history.jsonl"
    ledger.append(book, _run(started_utc="2026-12-01 10:00"))
    ledger.append(book, _run(started_utc="2026-12-01 11:00"))
    rows = ledger.read(book)
    assert [r["started_utc"] for r in rows] == ["2026-12-01 10:00", "2026-12-01 11:00"]
    assert book.read_text().count("\n") == 2


def test_a_malformed_line_is_named(tmp_path):
    book = tmp_path / "history.jsonl"
    book.write_text(json.dumps(ledger.entry(_run())) + "\n{oops\n")
    with pytest.raises(ValueError, match=r"history.jsonl:2: not a ledger line"):
        ledger.read(book)


def test_a_run_appends_to_a_ledger_only_when_asked(tmp_path):
    p = parser()
    for mode in ([], ["--quick"], ["--smoke"]):     # a newcomer's checkout stays clean
        assert _ledger(p.parse_args(mode)) is None
    assert _ledger(p.parse_args(["--quick", "--record"])) == ledger.DEFAULT
    mine = tmp_path / "h.jsonl"
    assert _ledger(p.parse_args(["--smoke", "--ledger", str(mine)])) == mine


def test_the_projects_ledger_reads_and_every_run_has_goals():
    rows = ledger.read(ledger.DEFAULT)
    assert rows and all(r["goals"] and r["commit"] for r in rows)
    assert [r["started_utc"] for r in rows] == sorted(r["started_utc"] for r in rows)


def test_record_from_an_installed_copy_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(ledger, "default_path", lambda: None)
    with pytest.raises(SystemExit) as e:
        main(["--smoke", "--record"])
    assert e.value.code == 2
    assert capsys.readouterr().err.splitlines() == [
        "python -m benchmarks: error: --record appends to a checkout's "
        "benchmarks/results/history.jsonl, and this is an installed copy; use --ledger FILE"]
