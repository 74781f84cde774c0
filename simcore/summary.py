"""What both games' command lines print and read, written once: rules files and the short
win-rate table at the end of a run."""
from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from .games import display_names

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
    # exact at 0 and 1 wins out of n (the rounding of centre - half would print 1e-18)
    lo = np.where(p <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    hi = np.where(p >= 1, 1.0, np.clip(centre + half, 0.0, 1.0))
    return (float(lo), float(hi)) if lo.ndim == 0 else (lo, hi)


def win_table(df: pl.DataFrame, by: str, score: str | None = None) -> str:
    """Win rate per value of ``by`` with n (seats played) and its 95% Wilson interval."""
    aggs = [pl.len().alias("n"), pl.col("win").sum().alias("wins")]
    if score is not None:
        aggs.append(pl.col(score).mean().alias("score"))
    t = df.group_by(pl.col(by).cast(pl.String)).agg(aggs).sort(by)
    w = max([14, *(len(str(v)) + 2 for v in t[by])])     # long names (a tuned heuristic's)
    head = f"{by:<{w}}{'n':>10}{'win rate':>10}{'95% Wilson':>18}"
    lines = [head + (f"{'mean ' + score:>16}" if score else "")]
    for row in t.iter_rows(named=True):
        lo, hi = wilson(row["wins"], row["n"])
        line = (f"{row[by]:<{w}}{row['n']:>10,}{row['wins'] / row['n']:>10.3f}"
                f"{f'[{lo:.3f}, {hi:.3f}]':>18}")
        lines.append(line + (f"{row['score']:>16.1f}" if score else ""))
    return "\n".join(lines)


def simulate_summary(game, df: pl.DataFrame) -> str:
    """What ``simulate`` on the command line prints: the games' length and endings, then the
    win rate by policy and by each seat-level thing read by value (a character, by its display
    name)."""
    games = df.filter(pl.col("seat") == 0)
    head = [f"{games.height:,} games"]
    head += [f"mean {games[c].mean():.1f} {c}" for c in game.lengths if c in games.columns]
    head += [f"{games[c].mean():.2%} {c}" for c in game.endings if c in games.columns]
    tables = [win_table(df, "policy", score=game.score if game.score in df.columns else None)]
    names = display_names(game)
    tables += [win_table(df.with_columns(pl.col(t.column).cast(pl.String).replace(names)),
                         t.column) for t in game.things
               if t.how == "value" and t.column in df.columns]
    return ", ".join(head) + "\n\n" + "\n\n".join(tables)


def read_rules_file(path: str | os.PathLike) -> dict:
    """The mapping in a JSON or TOML rules file; a ValueError naming the file otherwise."""
    if not isinstance(path, str | os.PathLike):
        raise ValueError(f"a rules file is given by its path (a str or os.PathLike), got "
                         f"{path!r}")
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"rules file {str(p)!r} is a directory, not a file")
    if not p.is_file():
        raise ValueError(f"rules file {str(p)!r} does not exist")
    kind = {".json": "JSON", ".toml": "TOML"}.get(p.suffix.lower())
    if kind is None:
        raise ValueError(f"rules file {str(p)!r}: use a .json or .toml file")
    try:
        if p.stat().st_size > MAX_RULES_BYTES:
            raise ValueError(f"rules file {str(p)!r} is {p.stat().st_size:,} bytes, more than "
                             f"the {MAX_RULES_BYTES:,} a rules file may have (rules data is a "
                             f"few tens of KB)")
        text = p.read_text(encoding="utf-8")
        data = tomllib.loads(text) if kind == "TOML" else json.loads(text)
    except OSError as e:
        raise ValueError(f"rules file {str(p)!r} cannot be read ({e.strerror or e})") from None
    except (json.JSONDecodeError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"rules file {str(p)!r} is not a valid {kind} file: {e}") from None
    except RecursionError:
        raise too_deep(f"rules file {str(p)!r}") from None
    check_nesting(data, f"rules file {str(p)!r}")
    if not isinstance(data, dict):
        raise ValueError(f"rules file {str(p)!r}: the top level must be a table/object")
    return data


MAX_RULES_BYTES = 1_000_000
"""The largest rules file read (the default rules are about 20 KB): a huge file is a mistake,
not rules, and parsing it would take minutes."""
MAX_NESTING = 16
"""Levels of tables and lists a rules file may nest (the rules need four or five)."""


def check_nesting(data, where: str) -> None:
    """Refuse rules data (a file's or Python values) nested deeper than ``MAX_NESTING``:
    validating, copying or printing it would exhaust the stack."""
    if nesting(data) > MAX_NESTING:
        raise too_deep(where)


def too_deep(where: str) -> ValueError:
    return ValueError(f"{where}: nested more than {MAX_NESTING} levels deep (rules data is a "
                      f"few levels of tables and lists)")


def nesting(data) -> int:
    """How deep ``data`` nests mappings, lists and tuples, without recursion (so that a
    hostile document cannot exhaust the stack), stopping past ``MAX_NESTING``."""
    deepest, todo = 0, [(data, 0)]
    while todo:
        x, d = todo.pop()
        if isinstance(x, Mapping | list | tuple):
            if d + 1 > MAX_NESTING:
                return d + 1
            deepest = max(deepest, d + 1)
            todo.extend((v, d + 1) for v in (x.values() if isinstance(x, Mapping) else x))
    return deepest
