"""The web table in a real browser (Debian's Chromium driven by Playwright) against a
`rulebook serve` subprocess on a free loopback port: tic-tac-toe played by clicking, Kuhn poker
between two browser contexts, a Davos turn against two agents, a replay stepped back and forth,
and a server killed with SIGKILL mid-game then restarted on the same database.
Screenshots are kept under the test's tmp directory (RULEBOOK_WEB_SHOTS=dir to keep them elsewhere)."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")
sync_api = pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip("no Chromium at /usr/bin/chromium", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(db: Path, port: int) -> subprocess.Popen:
    env = dict(os.environ, RULEBOOK_CACHE="0", PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, "-m", "interpreter", "serve", "--host", "127.0.0.1", "--port", str(port),
                                "--db", str(db)], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/rulesets", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(process.stdout.read().decode())


def stop(process) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    process = start_server(tmp_path_factory.mktemp("web") / "games.sqlite", port)
    yield f"http://127.0.0.1:{port}"
    stop(process)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = Path(os.environ.get("RULEBOOK_WEB_SHOTS") or tmp_path_factory.mktemp("screenshots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def create(server, ruleset, seats, seed=1, delay=0):
    response = httpx.post(f"{server}/api/games", json={"ruleset": ruleset, "players": len(seats), "seats": seats,
                                                       "seed": seed, "delay": delay})
    assert response.status_code == 200, response.text
    return response.json()


def open_seat(browser, server, link, received=None):
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    if received is not None:
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(str(payload))))
        page.on("response", lambda response: received.append(_body(response)))
    page.goto(server + link["url"])
    page.wait_for_selector("#status:not(:text('connecting'))")
    return page


def _body(response):
    try:
        return response.text()
    except Exception:
        return ""


def wait_step(page, step):
    page.wait_for_function(f"document.getElementById('status').textContent.includes('step {step}') || "
                           "document.getElementById('status').textContent === 'game over'")


def test_tictactoe_by_clicking_and_replay(browser, server, shots):
    game = create(server, "tictactoe", ["human", "human"])
    pages = [open_seat(browser, server, link) for link in game["links"]]
    pages[0].screenshot(path=shots / "tictactoe-start.png")
    step = 0
    while "game over" not in pages[0].locator("#status").text_content():
        mover = next(page for page in pages if page.locator("#actions button").count())
        mover.locator("#actions button").first.click()
        step += 1
        for page in pages:
            wait_step(page, step)
        assert step < 10
    pages[0].wait_for_selector("#scores table")
    pages[0].screenshot(path=shots / "tictactoe-end.png")
    assert pages[1].locator("#log div").count() == step
    pages[0].click("#replay-link")
    page = pages[0]
    page.wait_for_selector("#board table")
    page.locator("#slider").fill("0")
    page.locator("#slider").dispatch_event("input")
    assert page.locator("#position").text_content() == f"step 0 of {step}"
    page.click("#forward")
    page.click("#forward")
    assert page.locator("#position").text_content() == f"step 2 of {step}"
    assert page.locator("td.changed").count() >= 1  # the cell the last move changed is highlighted
    page.screenshot(path=shots / "replay.png")
    page.click("#back")
    assert page.locator("#position").text_content() == f"step 1 of {step}"
    page.select_option("#perspective", "1")
    page.wait_for_function("document.getElementById('position').textContent.startsWith('step 1 of')")


def test_kuhn_two_people_never_see_each_others_card(browser, server, shots):
    for seed in (2, 5):
        game = create(server, "kuhn-poker", ["human", "human"], seed=seed)
        received = [[], []]
        pages = [open_seat(browser, server, link, received[seat]) for seat, link in enumerate(game["links"])]
        cards = [page.locator("#board table[data-title=players] tr:nth-child(%d) td:nth-child(2)" % (seat + 1)).text_content()
                 for seat, page in enumerate(pages)]
        assert all(card in ("J", "Q", "K") for card in cards) and cards[0] != cards[1]
        assert pages[0].locator("#board").text_content().count("hidden (1)") == 2  # the deck and the other hand
        pages[0].screenshot(path=shots / f"kuhn-seat0-seed{seed}.png")
        pages[0].get_by_role("button", name="bet 1").click()
        wait_step(pages[1], 1)
        pages[1].screenshot(path=shots / f"kuhn-seat1-seed{seed}.png")
        pages[1].get_by_role("button", name="fold").click()  # a fold: no showdown, no card is ever shown
        for page in pages:
            page.wait_for_function("document.getElementById('status').textContent === 'game over'")
        for seat in (0, 1):
            assert len(received[seat]) >= 3
            other = cards[1 - seat]
            leaks = [message for message in received[seat] if f'"{other}"' in message or f"[\"seat {1 - seat}\", \"{other}\"" in message]
            assert not leaks, f"seat {seat} received the other card: {leaks[0][:200]}"
            assert other not in pages[seat].locator("#board table[data-title=players]").text_content().replace("seat", "")


def test_davos_turn_against_two_agents(browser, server, shots):
    game = create(server, "davos", ["human", "random", "random"], seed=5)
    page = open_seat(browser, server, game["links"][0])
    page.screenshot(path=shots / "davos-start.png")
    page.wait_for_selector("#graph rect.current")
    assert page.locator("#graph rect.current").count() == 1
    acted_with_parameters = decided = False
    for _ in range(200):
        page.wait_for_function("document.querySelectorAll('#actions button').length > 0 || "
                               "document.getElementById('status').textContent === 'game over'", timeout=20000)
        pending = page.locator("#pending").text_content()
        groups = page.locator("#actions .group")
        stepped = [index for index in range(groups.count()) if groups.nth(index).locator("button.step").count()]
        if pending.startswith("your decision"):
            page.screenshot(path=shots / "davos-decision.png")
            page.locator("#actions button.final").first.click()
            decided = True
        elif stepped and not acted_with_parameters:
            group = groups.nth(stepped[0])  # a multi-step action: a question per parameter, then the actions left
            questions = []
            while group.locator("button.step").count():
                questions.append(group.locator(".question").text_content())
                group.locator("button.step").first.click()
            page.screenshot(path=shots / "davos-steps.png")
            assert len(questions) >= 1 and group.locator("button.final").count() >= 1
            group.locator("button.final").first.click()
            acted_with_parameters = True
        else:
            page.locator("#actions button.final").first.click()
        page.wait_for_timeout(50)
        if decided and acted_with_parameters:
            break
    assert acted_with_parameters and decided
    page.wait_for_selector("#log div.mine")
    page.screenshot(path=shots / "davos-after.png")
    assert page.locator("#refused").text_content() in ("", None) or "stale" in page.locator("#refused").text_content()


def test_server_killed_mid_game_resumes(tmp_path):
    from websockets.sync.client import connect

    db, port = tmp_path / "games.sqlite", free_port()
    process = start_server(db, port)
    server = f"http://127.0.0.1:{port}"
    game = create(server, "kuhn-poker", ["human", "human"], seed=3)
    token = game["links"][0]["url"].split("token=")[1]
    with connect(f"ws://127.0.0.1:{port}/ws/{game['id']}") as socket:
        socket.send(json.dumps({"type": "hello", "seat": 0, "token": token}))
        before = json.loads(socket.recv())
        socket.send(json.dumps({"type": "act", "step": 0, "index": 1}))  # bet 1
        after_move = json.loads(socket.recv())
    assert after_move["view"]["step"] == 1
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    process = start_server(db, port)
    try:
        with connect(f"ws://127.0.0.1:{port}/ws/{game['id']}") as socket:
            socket.send(json.dumps({"type": "hello", "seat": 0, "token": token}))
            resumed = json.loads(socket.recv())
        assert resumed["view"] == after_move["view"]
        assert resumed["view"]["own_area"]["fields"][0] == before["view"]["own_area"]["fields"][0]  # the same card
        assert [entry["text"] for entry in resumed["log"]] == ["bet 1"]
    finally:
        stop(process)
