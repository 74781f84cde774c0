"""The what-if page: its controls and guide, hostile requests over HTTP and raw sockets, runs
that never pile up, and a real browser changing values."""
import json
import shutil
import socket
import threading
import time

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analyses import whatif
from analyses.whatif import (MAX_BODY, allowed_hosts, app, changes_of, controls, grouped,
                             one_line, page_tables, refusal)
from simcore import games

starlette = pytest.importorskip("starlette")
uvicorn = pytest.importorskip("uvicorn")
from starlette.testclient import TestClient  # noqa: E402

LOCAL = "http://127.0.0.1:8765"


def test_controls_offer_numbers_choices_switches_and_lists():
    spec = games.get("bloomsim")
    kinds = {c["name"]: c["kind"] for c in controls(spec, spec.module().load_rules())}
    assert kinds["enchanted_penalty"] == "int" and kinds["start_wands.first_player"] == "int"
    assert kinds["next_start_player"] == "choice" and kinds["druid_needs_terrain"] == "bool"
    assert kinds["events"] == "subset" and "board" not in kinds and "players.min" not in kinds
    spec = games.get("rapinsim")
    kinds = {c["name"]: c["kind"] for c in controls(spec, spec.module().load_rules())}
    assert kinds["coffee_ends_turn"] == "bool" and kinds["characters"] == "subset"


@pytest.mark.parametrize("game", ["bloomsim", "rapinsim"])
def test_every_control_is_named_explained_and_grouped_by_the_guide(game):
    spec = games.get(game)
    rules = spec.module().load_rules()
    groups = grouped(spec, rules)
    assert [g["id"] for g in groups] == [g["id"] for g in games.rules_guide(spec)]
    named = [c for g in groups for c in g["controls"]]
    assert sorted(c["name"] for c in named) == sorted(c["name"] for c in controls(spec, rules))
    for c in named:
        assert c["label"] != c["name"] and c["help"] and "\n" not in c["help"], c["name"]
        assert set(c["names"]) <= set(c.get("options", ())), c["name"]
    guide = {v["name"] for g in games.rules_guide(spec) for v in g["values"]}
    assert guide <= {c["name"] for c in named}, "the guide names a value the rules lack"


def test_a_subset_keeps_the_members_asked_for():
    spec = games.get("bloomsim")
    rules = spec.module().load_rules()
    ids = list(rules.event_ids)
    got = changes_of(spec, rules, {"events": ids[1:], "enchanted_penalty": rules.enchanted_penalty})
    assert [e["id"] for e in got["events"]] == ids[1:]
    assert "enchanted_penalty" not in got            # unchanged values are no change


def test_one_line_hides_the_servers_folders():
    e = ValueError("rules from /home/ann/secret/rules.toml: bad value\nmore")
    assert one_line(e) == "rules from rules.toml: bad value"
    assert one_line(KeyError()) == "KeyError"


@pytest.mark.parametrize("method, headers, status", [
    ("GET", {"host": "evil.example.com"}, 403),
    ("GET", {"host": "evil.example.com:8765"}, 403),
    ("GET", {}, 403),
    ("POST", {"host": "127.0.0.1:8765", "origin": "http://evil.example.com",
              "content-type": "text/plain"}, 403),
    ("POST", {"host": "127.0.0.1:8765", "origin": "http://evil.example.com",
              "content-type": "application/json"}, 403),
    ("POST", {"host": "127.0.0.1:8765", "origin": "http://127.0.0.1:9999",
              "content-type": "application/json"}, 403),
    ("POST", {"host": "127.0.0.1:8765", "origin": "null", "content-type": "application/json"},
     403),
    ("POST", {"host": "127.0.0.1:8765", "sec-fetch-site": "cross-site",
              "content-type": "application/json"}, 403),
    ("POST", {"host": "127.0.0.1:8765", "content-type": "text/plain"}, 415),
    ("POST", {"host": "127.0.0.1:8765", "content-type": "application/json",
              "content-length": "300000000"}, 413),
    ("POST", {"host": "localhost:8765", "origin": "http://localhost:8765",
              "content-type": "application/json; charset=utf-8"}, None),
    ("GET", {"host": "[::1]:8765"}, None),
])
def test_the_guard_refuses_foreign_hosts_other_sites_and_big_bodies(method, headers, status):
    got = refusal(method, headers, allowed_hosts("127.0.0.1"))
    assert (got and got.status) == status
    if got is not None:
        assert "\n" not in str(got)


def test_allowed_hosts_add_the_listening_address_and_named_hosts_only():
    assert "0.0.0.0" not in allowed_hosts("0.0.0.0")
    assert {"192.168.1.5", "board.local"} <= allowed_hosts("192.168.1.5", ["Board.local"])


@pytest.fixture(scope="module")
def client():
    return TestClient(app("bloomsim", policies=["greedy", "careful"], players=2), base_url=LOCAL)


@pytest.mark.parametrize("changes, message", [
    ({"enchanted_penalty": 10**30}, "whole number"),
    ({"enchanted_penalty": "3; rm -rf /"}, "whole number"),
    ({"enchanted_penalty": 2.5}, "whole number"),
    ({"../../etc/passwd": 1}, "not a rules value this page offers"),
    ({"__class__": {"x": 1}}, "not a rules value"),
    ({"next_start_player": "/etc/shadow"}, "expected one of"),
    ({"events": ["no_such_event"]}, "a list of some of"),
    ({"druid_needs_terrain": "yes"}, "true or false"),
    ({"hand_size": 99}, "hand_size"),                    # the game's own validation
    ([1, 2, 3], "object of control names"),
])
def test_hostile_or_bad_values_get_one_line_and_play_nothing(client, changes, message):
    r = client.post("/api/run", json={"client": "t", "changes": changes})
    assert r.status_code == 400
    err = r.json()["error"]
    assert message in err and "\n" not in err and "Traceback" not in err
    assert client.app.state.runs.live() == 0


@pytest.mark.parametrize("body, status, said", [
    (b"[]", 400, "an object"),
    (b"not json", 400, "not JSON"),
    (b"\xff\xfe", 400, "not JSON"),
    (b"x" * (MAX_BODY + 1), 413, "too large"),
    (b"[" * 8000 + b"]" * 8000, 400, "nested too deeply"),
    (b'{"client": "a b", "changes": {}}', 400, "client must be"),
    (b'{"client": 7, "changes": {}}', 400, "client must be"),
])
def test_bodies_that_are_not_objects_too_big_or_too_deep_get_one_line(client, body, status,
                                                                      said, capfd):
    r = client.post("/api/run", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status
    assert said in r.json()["error"] and "\n" not in r.json()["error"]
    assert capfd.readouterr().err == ""


def test_a_fault_of_the_server_is_one_line_on_the_page_and_on_the_console(monkeypatch, capfd):
    def broken(*a):
        raise RuntimeError("/srv/secret/place failed\nline two")
    monkeypatch.setattr(whatif, "grouped", broken)
    c = TestClient(app("bloomsim", policies=["greedy"], players=2), base_url=LOCAL,
                   raise_server_exceptions=False)
    r = c.get("/api/controls")
    assert r.status_code == 500 and "\n" not in r.json()["error"]
    err = capfd.readouterr().err.strip().splitlines()
    assert err == ["what-if page: GET /api/controls: RuntimeError: place failed"]


def test_a_change_plays_paired_games_and_reports_differences(client):
    assert client.post("/api/run", json={"client": "p", "changes": {"enchanted_penalty": 6}}
                       ).json()["ok"]
    s = _wait(lambda: (x := client.get("/api/status", params={"client": "p"}).json())["games"]
              >= 1000 and x)
    rows = {(r["kind"], r["what"]): r for r in s["rows"]}
    assert {(k, w) for k in ("win rate", "mean score") for w in ("start seat", "greedy",
                                                                  "careful")} == set(rows)
    assert s["error"] is None and s["changes"] == {"enchanted_penalty": 6}
    assert 0 < s["changed_games"] <= s["games"]
    g = rows[("mean score", "greedy")]
    assert g["ci_low"] <= g["diff"] <= g["ci_high"] < 0   # a heavier penalty costs points
    assert abs(g["diff"] - (g["b"] - g["a"])) < 1e-9
    client.post("/api/run", json={"client": "p", "changes": {}})   # stops the run
    _wait(lambda: client.app.state.runs.live() == 0)


def test_a_rule_no_policy_reaches_is_reported_as_changing_no_game():
    c = TestClient(app("rapinsim", players=4), base_url=LOCAL)
    assert c.post("/api/run", json={"client": "i", "changes": {"inaba_can_win_on_count": True}}
                  ).json()["ok"]
    s = _wait(lambda: (x := c.get("/api/status", params={"client": "i"}).json())["games"]
              >= 500 and x)
    assert s["changed_games"] == 0 and all(r["diff"] == 0 for r in s["rows"])
    c.post("/api/stop", json={"client": "i"})
    _wait(lambda: c.app.state.runs.live() == 0)


def test_page_tables_count_the_games_a_change_touched():
    rows = [{"variant": v, "seating": "a|b", "game": g, "seat": s, "policy": "ab"[s],
             "win": float(s == 0), "score": 10.0 + (v == "what-if" and g == 1 and s == 1),
             "decisions": 50.0} for v in ("default", "what-if") for g in range(3)
            for s in range(2)]
    t = page_tables(pl.DataFrame(rows), 3)
    assert t["games"] == 3 and t["changed_games"] == 1


def _wait(ok, seconds=120.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if got := ok():
            return got
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_quick_changes_replace_each_other_and_never_pile_up():
    a = app("bloomsim", policies=["greedy", "careful"], players=2)
    c, runs = TestClient(a, base_url=LOCAL), a.state.runs
    most = 0
    for k in range(300):
        r = c.post("/api/run", json={"client": "q", "changes": {"enchanted_penalty": k % 7 + 4}})
        assert r.status_code == 200, r.text
        most = max(most, runs.live())
    assert most <= 2
    last = runs.by_client["q"]
    assert last.changes == {"enchanted_penalty": 299 % 7 + 4}
    _wait(lambda: last.games >= 500)
    c.post("/api/stop", json={"client": "q"})
    _wait(lambda: last.done)
    assert last.frames == [] and last.tables()["games"] >= 500     # only the tables are kept


def test_other_pages_are_told_the_server_is_busy_and_a_left_page_frees_its_run(monkeypatch):
    monkeypatch.setattr(whatif, "ABANDON_S", 1.0)
    a = app("bloomsim", policies=["greedy", "careful"], players=2)
    c, runs = TestClient(a, base_url=LOCAL), a.state.runs
    for who in ("one", "two"):
        assert c.post("/api/run", json={"client": who, "changes": {"hand_size": 3}}).json()["ok"]
    r = c.post("/api/run", json={"client": "three", "changes": {"hand_size": 3}})
    assert r.status_code == 429 and "busy" in r.json()["error"]
    _wait(lambda: runs.live() == 0, 60)            # nobody polls: both runs stop by themselves
    assert all("did not ask" in runs.by_client[w].stopped for w in ("one", "two"))
    assert c.post("/api/run", json={"client": "three", "changes": {"hand_size": 3}}).json()["ok"]
    c.post("/api/stop", json={"client": "three"})
    _wait(lambda: runs.live() == 0)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=20), kids,
                                                              max_size=5), max_leaves=30)
names = st.sampled_from(["enchanted_penalty", "events", "hand_size", "next_start_player",
                         "druid_needs_terrain", "start_wands.others"]) | st.text(max_size=10)
bodies = (json_values
          | st.fixed_dictionaries({"client": st.text(max_size=70) | json_values,
                                   "changes": st.dictionaries(names, json_values, max_size=3)
                                   | json_values}))


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=bodies)
def test_random_json_bodies_get_one_line_answers_and_leave_the_server_alive(client, body):
    r = client.post("/api/run", content=json.dumps(body).encode(),
                    headers={"content-type": "application/json"})
    if r.status_code != 200:
        assert 400 <= r.status_code < 500
        assert "\n" not in r.json()["error"]
    client.app.state.runs.stop(body["client"] if r.status_code == 200 else "", "test")
    assert client.get("/api/controls").status_code == 200


# ------------------------------------------------------------------ a real server


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    application = app("bloomsim", policies=["greedy", "careful"], players=2)
    srv = uvicorn.Server(uvicorn.Config(application, host="127.0.0.1", port=port,
                                        log_level="warning"))
    threading.Thread(target=srv.run, daemon=True).start()
    _wait(lambda: srv.started, 30)
    yield port, application.state.runs
    srv.should_exit = True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _raw(port: int, head: str, body: bytes = b"") -> tuple[int, str]:
    """Send a request as bytes (its head may promise more body than it sends); the status and
    body of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
        data = b""
        while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < _length(data):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head_, _, rest = data.partition(b"\r\n\r\n")
    return int(head_.split()[1]), rest.decode()


def _length(data: bytes) -> int:
    for line in data.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":")[1])
    return 0


def test_raw_requests_with_a_foreign_host_or_origin_start_nothing(server):
    port, runs = server
    body = json.dumps({"client": "evil", "changes": {"hand_size": 3}}).encode()
    for head in (f"POST /api/run HTTP/1.1\nHost: evil.example.com:{port}\n",
                 f"POST /api/run HTTP/1.1\nHost: 127.0.0.1:{port}\nOrigin: "
                 f"http://evil.example.com\n"):
        for kind in ("application/json", "text/plain"):
            status, text = _raw(port, f"{head}Content-Type: {kind}\nContent-Length: "
                                      f"{len(body)}\nConnection: close\n", body)
            assert status == 403 and "\n" not in json.loads(text)["error"]
    assert "evil" not in runs.by_client


def test_a_huge_body_is_refused_before_it_is_read(server):
    port, _ = server
    status, text = _raw(port, f"POST /api/run HTTP/1.1\nHost: 127.0.0.1:{port}\n"
                              f"Content-Type: application/json\nContent-Length: 300000000\n"
                              f"Connection: close\n", b"{")
    assert status == 413 and "too large" in text
    chunks = b"".join(b"2100\r\n" + b" " * 0x2100 + b"\r\n" for _ in range(2))  # never ends
    status, text = _raw(port, f"POST /api/run HTTP/1.1\nHost: 127.0.0.1:{port}\n"
                              f"Content-Type: application/json\nTransfer-Encoding: chunked\n"
                              f"Connection: close\n", chunks)
    assert status == 413 and "too large" in text


def test_deep_nesting_over_the_wire_is_one_line_and_the_server_lives(server, capfd):
    port, _ = server
    body = b"[" * 8000 + b"]" * 8000
    status, text = _raw(port, f"POST /api/run HTTP/1.1\nHost: 127.0.0.1:{port}\nContent-Type: "
                              f"application/json\nContent-Length: {len(body)}\n"
                              f"Connection: close\n", body)
    assert status == 400 and "nested too deeply" in text
    status, _ = _raw(port, f"GET /api/controls HTTP/1.1\nHost: localhost:{port}\n"
                           f"Connection: close\n")
    assert status == 200
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_the_page_in_a_real_browser_updates_survives_reloads_and_shows_bad_values(server):
    sync_api = pytest.importorskip("playwright.sync_api")
    port, runs = server
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector("#c-enchanted_penalty")
        assert "Enchanted role penalty" in page.inner_text("#rules")
        assert runs.live() == 0                                 # loading plays nothing
        for _ in range(2):                                      # reloads jam nothing
            page.fill("#c-enchanted_penalty", "6")
            page.wait_for_function("document.querySelector('#count').textContent"
                                   ".includes('games per rules set')", timeout=180_000)
            page.reload()
            page.wait_for_selector("#c-enchanted_penalty")
        # the change survives a reload: the page asks the server for its run once the
        # controls are built, and sets their values from it
        page.wait_for_function("document.querySelector('#c-enchanted_penalty').value === '6'",
                               timeout=30_000)
        page.wait_for_selector("svg.chart circle", timeout=180_000)
        page.wait_for_function("document.querySelector('#summary').textContent"
                               ".includes('Clear differences')", timeout=240_000)
        assert "Enchanted role penalty" in page.inner_text("#summary")
        assert _wait(lambda: runs.live() <= 1, 120)
        page.fill("#c-hand_size", "99")
        page.wait_for_function("document.querySelector('#error').textContent"
                               ".includes('hand_size')", timeout=120_000)
        assert "Traceback" not in page.inner_text("body")
        page.click("#reset")
        page.wait_for_function("document.querySelector('#summary').textContent"
                               ".includes('Change a rule')", timeout=120_000)
        browser.close()
    _wait(lambda: runs.live() == 0, 60)


def test_the_leverage_headline_is_measured_when_asked(client, monkeypatch):
    monkeypatch.setattr(whatif, "LEVERAGE_POSITIONS", 20)
    assert client.post("/api/run", json={"client": "lv", "changes": {"enchanted_penalty": 6},
                                         "leverage": True}).json()["ok"]
    s = _wait(lambda: (x := client.get("/api/status", params={"client": "lv"}).json())[
        "leverage"] and x)
    assert set(s["leverage"]) == {"default", "what-if"}
    assert all("% of decisions are meaningful" in t for t in s["leverage"].values())
    client.post("/api/run", json={"client": "lv", "changes": {}})   # stops the run
    _wait(lambda: client.app.state.runs.live() == 0)
