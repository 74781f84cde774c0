"""``python -m analyses distill GAME``: play games with a search seat, record its decisions,
fit a distilled policy to them (``simcore.distill``) and write its weights file.

The positions are saved in parts of ``CHUNK`` games in a folder beside the output, so a rerun
with the same settings continues where the last one stopped and a rerun with more games only
plays the new ones. The search seat is game ``g``'s seat ``g % players``, against copies of
opponent ``opponents[g // players % len(opponents)]``.

Expert iteration: an agent such as ``ismcts-300[playout=distilled]`` searches with the shipped
distilled policy (the previous round) as its prior and playout; the new file records how that
previous round was made (``made["playout_policy"]``).

``python -m analyses improve GAME``: the fitted weights as the start of a natural evolution
strategy (``simcore.tune.evolve``) whose fitness is the win share against a field of
heuristics, and the improved policy's gain over its start measured on fresh games. Why:
imitation fits the search's choices, not its wins; a linear policy that agrees with the search
at half its positions can be far from the linear policy that wins most.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import math
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from simcore import distill as D
from simcore import games
from simcore.runner import check_int
from simcore.search import is_agent_spec
from simcore.tune import Evolution, evolve

from .compare import fixed_interval
from .games import check_players
from .tune import seat_shares

CHUNK = 25
HOLDOUT = 10
"""Every HOLDOUT-th game's positions are left out of the fit and measure its accuracy."""


def positions_dir(out: str | Path) -> Path:
    """Where the positions behind ``out`` are kept (``FILE.json`` -> ``FILE.positions``)."""
    out = Path(out)
    return out.with_name(out.stem + ".positions")


def distill(game: str, n_games: int, seed: int, agent: str, out: str | Path,
            opponents: Sequence[str] | None = None, players: int = 4, l2: float = 1e-4,
            positions: str | Path | None = None, student: str | Path | None = None,
            command: str | None = None) -> dict:
    """Play ``n_games`` games (or continue), fit, write ``out``; returns how it was made.
    ``student``: a weights file of this game whose policy plays the search seat while the
    search's choices are recorded (a round of DAgger: the positions the student meets)."""
    spec = games.get(game)
    mod = spec.module()
    dmod = importlib.import_module(f"{spec.name}.distilled")
    check_int("games", n_games, 1)
    check_int("seed", seed, 0)
    if not isinstance(agent, str) or not is_agent_spec(agent):
        raise ValueError(f"--agent must be a search agent such as 'ismcts-300', got {agent!r}")
    opponents = list(opponents or dmod.OPPONENTS)
    for o in opponents:
        if o not in mod.POLICIES:
            raise ValueError(f"unknown opponent {o!r}; built-in policies are "
                             f"{sorted(mod.POLICIES)}")
    g = mod.new_game(players, seed)     # a bad player count or agent fails here, by name
    g.search(agent, 0)
    previous = (D.load(dmod.FILE, dmod.FEATURES)[1]
                if mod.agent.parse(agent).playout == "distilled" else None)
    made_by = None
    if student is not None:
        W, made_by = D.load(student, dmod.FEATURES)
        student_policy = D.compile_policy(dmod.FEATURES, W, "student")
    out = Path(out)
    if not out.parent.is_dir():
        raise ValueError(f"--out {out}: folder {out.parent} does not exist")
    folder = Path(positions) if positions else positions_dir(out)
    settings = {"game": spec.name, "seed": seed, "agent": agent, "opponents": opponents,
                "players": players, "chunk": CHUNK}
    if made_by is not None:
        settings["student"] = made_by
    _check_folder(folder, settings)

    parts = []
    start = time.perf_counter()
    for first in range(0, n_games, CHUNK):
        last = min(first + CHUNK, n_games)
        parts.append(_part(folder, first, last, lambda g: D.play_positions(
            lambda i: mod.new_game(players, seed, i), agent,
            opponents[g // players % len(opponents)], g % players, seed, g,
            student_policy if student is not None else None)))
        print(f"distill {spec.name}: {last:,}/{n_games:,} games, "
              f"{sum(len(p.kinds) for p in parts):,} positions, "
              f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    pos = D.Positions.concat(parts)
    held = pos.games % HOLDOUT == HOLDOUT - 1
    train, test = pos.select(~held), pos.select(held)
    print(f"distill {spec.name}: fitting {len(train.kinds):,} positions", file=sys.stderr,
          flush=True)
    W = D.fit(dmod.FEATURES, train, l2)
    made = {"command": command or _cli("distill", spec.name, [
                ("games", n_games), ("seed", seed), ("agent", agent),
                ("opponents", ",".join(opponents)), ("players", players), ("l2", l2),
                ("out", out), ("student", student)]),
            "seed": seed, "games": n_games, "players": players, "agent": agent,
            "opponents": opponents, "search_seat": "game g: seat g % players",
            "student": made_by, "playout_policy": previous,
            "positions": int(len(pos.kinds)), "fitted_on": int(len(train.kinds)), "l2": l2,
            "holdout": f"every {HOLDOUT}th game",
            "holdout_agreement": D.accuracy(dmod.FEATURES, W, test) if len(test.kinds) else {},
            "holdout_agreement_of_prior": (D.accuracy(dmod.FEATURES, dmod.FEATURES.prior(), test)
                                           if len(test.kinds) else {})}
    D.save(out, dmod.FEATURES, W, made)
    return made


def _part(folder: Path, first: int, last: int, play) -> D.Positions:
    """Games ``first .. last - 1`` from the part file that starts at ``first``, the games it
    lacks played by ``play(game)`` and saved (the file is named by the games it holds)."""
    old = sorted(folder.glob(f"part-{first:06d}-{'[0-9]' * 6}.npz"))
    have = D.Positions.load(old[0]) if old else None
    done = int(old[0].stem.rsplit("-", 1)[1]) if old else first
    if done >= last:
        return have.select(have.games < last)
    pos = D.Positions.concat(([have] if have is not None else [])
                             + [play(g) for g in range(done, last)])
    path = folder / f"part-{first:06d}-{last:06d}.npz"
    tmp = folder / f"part-{first:06d}-{last:06d}.tmp.npz"
    pos.save(tmp)
    tmp.replace(path)
    for p in old:
        p.unlink()
    return pos


def _check_folder(folder: Path, settings: dict) -> None:
    """Make ``folder`` for these settings, or check that its parts were played with them."""
    manifest = folder / "settings.json"
    if manifest.exists():
        try:
            old = json.loads(manifest.read_text())
        except (OSError, json.JSONDecodeError):
            raise ValueError(f"positions folder {folder}: unreadable {manifest.name}") from None
        if old != settings:
            raise ValueError(f"positions folder {folder} holds games played with other "
                             f"settings ({_differences(old, settings)}); give another "
                             f"--positions folder")
        return
    if folder.exists() and any(folder.iterdir()):
        raise ValueError(f"positions folder {folder} exists and is not a distill folder")
    folder.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps(settings, indent=1) + "\n")


def _differences(old: dict, new: dict) -> str:
    """The settings a kept run was made with that differ from this run's, for its error."""
    return ", ".join(f"{k} {old.get(k)!r} there, {v!r} now" for k, v in new.items()
                     if old.get(k) != v)


def _cli(verb: str, game: str, flags: Sequence[tuple[str, Any]]) -> str:
    """The command line that remakes a file, ``python -m analyses VERB GAME --flag value ...``
    (a flag whose value is None left out; a float as its repr, so the record is exact)."""
    words = ["python", "-m", "analyses", verb, game]
    for flag, value in flags:
        if value is not None:
            words += [f"--{flag}", repr(value) if isinstance(value, float) else str(value)]
    return shlex.join(words)


def summary(made: dict, out: str | Path) -> str:
    head = f"wrote {out}: {made['positions']:,} positions of {made['games']:,} games"
    if not made["holdout_agreement"]:
        return f"{head}; none held out (fewer than {HOLDOUT} games)"
    return (f"{head}; takes the search's option at {made['holdout_agreement']['all']:.1%} of "
            f"held-out positions (the heuristic it starts from: "
            f"{made['holdout_agreement_of_prior']['all']:.1%})")


def improve(game: str, steps: int, seed: int, out: str | Path, *, start: str | Path | None = None,
            opponents: Sequence[str] | None = None, players: int = 4, games_per: int = 200,
            population: int = 16, sigma: float = 0.1, lr: float = 0.05,
            check_games: int = 1000, command: str | None = None) -> dict:
    """Improve the distilled weights ``start`` (default: the shipped file) by ``steps`` steps
    of ``simcore.tune.evolve`` and write them to ``out``; returns how they were made.

    A candidate's fitness at step t is its mean win share in one seat against P-1 copies of
    each opponent in turn, on ``games_per`` game indices each (every index with the candidate
    in every seat; step t's own indices, the same for every candidate of the step). The
    evolution moves every context's weight of each option feature a kind already weighs, in
    units of ``sigma`` times that feature's RMS weight in the kind: a feature the start
    ignores (one the search's positions never showed in that kind) stays ignored. Then
    the improved and the start policy play ``check_games`` fresh game indices against each
    opponent (never played in the evolution): the gain, paired per game index, with its 95%
    interval. The state after each step is kept beside ``out`` (``FILE.evolution.npz``), so a
    rerun with the same settings continues, and one with more steps goes on."""
    spec = games.get(game)
    mod = spec.module()
    dmod = importlib.import_module(f"{spec.name}.distilled")
    F = dmod.FEATURES
    for name, v, least in (("steps", steps, 1), ("seed", seed, 0), ("games", games_per, 1),
                           ("population", population, 1), ("check_games", check_games, 2)):
        check_int(name, v, least)
    for name, v in (("sigma", sigma), ("lr", lr)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (
                v > 0 and math.isfinite(v)):
            raise ValueError(f"--{name} must be a positive number, got {v!r}")
    opponents = list(opponents or dmod.OPPONENTS)
    for o in opponents:
        if o not in mod.POLICIES or o == "distilled":
            raise ValueError(f"opponent {o!r}: the field holds built-in heuristics "
                             f"{sorted(p for p in mod.POLICIES if p != 'distilled')} (a batch "
                             f"plays one set of distilled weights)")
    check_players(mod, players)
    start = Path(start) if start is not None else dmod.FILE
    W0, made0 = D.load(start, F)
    out = Path(out)
    if not out.parent.is_dir():
        raise ValueError(f"--out {out}: folder {out.parent} does not exist")
    if out.resolve() == start.resolve():
        raise ValueError(f"--out {out} is the start file: write elsewhere (a rerun resumes "
                         f"from the same start)")
    idx, scale = _moves(W0, sigma)

    def weights(theta: np.ndarray) -> np.ndarray:
        W = W0.copy().ravel()
        W[idx] += scale * theta
        return W.reshape(W0.shape)

    def share(W: np.ndarray, n: int, first: int, opponent: str) -> np.ndarray:
        return seat_shares(mod, D.Distilled("candidate", F, W), [opponent] * (players - 1), n,
                           seed, first, None)

    block = games_per * len(opponents)

    def fitness(points: np.ndarray, t: int) -> np.ndarray:
        return np.array([np.mean([share(weights(th), games_per, t * block + j * games_per,
                                        o).mean() for j, o in enumerate(opponents)])
                         for th in points])

    settings = {"game": spec.name, "start": str(start), "start_digest": _digest(W0),
                "seed": seed, "opponents": opponents, "players": players,
                "games": games_per, "population": population, "sigma": sigma, "lr": lr}
    keep = out.with_name(out.stem + ".evolution.npz")
    state = _resume(keep, settings, len(idx))
    clock = time.perf_counter()

    def on_step(st: Evolution) -> None:
        _keep(keep, settings, st)
        print(f"improve {spec.name}: step {st.step}/{steps}, mean win share "
              f"{st.fitness[-1]:.3f}, {time.perf_counter() - clock:.0f} s", file=sys.stderr,
              flush=True)
    evolve(fitness, state, steps, seed, population=population, lr=lr, on_step=on_step)
    W = weights(state.theta)
    fresh = steps * block
    check = []
    for j, o in enumerate(dict.fromkeys(opponents)):
        a = share(W, check_games, fresh + j * check_games, o)
        b = share(W0, check_games, fresh + j * check_games, o)
        lo, hi, _ = fixed_interval(a - b, (-1, 1))
        check.append({"opponent": o, "game_indices": f"{fresh + j * check_games}.."
                      f"{fresh + (j + 1) * check_games - 1}", "win_improved": round(a.mean(), 4),
                      "win_start": round(b.mean(), 4), "gain": round((a - b).mean(), 4),
                      "gain_low": round(lo, 4), "gain_high": round(hi, 4)})
    made = {"command": command or _cli("improve", spec.name, [
                ("steps", steps), ("seed", seed), ("start", start),
                ("opponents", ",".join(opponents)), ("players", players), ("games", games_per),
                ("population", population), ("sigma", sigma), ("lr", lr),
                ("check-games", check_games), ("out", out)]),
            "method": "natural evolution strategy (simcore.tune.evolve) from the start's weights",
            "start": {"file": str(start), "made": made0}, "seed": seed, "steps": steps,
            "population": population, "games": games_per, "players": players,
            "opponents": opponents, "sigma": sigma, "lr": lr,
            "games_played": steps * 2 * population * block * players,
            "mean_win_share_by_step": [round(f, 4) for f in state.fitness[:steps]],
            "check": check}
    D.save(out, F, W, made)
    return made


def _moves(W0: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """The flat indices the evolution moves (every context of each live option feature) and
    each one's unit (``sigma`` times the feature's RMS weight in its kind)."""
    live = (W0 != 0).any(axis=2, keepdims=True)
    rms = np.sqrt((W0 ** 2).mean(axis=2, keepdims=True))
    unit = np.broadcast_to(np.where(live, sigma * rms, 0.0), W0.shape).ravel()
    idx = np.flatnonzero(unit)
    return idx, unit[idx]


def _digest(W: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(W, np.float64).tobytes()).hexdigest()[:16]


def _resume(path: Path, settings: dict, dim: int) -> Evolution:
    """The evolution kept in ``path`` if it was run with ``settings``, else a new one."""
    if not path.exists():
        return Evolution.start(dim)
    try:
        with np.load(path) as z:
            old = json.loads(str(z["settings"]))
            state = Evolution(z["theta"], z["m"], z["v"], [float(f) for f in z["fitness"]])
    except (OSError, ValueError, KeyError):
        raise ValueError(f"{path}: unreadable evolution state; delete it to start "
                         f"again") from None
    if old != settings or len(state.theta) != dim:
        raise ValueError(f"{path} holds an evolution run with other settings "
                         f"({_differences(old, settings)}); delete it or give another --out")
    return state


def _keep(path: Path, settings: dict, state: Evolution) -> None:
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez(tmp, settings=json.dumps(settings), theta=state.theta, m=state.m, v=state.v,
             fitness=np.array(state.fitness))
    tmp.replace(path)


def improve_summary(made: dict, out: str | Path) -> str:
    lines = [f"wrote {out}: {made['steps']} steps of {2 * made['population']} candidates, "
             f"{made['games_played']:,} games"]
    for c in made["check"]:
        lines.append(f"against {c['opponent']} on fresh game indices {c['game_indices']}: "
                     f"win share {c['win_improved']:.3f} (start {c['win_start']:.3f}), gain "
                     f"{c['gain']:+.3f} [{c['gain_low']:+.3f}, {c['gain_high']:+.3f}]")
    return "\n".join(lines)
