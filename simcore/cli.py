"""The one command line of every game (``bloomsim``, ``rapinsim``, ``python -m simcore GAME``):
``simulate | replay | rules`` with the same flags, user policies from a script
(``--policy FILE.py:NAME``), one-line errors with exit code 2."""
from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable, Container
from pathlib import Path

from . import interrupt
from .policy import UserPolicy


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def parser(game) -> argparse.ArgumentParser:
    """The flags, the same for every game, plus the game's per-seat options
    (``Game.seat_options``). Every option's help says its default, taken from the option
    itself (``%(default)s``) so that the help cannot drift from what is played."""
    ap = _Parser(prog=game.name, description=f"{game.title} simulator")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=_Parser)

    def common(p):
        p.add_argument("--policy", action="extend", nargs="+", required=True,
                       help="one per seat, seat 0 first (repeat the flag or list them): a "
                            "built-in name or FILE.py:NAME (a @simcore.policy function in a "
                            "script)")
        p.add_argument("--seed", type=int, default=0,
                       help="the seed: a seed and a game index are always the same game "
                            "(default: %(default)s)")
        p.add_argument("--rules", help="a JSON or TOML rules file (default: the game's "
                                       "default rules)")
        for flag, _, help_ in game.seat_options:
            p.add_argument(flag, action="extend", nargs="+", help=help_)

    sim = sub.add_parser("simulate", prog=f"{game.name} simulate",
                         help="play many games and print win rates")
    common(sim)
    sim.add_argument("--games", type=int, default=10_000,
                     help="games to play (default: %(default)s)")
    sim.add_argument("--out", help="stream results to this Parquet dataset folder (default: "
                                   "none, the results stay in memory)")
    sim.add_argument("--threads", type=int,
                     help="threads to play on (default: every thread numba may use, "
                          "NUMBA_NUM_THREADS)")
    sim.add_argument("--engine", default="compiled", choices=("compiled", "reference"),
                     help="compiled (numba, fast) or reference (plain Python, the executable "
                          "specification) (default: %(default)s)")
    rep = sub.add_parser("replay", prog=f"{game.name} replay", help="print the log of one game")
    common(rep)
    rep.add_argument("--game", type=int, default=0,
                     help="the game index of the seed to print (default: %(default)s)")
    ru = sub.add_parser("rules", prog=f"{game.name} rules",
                        help="print the rules in force, each with its provenance tag")
    ru.add_argument("--rules", help="a JSON or TOML rules file (default: the game's default "
                                    "rules)")
    return ap


def main(name: str, argv: list[str] | None = None) -> int:
    """``name``'s command line (a registered game, ``simcore.games``)."""
    from . import games
    try:
        game = games.get(name)
    except ValueError as e:
        print(f"python -m simcore: error: {e}", file=sys.stderr)
        return 2
    args = parser(game).parse_args(argv)
    return run_main(game.name, lambda: _run(game, args))


def _run(game, args) -> None:
    from .summary import simulate_summary
    mod = game.module()
    if args.cmd == "rules":
        print(game.rules_text(mod.load_rules(args.rules)) if game.rules_text
              else repr(mod.load_rules(args.rules)))
        return
    pols = [load_policy(p, mod.POLICIES) for p in args.policy]
    extra = {kw: getattr(args, flag.lstrip("-").replace("-", "_"))
             for flag, kw, _ in game.seat_options}
    extra = {k: v for k, v in extra.items() if v is not None}
    if args.cmd == "replay":
        sys.stdout.write(mod.replay(pols, args.seed, args.game, rules=args.rules, **extra))
        return
    res = mod.simulate(pols, args.games, args.seed, rules=args.rules, engine=args.engine,
                       threads=args.threads, out=args.out, **extra)
    if args.out:
        res = res.collect()
        print(f"wrote {args.games:,} games to {args.out}")
    print(simulate_summary(game, res))


def load_policy(spec: str, builtins: Container[str]):
    """A built-in name, or ``FILE.py:NAME`` naming a ``@simcore.policy`` function in a
    script."""
    if spec in builtins or ":" not in spec:
        return spec
    path, name = spec.rsplit(":", 1)
    if not Path(path).is_file():
        raise ValueError(f"policy {spec!r}: file {path!r} does not exist")
    mod_spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    mod = importlib.util.module_from_spec(mod_spec)
    try:
        mod_spec.loader.exec_module(mod)
    except SystemExit as e:     # would end the command with the script's status, silently
        raise ValueError(f"policy {spec!r}: {path} called sys.exit({e.code!r}) while "
                         f"loading; a policy script only defines policies") from None
    except Exception as e:  # noqa: BLE001 - any error of the user's script
        raise ValueError(f"policy {spec!r}: {path} failed to load ({type(e).__name__}: "
                         f"{one_line(e)})") from None
    obj = getattr(mod, name, None)
    if not isinstance(obj, UserPolicy):
        raise ValueError(f"policy {spec!r}: {name!r} in {path} is not a @simcore.policy "
                         f"function")
    return obj


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def run_main(prog: str, body: Callable[[], int | None],
             interrupted: Callable[[], str] | None = None,
             errors: tuple[type[BaseException], ...] = ()) -> int:
    """Run a command: exit status 0; a bad input or a failed write (or one of ``errors``) is
    one line on stderr and status 2; Ctrl-C is one line (``interrupted()`` may add where the
    partial results are) and status 130."""
    try:
        interrupt.check()
        return body() or 0
    except KeyboardInterrupt:
        note = interrupted() if interrupted is not None else ""
        print(f"{prog}: interrupted{'; ' + note if note else ''}", file=sys.stderr)
        return 130
    except (ValueError, OSError, MemoryError, RecursionError, *errors) as e:
        print(f"{prog}: error: {describe(prog, e)}", file=sys.stderr)
        return 2


def describe(prog: str, e: BaseException) -> str:
    """The error's message on one line, without a repeat of ``prog: ``."""
    if isinstance(e, OSError) and e.strerror:
        msg = f"{e.strerror}: {e.filename}" if e.filename else e.strerror
    elif isinstance(e, MemoryError):
        msg = "out of memory; play fewer games at once or stream them with --out DIR"
    elif isinstance(e, RecursionError):
        msg = "input nested too deeply"
    else:
        msg = one_line(e)
    return msg.removeprefix(f"{prog}: ")
