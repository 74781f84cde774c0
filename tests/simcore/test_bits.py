import numpy as np
from hypothesis import given, strategies as st
from numba import njit

from simcore.bits import nth_set_bit, popcount


@njit("UniTuple(int64, 2)(int64, int64)")   # compiled here, not inside the timed examples
def _both(w, r):
    return np.int64(popcount(np.uint64(w))), nth_set_bit(w, r)


@given(st.integers(1, 2**63 - 1), st.data())
def test_popcount_and_nth_set_bit_match_a_plain_scan(w, data):
    ones = [i for i in range(64) if (w >> i) & 1]
    r = data.draw(st.integers(0, len(ones) - 1))
    assert _both(np.int64(w), r) == (len(ones), ones[r])


def test_nth_set_bit_of_a_complement_finds_the_nth_clear_bit():
    hand = 0b1011          # roles 0, 1 and 3 in hand: clear bits 2, 4, 5, ...
    assert [_both(np.int64(~hand), c)[1] for c in range(3)] == [2, 4, 5]
