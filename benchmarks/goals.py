"""The speed goals (README, "Speed"; ``docs/benchmarks.md``), checked against a run's figures:
each goal gets its measured figure and True (met), False (missed), or None when this run did not
measure it (a section skipped, or a run too small for the goal, e.g. memory on fewer than 10M
games)."""
from __future__ import annotations

from .plan import GOAL_PLAYERS, game
from .userpolicy import NAME as USER_POLICY

REFERENCE_RATIO = 100
HEURISTIC_SLOWDOWN = 3
DISTILLED = "distilled"
DISTILLED_SLOWDOWN = 3
DISTILLED_RATE = 20_000
THREAD_SCALING = 1.8
WARM_S = 2.0
COLD_S = 30.0
MEMORY_GAMES = 10_000_000
MEMORY_MB = 2_000
PEER_RATIO = 10
SEARCH_GAME_S = 1.0
SEARCH_BUDGET = 1000


class _Run:
    """One game's records of a run, with the look-ups the goals need."""

    def __init__(self, res: dict, name: str):
        self.game, self.title = name, game(name).title
        self.tp = [r for r in res.get("throughput", []) if r["game"] == name]
        self.top = max((r["threads"] for r in self.tp), default=None)
        self.startup = [r for r in res.get("startup", []) if r["game"] == name]
        self.memory = next((r for r in res.get("memory", []) if r["game"] == name), None)
        self.peer = res.get("peer")
        self.peer_search = res.get("peer_search", [])
        self.agent = next((r for r in res.get("agents", []) if r["game"] == name
                           and r["agent"] == f"ismcts-{SEARCH_BUDGET}"), None)

    def compiled(self, threads, policy="random") -> list[dict]:
        return [r for r in self.tp if r["engine"] == "compiled" and r["policy"] == policy
                and r["n_players"] == GOAL_PLAYERS and r["threads"] == threads]

    def largest(self, threads) -> dict | None:
        """The largest-batch run of random players at the goal's player count."""
        return max(self.compiled(threads), key=lambda r: r["batch"], default=None)


def _goal(goal, target, value=None, figure="not measured", passed=None) -> dict:
    return {"goal": goal, "target": target, "value": value, "figure": figure, "passed": passed}


def _at(r: dict) -> str:
    return f"{r['threads']} thr, batch {r['batch']:,}"


def speed(run: _Run) -> dict:
    """Games/s against the game's declared goal (none declared: the figure, no verdict)."""
    target = game(run.game).speed_goal
    g = _goal(f"{run.title}, {GOAL_PLAYERS} random players",
              f">= {target:,} games/s" if target else "no goal declared")
    best = run.largest(run.top)
    if best:
        v = best["games_per_s"]
        g.update(value=v, figure=f"{v:,.0f} games/s ({_at(best)})",
                 passed=v >= target if target else None)
    return g


def reference(run: _Run) -> dict:
    g = _goal(f"{run.title}, {GOAL_PLAYERS} random players",
              f">= {REFERENCE_RATIO}x the reference (1 thread each)")
    one = run.largest(1)
    ref = next((r for r in run.tp if r["engine"] == "reference"), None)
    if one and ref:
        v = one["games_per_s"] / ref["games_per_s"]
        g.update(value=v, passed=v >= REFERENCE_RATIO,
                 figure=f"{v:,.0f}x ({one['games_per_s']:,.0f} vs {ref['games_per_s']:,.1f} "
                        f"games/s)")
    return g


def heuristic(run: _Run) -> dict:
    g = _goal(f"{run.title}, strongest heuristic", f"within {HEURISTIC_SLOWDOWN}x of random")
    heur = [r for r in run.tp if r["engine"] == "compiled" and r["threads"] == run.top
            and r["n_players"] == GOAL_PLAYERS
            and r["policy"] not in ("random", USER_POLICY, DISTILLED)]
    if heur:
        slow = min(heur, key=lambda r: r["games_per_s"])
        rand = next((r for r in run.compiled(run.top) if r["batch"] == slow["batch"]), None)
        if rand:
            v = rand["games_per_s"] / slow["games_per_s"]
            g.update(value=v, passed=v <= HEURISTIC_SLOWDOWN,
                     figure=f"{slow['policy']}: {v:.2f}x slower ({_at(slow)})")
    return g


def distilled(run: _Run) -> dict:
    """The distilled policy on one core: its games/s, and how much slower than the slowest
    heuristic timed beside it (same batch)."""
    g = _goal(f"{run.title}, distilled policy", f">= {DISTILLED_RATE:,} games/s per core, "
              f"within {DISTILLED_SLOWDOWN}x of the heuristics")
    d = next(iter(run.compiled(1, DISTILLED)), None)
    heur = [r for r in run.tp if r["engine"] == "compiled" and r["threads"] == 1
            and r["n_players"] == GOAL_PLAYERS and d and r["batch"] == d["batch"]
            and r["policy"] not in ("random", USER_POLICY, DISTILLED)]
    if d and heur:
        slow = min(heur, key=lambda r: r["games_per_s"])
        v = slow["games_per_s"] / d["games_per_s"]
        g.update(value=d["games_per_s"],
                 passed=d["games_per_s"] >= DISTILLED_RATE and v <= DISTILLED_SLOWDOWN,
                 figure=f"{d['games_per_s']:,.0f} games/s, {v:.2f}x slower than "
                        f"{slow['policy']} ({_at(d)})")
    return g


def threads(run: _Run) -> dict:
    g = _goal(f"{run.title}, 1 -> 2 threads", f">= {THREAD_SCALING}x")
    one, two = run.largest(1), run.largest(2)
    if one and two and one["batch"] == two["batch"]:
        v = two["games_per_s"] / one["games_per_s"]
        # each thread's games per CPU-second beside the other, against one thread alone: below
        # 100% when the cores ran slower with both busy (contention, or the machine)
        per_cpu = two["games_per_cpu_s"] / one["games_per_cpu_s"]
        g.update(value=v, passed=v >= THREAD_SCALING,
                 figure=f"{v:.2f}x (batch {two['batch']:,}; per CPU-second {per_cpu:.0%} of "
                        f"1 thread's)")
    return g


def start(run: _Run, kind: str) -> dict:
    limit = WARM_S if kind == "warm" else COLD_S
    g = _goal(f"{run.title}, {kind} start to first result", f"<= {limit:g} s")
    rec = next((r for r in run.startup if r["kind"] == kind), None)
    if rec:
        v = rec["first_result_s"]
        g.update(value=v, figure=f"{v:.2f} s (median of {rec['reps']})", passed=v <= limit)
    return g


def memory(run: _Run) -> dict:
    g = _goal(f"{run.title}, {MEMORY_GAMES // 1_000_000}M games streamed to Parquet",
              f"<= {MEMORY_MB / 1000:g} GB resident")
    mem = run.memory
    if mem:
        v = mem["peak_rss_mb"]
        g.update(value=v, figure=f"{v:,.0f} MB peak ({mem['n_games']:,} games)",
                 passed=v <= MEMORY_MB if mem["n_games"] >= MEMORY_GAMES else None)
    return g


def peer(run: _Run) -> dict:
    g = _goal(f"{run.title} vs OpenSpiel hearts from Python",
              f">= {PEER_RATIO}x its decisions/s per core")
    one = run.largest(1)
    if one and run.peer:
        v = one["decisions_per_s"] / run.peer["decisions_per_s"]
        g.update(value=v, passed=v >= PEER_RATIO,
                 figure=f"{v:,.1f}x ({one['decisions_per_s']:,.0f} vs "
                        f"{run.peer['decisions_per_s']:,.0f} decisions/s)")
    return g


def search_game(run: _Run) -> dict:
    g = _goal(f"{run.title}, one ISMCTS-{SEARCH_BUDGET} seat and {GOAL_PLAYERS - 1} heuristic "
              f"seats", f"<= {SEARCH_GAME_S:g} s per game on 1 thread")
    one = (run.agent or {}).get("threads_1")
    if one:
        v = one["s_per_game"]
        g.update(value=v, figure=f"{v:.2f} s per game ({one['games']} games)",
                 passed=v <= SEARCH_GAME_S)
    return g


def search_rate(run: _Run) -> dict:
    """A figure without a target: the search's iterations per CPU-second of one thread, beside
    OpenSpiel's ISMCTS where the peer ran (on leduc poker, a far smaller game)."""
    g = _goal(f"{run.title}, ISMCTS-{SEARCH_BUDGET} search iterations/s per core",
              "no goal: beside OpenSpiel's ISMCTS")
    if run.agent:
        v = run.agent["iterations_per_cpu_s"]
        peers = ", ".join(f"{r['bot']} {r['iterations_per_cpu_s']:,.0f}"
                          for r in run.peer_search)
        g.update(value=v, figure=f"{v:,.0f}" + (f" (OpenSpiel ISMCTS, leduc poker: {peers})"
                                                 if peers else ""))
    return g


def search_threads(run: _Run) -> dict:
    """Games/s over a long run (``agents.games``: each game's time alone against beside
    another), with the ratio of the few timed games' wall times beside it."""
    g = _goal(f"{run.title}, ISMCTS-{SEARCH_BUDGET} games from 1 to 2 threads",
              f">= {THREAD_SCALING:g}x games/s over a long run")
    two = (run.agent or {}).get("threads_2")
    if two:
        v = two["scaling"]
        g.update(value=v, passed=v >= THREAD_SCALING,
                 figure=f"{v:.2f}x ({two['games']} games: {two['wall_scaling']:.2f}x wall)")
    return g


def evaluate(res: dict) -> list[dict]:
    goals = []
    for name in res["games"]:
        run = _Run(res, name)
        goals += [speed(run), reference(run), heuristic(run), distilled(run), threads(run),
                  start(run, "warm"),
                  start(run, "cold"), memory(run), peer(run), search_game(run),
                  search_rate(run), search_threads(run)]
    return goals
