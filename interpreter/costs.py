"""Static check: an action whose cost can never be paid, found without playing.

A cost is a requirement of the form `BUDGET >= AMOUNT` (or `>`, or written the other way round,
or one part of an `and`), where BUDGET is a var, or a var indexed (`cash[player]`), and AMOUNT
is a number, a setting or a scalar constant. The budget's reachable bound is
  - its declared `max` (a number or a setting), or else
  - when no effect ever adds to it (only `-=`, or `=` a number), the largest of its initial
    value and the numbers assigned to it.
When the amount is beyond that bound the action is never allowed: a warning at the
requirement's file:line:col with the figures (the amount, the bound and where the bound comes
from). Owns this check only; run by checks.py with the dead-rule warnings.
"""
from __future__ import annotations

import numbers
import re

from .deadrules import scalar_constants
from .engine import effects as fx
from .errors import Diagnostic, ExpressionError

__all__ = ["unpayable_cost_warnings"]

_NAME_OR_NUMBER = r"[A-Za-z_]\w*|\d+(?:\.\d+)?"
_BUDGET = r"([A-Za-z_]\w*)(?:\[[^\[\]]*\])?"
_COST = re.compile(rf"^\s*{_BUDGET}\s*(>=|>)\s*({_NAME_OR_NUMBER})\s*$")
_COST_FLIPPED = re.compile(rf"^\s*({_NAME_OR_NUMBER})\s*(<=|<)\s*{_BUDGET}\s*$")
_AND = re.compile(r"\s+and\s+")


def unpayable_cost_warnings(ruleset) -> list:
    constants = scalar_constants(ruleset)
    ceilings = _budget_ceilings(ruleset, constants)
    out: list = []
    for action_id, action in ruleset.actions.items():
        for condition, _reason, _code in action.requires:
            if condition is None or condition.pos is None:
                continue
            for budget, strict, amount, named in _costs(str(condition.source), constants):
                if budget not in ceilings:
                    continue
                ceiling, why = ceilings[budget]
                if ceiling > amount or (ceiling == amount and not strict):
                    continue
                need = f"{'more than ' if strict else 'at least '}{_figure(amount)}{named}"
                out.append(Diagnostic(
                    "unpayable-cost", f"action '{action_id}' needs {need} {budget} ('{condition.source}'), but "
                                      f"{budget} never goes above {_figure(ceiling)}: {why}",
                    condition.pos, f"lower the cost, or raise what {budget} can reach (the action is never allowed)",
                    severity="warning"))
    return out


def _figure(value) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _costs(source, constants):
    """(budget var, strict, amount, the amount's name if any) of each cost among the parts of an `and` of a requirement."""
    if "(" in source or " or " in source:
        parts = [source]
    else:
        parts = _AND.split(source)
    for part in parts:
        match = _COST.match(part)
        if match:
            budget, comparison, amount_text = match.groups()
        else:
            match = _COST_FLIPPED.match(part)
            if not match:
                continue
            amount_text, comparison, budget = match.groups()
        amount = _number(amount_text, constants)
        if amount is not None:
            named = f" ({amount_text})" if amount_text in constants else ""
            yield budget, comparison in (">", "<"), amount, named


def _number(text, constants):
    if isinstance(text, numbers.Number) and not isinstance(text, bool):
        return text
    if not isinstance(text, str):
        return None
    try:
        return float(text) if "." in text else int(text)
    except ValueError:
        return constants.get(text)


def _budget_ceilings(ruleset, constants) -> dict:
    """var name -> (the largest value it can reach, why) for the vars whose bound is known."""
    declared = (ruleset.tree or {}).get("vars") or {}
    growing, assigned = _writes(ruleset, constants)
    out: dict = {}
    for name, decl in ruleset.vars.items():
        source = declared.get(name) if isinstance(declared.get(name), dict) else {}
        high = _number(source.get("max"), constants)
        if high is not None:
            named = f" (setting '{source['max']}')" if isinstance(source.get("max"), str) else ""
            out[name] = (high, f"its declared max is {_figure(high)}{named}")
            continue
        if decl.init is not None or name in growing:
            continue
        start = _largest(decl.value)
        if start is None:
            continue
        values = [start, *assigned.get(name, ())]
        why = f"it starts at {_figure(start)} and no effect adds to it"
        if assigned.get(name):
            why += f" (effects set it to {', '.join(_figure(v) for v in sorted(set(assigned[name])))})"
        out[name] = (max(values), why)
    return out


def _largest(value):
    """The largest number of an initial value (a number, or a list or map of numbers)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Number):
        return value
    items = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else None
    if not items or not all(isinstance(v, numbers.Number) and not isinstance(v, bool) for v in items):
        return None
    return max(items)


def _writes(ruleset, constants) -> tuple:
    """(vars some effect may make larger, var -> the numbers `=` assigns to it)."""
    growing: set = set()
    assigned: dict = {}
    for block in ruleset.blocks:
        for effect in block:
            if not isinstance(effect, fx.Stmt) or effect.handle is None:
                continue
            root = effect.handle.target
            operator, value = _assignment(effect.text, constants)
            if operator == "-=" and value is not None and value >= 0:
                continue
            if operator == "=" and value is not None:
                assigned.setdefault(root, []).append(value)
                continue
            growing.add(root)
    return growing, assigned


def _assignment(text, constants) -> tuple:
    """(the assignment operator, the assigned number or None) of a statement text."""
    from .expr.parser import parse

    try:
        tree = parse(str(text), "statement")
    except ExpressionError:
        return None, None
    _target, operator, value = tree.children[:3]
    number = None
    if getattr(value, "data", None) == "number":
        number = _number(str(value.children[0]), constants)
    elif getattr(value, "data", None) == "name":
        number = constants.get(str(value.children[0]))
    elif getattr(value, "data", None) == "neg" and getattr(value.children[0], "data", None) == "number":
        number = -_number(str(value.children[0].children[0]), constants)
    return str(operator), number
