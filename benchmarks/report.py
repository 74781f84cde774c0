"""A run's figures as markdown tables (printed, and for the README) and as a plot."""
from __future__ import annotations

from pathlib import Path

from .agents import FIELD
from .plan import GOAL_PLAYERS, game as game_of

STATUS = {True: "PASS", False: "**FAIL**", None: "n/a"}


def _rate(r: dict, key: str) -> str:
    return f"{r[key]:,.0f} ({r[key + '_min']:,.0f}-{r[key + '_max']:,.0f})"


def _secs(r: dict, key: str) -> str:
    return f"{r[key]:.2f} ({r[key + '_min']:.2f}-{r[key + '_max']:.2f})"


def _table(head: list[str], rows: list[list]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(map(str, row)) + " |" for row in rows), ""]


def _per_game(r: dict, threads: int) -> str:
    g = r.get(f"threads_{threads}")
    return f"{g['s_per_game']:.2f} ({g['games']} games)" if g else ""


def _scaling(r: dict) -> str:
    g = r.get("threads_2")
    return f"{g['scaling']:.2f}x ({g['wall_scaling']:.2f}x)" if g else ""


def markdown(res: dict) -> str:
    m = res["machine"]
    out = [f"Command: `{res['command']}` ({res['mode']} mode, seed {res['seed']})  ",
           (f"Run: {res['started_utc']} UTC, {res['wall_s']:.0f} s; load average "
            f"{res['load_start']} at start, {res['load_end']} at end (shared machine)  "),
           (f"Machine: {m['cpu']}, {m['cores']} cores ({m['numba_threads']} numba threads), "
            f"{m['memory_gb']} GB; Python {m['python']}, "
            + ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v)
            + f"; commit {m['commit']}"), "",
           "Figures are the median of the repetitions, (min-max) beside them.", "",
           "## Goals", ""]
    out += _table(["goal", "target", "measured", "status"],
                  [[g["goal"], g["target"], g["figure"], STATUS[g["passed"]]]
                   for g in res["goals"]])
    if res["throughput"]:
        out += ["## Throughput", ""]
        out += _table(["game", "engine", "policy", "players", "threads", "batch", "games/s",
                       "decisions/s", "games per CPU-s", "load"],
                      [[r["game"], r["engine"], r["policy"], r["n_players"], r["threads"],
                        f"{r['batch']:,}", _rate(r, "games_per_s"), _rate(r, "decisions_per_s"),
                        f"{r['games_per_cpu_s']:,.0f}", r["load"]] for r in res["throughput"]])
    peers = res.get("peer_search", [])
    if res.get("agents") or peers:
        out += [f"## Search agents ({GOAL_PLAYERS} players; games: one agent seat, the others "
                f"{FIELD})", ""]
        out += _table(["game", "agent", "search decisions/s", "iterations/s per core",
                       "s/game, 1 thread", "s/game, 2 threads",
                       "1 -> 2 threads, long run (wall)", "load"],
                      [[r["game"], r["agent"], f"{r['decisions_per_s']:,.1f}",
                        _rate(r, "iterations_per_cpu_s"), _per_game(r, 1), _per_game(r, 2),
                        _scaling(r), r["load"]] for r in res.get("agents", [])]
                      + [[f"{r['game']} (peer)", f"{r['agent']}, {r['bot']} "
                          f"(`{r['class']}`)", f"{r['decisions_per_s']:,.1f}",
                          _rate(r, "iterations_per_cpu_s"), "", "", "", r["load"]]
                         for r in peers])
        if peers:
            out += [f"Peer rows: OpenSpiel {peers[0]['version']}, one thread, each iteration a "
                    "random rollout. The games differ: leduc poker ends within a few actions, "
                    "while an iteration of ours replays the position's turn and plays a board "
                    "game on with heuristic playouts.", ""]
    if res["startup"]:
        out += ["## Start-up (fresh interpreter, s)", ""]
        out += _table(["game", "cache", "import to first result", "process",
                       "compile user policy", "its first result", "load"],
                      [[r["game"], r["kind"], _secs(r, "first_result_s"), _secs(r, "process_s"),
                        _secs(r, "user_policy_compile_s"), _secs(r, "user_first_result_s"),
                        r["load"]] for r in res["startup"]])
    if res["memory"]:
        out += ["## Memory (games streamed to Parquet, fresh interpreter)", ""]
        out += _table(["game", "games", "peak RSS MB", "RSS before MB", "peak by half-way MB",
                       "games/s", "Parquet MB", "load"],
                      [[r["game"], f"{r['n_games']:,}", f"{r['peak_rss_mb']:,.0f}",
                        f"{r['base_rss_mb']:,.0f}", f"{r['half_peak_rss_mb']:,.0f}",
                        f"{r['games_per_s']:,.0f}",
                        f"{r['parquet_mb']:,.0f}", r["load"]] for r in res["memory"]])
    if res["peer"]:
        p = res["peer"]
        out += ["## Peer: OpenSpiel hearts, random rollouts driven from Python, 1 thread", ""]
        out += _table(["open_spiel", "games", "games/s", "steps/s (chance included)",
                       "decisions/s", "load"],
                      [[p["version"], f"{p['batch']:,}", _rate(p, "games_per_s"),
                        _rate(p, "steps_per_s"), _rate(p, "decisions_per_s"), p["load"]]])
    if res["notes"]:
        out += ["## Notes", ""] + [f"- {n}" for n in res["notes"]] + [""]
    return "\n".join(out)


def plot(res: dict, path: Path) -> None:
    """Games/s against batch size, one line per thread count, the reference dashed; log axes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = res["games"]
    fig, axes = plt.subplots(1, len(games), figsize=(5.5 * len(games), 4.2), squeeze=False)
    for ax, game in zip(axes[0], games):
        runs = [r for r in res["throughput"] if r["game"] == game and r["policy"] == "random"
                and r["n_players"] == GOAL_PLAYERS]
        for t in sorted({r["threads"] for r in runs if r["engine"] == "compiled"}):
            line = sorted((r for r in runs if r["engine"] == "compiled" and r["threads"] == t),
                          key=lambda r: r["batch"])
            x = [r["batch"] for r in line]
            y = [r["games_per_s"] for r in line]
            err = [[r["games_per_s"] - r["games_per_s_min"] for r in line],
                   [r["games_per_s_max"] - r["games_per_s"] for r in line]]
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=f"compiled, {t} thread(s)")
        for r in (r for r in runs if r["engine"] == "reference"):
            ax.axhline(r["games_per_s"], ls="--", color="grey",
                       label=f"reference engine ({r['batch']:,} games)")
        ax.set(xscale="log", yscale="log", xlabel="batch size (games per call)",
               ylabel="games/s", title=f"{game_of(game).title}, {GOAL_PLAYERS} random players")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"{res['machine']['cpu']}, {res['machine']['cores']} cores "
                 f"({res['mode']} run {res['started_utc']} UTC; bars: min-max)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
