"""``rapinsim simulate | replay | rules``: errors are one clear line and exit code 2."""
from __future__ import annotations

import argparse
import sys

import polars as pl

from simcore.cli import load_policy, run_main
from simcore.summary import win_table

from .api import replay, simulate
from .policies import POLICIES
from .rules import TAGS, load_rules


def summary(df: pl.DataFrame) -> str:
    """Win rate by policy and by character with n and the 95% Wilson interval."""
    lines = []
    games = df.filter(pl.col("seat") == 0)
    lines.append(f"{games.height:,} games, mean {games['turns'].mean():.1f} player turns, "
                 f"{games['stalled'].mean():.2%} stalled (turn cap), "
                 f"{games['dawn'].mean():.2%} ended at dawn")
    for col in ("policy", "character"):
        lines.append("\n" + win_table(df, col))
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="rapinsim", description="Lapin treasure hunt simulator")
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p):
        p.add_argument("--policy", action="extend", nargs="+", required=True,
                       help=f"one per seat: {', '.join(POLICIES)} or FILE.py:NAME")
        p.add_argument("--seed", type=int, required=True)
        p.add_argument("--rules", help="rules file (JSON or TOML)")
        p.add_argument("--character", action="extend", nargs="+",
                       help="fix one character per seat (default: the players choose, or "
                            "the rules' character_selection = draw deals them)")

    s = sub.add_parser("simulate", help="play many games and summarise win rates")
    common(s)
    s.add_argument("--games", type=int, required=True)
    s.add_argument("--out", help="stream results to this Parquet dataset folder")
    s.add_argument("--threads", type=int)
    s.add_argument("--engine", default="compiled", choices=["compiled", "reference"])
    r = sub.add_parser("replay", help="print one game's log")
    common(r)
    r.add_argument("--game", type=int, required=True)
    ru = sub.add_parser("rules", help="print the rules in force and which are assumptions")
    ru.add_argument("--rules", help="rules file (JSON or TOML)")
    return ap


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    return run_main("rapinsim", lambda: _run(args))


def _run(args) -> None:
    if args.cmd == "rules":
        rules = load_rules(args.rules)
        print(f"rules from {rules.source}\n[R] the rules say so, [D] a decision where "
              f"they are unclear, [A] an assumption\n")
        for name, (tag, doc) in TAGS.items():
            print(f"[{tag}] {name:<26} {getattr(rules, name)!s:<32} {doc}")
        return
    pols = [load_policy(p, POLICIES) for p in args.policy]
    if args.cmd == "replay":
        sys.stdout.write(replay(pols, args.seed, args.game, rules=args.rules,
                                characters=args.character))
        return
    res = simulate(pols, args.games, args.seed, rules=args.rules,
                   characters=args.character, engine=args.engine, threads=args.threads,
                   out=args.out)
    if args.out:
        res = res.collect()
        print(f"results written to {args.out}")
    print(summary(res))


if __name__ == "__main__":
    sys.exit(main())
