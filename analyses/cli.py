"""``python -m analyses``: the balance report, and the tables on the terminal."""
from __future__ import annotations

import argparse

import polars as pl

from simcore.cli import run_main

from . import display
from .balance import COUNTERFACTUAL_GAMES, GAMES_PER_GAME, balance
from .compare import compare
from .data import GAMES, scan
from .event_impact import event_impact
from .report import partial_folder, report
from .seats import seat_advantage
from .tournament import tournament
from .winrates import win_rates


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m analyses", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("balance", help="play both games and write the balance report")
    b.add_argument("--out", default="report", help="report directory (default: report)")
    b.add_argument("--games", type=int, default=GAMES_PER_GAME, help="games per game")
    b.add_argument("--counterfactual-games", type=int, default=COUNTERFACTUAL_GAMES,
                   help="games per switched-off thing")
    b.add_argument("--players", type=int, default=4)
    b.add_argument("--seed", type=int, default=0)
    r = sub.add_parser("report", help="write DIR/index.html for a results file or dataset")
    r.add_argument("results", help="Parquet file or simulate(out=DIR) dataset directory")
    r.add_argument("--out", required=True, help="report directory")
    r.add_argument("--rules", help="rules file the results were played with (for the board)")
    w = sub.add_parser("winrates", help="win rate table")
    w.add_argument("results")
    w.add_argument("--by", nargs="+", default=["policy"], help="columns to group by")
    s = sub.add_parser("seats", help="seat advantage table")
    s.add_argument("results")
    s.add_argument("--score", help="score column (default: the game's own)")
    e = sub.add_parser("events", help="event / item / trap / character impact table")
    e.add_argument("results")
    e.add_argument("--by", default="auto", help="group column (default: auto)")
    e.add_argument("--adjust", choices=["holm", "bh"], default="holm")
    t = sub.add_parser("tournament", help="play a round robin and print its tables")
    t.add_argument("game", choices=GAMES)
    t.add_argument("--policy", action="append", required=True, help="one per policy")
    t.add_argument("--players", type=int, required=True)
    t.add_argument("--games", type=int, required=True, help="games per seating")
    t.add_argument("--seed", type=int, default=0)
    c = sub.add_parser("compare", help="A versus B on paired games")
    c.add_argument("game", choices=GAMES)
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--field", nargs="*", default=[], help="policies of the other seats")
    c.add_argument("--games", type=int, default=4000, help="games (sequential: at most)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--sequential", action="store_true", help="stop as soon as decided (SPRT)")
    c.add_argument("--alpha", type=float, default=0.05)
    c.add_argument("--beta", type=float, default=0.05)
    c.add_argument("--delta", type=float, default=0.05,
                   help="win-share difference the SPRT should detect")
    return ap


def _run(args: argparse.Namespace) -> None:
    if args.command == "balance":
        page = balance(args.out, args.games, args.players, args.seed, args.counterfactual_games)
        print(f"balance report: {page.resolve()}")
    elif args.command == "report":
        page = report(scan(args.results), args.out, args.rules)
        print(f"report: {page.resolve()}")
    elif args.command == "winrates":
        print(display.to_text(display.win_rates_table(win_rates(scan(args.results), args.by),
                                                      args.by)))
    elif args.command == "seats":
        print(display.to_text(display.seats_table(seat_advantage(scan(args.results),
                                                                 args.score))))
    elif args.command == "events":
        by = None if args.by == "none" else args.by
        print(display.to_text(display.events_table(event_impact(scan(args.results), by=by,
                                                                adjust=args.adjust))))
    elif args.command == "tournament":
        t = tournament(args.game, args.policy, args.players, args.games, args.seed)
        print(display.to_text(display.head_to_head_table(t.matrix, t.ratings)))
    elif args.command == "compare":
        res = compare(args.game, args.a, args.b, field=args.field, n_games=args.games,
                      seed=args.seed, sequential=args.sequential, alpha=args.alpha,
                      beta=args.beta, delta=args.delta)
        print(display.to_text(res.table().transpose(include_header=True,
                                                    header_name="field",
                                                    column_names=["value"])
                              .with_columns(pl.col("value").cast(pl.String))))


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)

    def interrupted() -> str:
        partial = partial_folder(args.out) if args.command == "balance" else None
        files = sorted(p.name for p in partial.glob("*.parquet")) if partial else []
        if not files:
            return ""
        return (f"the results finished so far are in {partial} ({', '.join(files)}); "
                f"{args.out} is unchanged")
    return run_main("analyses", lambda: _run(args), interrupted,
                    errors=(pl.exceptions.PolarsError,))
