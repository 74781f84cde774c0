"""Reading results: a DataFrame, a LazyFrame, a Parquet file or a ``simulate(out=DIR)`` dataset,
always as a LazyFrame so that tables aggregate without loading millions of games; which game
the rows come from is read off the columns."""
from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from simcore.runner import missing_parts

Frame = pl.DataFrame | pl.LazyFrame

GAMES = ("bloomsim", "rapinsim")
COMMON = ("game", "seat", "policy", "rank", "win", "n_players")
SCORE = {"bloomsim": "score", "rapinsim": "treasures"}
_MARKS = {"bloomsim": ("score", "pts_towers"), "rapinsim": ("treasures", "character")}


class InputError(ValueError):
    """A results file or frame that cannot be analysed; the message names the problem."""


def lazy(df: Frame) -> pl.LazyFrame:
    if isinstance(df, pl.LazyFrame):
        return df
    if isinstance(df, pl.DataFrame):
        return df.lazy()
    raise InputError(f"expected a polars DataFrame or LazyFrame of results, got "
                     f"{type(df).__name__}")


def columns(lf: pl.LazyFrame) -> list[str]:
    return lf.collect_schema().names()


def scan(path: str | os.PathLike) -> pl.LazyFrame:
    """Open a results Parquet file or dataset directory lazily, checking it is one."""
    p = Path(path)
    if p.is_dir():
        try:
            missing = missing_parts(p)
        except ValueError as e:
            raise InputError(str(e)) from None
        if missing and missing[0]:
            raise InputError(f"{p}: incomplete dataset ({missing[0]} of {missing[1]} part "
                             f"files missing: the run that wrote it stopped); run the same "
                             f"simulate command again to finish it")
        if not any(p.glob("part-*.parquet")):
            raise InputError(f"{p}: directory holds no part-*.parquet files (not a results "
                             f"dataset written by simulate(out=...))")
        target = str(p / "part-*.parquet")
    elif p.is_file():
        target = str(p)
    else:
        raise InputError(f"{p}: no such file or directory")
    try:
        lf = pl.scan_parquet(target)
        names = columns(lf)
    except (pl.exceptions.PolarsError, OSError) as e:
        raise InputError(f"{p}: not a readable Parquet file ({str(e).splitlines()[0]})") from None
    missing = [c for c in COMMON if c not in names]
    if missing:
        raise InputError(f"{p}: not a results file, missing columns {missing}")
    require_rows(lf, str(p))
    return lf


def require_rows(lf: pl.LazyFrame, what: str = "results") -> None:
    """Results with no game in them are an input error, not an empty table (or a crash)."""
    if lf.head(1).collect().height == 0:
        raise InputError(f"{what}: no games in these results (0 rows)")


def detect_game(lf: pl.LazyFrame) -> str:
    """``"bloomsim"`` or ``"rapinsim"``, from the columns only game has."""
    names = set(columns(lf))
    found = [g for g, marks in _MARKS.items() if all(m in names for m in marks)]
    if len(found) != 1:
        raise InputError(f"cannot tell which game these results are from (need the columns "
                         f"{_MARKS['bloomsim']} of bloomsim or {_MARKS['rapinsim']} of rapinsim)")
    return found[0]


def score_column(lf: pl.LazyFrame, score: str | None = None) -> str:
    """The score to analyse: ``score`` if given, else the game's own (bloomsim ``score``,
    rapinsim ``treasures``)."""
    name = score if score is not None else SCORE[detect_game(lf)]
    require(lf, [name])
    return name


def require(lf: pl.LazyFrame, needed: list[str] | tuple[str, ...]) -> None:
    names = set(columns(lf))
    missing = [c for c in needed if c not in names]
    if missing:
        raise InputError(f"results lack the columns {missing}")


def game_key(lf: pl.LazyFrame) -> list[str]:
    """Columns that identify one game: ``game`` alone, or with ``seating`` in tournament
    results (every seating replays the same game indices)."""
    return ["seating", "game"] if "seating" in columns(lf) else ["game"]


def collect(lf: pl.LazyFrame) -> pl.DataFrame:
    """Collect with the streaming engine: bounded memory on datasets of millions of games."""
    return lf.collect(engine="streaming")
