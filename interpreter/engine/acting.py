"""The moves of a game in progress, as a mixin of `State` (engine/state.py): the legal moves
listed once per step (legal.py finds them) with their ids, `apply` and `apply_id` of one move,
`undo`, one choice at a simultaneous node, and the chance node's outcomes and `apply_chance`.

Owns: matching an action handed in to a listed move, and running a move's effects. The atomic
contract (`_atomically`: a refused move leaves the state exactly as before) is `State`'s.
"""
from __future__ import annotations

from typing import Optional

from ..errors import RuleRuntimeError
from . import flow, legal, simultaneous
from .chance import index_of, outcomes_of
from .aliases import restored
from .effects import ENGINE_ERRORS, SECRET_TO, describe_error, run_block
from .frames import top_phase
from .values import APPLIED, SCALARS, Action, Outcome, fmt, public_refusal, thaw


class Acting:
    """The legal actions, applying and undoing moves, and chance nodes (mixed into `State`,
    whose slots hold the data)."""

    __slots__ = ()

    # ------------------------------------------------------------------ legal actions
    def _moves(self) -> list:
        """The legal moves now (legal.py), listed once per step."""
        if self._legal_step != self.d["step"] or self._moves_now is None:
            try:
                self.cache_legal(legal.legal_moves(self))
            except ENGINE_ERRORS as error:  # a requirement or a domain failing on its values
                raise RuleRuntimeError(describe_error(error), f"the legal actions in phase '{self.phase}'",
                                       plain=describe_error(error, plain=True)) from None
            except RuleRuntimeError as error:  # the contract (docs/api.md): located, state unchanged
                located = RuleRuntimeError(_rule_error_text(error), pos=error.pos, plain=error.shown())
                raise located from None
        return self._moves_now

    def legal_actions(self, player: Optional[int] = None) -> list:
        """The legal actions of the player to act (of `player` only, if given)."""
        moves = self._moves()
        actions = self._legal
        if actions is None:
            listed, mover = Action.listed, self._mover
            if self._movers is None:  # (Action.listed called here, not through _listed: a call less per action)
                actions = [listed(move[0], move[1], mover, move[2], move[3], move[4]) for move in moves]
            else:
                actions = [self._listed(index, move) for index, move in enumerate(moves)]
            self._legal = actions
        if player is not None and actions and (actions[0].player != player or actions[-1].player != player):
            return [action for action in actions if action.player == player]  # several players choose at once
        return actions

    def _listed(self, index: int, move: tuple) -> Action:
        """The Action of legal move `index` (a move of a simultaneous node carries its seat)."""
        name, args, label, template, context = move[:5]
        mover = self._mover if self._movers is None else self._movers[index]
        return Action.listed(name, args, mover, label, template, context)

    def legal_action_ids(self) -> list:
        """The legal actions as integers, without building an Action: id `i` is
        `legal_actions()[i]` (the order of listing). These ids are positions, valid for this
        state only; the adapters' `ActionSpace` gives every action a fixed id across states."""
        return list(range(len(self._moves())))

    def legal_action(self, index: int) -> Action:
        """The legal action with id `index` (`legal_actions()[index]`, built alone)."""
        moves = self._moves()
        actions = self._legal
        if actions is not None:
            return actions[index]
        action = self._handed.get(index)
        if action is None:  # kept: apply() finds it at once, and its label is settled in time
            action = self._handed[index] = self._listed(index, moves[index])
        return action

    def action_key(self, index: int) -> tuple:
        """(name, args) of the legal action with id `index`: `legal_action(index).key`."""
        move = self._moves()[index]
        return move[0], move[1]

    def cache_legal(self, moves, turn=None) -> None:
        """Keep `moves` as this step's legal moves. `turn`: the phase frame whose player (not a
        simultaneous round) must act now, when the flow knows it (saves finding it again)."""
        self._moves_now = moves
        if turn is not None:
            self._mover = turn["player"]
            self._movers = None
        else:
            self._mover = self.current_player
            # at a simultaneous node every move carries its seat: several players choose at once
            self._movers = [move[5] for move in moves] if simultaneous.open_node(self) is not None else None
        self._legal = None
        self._handed = {}
        self._legal_step = self.d["step"]

    def _copied_as(self, twin, small: bool, trial: bool, listed: bool):
        """`twin`, a copy of this game just made, as asked (State.copy). `listed`: it keeps the
        legal moves listed here, when no label reads the state (a move's label context would be
        this state's vars), rather than listing them again. `trial` (listed too): a copy to try
        moves on, dropped when one is refused (a drawn world's trials, engine/worlds.py): its
        `apply` and `apply_chance` keep no snapshot to put it back from, so a refused one may
        leave it half-changed (unless it is not `small`: then the move's snapshot refuses)."""
        twin._trial = trial and small
        moves = self._moves_now
        if (trial or listed) and moves is not None and self._legal_step == self.d["step"] and \
                all(move[4] is None for move in moves):  # (not the Actions: each state hands out its own)
            twin._moves_now, twin._mover, twin._movers, twin._legal_step = moves, self._mover, self._movers, self._legal_step
        return twin

    # ------------------------------------------------------------------ apply
    def apply(self, action) -> Outcome:
        """Apply one action atomically. Refused actions leave the state unchanged."""
        data = self.d
        if data["terminal"] or data["chance"] is not None:
            return self._refused_now()
        try:  # a failing listing is a rule_error refusal, never an exception (docs/api.md)
            if type(action) is not Action:
                action = as_action(self, action)
                if isinstance(action, Outcome):
                    return action
            moves = self._moves()
        except RuleRuntimeError as error:
            return Outcome(False, "rule_error", str(error), error.shown())
        if self._movers is not None:
            return self._apply_simultaneous(action)
        index = self._index_of(action, moves)
        if index < 0:
            return legal.refusal(self, action)
        mover = self._mover
        if action.player is not None and action.player != mover:
            return public_refusal("not_your_turn", f"it is player {mover}'s turn")
        return self._atomically(self._apply_move, index)

    def apply_id(self, index: int) -> Outcome:
        """Apply the legal action with id `index` (see `legal_action_ids`) atomically, and keep
        the state before it for `undo()`. Refused (state unchanged) when there is no such id."""
        refused = self._refused_now()
        if refused is not None:
            return refused
        try:
            listed = len(self._moves())
        except RuleRuntimeError as error:
            return Outcome(False, "rule_error", str(error), error.shown())
        if type(index) is not int or not 0 <= index < listed:
            return public_refusal("bad_action", f"no legal action has the id {index!r}"[:200])
        return self._atomically(self._apply_move, index, undoable=True)

    def undo(self, moves: int = 1) -> Outcome:
        """Take back the last `moves` moves made with `apply_id` (moves made with `apply` keep
        no undo point): the state is again exactly what it was before them."""
        if type(moves) is not int or not 1 <= moves <= len(self._undo):
            return public_refusal("nothing_to_undo", f"{len(self._undo)} move(s) made with apply_id can be "
                                                     f"taken back, not {moves!r}"[:200])
        point = self._undo[-moves]
        del self._undo[-moves:]
        snapshot, self._history, log, log_length = point
        self.d = restored(self.rs, snapshot)
        self._log_back(log, log_length)
        self.touched()
        return APPLIED

    def _refused_now(self) -> Optional[Outcome]:
        if self.d["terminal"]:
            return public_refusal("game_over", "the game is over")
        if self.d["chance"] is not None:
            return public_refusal("chance_pending", "a chance outcome must be given first (apply_chance)")
        return None

    def _index_of(self, action, moves) -> int:
        """The position of `action` among the legal moves, or -1."""
        actions = self._legal
        if actions is not None:  # identity first: agents hand back the very object they were given
            for index, candidate in enumerate(actions):
                if candidate is action:
                    return index
        for index, candidate in self._handed.items():
            if candidate is action:
                return index
        name, args = action.name, action.args
        for index, move in enumerate(moves):
            if move[1] == args and move[0] == name:
                return index
        return -1

    def _apply_simultaneous(self, action: Action) -> Outcome:
        """One choice at a simultaneous node: the listed action with this move and player."""
        actions = self.legal_actions()
        for candidate in actions:  # identity first: agents hand back the very object they were given
            if candidate is action:
                break
        else:
            if action not in actions:
                return legal.refusal(self, action)
            action = _listed_for_player(self, actions, action)
            if isinstance(action, Outcome):
                return action
        return self._atomically(self._commit_choice, action)

    def _commit_choice(self, action: Action) -> None:
        """Keep one choice of several made at once out of sight until all are in."""
        action.settle()
        self._count_step()
        node = simultaneous.open_node(self)
        self._history = (self._history, {"action": action.to_json(), "simultaneous": True})
        simultaneous.commit(self, node, action)
        flow.run(self)

    def _apply_move(self, index: int) -> None:
        if self._movers is not None:
            self._commit_choice(self.legal_action(index))
            return
        data = self.d
        move = self._moves_now[index]
        name, args = move[0], move[1]
        player = self._mover
        actions = self._legal
        entry = actions[index] if actions is not None else self.legal_action(index)  # the listed one, with its label
        entry.settle()
        self._count_step()
        self._history = (self._history, entry)
        pending = data["pending"]
        if pending is not None:
            data["pending"] = None
            data["stack"][pending["frame"]]["locals"][pending["bind"]] = thaw(args[0][1])  # (("value", option),)
            flow.run(self)
            return
        stack = data["stack"]
        frame = stack[-1] if stack and stack[-1]["kind"] == "phase" else top_phase(stack)
        rule = self.rs.actions[name]
        local_names = {"player": player, "round": frame["round"]}
        for key, value in args:
            local_names[key] = value if type(value) in SCALARS else thaw(value)
        if rule.secret:  # its effects' log lines are the mover's only
            local_names[SECRET_TO] = player
        frame["acted"] += 1
        run_block(self, rule.block, local_names)
        flow.run(self)

    # ------------------------------------------------------------------ chance
    def is_chance(self) -> bool:
        """True when the game waits for a chance outcome (only in a game started with
        chance="manual")."""
        return self.d["chance"] is not None

    def chance_outcomes(self) -> list:
        """[(outcome, probability), ...] of the chance node the game waits at ([] elsewhere).
        A shuffle is a series of draws: which item goes to the last position not yet filled."""
        node = self.d["chance"]
        return outcomes_of(node["options"]) if node is not None else []

    def draws_under_way(self) -> bool:
        """True at a chance node whose effect has drawn already (a shuffle from its second draw
        on): an effect draws everything before it changes anything, so the game is as it was
        before that effect's first draw (a drawn world need not compare what it shows again,
        engine/worlds.py)."""
        node = self.d["chance"]
        return node is not None and bool(self.d["stack"][node["frame"]].get("draws"))

    def apply_chance(self, outcome) -> Outcome:
        """Force the outcome of the chance node; refused (state unchanged) if it is not one of
        its outcomes."""
        node = self.d["chance"]
        if node is None:
            return public_refusal("no_chance", "the game is not at a chance node")
        index = index_of(node["options"], outcome)
        if index < 0:
            return public_refusal("not_an_outcome", f"{fmt(outcome)} is not a possible outcome here")
        return self._atomically(self._apply_chance, node, index)

    def _apply_chance(self, node, index) -> None:
        data = self.d
        self._history = (self._history, {"chance": node["options"][index]})
        data["chance"] = None
        data["stack"][node["frame"]]["draws"].append(index)
        flow.run(self)
        self.touched()


def as_action(state, action):
    """The Action meant by `action` (an Action, its JSON form or its label), or a refusal."""
    if isinstance(action, dict):
        try:
            return Action.from_json(action)
        except (KeyError, TypeError, AttributeError, ValueError, RecursionError):
            return public_refusal("bad_action", "an action is {'action': name, 'args': {...}}")
    if isinstance(action, str):
        matches = [candidate for candidate in state.legal_actions() if candidate.label == action]
        if not matches:
            return public_refusal("unknown_action", f"no legal action is labelled {action!r}"[:300])
        if len({match.player for match in matches}) > 1:  # several players choose at once
            return public_refusal("which_player", f"{action!r} is a move of players "
                           f"{', '.join(str(match.player) for match in matches)}: apply an Action with its player"[:300])
        return matches[0]
    if not isinstance(action, Action):
        return public_refusal("bad_action", f"not an action: {action!r}"[:200])
    return action


def _listed_for_player(state, actions, action):
    """At a simultaneous node: the listed action with `action`'s move and player, or why not."""
    node = simultaneous.open_node(state)
    refused = simultaneous.refusal(state, node, action) if node is not None else None
    if refused is not None:
        return refused
    for candidate in actions:
        if candidate == action and (action.player is None or candidate.player == action.player):
            return candidate
    return legal.refusal(state, action)


def rule_error_outcome(error) -> Outcome:
    """The rule_error refusal for `error`: its text, and the text any player may read."""
    if isinstance(error, RuleRuntimeError):
        return Outcome(False, "rule_error", _rule_error_text(error), error.shown())
    return Outcome(False, "rule_error", describe_error(error), describe_error(error, plain=True))


def _rule_error_text(error) -> str:
    """The reason of a rule_error refusal: the message, after the rule's file:line when known."""
    if not isinstance(error, RuleRuntimeError):
        return describe_error(error)
    pos = getattr(error, "pos", None)
    text = str(error)
    if pos is not None and getattr(pos, "line", 0) and str(pos) not in text:
        return f"{pos}: {text}"
    return text
