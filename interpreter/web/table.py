"""Live games of the web table: a `Table` holds one game's state, its seats (human or agent),
the hashes of the seat tokens, the connected sockets and the public move history; `Tables`
creates, loads (from the store, replaying every stored action) and keeps them.

Security rules live here: a token is checked against the stored hash of its own seat only; an
action must be one of that seat's legal actions at the step the client saw; each socket is sent
only `seat_view(state, seat)` (the view model, from `observe(seat)`), the seat's own legal action
labels and the seat's log (another seat's moves in their public form, see `log_for`).

`messages_for(snapshot, seats)` builds every seat's message of one step together, so that what
every seat sees alike is built once; `snapshot()` is a copy of the state and the history, from
which messages can be built while the table plays on.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets

import interpreter
from interpreter.agents import make_agent
from interpreter.state import Action

from interpreter.view.cells import Viewer
from interpreter.view.model import last_move_entry
from interpreter.view.spec import view_spec
from interpreter.view.steps import legal_for, move_text

from .view import seat_view

HUMAN = "human"
MAX_PLAYERS = 8


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class Refused(Exception):
    """A request the table refuses; the message is the reason sent back."""


class Table:
    """One game being played."""

    def __init__(self, record: dict, ruleset):
        self.id = record["id"]
        self.record = record
        self.rs = ruleset
        self.seats = record["seats"]
        self.delay = float(record["delay"])
        self.state = ruleset.new_game(record["players"], seed=record["seed"])
        self.history = []  # [(action json, phase after)]
        self.simultaneous = set()  # the indexes in `history` of choices made at once with others (secret until all chose)
        self.sockets = {}  # websocket -> seat
        self.log_sent = {}  # websocket -> how many moves of the seat's log it has been sent
        self._logs = {}  # seat -> the log entries built so far (see log_for)
        self.lock = asyncio.Lock()
        self.agents = {seat: make_agent(spec, record["seed"] * 1009 + seat)
                       for seat, spec in enumerate(self.seats) if spec != HUMAN}
        for action_json, phase in record.get("moves", []):
            outcome = self.state.apply(Action.from_json(action_json))
            if not outcome:
                raise RuntimeError(f"game {self.id}: stored move {action_json['label']!r} no longer applies: "
                                   f"{outcome.reason}")
            self._record(action_json, phase)

    def forget(self, socket) -> None:
        """A socket that went away."""
        self.sockets.pop(socket, None)
        self.log_sent.pop(socket, None)

    def check_token(self, seat, token) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.seats):
            raise Refused("no such seat")
        if not isinstance(token, str) or not hmac.compare_digest(token_hash(token), self.record["token_hashes"][seat]):
            raise Refused("this token is not the token of that seat")
        return seat

    def legal_for(self, seat: int, state=None) -> list:
        return legal_for(self.state if state is None else state, seat)

    def log_for(self, seat, state=None, history=None) -> list:
        """The moves as `seat` may see them (interpreter.view.steps.move_text): its own by their
        labels; another seat's decision as 'made a decision', its secret move by its kind only,
        its public move by its kind and arguments (never by the label, a template that may read
        hidden values). `seat` None (a finished game seen by all) gets every label."""
        state = self.state if state is None else state
        history = self.history if history is None else history
        done = self._logs.get(seat, [])  # a move reads the same to a seat forever: kept, not rebuilt
        if len(done) >= len(history):
            return done[:len(history)]
        viewer = Viewer(self.rs, view_spec(self.rs), state.observe(seat if seat is not None else 0)["vars"], seat)
        entries = list(done)
        for index, (action_json, phase) in enumerate(history[len(done):], len(done)):
            player = action_json.get("player")
            entry = {"action": action_json, "simultaneous": True} if index in self.simultaneous else {"action": action_json}
            text = move_text(state, viewer, entry, seat)
            entries.append({"seat": player, "text": text, "phase": phase})  # names: view["players"]
        self._logs[seat] = entries  # one assignment: a worker thread building another message sees either list
        return entries

    def snapshot(self):
        """(a copy of the state, the history so far): what a worker thread builds views from."""
        return self.state.copy(), list(self.history)

    def messages_for(self, snapshot, seats) -> dict:
        """{seat: message} for `seats`, built from `snapshot` (None: the live state)."""
        shared = {}  # board tables every seat sees alike are built once
        return {seat: self.message_for(seat, snapshot, shared) for seat in set(seats)}

    def message_for(self, seat: int, snapshot=None, shared=None) -> dict:
        state, history = snapshot if snapshot is not None else (self.state, self.history)
        message = {"type": "view", "game": self.id, "ruleset": self.rs.name, "view": seat_view(state, seat, shared=shared),
                   "actions": [{"index": index, "label": action.label} for index, action in enumerate(self.legal_for(seat, state))],
                   "log": self.log_for(seat, state, history), "seats": self.seats, "you": seat}
        if state.is_terminal:
            message["scores"] = {str(p): score for p, score in state.scores().items()}
            message["winners"] = state.winners()
        return message

    def choose(self, seat: int, step, index) -> Action:
        """The legal action the client picked, or Refused with the reason."""
        if self.state.is_terminal:
            raise Refused("the game is over")
        if not isinstance(step, int) or step != self.state.steps:
            raise Refused(f"stale action: you acted on step {step}, the game is at step {self.state.steps}")
        legal = self.legal_for(seat)
        if not legal:
            raise Refused(f"it is not seat {seat}'s turn (waiting for seat(s) {self.state.current_players})")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(legal):
            raise Refused("no such action for your seat")
        return legal[index]

    def apply(self, action: Action, store) -> None:
        outcome = self.state.apply(action)
        if not outcome:
            raise Refused(outcome.public_reason or outcome.code)  # to a seat: no value the rules evaluated
        action_json = action.to_json()
        store.add_move(self.id, len(self.history), action_json, self.state.phase, self.state.is_terminal)
        self._record(action_json, self.state.phase)

    def _record(self, action_json: dict, phase) -> None:
        """Append a move just applied to the history, noting whether the state recorded it as a
        choice made at once with others (then no other seat may read it: see log_for)."""
        if last_move_entry(self.state).get("simultaneous"):
            self.simultaneous.add(len(self.history))
        self.history.append((action_json, phase))

    def next_agent_seat(self):
        if self.state.is_terminal:
            return None
        for seat in self.state.current_players:
            if seat in self.agents:
                return seat
        return None


class Tables:
    """Every live game, loaded lazily from the store."""

    def __init__(self, store):
        self.store = store
        self.tables = {}
        self._rulesets = {}

    def ruleset(self, name: str, modules: list):
        key = (name, tuple(modules))
        if key not in self._rulesets:
            self._rulesets[key] = interpreter.load(name, list(modules))
        return self._rulesets[key]

    def create(self, ruleset: str, modules: list, players: int, seats: list, seed: int, delay: float):
        loaded_ruleset = self.ruleset(ruleset, modules)
        tokens = [secrets.token_urlsafe(24) for _ in seats]
        record = {"id": secrets.token_urlsafe(9), "ruleset": ruleset, "modules": modules, "players": players,
                  "seed": seed, "seats": seats, "token_hashes": [token_hash(token) for token in tokens],
                  "delay": delay, "digest": loaded_ruleset.digest, "moves": []}
        table = Table(record, loaded_ruleset)
        self.store.create(record)
        self.tables[record["id"]] = table
        return table, tokens

    def get(self, game_id: str):
        if game_id not in self.tables:
            record = self.store.game(game_id) if isinstance(game_id, str) and len(game_id) < 64 else None
            if record is None:
                return None
            self.tables[game_id] = Table(record, self.ruleset(record["ruleset"], record["modules"]))
        return self.tables[game_id]
