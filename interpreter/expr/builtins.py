"""The board-game builtins an expression may call, and the namespace the generated code runs
in. Everything here is pure and works on plain data.

Owns: the whitelist (`BUILTINS`, with arity), which of them are charged to the work budget
(`CHARGED`, `ITERATING`), the number and text builtins, and `make_runtime`. The list and map
builtins are in builtins_lists.py, the operators and attribute access in operators.py, the work
bound and the limits in budget.py; every name stays importable from here. Does not own parsing
or names.
"""
from __future__ import annotations

import functools
import math
from typing import Any, Callable

from ..errors import RuleRuntimeError
# every name below is re-exported: `from interpreter.expr.builtins import X` keeps working
from .budget import (_SMALL, MAX_INT_BITS, MAX_INT_DIGITS, MAX_RANGE, MAX_SEQUENCE, Budget,  # noqa: F401
                     _bounded_iter, _key_back, _short, int_too_big, one_kind_of_keys, text_key)
from .builtins_lists import (_NO_VALUE, _biggest, _charging_result, _charging_result_of_one,  # noqa: F401
                             _combined, _count, _difference, _distinct, _enumerate, _first, _get, _index,
                             _intersection, _items, _keys, _last, _max, _min, _missing, _most, _range, _ranked,
                             _remove_one, _reversed, _Seen, _sorted, _sum, _union, _values, _zip)
from .operators import _access_helpers, _div, _fdiv, _mod, _operator_helpers, _pow  # noqa: F401

__all__ = ["BUILTINS", "CHARGED", "Budget", "make_runtime"]


def _clamp(value, low, high):
    return max(low, min(high, value))


def _round_down(value, step):
    return (value // step) * step


def _str(budget, value):
    if value is None:
        return "none"
    if value is True:
        return "true"
    if value is False:
        return "false"
    text = str(value)
    budget.charge(len(text), "str")
    return text


def _int(value):
    if type(value) is str and len(value) > MAX_INT_DIGITS:
        raise RuleRuntimeError(f"a number larger than {MAX_INT_BITS} bits")
    return int(value)


def _sign(value):
    return (value > 0) - (value < 0)


# name -> (function, min args, max args or None for any, allowed keywords). A function named in
# CHARGED takes the work budget as its first argument (bound in `make_runtime`).
BUILTINS: dict[str, tuple[Callable, int, Any, tuple]] = {
    "abs": (abs, 1, 1, ()),
    "all": (all, 1, 1, ()),
    "any": (any, 1, 1, ()),
    "biggest": (_biggest, 1, None, ()),
    "ceil": (math.ceil, 1, 1, ()),
    "clamp": (_clamp, 3, 3, ()),
    "combined": (_combined, 1, 1, ()),
    "count": (_count, 1, 2, ()),
    "difference": (_difference, 2, 2, ()),
    "distinct": (_distinct, 1, 1, ()),
    "enumerate": (_enumerate, 1, 1, ()),
    "first": (_first, 1, 2, ()),
    "floor": (math.floor, 1, 1, ()),
    "get": (_get, 2, 3, ()),
    "index": (_index, 2, 2, ()),
    "int": (_int, 1, 1, ()),
    "intersection": (_intersection, 1, None, ()),
    "items": (_items, 1, 1, ()),  # (charged by itself)
    "keys": (_charging_result_of_one(_keys, "keys"), 1, 1, ()),
    "last": (_last, 1, 2, ()),
    "len": (len, 1, 1, ()),
    "list": (list, 1, 1, ()),
    "max": (_max, 1, None, ("default", "key")),
    "min": (_min, 1, None, ("default", "key")),
    "most": (_most, 1, 2, ("key",)),
    "range": (_charging_result(_range, "range"), 1, 3, ()),
    "ranked": (_ranked, 1, 3, ("key", "reverse")),
    "remove_one": (_remove_one, 2, 2, ()),
    "reversed": (_reversed, 1, 1, ()),
    "round": (round, 1, 1, ()),
    "round_down": (_round_down, 2, 2, ()),
    "sign": (_sign, 1, 1, ()),
    "sorted": (_sorted, 1, 3, ("key", "reverse")),
    "str": (_str, 1, 1, ()),
    "sum": (_sum, 1, 2, ()),  # Python's sum(xs) and sum(xs, start); a sum of lists is linear
    "union": (_union, 1, None, ()),
    "values": (_charging_result_of_one(_values, "values"), 1, 1, ()),
    "zip": (_zip, 1, None, ()),
}

CHARGED = frozenset({"biggest", "combined", "difference", "distinct", "intersection", "items", "keys",
                     "range", "str", "sum", "union", "values"})

# Builtins whose argument is iterated, so it is charged to the work budget.
ITERATING = {"all", "any", "count", "distinct", "enumerate", "first",
             "last", "list", "max", "min", "most", "ranked", "sorted", "sum", "union",
             "intersection", "difference", "zip", "index",
             "reversed", "remove_one"}


def make_runtime(entities: dict, budget: Budget) -> dict:
    """The namespace the generated code runs in: builtins under `_f_<name>`, helpers under
    `_<name>`, and no Python builtins at all."""
    namespace: dict = {"__builtins__": {}}
    for name, (function, *_rest) in BUILTINS.items():
        namespace["_f_" + name] = functools.partial(function, budget) if name in CHARGED else function
    namespace.update(_access_helpers(entities))
    namespace.update(_operator_helpers(budget))
    namespace.update(_LE=(KeyError, IndexError, TypeError), _pow=_pow, _div=_div, _fdiv=_fdiv, _mod=_mod,
              _T=budget.take, _E=entities, _map=one_kind_of_keys,
              _str_t=str, _dict_t=dict, _next=next)  # (the types generated code compares with: no builtins there)
    return namespace
