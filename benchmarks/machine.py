"""What the figures were measured on: CPU, cores, memory, versions, commit."""
from __future__ import annotations

import os
import platform
import subprocess
from importlib.metadata import PackageNotFoundError, packages_distributions, version
from pathlib import Path

import numba

PACKAGES = ("numpy", "numba", "polars", "open_spiel")


def _project() -> tuple[str, ...]:
    """The distribution this harness ships in (its version is the project's)."""
    return tuple(packages_distributions().get(__package__, ()))[:1]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or "unknown"


def _mem_total_gb() -> float | None:
    try:
        with open("/proc/meminfo") as f:
            kib = next(int(line.split()[1]) for line in f if line.startswith("MemTotal:"))
    except (OSError, StopIteration):
        return None
    return round(kib * 1024 / 1e9, 1)


def _version(pkg: str) -> str | None:
    try:
        return version(pkg)
    except PackageNotFoundError:
        return None


def _commit() -> str | None:
    """The repository's commit, with ``+dirty`` when files differ from it."""
    repo = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo, text=True,
                              capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=repo, text=True, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty.strip() else "")


def info() -> dict:
    return {"cpu": _cpu_model(), "cores": os.cpu_count(),
            "usable_cores": len(os.sched_getaffinity(0)),
            "numba_threads": numba.config.NUMBA_NUM_THREADS,
            "threading_layer": numba.config.THREADING_LAYER, "memory_gb": _mem_total_gb(),
            "platform": platform.platform(), "python": platform.python_version(),
            "versions": {p: _version(p) for p in (*_project(), *PACKAGES)}, "commit": _commit()}
