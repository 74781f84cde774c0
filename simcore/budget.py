"""The runaway rule, written once: a run is checked against what it will cost before its first
game, so that a run that cannot finish is refused at once in one line, not after minutes of
play, a full disk or the kernel's out-of-memory killer.

Every entry point that plays games (``simulate`` with ``out`` or past one chunk, and in
``analyses`` the sweep, diff, solve, tournament, ladder, balance, what-if, tune and precise runs)
calls :func:`check` with the plan it is about to play:

- a player count given to an analysis must be in the game's range (``check_players``; ``simulate``
  checks its seats against the rules in force);
- the games the whole plan implies (every seating, variant, rung and stage) at most
  ``GAMES_CEILING``;
- the results it keeps in memory at once must fit in the memory available;
- with ``out``, the folder must take a new file (``check_destination``) and what the run writes
  there must fit in the free space of its disk.

A game's results take the same bytes per game whatever the policies, so they are measured on
``SAMPLE`` games of random play under the run's rules at its largest player count, in memory and
as zstd Parquet (a sample's Parquet weighs more per game than a long run's: a margin). The
rules' own sizes (a die with millions of faces, a deck of millions of tiles) are bounded by each
game's rules validation, so that loading them and playing one game stay cheap.
"""
from __future__ import annotations

import io
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

GAMES_CEILING = 10 ** 10
"""The most games one run may plan: days of play on the fastest engine on a large machine
(a count past it is a typo, or a run to split)."""
SAMPLE = 1024
"""Games of random play that measure a game's bytes per game."""
MEMORY_SHARE = 0.8
"""The share of the available memory a run's results may take (the rest builds them)."""


def check_players(game: Any, players: Any) -> int:
    """``players`` if it is a player count of ``game``'s range (``Game.players``), else a
    ValueError naming the range."""
    lo, hi = game.players
    if isinstance(players, bool) or not isinstance(players, int) or not lo <= players <= hi:
        raise ValueError(f"players: {game.title} takes {lo} to {hi} players, got {players!r}")
    return players


def check(game: Any, games: int, players: int | Sequence[int], *, rules: Sequence[Any] = (None,),
          held: int = 0, out: str | os.PathLike | None = None, written: int = 0) -> None:
    """Refuse a run of ``games`` games in all of ``game`` (a ``simcore.games.Game``) at the
    player counts ``players`` under each of ``rules`` (None: the defaults) that keeps ``held``
    games' results in memory at once, or writes ``written`` games' results under ``out``, when
    it is too big for the ceiling, the memory or the disk: a ValueError saying how much is
    needed and how much there is."""
    counts = [players] if isinstance(players, int) else list(players)
    if games > GAMES_CEILING:
        raise ValueError(f"{games:,} games in all is more than the {GAMES_CEILING:,} one run may "
                         f"play; ask for fewer games")
    if out is not None:
        check_destination(out)
    if not held and not written:
        return
    memory, disk = (max(sizes) for sizes in zip(*(footprint(game, r, max(counts))
                                                  for r in rules)))
    if held:
        check_memory(held * memory, held)
    if written:
        check_disk(out, written * disk, written)


def footprint(game: Any, rules: Any, players: int) -> tuple[float, float]:
    """Bytes per game of ``game``'s results at ``players`` under ``rules``: (in memory, as zstd
    Parquet), measured on ``SAMPLE`` games of random play on one thread."""
    kwargs = {} if rules is None else {"rules": rules}
    df = game.module().simulate(["random"] * players, SAMPLE, 0, threads=1, progress=False,
                                **kwargs)
    buf = io.BytesIO()
    df.write_parquet(buf, compression="zstd")
    return df.estimated_size() / SAMPLE, buf.tell() / SAMPLE


def available_memory() -> int:
    """Bytes of memory available to a new frame (``MemAvailable`` on Linux, else physical
    memory)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def check_memory(need: float, n_games: int) -> None:
    """Refuse results that would not fit in memory (with a margin for building them)."""
    have = available_memory()
    if need > have * MEMORY_SHARE:
        raise ValueError(f"{n_games:,} games need about {size(need)} of memory for the "
                         f"results frame, but only {size(have)} is available; stream them to "
                         f"disk with out=DIR (command line: --out DIR), or play fewer")


def check_disk(out: str | os.PathLike, need: float, n_games: int) -> None:
    """Refuse a run whose output would not fit in the free space of ``out``'s disk."""
    free = shutil.disk_usage(_existing(Path(out))).free
    if need > free:
        raise ValueError(f"out={str(out)!r}: {n_games:,} games need about {size(need)} of "
                         f"disk, but only {size(free)} is free there; free space, choose "
                         f"another folder or play fewer games")


def check_destination(out: str | os.PathLike, replaced: bool = False) -> Path:
    """``out`` as a Path, if a run can write there: the folder (or, when it does not exist yet,
    the nearest folder above it) takes a new file, tried by writing one (a read-only mount
    refuses even the superuser); ``replaced``: the run swaps a new folder in for ``out`` at the
    end (a report), which a mount point cannot be."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"out={str(out)!r} exists and is not a directory")
    if replaced and os.path.ismount(out):
        raise ValueError(f"out={str(out)!r} is a mount point, which a finished run cannot "
                         f"replace; write to a folder inside it")
    where = _existing(out.parent if replaced else out)
    try:
        with tempfile.TemporaryFile(dir=where):
            pass
    except OSError as e:
        raise ValueError(f"out={str(out)!r}: cannot write there ({e.strerror or e}: "
                         f"{where}); choose another folder") from None
    return out


def _existing(path: Path) -> Path:
    """``path``, or the nearest folder above it that exists."""
    path = path.absolute()
    while not path.exists():
        path = path.parent
    return path


def size(n: float) -> str:
    """Bytes as a reader says them (1.2 GB)."""
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1000
    raise AssertionError
