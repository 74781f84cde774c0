"""A user policy written in a script, pitted against the built-ins (a different policy per seat).

Run: python examples/bloomsim_user_policy.py
The engine is not recompiled for this policy: it enters as a numba first-class function.
"""
import polars as pl

import bloomsim
from bloomsim.policies import BRAVE_OK, F_BRAVE, F_GAIN_WANDS, F_LIGHTNING, F_PENALTY, \
    F_POINTS, F_RISK


@bloomsim.policy("lightning_hunter")
def lightning_hunter(kind, obs, opts, n_opts, rng):
    """Scores each option by points, bolts and wands; brave only when nobody can cancel it."""
    best, best_v = 0, -1e30
    for i in range(n_opts):
        o = opts[i]
        if o[F_BRAVE] > 0 and o[F_RISK] > BRAVE_OK:
            continue
        v = o[F_POINTS] + 2.0 * o[F_LIGHTNING] + 0.8 * o[F_GAIN_WANDS] - o[F_PENALTY]
        if v > best_v:
            best, best_v = i, v
    return best


if __name__ == "__main__":
    seats = [lightning_hunter, "greedy", "careful", "cloud"]
    df = bloomsim.simulate(seats, 20_000, seed=1)
    print(df.group_by("policy").agg(pl.col("win").mean().alias("win_rate"),
                                    pl.col("score").mean().alias("mean_score"),
                                    pl.len().alias("n")).sort("win_rate", descending=True))
    print(bloomsim.replay(seats, seed=1, game=0).splitlines()[0])
