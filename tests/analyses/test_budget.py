"""The runaway rule at every entry point of the analyses that plays games: sizes, memory and
the destination are checked before any game, in one line; a sweep's tasks are made lazily."""
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analyses.compare import compare
from analyses.ladder import ladder
from analyses.precise import precise
from analyses.solve import solve
from analyses.tournament import tournament
from analyses.tune import tune
from simcore import budget

ROOT = Path(__file__).resolve().parents[2]


CAPPED = {"MALLOC_ARENA_MAX": "2", "NUMBA_NUM_THREADS": "2", "POLARS_MAX_THREADS": "2"}
"""Under an address-space cap, few threads: each reserves stack and malloc arenas."""


def run(args, memory_gb=3, timeout=120):
    """A Python command (``-c CODE`` or ``-m ...``) of this project with its address space
    capped, so that a runaway fails the test instead of the machine."""
    def cap():
        limit = memory_gb << 30
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    env = dict(os.environ, PYTHONPATH=str(ROOT), **CAPPED)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          timeout=timeout, preexec_fn=cap)


CEILING = "more than the 10,000,000,000 one run may play; ask for fewer games\n"


@pytest.mark.parametrize("command, total", [
    (["sweep", "bloomsim", "--vary", "enchanted_penalty=1,2", "--policy", "random",
      "--players", "2", "--scheduler", "inprocess"], 2 * 10**12),
    (["diff", "rapinsim", "default", "default", "--policy", "random", "--policy", "careful",
      "--players", "3"], 6 * 10**12),
])
def test_a_sweep_or_diff_of_a_trillion_games_is_refused_at_once(command, total):
    r = run(["-m", "analyses", *command, "--games", str(10**12)])
    assert (r.returncode, r.stderr) == (2, f"analyses: error: {total:,} games in all is {CEILING}")


def test_a_sweeps_tasks_are_made_one_at_a_time():
    r = run(["-c", "from analyses.sweep import Variant, plan; import itertools; "
                   "tasks = plan('bloomsim', [Variant('a')], ['random'], [2], 10**15, 0, 1); "
                   "print([t.first for t in itertools.islice(tasks, 3)])"], memory_gb=2)
    assert (r.returncode, r.stdout) == (0, "[0, 1, 2]\n"), r.stderr


@pytest.mark.parametrize("command", [
    ["ladder", "rapinsim", "--agents", "random,careful", "--players", "2"],
    ["diff", "bloomsim", "default", "default", "--policy", "random", "--players", "2"],
])
def test_a_page_that_cannot_be_written_is_one_line_before_any_game(command):
    r = run(["-m", "analyses", *command, "--games", "200000", "--out", "/proc/x/page"])
    assert (r.returncode, r.stderr) == (2, "analyses: error: out='/proc/x/page': cannot write "
                                           "there (No such file or directory: /proc); choose "
                                           "another folder\n")


def test_balance_with_too_many_players_is_one_line_before_any_game(tmp_path):
    r = run(["-m", "analyses", "balance", "--players", "99", "--out", str(tmp_path / "rep")])
    assert (r.returncode, r.stderr) == (2, "analyses: error: players: Broom Service takes 2 to "
                                           "5 players, got 99\n")
    assert list(tmp_path.iterdir()) == []


def test_the_what_if_page_with_too_many_players_is_one_line_before_serving():
    pytest.importorskip("starlette")
    r = run(["-m", "analyses", "whatif", "rapinsim", "--players", "7", "--port", "1"],
            timeout=60)
    assert (r.returncode, r.stderr) == (2, "analyses: error: players: Lapin treasure hunt takes "
                                           "2 to 6 players, got 7\n")


def test_balance_onto_a_read_only_mount_is_one_line_before_any_game(tmp_path):
    if shutil.which("unshare") is None or subprocess.run(
            ["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs unshare -rm (a private mount namespace) to mount a read-only folder")
    ro = tmp_path / "ro"
    ro.mkdir()
    script = (f"mount -t tmpfs -o ro none {ro} && exec {sys.executable} -m analyses balance "
              f"--out {ro} --games 100 --counterfactual-games 50 --rung-games 50 "
              f"--search-games 2 --ladder-games 2")
    r = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert (r.returncode, r.stderr) == (2, f"analyses: error: out='{ro}' is a mount point, "
                                           f"which a finished run cannot replace; write to a "
                                           f"folder inside it\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ro"]


@pytest.mark.parametrize("play", [
    lambda: tournament("bloomsim", ["random", "greedy"], 2, 20_000, 0),
    lambda: ladder("rapinsim", ["random", "careful"], 2, 20_000, 0),
])
def test_results_that_cannot_fit_in_memory_are_refused_before_any_game(play, monkeypatch):
    monkeypatch.setattr(budget, "available_memory", lambda: 10_000)
    with pytest.raises(ValueError, match=r"^40,000 games need about .* of memory for the "
                                         r"results frame, but only 10.0 KB is available"):
        play()


@pytest.mark.parametrize("play", [
    lambda: tune("bloomsim", "careful", {"points": (0.5, 2.0)}, budget=10**6, games=10**6),
    lambda: compare("rapinsim", "random", "careful", n_games=10**12),
    lambda: precise("bloomsim", ["random", "greedy"], 0.01, max_games=10**11),
    lambda: solve("bloomsim", "enchanted_penalty", [1, 2], "fair", policies=["random"],
                  players=2, max_games=10**10),
], ids=["tune", "compare", "precise", "solve"])
def test_a_run_that_may_play_past_the_ceiling_is_refused_at_once(play):
    with pytest.raises(ValueError, match=r"^[\d,]+ games in all is more than the "
                                         r"10,000,000,000 one run may play; ask for fewer games$"):
        play()
