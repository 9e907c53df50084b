"""A decision inside a move of a compiled game (a `choose` with several options), as a mixin of
CompiledState (game.py). The action's generated function is a generator (blocks.py): it yields
the decision, the game lists its options as the reference does (engine/legal.py: one `choose`
move per option, with its label), and the answer, a step and a history entry of its own, is
sent back into it.

A generator cannot be copied or rewound, so what needs the position itself is built only when
asked: the reference State at a decision is the move replayed by the reference engine from the
move's start with the answers so far (hash, copy, to_json, information_state ...), and an answer
is taken back by putting the game back at the move's start and running the move again with the
answers before it (the game is seeded: the same moves give the same position).

A sub-phase entered by `enter` inside a move is played the same way: the generated effects
yield a SubPhase, the game keeps the generator (`Pending.outer`, with the frame it was running
in) and plays the sub-phase's flow; each move made in it counts as one more answer of the move
that entered it (replayed the same way), and its `return` sends the kept generator on.

Owns: `Pending`, answering a decision, the moves of a sub-phase entered inside a move and its
return, the reference at a decision, undoing an answer, and the undo point kept whole (a move
made with `apply` after one made with `apply_id`).
"""
from __future__ import annotations

import marshal

from ..engine.aliases import copied
from ..engine.state import State
from ..engine.effects import option_label
from ..engine.values import APPLIED, Outcome, freeze, thaw
from ..errors import RuleRuntimeError
from .support import SubPhase
from .twin import BY_REFERENCE, HandOver, actions_chain, frame_dict

__all__ = ["Decisions", "Pending", "ANSWER", "POSITION", "WHOLE", "made_again"]

_NOREF = 2
ANSWER = "answer"  # the tag of an undo point of an answer: (ANSWER, move start, move index, answers before)
POSITION = "position"  # the tag of an undo point kept whole: (POSITION, the reference State there)
WHOLE = ("reference", POSITION)  # the undo points that hold a whole position (a reference State)


class Pending:
    """A move waiting for a decision: the undo point of its start (game.py's tuple, whose undo
    log keeps growing until the move is over; None in set-up, which the reference then makes),
    the index of the move among the legal moves there, the answers given so far (ids), the
    generator waiting now (an action's, or a phase stage's: `in_flow`, its return value is the
    next stage), the decision now (player, options, (label template, names) or None, prompt;
    None at a turn of a sub-phase the move entered), and `outer`: for each sub-phase entered, innermost last,
    (generator, in_flow, frame) of the effects waiting for it to return."""

    __slots__ = ("start", "index", "undo_log", "answers", "generator", "in_flow", "decision", "outer")

    def __init__(self, moving, undo_log: dict):
        self.start, self.index = moving if moving is not None else (None, None)
        self.undo_log = undo_log
        self.answers: list = []
        self.generator = None
        self.in_flow = False
        self.decision = None
        self.outer: list = []


def made_again(game, moves: list, state: State) -> bool:
    """Make `moves` (a move and answers to its decisions, as Actions) with the generated code
    on `game`, a compiled game at the move's start: whether `game` is then at the decision that
    `state` (the reference's position after those moves) waits at, with the same vars, steps
    and chance drawn. Its answers are then taken back by making the move again from its start
    (`_restart`), not by a reference holding the game. The moves cannot be taken back."""
    for action in moves:
        if game._ref is not None:
            return False
        key = action.key
        index = next((index for index in range(len(game.moves)) if game.action_key(index) == key), None)
        if index is None or not game.apply_id(index):
            return False
    game._undo.clear()
    data = state.d
    return game._ref is None and game._pending is not None and game.step == data["step"] and \
        game.rng == data["rng"] and game.V == data["vars"]


class Decisions:
    """Decisions inside moves (mixed into CompiledState, whose slots hold the data)."""

    __slots__ = ()

    def _wait_in(self, generator, in_flow: bool, undo_log: dict) -> None:
        """Run a generator (an action's act_A, or a phase stage that may wait) to its first
        decision or its end (and then the flow goes on)."""
        pending = self._pending
        if pending is None:
            pending = self._pending = Pending(self._moving, undo_log)
        pending.generator = generator
        pending.in_flow = in_flow
        self._resume(None)

    def _resume(self, answer) -> None:
        """Send `answer` into the waiting generator: it runs on to its next decision, or to its
        end and the flow goes on (engine/flow.py checks the game's end before a decision:
        the reference then ends the game in the middle of the move, so it makes this move)."""
        pending = self._pending
        try:
            decision = pending.generator.send(answer)
        except StopIteration as stop:
            pending.generator = None
            if not pending.in_flow:
                self._after_action(self.frame, pending.undo_log)
            elif stop.value is not None:
                self.run(stop.value, pending.undo_log)
            elif self.terminal:
                self.moves = []
            if pending.generator is None and not pending.outer:  # no other decision in this move
                self._pending = None
            return
        if type(decision) is SubPhase:
            self._enter_sub(pending, decision)
            return
        end_if = self.module.end_if
        if pending.start is None or (end_if is not None and end_if(self.V, {})):
            raise HandOver()  # set-up asks a player, or the game ends at the decision
        pending.decision = decision
        # the labels are rendered when read (`_answer_move`): a random agent reads none
        self.moves = [("choose", (("value", freeze(option)),), None, None, None) for option in decision[1]]

    def _label_answers(self) -> None:
        """Every listed answer of the decision now with its label (`_answer_move`)."""
        for index in range(len(self.moves or ())):
            self._answer_move(index)

    def _answer_move(self, index: int) -> tuple:
        """Listed answer `index` of the decision now, with its label (rendered the first time it
        is read, from the position at the decision, which does not change while it waits:
        engine/effects.py `option_label`, the reference's own text)."""
        move = self.moves[index]
        decision = self._pending.decision
        if move[2] is None and decision is not None and decision[2] is not None:
            template, names = decision[2]
            label = option_label(self.rs.budget, template, self.V, names, decision[1][index])
            move = self.moves[index] = (move[0], move[1], label, None, None)
        return move

    def _enter_sub(self, pending: Pending, sub_phase: SubPhase) -> None:
        """`enter` in the waiting generator: it is kept with the frame it runs in, and the
        sub-phase's flow runs (engine/effects.py `_enter`, then the flow) up to its first turn."""
        if pending.start is None:
            raise HandOver()  # set-up enters a sub-phase: the reference sets the game up
        pending.outer.append((pending.generator, pending.in_flow, self.frame))
        pending.generator = pending.decision = None
        self.run(self.module.enter[sub_phase.number], pending.undo_log)

    def entered_here(self) -> bool:
        """Is the phase now a sub-phase that generated effects entered (its `return` sends them
        on, `return_from_sub`)? (One the reference entered is `sub`, its effects in `below`.)"""
        pending = self._pending
        return pending is not None and bool(pending.outer)

    def return_from_sub(self, undo_log: dict) -> None:
        """`next: return` of a sub-phase entered by generated effects (engine/flow.py `_leave`):
        the phase below is the phase again and the effects that entered it go on (to their
        next decision or sub-phase, or to their end and the flow after them). None: the flow
        of the sub-phase stops here (the game went on from the effects)."""
        pending = self._pending
        generator, in_flow, frame = pending.outer.pop()
        self.frame = frame
        if "current_phase" not in undo_log:
            undo_log["current_phase"] = self.V["current_phase"]
        self.V["current_phase"] = frame[0]
        pending.generator, pending.in_flow = generator, in_flow
        self._resume(None)
        return None

    def _answer_step(self, index: int) -> None:
        """Answer the decision with its option `index`: a step and a history entry, then on
        (at a turn of a sub-phase the move entered, the move `index` of the turn is made)."""
        pending = self._pending
        move = self._answer_move(index)  # (its label kept in the history)
        if pending.decision is None:  # a turn of the sub-phase (its step counted by _run_move)
            pending.answers.append(index)
            self._run_move(move, self.frame, pending.start, index, pending.undo_log)
            return
        self.rs.budget.reset()
        self.step += 1
        if self.step > self.rs.max_steps:
            raise RuleRuntimeError("the game exceeded its bound of steps")  # the reference says it
        self._history = (self._history, (move, pending.decision[0]))
        pending.answers.append(index)
        self.moves = None
        self._legal = None
        self._version += 1
        self._resume(thaw(move[1][0][1]))

    def _answer(self, index: int, undoable: bool) -> Outcome:
        """Apply the answer with id `index` (the game is at a decision)."""
        pending = self._pending
        before = list(pending.answers)
        if self.module.settles:  # (a sub-phase's moves may have labels that read the state)
            self._settle_labels()
        try:
            self._answer_step(index)
        except BY_REFERENCE:
            return self._answer_by_reference(pending, before, index, undoable)
        if undoable:
            self._undo.append((ANSWER, pending.start, pending.index, before))
        return APPLIED

    def _answer_by_reference(self, pending: Pending, before: list, index: int, undoable: bool) -> Outcome:
        """An answer the generated code could not carry through (`fail`, a rule failing, the
        game ending at the next decision): the reference answers at the same decision; on a
        refusal the game is back at the decision, else the reference plays on (twin.py)."""
        reference = self._reference_at(pending.start, pending.index, before)
        outcome = reference.apply_id(index)
        if not outcome:
            self._restart(pending.start, pending.index, before)
            return outcome
        self._pending = None
        self._hand_over(reference)
        if undoable:
            self._undo.append(("reference", reference))
        return outcome

    def _restart(self, start: tuple, index: int, answers: list) -> None:
        """Back to the move's start, and the move made again with `answers` (its undo log is
        the same dict, emptied: the vars are as they were at the start again)."""
        self._back_to(start)
        if start[7] is not self.module.every_var:  # (a move without an undo log of the vars keeps none)
            start[7].clear()
        self._run_move(self.moves[index], start[0], start, index)
        for answer in answers:
            self._answer_step(answer)

    def _leave_reference(self) -> None:
        """The reference, which answered a decision inside a move, has taken its moves back to
        that decision: its vars are this game's vars there (the move's undo log gives those
        at the move's start), and the generated code plays the game again."""
        self.V = marshal.loads(marshal.dumps(self._ref.d["vars"], _NOREF))
        self._ref = None

    def _keep_whole(self) -> None:
        """A move made with `apply` comes after the last move made with apply_id: undo() goes
        back to before that one and takes this one back too (the reference's undo point is a
        snapshot), whoever makes it (the generated code, the reference) and whatever it
        changes, so the last undo point becomes its whole position, a reference State."""
        point = self._undo[-1]
        if point[0] == ANSWER:
            position = self._reference_at(point[1], point[2], point[3])
        else:
            position = self._reference_before(point)
        self._undo[-1] = (POSITION, position)

    # ------------------------------------------------------------------ the reference at a decision
    def _reference_at(self, start: tuple, index: int, answers: list) -> State:
        """The reference State of this game with the move made at `start` waiting after
        `answers`: the position at the move's start (`_reference_before`), and the move and
        answers applied by the reference engine."""
        state = self._reference_before(start)
        for move in [index, *answers]:
            outcome = state.apply_id(move)
            if not outcome:  # the generated code made this move: the reference must too
                raise RuleRuntimeError(f"the reference engine refused a move of the compiled game: {outcome.reason}")
        state._undo.clear()
        return state

    def _reference_before(self, start: tuple) -> State:
        """The reference State of this game at the undo point `start`: its vars are the vars
        now with the undo log's values (the reference's vars while it holds the game: it is
        then at a decision of the move made at `start`, see `_leave_reference`)."""
        _frame, fields, step, log, log_length, rng_count, history, _undo_log, _moves, _legal, below, sub = start
        game_vars = dict(self._ref.d["vars"] if self._ref is not None else self.V)
        game_vars.update(self._vars_at(start))
        data = {"vars": game_vars, "stack": below + [frame_dict(fields, sub)], "pending": None, "chance": None,
                "terminal": False, "step": step, "seed": self.seed, "rng": [self.rng[0], rng_count], "error": None}
        log = log if len(log) == log_length else log[:log_length]
        if self._log is log:
            self._log_shared = True
        state = State(self.rs, copied(self.rs, data), log)  # (frames below a sub-phase: their locals that are vars)
        state._log_shared = True
        state._history = actions_chain(history)
        return state
