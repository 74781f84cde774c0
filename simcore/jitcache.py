"""Stale compiled kernels, forgotten.

numba's cache (``cache=True``) checks only the source file of the kernel it loads, not the files
of the kernels that one calls (a documented limitation of numba's caching). An engine's kernels
call across files: into the engine's other modules and into ``simcore`` (random streams, the
search). After an edit of a callee, a cached caller would run stale machine code, silently.

``forget_stale(package)`` is called by each package with kernels before they are compiled or
loaded: it fingerprints the package's sources (and ``simcore``'s, which every engine calls),
and where the fingerprint differs from the one the cache was filled under, it drops that
package's cached kernels, so they compile afresh once.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

SHARED = Path(__file__).resolve().parent
STAMP = "kernel-sources.sha256"
ASIDE = "SIMCORE_COMPILING_ASIDE"


def fingerprint(*roots: Path) -> str:
    """The sha256 of every ``.py`` file under ``roots`` (paths and contents)."""
    h = hashlib.sha256()
    for root in roots:
        for f in sorted(root.rglob("*.py")):
            h.update(str(f.relative_to(root.parent)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def cache_dir(py_file: Path) -> Path | None:
    """Where numba caches the kernels of ``py_file`` (its own choice of locator)."""
    from numba.core import caching
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl     # numba < 0.62
    for cls in impl._locator_classes:
        loc = cls.from_function(cache_dir, str(py_file))
        if loc is not None:
            return Path(loc.get_cache_path())
    return None


def _digest(root: Path) -> str:
    """The fingerprint the package at ``root``'s cache is kept under: its sources and
    ``simcore``'s."""
    return fingerprint(*sorted({root, SHARED}))     # (a set's order varies by process)


def _caches(root: Path) -> Iterator[tuple[Path, set[str], Path | None]]:
    """Each source folder of the package at ``root``, with its modules' stems and where numba
    caches their kernels."""
    for folder in sorted({f.parent for f in root.rglob("*.py")}):
        stems = {f.stem for f in folder.glob("*.py")}
        yield folder, stems, cache_dir(folder / f"{min(stems)}.py")


def needs_compile(package_dir: str | os.PathLike) -> bool:
    """Whether importing the package at ``package_dir`` compiles its kernels: no kernel of it
    is cached, or its sources (or ``simcore``'s) changed since they were (``forget_stale``
    will drop them)."""
    root = Path(package_dir).resolve()
    digest = _digest(root)
    cached = False
    for _, _, where in _caches(root):
        if where is None:
            continue
        stamp = where / STAMP
        if stamp.exists() and stamp.read_text() != digest:
            return True
        cached = cached or any(where.glob("*.nbi"))
    return not cached


def compile_aside(package: str) -> subprocess.Popen | None:
    """Fill the cache of ``package``'s kernels in another process, so that a process which
    needs several packages compiles them side by side on several cores (numba compiles on one
    thread) rather than one after another; None where that gains nothing (one core, a cache
    already filled). The caller imports the package after ``wait()``: from the cache."""
    if (os.cpu_count() or 1) < 2 or os.environ.get(ASIDE):   # (never from such a process)
        return None
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations \
            or not needs_compile(spec.submodule_search_locations[0]):
        return None
    return subprocess.Popen([sys.executable, "-c", f"import {package}"],
                            env={**os.environ, ASIDE: package},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def forget_stale(package_dir: str | os.PathLike) -> None:
    """Drop the cached kernels of the package at ``package_dir`` if its sources (or
    ``simcore``'s) changed since they were cached."""
    root = Path(package_dir).resolve()
    digest = _digest(root)
    for folder, stems, where in _caches(root):
        try:
            if where is None:
                continue
            stamp = where / STAMP
            if stamp.exists() and stamp.read_text() == digest:
                continue
            for f in where.iterdir():
                if f.suffix in (".nbi", ".nbc") and f.name.split(".", 1)[0] in stems:
                    f.unlink(missing_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=where, delete=False) as tmp:
                tmp.write(digest)
            os.replace(tmp.name, stamp)
        except OSError as e:     # a read-only cache: its sources cannot have changed either
            warnings.warn(f"cannot check numba's cache of {folder} ({e}); if its kernels "
                          f"misbehave after an edit, delete that cache", stacklevel=2)
