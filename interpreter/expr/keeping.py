"""Calls kept across the evaluations of one expression while a local name changes: a
requirement of an action is evaluated once per value of its last parameter when the legal moves
are listed (interpreter/compiled/legal_code.py), and the calls in it that read neither that
parameter nor a variable bound inside the expression (`shadows_for(player, pos)` in a
requirement on `n`) give the same value for each of those values: the state does not change
while the moves are listed, the expressions change nothing and a named expression reads no
local but `player`.

The variant of the expression's function takes the slots `_k` (made fresh by the caller before
its loop): such a call is computed at its first use and its value kept there with the work it
cost (generate_sharing.py `kept_across`); read again, that work is charged again, so the work
bound counts exactly what evaluating it each time would (the reference engine evaluates it
each time: both engines stop at the same step). On a lookup error the budget is put back and the
expression's own function (with its checked fallback) gives the value or the error.

Owns: `keeping_variant` and the runtime helpers `_keep`, `_again` (with `_B`, the budget).
"""
from __future__ import annotations

import hashlib

from .generate import _Gen
from .generate_sharing import kept_names_preamble
from .parser import parse


def slot_helpers(budget) -> dict:
    """The names the variants read in the expressions' namespace."""

    def keep(slots: list, index: int, before: int, value):
        slots[index] = value
        slots[index + 1] = before - budget.left  # the work computing it cost
        return value

    def again(slots: list, index: int):
        budget.left -= slots[index + 1]
        if budget.left < 0:
            budget.exceeded()
        return slots[index]

    return {"_keep": keep, "_again": again, "_B": budget}


def keeping_variant(unit, handle, varying: tuple):
    """(function(_V, _L, _k), the slots a loop starts from: copy them) of the expression of
    `handle` with its calls that read none of the local names `varying` kept across
    evaluations; None when it makes no such call (then call `handle.fn` as it is). Made once
    per unit, handle and names."""
    key = (handle.name, tuple(sorted(varying)))
    if key in unit.variants:
        return unit.variants[key]
    unit.variants[key] = None
    # (the named expressions are compiled in the unit's scope: the only locals they may read
    # are its own, `player` in a ruleset; a name that varies must not be one of them)
    if handle.origin is None or unit.ns is None or set(varying) & set(unit.scope.locals):
        return None
    scope, lex = handle.origin
    generator = _Gen(scope, handle.source, fast=True, keep_across=key[1])
    code, _ = generator.gen(parse(handle.source, "expression"), dict(lex or {}))
    if not generator.slots:
        return None
    from .compiler import _guard  # (compiler.py imports this module)

    name = f"{handle.name}_k{hashlib.sha1(repr(key).encode()).hexdigest()[:8]}"
    source = (f"def {name}(_V, _L, _k):\n{kept_names_preamble(code)}    _b = _B.left\n"
              f"    try:\n        return {code}\n"
              f"    except _LE:\n        _B.left = _b\n        return {handle.name}(_V, _L)\n"
              + _guard(handle.name, handle.source))
    exec(compile(source, "<rulebook expressions>", "exec"), unit.ns)  # noqa: S102 - generated from the grammar
    unit.variants[key] = (unit.ns[name], [unit.ns["_UN"], 0] * len(generator.slots))
    return unit.variants[key]
