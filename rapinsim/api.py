"""simulate(...) -> one polars row per game and seat; replay(...) -> a readable game log."""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from simcore import simulate as sim
from simcore.policy import (SeatPolicies, compiled_call, raise_policy_fault, resolve,
                            user_addresses)
from simcore.progress import ProgressArg
from simcore.rng import NO_REDRAW
from simcore.simulate import Seating
from simcore.search import SEARCH_ID, agent_maker

from . import engine as E
from . import reference as ref
from . import stats as S
from .distilled import BUNDLED
from .game import GAME
from .policies import BUILTIN_IDS, DISTILLED, KIND_NAMES, WEIGHTS
from .rules import CHARACTERS, Rules, rules_or_default

LOG_LEN = E.LOG_LEN   # decisions kept per game when a decision log is asked for
PLAYOUT = "careful"   # search agents' default playout: strong, and 1.6x faster than keeper
# The prior (simcore.search.step) and the adaptive stop: the distilled policy's pick,
# favoured in the tree by a progressive bias, lifts ISMCTS-1000 against three `keeper` seats
# (docs/search.md, "The prior").
PRIOR = "distilled"
BIAS = 4.0
ADAPTIVE = True
# The balance report's search rung: the cheapest agent measured above `keeper` by a clear
# margin, cheap enough for 1,000 games with every seat searching within the main job's time
# (docs/search.md, "Strength").
STRONG = "ismcts-100"
STRONG_GAMES = 1000


agent = agent_maker(BUILTIN_IDS, PLAYOUT, WEIGHTS, bias=BIAS, adaptive=ADAPTIVE, prior=PRIOR,
                    strong=STRONG, strong_games=STRONG_GAMES)


def _check(policies, rules, characters) -> tuple[Rules, SeatPolicies, np.ndarray]:
    rules = rules_or_default(rules)
    pol = resolve(policies, BUILTIN_IDS, "rapinsim", (rules.players_min, rules.players_max),
                  WEIGHTS, agent.parse, BUNDLED)
    p = len(pol.names)
    if p >= rules.districts:
        raise ValueError(f"rapinsim: {p} players need more than {rules.districts} districts")
    fixed = np.full(E.MAX_PLAYERS, -1, np.int8)
    if characters is None:
        if p > len(rules.characters):
            raise ValueError(f"rapinsim: {p} players but only {len(rules.characters)} "
                             f"characters in the roster {list(rules.characters)}")
        return rules, pol, fixed
    if isinstance(characters, (str, bytes)) or not isinstance(characters, Sequence):
        raise ValueError(f"characters must be a list of character names, one per seat, got "
                         f"{characters!r}")
    if len(characters) != p:
        raise ValueError(f"characters: {len(characters)} given for {p} seats (one per seat)")
    for c in characters:
        if c not in CHARACTERS:
            raise ValueError(f"characters: unknown character {c!r}; known: {list(CHARACTERS)}")
    if len(set(characters)) != p:
        raise ValueError(f"characters must be distinct within a game, got {list(characters)}")
    fixed[:p] = [CHARACTERS.index(c) for c in characters]
    return rules, pol, fixed


def _reference_policies(pol: SeatPolicies):
    return pol.reference([None if i == SEARCH_ID else pol.distilled if i == DISTILLED else
                          ref.builtin(int(i), None if h is None else h.weights) if i >= 0
                          else pol.user_py[-1 - int(i)] for i, h in zip(pol.ids, pol.heuristics)])


def play_arrays(pol: SeatPolicies, rules: Rules, fixed: np.ndarray, key: int, start: int,
                n: int, engine: str, log: bool = False, redraw: tuple[int, int] = NO_REDRAW):
    """Play games start .. start+n-1 (``redraw``: streams drawn anew, ``simcore.rng``);
    returns (seat, win, game, chars, led, logs) as in ``stats.new_arrays``, logs a list of
    (seat, kind, n_opts, choice) arrays (or None)."""
    p = len(pol.names)
    seat, win, game, chars, led = S.new_arrays(n, p, rules.districts)
    logs = [] if log else None
    funcs = _reference_policies(pol)
    fc = None if fixed[0] < 0 else [int(c) for c in fixed[:p]]
    if engine == "reference":
        for g in range(n):
            st = ref.play_game(rules, funcs, pol.names, key, start + g, fc, redraw=redraw)
            seat[:, g], win[g], game[:, g], chars[g] = (np.transpose(st.seat_stats), st.win,
                                                        st.game_stats, st.chars)
            led[g] = st.led_rounds
            if log:
                logs.append(np.array(st.decisions, np.int16).reshape(-1, 4))
        return seat, win, game, chars, led, logs
    err = np.zeros((n, 5), np.int64)
    buf = np.zeros((n, LOG_LEN if log else 0, 4), np.int16)
    with compiled_call("rapinsim", pol):
        E.play_batch(rules, pol.engine_ids(), user_addresses(pol.user_py, E.P), np.uint64(key),
                     start, p, fixed, seat, win, game, chars, led, err, buf, pol.weights,
                     pol.agent_words(BUILTIN_IDS, E.P, WEIGHTS),
                     None if pol.distilled is None else pol.distilled.flat(), redraw,
                     pol.restrictions)
    raise_policy_fault("rapinsim", pol, KIND_NAMES, start, err,
                       lambda g: ref.play_game(rules, funcs, pol.names, key, g, fc,
                                               redraw=redraw))
    if log:
        logs = [buf[g, :min(game[S.G_DECISIONS, g], LOG_LEN)] for g in range(n)]
    return seat, win, game, chars, led, logs


class Engines:
    """The Lapin treasure hunt's engines for ``simcore.simulate``."""

    game = GAME

    def seating(self, policies: Sequence, rules, characters=None) -> Seating:
        rules, pol, fixed = _check(policies, rules, characters)
        return Seating(rules, pol, {"characters": None if characters is None
                                    else list(characters), "fixed": fixed})

    def play(self, seating: Seating, key: int, start: int, n: int, engine: str,
             redraw: tuple[int, int]):
        return play_arrays(seating.seats, seating.rules, seating.options["fixed"], key, start,
                           n, engine, redraw=redraw)[:5]

    def frame(self, seating: Seating, start: int, arrays) -> pl.DataFrame:
        return S.to_frame(start, seating.seats.names, *arrays, seating.rules.districts)

    def tell(self, seating: Seating, key: int, game: int, redraw: tuple[int, int]) -> str:
        pol, fixed = seating.seats, seating.options["fixed"]
        fc = None if fixed[0] < 0 else [int(c) for c in fixed[:len(pol.names)]]
        st = ref.play_game(seating.rules, _reference_policies(pol), pol.names, key, game, fc,
                           log=True, redraw=redraw)
        return "\n".join(st.log) + "\n"

    def manifest(self, seating: Seating) -> dict:
        return {"characters": seating.options["characters"],
                "rules": _rules_dict(seating.rules)}

    def logs(self, seating: Seating, key: int, start: int, n: int) -> list[np.ndarray]:
        return [log.astype(np.int64) for log in play_arrays(
            seating.seats, seating.rules, seating.options["fixed"], key, start, n,
            "compiled", log=True)[5]]


ENGINES = Engines()


def simulate(policies: Sequence, n_games: int, seed: int, *, rules=None, characters=None,
             engine: str = "compiled", threads: int | None = None,
             progress: ProgressArg = None, out: str | os.PathLike | None = None,
             first_game: int = 0, redraw: tuple | None = None):
    """Play ``n_games`` games from game ``first_game`` on (0: the first); one row per game
    and seat (docs/results-schema.md).

    ``policies``: one per seat (2..6), a built-in name (``POLICIES``), a search agent
    (``"ismcts-1000"``, ``rapinsim.agent``) or a ``@policy`` function. ``characters``: one
    distinct character per seat, else chosen by the players (or drawn from the roster, as the
    rules' ``character_selection`` says).
    ``rules``: a ``Rules``, a rules file path or None. With ``out`` the rows stream to a
    Parquet dataset and a LazyFrame over it is returned. ``redraw=(sources, k)``: those
    chance sources (``GAME.chance``, or ``"policies"``) drawn anew with key k, every other draw
    as it was (``simcore.simulate``).
    """
    return sim.simulate(ENGINES, policies, n_games, seed, rules=rules, engine=engine,
                        threads=threads, progress=progress, out=out, first_game=first_game,
                        characters=characters, redraw=redraw)


def decision_logs(policies: Sequence, n_games: int, seed: int, *, rules=None,
                  first_game: int = 0) -> list[np.ndarray]:
    """Each game's decision log of ``simulate(policies, n_games, seed)`` (``simcore.simulate``):
    int [decisions, 4] per game, (seat, kind, number of options, choice)."""
    return sim.decision_logs(ENGINES, policies, n_games, seed, rules=rules,
                             first_game=first_game)


def replay(policies: Sequence, seed: int, game: int, *, rules=None, characters=None,
           redraw: tuple | None = None) -> str:
    """The readable log of one game, played by the reference engine (the same game the
    compiled engine plays for this seed, index and ``redraw``)."""
    return sim.replay(ENGINES, policies, seed, game, rules=rules, characters=characters,
                      redraw=redraw)


def _rules_dict(rules: Rules) -> dict:
    d = dataclasses.asdict(rules)
    d.pop("source")
    return d


def read_results(out: str | Path) -> pl.LazyFrame:
    """The dataset ``simulate(..., out=DIR)`` wrote."""
    return pl.scan_parquet(Path(out) / "part-*.parquet")
