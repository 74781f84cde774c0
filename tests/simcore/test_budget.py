"""The runaway rule (``simcore.budget``): a run that cannot finish is refused before its first
game in one line, and the rules' own sizes are bounded before they cost memory."""
import json
import os
import subprocess
import sys
import tracemalloc
from collections import namedtuple
from pathlib import Path

import pytest

import bloomsim
import rapinsim
from simcore import budget

ROOT = Path(__file__).resolve().parents[2]
GAMES = {"bloomsim": bloomsim, "rapinsim": rapinsim}


def cli(*args, timeout=120):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


def test_a_lapin_die_of_millions_of_faces_is_refused_without_their_memory(tmp_path):
    path = tmp_path / "die.json"
    path.write_text('{"die_sides": 10000000, "rize_start": {"d10000000_1": 1}}')
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="rize_start': must name every die face") as e:
            rapinsim.load_rules(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "\n" not in str(e.value)
    assert peak < 10 << 20


def test_a_broom_service_deck_of_too_many_cloud_tiles_is_refused(tmp_path):
    data = json.loads((ROOT / "bloomsim" / "data" / "rules.json").read_text())
    data["cloud_tiles"] = [{"stars": 1, "lightning": 1, "count": 1000}] * 30
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"cloud_tiles: 30,000 tiles in all, more than 1,000 "
                                         r"\(every game holds and shuffles the whole deck\)") as e:
        bloomsim.load_rules(path)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("game", GAMES)
def test_an_out_run_that_the_disk_cannot_hold_is_refused_before_any_game(game, tmp_path,
                                                                        monkeypatch):
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(budget.shutil, "disk_usage", lambda path: usage(10**9, 10**9, 10_000))
    out = tmp_path / "ds"
    with pytest.raises(ValueError, match=rf"out='{out}': 100,000 games need about .* of disk, "
                                         rf"but only 10.0 KB is free there; ") as e:
        GAMES[game].simulate(["random", "random", "random"], 100_000, 1, out=out)
    assert "\n" not in str(e.value)
    assert not out.exists()


@pytest.mark.parametrize("game", GAMES)
def test_an_out_run_past_the_ceiling_is_one_line_at_once(game, tmp_path):
    r = cli(game, "simulate", "--policy", "random", "random", "--games", str(10**12),
            "--out", str(tmp_path / "ds"))
    assert (r.returncode, r.stderr) == (2, f"{game}: error: 1,000,000,000,000 games in all is "
                                           f"more than the 10,000,000,000 one run may play; "
                                           f"ask for fewer games\n")
    assert not (tmp_path / "ds").exists()


def test_a_resumed_run_needs_disk_only_for_the_games_it_has_left(tmp_path, monkeypatch):
    out = tmp_path / "ds"
    bloomsim.simulate(["random", "random"], 200, 1, out=out)
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(budget.shutil, "disk_usage", lambda path: usage(10**9, 10**9, 0))
    assert bloomsim.simulate(["random", "random"], 200, 1, out=out).collect().height == 400


def test_a_destination_that_takes_no_file_is_refused():
    with pytest.raises(ValueError, match=r"out='/proc/x/y': cannot write there \(.*: /proc\)"):
        budget.check_destination("/proc/x/y")
