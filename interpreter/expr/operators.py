"""The runtime helpers the generated code calls for attribute access, indexing and the
operators whose cost or failure depends on their operands (`*`, `+`, `in`, `**`, `/`, `//`,
`%`), with errors in the designer's words and the work charged to the budget.

Owns: these helpers; `make_runtime` (builtins.py) puts them into the generated code's namespace.
"""
from __future__ import annotations

from ..errors import RuleRuntimeError
from .budget import _SMALL, MAX_INT_BITS, MAX_SEQUENCE, Budget, _short, int_too_big, kind_of

def _access_helpers(entities: dict) -> dict:
    """`_A(o, k)` (an attribute of a component or a key of a map) and `_I(o, k)` (indexing),
    with errors in the designer's words."""

    def attribute(obj, key):
        if type(obj) is dict:  # a key of a map (no failed record lookup first)
            try:
                return obj[key]
            except KeyError:
                return attribute_checked(obj, key)
        try:  # the common case: an attribute of a component
            return entities[obj][key]
        except (KeyError, TypeError):
            return attribute_checked(obj, key)

    def attribute_checked(obj, key):
        kind = type(obj)
        if kind is str:
            try:
                rec = entities[obj]
            except KeyError:
                raise RuleRuntimeError(f"'{obj}' is not a component, so it has no '{key}'",
                                       plain=f"a text that is not a component has no '{key}'") from None
            if key == "id":
                return obj
            try:
                return rec[key]
            except KeyError:
                raise RuleRuntimeError(f"component '{obj}' has no attribute '{key}'",
                                       plain=f"a component has no attribute '{key}'") from None
        if kind is dict:
            try:
                return obj[key]
            except KeyError:
                raise RuleRuntimeError(f"no '{key}' in {_short(obj)}", plain=f"no '{key}' in a map") from None
        raise RuleRuntimeError(f"{_short(obj)} has no attribute '{key}'", plain=f"{kind_of(obj)} has no attribute '{key}'")

    def index(obj, key):
        try:
            return obj[key]
        except (KeyError, IndexError, TypeError):
            if type(obj) is dict and type(key) is int and str(key) in obj:
                return obj[str(key)]
            if type(obj) is dict and key not in obj:
                raise RuleRuntimeError(f"no key {_short(key)} in {_short(obj)}", plain="no such key in a map") from None
            raise RuleRuntimeError(f"cannot index {_short(obj)} with {_short(key)}",
                                   plain=f"cannot index {kind_of(obj)} with {kind_of(key)}") from None

    return {"_A": attribute, "_I": index}


def _operator_helpers(budget: Budget) -> dict:
    """The operators whose cost depends on their operands, charged to `budget`: `*` (big
    integers, repeated sequences), `+` of lists or texts, `in` on a list or a text."""
    charge = budget.charge

    def multiply(left, right):
        left_type, right_type = type(left), type(right)
        if left_type is int and right_type is int:
            bits = left.bit_length() + right.bit_length()
            if bits > MAX_INT_BITS:
                raise RuleRuntimeError(f"a number larger than {MAX_INT_BITS} bits")
            if bits > 128:
                charge(bits >> 6, "multiplying large numbers")
            return left * right
        if left_type is list or left_type is str or right_type is list or right_type is str:
            times, seq = (right, left) if left_type is list or left_type is str else (left, right)
            if type(times) is int and times > 0:
                if len(seq) * times > MAX_SEQUENCE:
                    raise RuleRuntimeError("a repeated sequence would be too long")
                charge(len(seq) * times, "repeating a sequence")
        return left * right

    def multiply_by_literal(left, times):
        # a * k for a literal whole number k: small numbers directly, anything else checked
        kind = type(left)
        if kind is float or (kind is int and -_SMALL < left < _SMALL):
            return left * times
        return multiply(left, times)

    def add(left, right):
        # a + b where the operands may be lists or text: the elements produced are charged
        left_type = type(left)
        if (left_type is list or left_type is str) and type(right) is left_type:
            charge(len(left) + len(right), "joining lists or texts")
        return left + right

    def contains(left, right):
        right_type = type(right)
        if right_type is dict:
            if type(left) is int:
                return str(left) in right or left in right
        elif right_type is list or right_type is str:
            charge(len(right) >> 3 if right_type is str else len(right), "looking for an item in a list")
        try:
            return left in right
        except TypeError:
            raise RuleRuntimeError(f"cannot look for {_short(left)} in {_short(right)}",
                                   plain=f"cannot look for {kind_of(left)} in {kind_of(right)}") from None

    return {"_mul": multiply, "_mulk": multiply_by_literal, "_add": add, "_in": contains}


def _pow(base, exponent):
    if isinstance(exponent, (int, float)) and abs(exponent) > 64:
        raise RuleRuntimeError("exponent too large")
    if int_too_big(base, exponent, "**"):
        raise RuleRuntimeError(f"a number larger than {MAX_INT_BITS} bits")
    return base ** exponent


def _div(left, right):
    if right == 0:
        raise RuleRuntimeError("division by zero")
    return left / right


def _fdiv(left, right):
    if right == 0:
        raise RuleRuntimeError("division by zero")
    return left // right


def _mod(left, right):
    if type(left) is str:  # Python's `%` would format the text (`'%0999999d' % 1`: a huge text)
        raise RuleRuntimeError("'%' needs numbers, not text (to put a value into a text, join texts with "
                               "'+' or write it in a label or log template as {name})")
    if right == 0:
        raise RuleRuntimeError("modulo by zero")
    return left % right
