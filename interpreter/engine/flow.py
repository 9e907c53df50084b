"""The phase flow: entering a phase, its turns, leaving it, where it goes next, and the game's
end condition — all in one place. `run` advances the stack of frames until a player must act,
a chance node is reached, or the game ends.

Lifecycle of a phase frame (stages, frames.STAGES):
  enter  -> run `on_enter` (and `effects`); an `end` phase ends the game
  turns  -> (turns phases only) turn_order.turn_step: rounds, turns, skips, `end`, actions
  exit   -> run `on_exit`
  leave  -> check the game's `end_if`; follow the first `next` whose condition holds
            (`end` ends the game, `return` goes back to the phase that entered this one)

Owns: the run loop, the stages of a phase, `end_phase`, `next`/`return`/`end`, `end_if`.
"""
from __future__ import annotations

from ..errors import RuleRuntimeError
from .effects import ENGINE_ERRORS, describe_error, execute
from .frames import effect_frame, phase_frame, top_phase
from .turn_order import turn_step

__all__ = ["run", "push_phase", "end_phase", "top_phase", "FLOW_GUARD"]

FLOW_GUARD = 1_000_000  # frames advanced without coming back to a player: a rule loops


def push_phase(state, phase_id: str, sub: bool) -> None:
    data = state.d
    data["stack"].append(phase_frame(phase_id, sub))
    data["vars"]["current_phase"] = phase_id
    state.note(f"— {state.rs.phases[phase_id].label} —")


def end_phase(state) -> None:
    """`end_phase`: the innermost phase ends once the effects under way have run (the rest of
    the list, and of the lists it is nested in): no further turn or round; `on_exit` runs."""
    frame = top_phase(state.d["stack"])
    if frame is not None:
        frame["stage"] = "leave" if frame["stage"] in ("exit", "leave") else "exit"
        frame["player"] = None


def run(state) -> None:
    """Run until a player must act, a chance outcome is needed, or the game ends."""
    data = state.d
    stack = data["stack"]
    for _ in range(FLOW_GUARD):
        if data["pending"] is not None:  # a decision: the game's end condition is checked first
            if _game_over(state):
                data["terminal"] = True
                data["pending"] = None
            return
        if data["terminal"] or data["chance"] is not None:
            return
        if not stack:
            data["terminal"] = True
            return
        top = stack[-1]
        kind = top["kind"]
        if kind == "effects":
            if execute(state, top):
                stack.pop()
        elif kind == "for":
            _loop_step(stack, top)
        elif _located_phase_step(state, top):
            # a player must act: the game's end condition is checked first
            if _game_over(state):
                data["terminal"] = True
            else:
                state.cache_legal(state.waiting, top if top.get("sim") is None else None)
            return
    raise RuleRuntimeError(f"the flow did not come back to a player (phase '{state.phase}')")


def _loop_step(stack: list, frame) -> None:
    if frame["done"] < len(frame["items"]):
        local_names = dict(frame["locals"])
        local_names[frame["var"]] = frame["items"][frame["done"]]
        frame["done"] += 1
        stack.append(effect_frame(frame["block"], local_names))
    else:
        stack.pop()


def _game_over(state) -> bool:
    end_if = state.rs.end_if
    return end_if is not None and bool(end_if.fn(state.d["vars"], {}))


def _located_phase_step(state, frame) -> bool:
    """_phase_step; an error in one of the phase's own expressions names the phase."""
    try:
        return _phase_step(state, frame)
    except RuleRuntimeError as error:
        if error.where or getattr(error, "pos", None) is not None:  # located already
            raise
        raise _phase_error(str(error), state, frame, error.shown()) from None
    except ENGINE_ERRORS as error:
        raise _phase_error(describe_error(error), state, frame, describe_error(error, plain=True)) from None


def _phase_error(message, state, frame, plain: str) -> RuleRuntimeError:
    """An error in one of a phase's own expressions: it names the phase, at its position."""
    return RuleRuntimeError(message, f"phase '{frame['phase']}'", pos=state.rs.phases[frame["phase"]].pos, plain=plain)


def _phase_step(state, frame) -> bool:
    """Advance a phase frame by one stage; True when a player must now act."""
    stage = frame["stage"]
    phase = state.rs.phases[frame["phase"]]
    if stage == "turns":
        return turn_step(state, frame, phase)
    data = state.d
    local_names = {"player": frame["player"], "round": frame["round"]}
    if stage == "enter":
        if phase.kind == "end":
            data["terminal"] = True
            return False
        frame["stage"] = "turns" if phase.kind == "turns" else "exit"
        if phase.enter_block is not None:
            data["stack"].append(effect_frame(phase.enter_block, local_names))
        return False
    if stage == "exit":
        frame["stage"] = "leave"
        if phase.exit_block is not None:
            data["stack"].append(effect_frame(phase.exit_block, local_names))
        return False
    _leave(state, frame, phase, local_names)
    return False


def _leave(state, frame, phase, local_names) -> None:
    data = state.d
    game_vars = data["vars"]
    if _game_over(state):
        data["terminal"] = True
        return
    target = None
    for candidate, condition in phase.next:
        if condition is None or condition.fn(game_vars, local_names):
            target = candidate
            break
    if target is None:
        target = "return" if frame["sub"] else "end"
    data["stack"].pop()
    if target == "end" or (target == "return" and not frame["sub"]):
        data["terminal"] = True
    elif target == "return":  # back in the phase that entered the sub-phase
        below = top_phase(data["stack"])
        if below is not None:
            game_vars["current_phase"] = below["phase"]
    else:
        push_phase(state, target, frame["sub"])
