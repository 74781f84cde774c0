"""The what-if page: change a rules value in a browser and see what it does to the balance.

``python -m analyses whatif GAME [--port N]`` serves one page (Starlette on uvicorn, on
127.0.0.1 unless told otherwise). The page shows the game's rules values as form controls; on
each change it asks the server for a run, and the server plays the default rules and the
changed rules on the same games (paired seeds, every seating rotation), a step of games at a
time, so the tables (each variant's start seat and policy win rates, the differences with 95%
intervals) come within a couple of seconds and sharpen as games arrive.

Nothing a request sends reaches a file or code: a change names a control the page offered and
a value of that control's type, which the game's own rules validation then checks; a bad value
gets its one-line message on the page. A run plays at most ``MAX_GAMES`` games per rules set;
each browser has one run at a time (a new change stops its previous run), and at most
``MAX_RUNS`` run at once.
"""
from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from simcore import budget, games
from simcore.summary import Z95

from .diff import paired
from .sweep import Task, Variant, apply_changes, play_task, seatings

STEP = 500
"""Games per step, per rules set and seating: the first tables arrive after one step."""
MAX_GAMES = 20_000
"""Games per rules set a run plays at most."""
MAX_RUNS = 2
MAX_BODY = 16_384
KEEP = ["variant", "seating", "game", "seat", "policy", "win"]
"""The columns a run keeps of each step's results (what its tables read), with the score."""
MAX_ABS = 1_000_000
"""No number beyond this magnitude is passed to the rules (they bound far lower anyway)."""


# ------------------------------------------------------------------ controls


def controls(spec: games.Game, rules: Any) -> list[dict]:
    """The form controls for a game's rules values: numbers, true/false, choices, and the
    members of a list to keep (the event deck, the roster). Board geometry and tile tables are
    not offered (a rules file changes those)."""
    data = spec.rules_data(rules)
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
    return out


def _typed(control: dict, value: Any) -> Any:
    """``value`` checked against the control's kind; a ValueError naming the control."""
    name, kind = control["name"], control["kind"]
    if kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{name}: expected true or false, got {value!r}")
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_ABS:
            raise ValueError(f"{name}: expected a whole number (at most {MAX_ABS:,} in size), "
                             f"got {value!r}")
    elif kind == "float":
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not abs(value) <= MAX_ABS):
            raise ValueError(f"{name}: expected a number, got {value!r}")
        value = float(value)
    elif kind == "choice":
        if value not in control["options"]:
            raise ValueError(f"{name}: expected one of {control['options']}, got {value!r}")
    elif (not isinstance(value, list) or not all(isinstance(x, str) for x in value)
          or not set(value) <= set(control["options"])):
        raise ValueError(f"{name}: expected a list of some of {control['options']}")
    return value


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
        raise ValueError(str(e)) from None


# ------------------------------------------------------------------ runs


@dataclass
class Run:
    game: str
    changes: dict
    policies: list[str]
    players: int
    games: int = 0
    done: bool = False
    error: str | None = None
    frames: list[pl.DataFrame] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def play(self, seed: int = 0) -> None:
        """Play steps of games for both rules sets until ``MAX_GAMES`` or told to stop."""
        try:
            base = Variant("default")
            what = Variant("what-if", changes=self.changes)
            score = pl.col(games.get(self.game).score).cast(pl.Float64)
            seats = seatings(self.policies, self.players)
            while self.games < MAX_GAMES and not self.stop.is_set():
                n = min(STEP, MAX_GAMES - self.games)
                for v in (base, what):
                    for s in seats:
                        df = play_task(Task(self.game, v, s, seed, self.games, n))
                        self.frames.append(df.select(*KEEP, score=score))
                self.games += n
        except Exception as e:          # shown on the page, one line
            self.error = str(e).splitlines()[0] if str(e) else type(e).__name__
        finally:
            self.done = True

    def tables(self) -> dict:
        n, frames = self.games, list(self.frames)      # a step in progress is left out
        if n == 0:
            return {}
        return page_tables(pl.concat(frames, rechunk=False).filter(pl.col("game") < n), n)


def tables(self) -> dict:
        n, frames = self.games, list(self.frames)      # a step in progress is left out
        if n == 0:
            return {}
        return page_tables(pl.concat(frames, rechunk=False).filter(pl.col("game") < n), n)


def _diff_rows(per: pl.DataFrame, key: list[str]) -> list[dict]:
    """Paired differences (what-if minus default) of per-game values with 95% intervals."""
    wide = per.pivot(on="variant", index=[*key, "game"], values="v")
    rows = []
    for k, part in wide.group_by(key, maintain_order=True):
        a, b = part["default"].to_numpy(), part["what-if"].to_numpy()
        d = b - a
        se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan")
        rows.append({**dict(zip(key, k)), "default": float(a.mean()),
                     "what_if": float(b.mean()), "diff": float(d.mean()),
                     "low": float(d.mean() - Z95 * se), "high": float(d.mean() + Z95 * se)})
    return rows


def page_tables(df: pl.DataFrame, n_games: int) -> dict:
    """What the page shows: the start seat's and each policy's win rate and mean score under
    both rules sets and their paired differences, each game index counted once (seatings
    averaged)."""
    parts = []
    for kind, col in (("win rate", "win"), ("mean score", "score")):
        seat = (df.filter(pl.col("seat") == 0).group_by("variant", "game")
                .agg(v=pl.col(col).cast(pl.Float64).mean()).with_columns(what=pl.lit(
                    "start seat")))
        pol = (df.group_by("variant", "policy", "game")
               .agg(v=pl.col(col).cast(pl.Float64).mean()).rename({"policy": "what"}))
        parts += [x.select("what", "variant", "game", "v").with_columns(kind=pl.lit(kind))
                  for x in (seat, pol)]
    per = pl.concat(parts)
    t = paired(per, ["kind", "what"], "default", "what-if")
    return {"games": n_games, "rows": t.select("kind", "what", "a", "b", "diff", "ci_low",
                                               "ci_high").to_dicts()}


class Runs:
    """The runs in flight: one per browser (a new change stops its previous one)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_client: dict[str, Run] = {}

    def start(self, client: str, run: Run) -> None:
        with self.lock:
            old = self.by_client.pop(client, None)
            if old is not None:
                old.stop.set()
            busy = sum(not r.done for r in self.by_client.values())
            if busy >= MAX_RUNS:
                raise ValueError("the server is busy with other runs; try again in a moment")
            self.by_client[client] = run
        threading.Thread(target=run.play, daemon=True).start()

    def get(self, client: str) -> Run | None:
        with self.lock:
            return self.by_client.get(client)


# ------------------------------------------------------------------ the app


def app(game: str, policies: list[str] | None = None, players: int | None = None):
    """The Starlette application for one game."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse
    from starlette.routing import Route

    spec = games.get(game)
    mod = spec.module()
    rules = mod.load_rules()
    policies = list(policies or sorted(mod.POLICIES))
    players = budget.check_players(spec, players or max(spec.players[0], min(4, spec.players[1])))
    runs = Runs()

    async def page(request: Request):
        return HTMLResponse(PAGE.replace("__TITLE__", spec.title))

    async def get_controls(request: Request):
        return JSONResponse({"game": spec.title, "policies": policies, "players": players,
                             "controls": controls(spec, rules), "max_games": MAX_GAMES})

    async def run(request: Request):
        body = await request.body()
        if len(body) > MAX_BODY:
            return JSONResponse({"error": "request too large"}, status_code=413)
        try:
            sent = json.loads(body or b"{}")
            if not isinstance(sent, dict):
                raise ValueError("send an object with 'client' and 'changes'")
            client = str(sent.get("client", ""))[:64] or "anonymous"
            changes = changes_of(spec, rules, sent.get("changes", {}))
            variant_rules(spec, rules, changes)        # refused here, before any game
            runs.start(client, Run(spec.name, changes, policies, players))
        except (ValueError, json.JSONDecodeError) as e:
            return JSONResponse({"error": str(e).splitlines()[0]}, status_code=400)
        return JSONResponse({"ok": True, "changes": changes})

    async def status(request: Request):
        r = runs.get(str(request.query_params.get("client", ""))[:64] or "anonymous")
        if r is None:
            return JSONResponse({"games": 0, "done": True, "rows": []})
        out = {"games": r.games, "done": r.done, "error": r.error, **r.tables()}
        return JSONResponse(out)

    return Starlette(routes=[Route("/", page), Route("/api/controls", get_controls),
                             Route("/api/run", run, methods=["POST"]),
                             Route("/api/status", status)])


def serve(game: str, host: str = "127.0.0.1", port: int = 8765,
          policies: list[str] | None = None, players: int | None = None) -> None:
    import uvicorn
    print(f"what-if page for {games.get(game).title}: http://{host}:{port}/", flush=True)
    uvicorn.run(app(game, policies, players), host=host, port=port, log_level="warning")


PAGE = """<!doctype html><html lang=en><head><meta charset=utf-8>
<title>What if: __TITLE__</title>
<style>
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1em 2em;color:#222}
#controls{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:.4em 1.2em}
label{font-size:13px} input[type=number]{width:6em} table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid #ddd;padding:3px 8px} th{background:#f0f4f8}
#error{color:#a50f15;font-weight:bold;min-height:1.2em} .sig{background:#fde0dd}
fieldset{border:1px solid #ddd;font-size:12px}
</style></head><body>
<h1>What if: __TITLE__</h1>
<p>Change a rules value: the default rules and yours play the same games (paired seeds, every
seat rotation); the differences are yours minus the default with 95% intervals, and sharpen as
games arrive. Shaded rows: the interval excludes 0.</p>
<div id=error role=alert></div>
<p id=progress>starting...</p>
<table id=results><thead><tr><th></th><th>of</th><th>default</th><th>what if</th>
<th>difference [95% CI]</th></tr></thead><tbody></tbody></table>
<h2>Rules values</h2><form id=controls></form>
<script>
const client = Math.random().toString(36).slice(2);
let timer = null, polling = null, controls = [];
const pct = x => (100 * x).toFixed(1) + '%';
const pts = x => (x >= 0 ? '+' : '') + (100 * x).toFixed(1);
function value(c) {
  const el = document.getElementById('c-' + c.name);
  if (c.kind === 'bool') return el.checked;
  if (c.kind === 'int') return el.value.trim() === '' ? null : Number(el.value);
  if (c.kind === 'float') return el.value.trim() === '' ? null : Number(el.value);
  if (c.kind === 'choice') return el.value;
  return [...el.querySelectorAll('input:checked')].map(i => i.value);
}
function build(list) {
  const form = document.getElementById('controls');
  for (const c of list) {
    let html;
    if (c.kind === 'bool') html = `<label><input type=checkbox id="c-${c.name}"
      ${c.value ? 'checked' : ''}> ${c.name}</label>`;
    else if (c.kind === 'choice') html = `<label>${c.name} <select id="c-${c.name}">` +
      c.options.map(o => `<option ${o === c.value ? 'selected' : ''}>${o}</option>`).join('') +
      '</select></label>';
    else if (c.kind === 'subset') html = `<fieldset id="c-${c.name}"><legend>${c.name}
      </legend>` + c.options.map(o => `<label><input type=checkbox value="${o}"
      ${c.value.includes(o) ? 'checked' : ''}>${o}</label> `).join('') + '</fieldset>';
    else html = `<label>${c.name} <input type=number id="c-${c.name}" value="${c.value}"
      step="${c.kind === 'int' ? 1 : 'any'}"></label>`;
    const div = document.createElement('div'); div.innerHTML = html; form.appendChild(div);
  }
  form.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(send, 300); });
}
async function send() {
  const changes = {};
  for (const c of controls) {
    const v = value(c);
    if (JSON.stringify(v) !== JSON.stringify(c.value)) changes[c.name] = v;
  }
  const r = await fetch('/api/run', {method: 'POST', headers: {'Content-Type':
    'application/json'}, body: JSON.stringify({client, changes})});
  const out = await r.json();
  document.getElementById('error').textContent = out.error || '';
  if (!out.error) { clearInterval(polling); polling = setInterval(poll, 400); }
}
async function poll() {
  const s = await (await fetch('/api/status?client=' + client)).json();
  if (s.error) document.getElementById('error').textContent = s.error;
  document.getElementById('progress').textContent =
    `${s.games.toLocaleString()} games per rules set` + (s.done ? ' (done)' : ' ...');
  const body = document.querySelector('#results tbody');
  body.innerHTML = (s.rows || []).map(r => {
    const win = r.kind === 'win rate', f = win ? pct : (x => x.toFixed(2));
    const d = win ? pts : (x => (x >= 0 ? '+' : '') + x.toFixed(2));
    return `<tr class="${r.ci_low > 0 || r.ci_high < 0 ? 'sig' : ''}"><td>${r.kind}</td>
    <td>${r.what}</td><td>${f(r.a)}</td><td>${f(r.b)}</td>
    <td>${d(r.diff)} [${d(r.ci_low)}, ${d(r.ci_high)}]${win ? ' points' : ''}</td></tr>`;
  }).join('');
  if (s.done) clearInterval(polling);
}
fetch('/api/controls').then(r => r.json()).then(d => { controls = d.controls;
  build(controls); send(); });
</script></body></html>
"""
