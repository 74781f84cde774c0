"""What both games' command lines print and read, written once: rules files and the short
win-rate table at the end of a run."""
from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import polars as pl

Z95 = 1.959963984540054
"""Two-sided 95% normal quantile."""


def wilson(wins, n, z: float = Z95):
    """Wilson score interval of a proportion ``wins / n`` (wins may be fractional: a tie among
    k players counts 1/k of a win). Scalars or numpy arrays; NaN where ``n == 0``."""
    import numpy as np
    wins = np.asarray(wins, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = wins / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo, hi = np.maximum(centre - half, 0.0), np.minimum(centre + half, 1.0)
    return (float(lo), float(hi)) if lo.ndim == 0 else (lo, hi)


def win_table(df: pl.DataFrame, by: str, score: str | None = None) -> str:
    """Win rate per value of ``by`` with n (seats played) and its 95% Wilson interval."""
    aggs = [pl.len().alias("n"), pl.col("win").sum().alias("wins")]
    if score is not None:
        aggs.append(pl.col(score).mean().alias("score"))
    t = df.group_by(pl.col(by).cast(pl.String)).agg(aggs).sort(by)
    head = f"{by:<14}{'n':>10}{'win rate':>10}{'95% Wilson':>18}"
    lines = [head + (f"{'mean ' + score:>16}" if score else "")]
    for row in t.iter_rows(named=True):
        lo, hi = wilson(row["wins"], row["n"])
        line = (f"{row[by]:<14}{row['n']:>10,}{row['wins'] / row['n']:>10.3f}"
                f"{f'[{lo:.3f}, {hi:.3f}]':>18}")
        lines.append(line + (f"{row['score']:>16.1f}" if score else ""))
    return "\n".join(lines)


def read_rules_file(path: str | os.PathLike) -> dict:
    """The mapping in a JSON or TOML rules file; a ValueError naming the file otherwise."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"rules file {str(p)!r} does not exist")
    kind = {".json": "JSON", ".toml": "TOML"}.get(p.suffix.lower())
    if kind is None:
        raise ValueError(f"rules file {str(p)!r}: use a .json or .toml file")
    try:
        text = p.read_text(encoding="utf-8")
        data = tomllib.loads(text) if kind == "TOML" else json.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"rules file {str(p)!r} is not a valid {kind} file: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"rules file {str(p)!r}: the top level must be a table/object")
    return data
