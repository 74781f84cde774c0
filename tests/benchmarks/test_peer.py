import pytest

from benchmarks import peer

pyspiel = pytest.importorskip("pyspiel")   # the optional extra `peers`


def test_hearts_rollouts_count_the_decisions_of_the_timed_games():
    rec = peer.hearts(n_games=3, reps=2, seed=5)
    assert rec["reps"] == 2 and rec["threads"] == 1
    # 52 cards played, plus 12 passed unless the chance draw says no passing this hand
    assert 52 <= rec["decisions_per_game"] <= 64
    assert rec["steps_per_s"] > rec["decisions_per_s"] > rec["games_per_s"] > 0
    assert rec["decisions_per_s"] == pytest.approx(rec["decisions_per_game"] * rec["games_per_s"])


def test_hearts_chance_is_uniform_so_the_driver_samples_it_right():
    peer.check_uniform_chance(pyspiel.load_game("hearts"), seed=1)
