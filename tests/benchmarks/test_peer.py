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


def test_ismcts_bots_search_their_full_budget_at_each_timed_decision():
    recs = peer.ismcts(iterations=20, n_positions=3, reps=2, seed=5)
    assert [r["bot"] for r in recs] == ["C++", "Python"]
    for r in recs:
        assert r["game"] == "open_spiel leduc_poker" and r["threads"] == 1
        assert r["timed_iterations"] == 20 * 3 * 2 and r["iterations_per_cpu_s"] > 0


def test_leduc_positions_are_decisions_between_actions():
    positions = peer.leduc_positions(pyspiel.load_game("leduc_poker"), 10, seed=2)
    assert len(positions) == 10
    assert all(s.is_player_node() and len(s.legal_actions()) > 1 for s in positions)
