"""The range and step a `choose` declares for its numeric answers (`min`, `max`, `step`;
docs/language.md, "Bounds of integer parameters"), kept in play as the research adapters keep
them: the reference engine refuses an answer off them (acting.py), the compiled game leaves a
decision that offers one to the reference (compiled/module.py `open_choice`).

Owns: reading the declared bounds of a decision and saying why an answer lies off them.
"""
from __future__ import annotations

from typing import Optional

from .effects import Choose, located_error
from .values import fmt

__all__ = ["declared_bounds", "off_declared", "answer_off_declared"]


def declared_bounds(effect, game_vars, names) -> tuple:
    """(min, max, step) a `choose` declares (each None when it declares none), read now."""
    low, high, step = (handle.fn(game_vars, names) if handle is not None else None for handle in effect.declared)
    for key, value in (("min", low), ("max", high), ("step", step)):
        if value is not None and type(value) not in (int, float):
            raise located_error(f"choose {key}: {fmt(value)} is not a number", effect)
    if step is not None and (step < 1 or not float(step).is_integer()):  # 10.0 is 10, as the adapters read it
        raise located_error(f"choose step: {fmt(step)} is not a whole number of at least 1", effect)
    return low, high, (int(step) if step is not None else None)


def off_declared(effect, answer, bounds: tuple, public: bool = False) -> Optional[str]:
    """Why a number answering choose `effect` lies off `bounds`, the range and step it declares
    (`declared_bounds`: answers are min, min + step, ... up to max; the step counts from 0 when
    no min is declared), or None (also for an answer that is not a number). The engine refuses
    such an answer. `public`: the text any player may read, naming each bound by its expression
    rather than its value (a bound may read another player's secret; docs/security.md)."""
    if type(answer) not in (int, float):
        return None
    low, high, step = bounds
    if (low is None or answer >= low) and (high is None or answer <= high) and \
            (step is None or (answer - (low or 0)) % step == 0):
        return None
    declared = ", ".join(f"{key}: {handle.source if public else fmt(value)}"
                         for key, value, handle in zip(("min", "max", "step"), bounds, effect.declared)
                         if value is not None)
    where = f" at {effect.pos}" if getattr(effect.pos, "line", 0) else ""
    return (f"the answer {fmt(answer)} to the decision '{effect.bind}' ({effect.prompt}){where} lies off the range "
            f"or step it declares ({declared})")


def answer_off_declared(ruleset, data: dict, answer, public: bool = False) -> Optional[str]:
    """`off_declared` for `answer` to the decision pending in game data `data` (its choose is
    the effect before the waiting frame's `next`)."""
    frame = data["stack"][data["pending"]["frame"]]
    if frame.get("kind") != "effects" or not frame["next"]:
        return None
    effect = ruleset.blocks[frame["block"]][frame["next"] - 1]
    if type(effect) is not Choose or effect.declared is None:
        return None
    return off_declared(effect, answer, declared_bounds(effect, data["vars"], frame["locals"]), public)
