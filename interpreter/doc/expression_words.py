"""Expressions in plain words, for the generated rulebook (`rulebook doc`).

Owns: the readable rendering of the expression language ("you have at least 1 assets", "your
assets"): comparisons, and/or/not, len/count/sum/any/all, `in`, ranges, comprehensions, indexing
by the acting player; the rich-text code spans (`code`, `strip_code`) and `humanize`. Anything
without words falls back to its expression text, marked as code, so that nothing is ever hidden.

Effects and statements in words are doc.words (`Words` extends `ExpressionWords`); the expression
text fallback is unparse.py. The text returned is "rich text": plain characters plus code spans
between CODE_OPEN and CODE_CLOSE, which each output format turns into its own code markup.
"""
from __future__ import annotations

from typing import Callable, Optional

from .unparse import _PRECEDENCE, _is_tree, _kids, _wrap, unparse

__all__ = ["CODE_OPEN", "CODE_CLOSE", "code", "strip_code", "humanize", "ExpressionWords"]

CODE_OPEN, CODE_CLOSE = "\x02", "\x03"


def code(text) -> str:
    """`text` shown as code."""
    return f"{CODE_OPEN}{text}{CODE_CLOSE}"


def strip_code(rich: str) -> str:
    """Rich text as plain text (code spans keep their text)."""
    return rich.replace(CODE_OPEN, "").replace(CODE_CLOSE, "")


# ------------------------------------------------------------------------------ words
_COMPARE_WORDS = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most",
                  ">": "is more than", ">=": "is at least", "in": "is in", "not in": "is not in"}
_HAVE_WORDS = {">=": "at least", ">": "more than", "<": "fewer than", "<=": "at most", "==": "exactly"}
_ARITH_WORDS = {"add": "+", "sub": "−", "mul": "×", "div": "÷", "floordiv": "÷", "mod": "mod"}
_AGGREGATES = {"sum": "the total of", "count": "the number of", "len": "the number of",
               "max": "the largest of", "min": "the smallest of", "distinct": "the distinct",
               "keys": "the keys of", "values": "the values of", "first": "the first of",
               "last": "the last of", "list": "the list of", "biggest": "the single biggest owner in",
               "combined": "the combined counts of", "abs": "the absolute value of",
               "sorted": "sorted", "reversed": "reversed"}


def humanize(name) -> str:
    """A designer's identifier as words: `open_positions` -> 'open positions'."""
    return str(name).replace("_", " ")

class ExpressionWords:
    """Renders the expressions of one ruleset in words. `per_player` names the
    per-player vars (so `chips[w]` reads "w's chips"), `procedures` maps a procedure to its
    parameters (so `do:` lists what it is given)."""

    def __init__(self, per_player=(), procedures=None, parse: Optional[Callable] = None):
        self.per_player = set(per_player)
        self.procedures = dict(procedures or {})
        self._parse = parse

    # entry points -------------------------------------------------------------------------
    def expr(self, text) -> str:
        """An expression in words; its code where it cannot be parsed."""
        if isinstance(text, bool):
            return "always" if text else "never"
        if isinstance(text, (int, float)):
            return str(text)
        return self.in_words(text, "expression", self.w)

    def in_words(self, text, start, render) -> str:
        """`render(tree)` of the text parsed from `start`; the text as code where it cannot be
        parsed, the parsed tree written back as code where `render` has no words for it."""
        tree = self.parse(text, start)
        if tree is None:
            return code(" ".join(str(text).split()))
        try:
            return render(tree)
        except (IndexError, AttributeError, TypeError, ValueError):
            return code(unparse(tree))

    def condition(self, text) -> str:
        """An expression in words, followed by its code when the words differ from it."""
        words = self.expr(text)
        plain = " ".join(str(text).split()) if not isinstance(text, bool) else str(text).lower()
        if strip_code(words) == plain or words == code(plain):
            return words
        return f"{words} ({code(plain)})"

    def parse(self, text, start):
        if self._parse is None:
            from ..expr import parse as parse_expression

            self._parse = parse_expression
        try:
            return self._parse(str(text), start)
        except Exception:  # noqa: BLE001 - any parse problem: the caller shows the text as code
            return None

    # nodes ----------------------------------------------------------------------------------
    def w(self, node) -> str:
        if not _is_tree(node):
            return str(node)
        method = getattr(self, "w_" + node.data.rstrip("_"), None)
        if method is None:
            return code(unparse(node))
        return method(node, _kids(node))

    def _sub(self, child, parent_prec: int) -> str:
        return _wrap(child, parent_prec, self.w(child))

    def w_expression(self, node, kids):
        return self.w(kids[0])

    def w_number(self, node, kids):
        return str(kids[0])

    def w_string(self, node, kids):
        return "“" + str(kids[0])[1:-1] + "”"

    def w_name(self, node, kids):
        return "you" if str(kids[0]) == "player" else humanize(kids[0])

    def w_true(self, node, kids):
        return "true"

    def w_false(self, node, kids):
        return "false"

    def w_none(self, node, kids):
        return "none"

    def w_list(self, node, kids):
        if not kids:
            return "nothing (an empty list)"
        return "[" + ", ".join(self.w(k) for k in kids) + "]"

    def w_and(self, node, kids):
        return f"{self._sub(kids[0], 3)} and {self._sub(kids[1], 3)}"

    def w_or(self, node, kids):
        return f"{self._sub(kids[0], 2)} or {self._sub(kids[1], 2)}"

    def w_not(self, node, kids):
        inner = kids[0]
        if _is_tree(inner) and inner.data == "compare" and len(inner.children) == 3:
            flipped = {"in": "not in", "==": "!=", "!=": "=="}.get(_op(inner.children[1]))
            if flipped:
                return self._compare2(inner.children[0], flipped, inner.children[2])
        return f"not {self._sub(inner, 4)}"

    def w_ifexp(self, node, kids):
        return f"{self._sub(kids[0], 2)} if {self._sub(kids[1], 2)}, otherwise {self.w(kids[2])}"

    def w_let(self, node, kids):
        return f"(with {kids[0]} = {self.w(kids[1])}) {self.w(kids[2])}"

    def _arith(self, node, kids):
        prec = _PRECEDENCE[node.data]
        text = f"{self._sub(kids[0], prec)} {_ARITH_WORDS[node.data]} {self._sub(kids[1], prec + 1)}"
        return text + (" (rounded down)" if node.data == "floordiv" else "")

    w_add = w_sub = w_mul = w_div = w_floordiv = w_mod = _arith

    def w_neg(self, node, kids):
        return f"−{self._sub(kids[0], 8)}"

    def w_compare(self, node, kids):
        operands = kids[0::2]
        ops = [_op(k) for k in kids[1::2]]
        if len(ops) == 1:
            return self._compare2(operands[0], ops[0], operands[1])
        if all(op == "==" for op in ops):
            names = [self._sub(o, 6) for o in operands]
            return ", ".join(names[:-1]) + f" and {names[-1]} are all equal"
        return code(unparse(node))

    def _compare2(self, left, comparison, right) -> str:
        if _is_none(right) and comparison in ("==", "!="):
            return f"{self._sub(left, 6)} is {'not set' if comparison == '==' else 'set'}"
        emptiness = _emptiness(left, comparison, right)
        if emptiness is not None:
            return f"{self.w(_kids(left.children[1])[0])} is {emptiness}"
        owned = self._owned_name(left)
        if owned is not None and comparison in _HAVE_WORDS and _is_amount(right):
            return f"you have {_HAVE_WORDS[comparison]} {self._sub(right, 6)} {owned}"
        if comparison in ("in", "not in") and _is_tree(right) and right.data == "list":
            options = " or ".join(self.w(k) for k in _kids(right))
            return f"{self._sub(left, 6)} is {'not ' if comparison == 'not in' else ''}{options}"
        return f"{self._sub(left, 6)} {_COMPARE_WORDS[comparison]} {self._sub(right, 6)}"

    def _owned_name(self, node) -> Optional[str]:
        """'assets' for `assets[player]` or `spendable(player)`: something the actor has."""
        if not _is_tree(node):
            return None
        kids = _kids(node)
        if node.data == "index" and _is_player(kids[1]) and _is_tree(kids[0]) and kids[0].data == "name":
            return humanize(_kids(kids[0])[0])
        if node.data == "call" and node.children[1] is not None:
            args = _kids(node.children[1])
            if len(args) == 1 and _is_player(args[0]):
                return humanize(node.children[0])
        return None

    def w_attr(self, node, kids):
        base, name = kids
        if _is_player(base):
            return f"your {humanize(name)}"
        if _is_tree(base) and base.data == "name":
            return f"{self.w(base)}'s {humanize(name)}"
        return f"the {humanize(name)} of {self._sub(base, 10)}"

    def w_index(self, node, kids):
        base, key = kids
        if _is_player(key):
            return f"your {self._sub(base, 10)}"
        literal = str(_kids(key)[0]) if _is_tree(key) and key.data == "number" else None
        if literal == "0":
            return f"the first of {self._sub(base, 10)}"
        if _is_tree(key) and key.data == "neg" and unparse(key) == "-1":
            return f"the last of {self._sub(base, 10)}"
        if (_is_tree(base) and base.data == "name" and str(_kids(base)[0]) in self.per_player
                and _is_tree(key) and key.data == "name"):
            return f"{self.w(key)}'s {self.w(base)}"
        return _of(self._sub(base, 10), self._sub(key, 10))

    def w_slice(self, node, kids):
        base, low, high = node.children
        if low is None and high is not None:
            return f"the first {self.w(high)} of {self._sub(base, 10)}"
        if high is None and low is not None:
            return f"{self._sub(base, 10)} from position {self.w(low)} on"
        return code(unparse(node))

    def w_call(self, node, kids):
        name = str(node.children[0])
        args_node = node.children[1]
        if args_node is not None and args_node.data == "genexp_arg":
            return self._aggregate(name, args_node)
        args = _kids(args_node) if args_node is not None else []
        if any(_is_tree(a) and a.data == "kwarg" for a in args):
            return code(unparse(node))
        if name == "range":
            return self._range(args)
        if name == "count" and len(args) == 2:
            return f"the number of {self._sub(args[1], 10)} in {self._sub(args[0], 10)}"
        if name in ("any", "all") and len(args) == 1:
            return f"{'any' if name == 'any' else 'all'} of {self._sub(args[0], 10)}"
        if name in _AGGREGATES and len(args) == 1:
            return f"{_AGGREGATES[name]} {self._sub(args[0], 10)}"
        if len(args) == 1 and _is_player(args[0]):
            return _about_you(name)
        return f"{name}({', '.join(self.w(a) for a in args)})"

    def _range(self, args) -> str:
        if len(args) == 1:
            return f"the numbers from 0 to {_minus_one(args[0]) or self._sub(args[0], 7) + ' − 1'}"
        if len(args) == 2:
            low, high = args
            if _is_tree(high) and high.data == "add" and unparse(_kids(high)[1]) == "1":
                return f"the numbers from {self.w(low)} to {self.w(_kids(high)[0])}"
            return f"the numbers from {self.w(low)} to {_minus_one(high) or self._sub(high, 7) + ' − 1'}"
        return code("range(" + ", ".join(unparse(a) for a in args) + ")")

    def _aggregate(self, name, gen) -> str:
        element, clauses = _kids(gen)
        over = self._clauses(element, clauses)
        if name == "any":
            return f"{self._sub(element, 4)} for some {over}"
        if name == "all":
            return f"{self._sub(element, 4)} for every {over}"
        prefix = _AGGREGATES.get(name)
        if prefix is None:
            return code(f"{name}({unparse(gen)})")
        if name == "count" and _same_target(element, clauses):
            return f"{prefix} {over}"
        return f"{prefix} {self._sub(element, 10)} for each {over}"

    def _clauses(self, element, comp_for) -> str:
        """'c in corp where c's sector is “energy”' (and further clauses after a comma)."""
        parts = []
        for clause in _kids(comp_for):
            clause_parts = _kids(clause)
            targets = ", ".join(str(t) for t in _kids(clause_parts[0]))
            text = f"{targets} in {self._sub(clause_parts[1], 3)}"
            conditions = [self.w(_kids(c)[0]) for c in clause_parts[2:]]
            if conditions:
                text += " where " + " and ".join(conditions)
            parts.append(text)
        return ", for each ".join(parts)

    def w_listcomp(self, node, kids):
        element, clauses = kids
        over = self._clauses(element, clauses)
        if _same_target(element, clauses):
            return f"every {over}"
        return f"the list of {self._sub(element, 10)} for each {over}"

    def w_setcomp(self, node, kids):
        element, clauses = kids
        return f"the distinct {self._sub(element, 10)} for each {self._clauses(element, clauses)}"


# ------------------------------------------------------------------------------ helpers
_PREDICATES = {"can": "you can", "is": "you are", "has": "you have", "must": "you must", "may": "you may"}
_PREPOSITIONS = ("at", "of", "in", "on", "for", "by", "to", "from")


def _about_you(name) -> str:
    """`spendable(player)` -> 'your spendable'; `can_buy_goal(player)` -> 'you can buy goal'."""
    first, _, rest = str(name).partition("_")
    if first in _PREDICATES and rest:
        return f"{_PREDICATES[first]} {humanize(rest)}"
    return f"your {humanize(name)}"


def _of(base: str, key: str) -> str:
    """'stake of c'; 'corp at pos' when the name ends with its own preposition (`corp_at`)."""
    if base.rsplit(" ", 1)[-1] in _PREPOSITIONS:
        return f"{base} {key}"
    return f"{base} of {key}"


def _op(node) -> str:
    return " ".join(str(t) for t in node.children)


def _is_player(node) -> bool:
    return _is_tree(node) and node.data == "name" and str(node.children[0]) == "player"


def _is_none(node) -> bool:
    return _is_tree(node) and node.data == "none"


def _is_amount(node) -> bool:
    """A number or arithmetic on numbers and names: something one can 'have at least' of."""
    return _is_tree(node) and node.data in ("number", "add", "sub", "mul", "name", "neg")


def _emptiness(left, comparison, right) -> Optional[str]:
    """'empty' / 'not empty' for len(x) == 0, len(x) > 0, len(x) >= 1, len(x) != 0."""
    if not (_is_tree(left) and left.data == "call" and str(left.children[0]) == "len"
            and left.children[1] is not None and len(_kids(left.children[1])) == 1):
        return None
    if not (_is_tree(right) and right.data == "number"):
        return None
    value = str(_kids(right)[0])
    if (comparison, value) in (("==", "0"), ("<", "1"), ("<=", "0")):
        return "empty"
    if (comparison, value) in ((">", "0"), (">=", "1"), ("!=", "0")):
        return "not empty"
    return None


def _minus_one(node) -> Optional[str]:
    """`n - 1` for a whole number literal n (the last number of a range), else None."""
    if _is_tree(node) and node.data == "number" and str(node.children[0]).isdigit():
        return str(int(str(node.children[0])) - 1)
    return None


def _same_target(element, comp_for) -> bool:
    clauses = _kids(comp_for)
    if len(clauses) != 1 or not (_is_tree(element) and element.data == "name"):
        return False
    targets = [str(t) for t in _kids(_kids(clauses[0])[0])]
    return targets == [str(_kids(element)[0])]
