"""Where an engine spends its time: ``python -m benchmarks.profile GAME`` samples one batch with
Linux ``perf`` and names the numba functions it lands in.

numba's machine code has no symbols perf can read, so the profiled interpreter (run in a fresh
``NUMBA_CACHE_DIR`` so every kernel is compiled in it, and its LLVM symbols are known) writes
``/tmp/perf-PID.map``, the file perf reads for JIT code. Only samples between the start and the
end of the timed batch count, so compilation is left out. A function LLVM inlined is counted in
its caller.

``--instructions`` counts instead of sampling: the batch runs under valgrind's callgrind, and
the instructions each compiled function executed are divided by the games played. The count
is exact and the same on a busy machine as on an idle one, so it can compare two versions of
an engine where a shared machine's timings cannot (it says nothing of stalls: time per
instruction is the sampled profile's business). valgrind reports its own CPU to numba, so the
kernels are compiled under it once (minutes) into ``--cache``, which later runs reuse.

``--compile`` profiles the cold start instead: a fresh interpreter with an empty
``NUMBA_CACHE_DIR`` imports the game and plays its first batch (1,000 games by default) while
numba's event API (``numba.core.event``) times each kernel's compile (its own, callees'
compiles excluded), the part of it spent in LLVM, and each compiler pass.
"""
from __future__ import annotations

import argparse
import bisect
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from .plan import GOAL_PLAYERS, SEED, all_games


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def demangle(symbol: str) -> str:
    """``_ZN4game6engine9play_gameB2v3...`` -> ``game.engine.play_game``."""
    i = symbol.find("_ZN")
    if i < 0:
        return symbol
    parts, rest = [], symbol[i + 3:]
    while m := re.match(r"\d+", rest):
        n, k = int(m.group()), len(m.group())
        parts.append(rest[k:k + n])
        rest = rest[k + n:]
    name = ".".join(parts).replace("_3c", "<").replace("_3e", ">")
    return re.sub(r"_0x[0-9a-f]+$", "", name)


def _compiled_functions() -> list[tuple[int, int, str]]:
    """(address, size, name) of every function numba compiled or loaded in this process, in
    address order (a function's size: up to the next one)."""
    from numba.core.registry import cpu_target
    engine = cpu_target.target_context.codegen()._engine
    starts = sorted((a, s) for s in engine._defined_symbols
                    if (a := engine.get_function_address(s)))
    ends = [a for a, _ in starts[1:]] + [starts[-1][0] + 4096]
    return [(a, min(end - a, 1 << 20), demangle(s)) for (a, s), end in zip(starts, ends)]


def child(game: str, policy: str, n_players: int, n_games: int, threads: int,
          map_file: str) -> None:
    """Play the batch, print its start and end, and write the map of compiled functions to
    ``map_file``; ``perf``: to ``/tmp/perf-PID.map``, after a warm-up batch that compiles
    (the instruction count plays the batch alone, so every instruction counted is of it)."""
    engine = importlib.import_module(game)
    seats = [policy] * n_players
    if map_file == "perf":
        map_file = f"/tmp/perf-{os.getpid()}.map"
        engine.simulate(seats, 100, SEED, threads=threads, progress=False)   # compile
    t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
    engine.simulate(seats, n_games, SEED, threads=threads, progress=False)
    t1 = time.clock_gettime(time.CLOCK_MONOTONIC)
    Path(map_file).write_text("".join(f"{a:x} {size:x} {name}\n"
                                      for a, size, name in _compiled_functions()))
    print(f"{t0:.6f} {t1:.6f}")


def compile_times(run) -> dict[str, Counter]:
    """CPU seconds of numba's compiles while ``run()`` executes: per kernel its own (a callee
    compiled from inside it is the callee's), of which in LLVM (the LLVM lock held), and per
    compiler pass (its own, passes of nested compiles excluded)."""
    from numba.core import event

    own, llvm, passes = Counter(), Counter(), Counter()
    kernels: list = []      # (name, start) of the compiles in progress, innermost last
    locks: list = []
    running: list = []      # (pass, start)

    def exclusive(stack, totals):
        name, t = stack.pop()
        dt = time.process_time() - t
        totals[name] += dt
        if stack:
            totals[stack[-1][0]] -= dt

    class Compiles(event.Listener):
        def on_start(self, ev):
            f = ev.data["dispatcher"].py_func
            kernels.append((f"{f.__module__}.{f.__qualname__}", time.process_time()))

        def on_end(self, ev):
            exclusive(kernels, own)

    class Llvm(event.Listener):
        def on_start(self, ev):
            locks.append(time.process_time())

        def on_end(self, ev):
            t = locks.pop()
            if not locks:                   # the lock is reentrant: its outermost hold
                llvm[kernels[-1][0] if kernels else "(no compile)"] += time.process_time() - t

    class Passes(event.Listener):
        def on_start(self, ev):
            running.append((ev.data["name"].split(" [")[0], time.process_time()))

        def on_end(self, ev):
            exclusive(running, passes)

    with event.install_listener("numba:compile", Compiles()), \
            event.install_listener("numba:llvm_lock", Llvm()), \
            event.install_listener("numba:run_pass", Passes()):
        run()
    return {"kernels": own, "llvm": llvm, "passes": passes}


def compile_child(game: str, policy: str, n_players: int, n_games: int, threads: int) -> None:
    """Import ``game`` and play its first batch, printing ``compile_times`` as JSON."""
    def first_result():
        engine = importlib.import_module(game)
        engine.simulate([policy] * n_players, n_games, SEED, threads=threads, progress=False)
    print(json.dumps(compile_times(first_result)))


def _shares(report: str) -> Counter:
    """Share per function from ``perf report --stdio`` lines like ``  12.3%  [.] name``."""
    shares = Counter()
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[(.)\]\s+(.*\S)", line)
        if m:
            name = m.group(3)
            if m.group(2) == "k":
                name = "[kernel]"
            elif re.fullmatch(r"0x[0-9a-f]+", name):
                name = "[unnamed machine code]"
            shares[name] += float(m.group(1))
    return shares


def callgrind_costs(text: str) -> Counter:
    """Instructions executed per machine address, from a callgrind file written with
    ``--dump-instr=yes --dump-line=no`` (a cost line is an address, absolute ``0x..``,
    relative ``+n``/``-n`` or ``*`` for the same, then its count; the line after ``calls=`` is
    the callee's inclusive cost, which belongs to the callee)."""
    costs, last, callee = Counter(), 0, False
    for line in text.splitlines():
        if line.startswith("calls="):
            callee = True
            continue
        m = re.match(r"(0x[0-9a-fA-F]+|[+-]\d+|\*)\s+(\d+)", line)
        if not m:
            continue
        at = m.group(1)
        last = int(at, 16) if at.startswith("0x") else last if at == "*" else last + int(at)
        if callee:
            callee = False
        else:
            costs[last] += int(m.group(2))
    return costs


def per_function(costs: Counter, functions: list[tuple[int, int, str]], prefixes) -> Counter:
    """The costs summed per function whose name starts with one of ``prefixes``."""
    ours = sorted((a, a + size, name) for a, size, name in functions if name.startswith(prefixes))
    starts = [a for a, _, _ in ours]
    out = Counter()
    for at, c in costs.items():
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and at < ours[i][1]:
            out[ours[i][2]] += c
    return out


def _read_map(path: Path) -> list[tuple[int, int, str]]:
    rows = (line.split(maxsplit=2) for line in path.read_text().splitlines())
    return [(int(a, 16), int(size, 16), name) for a, size, name in rows]


def _child_cmd(args: argparse.Namespace, threads: int, map_file: str) -> list[str]:
    return [sys.executable, "-m", "benchmarks.profile", "--child", args.game, args.policy,
            str(args.players), str(args.games), str(threads), map_file]


def _run(p: argparse.ArgumentParser, cmd: list[str], cache: Path, what: str) -> str:
    """Run a profiled child with its own numba cache; its stdout."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        p.error(f"the {what} run failed: {proc.stderr.strip().splitlines()[-1]}")
    return proc.stdout


def _table(title: str, head: str, rows: list[str]) -> None:
    print(f"{title}\n\n| {head} |\n|{'---|' * (head.count('|') + 1)}")
    for row in rows:
        print(f"| {row} |")


def count_instructions(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if shutil.which("valgrind") is None:
        p.error("--instructions needs valgrind (apt-get install valgrind)")
    cache = Path(args.cache).expanduser()
    if not (cache.is_dir() and any(cache.iterdir())):
        print(f"compiling the kernels under valgrind into {cache} (several minutes, once)",
              file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp:
        out, fmap = Path(tmp) / "callgrind.out", Path(tmp) / "functions.map"
        _run(p, ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--dump-line=no",
                 f"--callgrind-out-file={out}", *_child_cmd(args, 1, str(fmap))], cache,
             "counted")
        costs = per_function(callgrind_costs(out.read_text()), _read_map(fmap),
                             (f"{args.game}.", "simcore."))
    total, n = sum(costs.values()), args.games
    _table(f"{args.game}: {n:,} games of {args.players} x {args.policy}, 1 thread: "
           f"{total / n:,.0f} instructions per game in the compiled engine (valgrind "
           f"callgrind; exact, whatever the machine's load)",
           "instructions per game | share | function",
           [f"{c / n:,.0f} | {100 * c / total:.1f}% | `{name}`"
            for name, c in costs.most_common(args.top)])


def sample_time(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if shutil.which("perf") is None:
        p.error("Linux perf is not installed (apt-get install linux-perf)")
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp:
        data = Path(tmp) / "perf.data"
        stdout = _run(p, ["perf", "record", "-q", "-F", "999", "-k", "CLOCK_MONOTONIC", "-o",
                          str(data), "--", *_child_cmd(args, args.threads, "perf")],
                      Path(tmp) / "cache", "profiled")
        t0, t1 = map(float, stdout.split()[-2:])
        report = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children",
                                 "--sort", "sym", "--time", f"{t0:.6f},{t1:.6f}"],
                                capture_output=True, text=True, check=True).stdout
    _table(f"{args.game}: {args.games:,} games of {args.players} x {args.policy}, "
           f"{args.threads} thread(s), {args.games / (t1 - t0):,.0f} games/s while sampled "
           f"(perf adds a little overhead)", "share of samples | function",
           [f"{share:.1f}% | `{name}`" for name, share in _shares(report).most_common(args.top)])


def profile_compile(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp:
        t0 = time.perf_counter()
        stdout = _run(p, [sys.executable, "-m", "benchmarks.profile", "--compile-child",
                          args.game, args.policy, str(args.players), str(args.games),
                          str(args.threads)], Path(tmp) / "cache", "compile")
        wall = time.perf_counter() - t0
    res = {k: Counter(v) for k, v in json.loads(stdout.splitlines()[-1]).items()}
    kernels, llvm, passes = res["kernels"], res["llvm"], res["passes"]
    total = sum(kernels.values())
    _table(f"{args.game}: cold start (empty numba cache) to a first {args.games:,} games of "
           f"{args.players} x {args.policy}, {wall:.1f} s "
           f"wall; compiling {total:.1f} s of CPU, {sum(llvm.values()):.1f} s of it in LLVM",
           "compile CPU s | of which LLVM | kernel",
           [f"{c:.2f} | {llvm[name]:.2f} | `{name}`"
            for name, c in kernels.most_common(args.top)])
    print()
    _table("The same compile by numba pass (LLVM's optimisation and machine code are in the "
           "lowering passes)", "CPU s | share | pass",
           [f"{c:.2f} | {100 * c / total:.0f}% | {name}"
            for name, c in passes.most_common(args.top)])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--compile-child"]:
        game, policy, n_players, n_games, threads = argv[1:]
        compile_child(game, policy, int(n_players), int(n_games), int(threads))
        return 0
    if argv[:1] == ["--child"]:
        game, policy, n_players, n_games, threads, map_file = argv[1:]
        child(game, policy, int(n_players), int(n_games), int(threads), map_file)
        return 0
    p = _Parser(prog="python -m benchmarks.profile", description=__doc__.split("\n")[0])
    p.add_argument("game", choices=sorted(all_games()))
    p.add_argument("--policy", default="random", help="the policy of every seat")
    p.add_argument("--players", type=int, default=GOAL_PLAYERS)
    p.add_argument("--games", type=int, default=None,
                   help="games in the batch (20,000 sampled; 2,000 counted; 1,000 compiled for)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--top", type=int, default=25, help="functions to list")
    p.add_argument("--instructions", action="store_true",
                   help="count instructions per game under valgrind instead of sampling time")
    p.add_argument("--compile", action="store_true",
                   help="profile the cold start's compile (per kernel and per compiler pass)")
    p.add_argument("--cache", default="~/.cache/simcore-valgrind-numba",
                   help="numba cache for --instructions (kernels compiled under valgrind)")
    args = p.parse_args(argv)
    if args.games is None:
        args.games = 2_000 if args.instructions else 1_000 if args.compile else 20_000
    if args.compile and args.instructions:
        p.error("--compile and --instructions are two different profiles; choose one")
    run = (profile_compile if args.compile else count_instructions if args.instructions
           else sample_time)
    run(p, args)
    return 0

if __name__ == "__main__":
    sys.exit(main())
