"""The option evaluator (``ForwardGame.values``) and the position sampler
(``simcore.forward.positions``), for every registered game with search agents: reproducible,
honest (nothing the acting seat cannot see reaches the values), the options sharing each
determinization (common random numbers), and bad arguments named."""
import numpy as np
import pytest
import toydice  # noqa: F401 - registers the toy game

from simcore import games
from simcore import search as SR
from simcore.forward import positions

GAMES = sorted(n for n in games.names() if hasattr(games.get(n).module(), "agent"))
FIELD = ["careful", "greedy", "random", "careful"]


@pytest.fixture(scope="module", params=GAMES)
def sample(request):
    """(game name, positions of 3 games, 2 sampled decisions each)."""
    return request.param, positions(request.param, 4, FIELD, 3, 2, 5)


def test_positions_are_decisions_of_the_real_games(sample):
    name, ps = sample
    logs = games.get(name).module().decision_logs(FIELD, 3, 5)
    assert len(ps) == 6
    assert [p.game_index for p in ps] == [0, 0, 1, 1, 2, 2]
    for p in ps:
        k = len(p.history)
        seat, _, n, choice = logs[p.game_index][k]
        assert p.to_act == (seat, n) and n >= 2 and p.played == choice
        assert list(p.history) == logs[p.game_index][:k, 3].tolist()
    # a game's sample does not depend on how many games were asked
    fewer = positions(name, 4, FIELD, 2, 2, 5)
    assert [p.history for p in fewer] == [p.history for p in ps[:4]]


def test_values_are_win_shares_reproducible_from_the_seed(sample):
    _, ps = sample
    for p in ps[:3]:
        v = p.values(3, 4)
        assert v.shape == (p.to_act[1], p.n_players) and v.dtype == np.float64
        assert np.allclose(v.sum(axis=1), 1.0) and (v >= 0).all()
        assert np.array_equal(v, p.values(3, 4))
    assert any(not np.array_equal(p.values(3, 4), p.values(4, 4)) for p in ps)


def test_values_are_honest(sample):
    """Every world the seat cannot tell from the true one gives the same values for a seed."""
    _, ps = sample
    for p in ps[:4]:
        seat = p.to_act[0]
        want = p.values(7, 3)
        for other in (1, 2):
            assert np.array_equal(p.determinize(seat, other).values(7, 3), want)


def test_options_share_each_determinization():
    """Iterations k n .. k n + n - 1 of a valuing search draw one determinization."""
    params = np.zeros(SR.AGENT_WORDS, np.int64)
    params[SR.A_ALGO], params[SR.A_ITER] = SR.FLAT, 12
    g = np.zeros(SR.region_words(params, 4), np.int64)
    seeds = {}
    for share in (0, 3):
        SR.begin(g, 0, params, 4, 1)
        SR.share_worlds(g, 0, share)
        seeds[share] = []
        while SR.next_iteration(g, 0):
            seeds[share].append(SR.determinization_seed(g, 0))
            SR.end_iteration(g, 0, np.zeros(2), np.zeros(2, np.int64), 2)
    assert len(set(seeds[0])) == 12
    assert [seeds[3][3 * (i // 3)] for i in range(12)] == seeds[3]
    assert len(set(seeds[3])) == 4


@pytest.mark.parametrize("kw, match", [
    ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"), ({"playouts": 0}, "playouts"),
    ({"playouts": True}, "playouts"), ({"playouts": SR.MAX_ITERATIONS}, "playouts"),
    ({"playout": "nonsense"}, "unknown playout"), ({"playout": 3}, "playout"),
])
def test_bad_values_arguments_are_named(sample, kw, match):
    _, ps = sample
    with pytest.raises(ValueError, match=match):
        ps[0].values(**{"seed": 1, **kw})


@pytest.mark.parametrize("kw, match", [
    ({"per_game": 0}, "per_game"), ({"policies": ["random"]}, "one policy per seat"),
    ({"game": toydice.GAME.name}, "decision logs"), ({"games": -1}, "n_games"),
])
def test_bad_positions_arguments_are_named(kw, match):
    args = {"game": GAMES[0], "players": 4, "policies": FIELD, "games": 2, "per_game": 1,
            "seed": 0, **kw}
    with pytest.raises(ValueError, match=match):
        positions(**args)
