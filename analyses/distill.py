"""``python -m analyses distill GAME``: play games with a search seat, record its decisions,
fit a distilled policy to them (``simcore.distill``) and write its weights file.

The positions are saved in parts of ``CHUNK`` games in a folder beside the output, so a rerun
with the same settings continues where the last one stopped and a rerun with more games only
plays the new ones. The search seat is game ``g``'s seat ``g % players``, against copies of
opponent ``opponents[g // players % len(opponents)]``.

Expert iteration: an agent such as ``ismcts-300[playout=distilled]`` searches with the shipped
distilled policy (the previous round) as its prior and playout; the new file records how that
previous round was made (``made["playout_policy"]``).
"""
from __future__ import annotations

import importlib
import json
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from simcore import distill as D
from simcore import games
from simcore.runner import check_int
from simcore.search import is_agent_spec

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
    made = {"command": command or _command(spec.name, n_games, seed, agent, out, opponents,
                                           players, l2, student),
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
            diff = ", ".join(f"{k} {old.get(k)!r} there, {v!r} now" for k, v in settings.items()
                             if old.get(k) != v)
            raise ValueError(f"positions folder {folder} holds games played with other "
                             f"settings ({diff}); give another --positions folder")
        return
    if folder.exists() and any(folder.iterdir()):
        raise ValueError(f"positions folder {folder} exists and is not a distill folder")
    folder.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps(settings, indent=1) + "\n")


def _command(game: str, n: int, seed: int, agent: str, out: Path, opponents: list[str],
             players: int, l2: float, student: str | Path | None) -> str:
    return shlex.join(["python", "-m", "analyses", "distill", game, "--games", str(n),
                       "--seed", str(seed), "--agent", agent, "--opponents", ",".join(opponents),
                       "--players", str(players), "--l2", repr(l2), "--out", str(out)]
                      + (["--student", str(student)] if student is not None else []))


def summary(made: dict, out: str | Path) -> str:
    head = f"wrote {out}: {made['positions']:,} positions of {made['games']:,} games"
    if not made["holdout_agreement"]:
        return f"{head}; none held out (fewer than {HOLDOUT} games)"
    return (f"{head}; takes the search's option at {made['holdout_agreement']['all']:.1%} of "
            f"held-out positions (the heuristic it starts from: "
            f"{made['holdout_agreement_of_prior']['all']:.1%})")
