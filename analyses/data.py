"""Reading results: a DataFrame, a LazyFrame, a Parquet file or a ``simulate(out=DIR)`` dataset,
always as a LazyFrame so that tables aggregate without loading millions of games; which game
the rows come from is read off their ``rules`` column (else off the columns each game declares,
``simcore.games``)."""
from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from simcore import games
from simcore.results import RULES
from simcore.runner import missing_parts

Frame = pl.DataFrame | pl.LazyFrame

COMMON = ("game", "seat", "policy", "rank", "win", "n_players")


class InputError(ValueError):
    """A results file or frame that cannot be analysed; the message names the problem."""


def _is_pandas(df) -> bool:
    return type(df).__name__ == "DataFrame" and type(df).__module__.startswith("pandas")


def lazy(df: Frame) -> pl.LazyFrame:
    """Any results frame as a LazyFrame: polars (eager or lazy) or pandas (converted once)."""
    if isinstance(df, pl.LazyFrame):
        return df
    if isinstance(df, pl.DataFrame):
        return df.lazy()
    if _is_pandas(df):
        return pl.from_pandas(df).lazy()
    raise InputError(f"expected a polars or pandas DataFrame (or a polars LazyFrame) of "
                     f"results, got {type(df).__name__}")


def columns(lf: pl.LazyFrame) -> list[str]:
    return lf.collect_schema().names()


def scan(path: str | os.PathLike) -> pl.LazyFrame:
    """Open a results Parquet file or dataset directory lazily, checking it is one: a
    ``simulate(out=...)`` dataset (parts in the folder, each checked against its checksum
    record first: ``simcore.runner.check_parts``) or a sweep's (parts in its
    ``variant=/players=/seating=`` folders)."""
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
        pattern = "part-*.parquet" if any(p.glob("part-*.parquet")) else "**/part-*.parquet"
        if not any(p.glob(pattern)):
            raise InputError(f"{p}: directory holds no part-*.parquet files (not a results "
                             f"dataset written by simulate(out=...) or a sweep)")
        target = str(p / pattern)
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


def game_of(lf: pl.LazyFrame) -> games.Game:
    """The game these results are from: the one their ``rules`` column names
    (``simcore.results.rules_label``), else (results without it) the one whose own columns
    they have."""
    names = columns(lf)
    try:
        if RULES in names:
            label = lf.select(pl.col(RULES).first()).collect().item()
            if label is not None:
                return games.get(str(label).split(":")[0])
        return games.of_columns(names)
    except ValueError as e:
        raise InputError(str(e)) from None


def require_rows(lf: pl.LazyFrame, what: str = "results") -> None:
    """Results with no game in them are an input error, not an empty table (or a crash)."""
    if lf.head(1).collect().height == 0:
        raise InputError(f"{what}: no games in these results (0 rows)")


def detect_game(lf: pl.LazyFrame) -> str:
    """The name of the game these results are from."""
    return game_of(lf).name


def score_column(lf: pl.LazyFrame, score: str | None = None) -> str:
    """The score to analyse: ``score`` if given, else the game's own."""
    name = score if score is not None else game_of(lf).score
    require(lf, [name])
    return name


def require(lf: pl.LazyFrame, needed: list[str] | tuple[str, ...]) -> None:
    names = set(columns(lf))
    missing = [c for c in needed if c not in names]
    if missing:
        raise InputError(f"results lack the columns {missing}")


def game_key(lf: pl.LazyFrame) -> list[str]:
    """Columns that identify one game: ``game`` alone, or with ``seating`` in tournament
    results (every seating replays the same game indices), and ``seed`` when present."""
    names = columns(lf)
    return [c for c in ("seed", "seating") if c in names] + ["game"]


def collect(lf: pl.LazyFrame) -> pl.DataFrame:
    """Collect with the streaming engine: bounded memory on datasets of millions of games."""
    return lf.collect(engine="streaming")
