"""The runtime helpers the generated code calls for attribute access, indexing and the
operators whose cost or failure depends on their operands (`*`, `+`, `in`, `**`, `/`, `//`,
`%`), with errors in the designer's words and the work charged to the budget.

Owns: these helpers; `make_runtime` (builtins.py) puts them into the generated code's namespace.
"""
from __future__ import annotations

from ..errors import RuleRuntimeError
from .budget import _SMALL, MAX_INT_BITS, MAX_SEQUENCE, Budget, _short, int_too_big

def _access_helpers(ent: dict) -> dict:
    """`_A(o, k)` (an attribute of a component or a key of a map) and `_I(o, k)` (indexing),
    with errors in the designer's words."""

    def _A(o, k):
        if type(o) is dict:  # a key of a map (no failed record lookup first)
            try:
                return o[k]
            except KeyError:
                return _A_slow(o, k)
        try:  # the common case: an attribute of a component
            return ent[o][k]
        except (KeyError, TypeError):
            return _A_slow(o, k)

    def _A_slow(o, k):
        t = type(o)
        if t is str:
            try:
                rec = ent[o]
            except KeyError:
                raise RuleRuntimeError(f"'{o}' is not a component, so it has no '{k}'") from None
            if k == "id":
                return o
            try:
                return rec[k]
            except KeyError:
                raise RuleRuntimeError(f"component '{o}' has no attribute '{k}'") from None
        if t is dict:
            try:
                return o[k]
            except KeyError:
                raise RuleRuntimeError(f"no '{k}' in {_short(o)}") from None
        raise RuleRuntimeError(f"{_short(o)} has no attribute '{k}'")

    def _I(o, k):
        try:
            return o[k]
        except (KeyError, IndexError, TypeError):
            if type(o) is dict and type(k) is int and str(k) in o:
                return o[str(k)]
            if type(o) is dict and k not in o:
                raise RuleRuntimeError(f"no key {_short(k)} in {_short(o)}") from None
            raise RuleRuntimeError(f"cannot index {_short(o)} with {_short(k)}") from None

    return {"_A": _A, "_I": _I}


def _operator_helpers(budget: Budget) -> dict:
    """The operators whose cost depends on their operands, charged to `budget`: `*` (big
    integers, repeated sequences), `+` of lists or texts, `in` on a list or a text."""
    charge = budget.charge

    def _mul(a, b):
        ta, tb = type(a), type(b)
        if ta is int and tb is int:
            bits = a.bit_length() + b.bit_length()
            if bits > MAX_INT_BITS:
                raise RuleRuntimeError(f"a number larger than {MAX_INT_BITS} bits")
            if bits > 128:
                charge(bits >> 6, "multiplying large numbers")
            return a * b
        if ta is list or ta is str or tb is list or tb is str:
            times, seq = (b, a) if ta is list or ta is str else (a, b)
            if type(times) is int and times > 0:
                if len(seq) * times > MAX_SEQUENCE:
                    raise RuleRuntimeError("a repeated sequence would be too long")
                charge(len(seq) * times, "repeating a sequence")
        return a * b

    def _mulk(a, k):
        # a * k for a literal whole number k: small numbers directly, anything else checked
        t = type(a)
        if t is float or (t is int and -_SMALL < a < _SMALL):
            return a * k
        return _mul(a, k)

    def _add(a, b):
        # a + b where the operands may be lists or text: the elements produced are charged
        ta = type(a)
        if (ta is list or ta is str) and type(b) is ta:
            charge(len(a) + len(b), "joining lists or texts")
        return a + b

    def _in(a, b):
        tb = type(b)
        if tb is dict:
            if type(a) is int:
                return str(a) in b or a in b
        elif tb is list or tb is str:
            charge(len(b) >> 3 if tb is str else len(b), "looking for an item in a list")
        try:
            return a in b
        except TypeError:
            raise RuleRuntimeError(f"cannot look for {_short(a)} in {_short(b)}") from None

    return {"_mul": _mul, "_mulk": _mulk, "_add": _add, "_in": _in}


def _pow(a, b):
    if isinstance(b, (int, float)) and abs(b) > 64:
        raise RuleRuntimeError("exponent too large")
    if int_too_big(a, b, "**"):
        raise RuleRuntimeError(f"a number larger than {MAX_INT_BITS} bits")
    return a ** b


def _div(a, b):
    if b == 0:
        raise RuleRuntimeError("division by zero")
    return a / b


def _fdiv(a, b):
    if b == 0:
        raise RuleRuntimeError("division by zero")
    return a // b


def _mod(a, b):
    if b == 0:
        raise RuleRuntimeError("modulo by zero")
    return a % b
