"""What a compiled game answers about itself (a mixin of CompiledState, game.py): whose turn,
the phase and round, the vars, the step count, the game's data as engine.State keeps it, and its log
(or that it keeps none: `drop_log`).
While the game is handed over (`_ref`) the reference answers; at a decision inside a move
(`_pending`, decisions.py) the player to act is the one asked, and the data are the
reference's at that decision.

Owns: the read-only queries of the public API.
"""
from __future__ import annotations

from typing import Optional

from ..engine.frames import top_phase
from ..engine.state import State
from ..errors import RuleRuntimeError
from .blocks import PLAYER, ROUND
from .twin import frame_dict

__all__ = ["Queries"]


class Queries:
    """The queries (mixed into CompiledState, whose slots hold the data)."""

    __slots__ = ()

    # `is_terminal` is a plain attribute of CompiledState (read at every step of a playout);
    # the generated code and the mixins set it as `terminal`
    @property
    def terminal(self) -> bool:
        return self.is_terminal

    @terminal.setter
    def terminal(self, value: bool) -> None:
        self.is_terminal = value

    @property
    def current_player(self) -> Optional[int]:
        if self._ref is not None:
            return self._ref.current_player
        pending = self._pending
        if pending is not None and pending.decision is not None:
            return pending.decision[0]
        if self.is_terminal or self.frame is None:
            return None
        return self.frame[PLAYER]

    @property
    def current_players(self) -> list:
        if self._ref is not None:  # a simultaneous phase is handed over: every seat still to choose
            return self._ref.current_players
        player = self.current_player
        return [] if player is None else [player]

    @property
    def vars(self) -> dict:
        if self._ref is not None:
            return self._ref.vars
        if self._pending is not None:  # the caller may change them (then `touched`): the labels
            self._label_answers()     # of the decision are rendered first, as the reference's were
        return self.V

    @property
    def phase(self) -> Optional[str]:
        if self._ref is not None:
            return self._ref.phase
        return self.frame[0] if self.frame is not None else _below(self.below, "phase")

    @property
    def round(self) -> Optional[int]:
        if self._ref is not None:
            return self._ref.round
        return self.frame[ROUND] if self.frame is not None else _below(self.below, "round")

    @property
    def num_players(self) -> int:
        return self.V["num_players"]

    @property
    def steps(self) -> int:
        return self.step if self._ref is None else self._ref.steps

    @property
    def history_mark(self) -> object:
        """engine.State's `history_mark` (the history chain's top; the reference's while it holds
        the game). Building the reference twin may give a new one for the same position."""
        return self._history if self._ref is None else self._ref.history_mark

    @property
    def seed_text(self) -> str:
        return self.rng[0] if self._ref is None else self._ref.seed_text

    def evaluate(self, handle, local_names: Optional[dict] = None):
        """The value of a compiled expression of the ruleset here (engine.State.evaluate): read
        on the game's vars, which are the reference's at a decision too (no twin built)."""
        self.rs.budget.reset()
        return handle.fn(self.vars, local_names or {})

    def is_simultaneous(self) -> bool:
        """Several players choose at once: only while the reference holds the game (a
        simultaneous phase or `choose_together` is handed over); a decision inside a move the
        generated code makes is one player's."""
        return self._ref.is_simultaneous() if self._ref is not None else False

    def is_chance(self) -> bool:
        return False  # a compiled game is seeded: chance is resolved as it happens

    @property
    def d(self) -> dict:
        """The game's data as engine.State keeps it (a new dict; `vars` is the live one)."""
        if self._ref is not None or self._pending is not None:
            return self.reference().d
        stack = self.below + ([] if self.frame is None else [frame_dict(self.frame, self.sub)])
        return {"vars": self.V, "stack": stack, "pending": None, "chance": None, "terminal": self.is_terminal,
                "step": self.step, "seed": self.seed, "rng": self.rng, "error": None}

    @property
    def pending(self) -> Optional[dict]:
        """The decision inside a move the game waits for (engine.State.pending), or None."""
        if self._ref is None and self._pending is None:
            return None
        return self.reference().pending

    def plain(self) -> dict:
        return dict(self.d, log=list(self._lines()))

    def drop_log(self) -> None:
        """From now on the generated code notes no log line and computes no piece of one: for a
        game whose log nobody reads (the worlds MCTS searches). Its log keeps the lines written
        before (and any a move the reference makes writes); `log` and `log_for` refuse to answer.
        A move whose log line alone would fail or exceed the work bound is then made (see
        docs/language.md, `log`); nothing else of the game changes."""
        self.log_kept = False

    @property
    def log(self) -> list:
        return State.log.fget(self) if self.log_kept else _log_not_kept()

    def log_for(self, player: int) -> list:
        return State.log_for(self, player) if self.log_kept else _log_not_kept()


def _below(below: list, field: str):
    """A field of the innermost phase frame of `below` (a game that ended in a sub-phase: the
    reference's phase is the one below it), or None."""
    frame = top_phase(below)
    return frame[field] if frame is not None else None


def _log_not_kept():
    raise RuleRuntimeError("this game keeps no log (drop_log: a game searched by an agent, whose log nobody "
                           "reads); read the log of the game it was made from, or of a copy made before drop_log()")
