"""The generated code of the operators: `and`, `or`, `not`, comparisons (with `in`), the
conditional expression and arithmetic, with the light type checks that refuse `'a' - 1` before
play. An operator whose cost or failure depends on its operands becomes a call of a checked
runtime helper (`_mul`, `_add`, `_in`, `_div`, ...; see operators.py); the others stay plain
Python operators.

Owns: `OperatorCode`, a part of the generator (`_Gen` in generate.py).
"""
from __future__ import annotations

from .generate_calls import shared_constant
from .proofs import proves_number
from .types import (BOOL, NONE, NUM, STR, _is_int_literal, _is_num_literal, _is_small_literal,
                    _tname)

_ORDERING = ("<", ">", "<=", ">=")


class OperatorCode:
    """The `g_*` methods of the operators (mixed into `_Gen`, which gives `gen` and `err`)."""

    def g_ifexp(self, node, lex):
        with self.recording("true") as if_true, self.recording("false") as if_false:
            condition, _ = self.gen(node.children[1], lex)
        with self.sometimes():
            then_code, then_type = self.gen(node.children[0], lex)
            else_code, else_type = self.gen(node.children[2], lex)
        # a call the condition made is not made again by a branch (generate_sharing.py)
        condition, then_code, else_code = self.share_branches(condition, if_true, if_false, (then_code, else_code))
        return f"({then_code} if {condition} else {else_code})", then_type if then_type == else_type else None

    def _operand_codes(self, node, lex) -> tuple:
        """The code of the two operands of a binary operator (their types left aside)."""
        return self.gen(node.children[0], lex)[0], self.gen(node.children[1], lex)[0]

    def _short_circuit_codes(self, node, lex, right_runs_when) -> tuple:
        """The code of the operands of `and` (the right runs when the left is "true") or
        `or` ("false"): the right does not make again a call the left made."""
        with self.recording(right_runs_when) as calls:
            left, _ = self.gen(node.children[0], lex)
        with self.sometimes(right_runs_when):
            right, _ = self.gen(node.children[1], lex)
        left, (right,) = self.share(left, calls, [right])
        return left, right

    def g_or(self, node, lex):
        left, right = self._short_circuit_codes(node, lex, "false")
        return f"({left} or {right})", None

    def g_and(self, node, lex):
        left, right = self._short_circuit_codes(node, lex, "true")
        return f"({left} and {right})", None

    def g_not(self, node, lex):
        with self.negated():
            operand, _ = self.gen(node.children[0], lex)
        return f"(not {operand})", BOOL

    def g_compare(self, node, lex):
        children = node.children
        first, first_type = self.gen(children[0], lex)
        parts = []
        native = [first]  # the same chain in Python's own syntax, when it has no 'in'
        left, left_type = first, first_type
        for position in range(1, len(children), 2):
            operator = " ".join(str(word) for word in children[position].children)
            if position == 1:
                right, right_type = self.gen(children[position + 1], lex)
            else:  # a < b < c: c is evaluated only when a < b
                with self.sometimes("true"):
                    right, right_type = self.gen(children[position + 1], lex)
            native += [operator, right]
            if operator in _ORDERING and {left_type, right_type} == {NUM, STR}:
                self.err(children[position], f"cannot compare {left_type} with {right_type} using '{operator}'",
                         code="type")
            folded = shared_constant(right)  # (`in` only reads a folded constant, and charges its length)
            searched = right if folded is None else folded
            if operator == "in":
                parts.append(f"_in({left}, {searched})")
            elif operator == "not in":
                parts.append(f"(not _in({left}, {searched}))")
            else:
                parts.append(f"({left} {operator} {right})")
            left, left_type = right, right_type
        if len(parts) == 1:
            return parts[0], BOOL
        if not any(operator in ("in", "not in") for operator in native[1::2]):
            # a < b < c: Python's chain evaluates each operand once
            return "(" + " ".join(native) + ")", BOOL
        # with 'in': Python semantics; operands are pure so evaluating twice is fine
        return "(" + " and ".join(parts) + ")", BOOL

    def _arith(self, node, lex, operator):
        """(left code, right code, left type, right type) of a binary arithmetic operator, with
        the operand types it cannot take refused."""
        left, left_type = self.gen(node.children[0], lex)
        right, right_type = self.gen(node.children[1], lex)
        if operator in "-/%" or operator == "//":
            for typ, child in ((left_type, node.children[0]), (right_type, node.children[1])):
                if typ in (STR, BOOL, NONE) or (isinstance(typ, tuple) and typ[0] == "list"):
                    self.err(child, f"'{operator}' needs numbers, not {_tname(typ)}", code="type")
        if operator == "+" and {left_type, right_type} == {NUM, STR}:
            self.err(node.children[1], "cannot add text and a number",
                     hint="use str(x) to turn a number into text", code="type")
        if operator == "+" and NONE in (left_type, right_type):
            self.err(node, "cannot add none", code="type")
        return left, right, left_type, right_type

    def g_add(self, node, lex):
        left, right, left_type, right_type = self._arith(node, lex, "+")
        typ = left_type if left_type == right_type else None
        if any(proves_number(side, self.scope, lex, self.proofs) for side in node.children):
            return f"({left} + {right})", typ  # a number and a number, or Python refuses it
        return f"_add({left}, {right})", typ  # lists or texts: the elements produced are charged

    def g_sub(self, node, lex):
        left, right, *_ = self._arith(node, lex, "-")
        return f"({left} - {right})", NUM

    def g_mul(self, node, lex):
        left, right, left_type, right_type = self._arith(node, lex, "*")
        if (_is_small_literal(left) and proves_number(node.children[1], self.scope, lex, self.proofs)
                or _is_small_literal(right) and proves_number(node.children[0], self.scope, lex, self.proofs)):
            return f"({left} * {right})", NUM  # growth bounded by the literal (stored numbers are checked)
        if left_type == NUM and right_type == NUM:
            return f"_mul({left}, {right})", NUM  # checked: repeated squaring would make huge numbers
        result_type = left_type if right_type == NUM else (right_type if left_type == NUM else None)
        if _is_int_literal(right) or _is_int_literal(left):
            # x * 2 with x of unknown type: a number, or a repeated list checked for length
            value, times = (left, right) if _is_int_literal(right) else (right, left)
            return f"_mulk({value}, {times})", result_type
        return f"_mul({left}, {right})", result_type

    def _division(self, node, lex, operator, helper):
        """`/`, `//` or `%`: a plain operator by a non-zero literal, else the checked helper
        (and for `%`, of a number: Python's `%` formats a text on its left, which `_mod` refuses)."""
        left, right, *_ = self._arith(node, lex, operator)
        numbers = operator != "%" or proves_number(node.children[0], self.scope, lex, self.proofs)
        if _is_num_literal(right) and float(right) != 0 and numbers:
            return f"({left} {operator} {right})", NUM
        return f"{helper}({left}, {right})", NUM

    def g_div(self, node, lex):
        return self._division(node, lex, "/", "_div")

    def g_floordiv(self, node, lex):
        return self._division(node, lex, "//", "_fdiv")

    def g_mod(self, node, lex):
        return self._division(node, lex, "%", "_mod")

    def g_neg(self, node, lex):
        operand, typ = self.gen(node.children[0], lex)
        if typ in (STR, BOOL, NONE):
            self.err(node.children[0], f"cannot negate {_tname(typ)}", code="type")
        return f"(-{operand})", NUM

    def g_pos(self, node, lex):
        operand, _ = self.gen(node.children[0], lex)
        return f"(+{operand})", NUM

    def g_pow(self, node, lex):
        base, exponent = self._operand_codes(node, lex)
        return f"_pow({base}, {exponent})", NUM
