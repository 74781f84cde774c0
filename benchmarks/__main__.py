"""``python -m benchmarks``: speed, start-up, memory and a peer, checked against the speed goals.

    python -m benchmarks --quick --json out.json      # under 2 minutes
    python -m benchmarks --json benchmarks/results/baseline.json \
        --plot benchmarks/results/baseline.png        # the full run, the project's baseline

``--record`` appends the run's goals to the checkout's ledger benchmarks/results/history.jsonl
(``--ledger FILE`` to another); without either a run writes nothing but what it is asked to.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import sys
import time
from pathlib import Path

from . import agents, isolated, ledger, peer, throughput
from .goals import evaluate
from .machine import info
from .plan import PLANS, SEED, all_games
from .plan import game as game_named
from .report import markdown, plot
from .stats import load

SECTIONS = ("throughput", "agents", "startup", "peer", "memory")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def _positive(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _out_file(text: str) -> Path:
    """An output path whose folder exists: checked before a 15-minute run, not after."""
    path = Path(text)
    if path.is_dir() or not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: not a file in an existing "
                                         f"folder")
    return path


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    size = p.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_const", dest="mode", const="quick",
                      help="fewer, smaller runs (under 2 minutes)")
    size.add_argument("--smoke", action="store_const", dest="mode", const="smoke",
                      help="tiny runs that only check the harness works (tests, CI)")
    p.add_argument("--json", type=_out_file, metavar="FILE", help="write every figure as JSON")
    p.add_argument("--plot", type=_out_file, metavar="FILE", help="games/s vs batch and threads")
    p.add_argument("--markdown", type=_out_file, metavar="FILE", help="write the tables")
    book = p.add_mutually_exclusive_group()
    book.add_argument("--record", action="store_true",
                      help="append the run's goals to the project's ledger "
                           "benchmarks/results/history.jsonl (from a checkout)")
    book.add_argument("--ledger", type=_out_file, metavar="FILE",
                      help="append the run's goals to this JSON-lines ledger")
    p.add_argument("--games", nargs="+", choices=sorted(all_games()),
                   default=sorted(all_games()))
    p.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    p.add_argument("--reps", type=_positive, help="repetitions of every measurement")
    p.add_argument("--sweep-batch", type=_positive, metavar="N",
                   help="batch of the player-count and policy comparisons (full: 10,000)")
    p.add_argument("--memory-games", type=_positive, metavar="N",
                   help="games streamed in the memory run (full: 10,000,000)")
    p.set_defaults(mode="full")
    return p


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run(args: argparse.Namespace, command: str) -> dict:
    plan = PLANS[args.mode]
    plan = dataclasses.replace(plan, reps=args.reps or plan.reps,
                               sweep_batch=args.sweep_batch or plan.sweep_batch,
                               memory_games=args.memory_games or plan.memory_games)
    games = [game_named(g) for g in args.games]
    start = time.perf_counter()
    res = {"schema_version": 1, "command": command, "mode": plan.mode, "seed": SEED,
           "started_utc": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M"),
           "games": [g.module for g in games], "plan": dataclasses.asdict(plan),
           "machine": info(), "load_start": load(), "throughput": [], "startup": [],
           "memory": [], "agents": [], "peer": None, "peer_search": [], "notes": []}
    if "throughput" in args.sections:
        for game in games:
            records, notes = throughput.benchmark(game, plan, _log)
            res["throughput"] += records
            res["notes"] += notes
    if "agents" in args.sections:
        for game in games:
            res["agents"] += agents.benchmark(game, plan, _log)
    if "startup" in args.sections:
        for game in games:
            res["startup"] += isolated.startup(game, plan)
            _log(f"{game.module} start-up: {res['startup'][-1]}")
    if "peer" in args.sections:
        if peer.available():
            res["peer"] = peer.hearts(plan.peer_games, plan.reps, SEED)
            _log(f"peer: {res['peer']['decisions_per_s']:,.0f} decisions/s")
            res["peer_search"] = peer.ismcts(max(plan.agent_budgets), plan.agent_positions,
                                             plan.reps, SEED)
            for r in res["peer_search"]:
                _log(f"peer: {r['class']} on {r['game']}: {r['iterations_per_cpu_s']:,.0f} "
                     f"iterations/s per core")
        else:
            res["notes"].append("peer: open_spiel is not installed "
                                "(install the project's extra: pip install '.[peers]'); "
                                "OpenSpiel hearts and ISMCTS skipped")
    if "memory" in args.sections:
        for game in games:
            res["memory"].append(isolated.memory(game, plan))
            _log(f"{game.module} memory: {res['memory'][-1]}")
    res["wall_s"] = time.perf_counter() - start
    res["load_end"] = load()
    res["goals"] = evaluate(res)
    return res


def _ledger(args: argparse.Namespace) -> Path | None:
    """The ledger the run appends to: none unless asked, so a run leaves a checkout clean."""
    return ledger.DEFAULT if args.record else args.ledger


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = parser()
    args = p.parse_args(argv)
    if args.record and ledger.default_path() is None:
        p.error(f"--record appends to a checkout's {ledger.DEFAULT.relative_to(ledger.REPO)}, "
                f"and this is an installed copy; use --ledger FILE")
    for name in args.games:
        try:
            engine = game_named(name).load()
        except ImportError as exc:
            p.error(f"the {name} engine cannot be imported: {exc}")
        if not callable(getattr(engine, "simulate", None)):
            p.error(f"the {name} engine has no simulate() yet")
    res = run(args, " ".join(["python -m benchmarks", *argv]))
    text = markdown(res)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")
    if args.plot:
        plot(res, args.plot)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    book = _ledger(args)
    if book:
        ledger.append(book, res)
        _log(f"appended to the ledger {book}")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
