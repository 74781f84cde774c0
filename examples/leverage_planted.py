"""The planted-truth check of ``analyses.leverage`` at full size (docs/analyses.md, "Decision
leverage and accuracy"): with every role in every hand and no event cards, the order in which a
Broom Service seat selects its roles changes nothing, so its ``select`` decisions must read
dead; under the default rules the same decisions must not.

    python examples/leverage_planted.py [--positions 2000] [--playouts 16]
"""
import argparse

import polars as pl

import bloomsim
from analyses import leverage

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--positions", type=int, default=2000)
ap.add_argument("--playouts", type=int, default=16)
args = ap.parse_args()
rules = bloomsim.load_rules()
for name, r in (("planted: every role in every hand, no events",
                 rules.replace(hand_size=len(rules.role_ids), events_used=0)),
                ("control: the default rules", rules)):
    lev = leverage("bloomsim", 4, args.positions, playouts=args.playouts, seed=1, rules=r)
    row = lev.table.filter((pl.col("by") == "kind") & (pl.col("group") == "select")).row(
        0, named=True)
    print(f"{name}: select dead {row['dead']:.1f}% [{row['dead_low']:.1f}, "
          f"{row['dead_high']:.1f}] of {row['decisions']:,} decisions, leverage "
          f"{row['leverage']:.1f} points [{row['leverage_low']:.1f}, "
          f"{row['leverage_high']:.1f}] ({lev.seconds:.0f} s)")
