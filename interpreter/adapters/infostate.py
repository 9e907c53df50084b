"""The information state of a player as research adapters see it: `known_information` (plain
data) and `InformationStateLayout` (a fixed-size float vector), both built from
`State.information_state(player)` — the engine's account of everything the player knows — so
they never hold another player's secret. On top of the engine's masking (another player's
secret move shows only its action name; unseen chance outcomes read "hidden"), another
player's answer to a decision shows only that it was made (an answer may name a secret card).
The layout is documented in docs/research.md. Needs no third-party package.
"""
from __future__ import annotations

import json

from .encoding import value_key
from .observation import ObservationLayout

__all__ = ["known_information", "known_information_from", "KnownHistory", "known_text", "InformationStateLayout", "HISTORY_SLOTS"]

# The default history window: the most recent history entries the vector encodes (all of them
# when the rules bound the game's length by it); earlier ones reach the vector only through the
# observation. `register(..., history_window=N)` and `rulebook info --history-window N` change it.
HISTORY_SLOTS = 32
_FLAGS = 4  # [entry present, chance outcome, chance outcome seen, another player's secret move or decision]


def known_information(state, player: int) -> dict:
    """`state.information_state(player)` with another player's decision answers reduced to
    who answered, and without the observation's step counter (equal knowledge, equal data)."""
    return known_information_from(state, player, KnownHistory(player))[0]


def known_information_from(state, player: int, earlier: "KnownHistory") -> tuple:
    """(`known_information(state, player)`, its KnownHistory), the history built on from
    `earlier` (the KnownHistory of an earlier node of the game: only the entries since are
    read; any other KnownHistory of the player works too, only slower)."""
    info = state.information_state(player)
    observation = dict(info["observation"])
    observation.pop("step", None)
    known = earlier.extended(info["history"])
    return {"player": player, "observation": observation, "history": list(known.known)}, known


class KnownHistory:
    """The history part of `known_information` for one player, with each entry's JSON text,
    built on from the one of an earlier node of the same game: when the engine's history
    (`information_state(player)["history"]`) starts with the entries this was built from, only
    the new ones are read. Never changed once built (clones of a game share it)."""

    __slots__ = ("player", "source", "known", "texts")

    def __init__(self, player: int, source: list = (), known: list = (), texts: list = ()):
        self.player = player
        self.source = list(source)  # the engine's history entries this was built from
        self.known = list(known)
        self.texts = list(texts)

    def extended(self, history: list) -> "KnownHistory":
        """The KnownHistory of `history` (the engine's history of a later node, or any)."""
        start = len(self.source)
        if len(history) < start or history[:start] != self.source:  # not a later node of this game
            start = 0
        new = [_known_entry(entry, self.player) for entry in history[start:]]
        return KnownHistory(self.player, history, self.known[:start] + new,
                            self.texts[:start] + [json.dumps(entry, sort_keys=True, default=str) for entry in new])


def known_text(info: dict, texts: list) -> str:
    """`json.dumps(info, sort_keys=True, default=str)` of a `known_information` dict whose
    history entries' texts are `texts` (so the entries are not encoded again)."""
    observation = json.dumps(info["observation"], sort_keys=True, default=str)
    return f'{{"history": [{", ".join(texts)}], "observation": {observation}, "player": {json.dumps(info["player"])}}}'


def _known_entry(entry: dict, player: int) -> dict:
    action = entry.get("action")
    if isinstance(action, dict) and action.get("action") == "choose" and action.get("player") != player:
        return {"player": action.get("player"), "action": "choose", "secret": True}
    return entry


class InformationStateLayout:
    """A fixed-size float vector for `known_information(state, player)`.

    [the observation vector (ObservationLayout)], [history length / max game length], then the
    last `history_slots` entries of the history, oldest first (the window: HISTORY_SLOTS unless
    given, and never more than the max game length, so a game that short is kept whole), each:
    [present, chance, chance seen, hidden], seat one-hot (players), action block one-hot (the
    action space's blocks), and one float per parameter (the most any block has): the value's
    (position + 1) / domain size, 0 when hidden; a seen chance outcome puts its
    (atom position + 1) / atoms in the first parameter float."""

    def __init__(self, space, layout: ObservationLayout, max_game_length: int, history_window=None):
        self.space = space
        self.layout = layout
        self.players = layout.players
        self.max_game_length = max(1, max_game_length)
        window = HISTORY_SLOTS if history_window is None else int(history_window)
        if window < 0:
            raise ValueError(f"the history window is a number of entries, 0 or more, not {history_window!r}")
        self.history_slots = min(window, self.max_game_length)
        self.complete = self.history_slots >= self.max_game_length  # every entry of any game fits
        self.block_index = {block.name: i for i, block in enumerate(space.blocks)}
        self.params = max((len(block.slots) for block in space.blocks), default=0)
        self.entry_size = _FLAGS + self.players + len(space.blocks) + max(1, self.params)
        self.size = layout.size + 1 + self.history_slots * self.entry_size

    def encode(self, state, player: int) -> list:
        """The vector for what `player` knows of `state` (floats, length `size`)."""
        return self.encode_info(known_information(state, player), player)

    def encode_info(self, info: dict, player: int) -> list:
        out = self.layout.encode_view(info["observation"], player)
        history = info["history"]
        out.append(min(1.0, len(history) / self.max_game_length))
        recent = history[-self.history_slots:] if self.history_slots else []
        for entry in recent:
            out.extend(self._entry(entry))
        out.extend([0.0] * ((self.history_slots - len(recent)) * self.entry_size))
        return out

    def _entry(self, entry: dict) -> list:
        vector = [0.0] * self.entry_size
        vector[0] = 1.0
        seats, blocks = _FLAGS, _FLAGS + self.players
        values = blocks + len(self.space.blocks)
        if "chance" in entry:
            vector[1] = 1.0
            outcome = entry["chance"]
            if outcome != "hidden":
                vector[2] = 1.0
                position = self.space.atoms.index.get(value_key(outcome)) if isinstance(outcome, str) else None
                vector[values] = 0.0 if position is None else (position + 1) / self.space.atoms.size
            return vector
        move = entry.get("action")
        move = move if isinstance(move, dict) else entry
        seat = move.get("player")
        if isinstance(seat, int) and 0 <= seat < self.players:
            vector[seats + seat] = 1.0
        name = move.get("action")
        if name in self.block_index:
            vector[blocks + self.block_index[name]] = 1.0
        if entry.get("secret") or move.get("secret"):
            vector[3] = 1.0
            return vector
        self._values(name, move.get("args") or {}, vector, values)
        return vector

    def _values(self, name, args: dict, vector: list, offset: int) -> None:
        block = self.space.by_name.get(name)
        for number, slot in enumerate(block.slots if block is not None else ()):
            position = slot.index.get(value_key(args.get(slot.name)))
            if position is not None:
                vector[offset + number] = (position + 1) / slot.size
