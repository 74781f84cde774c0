"""Where an engine spends its time: ``python -m benchmarks.profile GAME`` samples one batch with
Linux ``perf`` and names the numba functions it lands in.

numba's machine code has no symbols perf can read, so the profiled interpreter (run in a fresh
``NUMBA_CACHE_DIR`` so every kernel is compiled in it, and its LLVM symbols are known) writes
``/tmp/perf-PID.map``, the file perf reads for JIT code. Only samples between the start and the
end of the timed batch count, so compilation is left out. A function LLVM inlined is counted in
its caller.
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from .plan import GAMES, GOAL_PLAYERS, SEED


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def demangle(symbol: str) -> str:
    """``_ZN8bloomsim6engine9play_gameB2v3...`` -> ``bloomsim.engine.play_game``."""
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


def _write_perf_map() -> None:
    """Name every function numba compiled in this process, for perf."""
    from numba.core.registry import cpu_target
    engine = cpu_target.target_context.codegen()._engine
    starts = sorted((a, s) for s in engine._defined_symbols
                    if (a := engine.get_function_address(s)))
    ends = [a for a, _ in starts[1:]] + [starts[-1][0] + 4096]
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for (a, s), end in zip(starts, ends):
            f.write(f"{a:x} {min(end - a, 1 << 20):x} {demangle(s)}\n")


def child(game: str, policy: str, n_players: int, n_games: int, threads: int) -> None:
    engine = importlib.import_module(game)
    seats = [policy] * n_players
    engine.simulate(seats, 100, SEED, threads=threads, progress=False)   # compile
    t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
    engine.simulate(seats, n_games, SEED, threads=threads, progress=False)
    t1 = time.clock_gettime(time.CLOCK_MONOTONIC)
    _write_perf_map()
    print(f"{t0:.6f} {t1:.6f}")


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


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        game, policy, n_players, n_games, threads = argv[1:]
        child(game, policy, int(n_players), int(n_games), int(threads))
        return 0
    p = _Parser(prog="python -m benchmarks.profile", description=__doc__.split("\n")[0])
    p.add_argument("game", choices=sorted(GAMES))
    p.add_argument("--policy", default="random", help="the policy of every seat")
    p.add_argument("--players", type=int, default=GOAL_PLAYERS)
    p.add_argument("--games", type=int, default=20_000, help="games in the sampled batch")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--top", type=int, default=25, help="functions to list")
    args = p.parse_args(argv)
    if shutil.which("perf") is None:
        p.error("Linux perf is not installed (apt-get install linux-perf)")
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp:
        data = Path(tmp) / "perf.data"
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp) / "cache"))
        cmd = ["perf", "record", "-q", "-F", "999", "-k", "CLOCK_MONOTONIC", "-o", str(data),
               "--", sys.executable, "-m", "benchmarks.profile", "--child", args.game,
               args.policy, str(args.players), str(args.games), str(args.threads)]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            p.error(f"the profiled run failed: {proc.stderr.strip().splitlines()[-1]}")
        t0, t1 = map(float, proc.stdout.split()[-2:])
        report = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children",
                                 "--sort", "sym", "--time", f"{t0:.6f},{t1:.6f}"],
                                capture_output=True, text=True, check=True).stdout
    shares = _shares(report)
    print(f"{args.game}: {args.games:,} games of {args.players} x {args.policy}, "
          f"{args.threads} thread(s), {args.games / (t1 - t0):,.0f} games/s while sampled "
          f"(perf adds a little overhead)\n")
    print("| share of samples | function |\n|---|---|")
    for name, share in shares.most_common(args.top):
        print(f"| {share:.1f}% | `{name}` |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
