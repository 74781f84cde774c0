"""``python -m analyses``: the balance report, and the tables on the terminal."""
from __future__ import annotations

import argparse
import json
import sys

import polars as pl

from simcore import budget, games
from simcore.cli import run_main

from . import display
from .balance import COUNTERFACTUAL_GAMES, GAMES_PER_GAME, LADDER_GAMES, LUCK_GAMES, balance
from .compare import compare
from .data import detect_game, scan
from .distill import distill, improve, improve_summary
from .distill import summary as distill_summary
from .event_impact import event_impact
from .intransitivity import GAMES as INTRANSITIVITY_GAMES
from .intransitivity import intransitivity
from .kingmaking import GAMES as KINGMAKING_GAMES
from .kingmaking import PLAYOUTS as KINGMAKING_PLAYOUTS
from .kingmaking import REPORT_GAMES as KINGMAKING_REPORT
from .kingmaking import SCREENS, SWING, THRESHOLD, kingmaking
from .ladder import ROTATIONS, ladder
from .leverage import PER_GAME, PLAYOUTS, REPORT_POSITIONS, leverage
from .leverage import POSITIONS as LEVERAGE_POSITIONS
from .luck import BOOT, luck_by_source
from .diff import diff as balance_diff
from .diff import page as diff_page
from .metrics import designer_metrics, leader_table
from .precise import plan, precise
from .report import partial_folder, report
from .restricted import GAMES as RESTRICTED_GAMES
from .restricted import REPORT_GAMES as RESTRICTED_REPORT
from .restricted import restricted
from .robust import ROBUST_GAMES, robustness
from .seats import seat_advantage
from .solve import solve
from .skill import MARGIN, RUNG_GAMES, parse_rungs
from .stats import few_clusters
from .sweep import CHUNK, variants_of, sweep
from .sweep import table as sweep_table
from .tournament import tournament
from .tune import LEVELS, tune
from .winrates import win_rates


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m analyses", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("balance", help="play every game and write the balance report")
    b.add_argument("--out", default="report", help="report directory (default: report)")
    b.add_argument("--games", type=int, default=GAMES_PER_GAME, help="games per game")
    b.add_argument("--counterfactual-games", type=int, default=COUNTERFACTUAL_GAMES,
                   help="games per switched-off thing")
    b.add_argument("--players", type=int, default=4)
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--rungs", action="append", metavar="A,B,... or GAME=A,B,...",
                   help="policy specs every seat plays, weakest first, for the verdicts by "
                        "skill (repeat with GAME= for one game's own list; default: the "
                        "tournament's weakest, second strongest and strongest policy, then "
                        "the game's search rung (bloomsim.agent.strong) for a game with "
                        "search agents)")
    b.add_argument("--rung-games", type=int, default=RUNG_GAMES, help="games per rung")
    b.add_argument("--search-games", type=int, default=None,
                   help="games at a search agent's rung (when fewer than --rung-games; "
                        "default: the game's own, bloomsim.agent.strong_games)")
    b.add_argument("--ladder-games", type=int, default=LADDER_GAMES,
                   help="game indices per seating of the skill ladder")
    b.add_argument("--luck-games", type=int, default=LUCK_GAMES,
                   help="game indices of luck by source (each played 2 + sources times)")
    b.add_argument("--margin", type=float, default=MARGIN * 100,
                   help="equivalence margin of the verdicts by skill, in win-rate points "
                        f"(default {MARGIN * 100:g}): smaller effects read negligible")
    b.add_argument("--robust-games", type=int, default=ROBUST_GAMES,
                   help="game indices per seating of the verdicts under each declared "
                        f"alternative of the rules (default {ROBUST_GAMES:,})")
    b.add_argument("--leverage-positions", type=int, default=REPORT_POSITIONS,
                   help="decisions the decision leverage lens values, per game with search "
                        f"agents (default {REPORT_POSITIONS:,}; 0: none)")
    b.add_argument("--kingmaking-games", type=int, default=KINGMAKING_REPORT,
                   help="game indices the kingmaking lens judges, per game with search agents "
                        f"(default {KINGMAKING_REPORT}; 0: none)")
    b.add_argument("--restricted-games", type=int, default=RESTRICTED_REPORT,
                   help="game indices per probe and rung of restricted play, per game with "
                        f"search agents (default {RESTRICTED_REPORT}; 0: none)")
    r = sub.add_parser("report", help="write DIR/index.html for a results file or dataset")
    r.add_argument("results", help="Parquet file or simulate(out=DIR) dataset directory")
    r.add_argument("--out", required=True, help="report directory")
    r.add_argument("--rules", help="rules file the results were played with (for the board)")
    w = sub.add_parser("winrates", help="win rate table")
    w.add_argument("results")
    w.add_argument("--by", nargs="+", default=["policy"], help="columns to group by")
    s = sub.add_parser("seats", help="seat advantage table")
    s.add_argument("results")
    s.add_argument("--score", help="score column (default: the game's own)")
    m = sub.add_parser("metrics", help="designer metrics: length, margin, ties, endings, "
                                       "lead changes, how often the leader of each round wins")
    m.add_argument("results")
    m.add_argument("--by", nargs="+", help="group columns (default: variant, n_players)")
    e = sub.add_parser("events", help="event / item / trap / character impact table")
    e.add_argument("results")
    e.add_argument("--by", default="auto", help="group column (default: auto)")
    e.add_argument("--adjust", choices=["holm", "bh"], default="holm")
    t = sub.add_parser("tournament", help="play a round robin and print its tables")
    t.add_argument("game", choices=games.names())
    t.add_argument("--policy", action="append", required=True, help="one per policy")
    t.add_argument("--players", type=int, required=True)
    t.add_argument("--games", type=int, required=True, help="games per seating")
    t.add_argument("--seed", type=int, default=0)
    it = sub.add_parser("intransitivity", help="one best strategy or a cycle? a round robin of a "
                                               "population: the finish-ahead matrix, its cyclic "
                                               "share, Nash averaging, Alpha-Rank, Bradley-Terry")
    it.add_argument("game", choices=games.names())
    it.add_argument("--population", nargs="+", action="extend", metavar="SPEC",
                    help="policy specs (built-in names, NAME[weight=value,...], search agents "
                         "such as ismcts-100); default: the game's heuristics but random, its "
                         "shipped policies and its tuned weight variants")
    it.add_argument("--search", action="store_true",
                    help="add the game's search rung (GAME.agent.strong) to the population")
    it.add_argument("--players", type=int, default=4)
    it.add_argument("--games", type=int, default=INTRANSITIVITY_GAMES,
                    help=f"game indices per seating (default {INTRANSITIVITY_GAMES:,})")
    it.add_argument("--seed", type=int, default=0)
    km = sub.add_parser("kingmaking", help="does a player who cannot win decide who does? "
                                           "kingmaker decisions found by the forward model's "
                                           "evaluator, per player count, with intervals")
    km.add_argument("game", choices=games.names())
    km.add_argument("--players", type=int, nargs="+", default=[4])
    km.add_argument("--games", type=int, default=KINGMAKING_GAMES,
                    help=f"game indices per player count (default {KINGMAKING_GAMES})")
    km.add_argument("--policy", action="append",
                    help="the seats' policy (once: every seat; else one per seat); default "
                         "the game's distilled policy")
    for flag, kind, default, words in (
            ("--threshold", float, THRESHOLD, "the deciding seat's win probability below which "
                                              "it cannot win"),
            ("--swing", float, SWING, "the least change of another seat's win probability "
                                      "over the options"),
            ("--playouts", int, KINGMAKING_PLAYOUTS, "playouts per option of each of the two "
                                          "evaluations of a decision that passes the screens")):
        km.add_argument(flag, type=kind, default=default, help=f"{words} (default {default:g})")
    km.add_argument("--screens", default=",".join(map(str, SCREENS)), metavar="N,N,...",
                    help="playouts per option of the screens every decision passes in turn "
                         f"(default {','.join(map(str, SCREENS))}; 'none': every decision "
                         "evaluated in full)")
    km.add_argument("--seed", type=int, default=0)
    lv = sub.add_parser("leverage", help="decision leverage and accuracy: how much each "
                                         "decision of real games matters (best minus worst "
                                         "option) and what each policy gives away")
    lv.add_argument("game", choices=games.names())
    lv.add_argument("--players", type=int, default=4)
    lv.add_argument("--positions", type=int, default=LEVERAGE_POSITIONS,
                    help=f"decisions sampled (default {LEVERAGE_POSITIONS:,})")
    lv.add_argument("--per-game", type=int, default=PER_GAME,
                    help=f"decisions sampled per game (default {PER_GAME})")
    lv.add_argument("--policy", action="append",
                    help="one per seat, rotated over the games (default: the game's built-in "
                         "policies)")
    lv.add_argument("--playouts", type=int, default=PLAYOUTS,
                    help=f"playouts per option (default {PLAYOUTS})")
    lv.add_argument("--playout", help="the policy every seat plays out with (default: the "
                                      "game's search playout)")
    lv.add_argument("--seed", type=int, default=0)
    lv.add_argument("--threads", type=int, default=None)
    lv.add_argument("--rules", help="rules file")
    rs = sub.add_parser("restricted", help="restricted play: each probe's (never / always an "
                                           "option) change of the restricted seat's win rate, "
                                           "paired on the same games, at each skill rung")
    rs.add_argument("game", choices=games.names())
    rs.add_argument("--policy", default=None,
                    help="the policy every seat plays (default: the game's search playout "
                         "heuristic)")
    rs.add_argument("--rungs", default=None, metavar="A,B,...",
                    help="more policies to measure at (default: the game's shipped policies, "
                         "distilled; \"\": none); a search agent takes the horizon probes "
                         "only")
    rs.add_argument("--probe", action="append", metavar="NAME",
                    help="a probe to measure, e.g. never_witch (repeat; default: all)")
    rs.add_argument("--players", type=int, default=4)
    rs.add_argument("--games", type=int, default=RESTRICTED_GAMES,
                    help=f"game indices per probe and rung (default {RESTRICTED_GAMES:,}), "
                         f"each played with the restricted seat in every seat")
    rs.add_argument("--seed", type=int, default=0)
    rs.add_argument("--threads", type=int, default=None)
    la = sub.add_parser("ladder", help="the skill ladder: rungs against each other on shared "
                                       "seeds, a rating per rung, the x%%-chess weight of "
                                       "neighbouring rungs and the share of variance due to "
                                       "skill")
    la.add_argument("game", choices=games.names())
    la.add_argument("--agents", required=True, metavar="A,B,C",
                    help="the rungs, weakest first (policy specs; NAME-BUDGET is a family)")
    la.add_argument("--players", type=int, required=True)
    la.add_argument("--games", type=int, required=True, help="game indices per seating")
    la.add_argument("--seed", type=int, default=0)
    la.add_argument("--reference", help="the rung skill curves are measured against")
    la.add_argument("--threads", type=int)
    la.add_argument("--rotation", choices=ROTATIONS, default="within",
                    help="the one seat rotated within each game index (every seating on the "
                         "same indices) or across seat blocks of game indices (P x the indices "
                         "at the same cost)")
    la.add_argument("--out", help="folder for index.html, ladder.md, the plots and the results")
    lu = sub.add_parser("luck", help="luck by source: each chance source's share of the outcome "
                                     "variance, by drawing it anew with the others held")
    lu.add_argument("game", choices=games.names())
    lu.add_argument("--policy", action="append", required=True,
                    help="the table's policies, seated in turn (repeat; one fills every seat)")
    lu.add_argument("--players", type=int, required=True)
    lu.add_argument("--games", type=int, required=True, help="game indices")
    lu.add_argument("--seed", type=int, default=0)
    lu.add_argument("--source", action="append",
                    help="a chance source to measure (repeat; default: every one, and "
                         "'policies')")
    lu.add_argument("--boot", type=int, default=BOOT, help="bootstrap resamples")
    lu.add_argument("--threads", type=int)
    c = sub.add_parser("compare", help="A versus B on paired games")
    c.add_argument("game", choices=games.names())
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--field", nargs="*", default=[], help="policies of the other seats")
    c.add_argument("--games", type=int, default=4000, help="games (sequential: at most)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--sequential", action="store_true", help="stop as soon as decided (SPRT)")
    c.add_argument("--alpha", type=float, default=0.05)
    c.add_argument("--beta", type=float, default=0.05)
    c.add_argument("--delta", type=float, default=0.05,
                   help="win-share difference the SPRT should detect")
    sw = sub.add_parser("sweep", help="play rules variants on the same seeds (Dask) and print "
                                      "the start seat's win rate per variant and player count")
    sw.add_argument("game", choices=games.names())
    sw.add_argument("--vary", action="append", default=[], metavar="FIELD=V1,V2,...",
                    help="a rules value and the values to try (repeat: every combination)")
    sw.add_argument("--rules", action="append", default=[], metavar="FILE",
                    help="a rules file to try as a variant (repeat for several)")
    sw.add_argument("--policy", action="append", required=True,
                    help="built-in policies, seated in order and rotated")
    sw.add_argument("--players", type=int, nargs="+", required=True)
    sw.add_argument("--games", type=int, required=True, help="games per variant and seating")
    sw.add_argument("--seed", type=int, default=0)
    sw.add_argument("--scheduler", default=None,
                    help="Dask scheduler address (tcp://host:port); default: a local cluster; "
                         "'inprocess': no Dask")
    sw.add_argument("--out", help="Parquet dataset folder (a rerun resumes)")
    sw.add_argument("--chunk", type=int, default=CHUNK, help="games per task")
    so = sub.add_parser("solve", help="find the rules value that brings the start seat's win "
                                      "rate to a target (sequential, paired seeds)")
    so.add_argument("game", choices=games.names())
    so.add_argument("parameter", help="rules field, dots reach into a mapping "
                                      "(start_wands.first_player)")
    so.add_argument("--values", required=True, metavar="V1,V2,... or LO..HI",
                    help="the candidates: a list, or an integer range LO..HI")
    so.add_argument("--target", default="fair", help="a number or 'fair' (1/players)")
    so.add_argument("--tolerance", type=float, default=0.01)
    so.add_argument("--policy", action="append", required=True)
    so.add_argument("--players", type=int, required=True)
    so.add_argument("--seed", type=int, default=0)
    so.add_argument("--start-games", type=int, default=1_000)
    so.add_argument("--max-games", type=int, default=64_000)
    so.add_argument("--alpha", type=float, default=0.05,
                    help="error rate of the verified status (fresh seeds)")
    so.add_argument("--scheduler", default="inprocess",
                    help="as for sweep (default here: inprocess)")
    wi = sub.add_parser("whatif", help="serve the what-if page: change rules values in a "
                                       "browser, see the balance change")
    wi.add_argument("game", choices=games.names())
    wi.add_argument("--port", type=int, default=8765)
    wi.add_argument("--host", default="127.0.0.1", help="listen address (default 127.0.0.1)")
    wi.add_argument("--policy", action="append", help="built-in policies (default: all)")
    wi.add_argument("--players", type=int)
    wi.add_argument("--allow-host", action="append", metavar="NAME",
                    help="a host name the page also answers to, besides 127.0.0.1, localhost "
                         "and the --host address (for a page reached by a name)")
    wi.add_argument("--report", default="report", metavar="DIR",
                    help="a balance report folder to link each group of rules to (default: "
                         "report, where it exists)")
    df_ = sub.add_parser("diff", help="every balance metric under two rules sets on the same "
                                      "games, B - A with intervals; writes DIR/index.html")
    df_.add_argument("game", choices=games.names())
    df_.add_argument("a", help="rules file A ('default': the defaults)")
    df_.add_argument("b", help="rules file B ('default': the defaults)")
    df_.add_argument("--policy", action="append", required=True)
    df_.add_argument("--players", type=int, required=True)
    df_.add_argument("--games", type=int, required=True, help="games per seating")
    df_.add_argument("--seed", type=int, default=0)
    df_.add_argument("--scheduler", default="inprocess", help="as for sweep")
    df_.add_argument("--out", help="folder for the diff page (index.html)")
    df_.add_argument("--kingmaking", type=int, default=0, metavar="GAMES",
                     help="also compare the share of games with a kingmaker decision on this "
                          "many game indices (analyses.kingmaking; default 0: not compared)")
    df_.add_argument("--restricted", type=int, default=0, metavar="GAMES",
                     help="also compare each restricted-play probe's cost on this many game "
                          "indices (analyses.restricted; default 0: not compared)")
    df_.add_argument("--leverage", type=int, default=0, metavar="POSITIONS",
                     help="add decision leverage rows from this many decisions per rules set "
                          f"(e.g. {REPORT_POSITIONS:,}; default 0: none)")
    ro = sub.add_parser("robustness", help="every verdict under each alternative reading of the "
                                           "rules' guesses, on the same games: robust or "
                                           "depends on: ASSUMPTION")
    ro.add_argument("game", choices=games.names())
    ro.add_argument("--alt", action="append", metavar="RULES|KEY=VALUE[;KEY=VALUE]",
                    help="an alternative: a rules file, or rules values over the defaults "
                         "(a value may be JSON: characters=[\"inaba\",\"aoyama\"]); "
                         "repeat for several (default: the game's declared alternatives)")
    ro.add_argument("--policy", action="append",
                    help="the table, seated in order and rotated (default: the built-in "
                         "policies)")
    ro.add_argument("--players", type=int, default=4)
    ro.add_argument("--games", type=int, default=ROBUST_GAMES,
                    help=f"game indices per seating (default {ROBUST_GAMES:,})")
    ro.add_argument("--seed", type=int, default=0)
    ro.add_argument("--margin", type=float, default=MARGIN * 100,
                    help=f"equivalence margin in win-rate points (default {MARGIN * 100:g})")
    ro.add_argument("--causal-games", type=int, default=0,
                    help="also replay each thing switched off on this many game indices of "
                         "the table under every rules set: its causal effects re-measured "
                         "(default 0: not measured)")
    pr = sub.add_parser("precise", help="play until every win-rate interval is at most "
                                        "+-PRECISION wide (or --plan: how many games first)")
    pr.add_argument("game", choices=games.names())
    pr.add_argument("--policy", action="append", required=True, help="one per seat")
    pr.add_argument("--precision", type=float, required=True, help="half-width, 0.01 = 1 point")
    pr.add_argument("--by", nargs="+", default=["policy"], help="the table's groups")
    pr.add_argument("--seed", type=int, default=0)
    pr.add_argument("--max-games", type=int, default=10_000_000)
    pr.add_argument("--plan", action="store_true",
                    help="only say how many games (and seconds) it would take, from a pilot")
    di = sub.add_parser("distill", help="fit a fast policy to a search agent's play and write "
                                        "its weights file (resumable)")
    di.add_argument("game", choices=games.names())
    di.add_argument("--games", type=int, required=True, help="games with a search seat")
    di.add_argument("--seed", type=int, default=0)
    di.add_argument("--agent", default="ismcts-300", help="the search agent imitated")
    di.add_argument("--opponents", metavar="A,B,C",
                    help="built-in policies the search seat plays against, one per game in "
                         "turn (default: the game's strongest heuristics)")
    di.add_argument("--players", type=int, default=4)
    di.add_argument("--l2", type=float, default=1e-4, help="pull of the weights toward the "
                                                         "heuristic they start from")
    di.add_argument("--student", metavar="FILE",
                    help="a weights file whose policy plays the search seat while the search's "
                         "choices are recorded (DAgger: the positions the student meets)")
    di.add_argument("--out", required=True, help="the weights file (JSON)")
    di.add_argument("--positions", help="folder of the recorded positions (default: OUT's name "
                                        "with .positions)")
    im = sub.add_parser("improve", help="improve distilled weights by an evolution strategy "
                                        "against a field of heuristics, and check the gain on "
                                        "fresh games (resumable)")
    im.add_argument("game", choices=games.names())
    im.add_argument("--steps", type=int, required=True, help="steps of the evolution")
    im.add_argument("--start", metavar="FILE", help="the weights file it starts from "
                                                    "(default: the shipped distilled policy)")
    im.add_argument("--opponents", metavar="A,B,C",
                    help="built-in heuristics; a candidate plays one seat against copies of "
                         "each in turn (a name given twice weighs twice; default: the game's "
                         "strongest heuristics)")
    im.add_argument("--players", type=int, default=4)
    im.add_argument("--games", type=int, default=200,
                    help="game indices per opponent per candidate, each in every seat")
    im.add_argument("--population", type=int, default=16, help="antithetic pairs per step")
    im.add_argument("--sigma", type=float, default=0.1,
                    help="the perturbations' size, relative to each feature's weights")
    im.add_argument("--lr", type=float, default=0.05, help="Adam's step size")
    im.add_argument("--check-games", type=int, default=1000,
                    help="fresh game indices per opponent of the check against the start")
    im.add_argument("--seed", type=int, default=0)
    im.add_argument("--out", required=True, help="the weights file (JSON)")
    tu = sub.add_parser("tune", help="tune a heuristic's weights against a field (NTBEA), and "
                                     "check the gain over the untuned one on fresh games")
    tu.add_argument("game", choices=games.names())
    tu.add_argument("--base", default="careful", help="the heuristic to tune")
    tu.add_argument("--param", action="append", required=True,
                    metavar="NAME=LO:HI or NAME=V1,V2,...",
                    help="a weight and its range (tried at --levels steps) or values; repeat")
    tu.add_argument("--opponent", action="append",
                    help="the field's policies, cycled over the other seats (default: the "
                         "untuned base)")
    tu.add_argument("--players", type=int, default=4)
    tu.add_argument("--budget", type=int, default=100, help="evaluations")
    tu.add_argument("--games", type=int, default=25,
                    help="game indices per evaluation (each played in every seat)")
    tu.add_argument("--check-games", type=int, default=2000,
                    help="fresh game indices of the check (each played in every seat)")
    tu.add_argument("--levels", type=int, default=LEVELS, help="steps of a LO:HI range")
    tu.add_argument("--finalists", type=int, default=4,
                    help="the search's best points raced against the untuned weights")
    tu.add_argument("--final", type=int, default=10, help="evaluations of each finalist")
    tu.add_argument("--seed", type=int, default=0)
    return ap


def _rungs(values: list[str] | None) -> list[str] | dict[str, list[str]] | None:
    """``--rungs``: one list for every game (``A,B``), lists per game (``GAME=A,B``), or both
    (the plain list then serves the games not named)."""
    if not values:
        return None
    every, per = None, {}
    for text in values:
        game, sep, specs = text.partition("=")
        if not sep:
            if every is not None:
                raise ValueError(f"--rungs {text!r}: a list for every game is already given "
                                 f"({','.join(every)}); name the game: GAME=A,B,...")
            every = parse_rungs(text)
        elif game.strip() not in games.names():
            raise ValueError(f"--rungs {text!r}: unknown game {game.strip()!r}; games are "
                             f"{games.names()}")
        elif game.strip() in per:
            raise ValueError(f"--rungs {text!r}: rungs for {game.strip()} given twice")
        else:
            per[game.strip()] = parse_rungs(specs)
    if not per:
        return every
    return per if every is None else {g: per.get(g, every) for g in games.names()}


def _screens(text: str) -> list[int]:
    """``--screens``: playouts per option of each screen, or none."""
    if text == "none":
        return []
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"--screens takes playouts such as 4,32 or 'none', got {text!r}") \
            from None


def _params(items: list[str]) -> dict:
    """--param NAME=LO:HI (a range) or NAME=V1,V2,... (values)."""
    out: dict = {}
    for item in items:
        name, sep, spec = item.partition("=")
        lo, colon, hi = spec.partition(":")
        try:
            if not sep or not name or not spec:
                raise ValueError
            out[name.strip()] = ((float(lo), float(hi)) if colon
                                 else [float(v) for v in spec.split(",")])
        except ValueError:
            raise ValueError(f"--param {item!r}: write NAME=LO:HI or NAME=V1,V2,... "
                             f"with numbers") from None
    return out


def _candidates(text: str) -> list:
    lo, sep, hi = text.partition("..")
    if sep:
        a, b = _value(lo), _value(hi)
        if not isinstance(a, int) or not isinstance(b, int) or a > b:
            raise ValueError(f"--values {text!r}: an integer range is LO..HI with LO <= HI")
        return list(range(a, b + 1))
    return [_value(v) for v in text.split(",")]


def _value(text: str):
    """A rules value typed on the command line: an integer, a number, true/false or text."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _variants(vary: list[str], files: list[str]):
    grid = {}
    for item in vary:
        name, sep, values = item.partition("=")
        if not sep or not name or not values:
            raise ValueError(f"--vary {item!r}: write FIELD=V1,V2,...")
        grid[name.strip()] = [_value(v) for v in values.split(",")]
    if grid and files:
        return [*variants_of(grid), *variants_of(files)]
    if not grid and not files:
        raise ValueError("give --vary FIELD=V1,V2,... and/or --rules FILE")
    return variants_of(grid or files)


def _alternatives(items: list[str] | None) -> list | None:
    """--alt: a rules file, or KEY=VALUE pairs joined by ';' (a value is JSON where it parses,
    else read as ``_value``)."""
    if not items:
        return None
    out: list = []
    for item in items:
        if "=" not in item:
            out.append(item)                # a rules file (variants_of says if it is missing)
            continue
        changes = {}
        for pair in item.split(";"):
            key, _, text = pair.partition("=")
            if not key.strip() or not text.strip():
                raise ValueError(f"--alt {item!r}: write a rules file or KEY=VALUE[;KEY=VALUE]")
            try:
                changes[key.strip()] = json.loads(text)
            except json.JSONDecodeError:
                changes[key.strip()] = _value(text)
        out.append(changes)
    return out


def _run(args: argparse.Namespace) -> None:
    if args.command in ("ladder", "diff") and args.out:     # pages written after the games
        budget.check_destination(args.out, replaced=args.command == "ladder")
    if args.command == "balance":
        page = balance(args.out, args.games, args.players, args.seed, args.counterfactual_games,
                       rungs=_rungs(args.rungs), rung_games=args.rung_games,
                       search_games=args.search_games, ladder_games=args.ladder_games,
                       margin=args.margin / 100, robust_games=args.robust_games,
                       luck_games=args.luck_games, leverage_positions=args.leverage_positions,
                       kingmaking_games=args.kingmaking_games,
                       restricted_games=args.restricted_games)
        print(f"balance report: {page.resolve()}")
    elif args.command == "report":
        page = report(scan(args.results), args.out, args.rules)
        print(f"report: {page.resolve()}")
    elif args.command == "winrates":
        lf = scan(args.results)
        t = win_rates(lf, args.by)
        print(display.to_text(display.win_rates_table(display.named(t, detect_game(lf)),
                                                      args.by)))
        if caution := few_clusters(t["clusters"].min()):
            print(f"caution: {caution}")
    elif args.command == "seats":
        t = seat_advantage(scan(args.results), args.score)
        print(display.to_text(display.seats_table(t)))
        print("\n".join(display.seats_notes(t)))
    elif args.command == "diff":
        rules = [None if r == "default" else r for r in (args.a, args.b)]
        t = balance_diff(args.game, *rules, args.policy, args.players, args.games, args.seed,
                         scheduler=args.scheduler, leverage_positions=args.leverage,
                         kingmaking=args.kingmaking, restricted=args.restricted)
        print(display.to_text(t.sort("p_adj").select(
            "metric", "group", "a", "b", "diff", "ci_low", "ci_high", "p_adj", "significant")))
        if args.out:
            page = diff_page(t, args.out, f"Balance diff: {args.game}", args.a, args.b)
            print(f"diff page: {page.resolve()}")
    elif args.command == "robustness":
        r = robustness(args.game, _alternatives(args.alt), args.policy, args.players,
                       args.games, args.seed, margin=args.margin / 100,
                       causal_games=args.causal_games)
        print(f"{args.game}: {' | '.join(r.policies)} rotated, {r.n_games:,} game indices per "
              f"seating, seed {r.seed}; change under each alternative minus the defaults "
              f"(percentage points; * depends on it)")
        print(display.to_text(display.named(display.robustness_table(r), r.game)))
        for name, why in r.untested:
            print(f"not tested at {r.players} seats: {name} ({why})")
    elif args.command == "whatif":
        if not 1 <= args.port <= 65535:
            raise ValueError(f"port must be from 1 to 65535, got {args.port}")
        from .whatif import serve
        serve(args.game, args.host, args.port, args.policy, args.players, args.allow_host,
              args.report)
    elif args.command == "metrics":
        t = designer_metrics(scan(args.results), args.by)
        print(display.to_text(t.select(c for c in t.columns
                                       if not c.startswith("leader_wins_r"))))
        rounds = leader_table(t)
        if rounds.height:
            by = rounds.columns[:rounds.columns.index("round")]
            print("How often the leader after each round wins (tied leaders share; 95% Wilson):")
            print(display.to_text(rounds.select(*by, "round", "games", display.rate_ci(
                "leader_wins", "leader_wins_low", "leader_wins_high").alias("leader wins"))))
    elif args.command == "events":
        by = None if args.by == "none" else args.by
        lf = scan(args.results)
        t = event_impact(lf, by=by, adjust=args.adjust)
        print(display.to_text(display.events_table(display.named(t, detect_game(lf)))))
        print(f"p adj: {args.adjust} over one family, all {2 * t.height} tests of the table "
              f"(win and score); intervals cluster-robust, the unit is the game index")
    elif args.command == "tournament":
        t = tournament(args.game, args.policy, args.players, args.games, args.seed)
        print(display.to_text(display.head_to_head_table(t.matrix, t.ratings)))
    elif args.command == "intransitivity":
        r = intransitivity(args.game, args.population, args.players, args.games, args.seed,
                           search=args.search)
        print("Share of meetings each policy (row) finished ahead of each other one (95%, the "
              "game index the unit):")
        print(display.to_text(r.matrix))
        print(display.to_text(display.cycles_table(r.ratings)))
        print(r.text())
    elif args.command == "kingmaking":
        pol = args.policy[0] if args.policy and len(args.policy) == 1 else args.policy
        r = kingmaking(args.game, args.players, args.games, pol, args.threshold, args.swing,
                       args.playouts, args.seed, screens=_screens(args.screens),
                       progress=True if sys.stderr.isatty() else None)
        print(display.to_text(display.kingmaking_table(r.summary)))
        print(r.text())
    elif args.command == "leverage":
        lev = leverage(args.game, args.players, args.positions, args.policy, args.playouts,
                       args.seed, args.threads, rules=args.rules, per_game=args.per_game,
                       playout=args.playout, progress=True if sys.stderr.isatty() else None)
        print(display.to_text(display.leverage_table(lev.table)))
        print(display.to_text(display.accuracy_table(lev.accuracy)))
        print(f"{lev.headline()}. {lev.decisions.height:,} decisions of "
              f"{lev.decisions['game'].n_unique():,} games, {lev.playouts} playouts per option, "
              f"{lev.seconds:.0f} s; intervals 95%, the game index the unit")
    elif args.command == "restricted":
        r = restricted(args.game, args.players, args.policy, args.probe, args.games, args.seed,
                       None if args.rungs is None else
                       [x.strip() for x in args.rungs.split(",") if x.strip()],
                       threads=args.threads, progress=lambda line: print(line, flush=True))
        print(display.to_text(r.summary))
        print(display.to_text(r.table.select("rung", "label", "diff", "ci_low", "ci_high",
                                             "p_adj", "verdict")))
        print(f"{r.headline()} (win rate change of the restricted seat, paired on "
              f"{r.games:,} game indices, each in every seat; 95% t intervals, the game index "
              f"the unit; p Holm-adjusted over all {r.table.height} rows)")
    elif args.command == "distill":
        made = distill(args.game, args.games, args.seed, args.agent, args.out,
                       args.opponents.split(",") if args.opponents else None, args.players,
                       args.l2, args.positions, args.student)
        print(distill_summary(made, args.out))
    elif args.command == "improve":
        made = improve(args.game, args.steps, args.seed, args.out, start=args.start,
                       opponents=args.opponents.split(",") if args.opponents else None,
                       players=args.players, games_per=args.games, population=args.population,
                       sigma=args.sigma, lr=args.lr, check_games=args.check_games)
        print(improve_summary(made, args.out))
    elif args.command == "ladder":
        lad = ladder(args.game, [a.strip() for a in args.agents.split(",")], args.players,
                     args.games, args.seed, threads=args.threads, reference=args.reference,
                     rotation=args.rotation)
        print(lad.markdown(), end="")
        if args.out:
            print(f"ladder page: {lad.write(args.out).resolve()}")
    elif args.command == "luck":
        lk = luck_by_source(args.game, args.policy, args.players, args.games, args.seed,
                            sources=args.source, threads=args.threads, boot=args.boot)
        print(display.to_text(lk.readable()))
        print("\n".join(lk.text(o) for o in ("win", "margin")))
    elif args.command == "sweep":
        df = sweep(args.game, _variants(args.vary, args.rules), args.policy, args.players,
                   args.games, args.seed, scheduler=args.scheduler, out=args.out,
                   chunk=args.chunk)
        print(display.to_text(sweep_table(df)))
    elif args.command == "solve":
        target = args.target if args.target == "fair" else _value(args.target)
        sol = solve(args.game, args.parameter, _candidates(args.values), target,
                    policies=args.policy, players=args.players, tolerance=args.tolerance,
                    seed=args.seed, start_games=args.start_games, max_games=args.max_games,
                    alpha=args.alpha, scheduler=args.scheduler)
        print("search (chooses what to verify):")
        print(display.to_text(sol.history))
        print("verification on fresh seeds (sets the status):")
        print(display.to_text(sol.verification))
        print(sol.text())
    elif args.command == "precise" and args.plan:
        p = plan(args.game, args.policy, args.precision, seed=args.seed, by=args.by)
        print(f"about {p['games']:,} games, {p['seconds']:,.0f} s at this machine's speed "
              f"(a {p['pilot_games']:,}-game pilot gave +-{p['pilot_half_width']:.4f})")
    elif args.command == "precise":
        r = precise(args.game, args.policy, args.precision, seed=args.seed, by=args.by,
                    max_games=args.max_games)
        print(display.to_text(display.win_rates_table(display.named(r.table, args.game),
                                                      args.by)))
        print(f"{r.games:,} games: widest interval +-{r.half_width:.4f} "
              f"({'met' if r.met else 'not met within --max-games'})")
    elif args.command == "tune":
        print(tune(args.game, args.base, _params(args.param), opponents=args.opponent,
                   players=args.players, budget=args.budget, games=args.games,
                   check_games=args.check_games, levels=args.levels, seed=args.seed,
                   finalists=args.finalists, final=args.final))
    elif args.command == "compare":
        res = compare(args.game, args.a, args.b, field=args.field, n_games=args.games,
                      seed=args.seed, sequential=args.sequential, alpha=args.alpha,
                      beta=args.beta, delta=args.delta)
        table = res.table().drop("interval", "error_rates")
        print(display.to_text(table.transpose(include_header=True, header_name="field",
                                              column_names=["value"])
                              .with_columns(pl.col("value").cast(pl.String))))
        print(f"intervals: {res.interval}")
        if res.error_rates:
            print(f"decision error rates: {res.error_rates}")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)

    def interrupted() -> str:
        partial = partial_folder(args.out) if args.command == "balance" else None
        files = sorted(p.name for p in partial.glob("*.parquet")) if partial else []
        if not files:
            return ""
        return (f"the results finished so far are in {partial} ({', '.join(files)}); "
                f"{args.out} is unchanged")
    return run_main("analyses", lambda: _run(args), interrupted,
                    errors=(pl.exceptions.PolarsError,))
