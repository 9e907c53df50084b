"""The frames of the engine's stack, by kind, with named fields. They are plain JSON data
(TypedDicts) because they are part of the save format and of every copy of a state.

Owns: the layout of a phase frame, an effect frame and a loop frame, of the pending decision
and of the pending chance node; the functions that build them; `check_frame`, used when a
saved state is read back.
"""
from __future__ import annotations

from typing import Any, Optional, TypedDict

__all__ = ["PhaseFrame", "EffectFrame", "ForFrame", "PendingChoice", "PendingChance",
           "phase_frame", "top_phase", "effect_frame", "for_frame", "check_frame", "STAGES"]

# the stages of a phase frame, in the order the flow goes through them (flow.py)
STAGES = ("enter", "turns", "exit", "leave")


class PhaseFrame(TypedDict):
    kind: str  # "phase"
    phase: str  # the phase id
    sub: bool  # entered by an effect (`enter`): `return` comes back to the phase below
    stage: str  # one of STAGES
    player: Optional[int]  # whose turn it is (None between turns)
    round: int  # the current round of a turns phase, from 1
    acted: int  # actions taken in the current turn
    order: Optional[list]  # the seats in turn order, fixed when the first turn starts
    index: int  # position in `order` of the player to act
    begin: int  # position in `order` where each round starts
    round_opened: int  # the last round whose `on_round` ran (0: none yet)
    passed_over: int  # seats passed over by `skip` in a row
    empty_turns: int  # turns in a row in which the player could not act
    # (simultaneous phases only) "sim": the open round of choices, {"waiting": [seats still to
    # choose], "chosen": [[seat, action, args], ...], "opened": step}, or None between rounds


class EffectFrame(TypedDict, total=False):
    kind: str  # "effects"
    block: int  # index of the compiled effect list (Ruleset.blocks)
    next: int  # the next effect to run
    locals: dict  # the names bound in this effect list
    draws: list  # chance outcomes already forced for the effect at `next - 1` (manual chance)


class ForFrame(TypedDict):
    kind: str  # "for"
    block: int  # the body
    var: str  # the loop variable
    items: list  # the values to loop over, fixed when the loop starts
    done: int  # how many bodies have been started
    locals: dict


class PendingChoice(TypedDict):
    player: int
    options: list
    bind: str  # the name the answer is bound to in the waiting effect frame
    prompt: str
    frame: int  # the index on the stack of the waiting effect frame
    labels: Optional[list]


class PendingChance(TypedDict):
    options: list  # the possible outcomes, each equally likely
    frame: int  # the index on the stack of the waiting effect frame


def top_phase(stack: list):
    """The innermost phase frame, or None."""
    for frame in reversed(stack):
        if frame["kind"] == "phase":
            return frame
    return None


def phase_frame(phase_id: str, sub: bool) -> PhaseFrame:
    return {"kind": "phase", "phase": phase_id, "sub": sub, "stage": "enter", "player": None,
            "round": 1, "acted": 0, "order": None, "index": 0, "begin": 0, "round_opened": 0, "passed_over": 0,
            "empty_turns": 0}


def effect_frame(block: int, local_names: dict) -> EffectFrame:
    return {"kind": "effects", "block": block, "next": 0, "locals": local_names}


def for_frame(block: int, var: str, items: list, local_names: dict) -> ForFrame:
    return {"kind": "for", "block": block, "var": var, "items": items, "done": 0, "locals": local_names}


_FIELDS = {
    "phase": {"phase": str, "sub": bool, "stage": str, "round": int, "acted": int, "index": int,
              "begin": int, "round_opened": int, "passed_over": int,
              "empty_turns": int},
    "effects": {"block": int, "next": int, "locals": dict},
    "for": {"block": int, "var": str, "items": list, "done": int, "locals": dict},
}


def check_frame(frame: Any, ruleset, players: int) -> Optional[str]:
    """Why a frame read from a save cannot be one of this ruleset's, or None."""
    if not isinstance(frame, dict) or frame.get("kind") not in _FIELDS:
        return f"a stack frame has no known kind: {str(frame)[:80]}"
    kind = frame["kind"]
    for name, typ in _FIELDS[kind].items():
        value = frame.get(name)
        if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
            return f"a {kind} frame's '{name}' is not a {typ.__name__}"
    if kind == "phase":
        if frame["phase"] not in ruleset.phases:
            return f"phase '{frame['phase']}' does not exist in {ruleset.name}"
        if frame["stage"] not in STAGES:
            return f"phase stage '{frame['stage']}' is not one of {', '.join(STAGES)}"
        seats = list(frame.get("order") or []) + [frame.get("player")]
        if any(seat is not None and (not isinstance(seat, int) or not 0 <= seat < players) for seat in seats):
            return f"a seat in phase '{frame['phase']}' is not one of the {players} players"
        return _simultaneous_problem(frame.get("sim"), ruleset, players)
    if not 0 <= frame["block"] < len(ruleset.blocks):
        return f"effect list {frame['block']} does not exist in {ruleset.name}"
    return None


def _simultaneous_problem(node, ruleset, players) -> Optional[str]:
    """Why a saved simultaneous round ({"waiting", "chosen", "opened"}) cannot be one, or None."""
    if node is None:
        return None
    def seat(value):
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players
    if not isinstance(node, dict) or not isinstance(node.get("opened"), int):
        return "a simultaneous round does not say when it opened"
    if not isinstance(node.get("waiting"), list) or not all(seat(value) for value in node["waiting"]):
        return "a simultaneous round's waiting seats are not seats"
    chosen = node.get("chosen")
    if not isinstance(chosen, list) or not all(
            isinstance(entry, list) and len(entry) == 3 and seat(entry[0]) and entry[1] in ruleset.actions
            and isinstance(entry[2], dict) for entry in chosen):
        return "a simultaneous round holds a choice that is not [seat, action, args]"
    return None

