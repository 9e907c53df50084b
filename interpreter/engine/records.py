"""The record of a game in progress, as a mixin of `State` (engine/state.py): the save
(`to_json`, `from_json`), the history of moves and chance outcomes and a game played again from
it (`from_history`, `HistoryError`), and the plain data, hash and diff of a state.
"""
from __future__ import annotations

import hashlib
import json

from .aliases import frame_links
from .saves import SAVE_FORMAT, check_saved
from .values import Action, Outcome, public_refusal


class Records:
    """Saving, replaying and comparing states (mixed into `State`, whose slots hold the data)."""

    __slots__ = ()

    def to_json(self) -> str:
        # keys keep their order: iterating a map follows insertion order, so a sorted dump
        # would make a resumed game diverge from the original
        save = {"format": SAVE_FORMAT, "ruleset": self.rs.name, "modules": list(self.rs.modules),
                "digest": self.rs.digest, "settings": dict(getattr(self.rs, "overrides", {}) or {}),
                "state": self.plain(), "history": self.history()}
        links = frame_links(self.rs, self.d)  # what the waiting frames' values are (aliases.py)
        if links:
            save["links"] = links
        return json.dumps(save, separators=(",", ":"))

    @classmethod
    def from_json(cls, ruleset, text) -> "State":
        """A state read back from `to_json`; raises SaveError (with the reason) when the text is
        not a save of this ruleset."""
        data = check_saved(ruleset, text)
        log = data["state"].pop("log")
        state = cls(ruleset, data["state"], [_saved_line(line) for line in log])
        for entry in data.get("history") or []:
            state._history = (state._history, entry)
        return state

    @classmethod
    def from_history(cls, ruleset, players: int, history: list, seed: int = 0) -> "State":
        """Play a game again from its history (`history()`, or a save's "history"): a new game
        with `seed` (manual chance when the history holds chance outcomes), then every move
        and outcome in order. Raises HistoryError at the first one that is no longer legal
        (e.g. under edited rules), carrying the state just before it."""
        manual = any(isinstance(entry, dict) and "chance" in entry for entry in history)
        state = cls.new(ruleset, players, seed, "manual" if manual else "seeded")
        for index, entry in enumerate(history):
            outcome = _replay_entry(state, entry)
            if not outcome:
                raise HistoryError(index, f"{outcome.code}: {outcome.reason}", state)
        return state

    def plain(self) -> dict:
        """The whole state as plain JSON data: `d` with the log's lines."""
        return dict(self.d, log=list(self._lines()))

    def hash(self) -> str:
        return hashlib.sha256(json.dumps(self.plain(), sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]

    def diff(self, other: "State") -> list:
        """Paths whose values differ between two states: [(path, mine, theirs)]."""
        out: list = []
        _diff(self.plain(), other.plain(), "", out)
        return out

    def history(self) -> list:
        """The moves and chance outcomes applied since set-up, in order: {"action": ...} or
        {"chance": outcome}."""
        entries = []
        link = self._history
        while link is not None:
            link, entry = link
            entries.append({"action": entry.to_json()} if isinstance(entry, Action) else entry)
        entries.reverse()
        return entries


class HistoryError(ValueError):
    """A history that cannot be played again: `step` (0-based) is the first entry no longer
    legal, `reason` why, `state` the game just before it."""

    def __init__(self, step: int, reason: str, state: "State"):
        super().__init__(f"step {step + 1} of the history is no longer legal: {reason}")
        self.step = step
        self.reason = reason
        self.state = state


def _saved_line(line):
    """A log line read back from a save: a text, or a private line {"to": [seats], "text": ...}."""
    if isinstance(line, dict) and isinstance(line.get("to"), list) and isinstance(line.get("text"), str):
        return {"to": [seat for seat in line["to"] if type(seat) is int], "text": line["text"]}
    return str(line)


def _replay_entry(state, entry) -> Outcome:
    if isinstance(entry, dict) and "chance" in entry:
        return state.apply_chance(entry["chance"])
    if isinstance(entry, dict) and isinstance(entry.get("action"), dict):
        return state.apply(entry["action"])
    return public_refusal("bad_history", "not a move or a chance outcome")


def _diff(mine, theirs, path, out):
    if type(mine) is not type(theirs):
        out.append((path or "$", mine, theirs))
        return
    if isinstance(mine, dict):
        for key in sorted(set(mine) | set(theirs), key=str):
            if key not in mine or key not in theirs:
                out.append((f"{path}.{key}", mine.get(key), theirs.get(key)))
            else:
                _diff(mine[key], theirs[key], f"{path}.{key}", out)
    elif isinstance(mine, list):
        if len(mine) != len(theirs):
            out.append((path, mine, theirs))
        else:
            for index, (left, right) in enumerate(zip(mine, theirs)):
                _diff(left, right, f"{path}[{index}]", out)
    elif mine != theirs:
        out.append((path, mine, theirs))
