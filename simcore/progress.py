"""Progress for long runs: a bar on stderr, a user callback, or nothing."""
from __future__ import annotations

import sys
import time
from collections.abc import Callable

ProgressArg = bool | Callable[[int, int], None] | None


class Progress:
    """Reports games done. ``progress``: None (a bar when stderr is a terminal and the run is
    long), True (always a bar), False (silent) or a callable ``f(done, total)``."""

    def __init__(self, progress: ProgressArg, total: int, label: str):
        self.total, self.label, self.done = total, label, 0
        self.start = time.perf_counter()
        self.callback = progress if callable(progress) else None
        if progress is None:
            self.bar = sys.stderr.isatty() and total >= 100_000
        else:
            self.bar = progress is True

    def update(self, n: int) -> None:
        self.done += n
        if self.callback is not None:
            self.callback(self.done, self.total)
        if self.bar:
            elapsed = time.perf_counter() - self.start
            rate = self.done / elapsed if elapsed > 0 else 0.0
            frac = self.done / self.total if self.total else 1.0
            filled = int(30 * frac)
            eta = (self.total - self.done) / rate if rate > 0 else 0.0
            sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                             f"{self.done:,}/{self.total:,} games  {rate:,.0f}/s  "
                             f"eta {eta:,.0f}s ")
            sys.stderr.flush()

    def close(self) -> None:
        if self.bar:
            sys.stderr.write("\n")
            sys.stderr.flush()
