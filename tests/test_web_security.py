"""The web table's security, through the ASGI test client (no browser): seat tokens, stale and
foreign actions, size limits, and that no message a seat receives carries another seat's
hidden values (Kuhn poker between two people; Deep State between agents and one person)."""
import json
import random

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from interpreter.state import Action  # noqa: E402
from interpreter.web.app import MAX_MESSAGE, create_app  # noqa: E402
from interpreter.web.table import Table  # noqa: E402


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(str(tmp_path / "games.sqlite"))) as test_client:
        yield test_client


def new_game(client, ruleset, seats, seed=3, delay=0):
    response = client.post("/api/games", json={"ruleset": ruleset, "players": len(seats), "seats": seats,
                                               "seed": seed, "delay": delay})
    assert response.status_code == 200, response.text
    body = response.json()
    return body["id"], [link["url"].split("token=")[1] for link in body["links"]]


def hello(socket, seat, token):
    socket.send_text(json.dumps({"type": "hello", "seat": seat, "token": token}))
    return json.loads(socket.receive_text())


def test_tokens_steps_and_seats_are_checked(client):
    game, tokens = new_game(client, "kuhn-poker", ["human", "human"])
    with client.websocket_connect(f"/ws/{game}") as socket:
        assert hello(socket, 0, "forged-token") == {"type": "refused", "reason": "this token is not the token of that seat"}
        assert hello(socket, 1, tokens[0])["type"] == "refused"  # seat 0's token does not open seat 1
        assert hello(socket, 7, tokens[0])["reason"] == "no such seat"
        view = hello(socket, 1, tokens[1])
        assert view["type"] == "view" and view["you"] == 1 and view["actions"] == []
        socket.send_text(json.dumps({"type": "act", "step": 0, "index": 0}))
        refused = json.loads(socket.receive_text())
        assert refused["type"] == "refused" and "not seat 1's turn" in refused["reason"]
    with client.websocket_connect(f"/ws/{game}") as socket:
        view = hello(socket, 0, tokens[0])
        assert [action["label"] for action in view["actions"]] == ["check", "bet 1"]
        socket.send_text(json.dumps({"type": "act", "step": 0, "index": 1}))
        assert json.loads(socket.receive_text())["view"]["step"] == 1
        socket.send_text(json.dumps({"type": "act", "step": 0, "index": 0}))  # the same message replayed
        assert json.loads(socket.receive_text())["reason"] == "stale action: you acted on step 0, the game is at step 1"
        socket.send_text("x" * (MAX_MESSAGE + 1))
        assert json.loads(socket.receive_text())["reason"] == "message too large"
        socket.send_text("[1, 2]")
        assert json.loads(socket.receive_text())["type"] == "refused"
    assert client.post("/api/games", content=b"{" + b" " * MAX_MESSAGE + b"}",
                       headers={"content-type": "application/json"}).status_code == 413
    bad = client.post("/api/games", json={"ruleset": "no-such-game", "players": 2})
    assert bad.status_code == 400 and "unknown ruleset" in bad.json()["error"]
    assert client.post(f"/api/games/{game}/replay", json={"seat": 0, "token": tokens[0]}).status_code == 409
    assert client.post(f"/api/games/{game}/replay", json={"seat": 0, "token": "forged"}).status_code == 403


def _play_as(client, game, seat_tokens, rng, received, limit=400):
    """Play each human seat with random legal actions over its own socket; every message each
    socket receives is appended to received[seat]."""
    sockets = {seat: client.websocket_connect(f"/ws/{game}").__enter__() for seat in seat_tokens}
    latest = {}
    for seat, socket in sockets.items():
        latest[seat] = hello(socket, seat, seat_tokens[seat])
        received[seat].append(latest[seat])
    for _ in range(limit):
        if latest[next(iter(latest))]["view"]["terminal"]:
            break
        movers = [seat for seat, message in latest.items() if message["actions"]]
        if not movers:  # agents are moving: wait for the next broadcast
            seat = next(iter(sockets))
            latest[seat] = json.loads(sockets[seat].receive_text())
            received[seat].append(latest[seat])
            continue
        seat = movers[0]
        action = rng.choice(latest[seat]["actions"])
        sockets[seat].send_text(json.dumps({"type": "act", "step": latest[seat]["view"]["step"], "index": action["index"]}))
        for other, socket in sockets.items():
            message = json.loads(socket.receive_text())
            received[other].append(message)
            if message["type"] == "view":
                latest[other] = message
    for socket in sockets.values():
        socket.__exit__(None, None, None)
    return latest


def _secret_words(table: Table, seat: int) -> dict:
    """{step: component names hidden from `seat` after that step, and not visible to it}."""
    from interpreter.web.view import format_value

    state = table.rs.new_game(table.record["players"], seed=table.record["seed"])
    secrets_at = {}
    for index in range(len(table.history) + 1):
        visible = json.dumps(state.observe(seat))
        visible_names = {format_value(table.rs, ident) for ident in table.rs.entities if json.dumps(ident) in visible}
        words = set()
        for name, slot in state.hidden_vars(seat):
            value = state.vars[name] if slot is None else state.vars[name][slot]
            for item in value if isinstance(value, list) else (value.values() if isinstance(value, dict) else [value]):
                if isinstance(item, str) and item in table.rs.entities and json.dumps(item) not in visible:
                    words.add(item)
                    if format_value(table.rs, item) not in visible_names:  # a copy of the same card may be visible
                        words.add(format_value(table.rs, item))
        secrets_at[state.steps] = words
        if index < len(table.history):
            state.apply(Action.from_json(table.history[index][0]))
    return secrets_at


def _assert_no_leak(table, seat, messages):
    secrets_at = _secret_words(table, seat)
    assert any(secrets_at.values()), "the check must have secrets to look for"
    checked = 0
    for message in messages:
        if message.get("type") != "view":
            continue
        # the score rows' labels are the rule file's own text ("2. Governments, Universities, ..."),
        # the same for every state: they are checked to be exactly those labels, then left out
        labels = [label or row_id for row_id, label, _ in table.rs.score_rows]
        assert message["view"]["scores"]["columns"] == ["player"] + labels + ["total"]
        text = json.dumps(dict(message, view=dict(message["view"], scores=dict(message["view"]["scores"], columns=[]))))
        for word in secrets_at[message["view"]["step"]]:
            assert f'"{word}"' not in text and f" {word}," not in text and f", {word}\"" not in text, \
                f"seat {seat} received hidden {word!r} at step {message['view']['step']}"
        checked += 1
    return checked


def test_kuhn_messages_never_carry_the_other_card(client):
    for seed in range(1, 7):
        game, tokens = new_game(client, "kuhn-poker", ["human", "human"], seed=seed)
        received = {0: [], 1: []}
        latest = _play_as(client, game, {0: tokens[0], 1: tokens[1]}, random.Random(seed), received)
        assert latest[0]["view"]["terminal"] and latest[0]["scores"]
        table = client.app.state.tables.get(game)
        for seat in (0, 1):
            other_card = table.state.vars["hand"][1 - seat][0]
            shown = table.state.vars["shown"][1 - seat]
            for message in received[seat]:
                if message["type"] == "view" and not (shown and message["view"]["terminal"]):
                    assert f'"{other_card}"' not in json.dumps(message)
            assert _assert_no_leak(table, seat, received[seat]) >= 2


def test_deep_state_human_among_agents_receives_no_secret(client):
    game, tokens = new_game(client, "deep-state", ["random", "human", "random"], seed=11)
    received = {1: []}
    latest = _play_as(client, game, {1: tokens[1]}, random.Random(4), received, limit=3000)
    table = client.app.state.tables.get(game)
    assert table.history, "no move was played"
    checked = _assert_no_leak(table, 1, received[1])
    assert checked >= 5
    print(f"deep-state: {len(table.history)} moves, {len(received[1])} messages checked")
    assert latest[1]["view"]["terminal"] or len(received[1]) > 50
