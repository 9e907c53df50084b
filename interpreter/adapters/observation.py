"""The fixed-size float vector for `State.observe(player)` of any ruleset (`ObservationLayout`),
shaped by the ruleset's variables at the start of a game; the layout is documented in
docs/research.md. Needs no third-party package.
"""
from __future__ import annotations

import json
import math

from .bounds import Bounds
from .encoding import Atoms

__all__ = ["ObservationLayout", "squash", "render_view"]


class ObservationLayout:
    """A fixed-size float vector for `state.observe(player)`.

    Header: observer seat (one-hot, players), current player (one-hot, players), phase
    (one-hot, declared phases), [a decision is pending, it is the observer's, its number of
    options], [terminal]. Then each declared variable in declaration order, shaped by the value
    it holds when the game starts (seed 0):
      number/boolean  -> 1 float (true 1, false/none 0); a number of a var that declares
                         `min` and `max` is scaled to (value - min) / (max - min), any other
                         number squashed by `squash` (sign(v) * ln(1 + |v|));
      text/component/none -> 1 float (its number, squashed, if it ever holds one) + one-hot over the atoms;
      list of texts/numbers, non-empty at the start, and per-player values -> one sub-layout per
      position (positions beyond the starting length are not encoded);
      any other list (a zone) -> [length, sum of its numbers] + a count per atom;
      map with keys at the start -> one sub-layout per key; an empty map -> [size] + a count per
      atom key. A hidden list fills only its length; any other hidden value fills zeros.
    """

    def __init__(self, ruleset, players: int):
        self.rs = ruleset
        self.players = players
        self.atoms = Atoms.of(ruleset)
        self.phases = tuple(ruleset.phases)
        start = ruleset.new_game(players, 0).vars
        bounds = Bounds(ruleset, players)
        self.fields = []  # (var name, node)
        self.scaled = {}  # var name -> (min, max) its numbers are scaled by
        for name, decl in ruleset.vars.items():
            value = start.get(name)
            scale = _scale(bounds.var_bound(name))
            if scale is not None:
                self.scaled[name] = (scale[0], scale[0] + scale[1])
            if decl.per_player and isinstance(value, list):
                node = ("seq", tuple(_shape(x, scale) for x in value))
            else:
                node = _shape(value, scale)
            self.fields.append((name, node))
        self.header = 2 * players + len(self.phases) + 4
        self.size = self.header + sum(self._size(node) for _, node in self.fields)

    def _size(self, node) -> int:
        kind = node[0]
        if kind == "num":
            return 1
        if kind == "atom":
            return 1 + self.atoms.size
        if kind == "bag":
            return 2 + self.atoms.size
        if kind == "seq":
            return sum(self._size(child) for child in node[1])
        if kind == "map":
            return sum(self._size(child) for _, child in node[1])
        raise AssertionError(kind)

    def encode(self, state, player: int) -> list:
        """The vector for what `player` sees of `state` (floats, length `size`)."""
        return self.encode_view(state.observe(player), player)

    def encode_view(self, view: dict, player: int) -> list:
        out = [0.0] * self.size
        players = self.players
        out[player] = 1.0
        for current in view.get("current") or []:
            out[players + current] = 1.0
        if view.get("phase") in self.phases:
            out[2 * players + self.phases.index(view["phase"])] = 1.0
        base = 2 * players + len(self.phases)
        pending = view.get("pending")
        if pending is not None:
            out[base] = 1.0
            out[base + 1] = 1.0 if pending.get("player") == player else 0.0
            options = pending.get("options")
            out[base + 2] = float(len(options) if isinstance(options, list) else options.get("hidden", 0))
        out[base + 3] = 1.0 if view.get("terminal") else 0.0
        offset = self.header
        values = view.get("vars") or {}
        for name, node in self.fields:
            offset = self._fill(node, values.get(name), out, offset)
        return out

    def _fill(self, node, value, out, offset) -> int:
        kind = node[0]
        if kind == "num":
            out[offset] = squash(_number(value)) if node[1] is None else (_number(value) - node[1][0]) / node[1][1]
            return offset + 1
        if kind == "atom":
            out[offset] = squash(_number(value))
            position = self.atoms.index.get(("text", value)) if isinstance(value, str) else None
            if position is not None:
                out[offset + 1 + position] = 1.0
            return offset + 1 + self.atoms.size
        if kind == "bag":
            self._fill_bag(value, out, offset)
            return offset + 2 + self.atoms.size
        if kind == "seq":
            items = value if isinstance(value, list) else []
            for index, child in enumerate(node[1]):
                offset = self._fill(child, items[index] if index < len(items) else None, out, offset)
            return offset
        if kind == "map":
            entries = value if isinstance(value, dict) and "hidden" not in value else {}
            for key, child in node[1]:
                offset = self._fill(child, entries.get(key), out, offset)
            return offset
        raise AssertionError(kind)

    def _fill_bag(self, value, out, offset):
        if isinstance(value, dict) and set(value) == {"hidden"}:
            out[offset] = float(value["hidden"]) if not isinstance(value["hidden"], bool) else 0.0
            return
        items = list(value) if isinstance(value, (list, dict)) else []
        out[offset] = float(len(items))
        out[offset + 1] = float(sum(x for x in items if type(x) in (int, float)))
        for item in items:
            position = self.atoms.index.get(("text", item)) if isinstance(item, str) else None
            if position is not None:
                out[offset + 2 + position] += 1.0

    def table(self) -> list:
        """[(name, offset, size)] of the header and every variable."""
        rows = [("header", 0, self.header)]
        offset = self.header
        for name, node in self.fields:
            size = self._size(node)
            rows.append((name, offset, size))
            offset += size
        return rows


def squash(number: float) -> float:
    """A number no declared bound scales, kept small and monotonic: sign(v) * ln(1 + |v|)
    (0 -> 0, 1 -> 0.69, 10 -> 2.40, 100 -> 4.62, -3 -> -1.39)."""
    return math.copysign(math.log1p(abs(number)), number)


def _number(value) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    return 0.0


def _scale(bound: tuple):
    """(min, max - min) of a var that declares both ends apart, else None (numbers stay raw)."""
    low, high = bound
    if low is None or high is None or high <= low:
        return None
    return (float(low), float(high - low))


def _shape(value, scale=None) -> tuple:
    """The layout node for a value as it stands when the game starts; `scale` ((min, span) of
    the var's declared bounds, or None) applies to every number in it."""
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return ("num", None if isinstance(value, bool) else scale)
    if value is None or isinstance(value, str):
        return ("atom",)
    if isinstance(value, list):
        if value and all(not isinstance(x, (list, dict)) for x in value) and not _looks_like_zone(value):
            return ("seq", tuple(_shape(x, scale) for x in value))
        if value and all(isinstance(x, (list, dict)) for x in value):
            return ("seq", tuple(_shape(x, scale) for x in value))
        return ("bag",)
    if isinstance(value, dict):
        if value:
            return ("map", tuple((k, _shape(v, scale)) for k, v in value.items()))
        return ("bag",)
    return ("num", scale)


def _looks_like_zone(items: list) -> bool:
    """A list of distinct strings that are not empty (cards in a zone) is a zone; a board of
    cells ('' or a mark) or a list of numbers is positional."""
    strings = [x for x in items if isinstance(x, str)]
    return len(strings) == len(items) and "" not in strings and len(set(strings)) == len(strings)


def render_view(state, viewer: int, render_mode):
    """What `viewer` sees (observe: never another player's secrets; -1 is a spectator) as one
    line of JSON: printed for render_mode 'human', returned for 'ansi', None without a mode."""
    if render_mode is None:
        return None
    view = state.observe(viewer)
    text = json.dumps({"phase": view["phase"], "current": view["current"], "vars": view["vars"]}, default=str)
    if render_mode == "human":
        print(text)
        return None
    return text
