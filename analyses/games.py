"""The one place analyses touch an engine: through its public ``simulate`` and ``POLICIES``."""
from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import polars as pl

from simcore import budget, games, restrict
from simcore.runner import check_int
from simcore.search import is_agent_spec


def game_module(game: str | ModuleType | Any) -> Any:
    """The game's public module from its registered name (``simcore.games``) or the module
    (or any object with ``simulate`` and ``POLICIES``) itself."""
    if isinstance(game, str):
        game = games.get(game).module()
    if not hasattr(game, "simulate") or not hasattr(game, "POLICIES"):
        raise ValueError(f"{game!r} is not a game module (it needs simulate and POLICIES)")
    return game


def game_spec(game: str | ModuleType | Any) -> games.Game:
    """The contract of a game given by name or by its public module."""
    spec = games.get(game) if isinstance(game, str) else games.of_module(game)
    if spec is None:
        raise ValueError(f"{game!r} is not a registered game (simcore.games.register)")
    return spec


def check_players(mod: Any, players: Any) -> int:
    """A player count of a registered game's range (``simcore.budget``); a module with only
    the public shape (``game_module``) declares no range: any count from 2."""
    spec = games.of_module(mod)
    return budget.check_players(spec, players) if spec else check_int("players", players, 2)


def check_run(mod: Any, n_games: int, players: int, *, rules: Any = None,
              held: int = 0) -> None:
    """The runaway rule (``simcore.budget.check``) for a run of a registered game's module:
    ``n_games`` games in all, ``held`` of them kept in memory at once (a module with only the
    public shape declares no sizes to measure)."""
    spec = games.of_module(mod)
    if spec is not None:
        budget.check(spec, n_games, players, rules=[rules], held=held)


def policy_name(p: Any) -> str:
    """The name results show for a policy: a built-in name or a user policy's ``name``."""
    return p if isinstance(p, str) else getattr(p, "name", getattr(p, "__name__", repr(p)))


def check_policies(mod: Any, policies: Sequence[Any], least: int,
                   distinct: bool = True) -> list[Any]:
    """At least ``least`` policies, each built in, a heuristic with other weights (by object or
    by name, ``careful[points=1.2]``: returned as the object), a user policy or (where the game
    has them) a search agent; ``distinct``: no name twice (a tournament's entrants; a table
    may seat one policy twice)."""
    if isinstance(policies, str) or len(policies) < least:
        raise ValueError(f"give at least {least} policies as a list, got {policies!r}")
    searches = hasattr(mod, "agent")
    spec = games.of_module(mod)
    policies = [mod.heuristic(p) if isinstance(p, str) and "[" in p and hasattr(mod, "heuristic")
                and not restrict.is_restricted(p) else p for p in policies]
    for p in policies:
        shipped = [*mod.POLICIES, *getattr(mod, "BUNDLED", ())]
        if restrict.is_restricted(p):    # cloud[never=witch]: its probe and its base checked
            base, _ = restrict.split(p, spec.probes if spec else (), getattr(mod, "__name__",
                                                                                 "the game"))
            check_policies(mod, [base], 1)
            continue
        if isinstance(p, str) and p not in shipped and not (searches and is_agent_spec(p)):
            raise ValueError(f"unknown policy {p!r}; built-in policies are {sorted(shipped)}"
                             + ("; search agents are named like 'ismcts-1000', 'pimc-500', "
                                "'flat-200'" if searches else ""))
    names = [policy_name(p) for p in policies]
    if distinct and len(set(names)) != len(names):
        raise ValueError(f"policies must have distinct names, got {names}")
    return list(policies)


def play(mod: Any, seating: Sequence[Any], n_games: int, seed: int, rules: Any,
         threads: int | None = None, first: int = 0) -> pl.DataFrame:
    """One line-up in one seat order on games ``first..first+n_games-1`` of ``seed``: every
    seating replays the same games (common random numbers); ``seating`` labels the rows.
    ``rules``, ``threads`` and ``first`` reach ``simulate`` only when given."""
    kwargs = {} if rules is None else {"rules": rules}
    if threads is not None:
        kwargs["threads"] = threads
    if first:
        kwargs["first_game"] = first
    df = mod.simulate(list(seating), n_games, seed, progress=False, **kwargs)
    label = "|".join(policy_name(p) for p in seating)
    return df.with_columns(pl.col("policy").cast(pl.String), seating=pl.lit(label))
