"""The shape of a scenario read from a file (`examples/*.yaml`): its keys and their types, and
the shape of each step (a label, or a mapping of exactly one kind: `expect`, `set`, `refused`,
`choose`, `action`, `at_once`). A scenario file is untrusted input: the runner (scenario.py)
asks `shape_problem` first and reports a wrong shape as a failed scenario with its reason,
so no step of the wrong shape reaches the engine (a traceback before).

Owns: `SCENARIO_KEYS`, `STEP_KINDS` and `shape_problem`.
"""
from __future__ import annotations

from typing import Optional

from .loader import plain

__all__ = ["SCENARIO_KEYS", "STEP_KINDS", "shape_problem"]

# the keys a scenario may have, and the type each must have
SCENARIO_KEYS = {"name": None, "source": None, "players": int, "seed": int, "modules": list, "chance": list,
                 "setup": list, "phase": str, "steps": list, "expect": list,
                 "reconstructed": None, "interpretation": None}
# the kinds of a step written as a mapping, and the other keys each may have
STEP_KINDS = {"expect": (), "set": (), "refused": ("code",), "choose": (), "action": ("args",), "at_once": ()}
# the kinds of step that are one move (what `refused` and each seat of `at_once` take)
MOVE_KINDS = ("choose", "action")


def shape_problem(scenario) -> Optional[tuple]:
    """(the node where it is written, why) a scenario read from a file has the wrong shape, or
    None. The node is the scenario, or the step at fault (its place in the file is shown)."""
    if not isinstance(scenario, dict):
        return scenario, "a scenario is a mapping (name, players, steps, expect, ...)"
    for key, value in scenario.items():
        if key not in SCENARIO_KEYS:
            return scenario, f"unknown scenario key '{key}' (known: {', '.join(SCENARIO_KEYS)})"
        expected = SCENARIO_KEYS[key]
        if expected is not None and value is not None and (
                not isinstance(value, expected) or (expected is int and isinstance(value, bool))):
            kind = "a list" if expected is list else "a " + expected.__name__
            return scenario, f"scenario key '{key}' must be {kind}"
    for key in ("setup", "expect"):
        for item in scenario.get(key) or []:
            if not isinstance(item, str):
                return scenario[key], _shown(f"each item of '{key}' is an expression (text), not {plain(item)!r}")
    for step in scenario.get("steps") or []:
        problem = _step_problem(step, tuple(STEP_KINDS))
        if problem:
            return (step if isinstance(step, dict) else scenario["steps"]), problem
    return None


def _step_problem(step, kinds: tuple) -> Optional[str]:
    """Why one step has the wrong shape, or None; `kinds`: the mapping kinds allowed here."""
    if isinstance(step, str):
        return None
    if not isinstance(step, dict):
        return _shown(f"a step is a label or a mapping, not {plain(step)!r}")
    present = [key for key in kinds if key in step]
    if len(present) != 1:
        return _shown(f"a step mapping has exactly one of {', '.join(kinds)}; this one has "
                      f"{', '.join(map(str, step)) if step else 'none'}")
    kind = present[0]
    extra = [key for key in step if key != kind and key not in STEP_KINDS[kind]]
    if extra:
        return _shown(f"a step with '{kind}' has no key '{plain(extra[0])}' (its keys: "
                      f"{', '.join((kind,) + STEP_KINDS[kind])})")
    value = step[kind]
    if kind in ("expect", "set", "action") and not isinstance(value, str):
        what = "an action id" if kind == "action" else "an expression"
        return _shown(f"'{kind}' takes {what} (text), not {plain(value)!r}")
    if kind == "refused":
        if step.get("code") is not None and not isinstance(step["code"], str):
            return _shown(f"'code' of a 'refused' step is a refusal code (text), not {plain(step['code'])!r}")
        return _step_problem(value, MOVE_KINDS)
    if kind == "at_once" and isinstance(value, dict):  # (not a mapping: scenario_seats.py says so)
        for answer in value.values():
            problem = _step_problem(answer, MOVE_KINDS)
            if problem:
                return problem
    return None


def _shown(message: str) -> str:
    """A message quoting a value from the file, cut to a readable length."""
    return message if len(message) <= 200 else message[:197] + "..."
