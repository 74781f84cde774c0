"""Does predicting Rize pay? Finds per seat per round of a player who keeps out of his path.

The seed names the game's central skill: predict Inspector Rize's moves and escape him
(「リゼ警部の動きを推測して逃げたり」). This plays, for each player count and for the default
town (a 4 x 4 grid) and the specification's ring of 10 districts (``rapinsim.rules.RING10``):

- one ``evader`` (it predicts Rize's path before its next turn and keeps out of it) among
  ``random`` players: the evader's finds per round against the random seats' in the same games;
- one ``careful`` player (it avoids only Rize's next district) among random players;
- a table of evaders against a table of random players.

A round is one turn of every player (``turns / players``). Each figure is the mean over games
of the seat's finds per round, with a 95% interval from the spread over games (the random
seats of a game are averaged first: they share the game). ``docs/rapinsim-rules.md`` ("The
default town") quotes its output.

    python examples/rapinsim_evasion.py [--games 20000] [--seed 1]
"""
import argparse
import math

import polars as pl

import rapinsim
from rapinsim.rules import RING10, load_rules


def per_round(df: pl.DataFrame, seats) -> tuple[float, float]:
    """Mean and 95% half-width of the given seats' finds per round (seats averaged per game)."""
    x = (df.filter(pl.col("seat").is_in(seats))
         .with_columns((pl.col("found") / (pl.col("turns") / pl.col("n_players"))).alias("f"))
         .group_by("game").agg(pl.col("f").mean())["f"])
    return x.mean(), 1.96 * x.std() / math.sqrt(x.len())


def fmt(m: tuple[float, float]) -> str:
    return f"{m[0]:.3f} ± {m[1]:.3f}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    for name, rules in (("default town (4 x 4 grid, 16 districts)", load_rules()),
                        ("specification's ring of 10 (RING10)", load_rules(RING10))):
        print(f"\n{name}: finds per seat per round, {a.games} games per cell, seed {a.seed}\n")
        print("| players | evader among random | the random seats | careful among random "
              "| all evaders | all random |")
        print("|---|---|---|---|---|---|")
        for p in range(2, 7):
            def play(pols):
                return rapinsim.simulate(pols, a.games, a.seed, rules=rules, progress=False)
            ev = play(["evader"] + ["random"] * (p - 1))
            ca = play(["careful"] + ["random"] * (p - 1))
            others = list(range(1, p))
            cells = [per_round(ev, [0]), per_round(ev, others), per_round(ca, [0]),
                     per_round(play(["evader"] * p), range(p)),
                     per_round(play(["random"] * p), range(p))]
            print(f"| {p} | " + " | ".join(fmt(c) for c in cells) + " |", flush=True)


if __name__ == "__main__":
    main()
