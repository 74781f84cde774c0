"""The what-if page: change a rules value in a browser and see what it does to the balance.

``python -m analyses whatif GAME [--port N]`` serves one page (Starlette on uvicorn, on
127.0.0.1 unless told otherwise). The page shows the game's rules values grouped as the
rulebook groups them, named and explained by the game's rules guide (``Game.rules_guide``); on
each change the server plays the default rules and the changed rules on the same games (paired
seeds, every seating rotation), a step of games at a time, so the differences (the start seat's
and each policy's win rate and mean score, with 95% intervals) come within a couple of seconds
and sharpen as games arrive.

A local page is still reachable by any web page the user visits, so the server answers only
requests that name it by a local host name (DNS rebinding) and come from its own page
(cross-site requests), reads at most ``MAX_BODY`` bytes of a body, and answers every bad
request, and every fault of its own, with one line (:class:`Guard`, :func:`read_json`).

Nothing a request sends reaches a file or code: a change names a control the page offered and
a value of that control's type, which the game's own rules validation then checks. A run plays
at most ``MAX_GAMES`` games per rules set; each browser (client id) has one run at a time, a new
change replacing the previous one; at most ``MAX_RUNS`` runs play at once; a run nobody has
watched for ``ABANDON_S`` seconds stops, and a finished run keeps only its tables.
"""
from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np
import polars as pl

from simcore import budget, games

from .diff import paired
from .leverage import REPORT_PLAYOUTS, REPORT_POSITIONS, leverage
from .sweep import Task, Variant, apply_changes, play_task, seatings

STEP = 500
"""Games per step, per rules set and seating: the first tables arrive after one step."""
MAX_GAMES = 20_000
"""Games per rules set a run plays at most."""
LEVERAGE_POSITIONS = REPORT_POSITIONS
"""Decisions the leverage headline measures per rules set, when the page asks for it."""
MAX_RUNS = 2
"""Runs that play at once, over all browsers."""
ABANDON_S = 30.0
"""A run whose page has not asked for its tables for this long stops (the page was left)."""
FORGET_S = 600.0
"""A finished run nobody has asked about for this long is forgotten."""
MAX_BODY = 16_384
"""Bytes of a request body the server reads at most."""
MAX_ABS = 1_000_000
"""No number beyond this magnitude is passed to the rules (they bound far lower anyway)."""
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
CLIENT = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Refused(ValueError):
    """A request the page answers with one line and an HTTP status other than 400."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def one_line(e: BaseException) -> str:
    """An exception as one line for a stranger's eyes: the first line, file paths shortened to
    their last part (a page must not show the server's folders)."""
    text = str(e).strip()
    line = text.splitlines()[0] if text else type(e).__name__
    line = re.sub(r"(?:[A-Za-z]:)?[\\/](?:[^\s'\"\\/:]+[\\/])+([^\s'\"\\/]*)", r"\1", line)
    return line[:300]


# ------------------------------------------------------------------ controls


def controls(spec: games.Game, rules: Any) -> list[dict]:
    """The form controls for a game's rules values: numbers, true/false, choices, and the
    members of a list to keep (the event deck, the roster), each with the label and one-line
    help of the game's rules guide, and the names people read for its ids. Board geometry and
    tile tables are not offered (a rules file changes those)."""
    data = spec.rules_data(rules)
    guide = {v["name"]: (g["id"], v) for g in games.rules_guide(spec) for v in g["values"]}
    names = games.display_names(spec)
    out: list[dict] = []

    def scalar(name: str, v: Any) -> dict | None:
        if isinstance(v, bool):
            return {"name": name, "kind": "bool", "value": v}
        if isinstance(v, (int, np.integer)):
            return {"name": name, "kind": "int", "value": int(v)}
        if isinstance(v, float):
            return {"name": name, "kind": "float", "value": v}
        if isinstance(v, str) and name in spec.choices:
            return {"name": name, "kind": "choice", "value": v,
                    "options": list(spec.choices[name])}
        return None

    for name, v in data.items():
        if name.startswith("players"):      # the page plays one player count of its own
            continue
        if isinstance(v, Mapping):
            out += [c for k, x in v.items() if (c := scalar(f"{name}.{k}", x)) is not None]
        elif isinstance(v, (list, tuple)) and v and all(isinstance(x, str) for x in v):
            out.append({"name": name, "kind": "subset", "value": list(v), "options": list(v)})
        elif (isinstance(v, (list, tuple)) and v
              and all(isinstance(x, Mapping) and "id" in x for x in v)):
            ids = [x["id"] for x in v]
            out.append({"name": name, "kind": "subset", "value": ids, "options": ids})
        elif (c := scalar(name, v)) is not None:
            out.append(c)
    for c in out:
        group, about = guide.get(c["name"], ("other", {}))
        c.update(group=group, label=about.get("label", c["name"]), help=about.get("help", ""),
                 names={o: names[o] for o in c.get("options", ()) if o in names}
                 | about.get("options", {}))
    return out


def grouped(spec: games.Game, rules: Any) -> list[dict]:
    """The controls in the rules guide's groups and order (values the guide does not name come
    last, under "Other rules values")."""
    offered = {c["name"]: c for c in controls(spec, rules)}
    out = []
    for g in games.rules_guide(spec):
        members = [offered.pop(v["name"]) for v in g["values"] if v["name"] in offered]
        if members:
            out.append({k: g.get(k, "") for k in ("id", "title", "about", "report")}
                       | {"controls": members})
    if offered:
        out.append({"id": "other", "title": "Other rules values", "about": "", "report": "",
                    "controls": list(offered.values())})
    return out


def _typed(control: dict, value: Any) -> Any:
    """``value`` checked against the control's kind; a ValueError naming the control."""
    name, kind = control["name"], control["kind"]
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{name}: expected true or false, got {_shown(value)}")
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_ABS:
            raise ValueError(f"{name}: expected a whole number (at most {MAX_ABS:,} in size), "
                             f"got {_shown(value)}")
    elif kind == "float":
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not abs(value) <= MAX_ABS):
            raise ValueError(f"{name}: expected a number, got {_shown(value)}")
        value = float(value)
    elif kind == "choice":
        if value not in control["options"]:
            raise ValueError(f"{name}: expected one of {control['options']}, got {_shown(value)}")
    elif (not isinstance(value, list) or not all(isinstance(x, str) for x in value)
          or not set(value) <= set(control["options"])):
        raise ValueError(f"{name}: expected a list of some of {control['options']}")
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def changes_of(spec: games.Game, rules: Any, request: Any) -> dict[str, Any]:
    """A request's changes, checked against the controls: ``{control name: value}``, where a
    subset control's value lists the members to keep."""
    if not isinstance(request, Mapping):
        raise ValueError("changes must be an object of control names and values")
    offered = {c["name"]: c for c in controls(spec, rules)}
    data = spec.rules_data(rules)
    out: dict[str, Any] = {}
    for name, value in request.items():
        if name not in offered:
            raise ValueError(f"{str(name)[:60]!r} is not a rules value this page offers")
        value = _typed(offered[name], value)
        if value == offered[name]["value"]:
            continue
        if offered[name]["kind"] == "subset":
            whole = data[name]
            keep = set(value)
            value = [x for x in whole if (x["id"] if isinstance(x, Mapping) else x) in keep]
            if whole and isinstance(whole[0], Mapping):
                value = [dict(x) for x in value]
        out[name] = value
    return out


def variant_rules(spec: games.Game, rules: Any, changes: Mapping[str, Any]) -> Any:
    """The rules with ``changes`` applied, validated by the game; ValueError otherwise."""
    try:
        return apply_changes(rules, changes)
    except (TypeError, KeyError) as e:
        raise ValueError(one_line(e)) from None


# ------------------------------------------------------------------ runs


@dataclass
class Run:
    """One client's comparison of the default rules and its changed ones."""

    game: str
    changes: dict
    policies: list[str]
    players: int
    games: int = 0
    done: bool = False
    error: str | None = None
    stopped: str | None = None
    """Why the run stopped before ``MAX_GAMES`` (replaced, abandoned, asked to)."""
    seen: float = field(default_factory=time.monotonic)
    frames: list[pl.DataFrame] = field(default_factory=list)
    final: dict | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)
    after: Run | None = None
    """The client's previous run: this one plays once that one has wound down."""
    leverage: bool = False
    """Measure the decision leverage headline under both rules sets (after the first step)."""
    leverage_text: dict | None = None

    def play(self, seed: int = 0) -> None:
        """Play steps of games for both rules sets until ``MAX_GAMES``, a stop, or nobody
        watching; then keep only the tables."""
        try:
            if self.after is not None:
                self.after.finished.wait()
                self.after = None
            spec = games.get(self.game)
            keep = ["variant", "seating", "game", "seat", "policy",
                    pl.col("win").cast(pl.Float64),
                    pl.col(spec.score).cast(pl.Float64).alias("score"),
                    *(pl.col(c).cast(pl.Float64) for c in spec.lengths)]
            base = Variant("default")
            what = Variant("what-if", changes=self.changes)
            seats = seatings(self.policies, self.players)
            while self.games < MAX_GAMES and not self._should_stop():
                n = min(STEP, MAX_GAMES - self.games)
                for v in (base, what):
                    for s in seats:
                        if self._should_stop():
                            return
                        df = play_task(Task(self.game, v, s, seed, self.games, n))
                        self.frames.append(df.select(keep))
                self.games += n
                if self.leverage and self.leverage_text is None:
                    self.leverage_text = self._leverage(seed, base, what)
        except Exception as e:          # shown on the page, one line
            self.error = one_line(e)
        finally:
            self.final = self.tables()
            self.frames = []
            self.done = True
            self.finished.set()

    def _leverage(self, seed: int, *variants: Variant) -> dict:
        """Each rules set's leverage headline (``analyses.leverage``, ``LEVERAGE_POSITIONS``
        decisions, the policies cycled over the seats)."""
        mod = games.get(self.game).module()
        seating = [self.policies[i % len(self.policies)] for i in range(self.players)]
        out = {}
        for v in variants:
            if self._should_stop():
                break
            out[v.label] = leverage(self.game, self.players, LEVERAGE_POSITIONS, seating,
                                    REPORT_PLAYOUTS, seed, threads=1,
                                    rules=v.rules(mod)).headline()
        return out

    def _should_stop(self) -> bool:
        if time.monotonic() - self.seen > ABANDON_S and self.stopped is None:
            self.stopped = f"stopped: the page did not ask for news for {ABANDON_S:.0f} s"
            self.stop.set()
        return self.stop.is_set()

    def tables(self) -> dict:
        if self.final is not None:
            return self.final
        n, frames = self.games, list(self.frames)      # a step in progress is left out
        if n == 0:
            return {}
        return page_tables(pl.concat(frames, rechunk=False).filter(pl.col("game") < n), n)


def page_tables(df: pl.DataFrame, n_games: int) -> dict:
    """What the page shows: the start seat's and each policy's win rate and mean score under
    both rules sets and their paired differences, each game index counted once (seatings
    averaged); and on how many game indices the change made any difference at all (a result,
    a score or a game's length)."""
    parts = []
    for kind, col in (("win rate", "win"), ("mean score", "score")):
        seat = (df.filter(pl.col("seat") == 0).group_by("variant", "game")
                .agg(v=pl.col(col).mean()).with_columns(what=pl.lit("start seat")))
        pol = (df.group_by("variant", "policy", "game")
               .agg(v=pl.col(col).mean()).rename({"policy": "what"}))
        parts += [x.select("what", "variant", "game", "v").with_columns(kind=pl.lit(kind))
                  for x in (seat, pol)]
    t = paired(pl.concat(parts), ["kind", "what"], "default", "what-if")
    key = ["seating", "game", "seat"]
    values = [c for c in df.columns if c not in (*key, "variant", "policy")]
    a, b = (df.filter(pl.col("variant") == v).sort(key) for v in ("default", "what-if"))
    differs = np.zeros(a.height, dtype=bool)
    for c in values:
        differs |= a[c].to_numpy() != b[c].to_numpy()
    changed = a.filter(pl.Series(differs))["game"].n_unique()
    return {"games": n_games, "changed_games": changed,
            "rows": t.select("kind", "what", "a", "b", "diff", "ci_low", "ci_high").to_dicts()}


class Busy(ValueError):
    """Every run slot is taken by other browsers."""


class Runs:
    """The runs of every client: one per client id, a new change replacing its previous run."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_client: dict[str, Run] = {}

    def start(self, client: str, run: Run) -> Run:
        """Start ``run`` for ``client`` (the same changes as its run in progress keep that one
        going); a :class:`Busy` error when ``MAX_RUNS`` other runs are playing."""
        with self.lock:
            self._forget()
            old = self.by_client.get(client)
            if old is not None and not old.done and not old.stop.is_set() \
                    and old.changes == run.changes:
                old.seen = time.monotonic()
                return old
            busy = sum(not r.done for c, r in self.by_client.items() if c != client)
            if busy >= MAX_RUNS:
                raise Busy(f"the server is busy: {busy} runs from other pages are playing (at "
                           f"most {MAX_RUNS} at once); try again when one has finished")
            if old is not None:
                old.stopped = old.stopped or "stopped: replaced by a newer change"
                old.stop.set()
                # a run still waiting for its own predecessor never plays: wait for that one
                run.after = old.after if old.after is not None and not old.after.done else old
            self.by_client[client] = run
        threading.Thread(target=run.play, daemon=True, name=f"whatif-{client}").start()
        return run

    def stop(self, client: str, why: str) -> None:
        with self.lock:
            run = self.by_client.get(client)
            if run is not None and not run.done:
                run.stopped = run.stopped or why
                run.stop.set()

    def get(self, client: str) -> Run | None:
        with self.lock:
            run = self.by_client.get(client)
            if run is not None:
                run.seen = time.monotonic()
            return run

    def live(self) -> int:
        """Runs not finished yet (those told to stop included, until they have)."""
        with self.lock:
            return sum(not r.done for r in self.by_client.values())

    def _forget(self) -> None:
        now = time.monotonic()
        for c in [c for c, r in self.by_client.items() if r.done and now - r.seen > FORGET_S]:
            del self.by_client[c]


# ------------------------------------------------------------------ the guard


def allowed_hosts(host: str, extra: list[str] | None = None) -> frozenset[str]:
    """The host names the server answers to: the local names, the address it listens on
    (unless that is every address) and any the user names."""
    names = set(LOCAL_HOSTS) | {h.lower().strip("[]") for h in (extra or [])}
    if host not in ("0.0.0.0", "::", ""):
        names.add(host.lower().strip("[]"))
    return frozenset(names)


def _hostname(netloc: str) -> str:
    try:
        return (urlsplit(f"//{netloc}").hostname or "").lower()
    except ValueError:
        return ""


def refusal(method: str, headers: Mapping[str, str], hosts: frozenset[str]) -> Refused | None:
    """Why a request must be refused before it reaches the page, or None. ``headers`` are
    lower-cased names."""
    host = headers.get("host", "")
    if _hostname(host) not in hosts:
        return Refused(403, f"this page answers only to {', '.join(sorted(hosts))}, not to "
                            f"Host {_shown(host)} (to serve another name: --allow-host NAME)")
    origin = headers.get("origin")
    if origin is not None:
        parts = urlsplit(origin) if origin != "null" else None
        if parts is None or parts.scheme != "http" or parts.netloc.lower() != host.lower():
            return Refused(403, f"a request from another site ({_shown(origin)}) is refused")
    if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return Refused(403, "a request from another site is refused")
    if method == "POST":
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return Refused(415, "send the request as application/json")
        size = headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
            return Refused(413, f"request too large (at most {MAX_BODY:,} bytes)")
    return None


class Guard:
    """ASGI middleware in front of the page: refuses foreign hosts, cross-site requests, bodies
    that are not JSON or too large (:func:`refusal`), and turns any fault of the server's own
    into a one-line 500 and one line on the console, never a traceback."""

    def __init__(self, app: Any, hosts: frozenset[str]):
        self.app, self.hosts = app, hosts

    async def __call__(self, scope, receive, send) -> None:
        from starlette.responses import JSONResponse
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope["headers"]}
        refused = refusal(scope["method"], headers, self.hosts)
        if refused is not None:
            await JSONResponse({"error": str(refused)}, refused.status)(scope, receive, send)
            return
        started = False

        async def watched(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as e:                     # the server's own fault: one line each
            print(f"what-if page: {scope['method']} {scope['path']}: {type(e).__name__}: "
                  f"{one_line(e)}", file=sys.stderr, flush=True)
            if not started:
                await JSONResponse({"error": "the server failed on this request (one line on "
                                             "its console says why)"}, 500)(scope, receive,
                                                                             send)


async def read_json(request: Any) -> Any:
    """The request's body as JSON, read no further than ``MAX_BODY`` bytes; a
    :class:`Refused` or ValueError with one line otherwise."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused(413, f"request too large (at most {MAX_BODY:,} bytes)")
    try:
        return json.loads(bytes(body) or b"{}")
    except RecursionError:
        raise ValueError("the request's JSON is nested too deeply") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"the request is not JSON ({one_line(e)})") from None


# ------------------------------------------------------------------ the app


def app(game: str, policies: list[str] | None = None, players: int | None = None,
        hosts: frozenset[str] = frozenset(LOCAL_HOSTS), report: str | Path | None = None):
    """The Starlette application for one game. ``report``: a balance report folder to serve
    under ``/report/`` and link each group of rules values to."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    spec = games.get(game)
    mod = spec.module()
    rules = mod.load_rules()
    policies = list(policies or sorted(mod.POLICIES))
    players = budget.check_players(spec, players or max(spec.players[0], min(4, spec.players[1])))
    report = Path(report) if report is not None else None
    linked = report is not None and (report / "index.html").is_file()
    runs = Runs()
    html = (resources.files("analyses").joinpath("whatif.html").read_text()
            .replace("__TITLE__", spec.title))

    def client_of(value: Any) -> str:
        if not isinstance(value, str) or not CLIENT.fullmatch(value):
            raise ValueError("client must be 1 to 64 letters, digits, '-' or '_'")
        return value

    def state(run: Run | None) -> dict:
        if run is None:
            return {"games": 0, "done": True, "changes": {}, "rows": []}
        return {"games": run.games, "done": run.done, "error": run.error,
                "stopped": run.stopped, "changes": run.changes, "leverage": run.leverage_text,
                **run.tables()}

    async def page(request: Request):
        return HTMLResponse(html)

    async def get_controls(request: Request):
        return JSONResponse({"game": spec.name, "title": spec.title, "policies": policies,
                             "players": players, "max_games": MAX_GAMES,
                             "report": f"/report/index.html#{spec.name}-" if linked else "",
                             "groups": grouped(spec, rules)})

    async def run(request: Request):
        try:
            sent = await read_json(request)
            if not isinstance(sent, dict):
                raise ValueError("send an object with 'client' and 'changes'")
            client = client_of(sent.get("client"))
            changes = changes_of(spec, rules, sent.get("changes", {}))
            if not changes:
                runs.stop(client, "stopped: no change from the default rules")
                return JSONResponse({"ok": True, "changes": {}})
            variant_rules(spec, rules, changes)        # refused here, before any game
            runs.start(client, Run(spec.name, changes, policies, players,
                                   leverage=sent.get("leverage") is True))
        except Refused as e:
            return JSONResponse({"error": str(e)}, status_code=e.status)
        except Busy as e:
            return JSONResponse({"error": str(e)}, status_code=429)
        except ValueError as e:
            return JSONResponse({"error": one_line(e)}, status_code=400)
        return JSONResponse({"ok": True, "changes": changes})

    async def stop(request: Request):
        try:
            sent = await read_json(request)
            if not isinstance(sent, dict):
                raise ValueError("send an object with 'client'")
            runs.stop(client_of(sent.get("client")), "stopped: the page was left")
        except Refused as e:
            return JSONResponse({"error": str(e)}, status_code=e.status)
        except ValueError as e:
            return JSONResponse({"error": one_line(e)}, status_code=400)
        return JSONResponse({"ok": True})

    async def status(request: Request):
        try:
            client = client_of(request.query_params.get("client"))
        except ValueError as e:
            return JSONResponse({"error": one_line(e)}, status_code=400)
        return JSONResponse(state(runs.get(client)))

    routes = [Route("/", page), Route("/api/controls", get_controls),
              Route("/api/run", run, methods=["POST"]),
              Route("/api/stop", stop, methods=["POST"]),
              Route("/api/status", status)]
    if linked:
        routes.append(Mount("/report", StaticFiles(directory=report, html=True)))
    application = Starlette(routes=routes, middleware=[Middleware(Guard, hosts=hosts)])
    application.state.runs = runs
    return application


def serve(game: str, host: str = "127.0.0.1", port: int = 8765,
          policies: list[str] | None = None, players: int | None = None,
          allow_hosts: list[str] | None = None, report: str | Path | None = "report") -> None:
    import uvicorn
    application = app(game, policies, players, allowed_hosts(host, allow_hosts), report)
    shown = f"[{host}]" if ":" in host else host
    print(f"what-if page for {games.get(game).title}: http://{shown}:{port}/", flush=True)
    uvicorn.run(application, host=host, port=port, log_level="warning")
