"""The reference twin of a compiled game, as a mixin of CompiledState (game.py): the identical
engine.State built from the game's data and history (`reference()`), which answers what the
compiled game does not implement, and the hand-over of a move the generated code cannot make
(a refusal, a failing rule, the game's end at a decision): the reference makes it and plays
on until it is back at a plain turn (no pending decision, only the phase frame on its stack),
where the generated code takes the game back (`_take_back`).

Owns: `reference()`, the history as the reference's entries, handing over and taking back, and
the engine.State names a compiled game answers through its reference (`forward_to_reference`).
"""
from __future__ import annotations

from ..engine.aliases import copied
from ..engine.effects import ENGINE_ERRORS, RuleFailure
from ..engine.state import State
from ..engine.values import Action, Outcome
from ..errors import RuleRuntimeError
from .blocks import FRAME_FIELDS, PLAYER, ROUND

__all__ = ["Twin", "HandOver", "BY_REFERENCE", "actions_chain", "history_entries", "frame_dict", "forward_to_reference"]

# what a compiled game answers by asking its reference twin (these change nothing)
_READ_ONLY = frozenset({"information_state", "determinize", "to_json", "diff", "replayed", "is_simultaneous",
                        "chance_outcomes"})


class HandOver(Exception):
    """Raised at a decision the generated code does not take (set-up asks a player, or the game
    ends at a decision in the middle of a move): the reference makes the move."""


# what makes the generated code give a move to the reference engine (which then says why)
BY_REFERENCE = (HandOver, RuleRuntimeError, RuleFailure) + ENGINE_ERRORS


def actions_chain(link):
    """A history chain with its moves as Actions (the reference's entries): the moves made by
    the generated code are `((name, args, label, template, context), player)` at its top."""
    moves = []
    while link is not None and type(link[1]) is tuple:
        moves.append(link[1])
        link = link[0]
    for (name, args, label, template, _context), player in reversed(moves):
        link = (link, Action.listed(name, args, player, label, template, None))
    return link


def history_entries(link) -> list:
    """The entries of a history chain, oldest first: the moves made by the generated code as
    Actions, the others as they are."""
    entries = []
    while link is not None:
        link, entry = link
        if type(entry) is tuple:
            (name, args, label, template, _context), player = entry
            entry = Action.listed(name, args, player, label, template, None)
        entries.append(entry)
    entries.reverse()
    return entries


def frame_dict(frame: list, sub: bool = False) -> dict:
    """The phase frame (a list in FRAME_FIELDS order) as the reference's stack holds it; `sub`:
    the frame's phase was entered by `enter` (a sub-phase)."""
    fields = dict(zip(FRAME_FIELDS, frame))
    return {"kind": "phase", "phase": fields.pop("phase"), "sub": sub, "stage": fields.pop("stage"), **fields}


class Twin:
    """The reference twin and the hand-over (mixed into CompiledState, whose slots hold the data)."""

    __slots__ = ()

    def _move_by_reference(self, index: int, undoable: bool) -> Outcome:
        """The move the generated code could not make (a decision inside it, a refusal, a rule
        failing), made by the reference engine: its outcome, reason and position are the
        reference's, and on success the game is handed over to it."""
        reference = self.reference()
        self._twin = None
        reference._undo.clear()
        if reference._legal_step != self.step:  # the moves listed here are the reference's: not listed again
            reference.cache_legal(self.moves, {"player": self.frame[PLAYER]})
        outcome = reference.apply_id(index)  # its undo point is this move's
        if outcome:
            self._hand_over(reference)
            if undoable:
                self._undo.append(("reference", reference))
        return outcome

    def _refused_by_reference(self, action) -> Outcome:
        """An action that is none of the listed moves: the reference says why it is refused
        (and if it took it after all, the game goes on with the reference)."""
        reference = self.reference()
        self._twin = None  # the twin has tried the move
        outcome = reference.apply(action)
        if outcome:
            self._hand_over(reference)
        return outcome

    # ------------------------------------------------------------------ the reference twin
    def history(self) -> list:
        if self._ref is not None:  # the reference holds the game: the newest moves are in its history
            return self._ref.history()
        return [{"action": entry.to_json()} if isinstance(entry, Action) else entry  # (a simultaneous choice: a dict)
                for entry in self._history_actions()]

    def _history_actions(self) -> list:
        return history_entries(self._history)

    def reference(self) -> State:
        """An engine.State identical to this game (built once per position)."""
        if self._ref is not None:
            return self._ref
        if self._twin is not None and self._twin[0] == self._version:
            return self._twin[1]
        pending = self._pending
        if pending is not None:  # at a decision inside a move: the move replayed (decisions.py)
            state = self._reference_at(pending.start, pending.index, pending.answers)
            # its history is this game's chain (the same entries), as at a plain turn: what is
            # derived from a position and keyed on the chain's links (infosets' memo of a player's
            # trajectory) is then found again from this game's later positions
            state._history = self._history = self._history_as_actions()
            self._twin = (self._version, state)
            return state
        data = copied(self.rs, self.d)  # (frames below a sub-phase: their locals that are vars stay so)
        state = State(self.rs, data, self._log)
        state._log_shared = self._log_shared = True
        state._history = self._history = self._history_as_actions()
        self._twin = (self._version, state)
        return state

    def _history_as_actions(self):
        """The history chain with the moves made here as Actions (the reference's entries). Only
        the top of the chain holds moves not converted yet: the rest was converted before."""
        return actions_chain(self._history)

    # ------------------------------------------------------------------ handing over
    def _by_reference(self, action, undoable: bool) -> Outcome:
        """A move while the game is handed over: the reference makes it."""
        reference = self._ref
        outcome = reference.apply_id(action) if undoable else reference.apply(action)
        if outcome and undoable:  # the reference keeps the undo point of this move
            self._undo.append(("reference", reference))
        self._hand_over(reference)
        return outcome

    def _hand_over(self, reference: State) -> None:
        """Let the reference play the game on, until it is back at a plain turn."""
        self._ref = reference
        self._pending = None
        self._twin = None
        self._legal = None
        self._version += 1
        self.terminal = reference.is_terminal
        data = reference.d
        stack = data["stack"]
        top = stack[-1] if stack else None
        plain_turn = data["pending"] is None and data["chance"] is None and not data["terminal"] and \
            top is not None and top["kind"] == "phase" and top["stage"] == "turns" and \
            top.get("sim") is None and top["player"] is not None and not self.rs.phases[top["phase"]].simultaneous
        if plain_turn:
            self._take_back(reference)

    def _take_back(self, reference: State) -> None:
        """Play on with the generated code from the reference's position (a plain turn, in a
        sub-phase too: the frames below it are kept as they are). The reference's data becomes
        this game's (the reference is only kept for its undo points, which restore whole
        snapshots)."""
        data = reference.d
        self.V = data["vars"]
        frame = data["stack"][-1]
        self.frame = [frame[field] for field in FRAME_FIELDS]
        self.sub, self.below = frame["sub"], data["stack"][:-1]
        self.step = data["step"]
        self.rng[:] = data["rng"]
        self.terminal = False
        self._log = reference._log
        self._log_shared = reference._log_shared = True
        self._history = reference._history
        self._ref = None
        if reference._legal_step == self.step and reference._moves_now is not None:  # listed by its flow already
            self.moves = reference._moves_now
            return
        module = self.module
        self.moves = module.legal[module.phase_index[self.frame[0]]](self, self.V, self.frame[PLAYER], self.frame[ROUND])


def forward_to_reference(cls) -> None:
    """Give `cls` (CompiledState) every public name of engine.State that it does not define, as
    a property answered by the reference twin: the read-only ones always (_READ_ONLY), any while
    the reference holds the game; otherwise an AttributeError that says what to do. (A fallback
    `__getattr__` on the class did the same, but with one Python looks every attribute of the
    state up the slow, unspecialised way: a tenth of a tic-tac-toe playout.)"""
    for name in dir(State):
        if name[:1] != "_" and not hasattr(cls, name):
            setattr(cls, name, _forwarded(name))


def _forwarded(name: str) -> property:
    def answer(self):
        if name in _READ_ONLY or self._ref is not None:
            return getattr(self.reference(), name)
        raise AttributeError(f"a compiled game has no '{name}': start it with engine='reference' "
                             "(rs.new_game(players, seed=..., engine='reference'))")
    return property(answer, doc=f"engine.State's `{name}`, answered by the reference twin")
