"""Turn order in a turns phase: the seats taking part (`players`), who starts (`first`), the
direction (`order`), who is passed over (`skip`), rounds (`rounds`, `on_round`), the turn's
own effects (`on_turn`), how many actions a turn holds (`actions_per_turn`) and the phase's
`end` condition checked before each decision.

Owns: `turn_step`, which moves a phase frame in its `turns` stage to the next decision or to
its exit. The legal actions of the player to act come from legal.py.
"""
from __future__ import annotations

from . import simultaneous
from .frames import effect_frame
from .legal import actions_for

__all__ = ["turn_step", "start_turns", "skipped"]


def turn_step(state, frame, phase) -> bool:
    """Advance the turns of `frame`; True when its player must act now (their legal actions
    are left in `state.waiting`)."""
    if phase.simultaneous:
        return simultaneous.turn_step(state, frame, phase)
    if frame["order"] is None and not start_turns(state, frame, phase):
        return False
    if frame["player"] is not None:
        waiting = _turn_goes_on(state, frame, phase)
        if waiting is not None:
            return waiting
        if not _end_turn(state, frame, phase):
            return False
    return _next_turn(state, frame, phase)


def _next_turn(state, frame, phase) -> bool:
    """Between two turns: the round's end and the phase's, `on_round`, the next seat and its
    `on_turn`; True when that seat must act now."""
    game_vars = state.d["vars"]
    names = {"player": None, "round": frame["round"]}
    if phase.rounds is not None and frame["round"] > phase.rounds.fn(game_vars, names):
        frame["stage"] = "exit"
        return False
    if phase.end is not None and phase.end.fn(game_vars, names):
        frame["stage"] = "exit"
        return False
    if frame["round_opened"] != frame["round"]:  # a round begins: it is played, so on_round runs
        frame["round_opened"] = frame["round"]
        if phase.round_block is not None:
            state.d["stack"].append(effect_frame(phase.round_block, {"player": None, "round": frame["round"]}))
            return False
    player = _next_player(state, frame, phase)
    if player is None:
        return False
    frame["player"] = player
    frame["acted"] = 0
    if phase.turn_block is not None:
        state.d["stack"].append(effect_frame(phase.turn_block, {"player": player, "round": frame["round"]}))
        return False
    return turn_step(state, frame, phase)  # the turn starts now: find its actions at once


def start_turns(state, frame, phase) -> bool:
    """Fix the seats and the first player; False when nobody takes part."""
    game_vars = state.d["vars"]
    names = {"player": frame["player"], "round": frame["round"]}
    order = list(phase.players.fn(game_vars, names)) if phase.players is not None else list(game_vars["players"])
    frame["order"] = order
    if not order:
        frame["stage"] = "exit"
        return False
    first = phase.first.fn(game_vars, names) if phase.first is not None else order[0]
    frame["index"] = order.index(first) if first in order else 0
    frame["player"] = None
    frame["begin"] = frame["index"]
    frame["acted"] = 0
    return True


def _turn_goes_on(state, frame, phase):
    """While the player to act has actions left: True (they must act), False (the phase
    ends), or None (the turn is over)."""
    game_vars = state.d["vars"]
    acted = frame["acted"]
    if acted and phase.per_turn is None:  # (the common case: one action a turn)
        return None
    names = {"player": frame["player"], "round": frame["round"]}
    if acted == 0 or acted < phase.per_turn.fn(game_vars, names):
        if phase.end is not None and phase.end.fn(game_vars, names):
            frame["stage"] = "exit"
            frame["player"] = None
            return False
        actions = actions_for(state, phase, frame["player"], frame)
        if actions:
            state.waiting = actions
            return True
    return None


def _end_turn(state, frame, phase) -> bool:
    """The turn is over: pass to the next seat (a new round when back at the first); False
    when the phase ends because nobody can act."""
    data = state.d
    if frame["acted"] == 0:
        state.note(("player ", frame["player"], " cannot act and is skipped"))
        frame["empty_turns"] += 1
        # (a whole round of empty turns ends it too: `on_turn` effects could otherwise keep
        # handing the ability to act around without anybody acting)
        if frame["empty_turns"] >= len(frame["order"]) or not _anybody_can_act(state, frame, phase):
            state.note("nobody can act: the phase ends")
            frame["stage"] = "exit"
            frame["player"] = None
            return False
    else:
        frame["empty_turns"] = 0
    frame["player"] = None
    frame["index"] = (frame["index"] + phase.order) % len(frame["order"])
    if frame["index"] == frame["begin"]:
        frame["round"] += 1
    return True


def _anybody_can_act(state, frame, phase) -> bool:
    """Could any seat taking part (and not skipped) act in the state as it is now?"""
    game_vars = state.d["vars"]
    for seat in frame["order"]:
        if seat == frame["player"] or skipped(game_vars, phase, frame, seat):
            continue
        if actions_for(state, phase, seat, frame):
            return True
    return False


def skipped(game_vars, phase, frame, seat) -> bool:
    return phase.skip is not None and bool(phase.skip.fn(game_vars, {"player": None, "round": frame["round"], "p": seat}))


def _next_player(state, frame, phase):
    """The next seat not skipped; None when a new round begins on the way (turn_step then
    opens it) or when everybody is skipped (the phase is over)."""
    game_vars = state.d["vars"]
    order = frame["order"]
    seats = len(order)
    while frame["passed_over"] < seats:
        player = order[frame["index"]]
        if not skipped(game_vars, phase, frame, player):
            frame["passed_over"] = 0
            return player
        frame["passed_over"] += 1
        frame["index"] = (frame["index"] + phase.order) % seats
        if frame["index"] == frame["begin"]:
            frame["round"] += 1
            return None
    frame["stage"] = "exit"  # everybody is skipped
    return None
