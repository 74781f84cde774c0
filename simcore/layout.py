"""Declared layouts of the compiled engines' packed arrays: each field once, with its size and
meaning; offsets follow from the order.

The kernels index one flat array with module constants (numba freezes them), so an engine
writes ``G_ROUND = G.field("round", meaning="1-based")`` instead of numbering slots by hand;
tests, the forward model's ``state()`` and a debugger read the same array by name
(``views``), and ``describe`` prints the map.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Field:
    name: str
    offset: int
    size: int
    meaning: str


class Layout:
    """Fields of one region of a packed array, in order from ``start``."""

    def __init__(self, name: str, start: int = 0):
        self.name, self.start, self.end = name, start, start
        self.fields: dict[str, Field] = {}

    def field(self, name: str, size: int = 1, meaning: str = "") -> int:
        """Declare the next field; returns its offset."""
        if name in self.fields:
            raise ValueError(f"{self.name}: field {name!r} declared twice")
        if size < 0:
            raise ValueError(f"{self.name}: field {name!r} has a negative size")
        self.fields[name] = Field(name, self.end, size, meaning)
        self.end += size
        return self.end - size

    def align(self, words: int) -> None:
        """Pad to a multiple of ``words`` slots (a wider dtype viewed on the array)."""
        self.end += -self.end % words

    @property
    def size(self) -> int:
        return self.end - self.start

    def views(self, arr: np.ndarray, base: int = 0) -> dict[str, np.ndarray]:
        """Each field of ``arr`` (the region starting at ``arr[base]``) by name: views, so a
        test can also set a field."""
        return {f.name: arr[base + f.offset:base + f.offset + f.size]
                for f in self.fields.values()}

    def describe(self) -> str:
        return "\n".join(f"{f.offset:>6} {f.size:>5}  {f.name:<16} {f.meaning}"
                         for f in self.fields.values())
