"""The start of a compiled game: the positions after set-up memoised by the chance outcomes
set-up drew, fresh copies of a memoised position's vars, and the chance a game draws from.

Owns: `StartMemo` (and its `StartDraw` nodes), `fresh_copier`, `ChanceHolder`, `chance_effect`.
"""
from __future__ import annotations

import functools
import marshal
import math

from ..engine.chance import ChanceNeeded, seeded_index

__all__ = ["StartMemo", "StartDraw", "fresh_copier", "ChanceHolder", "chance_effect", "MEMO_DRAWS", "MEMO_STARTS"]

MEMO_DRAWS = 8  # a set-up that draws more often is not memoised (a shuffled deck of 52: no two alike)
MEMO_STARTS = 4096  # start positions memoised per player count at most
LITERAL_NODES = 2000  # vars with more values than this are copied by marshal, not by a literal
LITERAL_DEPTH = 40  # nor vars nested deeper (Python's parser stops at 200 nested brackets)
_NOREF = 2


class StartDraw:
    """A node of a StartMemo: set-up draws from `count` options here; `after` maps each outcome
    seen to what follows (the next StartDraw, or the position)."""

    __slots__ = ("count", "after")

    def __init__(self, count: int):
        self.count = count
        self.after: dict = {}


class StartMemo:
    """The positions after set-up for one player count, by the chance outcomes set-up drew.
    Set-up runs the same code from the same vars, so the same outcomes give the same position:
    a set-up that draws nothing has one position (tic-tac-toe), a shuffled three-card deck six
    (Kuhn poker). The seeded RNG is counter-based, so finding a game's position is drawing its
    outcomes one by one (`find`); a set-up that draws more than MEMO_DRAWS times, or a player
    count past MEMO_STARTS positions, is set up by the generated code every time."""

    __slots__ = ("root", "size", "open")

    def __init__(self):
        self.root = None  # a StartDraw, the position (when set-up draws nothing), or None
        self.size = 0
        self.open = True  # are new positions recorded?

    def find(self, rng: list):
        """The position for the seeded RNG `rng` (its counter moved past set-up's draws), or
        None when it is not known yet (the counter is then anywhere)."""
        node = self.root
        while type(node) is StartDraw:
            node = node.after.get(seeded_index(rng, node.count))
        return node

    def add(self, draws: list, position) -> None:
        """Keep `position`, reached by set-up drawing `draws` ([(count, outcome)], in order)."""
        if self.size >= MEMO_STARTS:
            self.open = False
            return
        if not draws:
            self.root = position
        else:
            if self.root is None:
                self.root = StartDraw(draws[0][0])
            node = self.root
            for number, (count, outcome) in enumerate(draws):
                if type(node) is not StartDraw or node.count != count:
                    return  # not the path of an earlier set-up (set-up read something besides chance)
                if number == len(draws) - 1:
                    node.after[outcome] = position
                else:
                    node = node.after.setdefault(outcome, StartDraw(draws[number + 1][0]))
        self.size += 1


class ChanceHolder:
    """What the reference's chance effects read of a game: `d["rng"]`, the game's seeded RNG.
    While set-up is recorded for the StartMemo, `drawn` lists its draws as (count, outcome)."""

    __slots__ = ("d", "drawn")

    def __init__(self, rng: list, recording: bool = False):
        self.d = {"rng": rng}
        self.drawn = [] if recording else None

    def record(self, handler, effect, game_vars: dict, names: dict) -> None:
        """Run a chance effect, recording its draws: the draws are given to it as a chance node's
        outcomes are (engine/chance.py `draw`), each the seeded RNG's next one, so the game is the
        same as when drawn directly; an effect draws everything before it changes anything."""
        rng = self.d["rng"]
        begin = rng[1]
        counts, given = [], []
        frame = {"draws": given, "drawn": 0}
        self.d["rng"] = None
        try:
            while len(self.drawn) + len(given) <= MEMO_DRAWS:
                frame["drawn"] = 0
                try:
                    handler(self, effect, frame, game_vars, names)
                except ChanceNeeded as needed:
                    counts.append(len(needed.options))
                    given.append(seeded_index(rng, counts[-1]))
                    continue
                self.drawn.extend(zip(counts, given))
                return
        finally:
            self.d["rng"] = rng
        self.drawn = None  # too many draws to memoise: drawn again from the RNG (the same outcomes)
        rng[1] = begin
        handler(self, effect, None, game_vars, names)


def chance_effect(handler):
    """The runtime function of a chance effect (shuffle, random): the reference's handler, its
    draws recorded while set-up is (ChanceHolder.record)."""
    def run(holder, effect, frame, game_vars, names):
        if holder.drawn is None:
            return handler(holder, effect, frame, game_vars, names)
        return holder.record(handler, effect, game_vars, names)
    return run


def fresh_copier(value):
    """A function that returns a new copy of the plain data `value` (the vars of a start
    position) each time it is called: a literal display of it, which Python builds two to
    three times faster than marshal reads the same data back; marshal when the data is large
    or holds what a literal cannot write (a float that is not finite)."""
    pieces: list = []
    if _literal(value, pieces, [LITERAL_NODES], 0):
        namespace: dict = {"__builtins__": {}}
        # plain data written by repr (numbers, texts, true/false/none, lists, maps): no rule text is code
        return eval(compile("lambda: " + "".join(pieces), "<start position>", "eval"), namespace)  # noqa: S307
    return functools.partial(marshal.loads, marshal.dumps(value, _NOREF))


def _literal(value, pieces: list, left: list, depth: int) -> bool:
    """Append the source of `value` to `pieces`; False when a literal cannot write it (or it
    has more than `left[0]` values, or is nested deeper than LITERAL_DEPTH)."""
    left[0] -= 1
    if left[0] < 0 or depth > LITERAL_DEPTH:
        return False
    kind = type(value)
    if kind is float and not math.isfinite(value):
        return False
    if kind in (int, str, bool, float) or value is None:
        pieces.append(repr(value))
        return True
    if kind is list:
        pieces.append("[")
        for item in value:
            if not _literal(item, pieces, left, depth + 1):
                return False
            pieces.append(", ")
        pieces.append("]")
        return True
    if kind is dict:
        pieces.append("{")
        for key, item in value.items():
            if type(key) not in (int, str) or not _literal(key, pieces, left, depth + 1):
                return False
            pieces.append(": ")
            if not _literal(item, pieces, left, depth + 1):
                return False
            pieces.append(", ")
        pieces.append("}")
        return True
    return False
