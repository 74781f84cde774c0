"""The tuners (NTBEA, the evolution strategy) on toy problems with a known optimum: no game, a
noisy function."""
import numpy as np
import pytest

from simcore.tune import Evolution, evolve, ntbea

LEVELS = [[0.0, 0.5, 1.0, 1.5, 2.0]] * 3
OPTIMUM = (0.5, 1.5, 1.0)
SD = 0.1


def noisy(values, i):
    """Like a win rate: 0.5 at OPTIMUM, falling off as a bowl, plus noise of sd SD (evaluation
    i's own): one level off the optimum costs 0.075, less than the noise."""
    noise = np.random.default_rng([7, i]).normal(0.0, SD)
    return 0.5 - 0.3 * sum((v - o) ** 2 for v, o in zip(values, OPTIMUM)) + noise


@pytest.mark.parametrize("seed", range(5))
def test_it_finds_the_optimum_of_a_noisy_function(seed):
    """With k four times the noise (found 20 times in 20 seeds when written)."""
    t = ntbea(noisy, LEVELS, budget=200, seed=seed, k=4 * SD)
    assert t.values == pytest.approx(OPTIMUM)
    assert len(t.evaluated) == 200 and t.best in [p for p, _ in t.race]


def test_the_race_measures_the_finalists_on_the_same_noise():
    calls = []

    def f(values, i):
        calls.append((values, i))
        return noisy(values, i)
    t = ntbea(f, LEVELS, budget=30, seed=2, k=0.4, start=(0, 0, 0), finalists=3, final=5)
    race = calls[30:]
    assert len(race) == 5 * len(t.race) and (0, 0, 0) in [p for p, _ in t.race]
    assert [i for _, i in race] == list(range(30, 35)) * len(t.race)
    assert t.estimate == max(m for _, m in t.race)
    no_race = ntbea(noisy, LEVELS, budget=30, seed=2, k=0.4, start=(0, 0, 0), final=0)
    assert no_race.race == () and no_race.evaluated == t.evaluated


def test_the_same_seed_gives_the_same_search():
    a = ntbea(noisy, LEVELS, budget=60, seed=5, k=0.4)
    b = ntbea(noisy, LEVELS, budget=60, seed=5, k=0.4)
    c = ntbea(noisy, LEVELS, budget=60, seed=6, k=0.4)
    assert a == b
    assert a.evaluated != c.evaluated


def test_start_is_the_first_point_evaluated():
    t = ntbea(noisy, LEVELS, budget=5, seed=0, start=(0, 4, 2))
    assert t.evaluated[0][0] == (0, 4, 2)


@pytest.mark.parametrize("kw, words", [
    ({"budget": 0}, "budget must be a positive"),
    ({"start": (0, 5, 0)}, "is not a point of the grid"),
    ({"k": -1.0}, "k must be >= 0"),
    ({"final": -1}, "final >= 0"),
])
def test_bad_arguments_are_named(kw, words):
    args = {"budget": 5, **kw}
    with pytest.raises(ValueError, match=words):
        ntbea(noisy, LEVELS, seed=0, **args)


def _noisy_bowl(optimum):
    """Fitness peaked at ``optimum``; step t's noise is shared by all its points (as common
    random numbers give)."""
    def fitness(points, t):
        shift = np.random.default_rng(t).normal(0.0, 1.0)
        return shift - ((points - optimum) ** 2).sum(axis=1)
    return fitness


def test_evolve_climbs_toward_the_optimum():
    optimum = np.array([1.0, -2.0, 0.5])
    state = evolve(_noisy_bowl(optimum), Evolution.start(3), 60, seed=1, population=8, lr=0.1)
    assert state.step == 60 and len(state.fitness) == 60
    assert np.abs(state.theta - optimum).max() < 0.3
    assert state.fitness[-1] > state.fitness[0]


def test_evolve_resumed_goes_on_as_one_unbroken_run():
    f = _noisy_bowl(np.array([0.5, 0.5]))
    whole = evolve(f, Evolution.start(2), 8, seed=4, population=3)
    seen = []
    part = evolve(f, Evolution.start(2), 5, seed=4, population=3,
                  on_step=lambda s: seen.append(s.step))
    assert seen == [1, 2, 3, 4, 5]
    resumed = evolve(f, Evolution(part.theta.copy(), part.m.copy(), part.v.copy(),
                                  list(part.fitness)), 8, seed=4, population=3)
    assert np.array_equal(resumed.theta, whole.theta) and resumed.fitness == whole.fitness


@pytest.mark.parametrize("kw, words", [({"steps": -1}, "steps"), ({"population": 0}, "population"),
                                       ({"lr": 0.0}, "lr")])
def test_evolve_names_a_bad_argument(kw, words):
    args = {"steps": 2, "population": 2, "lr": 0.05} | kw
    with pytest.raises(ValueError, match=words):
        evolve(_noisy_bowl(np.zeros(1)), Evolution.start(1), args.pop("steps"), 0, **args)


def test_evolve_names_a_fitness_of_the_wrong_shape():
    with pytest.raises(ValueError, match="fitness gave"):
        evolve(lambda p, t: np.zeros(3), Evolution.start(2), 1, 0, population=2)
