"""Fault injection: a user policy that raises or answers nonsense, output that cannot be
written, interrupted writes, damaged datasets. Each fault is one clear line (a ValueError, or
exit status 2 on the command line), and what was already finished is kept, never mixed."""
import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numba
import numpy as np
import polars as pl
import pytest

import bloomsim
import rapinsim
from analyses.data import InputError, scan
from simcore import budget, policy, randint, runner
from simcore.policy import PolicyError
from fakeparts import build, play

GAMES = {"bloomsim": bloomsim, "rapinsim": rapinsim}
ROOT = Path(__file__).resolve().parents[2]


@policy("raiser")
def raiser(kind, obs, opts, n_opts, rng):
    raise ZeroDivisionError("my policy divided by zero")


@policy("half")
def half(kind, obs, opts, n_opts, rng):
    return 0.5


@policy("huge")
def huge(kind, obs, opts, n_opts, rng):
    return 2 ** 40


@policy("unsigned_huge")
def unsigned_huge(kind, obs, opts, n_opts, rng):
    return np.uint64(2 ** 64 - 1)


@policy("rarely_raises")
def rarely_raises(kind, obs, opts, n_opts, rng):
    if randint(rng, 0, 3000) == 0:
        raise KeyError("rare")
    return randint(rng, 0, n_opts)


@pytest.mark.parametrize("engine", ["compiled", "reference"])
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("pol, said", [
    (raiser, "raised ZeroDivisionError: my policy divided by zero at decision"),
    (half, "returned 0.5 (float), not an integer, for decision"),
    (huge, f"returned illegal choice {2 ** 40} for decision"),
    (unsigned_huge, f"returned illegal choice {2 ** 64 - 1} for decision"),
])
def test_a_faulty_policy_stops_the_run_naming_policy_seat_game_and_fault(game, engine, pol,
                                                                         said, capfd):
    with pytest.raises(PolicyError) as e:
        GAMES[game].simulate(["random", pol, "random"], 40, 3, engine=engine)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"{game}: policy {pol.name!r} at seat 1 {said}")
    assert msg.endswith(" in game 0")
    assert "Exception ignored" not in capfd.readouterr().err


@pytest.mark.parametrize("game", GAMES)
def test_the_compiled_engine_names_the_first_game_the_reference_engine_fails(game):
    mod = GAMES[game]
    with pytest.raises(PolicyError, match="raised KeyError: 'rare'") as e:
        mod.simulate([rarely_raises, "random"], 2000, 5)
    first = int(str(e.value).rsplit(" ", 1)[1])
    assert first > 0
    mod.simulate([rarely_raises, "random"], first, 5, engine="reference")   # all fine
    with pytest.raises(PolicyError) as r:
        mod.simulate([rarely_raises, "random"], first + 1, 5, engine="reference")
    assert str(r.value) == str(e.value)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("pol, said", [(raiser, "raised an exception"),
                                       (half, "returned a float64, not an integer")])
def test_a_faulty_policy_beside_a_search_agent_is_named_not_the_search(game, pol, said):
    with pytest.raises(PolicyError) as e:     # the reference engine cannot replay the search
        GAMES[game].simulate(["ismcts-20", pol], 2, 1)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"{game}: policy {pol.name!r} at seat 1 at decision ")
    assert said in msg


@policy("objmode_raiser")
def objmode_raiser(kind, obs, opts, n_opts, rng):
    with numba.objmode(c="int64"):
        c = int(1 / 0)
    return c


@pytest.mark.parametrize("game", GAMES)
def test_an_exception_inside_objmode_names_the_user_policy_not_numba(game):
    """numba's own handler cannot see it: the kernel returns with Python's error set."""
    with pytest.raises(PolicyError) as e:
        GAMES[game].simulate(["random", objmode_raiser], 2, 1)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"{game}: user policy 'objmode_raiser' raised ZeroDivisionError: "
                          f"division by zero inside numba.objmode")
    assert isinstance(e.value.__cause__, ZeroDivisionError)


@pytest.mark.parametrize("game", GAMES)
def test_the_forward_model_refuses_a_float_as_the_engine_does(game):
    with pytest.raises(PolicyError) as e:
        GAMES[game].new_game(2, 1, 0).play(["random", half])
    assert str(e.value).startswith(f"{game}: policy 'half' at seat 1 returned 0.5 (float), "
                                   f"not an integer, for decision ")


def cli(*args, cwd=None, timeout=300):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=timeout)


@pytest.mark.parametrize("game", GAMES)
def test_a_raising_policy_on_the_command_line_is_one_line_and_status_2(game, tmp_path):
    script = tmp_path / "mine.py"
    script.write_text(textwrap.dedent("""
        from simcore import policy

        @policy("raiser")
        def raiser(kind, obs, opts, n_opts, rng):
            raise ValueError("bad idea")
    """))
    out = tmp_path / "out"
    r = cli(game, "simulate", "--policy", f"{script}:raiser", "--policy", "random",
            "--games", "300", "--seed", "1", "--out", str(out))
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [
        f"{game}: error: policy 'raiser' at seat 0 raised ValueError: bad idea at decision "
        f"{r.stderr.split('at decision ')[1].split(' in game')[0]} in game 0"]
    assert r.stdout == ""
    assert sorted(p.name for p in out.iterdir()) == ["_lock", "_manifest.json"]   # nothing played
    with pytest.raises(InputError, match="incomplete dataset"):
        scan(out)


def test_a_policy_script_that_exits_is_an_error_naming_it(tmp_path):
    script = tmp_path / "quits.py"
    script.write_text("import sys\nsys.exit(0)\n")
    r = cli("rapinsim", "simulate", "--policy", f"{script}:p", "random", "--games", "10")
    assert (r.returncode, r.stderr) == (2, f"rapinsim: error: policy '{script}:p': {script} "
                                           f"called sys.exit(0) while loading; a policy script "
                                           f"only defines policies\n")


# ---------------------------------------------------------------- the runner's writes

def run(out, n=300, **kw):
    return runner.run(kw.pop("play", play), build, n, threads=1, progress=False, out=out,
                      manifest={"seed": 1}, label="t", chunk=100)


# What polars 2.1 raises when the disk fills while it writes a Parquet file.
POLARS_ENOSPC = ("parquet: File out of specification: underlying IO error: No space left on "
                 "device (os error 28)")
FULL_DISK = {"OSError": OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)),
             "polars": pl.exceptions.ComputeError(POLARS_ENOSPC)}


@pytest.mark.parametrize("fault", FULL_DISK)
def test_a_full_disk_keeps_the_parts_written_and_the_rerun_resumes(fault, tmp_path, monkeypatch):
    out = tmp_path / "ds"
    real = pl.DataFrame.write_parquet
    writes = []

    def full_after_one(self, path, *a, **k):
        writes.append(path)
        if len(writes) > 1:
            Path(path).write_bytes(b"PAR1 half")           # a torn write, then the fault
            raise FULL_DISK[fault]
        return real(self, path, *a, **k)
    monkeypatch.setattr(pl.DataFrame, "write_parquet", full_after_one)
    with pytest.raises(ValueError) as e:
        run(out)
    assert str(e.value) == (
        f"out={str(out)!r}: cannot write part-000001.parquet (No space left on device); the "
        f"parts already there are complete: free space (or fix the folder) and run the same "
        f"command again to resume")
    assert sorted(p.name for p in out.iterdir()) == [
        "_lock", "_manifest.json", "part-000000.parquet", "part-000000.parquet.json"]
    monkeypatch.setattr(pl.DataFrame, "write_parquet", real)
    assert run(out).collect().sort("game", "seat").equals(build(0, 300))


WRITER = textwrap.dedent("""
    import sys
    from fakeparts import build
    from simcore import runner

    def play(start, n):                  # holds the folder until told to go on
        print("playing", flush=True)
        sys.stdin.readline()
        return n

    runner.run(play, build, 300, threads=1, progress=False, out=sys.argv[1],
               manifest={"seed": 1}, label="t", chunk=100)
""")


def test_one_writer_at_a_time_and_a_killed_writer_does_not_block(tmp_path):
    out = tmp_path / "ds"
    first = subprocess.Popen([sys.executable, "-c", WRITER, str(out)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env=dict(
                                 os.environ, PYTHONPATH=f"{ROOT}:{Path(__file__).parent}"))
    try:
        assert first.stdout.readline() == "playing\n"
        played = []
        with pytest.raises(ValueError) as e:              # the same run, or another seed's
            run(out, play=lambda s, n: played.append(s) or n)
        assert played == []
        assert str(e.value).startswith(f"out={str(out)!r} is being written by pid {first.pid} (")
        assert str(e.value).endswith(f"{out}); wait for it to end or choose another path")
        first.kill()                                      # SIGKILL: the lock goes with it
        first.wait(timeout=60)
    finally:
        first.kill()
    assert run(out).collect().sort("game", "seat").equals(build(0, 300))


def test_a_full_disk_while_writing_the_manifest_leaves_no_manifest(tmp_path, monkeypatch):
    out = tmp_path / "ds"

    def full(self, *a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(ValueError, match=r"cannot write there \(No space left on device"):
        run(out)
    monkeypatch.undo()
    assert [p.name for p in out.iterdir()] == ["_lock"]            # no manifest
    assert run(out).collect().height == 600


def test_a_full_disk_on_the_command_line_is_one_line_and_status_2(tmp_path):
    wrapper = tmp_path / "full_disk.py"         # polars' write fails as on a full disk
    wrapper.write_text(textwrap.dedent(f"""
        import os
        import runpy
        import polars as pl

        write = pl.DataFrame.write_parquet

        def full(self, target, *a, **k):      # a file on the disk; memory still takes writes
            if isinstance(target, (str, os.PathLike)):
                raise pl.exceptions.ComputeError({POLARS_ENOSPC!r})
            return write(self, target, *a, **k)
        pl.DataFrame.write_parquet = full
        runpy.run_module("bloomsim", run_name="__main__")
    """))
    out = tmp_path / "ds"
    r = subprocess.run([sys.executable, str(wrapper), "simulate", "--policy", "random",
                        "--policy", "random", "--games", "100", "--out", str(out)],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                       timeout=300)
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [
        f"bloomsim: error: out={str(out)!r}: cannot write part-000000.parquet (No space left on "
        f"device); the parts already there are complete: free space (or fix the "
        f"folder) and run the same command again to resume"]


@pytest.mark.parametrize("where", ["/proc/bloomsim-test", "/dev/null/x"])
def test_an_unwritable_out_is_one_line(where):
    with pytest.raises(ValueError, match=f"out='{where}': cannot write there"):
        run(where)


def test_a_truncated_manifest_names_the_file_and_the_fix(tmp_path):
    out = tmp_path / "ds"
    run(out)
    meta = out / runner.MANIFEST
    meta.write_text(meta.read_text()[:7])
    with pytest.raises(ValueError) as e:
        run(out)
    assert str(e.value).startswith(f"{meta}: unreadable dataset manifest (")
    assert str(e.value).endswith(f"delete the folder {str(out)!r} (or move it away) and run "
                                 f"again")


def test_a_corrupt_part_is_found_before_any_game_is_played(tmp_path):
    out = tmp_path / "ds"
    run(out, n=300)
    (out / "part-000002.parquet").unlink()
    (out / "part-000001.parquet").write_bytes(b"not parquet at all")
    played = []
    with pytest.raises(ValueError, match=r"part-000001.parquet: corrupt part file \(.*\); "
                                         r"delete it and run the same command again"):
        run(out, play=lambda s, n: played.append(s) or n)
    assert played == []


def flip_bytes_inside(out: Path) -> Path:
    """Random bytes in the middle of a part, its footer intact (Parquet still reads it)."""
    part = out / "part-000001.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 3: len(data) // 3 + 8] = np.random.default_rng(0).bytes(8)
    part.write_bytes(bytes(data))
    return part


def copy_over_the_next(out: Path, names=("part-000001.parquet",)) -> Path:
    for name in names:
        (out / name.replace("1", "2")).write_bytes((out / name).read_bytes())
    return out / "part-000002.parquet"


def copy_with_its_record(out: Path) -> Path:
    return copy_over_the_next(out, ("part-000001.parquet", "part-000001.parquet.json"))


@pytest.mark.parametrize("damage, why", [
    (flip_bytes_inside, "its bytes do not match its checksum"),
    (copy_over_the_next, "its bytes do not match its checksum"),
    (copy_with_its_record,
     "it holds games 100 to 199, not 200 to 299: a part copied over another?"),
])
def test_a_damaged_part_is_found_on_resume_and_on_read(damage, why, tmp_path):
    out = tmp_path / "ds"
    run(out, n=300)
    part = damage(out)
    line = (f"{part}: corrupt part file ({why}); delete it and run the same command again to "
            f"play its games anew")
    with pytest.raises(InputError) as e:
        scan(out)
    assert str(e.value) == line
    played = []
    with pytest.raises(ValueError) as e:
        run(out, play=lambda s, n: played.append(s) or n)
    assert str(e.value) == line and played == []
    part.unlink()
    assert run(out).collect().sort("game", "seat").equals(build(0, 300))
    assert scan(out).collect().sort("game", "seat").equals(build(0, 300))


def test_a_part_copied_from_another_run_is_found(tmp_path):
    run(tmp_path / "a", n=300)
    runner.run(play, build, 300, threads=1, progress=False, out=tmp_path / "b",
               manifest={"seed": 2}, label="t", chunk=100)
    for name in ("part-000001.parquet", "part-000001.parquet.json"):
        (tmp_path / "a" / name).write_bytes((tmp_path / "b" / name).read_bytes())
    with pytest.raises(InputError, match=r"part-000001.parquet: corrupt part file \(its record "
                                         r"is another run's\)"):
        scan(tmp_path / "a")


def test_an_interrupted_run_leaves_whole_parts_and_an_incomplete_dataset(tmp_path):
    out = tmp_path / "ds"

    def interrupted(start, n):
        if start == 200:
            raise KeyboardInterrupt
        return n
    with pytest.raises(KeyboardInterrupt):
        run(out, n=400, play=interrupted)
    assert sorted(p.name for p in out.iterdir()) == [
        "_lock", "_manifest.json", "part-000000.parquet", "part-000000.parquet.json",
        "part-000001.parquet", "part-000001.parquet.json"]
    with pytest.raises(InputError, match=r"incomplete dataset \(2 of 4 part files missing"):
        scan(out)
    assert run(out, n=400).collect().sort("game", "seat").equals(build(0, 400))
    assert runner.missing_parts(out) == (0, 4)


def test_a_frame_that_cannot_fit_in_memory_is_refused_before_playing(monkeypatch):
    monkeypatch.setattr(budget, "available_memory", lambda: 10_000)
    played = []
    with pytest.raises(ValueError, match=r"1,000 games need about .* of memory for the results "
                                         r"frame, but only 10.0 KB is available; stream them to "
                                         r"disk with out=DIR \(command line: --out DIR\)"):
        runner.run(lambda s, n: played.append(n) or n, build, 1000, threads=1, progress=False,
                   out=None, manifest={}, label="t", chunk=100)
    assert played == [1]                                     # the one game of the estimate


def test_progress_without_a_terminal_is_a_plain_line_every_few_seconds(monkeypatch, capsys):
    from simcore import progress
    clock = iter(range(0, 100, 3))
    monkeypatch.setattr(progress.time, "perf_counter", lambda: next(clock))
    monkeypatch.setattr(progress.sys.stderr, "isatty", lambda: False, raising=False)
    bar = progress.Progress(None, 1000, "bloomsim")
    for _ in range(4):
        bar.update(100)
    bar.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["bloomsim: 200/1,000 games (20.0%), 33/s, eta 24s",
                     "bloomsim: 400/1,000 games (40.0%), 33/s, eta 18s"]


def test_the_manifest_is_written_whole(tmp_path):
    out = tmp_path / "ds"
    run(out)
    assert json.loads((out / runner.MANIFEST).read_text())["n_games"] == 300
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("args, line", [
    (["bloomsim", "simulate", "--policy", "random", "--policy", "random", "--games", "10",
      "--out", "/proc/bloomsim-test"],
     "bloomsim: error: out='/proc/bloomsim-test': cannot write there ("),
    (["rapinsim", "simulate", "--policy", "random", "random", "--games", "10", "--seed", "1",
      "--out", "/proc/rapinsim-test"],
     "rapinsim: error: out='/proc/rapinsim-test': cannot write there ("),
    (["bloomsim", "replay", "--policy", "random", "--policy", "random", "--game", str(2 ** 64)],
     "bloomsim: error: game must be a non-negative integer below 72,057,594,037,927,936"),
    (["rapinsim", "replay", "--policy", "random", "random", "--seed", "1", "--game",
      str(2 ** 64)],
     "rapinsim: error: game must be a non-negative integer below 72,057,594,037,927,936"),
    (["bloomsim", "simulate", "--policy", "nobody", "--policy", "random"],
     "bloomsim: error: unknown policy 'nobody' at seat 0;"),
    (["rapinsim", "simulate", "--policy", "random", "--games", "5", "--seed", "1"],
     "rapinsim: error: rapinsim is played by 2 to 6 players"),
    (["bloomsim", "rules", "--rules", "/tmp"],
     "bloomsim: error: rules file '/tmp' is a directory, not a file"),
    (["rapinsim", "simulate", "--policy", "random", "random", "--games", "10",
      "--seed", "1", "--rules", "/tmp"],
     "rapinsim: error: rules file '/tmp' is a directory, not a file"),
    (["simcore", "nosuch", "simulate"],
     "python -m simcore: error: unknown game 'nosuch'; games are ['bloomsim', 'rapinsim']"),
])
def test_command_line_errors_are_one_line_with_status_2(args, line):
    r = cli(*args)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith(line), r.stderr


@pytest.mark.parametrize("args", [
    ["bloomsim", "simulate", "--policy", "random", "random", "--games", "5000000"],
    ["analyses", "tournament", "bloomsim", "--policy", "random", "--policy", "greedy",
     "--players", "2", "--games", "1000000"],
    ["simcore", "rapinsim", "simulate", "--policy", "random", "random", "--games", "5000000"],
])
@pytest.mark.parametrize("after", [0.4, 1.5])
def test_ctrl_c_while_a_command_starts_is_one_line_and_status_130(args, after):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(after)                   # importing numba, polars, the kernels: seconds
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=300)
    assert (p.returncode, len(err.splitlines())) == (130, 1), err
    assert err.endswith(": interrupted\n"), err


ENDLESS = """
import sys
from simcore import policy
from simcore.cli import run_main
from simcore.policy import guarded
import {game}

@policy("forever")
def forever(kind, obs, opts, n_opts, rng):
    i = 0
    while i >= 0:
        i = (i + 1) % 1000
    return 0

@policy("first")
def first(kind, obs, opts, n_opts, rng):
    return 0

guarded(forever.func)                              # compiled before the games start,
{game}.simulate([first, "random"], 1, 1)          # the engine for user policies too
print("playing", file=sys.stderr, flush=True)
sys.exit(run_main("{game}", lambda: {game}.simulate([forever, "random"], 100, 1)))
"""


@pytest.mark.parametrize("game", GAMES)
def test_ctrl_c_stops_a_policy_that_never_returns(game):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-c", ENDLESS.format(game=game)],
                         stderr=subprocess.PIPE, text=True, env=env)
    assert p.stderr.readline() == "playing\n"
    time.sleep(2.0)
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert (p.returncode, err) == (130, f"{game}: interrupted\n")


def test_bloomsim_rules_points_to_files_in_the_clone():
    r = cli("bloomsim", "rules")
    about = json.loads(r.stdout.split("\n", 1)[1].split("\n\n#")[0])["about"]
    assert "docs/bloomsim-rules.md" in about and (ROOT / "docs/bloomsim-rules.md").exists()
