"""Rules-variant sweeps on Dask: every variant (and player count) plays the same seeds.

A sweep is a grid of cells, one per (variant, player count); each cell plays games
``0..n_games-1`` of one seed, split into tasks of ``chunk`` consecutive games
(``simulate(..., first_game=...)``). A task's games depend only on (rules, seats, seed, game
index), never on the worker that plays them, so the results are the same on any cluster, any
number of workers and any chunking. The client gathers each task's frame and writes it as one
Parquet part (a temporary name, then a rename) under ``out/variant=<label>/players=<p>/``; a
rerun with the same settings plays only the parts that are missing.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from simcore import budget, games
from simcore.progress import Progress, ProgressArg
from simcore.runner import (check_int, check_part, manifest_id, open_folder, release,
                            write_part)

from .data import scan
from .stats import t_interval
from .games import game_spec
from .tournament import rotations

CHUNK = 20_000
"""Games per task: big enough that scheduling costs nothing next to playing them."""
MANIFEST = "_sweep.json"
SCHEDULERS = ("local", "inprocess")
IN_FLIGHT = 1024
"""Tasks handed to Dask at once: enough to keep a large cluster busy, few enough to hold (a
sweep's tasks are made one at a time as these finish)."""


@dataclass(frozen=True)
class Variant:
    """One rules variant: a rules file's text (or none: the defaults) and values laid over it."""

    label: str
    file_text: str | None = None
    file_suffix: str = ".toml"
    changes: Mapping[str, Any] = field(default_factory=dict)
    file_name: str = ""     # the user's path of the file, for errors

    def rules(self, mod: Any) -> Any:
        """The variant's rules for the game's public module (on whichever machine plays, from
        a copy of the file's text: an error names the user's file, not the copy)."""
        if self.file_text is None:
            rules = mod.load_rules()
        else:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / f"rules{self.file_suffix}"
                path.write_text(self.file_text, encoding="utf-8")
                try:
                    rules = mod.load_rules(path)
                except ValueError as e:
                    raise ValueError(str(e).replace(str(path), self.file_name or self.label)) \
                        from None
        return apply_changes(rules, self.changes)

    def key(self) -> str:
        return json.dumps([self.label, self.file_text, dict(self.changes)], sort_keys=True,
                          default=str)


def _plain(x: Any) -> Any:
    """A rules value as plain, mutable data (frozen mappings and tuples thawed)."""
    return json.loads(json.dumps(x, default=lambda o: dict(o) if isinstance(o, Mapping)
                                 else list(o)))


def apply_changes(rules: Any, changes: Mapping[str, Any]) -> Any:
    """``rules`` with ``changes`` laid over them (validated by the game's ``replace``); a key
    may reach into a mapping with dots (``_replacements``)."""
    return rules.replace(**_replacements(rules, changes)) if changes else rules


def _replacements(rules: Any, changes: Mapping[str, Any]) -> dict[str, Any]:
    """Top-level replacements from ``changes``, whose keys may reach into a mapping with dots:
    ``{"start_wands.first_player": 2}`` replaces one entry of ``start_wands``, and into a list
    of entries by their ``id``: ``{"events.empty_handed.points": 0}``."""
    out: dict[str, Any] = {}
    for key, value in changes.items():
        top, *path = key.split(".")
        if not path:
            out[top] = value
            continue
        if top not in out:
            if not hasattr(rules, top):
                raise ValueError(f"unknown rules field {top!r} (in {key!r})")
            out[top] = _plain(getattr(rules, top))
        node = out[top]
        for part in path[:-1]:
            node = _entry(node, part, key)
        if not isinstance(node, dict) or path[-1] not in node:
            raise ValueError(f"rules field {key!r}: no entry {path[-1]!r}")
        node[path[-1]] = value
    return out


def _entry(node: Any, part: str, key: str) -> Any:
    """One step of a dotted key: a mapping's value, or the entry of a list whose ``id`` is
    ``part`` (an event card)."""
    if isinstance(node, dict) and part in node:
        return node[part]
    if isinstance(node, list):
        hit = [e for e in node if isinstance(e, dict) and e.get("id") == part]
        if hit:
            return hit[0]
    raise ValueError(f"rules field {key!r}: {part!r} is no mapping or entry in it")


def _label(changes: Mapping[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in changes.items()) or "default"


def variants_of(spec: Any) -> list[Variant]:
    """The variants a sweep plays, from ``spec``:

    - a mapping of rules values to lists, ``{"enchanted_penalty": [1, 2, 3]}``: the grid of
      every combination, laid over the default rules;
    - a sequence whose items are rules files (JSON/TOML paths), mappings of values (one
      variant each) or ``Variant`` objects.
    """
    if isinstance(spec, Mapping):
        keys = list(spec)
        values = [v if isinstance(v, (list, tuple)) else [v] for v in spec.values()]
        if not keys or any(len(v) == 0 for v in values):
            raise ValueError("variants: a grid needs at least one value for each field")
        return [Variant(_label(dict(zip(keys, combo))), changes=dict(zip(keys, combo)))
                for combo in itertools.product(*values)]
    if isinstance(spec, (str, os.PathLike)) or not isinstance(spec, Sequence) or not spec:
        raise ValueError(f"variants must be a grid mapping or a non-empty list of rules files "
                         f"and value mappings, got {spec!r}")
    out = []
    for item in spec:
        if isinstance(item, Variant):
            out.append(item)
        elif isinstance(item, Mapping):
            out.append(Variant(_label(item), changes=dict(item)))
        elif isinstance(item, (str, os.PathLike)):
            p = Path(item)
            if not p.is_file():
                raise ValueError(f"variants: rules file {str(p)!r} does not exist")
            out.append(Variant(p.stem, p.read_text(encoding="utf-8"), p.suffix.lower(),
                               file_name=str(p)))
        else:
            raise ValueError(f"variants: {item!r} is neither a rules file nor a mapping")
    labels = [v.label for v in out]
    if len(set(labels)) != len(labels):
        raise ValueError(f"variants must have distinct labels, got {labels}")
    return out


def seatings(policies: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The seat orders at ``players``: the policies in order, repeated as needed, in each of
    its distinct rotations, so that every policy takes every seat on the same games (a seat
    effect is then not a policy's, and a policy's not a seat's)."""
    return rotations([policies[i % len(policies)] for i in range(players)])


@dataclass(frozen=True)
class Task:
    game: str
    variant: Variant
    seats: tuple[str, ...]
    seed: int
    first: int
    n: int

    @property
    def seating(self) -> str:
        return "|".join(self.seats)

    def part(self, root: Path) -> Path:
        return (root / f"variant={self.variant.label}" / f"players={len(self.seats)}"
                / f"seating={self.seating}" / f"part-{self.first:012d}.parquet")


def play_task(task: Task, threads: int | None = 1) -> pl.DataFrame:
    """Play one task's games on this machine, one thread (a worker runs one task per core;
    ``threads=None``: every core, where this process plays every task)."""
    mod = games.get(task.game).module()
    df = mod.simulate(list(task.seats), task.n, task.seed, rules=task.variant.rules(mod),
                      threads=threads, progress=False, first_game=task.first)
    return df.with_columns(pl.col("policy").cast(pl.String),
                           variant=pl.lit(task.variant.label), seating=pl.lit(task.seating))


def plan(game: str, variants: list[Variant], policies: Sequence[str], players: Sequence[int],
         n_games: int, seed: int, chunk: int) -> Iterator[Task]:
    """The sweep's tasks, one at a time (a sweep of many games has too many to hold)."""
    return (Task(game, v, seats, seed, first, min(chunk, n_games - first))
            for v in variants for p in players for seats in seatings(policies, p)
            for first in range(0, n_games, chunk))


def _check(game: Any, variants: Any, policies: Any, players: Any, n_games: Any, seed: Any,
           chunk: Any) -> tuple[games.Game, list[Variant], list[int]]:
    spec = game_spec(game)
    check_int("n_games", n_games)
    check_int("seed", seed, 0)
    check_int("chunk", chunk)
    counts = [budget.check_players(spec, p)
              for p in ([players] if isinstance(players, int) else list(players))]
    mod = spec.module()
    if isinstance(policies, str) or not policies:
        raise ValueError(f"policies must be a non-empty list of built-in policy names, got "
                         f"{policies!r}")
    for p in policies:
        if not isinstance(p, str) or p not in mod.POLICIES:
            raise ValueError(f"sweeps take built-in policy names ({sorted(mod.POLICIES)}), "
                             f"got {p!r}")
    chosen = variants_of(variants)
    rules = []
    for v in chosen:        # every variant loads here, so a bad value fails before any game
        try:
            rules.append(v.rules(mod))
        except (ValueError, TypeError) as e:
            raise ValueError(f"variant {v.label!r}: {e}") from None
    return spec, chosen, counts, rules


def _results(tasks: Iterator[Task], scheduler: Any) -> Iterator[tuple[Task, pl.DataFrame]]:
    """Each task and its frame as it finishes, on the scheduler asked for (at most
    ``IN_FLIGHT`` tasks handed to Dask at once)."""
    if scheduler == "inprocess":
        for t in tasks:
            yield t, play_task(t, threads=None)
        return
    from dask.distributed import Client, LocalCluster

    own = None
    if scheduler in (None, "local"):
        own = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1,
                           processes=True, dashboard_address=None,
                           silence_logs=logging.ERROR)
        client = Client(own)
    elif isinstance(scheduler, str):
        client = Client(scheduler)
    else:
        client = scheduler       # a distributed.Client the caller owns
    address = client.scheduler.address
    try:
        yield from _gathered(client, tasks)
    except (CancelledError, OSError) as e:     # the scheduler went away (or its connection)
        raise ValueError(f"lost the Dask scheduler {address} ({type(e).__name__}); "
                         f"{RESUME}") from None
    finally:
        if client is not scheduler:
            client.close()
        if own is not None:
            own.close()


NO_WORKERS_WAIT = 60.0
"""Seconds a sweep waits for a Dask worker when the scheduler has none left (one that died
may be restarted, or another started, meanwhile) before it stops."""
RESUME = "run the same sweep again (with out=DIR, --out DIR, it plays only the parts not written)"


def _gathered(client: Any, tasks: Iterator[Task]) -> Iterator[tuple[Task, pl.DataFrame]]:
    """Each task's frame as it finishes, the tasks handed to Dask as they are generated, at
    most ``IN_FLIGHT`` at once; a ValueError once no worker has been there for
    ``NO_WORKERS_WAIT`` seconds (the scheduler would wait for one forever)."""
    from dask.distributed import wait
    tasks = iter(tasks)
    futures: dict = {}
    pending: set = set()
    alone = None
    while True:
        for task in itertools.islice(tasks, IN_FLIGHT - len(pending)):
            fut = client.submit(play_task, task, pure=False)
            futures[fut] = task
            pending.add(fut)
        if not pending:
            return
        try:
            done, pending = wait(pending, timeout=1.0, return_when="FIRST_COMPLETED")
        except TimeoutError:                   # none finished this second
            done = set()
        for fut in done:
            yield futures.pop(fut), fut.result()
        if done or client.scheduler_info()["workers"]:
            alone = None
        elif alone is None:
            alone = time.monotonic()
            print(f"sweep: the Dask scheduler has no workers; waiting {NO_WORKERS_WAIT:.0f} s "
                  f"for one", file=sys.stderr)
        elif time.monotonic() - alone > NO_WORKERS_WAIT:
            raise ValueError(f"the Dask scheduler {client.scheduler.address} has had no "
                             f"workers for {NO_WORKERS_WAIT:.0f} s, with {len(pending)} tasks "
                             f"waiting; {RESUME}")


def sweep(game: Any, variants: Any, policies: Sequence[str], players: int | Sequence[int],
          n_games: int, seed: int, *, scheduler: Any = None,
          out: str | os.PathLike | None = None, chunk: int = CHUNK,
          progress: ProgressArg = None) -> pl.DataFrame | pl.LazyFrame:
    """Play every rules variant at every player count on games ``0..n_games-1`` of ``seed``.

    ``variants``: see ``variants_of`` (a grid ``{"field": [values]}``, or a list of rules files
    and value mappings). ``policies``: built-in policy names, seated in order and repeated to
    fill each player count. ``scheduler``: None or ``"local"`` (an embedded Dask cluster, one
    single-threaded worker process per core), a scheduler address (``"tcp://host:8786"``), a
    ``distributed.Client``, or ``"inprocess"`` (no Dask: this process plays every task).

    Returns the results with a ``variant`` column (one row per variant, game and seat); with
    ``out`` they stream to a Parquet dataset partitioned by variant and player count, and a
    LazyFrame over it is returned; rerunning an interrupted sweep with the same settings plays
    only what is missing.
    """
    spec, chosen, counts, rules = _check(game, variants, policies, players, n_games, seed,
                                         chunk)
    root = None if out is None else Path(out)

    def tasks() -> Iterator[Task]:
        return plan(spec.name, chosen, list(policies), counts, n_games, seed, chunk)

    def written(t: Task) -> bool:
        return root is not None and t.part(root).exists()
    total = len(chosen) * n_games * sum(len(seatings(policies, p)) for p in counts)
    # a rerun plays only what is missing
    todo = total - (sum(t.n for t in tasks() if written(t)) if root and root.is_dir() else 0)
    budget.check(spec, total, counts, rules=rules, out=out, held=0 if out else total,
                 written=todo if out else 0)
    if root is not None:
        digest = hashlib.sha256("".join(v.key() for v in chosen).encode()).hexdigest()[:16]
        open_folder(root, {"game": spec.name, "variants": [v.label for v in chosen],
                           "variants_sha": digest, "policies": list(policies),
                           "players": counts, "n_games": n_games, "seed": seed,
                           "chunk": chunk}, MANIFEST, "sweep")
        sweep_id = manifest_id(root, MANIFEST)

    def run_of(t: Task) -> str:     # a part's record names its run and its folder
        return f"{sweep_id}:{t.part(root).parent.relative_to(root).as_posix()}"
    bar = Progress(progress, todo, f"sweep {spec.name}")
    frames = []
    try:
        for t in tasks():       # every part already written is checked before any game
            if written(t):
                check_part(t.part(root), run_of(t), t.first, t.n)
        for task, df in _results((t for t in tasks() if not written(t)), scheduler):
            if root is None:
                frames.append(df)
            else:
                task.part(root).parent.mkdir(parents=True, exist_ok=True)
                write_part(df, task.part(root), run_of(task), task.first, task.n)
            bar.update(task.n)
    finally:
        bar.close()
        if root is not None:
            release(root)
    if root is not None:
        return scan(root)
    return order(pl.concat(frames, how="diagonal_relaxed"))   # variants may differ in columns


def order(df: pl.DataFrame) -> pl.DataFrame:
    """A sweep's rows in one order whatever finished first."""
    return df.sort("variant", "n_players", "seating", "game", "seat", maintain_order=True)


def table(df: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """Per variant and player count: games, the start seat's win rate with a 95% t(C - 1)
    interval in [0, 1] (C game indices; NaN under 2) and
    the mean score of the games' winners. A game index played in several seatings counts once
    (its seatings' start-seat wins averaged), so the interval treats each game as the unit."""
    lf = df.lazy() if isinstance(df, pl.DataFrame) else df
    spec = games.of_columns(lf.collect_schema().names())
    per_game = (lf.filter(pl.col("seat") == 0).group_by("variant", "n_players", "game")
                .agg(w=pl.col("win").cast(pl.Float64).mean()))
    seat0 = per_game.group_by("variant", "n_players").agg(
        games=pl.len(), start_seat_win=pl.col("w").mean(),
        se=pl.col("w").std() / pl.len().sqrt())
    best = (lf.filter(pl.col("rank") == 1).group_by("variant", "n_players")
            .agg(winner_score=pl.col(spec.score).cast(pl.Float64).mean()))
    t = (seat0.join(best, on=["variant", "n_players"]).sort("variant", "n_players")
         .with_columns(fair=1.0 / pl.col("n_players").cast(pl.Float64)).collect())
    low, high = t_interval(t["start_seat_win"].to_numpy(), t["se"].fill_null(np.nan).to_numpy(),
                           t["games"].to_numpy(), (0.0, 1.0))
    return t.select("variant", "n_players", "games", "start_seat_win",
                    ci_low=pl.Series(low), ci_high=pl.Series(high), fair="fair",
                    winner_score="winner_score")
