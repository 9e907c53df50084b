"""The legal moves of a compiled game as the API gives them (a mixin of CompiledState, game.py):
ids, `Action` objects (all of them, `legal_actions`, or one at a time, `legal_action`, as
engine.State builds them), and their labels settled before the state changes.

Owns: listing the moves as ids and Actions, finding a handed-out Action again, settling labels.
"""
from __future__ import annotations

from typing import Optional

from ..engine.values import Action
from .blocks import PLAYER
from .module import listed_actions

__all__ = ["Listing"]

_NONE_LISTED: dict = {}  # (read-only) no move of the player was listed yet


class Listing:
    """The moves listed now (mixed into CompiledState, whose slots hold the data: `moves`, the
    tuples the generated code listed; `_legal`, all their Actions once asked for; `_handed`,
    (version, {id: Action}) of those built alone)."""

    __slots__ = ()

    def legal_action_ids(self) -> list:
        if self._ref is not None:
            return self._ref.legal_action_ids()
        return list(range(len(self.moves)))

    def legal_actions(self, player: Optional[int] = None) -> list:
        if self._ref is not None:
            return self._ref.legal_actions(player)
        actions = self._legal
        if actions is None:
            if self._pending is not None:  # a decision's labels, rendered when read
                self._label_answers()
            # the mover is the frame's player at a plain turn (current_player, without its checks)
            mover = self.frame[PLAYER] if self._pending is None and self.frame is not None else self.current_player
            by_move = self.module.listed_by_move.get(mover, _NONE_LISTED)
            actions = []
            try:  # every move kept by the generated code and listed before (the common case; a
                # loop, not a comprehension: the comprehension's function and frame cost more)
                for move in self.moves:
                    actions.append(by_move[id(move)])
            except KeyError:
                actions = listed_actions(self.module, self.moves, mover)
            handed = self._handed
            if handed is not None and handed[0] == self._version:  # the same objects as legal_action gave
                for index, action in handed[1].items():
                    actions[index] = action
            self._legal = actions
        if player is not None and actions and actions[0].player != player:
            return []
        return actions

    def legal_action(self, index: int) -> Action:
        """`legal_actions()[index]`, built alone (as engine.State does): a random agent's pick
        costs one Action, and one label settled before the move, not every listed move's."""
        if self._ref is not None:
            return self._ref.legal_action(index)
        actions = self._legal
        if actions is not None:
            return actions[index]
        move = self.moves[index]
        if index < 0:
            index += len(self.moves)
        handed = self._handed_now()
        action = handed.get(index)
        if action is None:  # kept: apply() finds it at once, and its label is settled in time
            if self._pending is not None:  # a decision's label, rendered when read
                move = self._answer_move(index)
            action = handed[index] = listed_actions(self.module, (move,), self.current_player)[0]
        return action

    def _built_action(self, index: int) -> Optional[Action]:
        """The Action of listed move `index` if one was built at this position, else None."""
        actions = self._legal
        if actions is not None:
            return actions[index]
        handed = self._handed
        return handed[1].get(index) if handed is not None and handed[0] == self._version else None

    def _handed_now(self) -> dict:
        """{id: Action} of the Actions legal_action built alone at this position (the entry of
        an earlier position, tagged with its version, is dropped)."""
        handed = self._handed
        if handed is None or handed[0] != self._version:
            handed = self._handed = (self._version, {})
        return handed[1]

    def action_key(self, index: int) -> tuple:
        if self._ref is not None:
            return self._ref.action_key(index)
        move = self.moves[index]
        return move[0], move[1]

    def _index_of(self, action):
        """The id of `action` if it is one of the Actions built at this position, else None."""
        if type(action) is not Action:
            return None
        actions = self._legal
        if actions is not None:
            for index, candidate in enumerate(actions):
                if candidate is action:
                    return index
        handed = self._handed
        if handed is not None and handed[0] == self._version:
            for index, candidate in handed[1].items():
                if candidate is action:
                    return index
        return None

    def _settle_labels(self) -> None:
        for action in self._legal or ():
            action.settle()
        handed = self._handed
        if handed is not None and handed[0] == self._version:
            for action in handed[1].values():
                action.settle()
