"""Effects and statements in plain words, for the generated rulebook (`rulebook doc`).

Owns: `Words`, which renders effect lists as a nested list of sentences (`Item`s):
assignments ("add 2 to your assets"), move/shuffle/draw/choose/for/if (each kind rendered by
effect_words.py), and the provenance note of an effect. Expressions in words are
expression_words.py (`ExpressionWords`, the base of `Words`; its `code`, `strip_code`,
`humanize` and code-span markers are re-exported here), the expression text fallback unparse.py.
Does not own parsing (interpreter.expr) or the page layout (doc.model, doc.markdown, doc.html).
"""
from __future__ import annotations

from typing import Optional

from ..compile_effects import PROVENANCE_KEYS
from .expression_words import (CODE_CLOSE, CODE_OPEN, ExpressionWords, _is_player, _of, code, humanize,
                               strip_code)
from .unparse import _is_tree, _kids, unparse

__all__ = ["CODE_OPEN", "CODE_CLOSE", "code", "strip_code", "humanize", "Item", "Words", "unparse"]


class Item:
    """One line of an effect list in words, with the lines nested under it."""

    __slots__ = ("text", "children")

    def __init__(self, text: str, children: Optional[list] = None):
        self.text = text
        self.children = children or []

    def lines(self, depth: int = 0) -> list:
        """The item and its children as (depth, text) pairs."""
        out = [(depth, self.text)]
        for child in self.children:
            out.extend(child.lines(depth + 1))
        return out


class Words(ExpressionWords):
    """Renders expressions (see ExpressionWords) and effects of one ruleset in words."""

    def effects(self, effects) -> list:
        """An effect list as a list of `Item`s."""
        if not isinstance(effects, list):
            effects = [effects] if effects else []
        items = []
        for effect in effects:
            items.extend(self.effect(effect))
        return items

    def effect(self, effect) -> list:
        if isinstance(effect, str):
            return [Item(self.statement(effect))]
        if not isinstance(effect, dict):
            return [Item(code(effect))]
        keys = [k for k in effect if k not in PROVENANCE_KEYS]
        from .effect_words import EFFECTS  # (its renderers call back into Words)

        render = next((EFFECTS[k] for k in keys if k in EFFECTS), None)
        items = render(self, effect) if render else [Item(code(_flow(effect)))]
        note = provenance_note(effect)
        if note and items:
            items[0].text += f" ({note})"
        return items

    def statement(self, text) -> str:
        return self.in_words(text, "statement", self._statement)

    def _statement(self, tree) -> str:
        target, operator, value = _kids(tree)
        operator = str(operator)
        where = self.target(target)
        if operator == "=" and _is_tree(value) and value.data == "add" and unparse(_kids(value)[0]) == unparse(target):
            return f"add {self._sub(_kids(value)[1], 7)} to {where}"
        if operator == "=":
            return f"set {where} to {self.w(value)}"
        if operator == "+=":
            return f"add {self.w(value)} to {where}"
        if operator == "-=":
            return f"take {self.w(value)} from {where}"
        if operator == "*=":
            return f"multiply {where} by {self.w(value)}"
        return f"divide {where} by {self.w(value)}, rounding down"

    def target(self, node) -> str:
        kids = _kids(node)
        if node.data == "t_name":
            return humanize(kids[0])
        if node.data == "t_attr":
            return f"the {humanize(kids[1])} of {self.target(kids[0])}"
        base, key = kids
        if _is_player(key):
            return f"your {self.target(base)}"
        if base.data == "t_name" and str(_kids(base)[0]) in self.per_player and _is_tree(key) and key.data == "name":
            return f"{self.w(key)}'s {self.target(base)}"
        return _of(self.target(base), self._sub(key, 10))


def provenance_note(node) -> str:
    """'rulebook: …; reconstructed: …' for a mapping that carries provenance keys."""
    if not isinstance(node, dict):
        return ""
    names = {"source": "rulebook", "reconstructed": "reconstructed", "interpretation": "interpretation"}
    return "; ".join(f"{names[k]}: {node[k]}" for k in PROVENANCE_KEYS
                     if node.get(k) not in (None, False, ""))


def _flow(value) -> str:
    """A YAML value in flow style, for an effect without words."""
    import json

    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)
