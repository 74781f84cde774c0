"""Kingmaking: does a player who can no longer win decide who does?

A **kingmaker decision** is one at which the deciding seat's win probability is below
``threshold`` whatever it chooses (the best of its options, for itself) while its options move
another seat's win probability by at least ``swing`` (that seat's best option minus its worst).
Both are measured by the honest evaluator of the forward model (``ForwardGame.values``): every
option played on from the position over determinizations of the deciding seat's view, the
same random numbers for every option (common random numbers), so a swing is the options'
difference and not the playouts' chance.

The games are played by ``policies`` through the forward model; each decision with more than
one option passes screens of few playouts (``SCREENS``: a seat that wins too many of them
under some option is not below ``threshold``, ``cut``), and the decisions that pass are
judged on two independent evaluations of ``playouts`` each, the swing cross-fitted between
them (``judge``). Every interval takes the game index as its unit (``analyses.stats``).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
from scipy.stats import binom

from simcore.progress import Progress, ProgressArg
from simcore.runner import check_int, check_threads

from .games import check_players, game_module, policy_name
from .stats import clustered_wilson, few_clusters, moments_of, ratio, t_interval

THRESHOLD = 0.02
"""The deciding seat's win probability under its best option below which it cannot win."""

SWING = 0.20
"""The least change of another seat's win probability over the options that decides a game."""

PLAYOUTS = 128
"""Playouts per option of each of the two independent evaluations of a decision that passes
the screens (256 in all)."""

SCREENS = (4, 32)
"""Playouts per option of the screens every decision passes in turn before its evaluation."""

MISS = 0.0025
"""A screen drops a decision where the deciding seat wins more playouts under some option than
a seat at ``threshold`` would with probability ``MISS`` (``cut``)."""

GAMES = 100
"""Game indices per player count of the default run."""
REPORT_GAMES, REPORT_PLAYOUTS = 20, 64
"""The balance report's size: its headline's interval is wide (a share of 20 games), its
cost about 1.5 CPU s per Broom Service game and 0.3 per Lapin game, on one core."""

ROLES = ("leader", "runner-up", "other")
"""Where the crowned seat stood before the decision, among the seats other than the decider."""


@dataclass(frozen=True)
class Kingmaking:
    """The lens's tables: ``decisions`` (every decision evaluated in full), ``games`` (per game
    index: decisions, screened, evaluated, kingmaker decisions), ``summary`` (per player count:
    the share of games with a kingmaker decision, the mean swing, who is crowned; each with
    its 95% interval over game indices) and the ``settings`` used."""

    decisions: pl.DataFrame
    games: pl.DataFrame
    summary: pl.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        """The headlines in words, one per player count."""
        lines = []
        for r in self.summary.iter_rows(named=True):
            lines.append(said(r))
            if caution := few_clusters(r["games"]):
                lines.append(f"caution: {caution}")
        return "\n".join(lines)


def said(r: dict[str, Any]) -> str:
    """One player count's row of ``Kingmaking.summary`` in words."""
    line = (f"{r['players']} players, {r['games']} games: a kingmaker decision in "
            f"{_pct(r, 'share')} of games")
    if r["decisions"]:
        line += (f"; mean swing {r['swing']:.2f} [{r['swing_low']:.2f}, {r['swing_high']:.2f}]"
                 f" over {r['decisions']} decisions; the option taken crowned: "
                 + ", ".join(f"{role} {_pct(r, role)}" for role in ROLES))
    return line


def _pct(r: dict, key: str) -> str:
    return f"{r[key]:.1%} [{r[key + '_low']:.1%}, {r[key + '_high']:.1%}]"


@dataclass(frozen=True)
class Verdict:
    """One decision judged from its option values [options, players]: the deciding seat's
    best value, the largest swing of another seat, the seat the option taken favours most
    (``crowned``) and where it stood (``role``, among ``ROLES``)."""

    decider: float
    swing: float
    crowned: int
    role: str
    kingmaker: bool


def judge(values: np.ndarray, seat: int, choice: int, threshold: float = THRESHOLD,
          swing: float = SWING, check: np.ndarray | None = None) -> Verdict:
    """Judge the decision of ``seat`` that took option ``choice`` from its option values
    [options, players]. The standing of each other seat is its mean value over the options
    (the position before the choice); the crowned seat is the one whose value the option
    taken raises most above that mean. With ``check``, a second evaluation on other random
    numbers, the values are the two's mean and the swing is cross-fitted (``held_out``): the
    largest of many noisy differences is biased up by the noise, a difference picked on one
    evaluation and measured on the other is not."""
    v = np.asarray(values, dtype=np.float64)
    others = [j for j in range(v.shape[1]) if j != seat]
    if check is None:
        biggest = float((v[:, others].max(axis=0) - v[:, others].min(axis=0)).max())
    else:
        c = np.asarray(check, dtype=np.float64)
        biggest = (held_out(v, c, others) + held_out(c, v, others)) / 2
        v = (v + c) / 2
    decider = float(v[:, seat].max())
    standing = v[:, others].mean(axis=0)
    crowned = others[int(np.argmax(v[choice, others] - standing))]
    rank = [others[i] for i in np.argsort(-standing, kind="stable")].index(crowned)
    return Verdict(decider, biggest, crowned, ROLES[min(rank, 2)],
                   decider < threshold and biggest >= swing)


def held_out(pick: np.ndarray, measure: np.ndarray, others: Sequence[int]) -> float:
    """The swing of the seat and the pair of options that ``pick`` finds largest, as
    ``measure`` values them."""
    spread = pick[:, others].max(axis=0) - pick[:, others].min(axis=0)
    j = others[int(np.argmax(spread))]
    return float(measure[np.argmax(pick[:, j]), j] - measure[np.argmin(pick[:, j]), j])


def cut(playouts: int, threshold: float = THRESHOLD) -> float:
    """The share of a screen's playouts above which the deciding seat is not below
    ``threshold``: it wins more only with probability under ``MISS`` at ``threshold``."""
    return float(binom.ppf(1 - MISS, playouts, threshold)) / playouts


def walk(start: Any, policies: Sequence[Any]) -> Iterator[tuple[int, int, Any]]:
    """(decision index, option taken, position) of every decision with more than one option
    in the game ``policies`` play from ``start`` (its own positions are copies)."""
    choices = start.copy().play(list(policies)).history
    pos = start.copy()
    for k, choice in enumerate(choices):
        if pos.to_act[1] > 1:
            yield k, choice, pos.copy()
        pos.step(choice)


def value_seed(seed: int, game: int, decision: int, stage: int) -> int:
    """The evaluator's seed at one decision: the same for a (seed, game, decision) wherever
    and in whatever order it is evaluated."""
    return int(np.random.SeedSequence([seed, game, decision, stage]).generate_state(1, np.uint64)
               [0] >> np.uint64(1))


def scan(start: Any, policies: Sequence[Any], game: int, *, seed: int = 0,
         threshold: float = THRESHOLD, swing: float = SWING, playouts: int = PLAYOUTS,
         screens: Sequence[int] = SCREENS) -> tuple[list[dict], dict]:
    """Screen every decision of the game ``policies`` play from ``start`` (any position with
    ``copy``, ``play``, ``history``, ``step``, ``to_act`` and ``values(seed, playouts)``) with
    ``screens`` playouts per option in turn, and judge those that pass on two evaluations of
    ``playouts``. Returns (one row per decision judged, the game's counts)."""
    rows, counts = [], {"game": game, "decisions": 0, "evaluated": 0, "kingmakers": 0}
    for k, choice, pos in walk(start, policies):
        counts["decisions"] += 1
        seat = pos.to_act[0]
        if any(pos.values(value_seed(seed, game, k, i), n)[:, seat].max() > cut(n, threshold)
               for i, n in enumerate(screens)):
            continue
        a, b = (pos.values(value_seed(seed, game, k, len(screens) + i), playouts)
                for i in range(2))
        v = judge(a, seat, choice, threshold, swing, check=b)
        counts["evaluated"] += 1
        counts["kingmakers"] += v.kingmaker
        rows.append({"game": game, "decision": k, "seat": seat, "options": pos.to_act[1],
                     "kind": getattr(pos.current, "kind", ""), "decider": v.decider,
                     "swing": v.swing, "crowned": v.crowned, "role": v.role,
                     "kingmaker": v.kingmaker})
    return rows, counts


DECISION_SCHEMA = {"players": pl.Int64, "game": pl.Int64, "decision": pl.Int64,
                   "seat": pl.Int64, "options": pl.Int64, "kind": pl.String,
                   "decider": pl.Float64, "swing": pl.Float64, "crowned": pl.Int64,
                   "role": pl.String, "kingmaker": pl.Boolean}


def measure(starts: Callable[[int, int], Any], players: Sequence[int], games: int,
            policies: Callable[[int], Sequence[Any]], *, seed: int = 0,
            threshold: float = THRESHOLD, swing: float = SWING, playouts: int = PLAYOUTS,
            screens: Sequence[int] = SCREENS, progress: ProgressArg = None,
            label: str = "kingmaking", threads: int = 1) -> Kingmaking:
    """The lens over game indices ``0..games-1`` at each player count: ``starts(players,
    game)`` gives a game's first position, ``policies(players)`` its seats' policies;
    ``threads`` games are scanned side by side (a game's figures depend on its seeds only)."""
    bar = Progress(progress, games * len(players), label)
    tables = {p: list(policies(p)) for p in players}

    def one(job: tuple[int, int]) -> tuple[list[dict], dict]:
        p, g = job
        r, c = scan(starts(p, g), tables[p], g, seed=seed, threshold=threshold, swing=swing,
                    playouts=playouts, screens=screens)
        bar.update(1)
        return [{"players": p, **x} for x in r], {"players": p, **c}

    try:
        with ThreadPoolExecutor(threads) as pool:
            done = list(pool.map(one, [(p, g) for p in players for g in range(games)]))
    finally:
        bar.close()
    rows = [x for r, _ in done for x in r]
    counts = [c for _, c in done]
    decisions = pl.DataFrame(rows, schema=DECISION_SCHEMA)
    per_game = pl.DataFrame(counts, schema={"players": pl.Int64, "game": pl.Int64,
                                            "decisions": pl.Int64, "evaluated": pl.Int64,
                                            "kingmakers": pl.Int64})
    settings = {"threshold": threshold, "swing": swing, "playouts": playouts,
                "screens": tuple(screens), "seed": seed, "games": games}
    return Kingmaking(decisions, per_game, summarise(decisions, per_game), settings)


def summarise(decisions: pl.DataFrame, per_game: pl.DataFrame) -> pl.DataFrame:
    """Per player count: ``share`` of games with a kingmaker decision (clustered Wilson, one
    game per cluster), the mean ``swing`` of kingmaker decisions and the share of them whose
    crowned seat was the leader, the runner-up or another (ratios of per-game sums: the game
    index is the unit; t intervals for the swing, clustered Wilson for the shares)."""
    out = []
    for p in sorted(set(per_game["players"])):
        g = per_game.filter(pl.col("players") == p).sort("game")
        km = decisions.filter((pl.col("players") == p) & pl.col("kingmaker"))
        idx = {x: i for i, x in enumerate(g["game"])}
        n_games = g.height
        per = np.zeros((n_games, 2 + len(ROLES)))       # swing sum, count, one per role
        for r in km.iter_rows(named=True):
            i = idx[r["game"]]
            per[i, 0] += r["swing"]
            per[i, 1] += 1
            per[i, 2 + ROLES.index(r["role"])] += 1
        has = (g["kingmakers"].to_numpy() > 0).astype(np.float64)
        row = {"players": p, "games": n_games, "decisions": int(per[:, 1].sum()),
               "evaluated": int(g["evaluated"].sum()), "screened": int(g["decisions"].sum())}
        row |= _share("share", has, np.ones(n_games))
        mean, se = ratio(*moments_of(per[:, :2]))
        lo, hi = t_interval(mean, se, n_games)
        row |= {"swing": float(mean), "swing_low": float(lo), "swing_high": float(hi)}
        for i, role in enumerate(ROLES):
            row |= _share(role, per[:, 2 + i], per[:, 1])
        out.append(row)
    return pl.DataFrame(out)


def _share(name: str, y: np.ndarray, n: np.ndarray) -> dict[str, float]:
    """A share of per-game sums y / n with its clustered Wilson interval (NaN where n is 0)."""
    if n.sum() == 0:
        return {name: np.nan, f"{name}_low": np.nan, f"{name}_high": np.nan}
    r, lo, hi, _ = clustered_wilson(*moments_of(np.stack([y, n], axis=-1)))
    return {name: float(r), f"{name}_low": float(lo), f"{name}_high": float(hi)}


def default_policy(mod: Any) -> str:
    """Every seat plays the game's first shipped policy (``BUNDLED``: the distilled search,
    the strongest fast player), else its first heuristic other than ``random``: kingmaking is
    a question about good play."""
    shipped = list(getattr(mod, "BUNDLED", ())) + [p for p in mod.POLICIES if p != "random"]
    return shipped[0] if shipped else "random"


def kingmaking(game: Any, players: int | Sequence[int] = 4, games: int = GAMES,
               policies: Sequence[Any] | str | None = None, threshold: float = THRESHOLD,
               swing: float = SWING, playouts: int = PLAYOUTS, seed: int = 0, *,
               screens: Sequence[int] = SCREENS, rules: Any = None,
               progress: ProgressArg = None, threads: int | None = None) -> Kingmaking:
    """Find the kingmaker decisions of ``games`` game indices of seed ``seed`` at each player
    count of ``players``, the seats played by ``policies`` (one built-in name for every seat,
    or one per seat, names or policy functions; default ``default_policy``) through
    ``game``'s forward model (``new_game``), each decision judged by ``values``; ``threads``
    games at once (default: numba's thread count), the same figures on any number."""
    mod = game_module(game)
    threads = check_threads(threads)
    counts = [players] if isinstance(players, int) else list(players)
    if not counts:
        raise ValueError("give at least one player count")
    counts = [check_players(mod, p) for p in counts]
    check_int("games", games, 1)
    check_int("playouts", playouts, 1)
    for n in screens:
        check_int("screens' playouts", n, 1)
    for name, x in (("threshold", threshold), ("swing", swing)):
        if not 0 <= x <= 1:
            raise ValueError(f"{name} must be a probability in [0, 1], got {x!r}")
    if policies is None:
        policies = default_policy(mod)

    def table(p: int) -> list[Any]:
        seats = [policies] * p if isinstance(policies, str) else list(policies)
        if len(seats) != p:
            raise ValueError(f"give one policy for every seat or one per seat ({p} at "
                             f"{p} players), got {[policy_name(s) for s in seats]}")
        return seats

    for p in counts:
        first = mod.new_game(p, seed=seed, game=0)
        for s in table(p):
            if isinstance(s, str):
                first.builtin(s)          # an unknown name is refused before any game
    kw = {} if rules is None else {"rules": rules}
    r = measure(lambda p, g: mod.new_game(p, seed=seed, game=g, **kw), counts, games, table,
                seed=seed, threshold=threshold, swing=swing, playouts=playouts,
                screens=screens, progress=progress,
                label=f"kingmaking {getattr(mod, '__name__', '')}", threads=threads)
    return Kingmaking(r.decisions, r.games, r.summary,
                      r.settings | {"policies": {p: [policy_name(s) for s in table(p)]
                                                 for p in counts}})
