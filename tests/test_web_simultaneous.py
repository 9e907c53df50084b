"""The web table at a simultaneous node (tests/rulesets/sealed_bid, through the ASGI test
client): each seat's socket gets only its own moves, reads the other's choice as "has chosen",
and receives nothing of another's bid before the reveal — also after a server restart."""
import json
import os
from contextlib import ExitStack

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from interpreter.web.app import create_app  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def rulesets_path(monkeypatch):
    monkeypatch.setenv("RULEBOOK_PATH", os.path.join(HERE, "rulesets"))


def _start(client, players):
    response = client.post("/api/games", json={"ruleset": "sealed_bid", "players": players,
                                               "seats": ["human"] * players, "seed": 1, "delay": 0})
    assert response.status_code == 200, response.text
    body = response.json()
    return body["id"], [link["url"].split("token=")[1] for link in body["links"]]


def _connect(stack, client, game, seat, token, received):
    socket = stack.enter_context(client.websocket_connect(f"/ws/{game}"))
    socket.send_text(json.dumps({"type": "hello", "seat": seat, "token": token}))
    received[seat].append(json.loads(socket.receive_text()))
    return socket


def _bid(sockets, received, seat, amount):
    """Seat bids `amount` (its action listed with that label); every socket's next message is kept."""
    latest = received[seat][-1]
    index = next(action["index"] for action in latest["actions"] if action["label"] == f"bid {amount}")
    sockets[seat].send_text(json.dumps({"type": "act", "step": latest["view"]["step"], "index": index}))
    for other, socket in sockets.items():
        received[other].append(json.loads(socket.receive_text()))


def _whole_log(messages) -> list:
    """The seat's log as the page keeps it: each message carries the moves from `log_from` on."""
    log = []
    for message in messages:
        if message.get("type") == "view":
            log = log[:message["log_from"]] + message["log"]
    return log


def _about_others(messages):
    """Each view message without the seat's own legal actions (which list every amount it may bid)."""
    return [json.dumps(dict(message, actions=[], view=dict(message["view"], actions=[])))
            for message in messages if message.get("type") == "view"]


@pytest.mark.parametrize("players", [2, 3])
def test_each_seat_sees_only_its_moves_and_has_chosen_never_the_bid(tmp_path, rulesets_path, players):
    bids = {0: 3, 1: 1, 2: 2}
    with TestClient(create_app(str(tmp_path / "games.sqlite"))) as client, ExitStack() as stack:
        game, tokens = _start(client, players)
        received = {seat: [] for seat in range(players)}
        sockets = {seat: _connect(stack, client, game, seat, tokens[seat], received) for seat in range(players)}
        for seat in range(players):  # everyone may bid at once: each sees its own 3 bids, not 3 per seat
            first = received[seat][0]
            assert [action["label"] for action in first["actions"]] == ["bid 1", "bid 2", "bid 3"]
            assert [choice["args"] for group in first["view"]["actions"] for choice in group["choices"]] == \
                [{"amount": 1}, {"amount": 2}, {"amount": 3}]
        _bid(sockets, received, 0, bids[0])
        assert received[0][-1]["actions"] == []  # seat 0 has chosen: nothing more to do
        for seat in range(1, players):
            message = received[seat][-1]
            assert [entry["text"] for entry in message["log"]] == ["has chosen"]
            assert [entry["text"] for entry in message["view"]["log"]] == ["has chosen"]
            assert len(message["actions"]) == 3
        for seat in range(1, players):
            _bid(sockets, received, seat, bids[seat])
        final = {seat: received[seat][-1]["view"] for seat in range(players)}
        assert all(view["terminal"] for view in final.values())
        for seat in range(players):
            before_reveal = _about_others(received[seat][:-1])
            for other in range(players):
                if other != seat:
                    assert not any(f"bid {bids[other]}" in text for text in before_reveal), (seat, other)
                    assert not any(f'"amount": {bids[other]}}}, "player": {other}' in text for text in before_reveal)
            shown = {area["seat"]: area["fields"][0]["cell"]["text"] for area in final[seat]["other_areas"]}
            assert shown == {other: str(bids[other]) for other in range(players) if other != seat}  # the reveal
            own_log = [entry["text"] for entry in _whole_log(received[seat])]
            assert own_log == [f"bid {bids[other]}" if other == seat else "has chosen" for other in range(players)]
            last = received[seat][-1]  # only the move it had not been sent yet
            assert last["log_from"] == players - 1 and len(last["log"]) == 1


def test_a_restarted_server_still_hides_the_choice(tmp_path, rulesets_path):
    database = str(tmp_path / "games.sqlite")
    with TestClient(create_app(database)) as client, ExitStack() as stack:
        game, tokens = _start(client, 2)
        received = {0: [], 1: []}
        sockets = {seat: _connect(stack, client, game, seat, tokens[seat], received) for seat in (0, 1)}
        _bid(sockets, received, 0, 3)
    with TestClient(create_app(database)) as client, ExitStack() as stack:  # the game read back from the store
        received = {1: []}
        _connect(stack, client, game, 1, tokens[1], received)
        message = received[1][0]
        assert [entry["text"] for entry in message["log"]] == ["has chosen"]
        assert "bid 3" not in _about_others([message])[0] and len(message["actions"]) == 3
