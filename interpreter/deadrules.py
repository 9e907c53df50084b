"""Static checks that find dead rules without playing: a condition (a phase's `next: if`, an
action's requirement, an effect's `if`) whose value is fixed given the settings, constants and
the declared bounds of vars.

  - a condition that reads only settings and constants (`years > 5`) is always true or false;
  - `VAR op K` (or `K op VAR`), where the var declares `min`/`max` (numbers or settings) and K is
    a number, setting or constant, is decided by the bounds: with `year: {max: years}` and
    years 3, `year > 3` is always false.

Warnings (never errors: a designer may mean it), each at the condition's file:line:col.
Owns these checks only; run by checks.py on a compiled ruleset.
"""
from __future__ import annotations

import numbers
import operator
import re

from .engine import effects as fx
from .errors import Diagnostic, RuleRuntimeError

__all__ = ["dead_rule_warnings"]

_COMPARISON = re.compile(r"^\s*([A-Za-z_]\w*|-?\d+(?:\.\d+)?)\s*(<=|>=|==|!=|<|>)\s*([A-Za-z_]\w*|-?\d+(?:\.\d+)?)\s*$")
_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


def dead_rule_warnings(ruleset) -> list:
    constants = scalar_constants(ruleset)
    bounds = _var_bounds(ruleset, constants)
    out: list = []
    seen: set = set()
    for where, handle in _conditions(ruleset):
        if handle is None or handle.pos is None or id(handle) in seen:
            continue
        seen.add(id(handle))
        value = _constant_value(ruleset, handle, constants)
        if value is None:
            value = _decided_by_bounds(str(handle.source), bounds, constants)
        if value is None:
            continue
        out.append(Diagnostic(
            "dead-rule", f"{where} '{handle.source}' is always {'true' if value else 'false'} "
                         f"(given the settings{' and the declared bounds of vars' if bounds else ''})",
            handle.pos, _hint(where, value), severity="warning"))
    return out


def _hint(where, value) -> str:
    if where == "requirement":
        return "the action is never allowed" if not value else "the requirement never refuses: remove it?"
    if where == "branch":
        return "this exit is never taken" if not value else "the exits after this one are never taken"
    return "its 'then' never runs" if not value else "its 'else' never runs"


def _conditions(ruleset):
    for phase in ruleset.phases.values():
        for _target, cond in phase.next:
            yield "branch", cond
    for action in ruleset.actions.values():
        for cond, _reason, _code in action.requires:
            yield "requirement", cond
    for block in ruleset.blocks:
        for effect in block:
            if isinstance(effect, fx.If):
                yield "condition", effect.condition


def scalar_constants(ruleset) -> dict:
    """Every number among the constants and settings, by name."""
    tree = ruleset.tree or {}
    out = {k: v for k, v in (tree.get("constants") or {}).items()
           if isinstance(v, numbers.Number) and not isinstance(v, bool)}
    out.update({k: v for k, v in (ruleset.settings or {}).items()
                if isinstance(v, numbers.Number) and not isinstance(v, bool)})
    return out


def _var_bounds(ruleset, constants) -> dict:
    out: dict = {}
    for name, decl in ((ruleset.tree or {}).get("vars") or {}).items():
        if not isinstance(decl, dict) or decl.get("per_player"):
            continue
        low, high = _number(decl.get("min"), constants), _number(decl.get("max"), constants)
        if low is not None or high is not None:
            out[name] = (low, high)
    return out


def _number(text, constants):
    if text is None or isinstance(text, bool):
        return None
    if isinstance(text, numbers.Number):
        return text
    return constants.get(str(text))


def _constant_value(ruleset, handle, constants):
    """The value of a condition that reads only scalar settings and constants, else None."""
    names = set(handle.names or ())
    if not names or not names <= set(constants):
        return None
    try:
        ruleset.budget.reset()
        value = handle.fn({}, {})
    except (RuleRuntimeError, TypeError, KeyError, ValueError, ZeroDivisionError):
        return None
    return value if isinstance(value, bool) else None


def _decided_by_bounds(source, bounds, constants):
    match = _COMPARISON.match(source)
    if not match:
        return None
    left, comparison, right = match.groups()
    if right in bounds and left not in bounds:
        left, right, comparison = right, left, _FLIP[comparison]
    if left not in bounds:
        return None
    other = _literal(right, constants)
    if other is None:
        return None
    low, high = bounds[left]
    test = {"<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge,
            "==": operator.eq, "!=": operator.ne}[comparison]
    if low is not None and high is not None and low == high:
        return test(low, other)
    if comparison in ("<", "<="):
        if high is not None and test(high, other):
            return True
        if low is not None and not test(low, other):
            return False
    if comparison in (">", ">="):
        if low is not None and test(low, other):
            return True
        if high is not None and not test(high, other):
            return False
    if comparison in ("==", "!=") and ((low is not None and other < low) or (high is not None and other > high)):
        return comparison == "!="
    return None


def _literal(text, constants):
    try:
        return float(text) if "." in text else int(text)
    except ValueError:
        return constants.get(text)
