"""The helpers generated code calls that are not builtins: assignment (`_aug`, `_key`, `_cp`:
value semantics, text map keys, bounded numbers, plain data only) and the translation of a
Python error met at run time into a RuleRuntimeError in the designer's words, with the failing
expression and its position (`_runtime_error`, `_located`).
"""
from __future__ import annotations

import marshal as _marshal
import re

from ..errors import RuleRuntimeError
from .builtins import MAX_INT_BITS, int_too_big, text_key


_PY_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, ArithmeticError,
              RecursionError)


def _clip(source: str) -> str:
    return source if len(source) <= 60 else source[:57] + "..."


def _position(handles: list, name: str):
    """The position in the rule files of the expression compiled as `name` (None if unknown)."""
    for handle in handles:
        if handle.name == name and handle.pos is not None:
            return handle.pos
    return None


def _located(handles: list, exc, source: str, name: str):
    """A rule error raised inside the expression `name` (by a builtin or a helper), given that
    expression and its position unless an inner expression (a define, an expression nested in
    it) gave them already. Its message stays as it is: the engine words the refusal."""
    if getattr(exc, "expression", None) is None:
        exc.expression = source
        exc.pos = exc.pos or _position(handles, name)
    return exc


_PYTHON_TYPES = {"int": "a number", "float": "a number", "str": "text", "list": "a list", "dict": "a map",
                 "NoneType": "none", "bool": "a boolean", "function": "a function", "tuple": "a list"}


def _plain_words(message: str) -> str:
    """Python's wording of a type error, in the words of the language (or as it is)."""
    def kind(name):
        return _PYTHON_TYPES.get(name, "a value")

    m = re.match(r"'(\S+)' not supported between instances of '(\w+)' and '(\w+)'", message)
    if m:
        return f"cannot compare {kind(m[2])} with {kind(m[3])} using '{m[1]}'"
    m = re.match(r"unsupported operand type\(s\) for (\S+?): '(\w+)' and '(\w+)'", message)
    if m:
        return f"cannot use '{m[1]}' on {kind(m[2])} and {kind(m[3])}"
    m = re.match(r'can only concatenate (\w+) \(not "(\w+)"\) to \w+', message)
    if m:
        return f"cannot add {kind(m[2])} to {kind(m[1])}"
    m = re.match(r"bad operand type for unary (\S+): '(\w+)'", message)
    if m:
        return f"cannot use '{m[1]}' on {kind(m[2])}"
    m = re.match(r"'(\w+)' object is not (iterable|subscriptable)", message)
    if m:
        return f"{kind(m[1])} is not a list or a map" + (" (it cannot be gone through)" if m[2] == "iterable" else
                                                          " (it cannot be indexed)")
    m = re.match(r"object of type '(\w+)' has no len\(\)", message)
    if m:
        return f"{kind(m[1])} has no length"
    return message


def _runtime_error(handles: list, exc, source: str, name: str):
    if isinstance(exc, RecursionError):
        why = "named expressions call each other too deeply"
    elif isinstance(exc, ZeroDivisionError):
        why = "division by zero"
    elif isinstance(exc, OverflowError):
        why = "a number too large"
    else:
        why = _plain_words(str(exc)) or type(exc).__name__
    error = RuleRuntimeError(f"{why} (in '{source}')", pos=_position(handles, name))
    error.expression = source
    return error


_BIGGEST_INT = 1 << MAX_INT_BITS


def _too_large():
    return RuleRuntimeError(f"a number larger than {MAX_INT_BITS} bits")


def _aug(budget, a, op, b):
    """`a op= b` of an assignment (bound to the ruleset's work budget in `build`)."""
    if op == "+":
        if a is None:
            return b
        t = type(a)
        if (t is list or t is str) and type(b) is t:
            budget.charge(len(a) + len(b), "joining lists or texts")
        result = a + b
    elif op == "-":
        result = (a or 0) - b
    elif op == "*":
        if int_too_big(a, b):
            raise _too_large()
        result = _mul_checked(budget, a, b)
    elif op == "//":
        if b == 0:
            raise RuleRuntimeError("division by zero")
        result = a // b
    else:
        raise AssertionError(op)
    if type(result) is int and not -_BIGGEST_INT < result < _BIGGEST_INT:
        raise _too_large()
    return result


def _mul_checked(budget, a, b):
    for seq, times in ((a, b), (b, a)):
        if type(seq) in (list, str) and type(times) is int and times > 0:
            budget.charge(len(seq) * times, "repeating a sequence")
    return a * b


def _key(o, k):
    # JSON objects have text keys: a player number used as a key is stored as text
    if type(o) is dict:
        return k if type(k) is str else text_key(k)
    if type(o) is list and type(k) is int and not (-len(o) <= k < len(o)):
        raise RuleRuntimeError(f"index {k} is outside a list of {len(o)}")
    return k


def _cp(x):
    """Assignment copies a list or map: rules have value semantics, never aliasing. A number
    stored is at most MAX_INT_BITS bits (a loop of multiplications stops there)."""
    t = type(x)
    if t is list or t is dict:
        try:
            return _marshal.loads(_marshal.dumps(x, 2))
        except ValueError as e:  # something marshal cannot copy: not plain data, or too deep
            if "deep" in str(e):
                raise RuleRuntimeError("a list or map nested too deeply to be stored") from None
            raise _not_data(x) from None
    if t is int and not -_BIGGEST_INT < x < _BIGGEST_INT:
        raise _too_large()
    if t not in _PLAIN:
        raise _not_data(x)
    return x


_PLAIN = frozenset({int, float, str, bool, type(None)})


def _not_data(x):
    return RuleRuntimeError("only numbers, text, booleans, none, lists and maps can be stored")


def _get_or0(o, k):
    if type(o) is dict:
        return o.get(k, 0)
    return o[k]

