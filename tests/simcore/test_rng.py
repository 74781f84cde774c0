"""The compiled streams and the reference engines' PyRng must be the same generator."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simcore import rng


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**63), game=st.integers(0, 2**40), n=st.integers(1, 2**31),
       mask=st.integers(0, 7))
def test_compiled_and_python_streams_agree(seed, game, n, mask):
    key, alt = rng.root_key(seed), rng.redraw_key(seed, 3)
    state = np.zeros(3, np.uint64)
    rng.seed_streams(np.uint64(key), game, state, mask, np.uint64(alt))
    py = rng.PyRng(key, game, 2, 1, (mask, alt))
    assert [int(s) for s in state] == py.state
    for k in range(3):
        assert rng.randint(state, k, n) == py.randint(k, n)
        assert rng.uniform(state, k) == py.uniform(k)
    assert [int(s) for s in state] == py.state


def test_a_redraw_changes_its_streams_only():
    key, alt = rng.root_key(4), rng.redraw_key(4, 0)
    base = rng.PyRng(key, 9, 3, 2).state
    drawn = rng.PyRng(key, 9, 3, 2, (0b10010, alt)).state
    assert [a == b for a, b in zip(base, drawn)] == [True, False, True, True, False]
    again = rng.PyRng(key, 9, 3, 2, (0b10010, rng.redraw_key(4, 1))).state
    assert again[1] != drawn[1] and again[4] != drawn[4]


def test_redraw_keys_are_distinct_and_checked():
    keys = {rng.root_key(s) for s in range(3)} | {rng.redraw_key(s, k) for s in range(3)
                                                 for k in range(5)}
    assert len(keys) == 18
    with pytest.raises(ValueError, match="redraw's key"):
        rng.redraw_key(1, -1)


def test_seats_follow_the_chance_streams():
    assert rng.PyRng(0, 0, 4, 3).seat(2) == 6


def test_shuffle_agrees_and_is_a_permutation():
    key = rng.root_key(11)
    state = np.zeros(1, np.uint64)
    rng.seed_streams(np.uint64(key), 3, state, 0, 0)
    arr = np.arange(24, dtype=np.int64)
    rng.shuffle(state, 0, arr, 24)
    items = list(range(24))
    rng.PyRng(key, 3, 1, 0).shuffle(0, items)
    assert arr.tolist() == items
    assert sorted(items) == list(range(24))


def test_streams_differ_between_games_and_streams():
    key = np.uint64(rng.root_key(0))
    seen = set()
    for game in range(200):
        state = np.zeros(4, np.uint64)
        rng.seed_streams(key, game, state, 0, 0)
        seen.update(int(s) for s in state)
    assert len(seen) == 800


def test_randint_is_roughly_uniform():
    state = np.zeros(1, np.uint64)
    rng.seed_streams(np.uint64(rng.root_key(5)), 0, state, 0, 0)
    counts = np.bincount([rng.randint(state, 0, 6) for _ in range(60_000)], minlength=6)
    # each face expects 10,000 draws; 5 standard deviations is about 456
    assert np.all(np.abs(counts - 10_000) < 460), counts


@pytest.mark.parametrize("bad", [-1, 1.5, "7", True, None])
def test_root_key_rejects_bad_seeds(bad):
    with pytest.raises(ValueError, match="seed"):
        rng.root_key(bad)
