"""Rule coverage: which procedures were called, which named expressions (defines) were
evaluated and which branch of each `if` was taken, counted while a game is played.

Off by default and free when off: nothing in the effect machine or the expression runtime
checks for it. `instrument(ruleset, coverage)` returns a copy of a Ruleset whose effect blocks
count into `coverage`: each procedure's block and each branch of an `if` (an `if` without
`else` gets an empty counted `else`) starts with one counting statement. Defines are counted
by wrapping their compiled functions in the ruleset's expression namespace. That namespace is
shared with `ruleset`: a game of `ruleset` played while the recorder records counts its defines too, so
record one game at a time (`start`/`stop`; `paused` for an agent's search on copies).

Owns: the coverage points of a ruleset (`points`), their keys, and the counting copy."""
from __future__ import annotations

import contextlib
import dataclasses
import os
from typing import Any

from . import effects as fx

__all__ = ["Coverage", "instrument", "points", "Point"]


@dataclasses.dataclass(frozen=True)
class Point:
    """One thing that can be covered: kind 'procedure', 'define', 'then' or 'else'; `name`
    is the procedure or define name, or the `if` condition's text; `pos` its place in the rules
    (a Pos, or None when the tree has none)."""

    key: str
    kind: str
    name: str
    pos: Any = None


class Coverage:
    """The coverage keys hit (with counts) while recording: `start()` clears the counts and
    records until `stop()`."""

    def __init__(self):
        self.counts: dict = {}
        self.recording = False

    def hit(self, key: str) -> None:
        if self.recording:
            self.counts[key] = self.counts.get(key, 0) + 1

    def start(self) -> None:
        self.counts = {}
        self.recording = True

    def stop(self) -> None:
        self.recording = False

    @contextlib.contextmanager
    def paused(self):
        """Nothing is counted inside the block (an agent searching on copies of the state)."""
        before, self.recording = self.recording, False
        try:
            yield
        finally:
            self.recording = before


def _if_key(ruleset, effect, branch: str, place: tuple) -> str:
    """'then@game.yaml:29:9': the path inside the ruleset folder, so that the same rules loaded
    from another folder (a Ray worker's copy) give the same keys."""
    pos = effect.pos
    if pos is None or not getattr(pos, "line", 0):
        return f"{branch}@?:block {place[0]}, effect {place[1]}"
    path = os.path.relpath(os.path.abspath(pos.file), os.path.abspath(ruleset.folder))
    return f"{branch}@{path}:{pos.line}:{pos.col}"


def points(ruleset) -> list:
    """Every coverage point of a compiled ruleset, in the order of its blocks."""
    out = [Point(f"procedure:{name}", "procedure", name) for name in ruleset.proc_blocks]
    out += [Point(f"define:{name}", "define", name) for name in _defines(ruleset)]
    for index, block in enumerate(ruleset.blocks):
        for position, effect in enumerate(block or ()):
            if isinstance(effect, fx.If):
                text = getattr(effect.condition, "source", "")
                for branch in ("then", "else"):
                    out.append(Point(_if_key(ruleset, effect, branch, (index, position)), branch, text, effect.pos))
    return out


def _defines(ruleset) -> list:
    tree = getattr(ruleset, "tree", None)
    return [str(name) for name in ((tree.get("define") if tree is not None else None) or {})]


class _Count:
    """A statement handle whose function counts one key (the statement has no effect)."""

    __slots__ = ("key", "coverage")

    def __init__(self, key: str, coverage: Coverage):
        self.key = key
        self.coverage = coverage

    def fn(self, _vars, _locals):
        self.coverage.hit(self.key)


def instrument(ruleset, coverage: Coverage):
    """A copy of `ruleset` that counts its procedures, defines and `if` branches into `coverage`."""
    blocks = list(ruleset.blocks)
    counted = [(block, f"procedure:{name}") for name, block in ruleset.proc_blocks.items()]
    for index, block in enumerate(ruleset.blocks):
        new_effects = []
        for position, effect in enumerate(block or ()):
            if isinstance(effect, fx.If):
                if effect.else_block is None:  # an empty `else`, so that "never false" shows
                    blocks.append(())
                    effect = dataclasses.replace(effect, else_block=len(blocks) - 1)
                counted += [(effect.then_block, _if_key(ruleset, effect, "then", (index, position))),
                            (effect.else_block, _if_key(ruleset, effect, "else", (index, position)))]
            new_effects.append(effect)
        blocks[index] = tuple(new_effects)
    for block, key in counted:
        blocks[block] = (fx.Stmt(_Count(key, coverage), f"coverage {key}"),) + tuple(blocks[block] or ())
    _wrap_defines(ruleset, coverage)
    return dataclasses.replace(ruleset, blocks=blocks, simple_blocks=fx.simple_blocks(blocks),
                               chanceless_blocks=fx.simple_blocks(blocks, chance=False))


def _wrap_defines(ruleset, coverage: Coverage) -> None:
    """Each define's compiled function `d_NAME` counts, then evaluates (compiled first if the
    namespace compiles lazily). Wrapped once per namespace; the recorder can be replaced."""
    namespace = getattr(getattr(ruleset, "unit", None), "ns", None)
    if namespace is None:
        return
    holder = namespace.get("_coverage_recorder")
    if holder is not None:
        holder[0] = coverage
        return
    holder = namespace["_coverage_recorder"] = [coverage]
    for name in _defines(ruleset):
        function = namespace.get(f"d_{name}")
        if function is None:
            continue
        if "_LAZY" in namespace:
            function = namespace["_LAZY"](f"d_{name}")
        namespace[f"d_{name}"] = _counting(function, f"define:{name}", holder)


def _counting(function, key: str, holder: list):
    def counted(*args):
        holder[0].hit(key)
        return function(*args)

    counted.__name__ = function.__name__
    return counted
