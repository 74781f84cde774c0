"""Intransitivity of a population of strategies: one best strategy, or a cycle of them?

A round robin of the population (``tournament``: every line-up, every rotation, common random
numbers) gives the share of games in which each policy finishes ahead of each other one. Its
log-odds form a skew-symmetric matrix F on the complete graph of policies, which the Hodge
(combinatorial) decomposition splits into a gradient part (F_ij = r_i - r_j: a ranking,
exactly the Bradley-Terry model) and a cyclic part (rock-paper-scissors flows); the complete
graph has no harmonic part. The cyclic share ||cyclic||^2 / ||F||^2 says how much of the
head-to-head structure no ranking explains. Beside it: Nash averaging (Balduzzi et al. 2018)
and Alpha-Rank (Omidshafiei et al. 2019), two ratings that stay meaningful when there is a
cycle, and Bradley-Terry, which assumes there is none. Every interval takes the game index as
its unit (a bootstrap over game indices, the same draws for every statistic).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from scipy.optimize import linprog, minimize

from .data import Frame
from .games import game_module
from .stats import few_clusters, paired_p
from .tournament import (BOOTSTRAP, PRIOR, _fit_bt, degenerate, matrix, meetings, pairwise,
                         resample, tournament, wins_per_game)

GAMES = 1000
"""Game indices per seating of the default round robin: 1,000 clusters."""

ALPHA = 10.0
"""Alpha-Rank's selection intensity per unit of finish-ahead share: with ``MONOMORPHIC`` 50,
a mutant 2 points ahead of the resident fixes about 10^4 times as often as the reverse,
while near ties within the noise (a fraction of a point) still share their mass."""

MONOMORPHIC = 50
"""Alpha-Rank's population size m (the paper's usual value)."""

TOL = 1e-9
"""Probability mass below which a policy is outside a Nash equilibrium's support."""


@dataclass(frozen=True)
class Intransitivity:
    pairwise: pl.DataFrame   # policy, opponent: share of meetings finished ahead, 95% CI
    matrix: pl.DataFrame     # the same as a policy x opponent table ("51.7% [49.4, 53.9]")
    cyclic: pl.DataFrame     # one row: the cyclic share with its interval (``cyclic_share``)
    ratings: pl.DataFrame    # per policy: Nash mass and rating, Alpha-Rank mass, Bradley-Terry
    results: pl.DataFrame | None = None   # the tournament's games, when it played them

    def text(self) -> str:
        """The headlines in words."""
        c = self.cyclic.row(0, named=True)
        r = self.ratings
        nash = r.filter(pl.col("nash_mass") > 0.005).sort("nash_mass", descending=True)
        top = r.sort("alpharank", descending=True).head(3)
        lines = [
            f"cyclic share of the log-odds of finishing ahead: {c['share']:.3f} "
            f"[{c['ci_low']:.3f}, {c['ci_high']:.3f}] (plug-in {c['share_raw']:.3f}; "
            f"{c['policies']} policies, {c['games']:,} game indices)",
            "Nash equilibrium (max entropy): " + ", ".join(
                f"{p} {m:.2f} [{lo:.2f}, {hi:.2f}]" for p, m, lo, hi in
                nash.select("policy", "nash_mass", "nash_low", "nash_high").iter_rows()),
            f"Alpha-Rank (alpha {c['alpha']:g}, m {MONOMORPHIC}): " + ", ".join(
                f"{p} {m:.2f} [{lo:.2f}, {hi:.2f}]" for p, m, lo, hi in
                top.select("policy", "alpharank", "alpharank_low", "alpharank_high")
                .iter_rows()),
            "Bradley-Terry top: " + r.sort("bt_elo", descending=True)["policy"][0]]
        cautions = [x for x in (c["caution"], few_clusters(c["games"])) if x]
        return "\n".join(lines + [f"caution: {x}" for x in cautions])


def default_population(game: Any) -> list[str]:
    """The game's heuristics (its ``POLICIES`` but ``random``, which every heuristic beats and
    which would fill the transitive part), the policies it ships (``BUNDLED``) and the weight
    variants it declares as tuned (``TUNED``)."""
    mod = game_module(game)
    return ([p for p in mod.POLICIES if p != "random"] + sorted(getattr(mod, "BUNDLED", ()))
            + list(getattr(mod, "TUNED", ())))


def intransitivity(game: Any, population: Sequence[Any] | None = None, players: int = 4,
                   games: int = GAMES, seed: int = 0, *, search: bool = False,
                   rules: Any = None, alpha: float = ALPHA,
                   replicates: int = BOOTSTRAP) -> Intransitivity:
    """Play a round robin of ``population`` (default ``default_population``; built-in names,
    ``careful[points=1.2]`` weight variants, search agents ``ismcts-100`` or user policies),
    with ``search`` the game's search rung (``agent.strong``) added, at ``players`` seats on
    ``games`` game indices per seating (``tournament``), and measure it (``measure``)."""
    mod = game_module(game)
    pop = list(default_population(mod) if population is None else population)
    check_population(pop)
    if search:
        if not hasattr(mod, "agent"):
            raise ValueError(f"{getattr(mod, '__name__', mod)!r} has no search agents")
        pop.append(mod.agent.strong)
    t = tournament(mod, pop, players, games, seed, rules=rules)
    return measure(t.results, alpha=alpha, replicates=replicates, seed=seed)


def check_population(population: Sequence[Any]) -> None:
    if isinstance(population, str) or len(population) < 3:
        raise ValueError(f"intransitivity needs a population of at least 3 policies (a cycle "
                         f"needs three), got {population!r}")


def measure(results: Frame, policies: Sequence[str] | None = None, *, alpha: float = ALPHA,
            replicates: int = BOOTSTRAP, seed: int = 0,
            met: pl.DataFrame | None = None) -> Intransitivity:
    """The tables of ``Intransitivity`` from a tournament's results frame, over ``policies``
    (default: every policy in it; the others stay at the tables as opponents but are not
    compared). Every pair must have met. ``met``: ``meetings(results)`` when it is already
    computed (the report's)."""
    met = meetings(results) if met is None else met
    names = sorted(set(met["policy"])) if policies is None else list(policies)
    check_population(names)
    missing = sorted(set(names) - set(met["policy"]))
    if missing:
        raise ValueError(f"no head-to-head meetings of {missing} in these results")
    met = met.filter(pl.col("policy").is_in(names) & pl.col("opponent").is_in(names))
    names, per_game = wins_per_game(met)
    k = len(names)
    wins = per_game.sum(axis=0).reshape(k, k)
    unmet = [(names[i], names[j]) for i in range(k) for j in range(i + 1, k)
             if wins[i, j] + wins[j, i] == 0]
    if unmet:
        raise ValueError(f"pairs that never met at one table: {unmet}")
    boot = resample(per_game, replicates, seed).reshape(replicates, k, k)
    pw = pairwise(results, met)
    return Intransitivity(pw, matrix(pw), cyclic_share(wins, boot, per_game.shape[0], alpha),
                          _ratings(names, wins, boot, alpha),
                          results if isinstance(results, pl.DataFrame) else None)


def paired_share(met_a: pl.DataFrame, met_b: pl.DataFrame, replicates: int = BOOTSTRAP,
                 seed: int = 0) -> dict[str, float]:
    """The cyclic share under rules B minus under rules A, the same policies having played the
    same game indices under both (``meetings`` of each): one bootstrap draws the game indices
    once for both, so the difference's interval pairs them. The difference of the bias-corrected
    shares, its 95% basic interval, and the p-value of the t test on the replicates' spread."""
    (na, pa), (nb, pb) = wins_per_game(met_a), wins_per_game(met_b)
    check_population(na)
    unit = [c for c in ("seed", "game") if c in met_a.columns]
    if na != nb or not met_a.select(unit).unique().sort(unit).equals(
            met_b.select(unit).unique().sort(unit)):
        raise ValueError(f"the cyclic shares compared must be of the same policies on the same "
                         f"game indices: {na} on {pa.shape[0]} against {nb} on {pb.shape[0]}")
    k, n = len(na), pa.shape[0]
    est = []
    for per_game in (pa, pb):
        f = log_odds(per_game.sum(axis=0).reshape(k, k))
        reps = share(log_odds(resample(per_game, replicates, seed).reshape(replicates, k, k)))
        est.append((float(share(f)), reps))
    (ra, ba), (rb, bb) = est
    d, reps = rb - ra, bb - ba
    lo, hi = np.percentile(reps, [2.5, 97.5])
    point = 2 * d - float(reps.mean())
    return {"games": n, "a": _clip(2 * ra - ba.mean()), "b": _clip(2 * rb - bb.mean()),
            "diff": point, "ci_low": 2 * d - hi, "ci_high": 2 * d - lo,
            "p": paired_p(point, float(reps.std(ddof=1)), n)}


def log_odds(wins: np.ndarray) -> np.ndarray:
    """The skew-symmetric log-odds of finishing ahead, log(w_ij / w_ji), of a (stack of) wins
    matrices, with the Bradley-Terry fit's ``PRIOR`` (half a meeting each way) so that a pair
    one side always wins stays finite. Why log-odds rather than the margin p - 1/2: under
    Bradley-Terry, the model of a ranking, the log-odds are exactly r_i - r_j, a pure gradient,
    while the margin of a transitive population has a cyclic part (the logistic curve bends)."""
    w = wins + PRIOR / 2
    f = np.log(w) - np.log(np.swapaxes(w, -1, -2))
    return f * (1 - np.eye(wins.shape[-1]))


def hodge(f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Hodge decomposition of a (stack of) skew-symmetric matrices on the complete graph:
    (gradient, cyclic). The gradient part is r_i - r_j with r the row means (the least-squares
    potential); on the complete graph every cycle is a sum of triangles, so the rest is all
    curl (no harmonic part)."""
    r = f.mean(axis=-1)
    grad = r[..., :, None] - r[..., None, :]
    return grad, f - grad


def share(f: np.ndarray) -> np.ndarray:
    """||cyclic||^2 / ||f||^2 of a (stack of) skew-symmetric matrices (0 for a zero matrix)."""
    total = (f ** 2).sum(axis=(-1, -2))
    cyc = (hodge(f)[1] ** 2).sum(axis=(-1, -2))
    return np.divide(cyc, total, out=np.zeros_like(total), where=total > 0)


def cyclic_share(wins: np.ndarray, boot: np.ndarray, games: int, alpha: float = ALPHA
                 ) -> pl.DataFrame:
    """The cyclic share of ``log_odds(wins)`` with a 95% basic bootstrap interval over
    ``games`` game indices (``boot``: the bootstrap wins matrices; ``alpha``: Alpha-Rank's,
    recorded beside it).

    Why the basic interval, bias-corrected: the share is a ratio of squared norms, so noise
    alone makes the plug-in positive (a transitive population's estimate is never 0) and a
    percentile interval would never hold 0. The basic interval [2s - q97.5, 2s - q2.5] (and
    the point 2s - mean of the replicates) subtracts that bias to first order; it is
    conservative near 0. Where the policies barely differ, both parts are noise and the share
    is not meaningful: ``caution`` says so (the squared log-odds less than twice their noise).
    One row: policies, games, share, share_raw, ci_low, ci_high, alpha, caution."""
    f, fb = log_odds(wins), log_odds(boot)
    raw, reps = float(share(f)), share(fb)
    lo, hi = np.percentile(reps, [2.5, 97.5])
    noise = float(((fb - f) ** 2).sum(axis=(-1, -2)).mean())
    caution = ("the policies hardly differ: the squared log-odds of finishing ahead are within "
               "twice their noise, so the cyclic share is mostly noise"
               if (f ** 2).sum() < 2 * noise else "")
    return pl.DataFrame({
        "policies": [wins.shape[0]], "games": [games], "share": [_clip(2 * raw - reps.mean())],
        "share_raw": [raw], "ci_low": [_clip(2 * raw - hi)], "ci_high": [_clip(2 * raw - lo)],
        "alpha": [alpha], "caution": [caution]})


def _clip(x: float) -> float:
    return float(np.clip(x, 0.0, 1.0))


def nash(a: np.ndarray) -> np.ndarray:
    """The maximum-entropy Nash equilibrium of the symmetric zero-sum game with skew-symmetric
    payoff ``a`` (row against column).

    Its equilibria are the mixtures p with a @ p <= 0 (no pure strategy gains against p; the
    game's value is 0), a polytope. ``linprog`` finds one; a policy that could still join
    the support (payoff 0 against it, mass 0) gets its own LP maximising its mass, so the
    support found is the largest any equilibrium has. Where that leaves more than one
    equilibrium (a policy and its exact copy), the entropy is maximised over the polytope
    (SLSQP from the mean of the LP solutions, which lies inside it): the unique choice that
    splits mass evenly between copies (Balduzzi et al.'s reason for it)."""
    k = a.shape[0]
    lp = {"A_ub": a, "b_ub": np.zeros(k), "A_eq": np.ones((1, k)), "b_eq": [1.0],
          "bounds": (0, None), "method": "highs"}
    first = linprog(np.zeros(k), **lp)
    if first.status != 0:
        raise RuntimeError(f"no Nash equilibrium found: {first.message}")
    sols = [first.x]
    for i in np.flatnonzero((first.x <= TOL) & (a @ first.x >= -1e-7)):
        sols.append(linprog(-np.eye(k)[i], **lp).x)
    sols = np.array(sols)
    if np.ptp(sols, axis=0).max() <= 1e-7:
        return _simplex(first.x)
    start = sols.mean(axis=0)
    on = start > TOL
    sub = a[np.ix_(on, on)]
    res = minimize(lambda p: float(np.sum(p * np.log(np.maximum(p, 1e-300)))), start[on],
                   jac=lambda p: np.log(np.maximum(p, 1e-300)) + 1, method="SLSQP",
                   bounds=[(0, 1)] * int(on.sum()),
                   constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1},
                                {"type": "ineq", "fun": lambda p: -(sub @ p)}])
    p = np.zeros(k)
    p[on] = res.x if res.success else start[on]
    return _simplex(p)


def _simplex(p: np.ndarray) -> np.ndarray:
    p = np.where(p > TOL, p, 0.0)
    return p / p.sum()


def alpharank(ahead: np.ndarray, alpha: float = ALPHA, m: int = MONOMORPHIC) -> np.ndarray:
    """Single-population Alpha-Rank's stationary distribution over the policies of a (stack of)
    finish-ahead share matrices (``ahead[i, j]``: i ahead of j; 1/2 on the diagonal).

    A population of m players all playing s meets one mutant playing t; with these payoffs the
    mutant's fitness edge is the same at every count k of mutants, d = m (ahead[t, s] - 1/2) /
    (m - 1), so its fixation probability is (1 - e^(-alpha d)) / (1 - e^(-m alpha d)) (1/m
    at d = 0; computed without overflow). The Markov chain moves from s to t with that
    probability over K - 1; its stationary distribution ranks the policies."""
    k = ahead.shape[-1]
    x = alpha * m * (np.swapaxes(ahead, -1, -2) - 0.5) / (m - 1)     # [.., s, t]: t's edge
    ax = np.abs(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(ax > 1e-12, np.exp((m - 1) * np.minimum(x, 0.0))
                       * np.expm1(-ax) / np.expm1(-m * ax), 1.0 / m)
    c = rho / (k - 1) * (1 - np.eye(k))
    c = c + np.eye(k) * (1 - c.sum(axis=-1, keepdims=True))
    system = np.swapaxes(c, -1, -2) - np.eye(k)
    system[..., -1, :] = 1.0
    rhs = np.zeros(ahead.shape[:-1])
    rhs[..., -1] = 1.0
    pi = np.linalg.solve(system, rhs[..., None])[..., 0]
    return np.clip(pi, 0.0, None) / np.clip(pi, 0.0, None).sum(axis=-1, keepdims=True)


def finish_ahead(wins: np.ndarray) -> np.ndarray:
    """Share of meetings finished ahead, with ``PRIOR`` (as ``log_odds``), 1/2 on the
    diagonal."""
    w = wins + PRIOR / 2
    return w / (w + np.swapaxes(w, -1, -2))


def _ratings(names: list[str], wins: np.ndarray, boot: np.ndarray, alpha: float
             ) -> pl.DataFrame:
    """Per policy: Nash mass and rating (its log-odds of finishing ahead against the Nash
    mixture: 0 in the support, below 0 outside it), Alpha-Rank mass and the Bradley-Terry
    rating, each with a 95% percentile interval from the same bootstrap replicates."""
    f, fb = log_odds(wins), log_odds(boot)
    p = nash(f)
    pb = np.array([nash(x) for x in fb])
    rating, rating_b = f @ p, np.einsum("bij,bj->bi", fb, pb)
    ar, ar_b = alpharank(finish_ahead(wins), alpha), alpharank(finish_ahead(boot), alpha)
    flag = degenerate(wins)
    bt, bt_b = _fit_bt(wins, flag == ""), _fit_bt(boot, flag == "")
    cols = {"policy": names}
    for name, est, reps in (("nash", p, pb), ("nash_rating", rating, rating_b),
                            ("alpharank", ar, ar_b), ("bt", bt, bt_b)):
        lo, hi = np.percentile(reps, [2.5, 97.5], axis=0)
        key = "nash_mass" if name == "nash" else ("bt_elo" if name == "bt" else name)
        cols |= {key: est, f"{name}_low": lo, f"{name}_high": hi}
    return pl.DataFrame(cols).with_columns(bt_flag=pl.Series(flag)).sort(
        "nash_rating", "alpharank", descending=True)
