"""The one place analyses touch an engine: through its public ``simulate`` and ``POLICIES``."""
from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import polars as pl

from simcore.search import is_agent_spec
from simcore import games


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
    policies = [mod.heuristic(p) if isinstance(p, str) and "[" in p and hasattr(mod, "heuristic")
                else p for p in policies]
    for p in policies:
        if isinstance(p, str) and p not in mod.POLICIES and not (searches and is_agent_spec(p)):
            raise ValueError(f"unknown policy {p!r}; built-in policies are "
                             f"{sorted(mod.POLICIES)}"
                             + ("; search agents are named like 'ismcts-1000', 'pimc-500', "
                                "'flat-200'" if searches else ""))
    names = [policy_name(p) for p in policies]
    if distinct and len(set(names)) != len(names):
        raise ValueError(f"policies must have distinct names, got {names}")
    return list(policies)


def play(mod: Any, seating: Sequence[Any], n_games: int, seed: int, rules: Any,
         threads: int | None = None) -> pl.DataFrame:
    """One line-up in one seat order on games ``0..n_games-1`` of ``seed``: every seating
    replays the same games (common random numbers); ``seating`` labels the rows. ``rules``
    and ``threads`` reach ``simulate`` only when given."""
    kwargs = {} if rules is None else {"rules": rules}
    if threads is not None:
        kwargs["threads"] = threads
    df = mod.simulate(list(seating), n_games, seed, progress=False, **kwargs)
    label = "|".join(policy_name(p) for p in seating)
    return df.with_columns(pl.col("policy").cast(pl.String), seating=pl.lit(label))
