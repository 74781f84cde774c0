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
complete chunks and a rerun with the same settings resumes where it stopped. Memory stays
bounded by about two chunks.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numba
import polars as pl

from .progress import Progress, ProgressArg

CHUNK = 1 << 16
MANIFEST = "_manifest.json"


def check_int(name: str, value: Any, least: int = 1) -> int:
    """``value`` if it is an int of at least ``least``, else a ValueError naming ``name`` (a
    count of games of 0 must not quietly become 1, nor a bool pass as a number)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        what = {0: "a non-negative integer", 1: "a positive integer"}.get(
            least, f"an integer >= {least}")
        raise ValueError(f"{name} must be {what}, got {value!r}")
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
        tmp = folder / f".part-{k:06d}.parquet.tmp"
        build(start, raw).write_parquet(tmp, compression="zstd")
        os.replace(tmp, folder / f"part-{k:06d}.parquet")

    try:
        with ThreadPoolExecutor(1, thread_name_prefix=f"{label}-frames") as frames:
            end = first_game + n_games
            for k, start in enumerate(range(first_game, end, chunk)):
                n = min(chunk, end - start)
                if folder is not None and (folder / f"part-{k:06d}.parquet").exists():
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


def _open_dataset(folder: Path, manifest: dict) -> Path:
    """Create the dataset folder, or check that an existing one is this same run."""
    meta = folder / MANIFEST
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"out={str(folder)!r} exists and is not a directory")
    if folder.is_dir() and any(folder.iterdir()):
        if not meta.exists():
            raise ValueError(f"out={str(folder)!r} is a non-empty directory that is not a "
                             f"results dataset; choose another path")
        old = json.loads(meta.read_text())
        if old != json.loads(json.dumps(manifest)):
            diff = sorted(k for k in set(old) | set(manifest) if old.get(k) != manifest.get(k))
            raise ValueError(f"out={str(folder)!r} holds a run with other settings "
                             f"({', '.join(diff)} differ); delete it or choose another path "
                             f"to start anew")
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return folder
