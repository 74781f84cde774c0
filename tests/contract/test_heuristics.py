"""Heuristics with other weights (``GAME.heuristic``), for every game that declares weights:
with the built-in weights they play exactly the built-in's games, they go wherever a policy
goes (by object or by name), and bad weights are named in one line."""
import pytest

import bloomsim
import rapinsim
from simcore.policy import Heuristic

GAMES = {"bloomsim": (bloomsim, "careful", "points", ["greedy", "cloud", "random"]),
         "rapinsim": (rapinsim, "careful", "unknown", ["greedy", "evader", "keeper"])}


@pytest.fixture(params=sorted(GAMES))
def game(request):
    return GAMES[request.param]


def _frame(mod, seats, n=200, seed=11, **kw):
    return mod.simulate(seats, n, seed, progress=False, **kw).drop("policy")


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_the_built_in_weights_play_the_built_in_games(game, engine):
    mod, base, _, field = game
    n = 200 if engine == "compiled" else 4
    for name, weights in mod.WEIGHTS.defaults.items():
        h = mod.heuristic(name, **dict(zip(mod.WEIGHTS.names, weights)))
        assert h.name != name      # every weight given: a name of its own
        assert _frame(mod, [h, *field], n, engine=engine).equals(
            _frame(mod, [name, *field], n, engine=engine))


def test_other_weights_change_the_games_and_show_their_name(game):
    mod, base, weight, field = game
    lo, hi = mod.WEIGHTS.bounds[mod.WEIGHTS.names.index(weight)]
    h = mod.heuristic(base, **{weight: min(hi, 30.0)})
    df = mod.simulate([h, *field], 200, 11, progress=False)
    assert df.filter(df["seat"] == 0)["policy"].unique().to_list() == [h.name]
    assert not df.drop("policy").equals(_frame(mod, [base, *field]))


def test_a_heuristic_by_name_is_the_same_policy(game):
    mod, base, weight, field = game
    h = mod.heuristic(base, **{weight: 2.5})
    assert h.name == f"{base}[{weight}=2.5]"
    assert mod.heuristic(h.name) == h
    assert mod.simulate([h.name, *field], 50, 3).equals(mod.simulate([h, *field], 50, 3))
    assert mod.heuristic(base) == Heuristic(mod.__name__, base,
                                            mod.WEIGHTS.defaults[base], ())


@pytest.mark.parametrize("bad, words", [
    (("careful", {"nope": 1.0}), "unknown heuristic weight 'nope'"),
    (("careful", {"W": -1.0}), "out of range"),
    (("careful", {"W": float("nan")}), "out of range"),
    (("careful", {"W": "x"}), "must be a number"),
    (("random", {}), "unknown heuristic 'random'"),
    (("careful[W=abc]", {}), "must be a number, got 'abc'"),
    (("careful[W]", {}), "must be written name=value"),
])
def test_bad_weights_are_named_in_one_line(game, bad, words):
    mod, _, weight, _ = game
    base, kw = bad
    base = base.replace("W", weight)
    kw = {k.replace("W", weight): v for k, v in kw.items()}
    with pytest.raises(ValueError) as e:
        mod.heuristic(base, **kw)
    assert words.replace("W", weight) in str(e.value) and "\n" not in str(e.value)


def test_a_heuristic_of_another_game_is_refused(game):
    mod, base, _, field = game
    other = GAMES["rapinsim" if mod is bloomsim else "bloomsim"][0]
    with pytest.raises(ValueError, match="is a heuristic of"):
        mod.simulate([other.heuristic("careful"), *field], 2, 0)


def test_a_replay_names_the_heuristic_it_plays(game):
    mod, base, weight, field = game
    h = mod.heuristic(base, **{weight: 3.0})
    assert h.name in mod.replay([h, *field], 1, 0)
