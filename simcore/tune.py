"""Tuning a parameter vector against a noisy fitness, written once for any game and any
parameters. A few parameters on a grid: the N-tuple bandit evolutionary algorithm (``ntbea``;
Lucas, Liu & Perez-Liebana 2018, "The N-Tuple Bandit Evolutionary Algorithm for Game Agent
Optimisation"), which ``analyses.tune`` gives a fitness that plays games. Hundreds of
continuous parameters (a distilled policy's weights): a natural evolution strategy
(``evolve``), which ``analyses.distill.improve`` uses.

NTBEA: each parameter takes one of a few values (levels). The search keeps one point; at each
step it evaluates the point once (a noisy fitness), adds the result to the statistics of every
N-tuple the point belongs to (here each 1-tuple, one parameter's level, and the full tuple, the
whole point), then moves to the most promising of up to ``neighbours`` random neighbours (each
parameter changed with probability 1/d, at least one): the one whose tuples have the highest
upper confidence bound, the mean of each tuple's mean fitness plus
``k * sqrt(ln(evaluations + 1) / (n + 0.5))`` (n the tuple's evaluations; ``k`` in the
fitness's units: about twice the standard deviation of one evaluation's noise explores enough
without wandering). The model ranks the evaluated points by their tuples' mean fitness, each
tuple weighted by its evaluations (no exploration term). Its favourite is not trusted blindly:
a 1-tuple's mean also holds the other parameters' levels it was seen with, so the ranking is
confounded, and its top is the winner of many noisy estimates. So a final race measures the
model's ``finalists`` best points, and the start point, directly: each on the same ``final``
further evaluations (evaluation indices budget .., the same noise for all: common random
numbers), and the answer is the point with the highest mean there.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

EPS = 0.5
"""Pseudo-count of a tuple's exploration term (an unseen tuple: a large bonus, not infinite)."""


@dataclass(frozen=True)
class Tuning:
    """What a search found: the best point (level indices and values), its estimate, and
    every evaluation in order."""

    best: tuple[int, ...]
    values: tuple[float, ...]
    estimate: float                                 # its mean fitness in the final race
    evaluated: tuple[tuple[tuple[int, ...], float], ...]   # (point, fitness) per evaluation
    race: tuple[tuple[tuple[int, ...], float], ...] = ()   # finalist, its mean in the race


class _Tuples:
    """Fitness statistics of each 1-tuple and of the full tuple."""

    def __init__(self, d: int):
        self.tuples = [(j,) for j in range(d)] + ([tuple(range(d))] if d > 1 else [])
        self.n: dict = {}
        self.total: dict = {}
        self.count, self.sum = 0, 0.0

    def add(self, x: tuple[int, ...], f: float) -> None:
        self.count += 1
        self.sum += f
        for t in self.tuples:
            key = (t, tuple(x[j] for j in t))
            self.n[key] = self.n.get(key, 0) + 1
            self.total[key] = self.total.get(key, 0.0) + f

    def score(self, x: tuple[int, ...], explore: float, evaluations: int) -> float:
        """Mean over the tuples of (mean fitness + exploration bonus); an unseen tuple's mean
        is the mean of every fitness seen (neither hope nor fear of the unknown)."""
        s = 0.0
        prior = self.sum / self.count if self.count else 0.0
        for t in self.tuples:
            key = (t, tuple(x[j] for j in t))
            n = self.n.get(key, 0)
            mean = self.total[key] / n if n else prior
            s += mean + explore * math.sqrt(math.log(evaluations + 1) / (n + EPS))
        return s / len(self.tuples)

    def estimate(self, x: tuple[int, ...]) -> float:
        """The tuples' mean fitness at x, each tuple weighted by its evaluations (a point's
        full tuple, seen once, weighs little against its 1-tuples): the answer's criterion."""
        s, m = 0.0, 0
        for t in self.tuples:
            key = (t, tuple(x[j] for j in t))
            s += self.total.get(key, 0.0)
            m += self.n.get(key, 0)
        return s / m if m else -math.inf


def ntbea(fitness: Callable[[tuple[float, ...], int], float], levels: Sequence[Sequence[float]],
          budget: int, seed: int, *, start: Sequence[int] | None = None, k: float = 1.0,
          neighbours: int = 50, finalists: int = 4, final: int = 10,
          on_eval: Callable[[int, float], None] | None = None) -> Tuning:
    """Search the grid ``levels`` (one sequence of values per parameter) for the highest mean
    of ``fitness(values, i)`` (``i``: the evaluation's index, so that each evaluation can draw
    its own noise: 0 .. budget - 1 in the search, budget .. budget + final - 1 for every
    finalist of the race) with ``budget`` evaluations, then the race (``finalists`` points
    and the start, ``final`` evaluations each; ``final`` 0: no race, the model's favourite).
    ``start``: the first point's level indices (default: random). The search's own choices
    come from ``seed``: the same arguments give the same result. ``on_eval(i, fitness)``
    after each evaluation."""
    d = len(levels)
    if d == 0 or any(len(v) == 0 for v in levels):
        raise ValueError("ntbea: give at least one parameter, each with at least one level")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"ntbea: budget must be a positive number of evaluations, got "
                         f"{budget!r}")
    if not (k >= 0 and math.isfinite(k)) or neighbours < 1 or finalists < 1 or final < 0:
        raise ValueError(f"ntbea: k must be >= 0, neighbours and finalists >= 1, final >= 0; "
                         f"got k={k!r}, neighbours={neighbours!r}, finalists={finalists!r}, "
                         f"final={final!r}")
    sizes = [len(v) for v in levels]
    rng = np.random.default_rng(seed)
    if start is None:
        x = tuple(int(rng.integers(n)) for n in sizes)
    else:
        if len(start) != d or not all(0 <= s < n for s, n in zip(start, sizes)):
            raise ValueError(f"ntbea: start {list(start)} is not a point of the grid "
                             f"{sizes}")
        x = tuple(int(s) for s in start)
    model = _Tuples(d)
    evaluated: list[tuple[tuple[int, ...], float]] = []
    seen: dict[tuple[int, ...], None] = {}
    for i in range(budget):
        f = float(fitness(tuple(levels[j][x[j]] for j in range(d)), i))
        model.add(x, f)
        evaluated.append((x, f))
        seen[x] = None
        if on_eval is not None:
            on_eval(i, f)
        x = _next(model, x, sizes, rng, k, i + 1, neighbours)
    ranked = sorted(seen, key=model.estimate, reverse=True)
    if final == 0:
        best = ranked[0]
        return Tuning(best, tuple(float(levels[j][best[j]]) for j in range(d)),
                      model.estimate(best), tuple(evaluated))
    first = evaluated[0][0]
    race = []
    for p in dict.fromkeys([*ranked[:finalists], first]):
        values = tuple(levels[j][p[j]] for j in range(d))
        fs = [float(fitness(values, budget + r)) for r in range(final)]
        for r, f in enumerate(fs):
            if on_eval is not None:
                on_eval(budget + r, f)
        race.append((p, float(np.mean(fs))))
    best, mean = max(race, key=lambda e: e[1])
    return Tuning(best, tuple(float(levels[j][best[j]]) for j in range(d)), mean,
                  tuple(evaluated), tuple(race))


def _next(model: _Tuples, x: tuple[int, ...], sizes: list[int], rng: np.random.Generator,
          explore: float, evaluations: int, neighbours: int) -> tuple[int, ...]:
    """The neighbour of x with the highest upper confidence bound (the first on ties)."""
    d = len(sizes)
    movable = [j for j in range(d) if sizes[j] > 1]
    if not movable:
        return x
    cands: dict[tuple[int, ...], None] = {}
    for _ in range(4 * neighbours):
        if len(cands) == neighbours:
            break
        y = list(x)
        flip = [j for j in movable if rng.random() < 1.0 / d] or [movable[rng.integers(
            len(movable))]]
        for j in flip:
            v = int(rng.integers(sizes[j] - 1))
            y[j] = v + (v >= x[j])          # another level, uniformly
        cands[tuple(y)] = None
    return max(cands, key=lambda y: model.score(y, explore, evaluations))


@dataclass
class Evolution:
    """Where an evolution strategy stands: its point, Adam's moment estimates, the steps taken
    and each step's mean fitness (all a resumed run needs to go on as an unbroken one)."""

    theta: np.ndarray
    m: np.ndarray
    v: np.ndarray
    fitness: list[float]

    @classmethod
    def start(cls, dim: int) -> Evolution:
        return cls(np.zeros(dim), np.zeros(dim), np.zeros(dim), [])

    @property
    def step(self) -> int:
        return len(self.fitness)


ADAM = (0.9, 0.999, 1e-8)
"""Adam's decay rates of the gradient's first and second moments, and its guard."""


def evolve(fitness: Callable[[np.ndarray, int], np.ndarray], state: Evolution, steps: int,
           seed: int, *, population: int = 16, lr: float = 0.05,
           on_step: Callable[[Evolution], None] | None = None) -> Evolution:
    """A natural evolution strategy (Salimans et al. 2017, "Evolution Strategies as a Scalable
    Alternative to Reinforcement Learning") from ``state`` until it has taken ``steps`` steps.

    Step t evaluates ``population`` antithetic pairs theta +- eps (eps ~ N(0, I), drawn from
    (seed, t): a resumed run draws what an unbroken one would) with ``fitness(points, t)``
    ([2 population, dim] -> [2 population]), which should give every point of a step the same
    noise (common random numbers: a pair's difference is then its perturbation's, not luck's).
    The fitnesses become centred ranks (robust to the fitness's scale and to outliers), the
    gradient estimate is the rank difference of each pair times its eps, and theta takes an
    Adam step of ``lr`` (about ``lr`` per coordinate whatever the gradient's size).
    ``on_step(state)`` after each step. The state is updated in place and returned."""
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"evolve: steps must be an integer >= 0, got {steps!r}")
    if isinstance(population, bool) or not isinstance(population, int) or population < 1:
        raise ValueError(f"evolve: population must be a positive number of pairs, got "
                         f"{population!r}")
    if not (lr > 0 and math.isfinite(lr)):
        raise ValueError(f"evolve: lr must be a positive number, got {lr!r}")
    b1, b2, guard = ADAM
    dim = len(state.theta)
    while state.step < steps:
        t = state.step
        eps = np.random.default_rng([seed, t]).standard_normal((population, dim))
        f = np.asarray(fitness(np.concatenate([state.theta + eps, state.theta - eps]), t),
                       np.float64)
        if f.shape != (2 * population,) or not np.isfinite(f).all():
            raise ValueError(f"evolve: fitness gave {f.shape} values (finite expected "
                             f"{2 * population})")
        ranks = f.argsort().argsort() / (2 * population - 1) - 0.5
        g = (ranks[:population] - ranks[population:]) @ eps / (2 * population)
        state.m = b1 * state.m + (1 - b1) * g
        state.v = b2 * state.v + (1 - b2) * g * g
        n = t + 1
        state.theta = state.theta + lr * (state.m / (1 - b1 ** n)) / (
            np.sqrt(state.v / (1 - b2 ** n)) + guard)
        state.fitness.append(float(f.mean()))
        if on_step is not None:
            on_step(state)
    return state
