"""The user policy the benchmarks time: written as a user would, entering through
``simcore.policy``, so its figures show the cost of the first-class-function path."""
from __future__ import annotations

import numpy as np

NAME = "user_greedy"


def greedy(kind, obs, opts, n_opts, rng):
    """Score every option as a weighted sum of its features and take the best: a typical
    hand-written heuristic (one dot product per option) that works for both games."""
    best, best_score = 0, -np.inf
    for i in range(n_opts):
        score = 0.0
        for j in range(opts.shape[1]):
            score += opts[i, j] / (j + 1.0)
        if score > best_score:
            best, best_score = i, score
    return best
