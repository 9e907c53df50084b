"""The helpers generated code calls that are not builtins: assignment (`_aug`, `_key`, `_cp`,
`_own`: value semantics, text map keys, bounded numbers, plain data only, copies charged to the
work bound) and the translation of a Python error met at run time into a RuleRuntimeError in the
designer's words, with the failing expression and its position (`_guarded`: `_runtime_error` or
`_located`).
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

    match = re.match(r"'(\S+)' not supported between instances of '(\w+)' and '(\w+)'", message)
    if match:
        return f"cannot compare {kind(match[2])} with {kind(match[3])} using '{match[1]}'"
    match = re.match(r"unsupported operand type\(s\) for (\S+?): '(\w+)' and '(\w+)'", message)
    if match:
        return f"cannot use '{match[1]}' on {kind(match[2])} and {kind(match[3])}"
    match = re.match(r'can only concatenate (\w+) \(not "(\w+)"\) to \w+', message)
    if match:
        return f"cannot add {kind(match[2])} to {kind(match[1])}"
    match = re.match(r"bad operand type for unary (\S+): '(\w+)'", message)
    if match:
        return f"cannot use '{match[1]}' on {kind(match[2])}"
    match = re.match(r"'(\w+)' object is not (iterable|subscriptable)", message)
    if match:
        why = " (it cannot be gone through)" if match[2] == "iterable" else " (it cannot be indexed)"
        return f"{kind(match[1])} is not a list or a map" + why
    match = re.match(r"object of type '(\w+)' has no len\(\)", message)
    if match:
        return f"{kind(match[1])} has no length"
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
    # Python's own wording may quote a value (a missing key, the item list.index looked for)
    plain = why if why != str(exc) or isinstance(exc, _WORDED) else _UNWORDED.get(type(exc), "a value of the wrong kind")
    error = RuleRuntimeError(f"{why} (in '{source}')", pos=_position(handles, name), plain=f"{plain} (in '{source}')")
    error.expression = source
    return error


def _guarded(handles: list, exc, source: str, name: str):
    """The error a generated function raises for `exc` met inside it (its one `except` clause,
    compiler.py `_guard`): a Python error in plain words, a rule error given its place."""
    if isinstance(exc, _PY_ERRORS):
        return _runtime_error(handles, exc, source, name)
    return _located(handles, exc, source, name)


_WORDED = (RecursionError, ZeroDivisionError, OverflowError)  # worded above, no value in it
_UNWORDED = {KeyError: "no such key", IndexError: "an index outside a list", AttributeError: "no such attribute",
             ValueError: "a value that does not fit"}


_BIGGEST_INT = 1 << MAX_INT_BITS


def _too_large():
    return RuleRuntimeError(f"a number larger than {MAX_INT_BITS} bits")


def _aug(budget, current, operator, operand):
    """`current operator= operand` of an assignment (bound to the ruleset's work budget in `build`)."""
    if operator == "+":
        if type(operand) is list or type(operand) is dict:  # stored: its own copy (value semantics, never aliasing)
            operand = _charged_copy(budget, operand, "copying a list or map to assign it")
        if current is None:
            return operand
        kind = type(current)
        if (kind is list or kind is str) and type(operand) is kind:
            budget.charge(len(current) + len(operand), "joining lists or texts")
        result = current + operand
    elif operator == "-":
        result = (current or 0) - operand
    elif operator == "*":
        if int_too_big(current, operand):
            raise _too_large()
        result = _mul_checked(budget, current, operand)
    elif operator == "//":
        if operand == 0:
            raise RuleRuntimeError("division by zero")
        result = current // operand
    else:
        raise AssertionError(operator)
    if type(result) is int and not -_BIGGEST_INT < result < _BIGGEST_INT:
        raise _too_large()
    return result


def _mul_checked(budget, left, right):
    for seq, times in ((left, right), (right, left)):
        if type(seq) in (list, str) and type(times) is int and times > 0:
            budget.charge(len(seq) * times, "repeating a sequence")
    return left * right


def _key(container, key):
    # JSON objects have text keys: a player number used as a key is stored as text
    if type(container) is dict:
        return key if type(key) is str else text_key(key)
    if type(container) is list and type(key) is int and not (-len(container) <= key < len(container)):
        raise RuleRuntimeError(f"index {key} is outside a list of {len(container)}", plain="an index outside a list")
    return key


def stored_copier(budget):
    """`_cp`, what an assignment stores (`v = t`, `v[k] = t`): a list or map is copied (rules
    have value semantics, never aliasing), charged to `budget` as `_own_copy` charges, so a loop
    copying a large list is stopped like any other work. A number stored is at most
    MAX_INT_BITS bits (a loop of multiplications stops there)."""
    def stored_copy(value):
        kind = type(value)
        if kind is list or kind is dict:
            return _charged_copy(budget, value, "copying a list or map to assign it")
        if kind is int and not -_BIGGEST_INT < value < _BIGGEST_INT:
            raise _too_large()
        if kind not in _PLAIN:
            raise _not_data(value)
        return value
    return stored_copy


_PLAIN = frozenset({int, float, str, bool, type(None)})


def _own_copy(budget, value):
    """The copy a local gets before a part of it is assigned (locals are values), charged to the
    work bound one element per 8 bytes copied, so a loop assigning into a large local is stopped
    like any other work."""
    if type(value) is list or type(value) is dict:
        return _charged_copy(budget, value, "copying a local to assign into it")
    return value


def _charged_copy(budget, value, what: str):
    """A copy of list or map `value`, one element of work per 8 bytes copied."""
    try:
        data = _marshal.dumps(value, 2)
    except ValueError as error:  # something marshal cannot copy: not plain data, or too deep
        if "deep" in str(error):
            raise RuleRuntimeError("a list or map nested too deeply to be stored") from None
        raise _not_data(value) from None
    budget.charge(len(data) // 8 + 1, what)
    return _marshal.loads(data)


def _not_data(value):
    return RuleRuntimeError("only numbers, text, booleans, none, lists and maps can be stored")


def _get_or0(container, key):
    if type(container) is dict:
        return container.get(key, 0)
    return container[key]

