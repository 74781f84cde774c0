import threading

import numba
import numpy as np
import polars as pl
import pytest

from simcore import runner
from simcore.parallel import UNIT, claim, spread
from simcore.policy import policy, resolve
from simcore.results import LEAD_ROUNDS, frame, mark_leaders, rank_and_share


def rank_win(primary, secondary):
    n = len(primary)
    rank, win = np.zeros(n, np.int8), np.zeros(n, np.float32)
    rank_and_share(np.array(primary), np.array(secondary), n, rank, win)
    return rank.tolist(), win.tolist()


def test_rank_and_share_breaks_ties_then_shares():
    assert rank_win([30, 40, 40, 10], [5, 2, 1, 9]) == ([3, 1, 2, 4], [0, 1, 0, 0])
    assert rank_win([40, 40, 12], [3, 3, 9]) == ([1, 1, 3], [0.5, 0.5, 0])
    assert rank_win([7, 7, 7], [0, 0, 0]) == ([1, 1, 1], [pytest.approx(1 / 3)] * 3)


def test_mark_leaders_marks_every_seat_tied_at_the_top_and_stops_at_the_cap():
    led = [0, 0, 0]
    mark_leaders([3, 5, 5], 1, led)          # a tie at the top: both lead
    mark_leaders([6, 5, 2], 2, led)
    assert led == [0b10, 0b01, 0b01]
    mark_leaders([-1, -1, -4], LEAD_ROUNDS, led)
    assert led == [0b10 | 1 << 62, 0b01 | 1 << 62, 0b01]
    mark_leaders([0, 9, 0], LEAD_ROUNDS + 1, led)   # past the cap: not recorded
    assert led == [0b10 | 1 << 62, 0b01 | 1 << 62, 0b01] and max(led) < 2 ** 63


def test_frame_is_one_row_per_game_and_seat():
    df = frame(10, ["a", "b"], {"score": np.array([[1, 2], [3, 4]], np.int16)},
               {"turns": np.array([5, 6], np.int16)})
    assert df["game"].to_list() == [10, 10, 11, 11]
    assert df["seat"].to_list() == [0, 1, 0, 1]
    assert df["policy"].cast(pl.String).to_list() == ["a", "b", "a", "b"]
    assert df["score"].to_list() == [1, 2, 3, 4]
    assert df["turns"].to_list() == [5, 5, 6, 6]
    with pytest.raises(ValueError, match="turns"):
        frame(0, ["a", "b"], {"score": np.zeros((2, 2))}, {"turns": np.zeros(3)})


def fake_chunk(start, n):
    g = np.arange(start, start + n)
    return frame(start, ["x", "y"], {"v": np.stack([g, 2 * g], axis=1)}, {})


def fake_play(start, n):
    return n


def fake_build(start, n):
    return fake_chunk(start, n)


def test_runner_chunks_make_the_same_frame_as_one_batch():
    whole = runner.run(fake_play, fake_build, 1000, threads=1, progress=False, out=None,
                       manifest={}, label="t", chunk=1000)
    split = runner.run(fake_play, fake_build, 1000, threads=None, progress=False, out=None,
                       manifest={}, label="t", chunk=64)
    assert whole.equals(split)


def test_runner_streams_resumes_and_refuses_other_settings(tmp_path):
    calls = []

    def play(start, n):
        calls.append(start)
        return n

    out = tmp_path / "res"
    lf = runner.run(play, fake_build, 300, threads=1, progress=False, out=out, manifest={"seed": 1},
                    label="t", chunk=100)
    assert lf.collect().height == 600 and calls == [0, 100, 200]
    (out / "part-000001.parquet").unlink()          # as if interrupted mid-run
    calls.clear()
    lf = runner.run(play, fake_build, 300, threads=1, progress=False, out=out, manifest={"seed": 1},
                    label="t", chunk=100)
    assert calls == [100]
    assert lf.collect().sort("game", "seat").equals(fake_chunk(0, 300))
    with pytest.raises(ValueError, match="seed"):
        runner.run(play, fake_build, 300, threads=1, progress=False, out=out, manifest={"seed": 2},
                   label="t", chunk=100)


def test_a_run_split_by_first_game_plays_the_games_of_one_run():
    whole = runner.run(fake_play, fake_build, 250, threads=1, progress=False, out=None,
                       manifest={}, label="t", chunk=100)
    parts = [runner.run(fake_play, fake_build, n, threads=1, progress=False, out=None,
                        manifest={}, label="t", chunk=100, first_game=first)
             for first, n in ((0, 130), (130, 120))]
    assert pl.concat(parts).equals(whole)
    with pytest.raises(ValueError, match="first_game"):
        runner.run(fake_play, fake_build, 5, threads=1, progress=False, out=None, manifest={},
                   label="t", first_game=-1)


def test_runner_reports_progress_and_rejects_bad_counts():
    seen = []
    runner.run(fake_play, fake_build, 250, threads=1, progress=lambda d, t: seen.append((d, t)),
               out=None, manifest={}, label="t", chunk=100)
    assert seen == [(100, 250), (200, 250), (250, 250)]
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="n_games"):
            runner.run(fake_play, fake_build, bad, threads=1, progress=False, out=None, manifest={},
                       label="t")
    with pytest.raises(ValueError, match="threads"):
        runner.run(fake_play, fake_build, 5, threads=0, progress=False, out=None, manifest={},
                   label="t")


def test_runner_builds_frames_beside_play_and_passes_errors_on(tmp_path):
    """Chunk k's frame is built on another thread while chunk k+1 plays; frames keep their
    order, and an error in either step reaches the caller (nothing half-written)."""
    builders = set()

    def build(start, n):
        builders.add(threading.get_ident())
        return fake_chunk(start, n)

    df = runner.run(fake_play, build, 350, threads=1, progress=False, out=None, manifest={},
                    label="t", chunk=100)
    assert df.equals(fake_chunk(0, 350)) and df.n_chunks() == 4
    assert builders and threading.get_ident() not in builders

    def bad_play(start, n):
        if start == 200:
            raise RuntimeError("engine failed")
        return n

    def bad_build(start, n):
        if start == 100:
            raise OSError("disk full")
        return fake_chunk(start, n)

    with pytest.raises(RuntimeError, match="engine failed"):
        runner.run(bad_play, fake_build, 350, threads=1, progress=False, out=None, manifest={},
                   label="t", chunk=100)
    out = tmp_path / "res"
    with pytest.raises(OSError, match="disk full"):
        runner.run(fake_play, bad_build, 350, threads=1, progress=False, out=out,
                   manifest={}, label="t", chunk=100)
    assert sorted(p.name for p in out.glob("*.parquet")) == ["part-000000.parquet"]


def test_resolve_policies_and_errors():
    @policy("mine")
    def mine(kind, obs, opts, n_opts, rng):
        return n_opts - 1

    seats = resolve(["random", mine, "random", mine], {"random": 0}, "demo", (2, 5))
    assert seats.ids.tolist() == [0, -1, 0, -1]
    assert seats.names == ("random", "mine", "random", "mine")
    assert seats.user_py == (mine.func,)
    with pytest.raises(ValueError, match="2 to 5 players"):
        resolve(["random"], {"random": 0}, "demo", (2, 5))
    with pytest.raises(ValueError, match="unknown policy 'nope' at seat 1"):
        resolve(["random", "nope"], {"random": 0}, "demo", (2, 5))
    with pytest.raises(ValueError, match="seat 0"):
        resolve([print, "random"], {"random": 0}, "demo", (2, 5))


def test_wilson_matches_scipy_and_the_win_table_uses_it():
    from scipy.stats import binomtest

    from simcore.summary import wilson, win_table
    ci = binomtest(37, 120).proportion_ci(0.95, method="wilson")
    assert wilson(37, 120) == (pytest.approx(ci.low), pytest.approx(ci.high))
    df = pl.DataFrame({"policy": ["a", "b"] * 50, "win": [1.0, 0.0] * 50})
    rows = win_table(df, "policy").splitlines()
    lo, hi = wilson(50, 50)
    assert rows[1].split()[:3] == ["a", "50", "1.000"] and f"[{lo:.3f}, {hi:.3f}]" in rows[1]


def test_rules_files_get_errors_naming_the_file(tmp_path):
    from simcore.summary import read_rules_file
    (tmp_path / "r.json").write_text("[1]")
    (tmp_path / "r.toml").write_text("a = ")
    (tmp_path / "ok.toml").write_text("a = 1")
    assert read_rules_file(tmp_path / "ok.toml") == {"a": 1}
    for name, msg in (("missing.json", "does not exist"), ("r.yaml", "use a .json or .toml"),
                      ("r.toml", "not a valid TOML"), ("r.json", "top level")):
        (tmp_path / "r.yaml").write_text("a: 1")
        with pytest.raises(ValueError, match=msg) as e:
            read_rules_file(tmp_path / name)
        assert name in str(e.value)


def test_spread_plays_every_row_once_in_units():
    """Every thread claims units until none is left: each row is played once, in whole units."""
    rows = np.zeros(1300, np.int64)
    calls, units = [], []

    def play_units(counter):
        calls.append(threading.get_ident())
        while (unit := claim(counter, rows.size)) and unit[0] < unit[1]:
            units.append(unit)
            rows[unit[0]:unit[1]] += 1

    old = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    try:
        spread(play_units, rows.size)
    finally:
        numba.set_num_threads(old)
    assert (rows == 1).all() and len(calls) == min(numba.config.NUMBA_NUM_THREADS, 21)
    assert threading.get_ident() not in calls       # the caller waits, ready for a Ctrl-C
    assert sorted(units) == [(lo, min(lo + UNIT, 1300)) for lo in range(0, 1300, UNIT)]
    calls.clear()
    spread(play_units, 7)
    assert len(calls) == 1


def test_spread_in_units_of_one_row_uses_every_thread_for_a_few_rows():
    """A batch of search games claims games one by one: two games keep two threads busy."""
    rows, calls = np.zeros(2, np.int64), []

    def play_units(counter):
        calls.append(threading.current_thread().name)   # an ident may be reused
        while (unit := claim(counter, rows.size)) and unit[0] < unit[1]:
            assert unit[1] - unit[0] == 1
            rows[unit[0]] += 1

    old = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    try:
        spread(play_units, rows.size, unit=1)
    finally:
        numba.set_num_threads(old)
    assert (rows == 1).all() and len(set(calls)) == min(numba.config.NUMBA_NUM_THREADS, 2)
