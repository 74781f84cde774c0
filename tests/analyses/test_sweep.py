"""Rules-variant sweeps: paired seeds, the same results on any cluster and chunking, resumable,
clear errors before any game is played."""
import importlib
import re
import sys
import threading

import polars as pl
import pytest

from analyses.cli import main
from analyses.sweep import seatings, sweep, table, variants_of

pytest.importorskip("bloomsim")
sweep_module = importlib.import_module("analyses.sweep")    # analyses.sweep is also a function
GRID = {"enchanted_penalty": [1, 3]}
POLICIES = ["greedy", "careful"]


def _inprocess(**kw):
    args = dict(variants=GRID, policies=POLICIES, players=[2, 3], n_games=120, seed=5,
                scheduler="inprocess", chunk=50)
    args.update(kw)
    return sweep("bloomsim", **args)


def test_a_dask_cluster_of_two_workers_gives_the_in_process_results(monkeypatch):
    from dask.distributed import Client, LocalCluster
    monkeypatch.setattr(sweep_module, "IN_FLIGHT", 3)     # 20 tasks, handed out 3 at a time
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        on_dask = _inprocess(scheduler=client, chunk=70)
    assert on_dask.equals(_inprocess())


def _sweep_in_thread(client, seconds):
    """What a sweep on ``client`` raised, or "hung" if it still waits after ``seconds``."""
    out = ["hung"]

    def go():
        try:
            _inprocess(scheduler=client)
        except Exception as e:  # noqa: BLE001 - the test looks at it
            out[0] = e
    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(seconds)
    return out[0]


def test_a_sweep_whose_last_worker_is_gone_says_so_and_stops(monkeypatch, capsys):
    from dask.distributed import Client, LocalCluster
    monkeypatch.setattr(sys.modules["analyses.sweep"], "NO_WORKERS_WAIT", 2.0, raising=False)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        e = _sweep_in_thread(client, 60)
    assert isinstance(e, ValueError) and "\n" not in str(e), e
    assert re.fullmatch(r"the Dask scheduler \S+ has had no workers for 2 s, with 30 tasks "
                        r"waiting; run the same sweep again .*", str(e)), e
    assert capsys.readouterr().err == ("sweep: the Dask scheduler has no workers; waiting 2 s "
                                       "for one\n")


def test_a_sweep_that_loses_its_scheduler_stops_with_one_line():
    from dask.distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=0, processes=False, dashboard_address=None)
    with Client(cluster) as client:
        threading.Timer(2.0, cluster.close).start()
        e = _sweep_in_thread(client, 60)
    assert isinstance(e, ValueError) and "\n" not in str(e), e
    assert re.fullmatch(r"lost the Dask scheduler \S+ \(\w+\); run the same sweep again .*",
                        str(e)), e


def test_every_variant_and_seating_plays_the_same_games():
    df = _inprocess()
    assert set(df["variant"].unique()) == {"enchanted_penalty=1", "enchanted_penalty=3"}
    # 2 players: 2 rotations; 3 players (greedy, careful, greedy): 3 rotations
    per = df.group_by("variant", "n_players").agg(pl.col("seating").n_unique()).sort(
        "variant", "n_players")
    assert per["seating"].to_list() == [2, 3, 2, 3]
    chance = [c for c in df.columns if c.startswith("event_")]
    a = df.filter((pl.col("variant") == "enchanted_penalty=1") & (pl.col("seat") == 0))
    b = df.filter((pl.col("variant") == "enchanted_penalty=3") & (pl.col("seat") == 0))
    assert a.select(chance).equals(b.select(chance))     # common random numbers
    assert not a["score"].equals(b["score"])             # the penalty matters


def test_an_interrupted_sweep_resumes_and_plays_only_what_is_missing(tmp_path):
    out = tmp_path / "sw"
    stop = []

    def interrupt(done, total):
        stop.append(done)
        if len(stop) == 3:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        _inprocess(out=out, progress=interrupt)
    written = sorted(out.rglob("part-*.parquet"))
    assert len(written) == 3 and not list(out.rglob("*.tmp"))
    played = []
    lf = _inprocess(out=out, progress=lambda done, total: played.append(total))
    # all but the three parts written: the first seating's games 0-49, 50-99, 100-119
    assert played[-1] == 120 * (2 + 3) * 2 - 120
    got = lf.collect().drop("variant").sort("n_players", "seating", "game", "seat")
    assert got.height == _inprocess().height
    want = _inprocess().drop("variant").sort("n_players", "seating", "game", "seat")
    assert got.select(sorted(want.columns)).equals(want.select(sorted(want.columns)))
    with pytest.raises(ValueError, match="seed"):
        _inprocess(out=out, seed=6)


def _copy(part, over):
    """``part`` and its record copied over another seating's part."""
    over.write_bytes(part.read_bytes())
    over.with_name(over.name + ".json").write_bytes(part.with_name(part.name + ".json")
                                                    .read_bytes())


@pytest.mark.parametrize("damage, why", [
    (lambda parts: parts[0].write_bytes(parts[0].read_bytes()[:-9]), "checksum"),
    (lambda parts: parts[1].with_name(parts[1].name + ".json").unlink(), "record"),
    (lambda parts: _copy(parts[0], parts[-1]), "another run's"),
])
def test_a_damaged_sweep_part_is_named_before_any_game(tmp_path, damage, why):
    """A resumed sweep checks each part already there against its record (run, folder,
    games, bytes), as ``simulate(out=...)`` does, and plays nothing when one is wrong."""
    out = tmp_path / "sw"
    _inprocess(out=out)
    parts = sorted(out.rglob("part-*.parquet"), key=lambda p: (p.parent.as_posix(), p.name))
    damage(parts)
    played = []
    with pytest.raises(ValueError, match=f"corrupt part file.*{why}"):
        _inprocess(out=out, progress=lambda done, total: played.append(done))
    assert not any(played)


@pytest.mark.parametrize("kw, match", [
    (dict(players=[1]), "2 to 5 players"),
    (dict(policies=["smart"]), "built-in policy names"),
    (dict(variants={"bogus": [1]}), "variant 'bogus=1'"),
    (dict(variants={"enchanted_penalty": []}), "at least one value"),
    (dict(variants=["/no/such.toml"]), "does not exist"),
    (dict(n_games=0), "n_games"),
])
def test_bad_sweeps_are_refused_before_any_game(kw, match):
    with pytest.raises(ValueError, match=match):
        _inprocess(**kw)


def test_variants_from_a_grid_and_from_files(tmp_path):
    f = tmp_path / "harsh.toml"
    f.write_text("enchanted_penalty = 4\n")
    grid = variants_of({"a": [1, 2], "b": [True]})
    assert [v.label for v in grid] == ["a=1,b=True", "a=2,b=True"]
    files = variants_of([f, {"enchanted_penalty": 2}])
    assert [v.label for v in files] == ["harsh", "enchanted_penalty=2"]
    import bloomsim
    assert files[0].rules(bloomsim).enchanted_penalty == 4
    assert seatings(["a", "b"], 3) == [("a", "b", "a"), ("b", "a", "a"), ("a", "a", "b")]


def test_the_table_counts_each_game_once():
    # two seatings of one game index: the start seat won in one of them
    df = pl.DataFrame({"variant": ["v"] * 4, "n_players": [2] * 4, "seating": ["a|b"] * 2 +
                       ["b|a"] * 2, "game": [0, 0, 0, 0], "seat": [0, 1, 0, 1],
                       "win": [1.0, 0.0, 0.0, 1.0], "rank": [1, 2, 2, 1],
                       "score": [5, 3, 2, 6], "pts_towers": [0] * 4})
    t = table(df)
    assert t["games"].to_list() == [1] and t["start_seat_win"].to_list() == [0.5]
    assert t["winner_score"].to_list() == [5.5]


def test_the_command_line_prints_the_table_or_one_line(capsys):
    assert main(["sweep", "bloomsim", "--vary", "enchanted_penalty=1,2", "--policy", "greedy",
                 "--players", "2", "--games", "40", "--scheduler", "inprocess"]) == 0
    assert "enchanted_penalty=2" in capsys.readouterr().out
    assert main(["sweep", "bloomsim", "--vary", "enchanted_penalty", "--policy", "greedy",
                 "--players", "2", "--games", "4", "--scheduler", "inprocess"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "FIELD=V1,V2" in err
