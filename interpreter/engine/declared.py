"""The range and step a `choose` (of one player or of several at once) or an action's parameter
declares for its numbers (`min`, `max`, `step`; docs/language.md, "Bounds of integer
parameters"), kept in play as the research adapters keep them, on both engines:
  - options the rules list off their bounds are a bug in the rules: `check_options` (a
    `choose`'s options, effects.py `choice_options`) and `check_moves` (the legal moves of
    actions with declared parameters: legal.py, and the compiled game's generated listing)
    raise a rule error located at the decision or parameter, naming the value and the bound;
    a listing checks each declared parameter's values where it reads them (`checked_values`)
    and walks its moves with `check_moves` only when one of them lies off its bounds;
  - an answer or parameter value handed to `apply` off its bounds is refused with the reason
    `off_declared` gives (legal.py `refusal`, which the compiled game's refusals go through).

Owns: `Declared` (what a decision or parameter declares), reading the bounds now, and the one
text that says why a number lies off them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..errors import RuleRuntimeError
from .values import fmt

__all__ = ["Declared", "declared_bounds", "off_declared", "check_options", "checked_values", "check_moves",
           "answer_off_declared", "parameter_off_declared"]


@dataclass(frozen=True, slots=True)
class Declared:
    """The `min`, `max` and `step` a decision or parameter declares: compiled handles (each None
    when not declared), what its numbers are (`noun`: "answer", "value"), what they belong to
    (`subject`: "to the decision 'amount' (opening bid)") and where it is written."""

    handles: tuple
    noun: str
    subject: str
    pos: Any = None


def declared_bounds(declared: Declared, game_vars, names) -> tuple:
    """(min, max, step) as `declared` reads them now (each None when not declared)."""
    low, high, step = (handle.fn(game_vars, names) if handle is not None else None for handle in declared.handles)
    for key, value in (("min", low), ("max", high), ("step", step)):
        if value is not None and type(value) not in (int, float):
            error = _located(f"the {key} of the {declared.noun}s {declared.subject}: {fmt(value)} is not a number",
                             declared)
            error.plain = f"the {key} of the {declared.noun}s {declared.subject} is not a number"  # no secret in it
            raise error
    if step is not None and (step < 1 or not float(step).is_integer()):  # 10.0 is 10, as the adapters read it
        error = _located(f"the step of the {declared.noun}s {declared.subject}: {fmt(step)} is not a whole number "
                         "of at least 1", declared)
        error.plain = f"the step of the {declared.noun}s {declared.subject} is not a whole number of at least 1"
        raise error
    return low, high, (int(step) if step is not None else None)


def off_declared(declared: Declared, value, bounds: tuple, public: bool = False) -> Optional[str]:
    """Why number `value` lies off `bounds`, the range and step `declared` declares
    (`declared_bounds`: the numbers are min, min + step, ... up to max; the step counts from 0
    when no min is declared), or None (also for a value that is not a number). The one text of
    both the refusal of such a value and the rule error of rules that list one. `public`: the
    text any player may read, naming each bound by its expression rather than its value (a
    bound may read another player's secret; docs/security.md)."""
    if type(value) not in (int, float):
        return None
    low, high, step = bounds
    if (low is None or value >= low) and (high is None or value <= high) and \
            (step is None or (value - (low or 0)) % step == 0):
        return None
    return _wording(declared, f"the {declared.noun} {fmt(value)}", bounds, public)


def _wording(declared: Declared, which: str, bounds: tuple, public: bool) -> str:
    said = ", ".join(f"{key}: {handle.source if public else fmt(bound)}"
                     for key, bound, handle in zip(("min", "max", "step"), bounds, declared.handles)
                     if bound is not None)
    where = f" at {declared.pos}" if getattr(declared.pos, "line", 0) else ""
    return (f"{which} {declared.subject}{where} lies off the range or step it declares "
            f"({said})")


def _located(message: str, declared: Declared) -> RuleRuntimeError:
    pos = declared.pos
    if pos is not None and getattr(pos, "line", 0):
        return RuleRuntimeError(message, pos=pos)
    return RuleRuntimeError(message, declared.subject)


def _listed_off(declared: Declared, value, bounds: tuple) -> RuleRuntimeError:
    tail = ", but the rules list it: a bug in the rules (make them keep the bound, or declare the one they keep)"
    error = _located(off_declared(declared, value, bounds) + tail, declared)
    error.plain = _wording(declared, f"a listed {declared.noun}", bounds, public=True) + tail  # the value may be a secret
    return error


def check_options(declared: Declared, options: list, game_vars, names) -> None:
    """Raise the located rule error for the first of a decision's options (numbers) off the
    bounds it declares."""
    bounds = declared_bounds(declared, game_vars, names)
    for option in options:
        if off_declared(declared, option, bounds) is not None:
            raise _listed_off(declared, option, bounds)


def checked_values(declared: Declared, values, game_vars, names, off: list):
    """`values`, a parameter's values as the listing reads them, checked against the bounds
    `declared` declares (read now, when there is a value): when one lies off them, `declared`
    is added to `off`, and the listing then walks its moves (`check_moves`), which raises only
    if a listed move uses such a value (a requirement may have left it out)."""
    if values:
        low, high, step = declared_bounds(declared, game_vars, names)
        for value in values:  # off_declared's test, inline
            if type(value) in (int, float) and ((low is not None and value < low) or (high is not None and value > high)
                                               or (step is not None and (value - (low or 0)) % step)):
                off.append(declared)
                break
    return values


def check_moves(ruleset, moves: list, game_vars, player, turn_round) -> list:
    """`moves` (legal.py's move tuples), once none has a parameter value off the bounds its
    action declares; else the located rule error of the first such value. A parameter's bounds
    read the state, `player` and `round` (not the other parameters), once per listing."""
    names = {"player": player, "round": turn_round}
    actions = ruleset.actions
    action_id = limits = None
    for move in moves:
        if move[0] != action_id:  # the moves of one action come together: its bounds read once
            action_id = move[0]
            declares = actions[action_id].declared
            limits = declares and {name: (declared, declared_bounds(declared, game_vars, names))
                                   for name, declared in declares.items()}
        if not limits:
            continue
        for name, value in move[1]:
            limit = limits.get(name)
            if limit is None or type(value) not in (int, float):
                continue
            low, high, step = limit[1]  # off_declared's test, inline: every listed value passes here
            if (low is not None and value < low) or (high is not None and value > high) or \
                    (step is not None and (value - (low or 0)) % step):
                raise _listed_off(limit[0], value, limit[1])
    return moves


def answer_off_declared(ruleset, data: dict, answer, seat=None, public: bool = False) -> Optional[str]:
    """`off_declared` for `answer` to the decision pending in game data `data` (its choose is
    the effect before the waiting frame's `next`), given by `seat` in a decision of several
    players (then `p` is the seat, as in its `from`); `public` as off_declared's."""
    frame = data["stack"][data["pending"]["frame"]]
    if frame.get("kind") != "effects" or not frame["next"]:
        return None
    declared = getattr(ruleset.blocks[frame["block"]][frame["next"] - 1], "declared", None)
    if declared is None:
        return None
    names = frame["locals"] if seat is None else dict(frame["locals"], p=seat)
    return off_declared(declared, answer, declared_bounds(declared, data["vars"], names), public)


def parameter_off_declared(rule, name: str, value, game_vars, names, public: bool = False) -> Optional[str]:
    """`off_declared` for `value` of parameter `name` of action `rule`, or None when it declares
    no bound; `public` as off_declared's."""
    declared = rule.declared.get(name) if rule.declared is not None else None
    if declared is None:
        return None
    return off_declared(declared, value, declared_bounds(declared, game_vars, names), public)
