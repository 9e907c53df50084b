"""HTTP and WebSocket routes of the web table (Starlette).

  GET  /                       the create-a-game page
  GET  /play/{id}, /replay/{id} the seat page and the replay page (the seat and its token travel
                               in the URL fragment, which browsers never send to the server)
  GET  /api/rulesets           bundled rulesets
  POST /api/games              create a game -> one join link per seat
  GET  /api/games/{id}/graph   the phase graph (SVG) and each phase's label in it
  POST /api/games/{id}/replay  every step of a finished game from one perspective
  WS   /ws/{id}                play: {"type": "hello", seat, token}, then {"type": "act", step, index}

Every HTTP body and WebSocket message is limited to MAX_MESSAGE bytes.
"""
from __future__ import annotations

import asyncio
import json
import random
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from interpreter.errors import RuleRuntimeError, RulebookError

from .store import GameStore
from .table import HUMAN, MAX_PLAYERS, Refused, Tables
from .view import seat_view

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE = 16 * 1024
MAX_REPLAY_STEPS = 20_000


def create_app(db_path: str = "rulebook-games.sqlite") -> Starlette:
    """The Starlette app of the web table, its games kept in the SQLite file `db_path`."""
    server = TableServer(GameStore(db_path))
    app = Starlette(routes=server.routes(), lifespan=server.lifespan)
    app.state.tables = server.tables
    app.state.store = server.store
    return app


class TableServer:
    """The routes' handlers over one store of games: pages, the create/graph/replay API, the
    play socket, and the agents that play their seats between people's moves."""

    def __init__(self, store: GameStore):
        self.store = store
        self.tables = Tables(store)

    def routes(self) -> list:
        return [Route("/", self.page), Route("/play/{game_id}", self.page), Route("/replay/{game_id}", self.page),
                Route("/api/rulesets", self.rulesets), Route("/api/games", self.create_game, methods=["POST"]),
                Route("/api/games/{game_id}/graph", self.graph),
                Route("/api/games/{game_id}/replay", self.replay, methods=["POST"]),
                WebSocketRoute("/ws/{game_id}", self.play_socket),
                Mount("/static", StaticFiles(directory=STATIC), name="static")]

    @asynccontextmanager
    async def lifespan(self, app):
        """Resume every unfinished game at start-up (its agents play on); close the store at the end."""
        for game_id in self.store.unfinished_ids():
            try:
                table = self.tables.get(game_id)
            except Exception as error:  # a stored game that no longer loads stays on disk, untouched
                print(f"rulebook serve: game {game_id} not resumed: {error}")
                continue
            asyncio.get_running_loop().create_task(self.run_agents(table))
        yield
        self.store.close()

    # -- live play -------------------------------------------------------------------------------
    @staticmethod
    def messages(table, sockets) -> dict:
        """{socket: message text} for [(socket, seat)]. Each seat's message is built and encoded
        once (tables every seat sees alike once per step); its `log` holds only the moves that
        socket has not been sent yet, from `log_from` on (everything after a hello). Built on the
        event loop: in a worker thread (from a copy of the state) the p50 latency of 50 concurrent
        Deep State games doubled (the threads and the loop contend for the GIL; tools/bench/web_load.py)."""
        built = table.messages_for(None, [seat for _, seat in sockets])
        encoded = {}
        for seat, message in built.items():
            log = message.pop("log")
            encoded[seat] = (json.dumps(message, separators=(",", ":"), check_circular=False)[:-1], log)
        texts = {}
        for socket, seat in sockets:
            head, log = encoded[seat]
            start = table.log_sent.get(socket, 0)
            start = start if start <= len(log) else 0
            texts[socket] = f'{head},"log_from":{start},"log":{json.dumps(log[start:], separators=(",", ":"))}}}'
            table.log_sent[socket] = len(log)
        return texts

    async def broadcast(self, table) -> None:
        """Send every connected seat its view of the table now."""
        sockets = list(table.sockets.items())
        if not sockets:
            return
        texts = self.messages(table, sockets)
        for socket, _seat in sockets:
            try:
                await socket.send_text(texts[socket])
            except Exception:
                table.forget(socket)

    async def run_agents(self, table) -> None:
        """Play every agent seat whose turn it is, in a worker thread, until a human must act."""
        loop = asyncio.get_running_loop()
        while True:
            async with table.lock:
                seat = table.next_agent_seat()
                if seat is None:
                    return
                state_copy = table.state.copy()
            if table.delay:
                await asyncio.sleep(table.delay)
            action = await loop.run_in_executor(None, table.agents[seat].act, state_copy, seat)
            async with table.lock:
                if table.state.steps != state_copy.steps:
                    continue
                try:
                    table.apply(action, self.store)
                except Refused as refusal:
                    print(f"rulebook serve: game {table.id}: agent of seat {seat} refused: {refusal}")
                    return
            await self.broadcast(table)

    async def play_socket(self, websocket: WebSocket):
        """A seat's connection: a hello with its token, then its moves; every step is broadcast."""
        await websocket.accept()
        table = self.tables.get(websocket.path_params["game_id"])
        if table is None:
            await websocket.send_text(json.dumps({"type": "error", "reason": "no such game"}))
            await websocket.close()
            return
        seat = None
        try:
            while True:
                text = await websocket.receive_text()
                try:
                    seat, acted = await self.receive(table, websocket, seat, text)
                except (Refused, ValueError) as refusal:
                    await websocket.send_text(json.dumps({"type": "refused", "reason": str(refusal)}))
                    continue
                if acted:
                    await self.broadcast(table)
                    asyncio.get_running_loop().create_task(self.run_agents(table))
        except (WebSocketDisconnect, RuntimeError):  # the client went away (RuntimeError: before the handshake ended)
            pass
        finally:
            table.forget(websocket)

    async def receive(self, table, websocket, seat, text: str):
        """One message of a socket: (its seat, whether a move was made); Refused with the reason."""
        if len(text) > MAX_MESSAGE:
            raise Refused("message too large")
        message = json.loads(text)
        if not isinstance(message, dict):
            raise Refused("a message is a JSON object")
        if seat is None or message.get("type") == "hello":
            seat = table.check_token(message.get("seat"), message.get("token"))
            table.sockets[websocket] = seat
            table.log_sent[websocket] = 0  # (again) the whole log
            await websocket.send_text(self.messages(table, [(websocket, seat)])[websocket])
            return seat, False
        if message.get("type") != "act":
            raise Refused("unknown message type")
        async with table.lock:
            table.apply(table.choose(seat, message.get("step"), message.get("index")), self.store)
        return seat, True

    # -- pages and the API -----------------------------------------------------------------------
    async def page(self, request):
        name = {"/": "index.html"}.get(request.url.path) or request.url.path.split("/")[1] + ".html"
        return FileResponse(STATIC / name, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

    async def rulesets(self, request):
        from interpreter.compose import bundled_rulesets

        return JSONResponse({"rulesets": sorted(bundled_rulesets())})

    async def create_game(self, request):
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        try:
            spec = _game_spec(body)
            table, tokens = self.tables.create(**spec)
        except (ValueError, TypeError, KeyError, RulebookError, RuleRuntimeError) as error:
            shown = error.shown() if isinstance(error, RuleRuntimeError) else str(error)  # set-up may read dealt secrets
            return JSONResponse({"error": shown}, status_code=400)
        links = [{"seat": seat, "player": spec_seat, "url": f"/play/{table.id}#seat={seat}&token={tokens[seat]}"}
                 for seat, spec_seat in enumerate(table.seats)]
        asyncio.get_running_loop().create_task(self.run_agents(table))
        return JSONResponse({"id": table.id, "links": links})

    async def graph(self, request):
        from interpreter.checks import phase_graph
        from interpreter.play import graph_svg

        table = self.tables.get(request.path_params["game_id"])
        if table is None:
            return JSONResponse({"error": "no such game"}, status_code=404)
        graph_data = phase_graph(table.rs)
        # graph_svg writes each phase's label cut to 22 characters: the page finds the current one by it
        labels = {str(node): str(graph_data.nodes[node].get("label", node))[:22] for node in graph_data.nodes}
        return JSONResponse({"svg": graph_svg(table.rs), "labels": labels})

    async def replay(self, request):
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        table = self.tables.get(request.path_params["game_id"])
        if table is None:
            return JSONResponse({"error": "no such game"}, status_code=404)
        try:
            table.check_token(body.get("seat"), body.get("token"))
        except Refused as refusal:
            return JSONResponse({"error": str(refusal)}, status_code=403)
        if not table.state.is_terminal:
            return JSONResponse({"error": "a game can be replayed once it is finished"}, status_code=409)
        perspective = body.get("perspective", "all")
        if perspective != "all" and perspective not in range(len(table.seats)):
            return JSONResponse({"error": "perspective must be a seat number or 'all'"}, status_code=400)
        frames = await asyncio.get_running_loop().run_in_executor(
            None, _replay_frames, table, None if perspective == "all" else perspective)
        names = [player["name"] for player in frames[-1]["view"]["players"]] if frames else []
        return JSONResponse({"frames": frames, "seats": table.seats, "names": names})


async def _json_body(request):
    """The request's JSON object, or a 413/400 response."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_MESSAGE):
        return JSONResponse({"error": f"body larger than {MAX_MESSAGE} bytes"}, status_code=413)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_MESSAGE:
            return JSONResponse({"error": f"body larger than {MAX_MESSAGE} bytes"}, status_code=413)
    try:
        value = json.loads(body or b"{}")
    except ValueError:
        return JSONResponse({"error": "the body is not JSON"}, status_code=400)
    if not isinstance(value, dict):
        return JSONResponse({"error": "the body must be a JSON object"}, status_code=400)
    return value


def _game_spec(body: dict) -> dict:
    """The checked arguments of Tables.create from a create-game request."""
    from interpreter.agents import AGENTS
    from interpreter.compose import bundled_rulesets

    ruleset = body.get("ruleset")
    if ruleset not in bundled_rulesets():
        raise ValueError(f"unknown ruleset {ruleset!r}; one of {', '.join(sorted(bundled_rulesets()))}")
    modules = body.get("modules") or []
    if not isinstance(modules, list) or not all(isinstance(m, str) and len(m) < 100 for m in modules):
        raise ValueError("modules must be a list of module names")
    players = body.get("players")
    if not isinstance(players, int) or not 1 <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be a number from 1 to {MAX_PLAYERS}")
    seats = body.get("seats") or [HUMAN] * players
    if not isinstance(seats, list) or len(seats) != players:
        raise ValueError("give one seat kind per player")
    for spec in seats:
        if spec != HUMAN and (not isinstance(spec, str) or spec.split(":")[0] not in AGENTS):
            raise ValueError(f"a seat is 'human' or an agent ({', '.join(sorted(AGENTS))}), not {spec!r}")
    seed = body.get("seed")
    seed = random.randrange(1, 2**31) if seed is None else seed
    if not isinstance(seed, int):
        raise ValueError("seed must be an integer")
    delay = body.get("delay", 0.5)
    if not isinstance(delay, (int, float)) or not 0 <= delay <= 10:
        raise ValueError("delay must be between 0 and 10 seconds")
    return {"ruleset": ruleset, "modules": modules, "players": players, "seats": seats, "seed": seed,
            "delay": float(delay)}


def _replay_frames(table, perspective) -> list:
    """The view after each step of a finished game, replayed from its seed."""
    state = table.rs.new_game(table.record["players"], seed=table.record["seed"])
    from interpreter.state import Action

    log = table.log_for(perspective)
    over = table.state.is_terminal  # the replay is served for finished games only
    frames = [{"step": 0, "move": None, "view": seat_view(state, perspective, actions=False, finished_game=over)}]
    for index, (action_json, _phase) in enumerate(table.history[:MAX_REPLAY_STEPS]):
        state.apply(Action.from_json(action_json))
        frames.append({"step": index + 1, "move": log[index],
                       "view": seat_view(state, perspective, actions=False, finished_game=over)})
    return frames
