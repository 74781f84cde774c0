"""The HTML report and the command line on small synthetic files; bad input."""
import shutil
import subprocess
import sys

import polars as pl
import pytest

from analyses import report, scan
from analyses.cli import main
from analyses.data import InputError, detect_game
from synth import bloom_frame, rapin_frame


@pytest.fixture(scope="module")
def bloom_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("res") / "bloom.parquet"
    bloom_frame(3000, policies=("a", "b", "c", "a"), event_bonus={"flock_together": 3},
                seed=1).write_parquet(path)
    return path


@pytest.fixture(scope="module")
def rapin_dataset(tmp_path_factory):
    """A directory dataset as simulate(out=DIR) writes it: part-*.parquet files."""
    folder = tmp_path_factory.mktemp("rapin")
    for k in range(3):
        rapin_frame(1000, seed=k, start=1000 * k).write_parquet(folder / f"part-{k:06d}.parquet")
    return folder


def test_report_on_a_file(bloom_file, bloom_board, tmp_path):
    page = report(scan(bloom_file), tmp_path / "r", board=bloom_board)
    text = page.read_text()
    assert "Broom Service (bloomsim)" in text and "Headlines" in text
    assert "Strongest policy" in text
    # each policy sat in a fixed seat (a, b, c, a): no seat verdict, said so
    assert ("Seats (4 players): each policy sat in a fixed seat, so seat effects cannot be "
            "read") in text and "best seat" not in text
    # the assumptions box, generated from the provenance data: one line each
    assert "rests on the default rules data, and these" in text
    assert "<li>[gap] board: an approximation of the printed map" in text
    assert "<li>[invention] events.empty_handed:" in text
    assert "[seed] rounds" not in text
    for img in ("winrates", "seats", "scores", "events-win", "events-score", "board"):
        assert f'src="bloomsim-{img}.png"' in text
        assert (tmp_path / "r" / f"bloomsim-{img}.png").stat().st_size > 5000
    assert "Flock Together" in text and "More or Less? (増やす？減らす？)" in text


def test_report_on_a_dataset_directory(rapin_dataset, town_board, tmp_path):
    lf = scan(rapin_dataset)
    assert detect_game(lf) == "rapinsim"
    assert lf.select(pl.len()).collect().item() == 3000 * 4
    page = report(lf, tmp_path / "r", board=town_board)
    text = page.read_text()
    assert "Lapin treasure hunt" in text and "mean treasures" in text
    assert (tmp_path / "r" / "rapinsim-board.png").exists()
    assert "Strongest character" in text and (tmp_path / "r" / "rapinsim-characters.png").exists()
    # the character headline names the inventions it rests on (the roster: three are no seed's)
    assert "Rests on: [invention] characters: a roster of six" in text
    assert "<li>[invention] districts: 16 districts, a 4x4 town" in text
    # one policy in every seat: seats comparable, the verdict in words
    assert "Seats (4 players): the start seat wins" in text
    assert "no evidence that the seats differ (p = " in text or "seats are <b>not equal" in text


def test_cli_tables(bloom_file, rapin_dataset, capsys):
    assert main(["winrates", str(bloom_file)]) == 0
    out = capsys.readouterr().out
    assert "win rate [95% CI]" in out and "│ a " in out
    assert main(["seats", str(rapin_dataset)]) == 0
    out = capsys.readouterr().out
    assert "mean treasures" in out and "4 players: " in out and "multinomial" in out
    assert main(["seats", str(bloom_file)]) == 0
    assert "seat effects cannot be read from these results" in capsys.readouterr().out
    assert main(["events", str(bloom_file), "--adjust", "bh"]) == 0
    out = capsys.readouterr().out
    assert "Flock Together" in out and "bh over one family, all 120 tests" in out  # 20 x 3 x 2
    assert main(["winrates", str(bloom_file), "--by", "policy", "seat"]) == 0


@pytest.mark.parametrize("make,message", [
    (lambda p: None, "no such file"),
    (lambda p: p.write_text("not parquet"), "not a readable Parquet file"),
    (lambda p: pl.DataFrame({"x": [1]}).write_parquet(p), "missing columns"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, make, message):
    path = tmp_path / "in.parquet"
    make(path)
    assert main(["seats", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_input_in_a_subprocess_exits_2(tmp_path):
    r = subprocess.run([sys.executable, "-m", "analyses", "report", str(tmp_path / "none"),
                        "--out", str(tmp_path / "r")], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("analyses: error:")
    assert "Traceback" not in r.stderr


def test_unknown_game_and_wrong_columns_are_named():
    with pytest.raises(InputError, match="which game"):
        detect_game(pl.LazyFrame({"game": [0], "seat": [0]}))


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_page_renders_in_headless_chromium(bloom_file, bloom_board, tmp_path):
    page = report(scan(bloom_file), tmp_path / "r", board=bloom_board)
    shot = tmp_path / "shot.png"
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", f"--screenshot={shot}",
                    "--window-size=1200,3000", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    assert shot.stat().st_size > 50_000  # a rendered page with tables and plots, not blank


def test_seat_design_tells_fixed_seats_from_rotated():
    from analyses.seats import seat_design
    assert seat_design(bloom_frame(100, policies=("a", "b", "a", "b"))) == {4: "confounded"}
    turned = pl.concat([bloom_frame(100, policies=p) for p in (("a", "b"), ("b", "a"))])
    assert seat_design(turned) == {2: "rotated"}
    assert seat_design(bloom_frame(100)) == {4: "one policy"}
    lopsided = pl.concat([bloom_frame(100, policies=p) for p in (("a", "b"), ("a", "a"))])
    assert seat_design(lopsided) == {2: "unbalanced"}


def test_seat_headline_says_the_verdict_not_the_hypothesis():
    from analyses import seat_advantage
    from analyses.report import seat_headline
    unequal = seat_headline(seat_advantage(bloom_frame(20000, seat_bonus=(3, 0, 0, 0), seed=5)))
    assert "seats are <b>not equal</b> (p = " in unequal and "multinomial chi-square" in unequal
    assert "all seats equal" not in unequal
    fair = seat_headline(seat_advantage(bloom_frame(4000, seed=100)))
    assert "no evidence that the seats differ (p = 0." in fair


def test_board_plot_shows_each_cloud_of_an_area_with_several():
    # an area named twice in cloud_spaces holds two clouds: columns charmed_<area>, <area>_2
    from bloomsim.plots import board_figure
    from bloomsim.rules import default_rules

    board = default_rules().to_dict()["board"]
    board["cloud_spaces"] = ["A03", "A03", "A05"]
    fig = board_figure(board, {"deliveries": {}, "pawns": {},
                                   "charmed": {"A03": 0.25, "A03_2": 0.5, "A05": 0.75}})
    labels = sorted(t.get_text() for ax in fig.axes for t in ax.texts if "cloud" in t.get_text())
    assert labels == ["cloud 25%", "cloud 50%", "cloud 75%"]


def _effects(rows):
    return pl.DataFrame(rows, schema=["kind", "thing", "by", "group", "win_diff", "win_ci_low",
                                      "win_ci_high", "change"], orient="row")


def test_a_thing_with_a_large_effect_anywhere_is_never_called_most_balanced():
    # chimame moves each policy's win rate by almost nothing when it leaves the roster (every
    # policy lost it alike), but whoever holds it wins 10 points more: not balanced; the lamp
    # helps one policy and hurts the other: both sides are said
    from analyses.report import _balance_headlines
    out = "left out of the roster"
    replayed = _effects([
        ("character", "chimame", "policy", "a", 0.004, -0.006, 0.014, out),
        ("character", "chimame", "policy", "b", -0.002, -0.012, 0.008, out),
        ("item", "lamp", "policy", "a", 0.030, 0.020, 0.040, out),
        ("item", "lamp", "policy", "b", -0.025, -0.035, -0.015, out),
        ("trap", "alarm", "policy", "a", 0.010, 0.000, 0.020, out)])
    observed = _effects([
        ("character", "chimame", "all", "all", 0.100, 0.090, 0.110, None),
        ("item", "lamp", "all", "all", 0.020, 0.010, 0.030, None),
        ("trap", "alarm", "all", "all", 0.012, 0.002, 0.022, None)]).drop("change")
    [headline] = _balance_headlines(observed, replayed, "rapinsim", "rules.json")
    least, most = headline.split("Most balanced: ")
    assert "<b>item Lamp (ランプ)</b>" in least and "policy a by +3.0 percentage points" in least \
        and "policy b by -2.5 percentage points" in least
    assert "チマメ探偵団" not in most and "<b>trap Alarm</b>" in most
    assert "no group's win rate moves by more than 1.2 percentage points with it" in most
    assert "(the largest: the win rate by +1.2 percentage points [+0.2, +2.2], " \
        "observational, with - without)" in most


def test_lapin_town_districts_differ_and_every_label_reads_on_its_district():
    from analyses.plots import contrast
    from rapinsim.plots import town_figure
    route = list(range(1, 11))
    close = {d: 1.0 + d / 100 for d in route}       # 1.01 .. 1.10 searches per game
    fig = town_figure(10, route, [(1, 6)], close, dict.fromkeys(route, 0.2))
    for ax in fig.axes[:2]:
        fills = [c.get_facecolor()[0] for c in ax.collections]
        labels = [t for t in ax.texts]
        assert len(labels) == 2 * len(fills) == 20
        for i, fill in enumerate(fills):           # a district's number and value on it
            for t in labels[2 * i:2 * i + 2]:
                assert contrast(t.get_color(), fill) >= 4.5, (t.get_text(), fill)
    fills = [c.get_facecolor()[0] for c in fig.axes[0].collections]
    assert contrast(fills[0], fills[-1]) >= 3      # the least and the most searched apart


def test_seat_plot_names_the_test_and_claims_no_equality():
    # a p-value that does not reject says nothing is shown to differ, not that seats are equal
    from analyses import seat_advantage
    from analyses.plots import seat_plot
    fig = seat_plot(seat_advantage(bloom_frame(4000, seed=100)))
    words = " ".join(ax.get_xlabel() for ax in fig.axes)
    assert "test of equal seats: p = 0." in words and "seats equal)" not in words


def test_a_headline_names_the_provenance_entries_of_its_things():
    from analyses.report import _assumption
    said = _assumption("rapinsim", "character", ("cocoa",), None)
    assert "[invention] characters: a roster of six" in said          # the family's own entry
    assert "[invention] characters.cocoa:" in said and "chimame" not in said
    assert "characters.inaba.skill" in _assumption("rapinsim", "character", ("inaba",), None)
    assert _assumption("bloomsim", "event", ("rounds",), None) == ""   # events: a seed entry
    assert _assumption("rapinsim", "character", ("cocoa",), "my-rules.json") == ""
