"""Summaries of repeated measurements: the median, with min and max beside it."""
from __future__ import annotations

import os
import statistics
from collections.abc import Sequence


def summary(name: str, values: Sequence[float]) -> dict[str, float]:
    """``{name: median, name_min: ..., name_max: ...}``: flat keys, easy to load as a table."""
    if not values:
        raise ValueError(f"no measurements of {name}")
    return {name: statistics.median(values), f"{name}_min": min(values),
            f"{name}_max": max(values)}


def load() -> float:
    """The 1-minute load average: printed beside figures, since the machine is shared."""
    return round(os.getloadavg()[0], 2)
