"""The chunked batch runner both games share.

Games are played in fixed chunks of ``CHUNK`` consecutive game indices; inside a chunk the
engine spreads games over all threads with ``prange``. Because every game draws from its own
streams (``simcore.rng``), the chunking, the thread count and resuming never change a game.

With ``out=`` each chunk is written to its own Parquet file (``part-000000.parquet``, ...) in a
directory, through a temporary name and an atomic rename, so an interrupted run leaves only
complete chunks and a rerun with the same settings resumes where it stopped. Memory stays
bounded by one chunk.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numba
import polars as pl

from .progress import Progress, ProgressArg

CHUNK = 1 << 16
MANIFEST = "_manifest.json"


def check_games(n_games: Any) -> int:
    if isinstance(n_games, bool) or not isinstance(n_games, int) or n_games < 1:
        raise ValueError(f"n_games must be a positive integer, got {n_games!r}")
    return n_games


def check_threads(threads: Any) -> int:
    top = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        return top
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= top:
        raise ValueError(f"threads must be an integer from 1 to {top}, got {threads!r}")
    return threads


def run(play_chunk: Callable[[int, int], pl.DataFrame], n_games: int, *,
        threads: int | None, progress: ProgressArg, out: str | os.PathLike | None,
        manifest: Mapping[str, Any], label: str, chunk: int = CHUNK):
    """Play games ``0..n_games-1`` with ``play_chunk(start, n)``.

    Returns a DataFrame, or with ``out`` a LazyFrame over the written Parquet dataset.
    """
    n_games = check_games(n_games)
    threads = check_threads(threads)
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    bar = Progress(progress, n_games, label)
    try:
        if out is None:
            parts = []
            for start in range(0, n_games, chunk):
                n = min(chunk, n_games - start)
                parts.append(play_chunk(start, n))
                bar.update(n)
            return pl.concat(parts, rechunk=True)
        folder = _open_dataset(Path(out), dict(manifest, n_games=n_games, chunk=chunk))
        for k, start in enumerate(range(0, n_games, chunk)):
            n = min(chunk, n_games - start)
            part = folder / f"part-{k:06d}.parquet"
            if not part.exists():
                tmp = folder / f".part-{k:06d}.parquet.tmp"
                play_chunk(start, n).write_parquet(tmp, compression="zstd")
                os.replace(tmp, part)
            bar.update(n)
        return pl.scan_parquet(folder / "part-*.parquet")
    finally:
        bar.close()
        numba.set_num_threads(old)


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
            raise ValueError(f"out={str(folder)!r} holds a run with other settings ({', '.join(diff)}"
                             f" differ); delete it or choose another path to start anew")
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    return folder
