"""A game in progress played by the generated module of its ruleset (module.py): the same public
API as engine.State for playing (legal actions and ids, apply, apply_id, undo, queries, hash),
with the vars in one dict, the phase frame in a list, an undo log of the vars each move changed
instead of a snapshot, and the log kept beside the state, its lines built when read. A move made
with `apply` in a game set up by the generated code and never changed from outside keeps no
undo log of the vars (nor any undo point when no effect of the rules can refuse it, wait inside
it or hand it over): what needs them (a rule failing halfway, a refusal, the position at a
decision inside the move) is put right by playing the game again from set-up (undoing.py).

Anything else (information_state, determinize, to_json, ...) is answered by an identical
reference State, and a move the generated code cannot make is made by the reference engine,
which keeps the game (`_ref`) until the next plain turn (twin.py). A decision or a sub-phase
inside a move (`choose`, `enter`) is the mixin Decisions (decisions.py); the legal moves as ids
and Actions are Listing (listing.py); the queries, `observe` among them (on the game's own data),
are Queries (queries.py); undo and undo points are Undoing (undoing.py).

Owns: CompiledState, `start_game`.
"""
from __future__ import annotations

import marshal
from types import GeneratorType

from ..engine.acting import as_action
from ..engine.aliases import copied
from ..engine.flow import FLOW_GUARD
from ..engine.state import State, initial_vars
from ..engine.values import APPLIED, SCALARS, Action, Outcome, public_refusal, thaw
from ..errors import RuleRuntimeError
from .blocks import ACTED, PLAYER, ROUND, STAGE
from .decisions import WHOLE, Decisions
from .listing import Listing
from .queries import Queries
from .start import ChanceHolder, StartDraw, StartMemo, fresh_copier
from .twin import BY_REFERENCE, HandOver, Twin, forward_to_reference
from .undoing import Undoing, replayed

__all__ = ["CompiledState", "start_game", "HandOver"]

_NOREF = 2


def start_game(ruleset, module, players: int, seed) -> "CompiledState":
    """Set a seeded game up (engine.State.new, through the generated flow), or take its
    position from the module's StartMemo."""
    if players not in ruleset.players:
        raise RuleRuntimeError(f"{ruleset.name} is played by {', '.join(map(str, ruleset.players))} players, "
                               f"not {players}")
    memo = module.start_positions.get(players)
    if memo is None:
        memo = module.start_positions[players] = StartMemo()
    seed_text = str(seed)
    rng = [seed_text, 0]
    position = memo.root
    if type(position) is StartDraw:  # set-up draws: its outcomes lead to the position
        position = memo.find(rng)
    if position is not None:
        new_vars, frame, log, moves, actions, terminal, step = position
        state = CompiledState(ruleset, module, new_vars(), seed_text, rng)
        state._replayable = True
        state.frame = list(frame) if frame is not None else None
        state._log = log
        state._log_shared = True
        state.is_terminal, state.step = terminal, step
        if actions is not None:  # (kept only when no move's label reads the state: the moves as they are)
            state.moves, state._legal = moves, list(actions)
        else:
            state.moves = _moves_of(moves, state.V)
        return state
    ruleset.budget.reset()
    new_vars = module.initial_vars.get(players)
    if new_vars is None:  # the declared vars' values do not depend on the seed: worked out once
        game_vars = {"players": list(range(players)), "num_players": players, "current_phase": ruleset.start}
        initial_vars(ruleset, players, game_vars)
        new_vars = module.initial_vars[players] = fresh_copier(game_vars)
    state = CompiledState(ruleset, module, new_vars(), seed_text)
    state._replayable = True
    holder = state._chance = ChanceHolder(state.rng, recording=memo.open)
    try:
        state.run(module.start, dict(module.every_var))  # set-up is never taken back: no undo log
    except HandOver:  # set-up asks a player: the reference sets the game up
        memo.open = False
        state._hand_over(State.new(ruleset, players, seed, "seeded"))
        return state
    drawn, holder.drawn = holder.drawn, None
    if drawn is None or state._ref is not None or state._pending is not None or state.below:
        memo.open = False
    elif memo.open:
        # the Actions of the first moves too, when their labels do not read the state
        actions = tuple(state.legal_actions()) if all(move[4] is None for move in state.moves) else None
        memo.add(drawn, (fresh_copier(state.V), list(state.frame) if state.frame else None,
                         state._log, state.moves, actions, state.is_terminal, state.step))
        state._log_shared = True
    return state


def _moves_of(moves: list, game_vars: dict) -> list:
    """The start position's moves for a game that starts there: a move whose label reads the
    state reads this game's vars (the memo's moves were listed on the first game's, which it
    has changed since)."""
    if all(move[4] is None for move in moves):
        return moves
    return [move if move[4] is None else (*move[:4], (game_vars, move[4][1])) for move in moves]


class CompiledState(Listing, Queries, Twin, Decisions, Undoing):
    """A game played by generated code; see the module's docstring."""

    __slots__ = ("rs", "module", "V", "frame", "sub", "below", "is_terminal", "step", "seed", "rng", "_chance",
                 "moves", "_legal", "_handed", "_history", "_undo", "_log", "_log_shared", "_twin", "_version", "_ref", "_pending",
                 "_moving", "_players", "log_kept", "_replayable")

    def __init__(self, ruleset, module, game_vars: dict, seed: str, rng=None):
        self.rs = ruleset
        self.module = module
        self.V = game_vars
        self.frame = None  # the phase frame: a list in blocks.FRAME_FIELDS order
        self.sub = False  # the frame's `sub`: a sub-phase's (entered by `enter`, played by the reference)
        self.below = []  # the reference's frames below it in a sub-phase (never changed here)
        self.is_terminal = False
        self.step = 0
        self.seed = seed
        self.rng = [seed, 0] if rng is None else rng  # the seeded RNG: [seed text, draws so far]
        self._chance = None  # the ChanceHolder, made when chance is first drawn
        self.moves = []  # the legal moves now, as engine/legal.py lists them
        self._legal = None  # their Action objects, once asked for
        self._handed = None  # (version, {id: Action}) of the Actions built alone (legal_action)
        self._history = None  # a chain (earlier, (move, player) or Action)
        self._undo: list = []
        self._log: list = []
        self._log_shared = False
        self._twin = None  # (version, reference State) once built
        self._version = 0
        self._ref = None  # the reference State while the game is handed over to it
        self._pending = None  # a move waiting for a decision (decisions.Pending)
        self._moving = None  # (undo point, index) of the move under way
        self._players = game_vars.get("num_players")  # (rules may change the var)
        self.log_kept = True  # False once drop_log() is called: the generated `log` effects note nothing
        # the game can be set up again and played to any of its positions (start_game made it, and
        # nothing changed it from outside): a move made with `apply` then keeps no undo log of the
        # vars even when the rules can refuse it (`_apply_index`, `_vars_at`)
        self._replayable = False

    # the log, as engine.State keeps it (the same functions)
    note = State.note
    _log_back = State._log_back
    hash = State.hash
    scores = State.scores
    winners = State.winners

    @property
    def chance_holder(self) -> ChanceHolder:
        """What the chance effects of the generated code draw from (the game's seeded RNG)."""
        if self._chance is None:
            self._chance = ChanceHolder(self.rng)
        return self._chance

    def _lines(self) -> list:
        return self._ref._lines() if self._ref is not None else State._lines(self)

    def run(self, stage, undo_log: dict) -> None:
        """Run the generated flow from `stage` until a player must act or the game ends."""
        variables = self.V
        for _ in range(FLOW_GUARD):
            stage = stage(self, variables, undo_log)
            if stage is None:
                if self.is_terminal:
                    self.moves = []
                return
            if type(stage) is GeneratorType:  # a stage that may wait for a decision (decisions.py)
                self._wait_in(stage, True, undo_log)
                return
        raise RuleRuntimeError(f"the flow did not come back to a player (phase '{self.phase}')")

    # ------------------------------------------------------------------ moves
    def apply(self, action) -> Outcome:
        """Apply one action atomically (engine.State.apply); a refusal changes nothing."""
        if self._undo and self._undo[-1][0] not in WHOLE:  # undo() will go back past this move
            self._keep_whole()
        if self._ref is not None:
            return self._by_reference(action, False)
        actions = self._legal
        if actions is not None:  # one of the Actions legal_actions() gave (the common case)
            for index, candidate in enumerate(actions):
                if candidate is action:
                    module = self.module
                    if not module.plain_moves or self._undo or module.hand_overs or self._pending is not None or \
                            not self._replayable:
                        return self._apply_index(index, False)
                    # the common case in short: no undo log (nothing can refuse the move, undo()
                    # cannot take it back, a rule failing is put right by playing the game again),
                    # nothing to settle first, nothing handed over yet
                    move, history = self.moves[index], self._history
                    try:
                        self._run_move(move, self.frame, None, index, module.every_var)
                    except BY_REFERENCE:
                        return self._move_again_by_reference(move, index, history)
                    return APPLIED
        index = self._index_of(action)  # (one legal_action built alone)
        if index is not None:
            return self._apply_index(index, False)
        if self.is_terminal:
            return public_refusal("game_over", "the game is over")
        if type(action) is not Action:  # its JSON form or its label
            action = as_action(self, action)
            if isinstance(action, Outcome):
                return action
        if action.player is None or action.player == self.current_player:
            key = action.key
            for index, move in enumerate(self.moves):
                if move[1] == key[1] and move[0] == key[0]:
                    return self._apply_index(index, False)
        return self._refused_by_reference(action)

    def apply_id(self, index: int) -> Outcome:
        if self._ref is not None:
            return self._by_reference(index, True)
        if self.is_terminal:
            return public_refusal("game_over", "the game is over")
        if type(index) is not int or not 0 <= index < len(self.moves):
            return public_refusal("bad_action", f"no legal action has the id {index!r}"[:200])
        return self._apply_index(index, True)

    def _apply_index(self, index: int, undoable: bool) -> Outcome:
        """Make listed move `index` with the generated code, atomically: a move it cannot make
        is put back and made by the reference (twin.py)."""
        if self._pending is not None:
            return self._answer(index, undoable)
        move = self.moves[index]
        module = self.module
        history = self._history
        # no undo log of the vars when undo() cannot take the move back and the game can be
        # played again from set-up (what needs them is put right from the game played again);
        # no undo point at all when nothing can refuse the move either (module.refusable)
        replayable = self._replayable and not undoable and not self._undo
        unlogged = replayable and not module.refusable
        record = module.hand_overs.get(move[0]) if module.hand_overs else None
        if record is not None and record.expected():  # the generated code would only give it up
            return self._move_by_reference(index, undoable)
        frame = self.frame
        point = None
        if unlogged:
            undo_log = module.every_var
        else:
            # the undo point without an undo log of the vars while no move of the ruleset was
            # ever handed over: a refused move or the position asked for at a decision inside
            # the move is then rare, and put right from the game played again (`_vars_at`)
            undo_log = module.every_var if replayable and not module.hand_overs else {}
            point = (frame, frame[:], self.step, self._log, len(self._log), self.rng[1], history,
                     undo_log, self.moves, self._legal, self.below, self.sub)
        if module.settles:
            self._settle_labels()
        try:
            self._run_move(move, frame, point, index, undo_log)
        except BY_REFERENCE:
            if undo_log is module.every_var:  # the vars changed in place: the game is played again
                return self._move_again_by_reference(move, index, history)
            self._back_to(point)
            module.hand_overs.tried(move[0], True)
            return self._move_by_reference(index, undoable)
        if record is not None:
            record.tried(False)
        if undoable:
            self._undo.append(point)
        return APPLIED

    def _move_again_by_reference(self, move, index: int, history) -> Outcome:
        """A move made without an undo log that the generated code gave up halfway (a rule
        failed: a bug in the rules, or a bound reached): the game is played again up to it, and
        the reference makes it."""
        _play_again(self, history)
        self.module.hand_overs.tried(move[0], True)
        return self._move_by_reference(index, False)

    def _run_move(self, move, frame, point, index: int, undo_log=None) -> None:
        """Make listed move `index` (from the undo point `point`, None when the move keeps no undo
        log: then `undo_log` is the module's every_var): its step counted, its history entry and
        effects, then the flow up to its first decision (or a sub-phase it enters, decisions.py)
        or the next player's turn."""
        if undo_log is None:
            undo_log = point[7]
        ruleset = self.rs
        budget = ruleset.budget
        budget.left = budget.limit  # a new step: the whole work bound again (Budget.reset, inline)
        step = self.step = self.step + 1
        if step > ruleset.max_steps:
            raise RuleRuntimeError(f"the game exceeded its bound of {ruleset.max_steps} steps in phase "
                                   f"'{frame[0]}' (does a phase loop without end?)")
        if self._pending is None:  # (else a turn of a sub-phase: the outer move stays the one under way)
            self._moving = (point, index)
        player = frame[PLAYER]
        if move[4] is not None:  # a label that reads the state: rendered now, before it changes
            action = self._built_action(index)  # (its label settled already)
            if action is None:
                action = Action.listed(move[0], move[1], player, move[2], move[3], move[4])
            move = (move[0], move[1], action.label, None, None)
        self._history = (self._history, (move, player))
        local_names = {"player": player, "round": frame[ROUND]}
        for key, value in move[1]:
            local_names[key] = value if type(value) in SCALARS else thaw(value)
        frame[ACTED] += 1
        self.moves = self._legal = None
        self._version += 1
        module = self.module
        variables = self.V
        if move[0] in module.waiting:  # a generator: it may wait for decisions (decisions.py)
            self._wait_in(module.act_named[move[0]](self, variables, local_names, undo_log), False, undo_log)
            return
        module.act_named[move[0]](self, variables, local_names, undo_log)
        if frame[STAGE] != "turns":  # the move ran `end_phase`
            self._after_action(frame, undo_log)
            return
        stage = module.turns_named[frame[0]](self, variables, undo_log)
        if stage is not None or self.is_terminal:  # (else the next player's turn: the common case)
            self._flow_from(stage, undo_log)

    def _after_action(self, frame: list, undo_log: dict) -> None:
        """The flow after an action's effects, up to the next player's turn."""
        # the flow goes on from the frame's stage (`turns` unless the move ran `end_phase`)
        module = self.module
        self._flow_from((module.turns_named[frame[0]] if frame[STAGE] == "turns" else
                         module.stages_named[frame[0]][frame[STAGE]])(self, self.V, undo_log), undo_log)

    def _flow_from(self, stage, undo_log: dict) -> None:
        """The flow after a stage function returned `stage` (None: a player must act, or the game
        is over), up to the next player's turn."""
        if stage is None:
            if self.is_terminal:
                self.moves = []
        elif type(stage) is GeneratorType:  # the turn's blocks may wait for a decision
            self._wait_in(stage, True, undo_log)
        else:  # the phase ends: the flow goes on (rarely more than a few stages)
            self.run(stage, undo_log)

    def touched(self) -> None:
        """The vars were changed from outside: the legal moves are found again."""
        if self._ref is not None:
            self._ref.touched()
            return
        self._version += 1
        self._legal = None
        self._replayable = False  # set up again and played, the game would not be this one
        pending = self._pending
        if (pending is None or pending.decision is None) and not self.is_terminal and self.frame is not None and \
                self.frame[PLAYER] is not None:  # (a turn of a sub-phase the move entered: decision None)
            legal = self.module.legal[self.module.phase_index[self.frame[0]]]
            self.moves = legal(self, self.V, self.frame[PLAYER], self.frame[ROUND])

    def copy(self) -> "CompiledState":
        if self._ref is not None or self._pending is not None:  # a copy of the reference plays on
            twin = CompiledState(self.rs, self.module, {}, self.seed)
            twin._players, twin.log_kept = self._players, self.log_kept
            twin._hand_over(self.reference().copy())
            return twin
        twin = CompiledState(self.rs, self.module, marshal.loads(marshal.dumps(self.V, _NOREF)), self.seed)
        twin.frame = list(self.frame) if self.frame is not None else None
        twin.sub, twin.below = self.sub, self.below
        if any(frame["kind"] != "phase" for frame in self.below):  # their locals that are vars stay so (aliases.py)
            below = copied(self.rs, {"vars": self.V, "stack": self.below})
            twin.V, twin.below = below["vars"], below["stack"]
        twin.is_terminal, twin.step, twin._players = self.is_terminal, self.step, self._players
        twin.log_kept, twin._replayable = self.log_kept, self._replayable
        twin.rng[:] = self.rng
        twin.moves = self.moves
        twin._history = self._history
        twin._log = self._log
        self._log_shared = twin._log_shared = True
        return twin


forward_to_reference(CompiledState)  # what it does not implement itself: the reference's (twin.py)


def _play_again(state: CompiledState, history) -> None:
    """Put `state` back at the position after `history` by playing the game again (undoing.py `replayed`):
    for a move made without an undo log of the vars that failed halfway (they were changed in
    place). The move under way is over: none waits for a decision."""
    fresh = replayed(state, history)
    for name in ("V", "frame", "sub", "below", "is_terminal", "step", "rng", "_chance", "moves", "_legal", "_history",
                 "_log", "_log_shared", "_ref"):
        setattr(state, name, getattr(fresh, name))
    state._pending = state._moving = state._twin = None
    state._version += 1
