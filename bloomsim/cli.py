"""Command line: ``bloomsim simulate | replay | rules``. Errors are one line and exit code 2."""
from __future__ import annotations

import argparse
import json
import sys


from simcore.cli import load_policy, run_main
from simcore.summary import win_table

from .rules import ASSUMPTIONS


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"bloomsim: error: {message} (see bloomsim --help)", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="bloomsim", description="Broom Service simulator")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sim = sub.add_parser("simulate", help="play many games and print win rates")
    sim.add_argument("--policy", action="append", required=True,
                     help="one per seat, seat 0 first: a built-in name or FILE.py:NAME "
                          "(a @bloomsim.policy function in a script)")
    sim.add_argument("--games", type=int, default=10_000)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--out", help="stream results to this Parquet dataset folder")
    sim.add_argument("--rules", help="a JSON or TOML rules file")
    sim.add_argument("--threads", type=int)
    sim.add_argument("--engine", default="compiled", choices=("compiled", "reference"))
    rep = sub.add_parser("replay", help="print the log of one game")
    rep.add_argument("--policy", action="append", required=True,
                     help="one per seat: a built-in name or FILE.py:NAME")
    rep.add_argument("--seed", type=int, default=0)
    rep.add_argument("--game", type=int, default=0)
    rep.add_argument("--rules")
    rules = sub.add_parser("rules", help="print the rules in force and the assumptions")
    rules.add_argument("--rules")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return run_main("bloomsim", lambda: _run(args))


def _run(args) -> None:
    from . import api
    from .policies import POLICIES
    from .rules import load_rules
    if args.cmd == "rules":
        r = load_rules(args.rules)
        print(f"# rules from {r.source}")
        print(json.dumps(r.to_dict(), indent=1))
        print("\n# assumptions and rules options (replace them in your own rules file):")
        for k, v in ASSUMPTIONS.items():
            print(f"- {k}: {v}")
        return
    pols = [load_policy(p, POLICIES) for p in args.policy]
    if args.cmd == "simulate":
        df = api.simulate(pols, args.games, args.seed, rules=args.rules,
                          engine=args.engine, threads=args.threads, out=args.out)
        if args.out:
            df = df.collect()
            print(f"wrote {args.games} games to {args.out}")
        print(win_table(df, "policy", score="score"))
    else:
        print(api.replay(pols, args.seed, args.game, rules=args.rules), end="")
