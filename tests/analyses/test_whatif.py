"""The what-if page: its controls, hostile requests, and a real browser changing a value."""
import shutil
import socket
import threading
import time

import pytest

from analyses.whatif import MAX_BODY, app, changes_of, controls
from simcore import games

starlette = pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402


def test_controls_offer_numbers_choices_switches_and_lists():
    spec = games.get("bloomsim")
    kinds = {c["name"]: c["kind"] for c in controls(spec, spec.module().load_rules())}
    assert kinds["enchanted_penalty"] == "int" and kinds["start_wands.first_player"] == "int"
    assert kinds["next_start_player"] == "choice" and kinds["druid_needs_terrain"] == "bool"
    assert kinds["events"] == "subset" and "board" not in kinds and "players.min" not in kinds
    spec = games.get("rapinsim")
    kinds = {c["name"]: c["kind"] for c in controls(spec, spec.module().load_rules())}
    assert kinds["coffee_ends_turn"] == "bool" and kinds["characters"] == "subset"


def test_a_subset_keeps_the_members_asked_for():
    spec = games.get("bloomsim")
    rules = spec.module().load_rules()
    ids = list(rules.event_ids)
    got = changes_of(spec, rules, {"events": ids[1:], "enchanted_penalty": rules.enchanted_penalty})
    assert [e["id"] for e in got["events"]] == ids[1:]
    assert "enchanted_penalty" not in got            # unchanged values are no change


@pytest.fixture(scope="module")
def client():
    return TestClient(app("bloomsim", policies=["greedy", "careful"], players=2))


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


def test_bodies_that_are_not_objects_or_too_big_are_refused(client):
    assert client.post("/api/run", content=b"[]").status_code == 400
    assert client.post("/api/run", content=b"not json").status_code == 400
    assert client.post("/api/run", content=b"x" * (MAX_BODY + 1)).status_code == 413


def test_a_change_plays_paired_games_and_reports_differences(client):
    assert client.post("/api/run", json={"client": "p", "changes": {"enchanted_penalty": 6}}
                       ).json()["ok"]
    for _ in range(200):
        s = client.get("/api/status", params={"client": "p"}).json()
        if s["games"] >= 1000:
            break
        time.sleep(0.05)
    rows = {(r["kind"], r["what"]): r for r in s["rows"]}
    assert {(k, w) for k in ("win rate", "mean score") for w in ("start seat", "greedy",
                                                                  "careful")} == set(rows)
    assert s["error"] is None
    g = rows[("mean score", "greedy")]
    assert g["ci_low"] <= g["diff"] <= g["ci_high"] < 0   # a heavier penalty costs points
    assert abs(g["diff"] - (g["b"] - g["a"])) < 1e-9
    client.post("/api/run", json={"client": "p", "changes": {}})   # stops the run


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_the_page_in_a_real_browser_updates_and_shows_bad_values():
    uvicorn = pytest.importorskip("uvicorn")
    sync_api = pytest.importorskip("playwright.sync_api")
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app("bloomsim", policies=["greedy", "careful"],
                                               players=2), host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    try:
        for _ in range(100):
            if server.started:
                break
            time.sleep(0.1)
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("#results tbody tr", timeout=60_000)
            assert "start seat" in page.inner_text("#results")
            page.fill("#c-enchanted_penalty", "6")
            page.wait_for_function("document.querySelector('#progress').textContent"
                                   ".includes('(done)') || document.querySelector('#results')"
                                   ".innerText.includes('points')", timeout=60_000)
            page.wait_for_selector("tr.sig", timeout=90_000)     # penalty 6 moves win rates
            page.fill("#c-hand_size", "99")
            page.wait_for_function("document.querySelector('#error').textContent"
                                   ".includes('hand_size')", timeout=30_000)
            text = page.inner_text("body")
            assert "Traceback" not in text
            browser.close()
    finally:
        server.should_exit = True
