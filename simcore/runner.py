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
written the same way. Each part has a record of its checksum beside it, and the parts already
there are checked against theirs before any game is played (and on reading, by
``missing_parts``); one process at a time writes a folder (its ``_lock``). The folder's files:
docs/results-schema.md. Memory stays bounded by about two chunks. Without ``out`` the frame's
size is estimated first (from one game's frame) and a run that would not fit in memory is
refused.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TextIO

import numba
import polars as pl

from .budget import check_memory
from .progress import Progress, ProgressArg
from .rng import GAMES_LIMIT

CHUNK = 1 << 16
MANIFEST = "_manifest.json"
LOCK = "_lock"
_HELD: dict[Path, TextIO] = {}     # the output folders this process writes: their lock files


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

    def write(k: int, start: int, n: int, raw: Any) -> None:
        frame = build(start, raw)
        done = folder / part_name(k)

        try:
            write_part(frame, done, manifest_id(folder), start, n)
        except (OSError, pl.exceptions.PolarsError) as e:    # polars wraps the OS error
            raise ValueError(f"out={str(folder)!r}: cannot write {done.name} "
                             f"({os_reason(e)}); the parts already there are complete: "
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
                job = (build, start, raw) if folder is None else (write, k, start, n, raw)
                pending = (frames.submit(*job), n)
            if pending is not None:
                finish(pending)
    finally:
        bar.close()
        numba.set_num_threads(old)
        if folder is not None:
            release(folder)
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


def os_reason(e: Exception) -> str:
    """Why a write failed, on one line: an OSError's reason, or the OS error inside a polars
    one ("parquet: ...: underlying IO error: No space left on device (os error 28)")."""
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    inner = re.sub(r" \(os error \d+\)$", "", str(e).split("IO error: ")[-1].strip())
    return " ".join(inner.split()) or type(e).__name__


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


def dataset_manifest(folder: Path) -> dict | None:
    """A dataset folder's manifest, checked to say how many games it holds in chunks of how
    many, or None when the folder has no manifest."""
    meta = folder / MANIFEST
    if not meta.exists():
        return None
    m = read_manifest(meta)
    if not all(type(m.get(key)) is int and m[key] > 0 for key in ("n_games", "chunk")):
        raise ValueError(f"{meta}: dataset manifest lacks n_games and chunk; delete the "
                         f"folder {str(folder)!r} and run again")
    return m


def missing_parts(folder: Path) -> tuple[int, int] | None:
    """(parts missing, parts in all) of a dataset folder, its parts checked against their
    records (``check_parts``), or None when the folder has no manifest."""
    m = dataset_manifest(folder)
    if m is None:
        return None
    return check_parts(folder, m), -(-m["n_games"] // m["chunk"])


def games_to_write(folder: Path, n_games: int) -> int:
    """At most how many games a run of ``n_games`` into ``folder`` has left to write: all of
    them, or the chunks of the parts a resumed run still misses (only counted here: the run
    checks the parts there when it opens the folder)."""
    m = dataset_manifest(folder) if folder.is_dir() else None
    if m is None:
        return n_games
    parts = -(-m["n_games"] // m["chunk"])
    missing = sum(not (folder / part_name(k)).exists() for k in range(parts))
    return min(n_games, missing * m["chunk"])


def check_parts(folder: Path, manifest: dict) -> int:
    """Check every part file already written against its record (``part_record``), so that a
    changed, torn or misplaced part is reported before any game is played or read, not
    after; returns how many parts are missing."""
    run, first = manifest_id(folder), manifest.get("first_game", 0)
    end, chunk = first + manifest["n_games"], manifest["chunk"]
    missing = 0
    for k, start in enumerate(range(first, end, chunk)):
        part = folder / part_name(k)
        if part.exists():
            check_part(part, run, start, min(chunk, end - start))
        else:
            missing += 1
    return missing


def write_part(frame: pl.DataFrame, part: Path, run: str, start: int, n: int) -> None:
    """Write ``frame`` as ``part`` (games ``start`` to ``start + n - 1`` of ``run``) with its
    record beside it; the record first: see ``part_record``."""
    def write(tmp: Path) -> None:
        frame.write_parquet(tmp, compression="zstd")
        record = part_record(run, start, n, tmp)
        atomic_write(record_of(part), lambda t: t.write_text(json.dumps(record)))
    atomic_write(part, write)


def check_part(part: Path, run: str, start: int, n: int) -> None:
    """A ValueError naming what is wrong with ``part`` unless its record says it holds games
    ``start`` to ``start + n - 1`` of ``run`` with exactly its bytes."""
    want = part_record(run, start, n, part)
    have = read_record(record_of(part))
    if have != want:
        if have is None:
            why = f"its record {record_of(part).name} is missing or unreadable"
        elif have.get("run") != run:
            why = "its record is another run's"
        elif have.get("games") != want["games"]:
            why = (f"it holds games {_games(have)}, not {_games(want)}: a part copied over "
                   f"another?")
        else:
            why = "its bytes do not match its checksum"
        raise ValueError(f"{part}: corrupt part file ({why}); delete it and run the same "
                         f"command again to play its games anew")


def part_record(run: str, start: int, n: int, part: Path) -> dict:
    """What ``part-K.parquet.json`` holds beside part K: the run (``manifest_id``), its games
    and the sha256 of its bytes (as ``sha256sum`` prints it). Written before the part is renamed
    into place, so a part never stands without its record; read back, it tells a changed part
    (bytes), one copied over another (games) or from another run (run)."""
    with open(part, "rb") as f:
        digest = hashlib.file_digest(f, "sha256").hexdigest()
    return {"run": run, "games": [start, start + n], "sha256": digest}


def record_of(part: Path) -> Path:
    return part.with_name(part.name + ".json")


def read_record(path: Path) -> dict | None:
    """A part's record, or None when it is missing or not one."""
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    games = record.get("games") if isinstance(record, dict) else None
    if isinstance(games, list) and [type(g) for g in games] == [int, int]:
        return record
    return None


def _games(record: dict) -> str:
    first, end = record["games"]
    return f"{first} to {end - 1}"


def manifest_id(folder: Path, meta_name: str = MANIFEST) -> str:
    """The run a dataset folder holds: the start of the sha256 of its manifest file, which is
    written once and never rewritten (a resumed run has the same)."""
    return hashlib.sha256((folder / meta_name).read_bytes()).hexdigest()[:16]


def open_folder(folder: Path, manifest: dict, meta_name: str = MANIFEST,
                what: str = "results dataset") -> bool:
    """Take an output folder's lock (``lock_folder``: one writer at a time; ``release`` it when
    the run ends), then create the folder's manifest (written atomically) or check that the
    one there holds this same run; True when it did (a run to resume). Taking the lock first
    leaves no moment where two writers both find no manifest."""
    meta = folder / meta_name
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"out={str(folder)!r} exists and is not a directory")
    if folder.is_dir() and not meta.exists() and any(p.name != LOCK for p in folder.iterdir()):
        raise ValueError(f"out={str(folder)!r} is a non-empty directory that is not a "
                         f"{what}; choose another path")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = lock_folder(folder)
    except OSError as e:
        raise unwritable(folder, e) from None
    try:
        existed = meta.exists()
        if existed:
            check_same_run(folder, read_manifest(meta), manifest)
        else:
            atomic_write(meta, lambda tmp: tmp.write_text(
                json.dumps(manifest, indent=1, sort_keys=True)))
    except OSError as e:
        lock.close()
        raise unwritable(folder, e) from None
    except BaseException:
        lock.close()
        raise
    _HELD[folder] = lock
    return existed


def release(folder: Path) -> None:
    """Let another writer have ``folder`` (``open_folder`` took it)."""
    _HELD.pop(folder).close()


def unwritable(folder: Path, e: OSError) -> ValueError:
    return ValueError(f"out={str(folder)!r}: cannot write there "
                      f"({e.strerror or e}{': ' + e.filename if e.filename else ''})")


def check_same_run(folder: Path, old: dict, manifest: dict) -> None:
    if old != json.loads(json.dumps(manifest)):
        diff = sorted(k for k in set(old) | set(manifest) if old.get(k) != manifest.get(k))
        raise ValueError(f"out={str(folder)!r} holds a run with other settings "
                         f"({', '.join(diff)} differ); delete it or choose another path "
                         f"to start anew")


def _lock_file(f: TextIO) -> None:
    """An exclusive, non-blocking lock on ``f`` (``flock`` on POSIX, ``msvcrt.locking`` on
    Windows), raising ``BlockingIOError`` while another process holds it."""
    if os.name == "nt":
        import msvcrt
        f.seek(0)
        try:
            msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError as e:
            raise BlockingIOError(str(e)) from None
    else:
        import fcntl
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)


def lock_folder(folder: Path) -> TextIO:
    """Lock ``folder`` for this process (``flock`` on its ``_lock`` file, which names the
    holder): a second writer gets one line naming the first, and the kernel drops the lock
    when its holder ends, so a killed run never blocks the next. The file stays: removing
    it would let two writers lock two different files."""
    f = open(folder / LOCK, "a+", encoding="utf-8")     # created if absent, never truncated
    try:
        _lock_file(f)
        f.truncate(0)
        f.write(f"pid {os.getpid()} ({' '.join(shlex.join(sys.argv).split())})\n")
        f.flush()
    except BlockingIOError:
        f.seek(0)
        try:
            holder = f.read().strip() or "another process"
        except OSError:         # Windows: the holder's locked byte cannot be read
            holder = "another process"
        f.close()
        raise ValueError(f"out={str(folder)!r} is being written by {holder}; wait for it to "
                         f"end or choose another path") from None
    except BaseException:
        f.close()
        raise
    return f


def _open_dataset(folder: Path, manifest: dict) -> Path:
    """Create the dataset folder, or check that an existing one is this same run (and that
    its parts are sound); the folder stays locked until ``release``."""
    if open_folder(folder, manifest):
        try:
            check_parts(folder, manifest)
        except BaseException:
            release(folder)
            raise
    return folder

