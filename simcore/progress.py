"""Progress for long runs: a bar on a terminal, plain lines elsewhere, a user callback, or
nothing."""
from __future__ import annotations

import sys
import time
from collections.abc import Callable

from .interrupt import check as check_interrupted

ProgressArg = bool | Callable[[int, int], None] | None

LINE_EVERY = 5.0
"""Seconds between two plain progress lines (stderr not a terminal: a log, a pipe)."""


class Progress:
    """Reports games done. ``progress``: None (on a terminal a bar for a run of 100,000 games
    or more; elsewhere a plain line every ``LINE_EVERY`` seconds until the end, so a short
    run prints nothing), True (always a bar), False (silent) or a callable ``f(done, total)``."""

    def __init__(self, progress: ProgressArg, total: int, label: str):
        self.total, self.label, self.done = total, label, 0
        self.start = self.last = time.perf_counter()
        self.callback = progress if callable(progress) else None
        self.bar = self.lines = False
        if progress is None:
            self.bar = sys.stderr.isatty() and total >= 100_000
            self.lines = not sys.stderr.isatty()
        else:
            self.bar = progress is True

    def update(self, n: int) -> None:
        check_interrupted()
        self.done += n
        if self.callback is not None:
            self.callback(self.done, self.total)
        now = time.perf_counter()
        if not (self.bar or self.lines and now - self.last >= LINE_EVERY
                and self.done < self.total):
            return
        self.last = now
        elapsed = now - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        frac = self.done / self.total if self.total else 1.0
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        if self.bar:
            filled = int(30 * frac)
            sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] "
                             f"{self.done:,}/{self.total:,} games  {rate:,.0f}/s  "
                             f"eta {eta:,.0f}s ")
        else:
            sys.stderr.write(f"{self.label}: {self.done:,}/{self.total:,} games ({frac:.1%}), "
                             f"{rate:,.0f}/s, eta {eta:,.0f}s\n")
        sys.stderr.flush()

    def close(self) -> None:
        if self.bar:
            sys.stderr.write("\n")
            sys.stderr.flush()
