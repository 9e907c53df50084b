"""The generator's second half: each phase's flow as straight-line functions, and the module.

Per phase P (numbered, never named after the rules):
  enter_P(st, V, S)  push the phase (its frame, `current_phase`, the log line), run `on_enter`
  turns_P(st, V, S)  engine/turn_order.py's `turn_step` with only the branches the phase's
                     settings need (no `skip`: no skip test; no `rounds`: no round test)
  exit_P, leave_P    `on_exit`; the game's `end_if`, then the first `next` that holds
Each stage function returns the next stage function, or None when a player must act (the moves
are in `st.moves`) or the game is over (`st.terminal`); a stage whose blocks hold a `choose` is
a generator that yields its decisions and returns the same (game.py runs it, decisions.py).
The phase frame is a list at the constant offsets of blocks.FRAME_FIELDS; `S` is the move's
undo log (blocks.py). After a block that may run `end_phase` the flow goes on from the frame's
stage (`STAGES[P]`, as flow.py does). The generated flow holds the innermost phase frame only.
`enter` inside generated effects yields the sub-phase (blocks.py): the game keeps the waiting
effects with the frame below (decisions.py) and runs `enter_P` of the sub-phase; its `return`
(`st.entered_here()`) hands the effects back to the game (`st.return_from_sub`), which sends
them on. A sub-phase the reference engine entered (the game was handed over to it) is played
with the reference's frames below it kept as they are (`st.below`; `st.sub` is the frame's
`sub`), and its `return` hands the move over to the reference (the effects below go on from
the middle of its frames); so does entering a simultaneous phase. `next: return` of a phase not
entered by `enter` ends the game, as the reference's does.

Owns: `generate(ruleset) -> GeneratedSource` (the source, the values it names, and the tables
of functions by phase and action). The source does not depend on the number of players.
"""
from __future__ import annotations

from dataclasses import dataclass

from .blocks import (ACTED, BEGIN, EMPTY, INDEX, OPENED, ORDER, PASSED, PLAYER, ROUND, STAGE, Writer,
                     text, write_action, write_block, write_procedures)
from .legal_code import write_legal
from .support import phase_enders

__all__ = ["generate", "GeneratedSource"]


@dataclass
class GeneratedSource:
    """The generated game module's source and the values its generated names are bound to."""
    source: str
    constants: dict  # generated name -> value (compiled expression functions, effects, label parts)
    phase_index: dict  # phase id -> its number in the function names
    action_index: dict  # action id -> its number
    settles: bool  # some action's label reads the state
    waiting: frozenset  # the actions whose act_A is a generator (it may wait for a decision)


def generate(ruleset) -> GeneratedSource:
    out = Writer(ruleset)
    phase_index = {phase_id: number for number, phase_id in enumerate(ruleset.phases)}
    action_index = {action_id: number for number, action_id in enumerate(ruleset.actions)}
    end_if = out.call(ruleset.end_if, "_NO_NAMES") if ruleset.end_if is not None else None
    enders = phase_enders(ruleset)
    for phase_id, phase in ruleset.phases.items():
        number = phase_index[phase_id]
        if phase.simultaneous:  # the reference engine plays it (the move that enters it hands over)
            out.emit(0, f"def enter_{number}(st, V, S):")
            out.emit(1, "raise _HandOver()")
            out.emit(0, "")
            continue
        _enter(out, phase, number, enders)
        if phase.kind == "turns":
            write_legal(out, phase, number)
            _turns(out, phase, number, end_if, enders)
            _anybody(out, phase, number)
        _exit(out, phase, number)
        _leave(out, phase, number, phase_index, end_if)
    waiting = set()  # the actions written as generators (a `choose` in them may wait)
    for action_id, action in ruleset.actions.items():
        if write_action(out, action, action_index[action_id]):
            waiting.add(action_id)
    write_procedures(out)
    _tables(out, phase_index, action_index)
    settles = any(action.label_parts and not action.label_static for action in ruleset.actions.values())
    return GeneratedSource("\n".join(out.lines) + "\n", out.constants, phase_index, action_index, settles,
                           frozenset(waiting))


def _enter(out: Writer, phase, number: int, enders: set) -> None:
    out.emit(0, f"def enter_{number}(st, V, S):")
    out.save_var(1, "current_phase")
    out.emit(1, f"V['current_phase'] = {text(phase.id)}")
    out.emit(1, f"st.note({text('— ' + str(phase.label) + ' —')})")
    out.emit(1, f"F = st.frame = [{text(phase.id)}, 'enter', None, 1, 0, None, 0, 0, 0, 0, 0]")
    if phase.kind == "end":
        out.emit(1, "st.terminal = True")
        out.emit(1, "return None")
        out.emit(0, "")
        return
    following = "turns" if phase.kind == "turns" else "exit"
    out.emit(1, f"F[{STAGE}] = {text(following)}")
    if phase.enter_block is not None:
        out.emit(1, "L = {'player': None, 'round': 1}")
        write_block(out, phase.enter_block, 1, "L")
        if phase.enter_block in enders:
            out.emit(1, f"return STAGES[{number}][F[{STAGE}]]")
            out.emit(0, "")
            return
    out.emit(1, f"return {following}_{number}")
    out.emit(0, "")


def _to_exit(out: Writer, depth: int, number: int, clear_player: bool) -> None:
    out.emit(depth, f"F[{STAGE}] = 'exit'")
    if clear_player:
        out.emit(depth, f"F[{PLAYER}] = None")
    out.emit(depth, f"return exit_{number}")


def _after_block(out: Writer, block, depth: int, number: int, enders: set) -> None:
    """After a block of the turns stage that may run `end_phase`: go on from the frame's stage."""
    if block in enders:
        out.emit(depth, f"if F[{STAGE}] != 'turns':")
        out.emit(depth + 1, f"return STAGES[{number}][F[{STAGE}]]")


def _turns(out: Writer, phase, number: int, end_if, enders: set) -> None:
    """turn_order.turn_step as one loop: each pass is one call of turn_step in the reference."""
    out.emit(0, f"def turns_{number}(st, V, S):")
    out.emit(1, "F = st.frame")
    out.emit(1, f"if F[{ORDER}] is None:")  # (only a new frame has no order: not tested again in the loop)
    _start_turns(out, phase, number, 2)
    out.emit(1, "while True:")
    out.emit(2, f"if F[{PLAYER}] is not None:")
    if phase.per_turn is not None or phase.end is not None:
        out.emit(3, f"L = {{'player': F[{PLAYER}], 'round': F[{ROUND}]}}")
    if phase.per_turn is not None:
        out.emit(3, f"if F[{ACTED}] == 0 or F[{ACTED}] < {out.call(phase.per_turn, 'L')}:")
    else:  # one action a turn
        out.emit(3, f"if F[{ACTED}] == 0:")
    if phase.end is not None:
        out.emit(4, f"if {out.call(phase.end, 'L')}:")
        _to_exit(out, 5, number, True)
    out.emit(4, f"moves = legal_{number}(st, V, F[{PLAYER}], F[{ROUND}])")
    out.emit(4, "if moves:")
    if end_if is not None:  # a player must act: the game's end condition is checked first
        out.emit(5, f"if {end_if}:")
        out.emit(6, "st.terminal = True")
        out.emit(6, "moves = []")
    out.emit(5, "st.moves = moves")
    out.emit(5, "return None")
    # one action a turn: the turn is over without acting exactly when the test above held
    _end_turn(out, phase, number, tested=phase.per_turn is None)
    if phase.rounds is not None or phase.end is not None or phase.round_block is not None:
        out.emit(2, f"L = {{'player': None, 'round': F[{ROUND}]}}")
    if phase.rounds is not None:
        out.emit(2, f"if F[{ROUND}] > {out.call(phase.rounds, 'L')}:")
        _to_exit(out, 3, number, False)
    if phase.end is not None:
        out.emit(2, f"if {out.call(phase.end, 'L')}:")
        _to_exit(out, 3, number, False)
    if phase.round_block is not None:
        out.emit(2, f"if F[{OPENED}] != F[{ROUND}]:")
        out.emit(3, f"F[{OPENED}] = F[{ROUND}]")
        write_block(out, phase.round_block, 3, "L")
        _after_block(out, phase.round_block, 3, number, enders)
        out.emit(3, "continue")
    else:  # (a new round opens with nothing to run)
        out.emit(2, f"F[{OPENED}] = F[{ROUND}]")
    _next_player(out, phase, number)
    _after_block(out, phase.turn_block, 2, number, enders)
    out.emit(0, "")


def _start_turns(out: Writer, phase, number: int, depth: int) -> None:
    if phase.players is not None or phase.first is not None:
        out.emit(depth, f"L = {{'player': F[{PLAYER}], 'round': F[{ROUND}]}}")
    players = f"list({out.call(phase.players, 'L')})" if phase.players is not None else "list(V['players'])"
    out.emit(depth, f"order = F[{ORDER}] = {players}")
    out.emit(depth, "if not order:")
    _to_exit(out, depth + 1, number, False)
    first = out.call(phase.first, "L") if phase.first is not None else "order[0]"
    out.emit(depth, f"first = {first}")
    out.emit(depth, f"F[{INDEX}] = order.index(first) if first in order else 0")
    out.emit(depth, f"F[{PLAYER}] = None")
    out.emit(depth, f"F[{BEGIN}] = F[{INDEX}]")
    out.emit(depth, f"F[{ACTED}] = 0")


def _end_turn(out: Writer, phase, number: int, tested: bool) -> None:
    """turn_order._end_turn: the turn is over (the player had no action left). `tested`: the
    code goes on inside the `if F[ACTED] == 0:` that listed the moves (not tested again)."""
    if not tested:
        out.emit(3, f"if F[{ACTED}] == 0:")
    out.emit(4, f"st.note(('player ', F[{PLAYER}], ' cannot act and is skipped'))")
    out.emit(4, f"F[{EMPTY}] += 1")
    out.emit(4, f"if F[{EMPTY}] >= len(F[{ORDER}]) or not anybody_{number}(st, V, F):")
    out.emit(5, "st.note('nobody can act: the phase ends')")
    _to_exit(out, 5, number, True)
    out.emit(3, "else:")
    out.emit(4, f"F[{EMPTY}] = 0")
    out.emit(3, f"F[{PLAYER}] = None")
    out.emit(3, f"F[{INDEX}] = (F[{INDEX}] + {phase.order}) % len(F[{ORDER}])")
    out.emit(3, f"if F[{INDEX}] == F[{BEGIN}]:")
    out.emit(4, f"F[{ROUND}] += 1")


def _skipped(out: Writer, phase, seat: str) -> str:
    """turn_order.skipped: the phase's `skip` read with `p` bound to the seat."""
    if phase.skip is None:
        return "False"
    return f"{out.value(phase.skip.fn, '_h')}(V, {{'player': None, 'round': F[{ROUND}], 'p': {seat}}})"


def _next_player(out: Writer, phase, number: int) -> None:
    """turn_order._next_player, then the start of the turn (its `on_turn`). Without `skip` the
    seat at the index always plays (nobody is passed over, so `passed_over` stays 0)."""
    if phase.skip is None:
        out.emit(2, f"player = F[{PLAYER}] = F[{ORDER}][F[{INDEX}]]")
        out.emit(2, f"F[{ACTED}] = 0")
        _start_turn(out, phase)
        return
    out.emit(2, f"order = F[{ORDER}]")
    out.emit(2, "player = None")
    out.emit(2, f"while F[{PASSED}] < len(order):")
    out.emit(3, f"seat = order[F[{INDEX}]]")
    out.emit(3, f"if not {_skipped(out, phase, 'seat')}:")
    out.emit(4, f"F[{PASSED}] = 0")
    out.emit(4, "player = seat")
    out.emit(4, "break")
    out.emit(3, f"F[{PASSED}] += 1")
    out.emit(3, f"F[{INDEX}] = (F[{INDEX}] + {phase.order}) % len(order)")
    out.emit(3, f"if F[{INDEX}] == F[{BEGIN}]:")
    out.emit(4, f"F[{ROUND}] += 1")
    out.emit(4, "break")
    out.emit(2, "else:")
    _to_exit(out, 3, number, False)  # everybody is skipped
    out.emit(2, "if player is None:")
    out.emit(3, "continue")
    out.emit(2, f"F[{PLAYER}] = player")
    out.emit(2, f"F[{ACTED}] = 0")
    _start_turn(out, phase)


def _start_turn(out: Writer, phase) -> None:
    if phase.turn_block is not None:
        out.emit(2, f"L = {{'player': player, 'round': F[{ROUND}]}}")
        write_block(out, phase.turn_block, 2, "L")


def _anybody(out: Writer, phase, number: int) -> None:
    """turn_order._anybody_can_act: could a seat other than the player to act act now?"""
    out.emit(0, f"def anybody_{number}(st, V, F):")
    out.emit(1, f"for seat in F[{ORDER}]:")
    out.emit(2, f"if seat == F[{PLAYER}] or {_skipped(out, phase, 'seat')}:")
    out.emit(3, "continue")
    out.emit(2, f"if legal_{number}(st, V, seat, F[{ROUND}]):")
    out.emit(3, "return True")
    out.emit(1, "return False")
    out.emit(0, "")


def _exit(out: Writer, phase, number: int) -> None:
    out.emit(0, f"def exit_{number}(st, V, S):")
    out.emit(1, "F = st.frame")
    if phase.exit_block is not None:
        out.emit(1, f"L = {{'player': F[{PLAYER}], 'round': F[{ROUND}]}}")
    out.emit(1, f"F[{STAGE}] = 'leave'")
    if phase.exit_block is not None:
        write_block(out, phase.exit_block, 1, "L")
    out.emit(1, f"return leave_{number}")
    out.emit(0, "")


def _leave(out: Writer, phase, number: int, phase_index: dict, end_if) -> None:
    out.emit(0, f"def leave_{number}(st, V, S):")
    out.emit(1, "F = st.frame")
    if end_if is not None:
        out.emit(1, f"if {end_if}:")
        out.emit(2, "st.terminal = True")
        out.emit(2, "return None")
    if any(condition is not None for _target, condition in phase.next):
        out.emit(1, f"L = {{'player': F[{PLAYER}], 'round': F[{ROUND}]}}")
    out.emit(1, "st.frame = None")
    for target, condition in phase.next:
        depth = 1
        if condition is not None:
            out.emit(1, f"if {out.call(condition, 'L')}:")
            depth = 2
        if target in ("end", "return"):
            _end_or_return(out, depth, target)
        else:
            out.emit(depth, f"return enter_{phase_index[target]}")
        if condition is None:
            out.emit(0, "")
            return
    _end_or_return(out, 1, "return")  # no `next` holds: back to the phase below, or the end
    out.emit(0, "")


def _end_or_return(out: Writer, depth: int, target: str) -> None:
    """flow.py `_leave`: `end` ends the game; `return` leaves a sub-phase (the effects that
    entered it go on: sent on by the game when the generated code entered it, else the
    reference engine makes the move) and ends the game in a phase not entered."""
    if target == "return":
        out.emit(depth, "if st.entered_here():")
        out.emit(depth + 1, "return st.return_from_sub(S)")
        out.emit(depth, "if st.sub:")
        out.emit(depth + 1, "raise _HandOver()")
    out.emit(depth, "st.terminal = True")
    out.emit(depth, "return None")


def _tables(out: Writer, phase_index: dict, action_index: dict) -> None:
    """The stage functions by phase number and the actions by number, for the runtime."""
    kinds = {number: "simultaneous" if out.rs.phases[phase_id].simultaneous else out.rs.phases[phase_id].kind
             for phase_id, number in phase_index.items()}
    out.emit(0, f"ENTER = [{', '.join(f'enter_{number}' for number in phase_index.values())}]")
    out.emit(0, "TURNS = [" + ", ".join(f"turns_{number}" if kinds[number] == "turns" else "None"
                                         for number in phase_index.values()) + "]")
    out.emit(0, "LEGAL = [" + ", ".join(f"legal_{number}" if kinds[number] == "turns" else "None"
                                         for number in phase_index.values()) + "]")
    out.emit(0, f"ACT = [{', '.join(f'act_{number}' for number in action_index.values())}]")
    out.emit(0, "STAGES = [" + ", ".join(_stage_table(kinds[number], number) for number in phase_index.values()) + "]")


def _stage_table(kind: str, number: int) -> str:
    """A phase's stage functions by stage name (the flow goes on from the frame's stage)."""
    if kind == "simultaneous":
        return "{}"
    turns = f"'turns': turns_{number}, " if kind == "turns" else ""
    return f"{{{turns}'exit': exit_{number}, 'leave': leave_{number}}}"
