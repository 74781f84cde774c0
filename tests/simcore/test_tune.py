"""The tuner (NTBEA) on toy problems with a known optimum: no game, a noisy function."""
import numpy as np
import pytest

from simcore.tune import ntbea

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
