"""Policies distilled from search: a softmax-linear policy over each option's features, fitted
to the choices a search agent made, and played as a compiled policy at simulator speed.

A game declares its ``Features``: per option a tuple of numbers (``option``), per decision a
tuple of context numbers read off the observation (``context``, the first always 1). An
option's score is ``sum_r sum_c W[kind, r, c] * option_r * context_c``: the option features,
each also scaled by the context (how far the game has gone, how the seat stands). The policy
takes the option of the highest score (the first on ties). It reads only its observation and
option rows, so it is as honest as any policy.

The weights are fitted by maximum likelihood of the search's choices under the softmax of the
scores, one decision kind at a time, with an L2 penalty that pulls them toward ``prior``: the
game's heuristic written in the same features, so a kind with few positions plays the
heuristic. They ship as a JSON file that says how they were made (``save``, ``load``).
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit
from scipy.optimize import minimize

from .policy import POLICY_SIG, UserPolicy

FORMAT = "simcore.distill/1"


@dataclass(frozen=True)
class Features:
    """A game's features for distilled policies. ``option(kind, obs, row, ctx)`` and
    ``context(kind, obs, opts, n_opts)`` are compiled functions returning tuples: the
    context's ``len(context_names)`` float64 numbers (``ctx[0]`` is 1), and the option's
    entries as ``groups`` lays them out over ``option_names``: an entry of group size 1 is one
    feature's float64 value; one of size k > 1 is a one-hot of k features, given as the
    integer index of the one that is 1 (any other value: none is), so the score adds one
    weight where k products would be mostly zeros. No groups: every entry is one feature.
    ``version`` changes whenever a feature changes, so old weights are refused rather than
    misread."""

    game: str
    version: int
    kinds: tuple[str, ...]
    option_names: tuple[str, ...]
    context_names: tuple[str, ...]
    option: Any
    context: Any
    prior: Callable[[], np.ndarray]   # -> [kinds, options, contexts] weights with no data
    groups: tuple[int, ...] = ()

    def __post_init__(self):
        if self.groups and (sum(self.groups) != len(self.option_names)
                            or min(self.groups) < 1):
            raise ValueError(f"{self.game} features: groups {self.groups} do not lay out "
                             f"{len(self.option_names)} option features")

    @property
    def shape(self) -> tuple[int, int, int]:
        return len(self.kinds), len(self.option_names), len(self.context_names)

    @property
    def layout(self) -> tuple[tuple[int, int], ...]:
        """Each option entry's (first feature, group size)."""
        sizes = self.groups or (1,) * len(self.option_names)
        return tuple(zip(np.cumsum((0,) + sizes[:-1]).tolist(), sizes))


class Scorer(NamedTuple):
    """A game's distilled policy as compiled functions of weights ``W`` (float64 [kinds *
    contexts * options], ``Distilled.flat``: each context's weights of the option features
    side by side, so weighing them is one vector loop, with no reshape at each decision)
    (``scorer``): ``weigh(W, kind, obs, opts, n_opts, u)`` writes each option feature's
    weight in the decision's context into ``u`` (float64 [>= options], the caller's scratch,
    so nothing is allocated) and returns the context; ``score(kind, obs, row, ctx, u)`` is one
    option's score; ``choose(W, kind, obs, opts, n_opts, u)`` the option of the highest score
    (the first on ties); ``total(f, u)`` the score of option entries ``f``
    (``Features.option``'s tuple), for an engine that finds them without writing the row. The
    one scoring code: the user policy (``compile_policy``) and the engines' built-in
    ``distilled`` both call it. Closures, not cached on their own: the cached kernels that
    call them keep them."""

    weigh: Any
    score: Any
    choose: Any
    total: Any


def scorer(features: Features) -> Scorer:
    if features not in _SCORERS:
        _, R, C = features.shape
        # the sums written out: a tuple read at a loop's index compiles to a switch per read
        # (some 30 times slower); each option feature's sum over the contexts in order, as
        # W[kind, r, :] @ ctx would add it, the loop over features vectorised (a feature with
        # no weight gets 0.0: its first product is 0 times ctx[0] = 1)
        ns = {"context": features.context}
        exec(f"""def weigh(W, kind, obs, opts, n_opts, u):
    ctx = context(kind, obs, opts, n_opts)
    at = kind * {R * C}
{chr(10).join(f'    w{c} = W[at + {c * R}:at + {(c + 1) * R}]' for c in range(C))}
    for r in range({R}):
        u[r] = {' + '.join(f'w{c}[r] * ctx[{c}]' for c in range(C))}
    return ctx

def total(f, u):
    s = 0.0
{_terms(features.layout, "s += u[{r}] * f[{j}]", "s += u[{r} + f[{j}]]")}
    return s
""", ns)
        weigh = njit(cache=False, _nrt=False, inline="always")(ns["weigh"])
        total = njit(cache=False, _nrt=False, inline="always")(ns["total"])
        option = features.option

        @njit(cache=False, _nrt=False, inline="always")
        def score(kind, obs, row, ctx, u):
            return total(option(kind, obs, row, ctx), u)

        @njit(cache=False, _nrt=False)
        def choose(W, kind, obs, opts, n_opts, u):
            ctx = weigh(W, kind, obs, opts, n_opts, u)
            best, best_v = 0, -np.inf
            for i in range(n_opts):
                v = score(kind, obs, opts[i], ctx, u)
                if v > best_v:
                    best, best_v = i, v
            return best
        _SCORERS[features] = Scorer(weigh, score, choose, total)
    return _SCORERS[features]


_SCORERS: dict = {}


def _terms(layout: tuple[tuple[int, int], ...], one: str, hot: str) -> str:
    """Code for each option entry j of ``layout`` (its first feature r, group size k): ``one``
    for a single feature, ``hot`` for a one-hot group (run where ``f[j]`` lies in [0, k))."""
    return "\n".join(f"    {one.format(r=r, j=j)}" if k == 1 else
                     f"    if 0 <= f[{j}] < {k}:\n        {hot.format(r=r, j=j)}"
                     for j, (r, k) in enumerate(layout))


def expander(features: Features) -> Any:
    """The compiled ``expand(f, x)``: the option entries ``f`` as the ``R`` option features
    into ``x`` (zeros outside the entries' single features and hot ones)."""
    if features not in _EXPANDERS:
        ns: dict = {}
        exec(f"""def expand(f, x):
    x[:] = 0.0
{_terms(features.layout, "x[{r}] = f[{j}]", "x[{r} + f[{j}]] = 1.0")}
""", ns)
        _EXPANDERS[features] = njit(cache=False, _nrt=False)(ns["expand"])
    return _EXPANDERS[features]


_EXPANDERS: dict = {}


def check_shape(features: Features, weights) -> np.ndarray:
    """``weights`` as a contiguous float64 array of the features' shape, or a ValueError."""
    W = np.ascontiguousarray(weights, np.float64)
    if W.shape != features.shape:
        raise ValueError(f"weights of shape {W.shape}, the features need {features.shape}")
    return W


def flat_weights(W: np.ndarray) -> np.ndarray:
    """Weights [kinds, options, contexts] as ``Scorer`` reads them: float64 [kinds * contexts
    * options]."""
    return np.ascontiguousarray(np.asarray(W, np.float64).transpose(0, 2, 1)).ravel()


def compile_policy(features: Features, weights: np.ndarray, name: str = "distilled"
                   ) -> UserPolicy:
    """The compiled user policy that plays ``weights`` [kinds, options, contexts] (closed over
    as a constant: nothing to pass at each call)."""
    W = check_shape(features, weights)
    choose, R, flat = scorer(features).choose, W.shape[1], flat_weights(W)

    @njit(POLICY_SIG, cache=False)
    def distilled(kind, obs, opts, n_opts, rng):
        return choose(flat, kind, obs, opts, n_opts, np.empty(R))
    return UserPolicy(name, distilled)


@njit(cache=False)
def _design(option, context, expand, R, C, kinds, obs, opts, starts):
    """Each option row's features [rows, R * C] (option feature r times context c)."""
    X = np.zeros((opts.shape[0], R * C))
    f = np.zeros(R)
    for d in range(len(kinds)):
        a, b = starts[d], starts[d + 1]
        ctx = context(kinds[d], obs[d], opts[a:b], b - a)
        for i in range(a, b):
            expand(option(kinds[d], obs[d], opts[i], ctx), f)
            for r in range(R):
                for c in range(C):
                    X[i, r * C + c] = f[r] * ctx[c]
    return X


@dataclass
class Positions:
    """Decisions of the search seat: the kind, the seat's observation, the option rows
    (``opts[starts[d]:starts[d + 1]]`` for decision d), the option chosen and the game."""

    kinds: np.ndarray     # [D] int64
    obs: np.ndarray       # [D, obs_len] float32
    opts: np.ndarray      # [rows, features] float32
    starts: np.ndarray    # [D + 1] int64
    chosen: np.ndarray    # [D] int64, index within the decision's options
    games: np.ndarray     # [D] int64

    @classmethod
    def concat(cls, parts: Sequence[Positions]) -> Positions:
        parts = [p for p in parts if len(p.kinds)]
        if not parts:
            raise ValueError("no positions to fit: play some games first")
        offs = np.cumsum([0] + [len(p.opts) for p in parts])
        starts = np.concatenate([p.starts[:-1] + o for p, o in zip(parts, offs)] + [offs[-1:]])
        return cls(*(np.concatenate([getattr(p, f) for p in parts])
                     for f in ("kinds", "obs", "opts")), starts,
                   *(np.concatenate([getattr(p, f) for p in parts]) for f in ("chosen", "games")))

    def select(self, keep: np.ndarray) -> Positions:
        """The decisions where ``keep`` (bool [D]) holds."""
        idx = np.flatnonzero(keep)
        sizes = np.diff(self.starts)[idx]
        rows = np.concatenate([np.arange(self.starts[d], self.starts[d + 1]) for d in idx]) \
            if len(idx) else np.zeros(0, np.int64)
        return Positions(self.kinds[idx], self.obs[idx], self.opts[rows],
                         np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
                         self.chosen[idx], self.games[idx])

    def save(self, path: Path) -> None:
        np.savez_compressed(path, **{f: getattr(self, f) for f in
                                     ("kinds", "obs", "opts", "starts", "chosen", "games")})

    @classmethod
    def load(cls, path: Path) -> Positions:
        with np.load(path) as z:
            return cls(*(z[f] for f in ("kinds", "obs", "opts", "starts", "chosen", "games")))


def design(features: Features, pos: Positions) -> np.ndarray:
    _, R, C = features.shape
    return _design(features.option, features.context, expander(features), R, C,
                   pos.kinds.astype(np.int64),
                   np.ascontiguousarray(pos.obs, np.float32),
                   np.ascontiguousarray(pos.opts, np.float32), pos.starts.astype(np.int64))


def fit_kind(X: np.ndarray, starts: np.ndarray, chosen: np.ndarray, prior: np.ndarray,
             l2: float) -> np.ndarray:
    """Weights [features] maximising the mean log-likelihood of ``chosen`` under the softmax of
    ``X @ w`` within each decision (rows ``starts[d]:starts[d + 1]``), less ``l2 / 2`` times
    the squared distance to ``prior`` with each feature scaled by its spread (so the penalty
    does not depend on a feature's units). L-BFGS."""
    sizes = np.diff(starts)
    first, n = starts[:-1], len(sizes)
    y = first + chosen
    scale = X.std(axis=0)
    scale[scale < 1e-6] = 1.0
    Xs, v0 = X / scale, prior * scale    # fitted in units of each feature's spread

    def loss(v):
        z = Xs @ v
        m = np.maximum.reduceat(z, first)
        e = np.exp(z - np.repeat(m, sizes))
        s = np.add.reduceat(e, first)
        p = e / np.repeat(s, sizes)
        p[y] -= 1.0
        dv = v - v0
        return (m + np.log(s) - z[y]).sum() / n + 0.5 * l2 * dv @ dv, Xs.T @ p / n + l2 * dv
    res = minimize(loss, v0, jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return res.x / scale


def fit(features: Features, pos: Positions, l2: float = 1e-4) -> np.ndarray:
    """Weights [kinds, options, contexts] fitted to ``pos`` kind by kind (``fit_kind``); a kind
    with no positions keeps the prior."""
    K, R, C = features.shape
    W = np.array(features.prior(), np.float64)
    X = design(features, pos)
    for k in range(K):
        sel = pos.select(pos.kinds == k)
        if not len(sel.kinds):
            continue
        rows = np.concatenate([np.arange(pos.starts[d], pos.starts[d + 1])
                               for d in np.flatnonzero(pos.kinds == k)])
        W[k] = fit_kind(X[rows], sel.starts, sel.chosen, W[k].ravel(), l2).reshape(R, C)
    return W


def accuracy(features: Features, weights: np.ndarray, pos: Positions) -> dict[str, float]:
    """How often the policy with ``weights`` takes the option the search took, per kind (the
    first of tied best options, as it plays) and overall."""
    X = design(features, pos)
    K, R, C = features.shape
    W = weights.reshape(K, R * C)
    hit = np.zeros(len(pos.kinds), bool)
    for d in range(len(pos.kinds)):
        z = X[pos.starts[d]:pos.starts[d + 1]] @ W[pos.kinds[d]]
        hit[d] = int(np.argmax(z)) == pos.chosen[d]
    out = {features.kinds[k]: round(float(hit[pos.kinds == k].mean()), 4)
           for k in range(K) if (pos.kinds == k).any()}
    out["all"] = round(float(hit.mean()), 4) if len(hit) else math.nan
    return out


def save(path: str | Path, features: Features, weights: np.ndarray, made: dict) -> None:
    """Write the weights with ``made`` (how they were made: command, seed, games, agent...)."""
    doc = {"format": FORMAT, "game": features.game, "version": features.version,
           "kinds": list(features.kinds), "option_features": list(features.option_names),
           "context_features": list(features.context_names), "made": made,
           "weights": np.round(np.asarray(weights, np.float64), 6).tolist()}
    Path(path).write_text(json.dumps(doc, indent=1) + "\n")


def load(path: str | Path, features: Features) -> tuple[np.ndarray, dict]:
    """(weights, how they were made) from a file ``save`` wrote for these features; a file
    that is not one is a one-line ``ValueError`` naming it."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"distilled weights {path}: cannot be read ({' '.join(str(e).split())})"
                         ) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError(f"distilled weights {path}: not a {FORMAT} file")
    if doc.get("game") != features.game or doc.get("version") != features.version:
        raise ValueError(f"distilled weights {path}: made for {doc.get('game')} features "
                         f"version {doc.get('version')}, these are {features.game} version "
                         f"{features.version}; distill them again")
    try:
        W = np.array(doc["weights"], np.float64)
    except (KeyError, ValueError, TypeError):
        raise ValueError(f"distilled weights {path}: 'weights' is not an array of numbers"
                         ) from None
    if W.shape != features.shape or not np.isfinite(W).all():
        raise ValueError(f"distilled weights {path}: weights of shape {W.shape}, expected "
                         f"{features.shape} finite numbers")
    return W, doc.get("made", {})


@dataclass(frozen=True, eq=False)
class Distilled:
    """A distilled policy as the engines play it: a built-in (the game's id ``"distilled"``,
    dispatched in the hot loop like a heuristic) whose weights the batch passes into the
    engine's state. Called as a function it is the same policy compiled as a user policy
    (``compile_policy``), which the reference engines play."""

    name: str
    features: Features
    weights: np.ndarray     # [kinds, options, contexts] float64

    @cached_property
    def user(self) -> UserPolicy:
        return compile_policy(self.features, self.weights, self.name)

    @property
    def func(self):
        return self.user.func

    def __call__(self, kind, obs, opts, n_opts, rng):
        return self.user.func(kind, obs, opts, n_opts, rng)

    def flat(self) -> np.ndarray:
        """The weights as the engines read them (``flat_weights``)."""
        return flat_weights(check_shape(self.features, self.weights))


_BUNDLED: dict = {}


def bundled(features: Features, path: Path, name: str = "distilled") -> Distilled:
    """The policy the game ships in ``path`` (loaded on first use)."""
    if (features, path) not in _BUNDLED:
        _BUNDLED[features, path] = Distilled(name, features, load(path, features)[0])
    return _BUNDLED[features, path]


def search_seed(seed: int, game: int, decision: int) -> int:
    """The search's seed at one decision of a game: the same position gets the same search
    in every run (a rerun reproduces the positions)."""
    return int(np.random.SeedSequence([seed, game, decision]).generate_state(2, np.uint64)[0]
               & np.uint64(2**63 - 1))


def play_positions(new_game: Callable[[int], Any], agent: Any, opponent: str, seat: int,
                   seed: int, game: int, student: Callable | None = None) -> Positions:
    """Game ``game`` (``new_game(game)``, a ``ForwardGame``) with ``agent`` searching at
    ``seat`` and the built-in ``opponent`` at every other seat; the searching seat's
    decisions of more than one option. With a ``student`` policy the seat plays the
    student's choice and records the search's: the positions the student meets, labelled
    by the search (DAgger)."""
    g = new_game(game)
    rng = g.streams()
    other = g.builtin(opponent)
    kinds, obs, opts, chosen = [], [], [], []
    while not g.done:
        s, n = g.to_act
        if s == seat:
            c = 0
            if n > 1:
                c = g.search(agent, search_seed(seed, game, len(g.history)))
                kinds.append(g.kind)
                obs.append(g.observation(s))
                opts.append(g.options())
                chosen.append(c)
                if student is not None:
                    c = int(student(kinds[-1], obs[-1], opts[-1], n, rng[s:s + 1]))
        else:
            c = int(other(g.kind, g.observation(s), g.options(), n, rng[s:s + 1]))
        g.step(c)
    if not kinds:
        return Positions(np.zeros(0, np.int64), np.zeros((0, 0), np.float32),
                         np.zeros((0, 0), np.float32), np.zeros(1, np.int64),
                         np.zeros(0, np.int64), np.zeros(0, np.int64))
    sizes = [len(o) for o in opts]
    return Positions(np.array(kinds, np.int64), np.stack(obs), np.concatenate(opts),
                     np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
                     np.array(chosen, np.int64), np.full(len(kinds), game, np.int64))
