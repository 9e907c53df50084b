"""Taking moves back in a compiled game, as a mixin of CompiledState (game.py): `undo()`, an undo
point put back (`_back_to`: the frame, step, log, history and the vars the move's undo log
recorded), and the vars at an undo point of a move made without an undo log of them (`_vars_at`:
the game set up again and played to the point, `replayed`: a seeded game is the same game).

Owns: undo, putting an undo point back, playing a game again from its set-up.
"""
from __future__ import annotations

from ..engine.aliases import frame_links, relink
from ..engine.values import APPLIED, Outcome, public_refusal
from ..errors import RuleRuntimeError
from .decisions import ANSWER, POSITION
from .twin import history_entries

__all__ = ["Undoing", "replayed"]


class Undoing:
    """Undo points put back (mixed into CompiledState, whose slots hold the data)."""

    __slots__ = ()

    def _back_to(self, point) -> None:
        """Put the game back as it was at an undo point: (frame, its fields, step, log, log length,
        chance drawn, history, undo log (the vars' values there), moves, Actions, frames below, sub)."""
        restored = self._vars_at(point)
        (frame, frame_fields, self.step, log, log_length, self.rng[1], self._history, _undo_log, moves, legal,
         self.below, self.sub) = point
        frame[:] = frame_fields
        self.frame = frame
        self.is_terminal = False
        links = None  # locals held below a sub-phase that are vars' lists stay so (aliases.py)
        if any(below["kind"] != "phase" for below in self.below):
            links = frame_links(self.rs, {"vars": self.V, "stack": self.below})
        self.V.update(restored)
        if links:
            relink(self.rs, {"vars": self.V, "stack": self.below}, links)
        self._log_back(log, log_length)
        self.moves = moves
        self._legal = legal
        self._pending = None
        self._version += 1

    def _vars_at(self, point) -> dict:
        """The vars that differ at undo point `point` from now, with their values there: its undo
        log; for a move made without one of the vars (`_apply_index`), every var, from the game
        set up again and played to the point (a seeded game is the same game). Such a game keeps
        undo logs from then on: what asked for the position is likely to ask again."""
        undo_log = point[7]
        if undo_log is not self.module.every_var:
            return undo_log
        self._replayable = False
        return replayed(self, point[6]).V

    def undo(self, moves: int = 1) -> Outcome:
        """Take back the last `moves` moves made with apply_id."""
        if type(moves) is not int or not 1 <= moves <= len(self._undo):
            return public_refusal("nothing_to_undo", f"{len(self._undo)} move(s) made with apply_id can be "
                                                     f"taken back, not {moves!r}"[:200])
        for taken in range(1, moves + 1):
            point = self._undo.pop()
            if point[0] == "reference":  # a move the reference made: it takes it back
                point[1].undo(1)
                self._hand_over(point[1])
                continue
            if point[0] == POSITION:  # the position kept whole (decisions.py): played on from there
                self._hand_over(point[1])
                continue
            if self._ref is not None:  # back at a decision the reference answered (decisions.py)
                self._leave_reference()
            if point[0] == ANSWER:  # an answer to a decision inside a move
                if taken < moves and _back_to_start_next(self._undo, point[1]):
                    continue  # the move is put back at its start next: no need to make it again first
                self._restart(point[1], point[2], point[3])
            else:
                self._back_to(point)
        return APPLIED


def _back_to_start_next(points: list, start: tuple) -> bool:
    """Whether the next undo point to take back (the last of `points`) puts the game back at
    the move start `start` (it is that start, or an earlier answer of the same move): taking
    an answer back then needs no replay of the move (its undo log holds the vars' values at
    the start)."""
    if not points:
        return False
    following = points[-1]
    return following is start or (following[0] == ANSWER and following[1] is start)


def replayed(state, history):
    """The game of `state` set up again and played to the position after `history` (a chain of
    its moves, ending at a move's start): a seeded game is the same game every time."""
    fresh = state.rs.new_game(state._players, seed=state.seed, engine="compiled")  # (game.py start_game)
    fresh.log_kept = state.log_kept  # (a move whose log line failed was made in a game keeping none)
    for entry in history_entries(history):  # (a choice made at once with others: its JSON form)
        outcome = fresh.apply(entry["action"] if type(entry) is dict else entry)
        if not outcome:
            raise RuleRuntimeError(f"internal error: a move of the game could not be made again ({outcome.reason})")
    return fresh
