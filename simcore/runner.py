"""The chunked batch runner both games share.

Games are played in fixed chunks of ``CHUNK`` consecutive game indices; inside a chunk the
engine spreads games over all threads. Because every game draws from its own streams
(``simcore.rng``), the chunking, the thread count and resuming never change a game.

Each chunk is played (``play``: the engine, which releases the GIL) and then turned into its
frame (``build``: numpy and polars); the frame of chunk k is built, and with ``out`` written,
on a worker thread while chunk k+1 plays, so the engine's threads never wait for it. The
returned frame is the chunks' frames concatenated without copying: one polars chunk per
``CHUNK`` games (``DataFrame.rechunk()`` makes the columns contiguous when that matters).

With ``out=`` each chunk is written to its own Parquet file (``part-000000.parquet``, ...) in a
directory, through a temporary name and an atomic rename, so an interrupted run leaves only
complete chunks and a rerun with the same settings resumes where it stopped; the manifest is
written the same way, and the parts already there are checked before any game is played. Memory
stays bounded by about two chunks. Without ``out`` the frame's size is estimated first (from
one game's frame) and a run that would not fit in memory is refused.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numba
import polars as pl

from .budget import check_memory
from .progress import Progress, ProgressArg
from .rng import GAMES_LIMIT

CHUNK = 1 << 16
MANIFEST = "_manifest.json"


def check_int(name: str, value: Any, least: int = 1, below: int = GAMES_LIMIT) -> int:
    """``value`` if it is an int from ``least`` to ``below - 1``, else a ValueError naming
    ``name`` (a count of games of 0 must not quietly become 1, nor a bool pass as a number,
    nor a game index past the streams' range quietly replay another game)."""
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value < below:
        what = {0: "a non-negative integer", 1: "a positive integer"}.get(
            least, f"an integer >= {least}")
        raise ValueError(f"{name} must be {what} below {below:,} (2**{below.bit_length() - 1})"
                         f", got {value!r}" if isinstance(value, int) and value >= below
                         else f"{name} must be {what}, got {value!r}")
    return value


def check_threads(threads: Any) -> int:
    top = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        return top
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= top:
        raise ValueError(f"threads must be an integer from 1 to {top}, got {threads!r}")
    return threads


def run(play: Callable[[int, int], Any], build: Callable[[int, Any], pl.DataFrame],
        n_games: int, *, threads: int | None, progress: ProgressArg,
        out: str | os.PathLike | None, manifest: Mapping[str, Any], label: str,
        chunk: int = CHUNK, first_game: int = 0):
    """Play games ``first_game..first_game+n_games-1``: ``play(start, n)`` returns a chunk's
    raw results, ``build(start, raw)`` its frame. (A run split into several calls by
    ``first_game`` plays the games one call would.)

    Returns a DataFrame, or with ``out`` a LazyFrame over the written Parquet dataset.
    """
    n_games = check_int("n_games", n_games)
    first_game = check_int("first_game", first_game, 0)
    threads = check_threads(threads)
    where = {"first_game": first_game} if first_game else {}
    folder = None if out is None else _open_dataset(
        Path(out), dict(manifest, n_games=n_games, chunk=chunk, **where))
    old = numba.get_num_threads()
    numba.set_num_threads(threads)        # per thread: the engine runs on this one
    bar = Progress(progress, n_games, label)
    parts: list[pl.DataFrame] = []
    pending: tuple[Future, int] | None = None

    def finish(job: tuple[Future, int]) -> None:
        frame = job[0].result()
        if folder is None:
            parts.append(frame)
        bar.update(job[1])

    def write(k: int, start: int, raw: Any) -> None:
        frame = build(start, raw)
        done = folder / part_name(k)
        try:
            atomic_write(done, lambda tmp: frame.write_parquet(tmp, compression="zstd"))
        except OSError as e:
            raise ValueError(f"out={str(folder)!r}: cannot write {done.name} "
                             f"({e.strerror or e}); the parts already there are complete: "
                             f"free space (or fix the folder) and run the same command again "
                             f"to resume") from None

    try:
        with ThreadPoolExecutor(1, thread_name_prefix=f"{label}-frames") as frames:
            if folder is None and n_games > chunk:      # one game's frame, times n_games
                one = frames.submit(build, first_game, play(first_game, 1)).result()
                check_memory(one.estimated_size() * n_games, n_games)
            end = first_game + n_games
            for k, start in enumerate(range(first_game, end, chunk)):
                n = min(chunk, end - start)
                if folder is not None and (folder / part_name(k)).exists():
                    bar.update(n)
                    continue
                raw = play(start, n)
                if pending is not None:
                    finish(pending)
                job = (build, start, raw) if folder is None else (write, k, start, raw)
                pending = (frames.submit(*job), n)
            if pending is not None:
                finish(pending)
    finally:
        bar.close()
        numba.set_num_threads(old)
    if folder is not None:
        return pl.scan_parquet(folder / "part-*.parquet")
    return pl.concat(parts, rechunk=False)


def part_name(k: int) -> str:
    return f"part-{k:06d}.parquet"


def atomic_write(path: Path, write: Callable[[Path], Any]) -> None:
    """``write(tmp)`` to a temporary file beside ``path``, then rename it to ``path``: a reader
    sees the old file or the whole new one, never a part (the temporary file is removed if
    the write fails)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_manifest(meta: Path) -> dict:
    """A dataset's manifest; an unreadable one is a one-line error naming it and the fix."""
    try:
        old = json.loads(meta.read_text())
        if not isinstance(old, dict):
            raise ValueError("not a JSON object")
        return old
    except (OSError, ValueError) as e:
        raise ValueError(f"{meta}: unreadable dataset manifest ({e}); delete the folder "
                         f"{str(meta.parent)!r} (or move it away) and run again") from None


def missing_parts(folder: Path) -> tuple[int, int] | None:
    """(parts missing, parts in all) of a dataset folder whose manifest says how many games
    it holds, or None when the folder has no manifest."""
    meta = folder / MANIFEST
    if not meta.exists():
        return None
    m = read_manifest(meta)
    try:
        total = -(-int(m["n_games"]) // int(m["chunk"]))
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"{meta}: dataset manifest lacks n_games and chunk; delete the "
                         f"folder {str(folder)!r} and run again") from None
    return sum(not (folder / part_name(k)).exists() for k in range(total)), total


def games_to_write(folder: Path, n_games: int) -> int:
    """The games a run of ``n_games`` into ``folder`` has left to write: all of them, or those
    of the parts a resumed run still misses."""
    missing = missing_parts(folder) if folder.is_dir() else None
    return n_games if missing is None else min(n_games, missing[0] * CHUNK)


def check_parts(folder: Path, manifest: dict) -> None:
    """The part files already written must be readable Parquet with whole chunks of games:
    a corrupt one is reported before any game is played, not after."""
    import pyarrow.parquet as pq
    n_games, chunk = manifest["n_games"], manifest["chunk"]
    for k, start in enumerate(range(0, n_games, chunk)):
        part = folder / part_name(k)
        if not part.exists():
            continue
        games = min(chunk, n_games - start)
        try:
            rows = pq.ParquetFile(part).metadata.num_rows
        except Exception as e:  # noqa: BLE001 - pyarrow raises several kinds
            why = str(e).splitlines()[0] if str(e) else type(e).__name__
        else:
            if rows > 0 and rows % games == 0:
                continue
            why = f"{rows} rows, not whole games of chunk {k}"
        raise ValueError(f"{part}: corrupt part file ({why}); delete it and run the same "
                         f"command again to play its games anew")


def open_folder(folder: Path, manifest: dict, meta_name: str = MANIFEST,
                what: str = "results dataset") -> bool:
    """Create an output folder with its manifest (written atomically), or check that an
    existing one holds this same run; True when it existed (a run to resume)."""
    meta = folder / meta_name
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"out={str(folder)!r} exists and is not a directory")
    if folder.is_dir() and any(folder.iterdir()):
        if not meta.exists():
            raise ValueError(f"out={str(folder)!r} is a non-empty directory that is not a "
                             f"{what}; choose another path")
        old = read_manifest(meta)
        if old != json.loads(json.dumps(manifest)):
            diff = sorted(k for k in set(old) | set(manifest) if old.get(k) != manifest.get(k))
            raise ValueError(f"out={str(folder)!r} holds a run with other settings "
                             f"({', '.join(diff)} differ); delete it or choose another path "
                             f"to start anew")
        return True
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(meta, lambda tmp: tmp.write_text(
            json.dumps(manifest, indent=1, sort_keys=True)))
    except OSError as e:
        raise ValueError(f"out={str(folder)!r}: cannot write there "
                         f"({e.strerror or e}{': ' + e.filename if e.filename else ''})") from None
    return False


def _open_dataset(folder: Path, manifest: dict) -> Path:
    """Create the dataset folder, or check that an existing one is this same run (and that
    its parts are sound)."""
    if open_folder(folder, manifest):
        check_parts(folder, manifest)
    return folder

