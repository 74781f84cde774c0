"""pandas users are at home: every analysis takes a pandas frame and gives the same table as for
the polars frame it came from, and a results frame converts with ``.to_pandas()``."""
import pandas as pd
import polars as pl
from polars.testing import assert_frame_equal

from analyses import event_impact, report, seat_advantage, win_rates
from analyses.tournament import pairwise
from synth import bloom_frame, rapin_frame


def _both(fn, df, **kw):
    pdf = df.to_pandas()
    assert isinstance(pdf, pd.DataFrame) and len(pdf) == df.height
    assert_frame_equal(fn(pdf, **kw), fn(df, **kw))


def test_win_rates_seats_and_pairs_of_a_pandas_frame_equal_the_polars_ones():
    df = rapin_frame(3000, ("careful", "greedy", "random", "random"), seed=4)
    _both(win_rates, df)
    _both(win_rates, df, by=["character"])
    _both(seat_advantage, df)
    _both(pairwise, df)


def test_event_impact_of_a_pandas_frame_equals_the_polars_one():
    _both(event_impact, bloom_frame(3000, seed=2))
    _both(event_impact, rapin_frame(3000, seed=2))


def test_a_report_from_a_pandas_frame(tmp_path):
    page = report(bloom_frame(2000, seed=3).to_pandas(), tmp_path / "r")
    assert "Broom Service" in page.read_text()


def test_a_results_frame_round_trips_through_pandas():
    df = bloom_frame(500, seed=1)
    back = pl.from_pandas(df.to_pandas())
    assert back.columns == df.columns and back.height == df.height
    assert_frame_equal(win_rates(back), win_rates(df))


def test_the_engines_frames_convert_to_pandas():
    import bloomsim
    import rapinsim
    for sim in (bloomsim.simulate, rapinsim.simulate):
        df = sim(["random", "greedy"], 50, seed=1)
        pdf = df.to_pandas()
        assert list(pdf.columns) == df.columns and len(pdf) == 100
        assert_frame_equal(win_rates(pdf), win_rates(df))
