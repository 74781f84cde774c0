"""A versus B at the same table on paired games, with a fixed number of games or a sequential
test (SPRT) that stops as soon as the answer is clear."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from simcore.runner import check_int

from .games import check_policies, check_run, game_module, play, policy_name
from .stats import few_clusters, t_interval, two_sided_p
from .tournament import rotations

MIN_SEEDS = 20
"""Sequential mode decides only after this many paired games (the variance estimate needs
them)."""


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    seatings: tuple[str, ...]  # the seat orders each game index was played in
    seeds: int                 # game indices used (each one played in every seating)
    games: int                 # games used: seeds x seatings
    diff: float                # mean of (A's win share - B's win share) per game
    diff_adjusted: float       # sequential: diff less the stopping rule's bias (else diff)
    ci_low: float              # interval: see ``interval``
    ci_high: float
    p_value: float             # two-sided, H0: diff = 0 (sequential: one-sided, any-time)
    win_rate_a: float
    win_rate_b: float
    score_diff: float          # mean of (A's score - B's score) per game
    score_ci_low: float
    score_ci_high: float
    decision: str | None       # sequential mode: "A better", "A not better" or "undecided"
    games_played: int          # games simulated (sequential mode plays in batches)
    interval: str              # what ci_low/ci_high, score_ci_* and p_value are
    error_rates: str           # sequential mode: the decision's error rates (design)

    def table(self) -> pl.DataFrame:
        return pl.DataFrame([{k: (", ".join(v) if isinstance(v, tuple) else v)
                              for k, v in self.__dict__.items()}])


def seatings(a: Any, b: Any, field: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Every rotation of ``[a, b, *field]`` and of the same table with a and b swapped, so
    that A and B take each seat and each neighbour equally often on every game index."""
    out: list[tuple[Any, ...]] = []
    for table in ((a, b, *field), (b, a, *field)):
        for r in rotations(table):
            if [policy_name(p) for p in r] not in [[policy_name(p) for p in o] for o in out]:
                out.append(r)
    return out


def compare(game: Any, a: Any, b: Any, *, field: Sequence[Any] = (), n_games: int = 4000,
            seed: int = 0, rules: Any = None, score: str | None = None,
            sequential: bool = False, alpha: float = 0.05, beta: float = 0.05,
            delta: float = 0.05) -> Comparison:
    """Compare policy ``a`` with ``b`` at one table (other seats: ``field``).

    Every game index is played in every seating of ``seatings(a, b, field)`` on the same seed
    (common random numbers), and the unit of analysis is the game index: its difference
    D = A's win share - B's win share averaged over the seatings. Reported: mean D with a 95%
    t(C - 1) interval and t test p-value (C game indices), and the same for the score.

    ``field`` fills the other seats and may repeat a policy, but not ``a`` or ``b`` (their
    win shares would mix with the field's).

    ``sequential=True`` runs Wald's SPRT on D (normal approximation, variance estimated as it
    goes) for H0: mean D = 0 against H1: mean D = ``delta``, stopping at the first game index
    where the log-likelihood ratio leaves (log(beta), log(1/alpha)): "A better" (chosen with
    probability <= alpha when A is no better) or "A not better" (chosen with probability
    <= beta when A is better by delta); then ``n_games`` is the most it may use
    ("undecided" if reached). The bounds are Ville's, not Wald's approximate ones, so that
    the printed results agree with the decision (``sprt_interval``): the any-time p-value
    is 1 / the largest likelihood ratio so far (at most alpha exactly when "A better"), and
    the interval inverts the same test shifted to every value: its lower bound is above 0
    exactly when "A better", its upper bound below ``delta`` exactly when "A not better".
    ``diff`` is the mean at the stop, biased away from 0 by the stopping rule (measured in
    docs/analyses.md). The score difference gets a 95% confidence sequence
    (``confidence_sequence``): no test is run on it.
    """
    mod = game_module(game)
    check_policies(mod, [a, b], 2)
    check_policies(mod, list(field), 0, distinct=False)
    clash = sorted({policy_name(p) for p in field} & {policy_name(a), policy_name(b)})
    if clash:
        raise ValueError(f"field may not hold a or b (it holds {clash}): their win shares would "
                         f"mix with the field's; give the other seats' policies only")
    for name, v in (("alpha", alpha), ("beta", beta)):
        if not 0 < v < 0.5:
            raise ValueError(f"{name} must be in (0, 0.5), got {v!r}")
    if not 0 < delta <= 1:
        raise ValueError(f"delta must be in (0, 1], got {delta!r}")
    check_int("n_games", n_games)
    order = seatings(a, b, field)
    max_seeds = max(1, math.ceil(n_games / len(order)))
    check_run(mod, max_seeds * len(order), len(order[0]), rules=rules,
              held=0 if sequential else max_seeds)     # one seating at a time
    if not sequential:
        d, s, wa, wb = _paired(mod, order, policy_name(a), policy_name(b), max_seeds, seed,
                               rules, score)
        return _summary(order, a, b, d, s, wa, wb, None, len(d) * len(order), None)
    parts: list[tuple[np.ndarray, ...]] = []
    batch, used, decision = 64, 0, "undecided"
    while used < max_seeds:
        n = min(batch, max_seeds - used)
        # each batch replays games 0..n-1 of its own seed, derived from the user's seed
        sub = int(np.random.SeedSequence([seed, len(parts)]).generate_state(1, np.uint32)[0])
        parts.append(_paired(mod, order, policy_name(a), policy_name(b), n, sub, rules, score))
        d = np.concatenate([p[0] for p in parts])
        stop, decided = _sprt_stop(d, used, delta, alpha, beta)
        used += n
        batch = min(batch * 2, 4096)
        if decided is not None:
            decision, cut = decided, stop
            break
    else:
        cut = used
    played = used * len(order)
    d, s, wa, wb = (np.concatenate([p[i] for p in parts])[:cut] for i in range(4))
    design = (f"alpha = {alpha} (P(A better) when A is no better), beta = {beta} "
              f"(P(A not better) when A is better by delta = {delta})")
    return _summary(order, a, b, d, s, wa, wb, decision, played,
                    (sprt_interval(d, delta, alpha, beta), design,
                     math.sqrt(MIN_SEEDS * max_seeds),
                     bias_adjusted(d, max_seeds, delta, alpha, beta)))


def _llr(d: np.ndarray, delta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """After each game index t: (t, mean, variance, whether the SPRT may look there: t >=
    MIN_SEEDS and the variance is positive, since with no spread the normal likelihood ratio
    is not computable)."""
    n = np.arange(1, d.size + 1)
    s1 = np.cumsum(d)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (np.cumsum(d * d) - s1 * s1 / n) / np.maximum(n - 1, 1)
    var = np.where(var > 1e-12, var, 0.0)
    return n, s1 / n, var, (n >= MIN_SEEDS) & (var > 0)


def _sprt_stop(d: np.ndarray, start: int, delta: float, alpha: float,
               beta: float) -> tuple[int, str | None]:
    """First n > start where the LLR of mean delta against mean 0 leaves
    (log(beta), log(1/alpha)): (n, decision)."""
    n, mean, var, ok = _llr(d, delta)
    with np.errstate(invalid="ignore", divide="ignore"):
        llr = np.where(ok, delta / np.where(ok, var, 1.0) * n * (mean - delta / 2), 0.0)
    hit = np.flatnonzero(ok & (n > start) & ((llr >= -math.log(alpha)) | (llr <= math.log(beta))))
    if hit.size == 0:
        return d.size, None
    k = hit[0]
    return k + 1, ("A better" if llr[k] > 0 else "A not better")


def sprt_interval(d: np.ndarray, delta: float, alpha: float,
                  beta: float) -> tuple[float, float, float]:
    """What the SPRT on ``d`` (up to its stop) shows, by Ville's inequality: (low, high, p).

    The test of mean theta against theta + delta has log-likelihood ratio
    t delta / var (mean - theta - delta / 2) after t game indices; it exceeds log(1/alpha) at
    some look with probability at most alpha when the mean is theta. ``low`` is the largest
    theta any look rejected so (the 1 - alpha any-time lower bound), ``high`` likewise from
    the test of theta against theta - delta at beta (the 1 - beta upper bound), so
    [low, high] covers the mean with probability at least 1 - alpha - beta at any stop.
    ``p`` = min(1, 1 / the largest ratio for theta = 0): the one-sided any-time p-value of
    "A is no better". "A better" is exactly p <= alpha and low >= 0, "A not better"
    exactly high <= delta. NaN where no look could be made (fewer than MIN_SEEDS game
    indices, or D the same in every one)."""
    n, mean, var, ok = _llr(d, delta)
    if not ok.any():
        return math.nan, math.nan, math.nan
    n, mean, var = n[ok], mean[ok], var[ok]
    # D is a difference of win shares: clipped to [-1, 1], which changes no comparison above
    low = max(-1.0, float(np.max(mean - delta / 2 - var * math.log(1 / alpha) / (delta * n))))
    high = min(1.0, float(np.min(mean + delta / 2 + var * math.log(1 / beta) / (delta * n))))
    llr = float(np.max(delta / var * n * (mean - delta / 2)))
    return low, high, min(1.0, math.exp(-llr))


def bias_adjusted(d: np.ndarray, cap: int, delta: float, alpha: float, beta: float,
                  paths: int = 400) -> float:
    """Whitehead's (1986) bias-adjusted estimate of the mean of ``d`` at the SPRT's stop: the
    theta whose expected mean at the stop equals the observed mean. The expectation is
    simulated: normal D with the observed spread, the same looks, bounds and cap (``paths``
    paths, the same draws for every theta, so it rises smoothly with theta), out to four times
    the observed stop (a path still running there counts with its mean at that point). NaN
    where the SPRT could not look (``sprt_interval``)."""
    sd = float(d.std(ddof=1)) if d.size > 1 else 0.0
    if d.size < MIN_SEEDS or not sd > 0:
        return math.nan
    horizon = min(cap, max(4 * d.size, 1_000))
    z = np.random.default_rng(0).standard_normal((paths, horizon))
    n = np.arange(1, horizon + 1)
    # a path at theta is theta + sd z: its running variance does not depend on theta, so the
    # sums and the SPRT's bounds on the running sum are computed once, not once per theta
    cz = np.cumsum(z, axis=1)
    scale = np.maximum(sd * sd * (np.cumsum(z * z, axis=1) - cz * cz / n)
                       / np.maximum(n - 1, 1), 1e-12) / delta
    sz = sd * cz
    look = n >= MIN_SEEDS
    upper = np.where(look, n * delta / 2 - math.log(alpha) * scale - sz, np.inf)
    lower = np.where(look, n * delta / 2 + math.log(beta) * scale - sz, -np.inf)
    del z, cz, scale
    rows = np.arange(paths)

    def expected(theta: float) -> float:
        # the LLR delta / var (s1 - n delta / 2) leaves (log beta, -log alpha) where the
        # running sum s1 = theta n + sd cumsum(z) does, that is where theta n leaves
        # (lower, upper)
        tn = theta * n
        hit = (tn >= upper) | (tn <= lower)
        stop = np.where(hit.any(axis=1), hit.argmax(axis=1), horizon - 1)
        return float(np.mean((tn[stop] + sz[rows, stop]) / (stop + 1)))

    target, low, high = float(d.mean()), -1.0, 1.0
    for _ in range(20):                  # to about 2e-6
        mid = (low + high) / 2
        low, high = (mid, high) if expected(mid) < target else (low, mid)
    return (low + high) / 2


def _paired(mod: Any, order: list[tuple[Any, ...]], a: str, b: str, n: int, seed: int,
            rules: Any, score: str | None) -> tuple[np.ndarray, ...]:
    """Per game index: D (win share A - B), score difference, A's and B's win share, each
    averaged over the seatings."""
    d = np.zeros(n)
    s = np.zeros(n)
    wa = np.zeros(n)
    wb = np.zeros(n)
    for seating in order:
        df = play(mod, seating, n, seed, rules)
        col = score if score is not None else ("score" if "score" in df.columns else "treasures")
        if col not in df.columns:
            raise ValueError(f"results lack the score column {col!r}")
        for sign, name, acc in ((1, a, wa), (-1, b, wb)):
            rows = df.filter(pl.col("policy") == name).sort("game")
            w = rows["win"].to_numpy().astype(np.float64)
            d += sign * w
            s += sign * rows[col].to_numpy().astype(np.float64)
            acc += w
    k = len(order)
    return d / k, s / k, wa / k, wb / k


def _summary(order, a, b, d, s, wa, wb, decision, played, sequential) -> Comparison:
    """The table of a comparison; ``sequential``: ((low, high, p) of ``sprt_interval``, error
    rates, tuning game indices of the score's confidence sequence, ``bias_adjusted``) of the
    SPRT that stopped."""
    n = d.size
    adjusted = float(d.mean())
    if sequential is None:
        (lo, hi, p), (slo, shi, _) = fixed_interval(d, (-1, 1)), fixed_interval(s)
        label, errors = fixed_label("paired game indices", n), ""
    else:
        (lo, hi, p), errors, tuned, adjusted = sequential
        slo, shi, _ = confidence_sequence(s, tuned)
        label = ("any-time interval and p-value of the SPRT itself (its test inverted: the "
                 "lower bound is above 0 exactly when 'A better', the upper below delta "
                 "exactly when 'A not better'; p is one-sided, H0: A no better); diff is the "
                 "mean at the stop (biased away from 0 by the stopping rule), diff_adjusted "
                 "less that bias (Whitehead's estimate, by simulation); score: 95% "
                 f"confidence sequence tuned for {tuned:.0f} game indices")
        if math.isnan(p):
            label = ("not computable: D was the same in every game index, so the SPRT had no "
                     "spread to test with; " + label)
    return Comparison(
        a=policy_name(a), b=policy_name(b),
        seatings=tuple("|".join(policy_name(p) for p in o) for o in order), seeds=n,
        games=n * len(order), diff=float(d.mean()), diff_adjusted=adjusted, ci_low=lo,
        ci_high=hi, p_value=p,
        win_rate_a=float(wa.mean()), win_rate_b=float(wb.mean()), score_diff=float(s.mean()),
        score_ci_low=slo, score_ci_high=shi, decision=decision, games_played=played,
        interval=label, error_rates=errors)


def fixed_interval(x: np.ndarray, bounds: tuple[float, float] = (-math.inf, math.inf)
                   ) -> tuple[float, float, float]:
    """95% t(n - 1) interval (``stats.t_interval``, clipped to ``bounds``) and two-sided t test
    p-value of the mean of i.i.d. ``x`` (one value per game index); NaN under 2 values."""
    mean = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan
    p = float(two_sided_p(mean / se, x.size - 1)) if se > 0 else math.nan
    lo, hi = t_interval(mean, se, x.size, bounds)
    return float(lo), float(hi), p


def fixed_label(unit: str, n: int) -> str:
    """What ``fixed_interval``'s figures are, with ``stats.few_clusters``' caution."""
    caution = few_clusters(n)
    return (f"95% fixed-sample t({n - 1}) interval ({unit})"
            + (f"; caution: {caution}" if caution else ""))


def confidence_sequence(x: np.ndarray, tuned: float, alpha: float = 0.05
                        ) -> tuple[float, float, float]:
    """Asymptotic confidence sequence for the mean of i.i.d. ``x`` (Waudby-Smith et al. 2021,
    "Time-uniform central limit theory"): mean +- sd * sqrt(2 (t r^2 + 1) / (t^2 r^2) *
    log(sqrt(t r^2 + 1) / alpha)) at t observations, covering the mean at every t at once
    with probability about 1 - alpha, so also at a data-dependent stop. ``r`` makes it
    tightest at ``tuned`` observations. Returns (low, high, p): p is the smallest alpha whose
    sequence excludes 0 (any-time valid)."""
    t = x.size
    mean = float(x.mean())
    sd = float(x.std(ddof=1)) if t > 1 else math.nan
    r2 = (-2 * math.log(alpha) + math.log(-2 * math.log(alpha) + 1)) / tuned
    a = t * r2 + 1
    half = sd * math.sqrt(2 * a / (t * t * r2) * math.log(math.sqrt(a) / alpha))
    if not sd > 0:
        return mean - half, mean + half, math.nan
    p = min(1.0, math.sqrt(a) * math.exp(-(mean / sd) ** 2 * t * t * r2 / (2 * a)))
    return mean - half, mean + half, p
