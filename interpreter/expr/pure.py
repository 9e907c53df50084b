"""Named expressions that read nothing but their arguments: a define that reads no state var
and no local (only its parameters, constants, component records and other such defines) gives
the same value for the same arguments, for as long as its ruleset is loaded. Its value is kept
per ruleset, for arguments that are plain data (numbers, texts, booleans, none) and values that
are plain data or short lists of it (each call given a new copy of the list: what a caller does
with its list changes no other call's), with the work computing it cost: a call met again reads
the value and charges that work again, so the work bound counts exactly what computing it each
time would (both engines call the same functions and charge the same).

`d_stage_def(j, n)` (`first([s for s in project_stage if ...])`, a table read by its key) is
computed once per pair, not once per call.

Owns: which defines are pure (`pure_defines`), the generated wrapper that keeps their values
(`with_kept_values`) and its runtime helper `_remember`.
"""
from __future__ import annotations

import re

from .builtins import CHARGED, ITERATING

KEPT_PER_DEFINE = 4096  # values kept per define (then new arguments are computed, not kept)
KEPT_LIST_LENGTH = 256  # the longest list value kept
_PLAIN = (int, str, bool, float, type(None))
# the defines whose values are worth keeping: their code goes through a collection
_GOES_THROUGH = re.compile(r"\b_T\(|\b_f_(" + "|".join(sorted(ITERATING | CHARGED)) + r")\(")


def pure_defines(reads_state: dict, calls: dict) -> set:
    """The defines that read no state var and no local, nor call a define that does (`reads_state`:
    define -> whether its own text reads one; `calls`: define -> the defines it calls)."""
    pure: dict = {}

    def is_pure(name, seen=()):
        if name not in pure:
            pure[name] = (name not in seen and not reads_state.get(name, True)
                          and all(is_pure(callee, seen + (name,)) for callee in calls.get(name, ())))
        return pure[name]

    return {name for name in reads_state if is_pure(name)}


def with_kept_values(entries: list, pure: set, params: dict, namespace: dict) -> list:
    """The generated functions with each pure define `d_x` renamed `d_x_body` and a `d_x` that
    keeps its values in front of it (its memo `_M_x` put in `namespace`)."""
    out = []
    for entry in entries:
        # (a define's function is the last its entry defines: after its checked `d_x_safe`)
        defined = [line[4:line.index("(")] for line in entry.splitlines() if line.startswith("def ")]
        name = defined[-1][2:] if defined and defined[-1].startswith("d_") else None
        if name not in pure or not _GOES_THROUGH.search(entry):  # (a cheap one costs less than its memo)
            out.append(entry)
            continue
        namespace[f"_M_{name}"] = {}
        arguments = ", ".join(["_V", "_L"] + [f"u_{param}" for param in params[name]])
        key = "".join(f"u_{param}, u_{param}.__class__, " for param in params[name])
        out.append(entry.replace(f"def d_{name}(", f"def d_{name}_body(", 1))
        out.append(f"def d_{name}({arguments}):\n"
                   f"    _key = ({key})\n"
                   f"    try:\n        _hit = _M_{name}[_key]\n"
                   f"    except _LE:\n"
                   f"        return _remember({name!r}, _key, _B.left, d_{name}_body({arguments}))\n"
                   f"    _B.left -= _hit[1]\n"
                   f"    if _B.left < 0:\n        _B.exceeded()\n"
                   f"    _value = _hit[0]\n"
                   f"    return _value[:] if _value.__class__ is _list_t else _value\n")
    return out


def memo_helpers(budget, namespace: dict) -> dict:
    def remember(name: str, key: tuple, before: int, value):
        """Keep the value of define `name` for `key` (computed from `before`, the work left
        then) when it and the arguments are plain data, or the value a list of plain data (a
        copy kept: each call is given its own, see `with_kept_values`) of at most
        KEPT_LIST_LENGTH elements; the first time they are not, the define stops keeping
        values (its name is bound to its body: the memo would cost without paying)."""
        memo = namespace[f"_M_{name}"]
        if len(memo) >= KEPT_PER_DEFINE:
            return value
        try:
            if type(value) is list:
                if len(value) > KEPT_LIST_LENGTH:
                    return value  # (not kept, but the define goes on keeping its short lists)
                for item in value:
                    if type(item) not in _PLAIN:
                        raise TypeError
                memo[key] = (value[:], before - budget.left)
            elif type(value) not in _PLAIN:
                raise TypeError
            else:
                memo[key] = (value, before - budget.left)
        except TypeError:  # a map, or a list holding more than plain data, given or returned
            namespace["d_" + name] = namespace[f"d_{name}_body"]
        return value

    return {"_remember": remember}
