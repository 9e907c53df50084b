"""The generated game module of a ruleset: generated once (phases.py), compiled once per source
text, bound to the ruleset's compiled expressions and kept in memory only (never on disk: a
file of code read back would be a way in for code that is not ours).

Owns: `game_module(ruleset)` (the memo, keyed by the ruleset object and its digest), the
Actions of listed moves shared by the games of a ruleset (`listed_actions`), and the runtime
helpers the generated code calls.
"""
from __future__ import annotations

import marshal
import threading
import weakref
from types import MappingProxyType
from typing import Optional

from ..engine import effects as fx
from ..engine.declared import check_moves, checked_values
from ..engine.effects import RuleFailure, choice_options, log_entry
from ..engine.values import SCALARS, Action, fmt, freeze, not_a
from ..errors import RuleRuntimeError
from ..memo import BoundedMemo
from ..ruleset import ENGINE_VARS
from .blocks import PLAYER, STAGE
from .legal_code import PLAIN
from .phases import generate
from .start import chance_effect
from .support import handed_over, support
from .twin import HandOver

__all__ = ["game_module", "GameModule", "clear_memos", "LISTED_BOUND", "listed_actions"]

LISTED_BOUND = 100_000  # listed Actions kept per ruleset

_CODE = BoundedMemo("generated game modules", 64)  # source text -> code object
_MODULES: dict = {}  # id(ruleset) -> (weak reference to it, GameModule)
_LOCK = threading.Lock()
_NOREF = 2
_BUILTINS = {"list": list, "dict": dict, "len": len, "isinstance": isinstance, "tuple": tuple, "str": str, "int": int,
             "type": type, "True": True, "False": False, "None": None}


class GameModule:
    """The generated functions of one ruleset, and what the runtime needs to call them."""

    def __init__(self, ruleset, generated, namespace):
        self.source = generated.source
        self.phase_index = generated.phase_index
        self.action_index = generated.action_index
        self.enter = namespace["ENTER"]
        self.turns = namespace["TURNS"]
        self.legal = namespace["LEGAL"]
        self.act = namespace["ACT"]
        self.act_named = {action_id: self.act[number] for action_id, number in generated.action_index.items()}
        self.turns_named = {phase_id: self.turns[number] for phase_id, number in generated.phase_index.items()}
        self.stages_named = {phase_id: namespace["STAGES"][number]  # stage name -> function
                             for phase_id, number in generated.phase_index.items()}
        self.start = self.enter[generated.phase_index[ruleset.start]]
        # the undo log of set-up (a dict copy of it) and of a move made without one (game.py):
        # every var counts as recorded already, so nothing is copied; read-only when shared
        self.every_var = MappingProxyType(dict.fromkeys(set(ruleset.vars) | set(ENGINE_VARS)))
        self.settles = generated.settles  # some action's label reads the state (rendered before a move)
        # some effect can refuse a move (`fail`), wait inside it (a decision, `choose`, or a
        # sub-phase, `enter`: the reference at the wait is built from the undo log) or give it
        # to the reference (support.handed_over): a move made with `apply` then keeps an undo
        # log too, to be put back exactly
        self.refusable = bool(handed_over(ruleset)) or any(
            type(effect) in (fx.Fail, fx.Choose, fx.ChooseTogether, fx.Enter) for block in ruleset.blocks for effect in block)
        # a move made with `apply` needs neither an undo log nor its labels settled first (game.py)
        self.plain_moves = not self.refusable and not self.settles
        self.initial_vars: dict = {}  # players -> a function that returns the vars before set-up (new each call)
        self.start_positions: dict = {}  # players -> start.StartMemo
        # (name, args, player) -> Action: a plain dict read once per listed move (a BoundedMemo's
        # method call cost a tenth of a tic-tac-toe playout); emptied when it reaches LISTED_BOUND
        self.listed_actions: dict = {}
        # player -> {id(move): Action}: a move the generated code keeps (built once per value, or
        # a constant) is found by identity, without hashing its name and args; kept_moves holds
        # those moves (an id stays theirs while they live)
        self.listed_by_move: dict = {}
        self.kept_moves: list = []
        self.hand_overs = HandOvers()  # action id -> how often its moves were handed over
        self.waiting = generated.waiting  # actions whose act_A is a generator (a decision may wait)
        self.end_if = ruleset.end_if.fn if ruleset.end_if is not None else None


class HandOverRecord:
    """How the moves of one action went in the generated code: when nearly every try ended in a
    hand-over (a `choose` with several options in most positions), its moves go to the reference
    engine at once, without the try; one move in `RETRY_EVERY` is still tried, so an action whose
    moves stop handing over is played by the generated code again. Either way the reference
    makes a handed-over move, so the games are the same; only the time differs."""

    RETRY_EVERY = 16
    __slots__ = ("tries", "hand_overs", "skipped")

    def __init__(self):
        self.tries = self.hand_overs = self.skipped = 0

    def expected(self) -> bool:
        """Is this move going to be handed over (and not tried this time)?"""
        if self.tries < 4 or self.hand_overs * 4 < self.tries * 3:
            return False
        self.skipped += 1
        return self.skipped % self.RETRY_EVERY != 0

    def tried(self, handed_over: bool) -> None:
        if self.tries >= 64:  # the last tries count most: halve the past
            self.tries //= 2
            self.hand_overs //= 2
        self.tries += 1
        self.hand_overs += handed_over


class HandOvers(dict):
    """Action id -> HandOverRecord, for the actions whose moves were ever handed over."""

    def tried(self, action_id: str, handed_over: bool) -> None:
        record = self.get(action_id)
        if record is None:
            record = self[action_id] = HandOverRecord()
        record.tried(handed_over)


def listed_actions(module: GameModule, moves: list, mover) -> list:
    """The Action of each listed move of `mover`; one whose label does not read the state is the
    same object in every game of the ruleset (an Action does not change once built), found by
    the move's identity when the generated code keeps the move (`listed_by_move`: the game
    looks there first, game.py `legal_actions`)."""
    by_move = module.listed_by_move.get(mover)
    if by_move is None:
        by_move = module.listed_by_move[mover] = {}
    return [by_move.get(id(move)) or _listed_action(module, move, mover, by_move) for move in moves]


def _listed_action(module: GameModule, move: tuple, mover, by_move: dict) -> Action:
    """The Action of a move not found by identity: by its name, args and player."""
    if move[4] is not None or move[2] is not None:  # its label reads the state, or an answer's: this position's
        return Action.listed(move[0], move[1], mover, move[2], move[3], move[4])
    key = (move[0], move[1], mover)
    action = module.listed_actions.get(key)
    if action is None:
        if len(module.listed_actions) >= LISTED_BOUND:
            module.listed_actions.clear()
            module.kept_moves.clear()
            for table in module.listed_by_move.values():
                table.clear()
        action = module.listed_actions[key] = Action.listed(move[0], move[1], mover, move[2], move[3], None)
        # the first move of its kind: if the generated code keeps it, it is found by identity
        # from now on (kept_moves holds the move, so its id is not given to another object
        # while the entry lasts)
        by_move[id(move)] = action
        module.kept_moves.append(move)
    return action


def clear_memos() -> None:
    with _LOCK:
        _CODE.clear()
        _MODULES.clear()


def game_module(ruleset) -> Optional[GameModule]:
    """The game module of `ruleset` (generated on first use), or None when `support` finds a
    construct the generator does not write."""
    key = id(ruleset)
    entry = _MODULES.get(key)  # one dict read: atomic, no lock needed to look
    if entry is not None and entry[0]() is ruleset:
        return entry[1]
    module = _build(ruleset) if support(ruleset) is None else None
    with _LOCK:
        _MODULES[key] = (weakref.ref(ruleset, lambda _ref, key=key: _MODULES.pop(key, None)), module)
    return module


def _build(ruleset) -> GameModule:
    generated = generate(ruleset)
    code = _CODE.get(generated.source)
    if code is None:
        code = _CODE.put(generated.source, compile(generated.source, f"<rulebook game {ruleset.name}>", "exec"))
    namespace = dict(_runtime(ruleset), **generated.constants)
    exec(code, namespace)  # noqa: S102 - our own generated source (phases.py), no rule text in it
    return GameModule(ruleset, generated, namespace)


def _runtime(ruleset) -> dict:
    """The names the generated code reads besides the ruleset's values."""
    budget = ruleset.budget
    take = budget.take

    def domain(values):
        """A parameter's values (engine/legal.py `_domain`), charged to the work bound."""
        if type(values) is list:  # the common case: Budget.take's first branch, without the call
            budget.left -= len(values)
            if budget.left < 0:
                budget.exceeded()
            return values
        if type(values) is dict:
            values = list(values)
        elif values is None or isinstance(values, (int, float)):
            raise not_a("a parameter's values must be a list", values)
        return take(values)

    return {"__builtins__": _BUILTINS, "_budget": budget, "_domain": domain, "_copy": copy_value, "_freeze": freeze,
            "_SCALARS": SCALARS, "_new_move": new_move, "_PLAIN": PLAIN,
            "_Error": RuleRuntimeError, "_Failure": RuleFailure, "_fmt": fmt,
            "_LOOPABLE": (list, tuple, dict, str), "_not_loopable": not_loopable,
            "_piece": log_piece, "_NO_NAMES": {}, "_run_move": fx.run_move,
            "_run_shuffle": chance_effect(fx.run_shuffle), "_run_random": chance_effect(fx.run_random),
            "_open_choice": open_choice, "_check_moves": check_moves,
            "_checked_values": checked_values, "_log_entry": log_entry, "_end_phase": end_phase, "_HandOver": HandOver}


def copy_value(value):
    """A copy of a var's value for the undo log (scalars as they are, flat lists shallow)."""
    kind = type(value)
    if kind in SCALARS:
        return value
    if kind is list:
        copied = value[:]
        for item in copied:
            if type(item) not in SCALARS:
                return marshal.loads(marshal.dumps(value, _NOREF))
        return copied
    return marshal.loads(marshal.dumps(value, _NOREF))


def not_loopable(items) -> RuleRuntimeError:
    """The error of a `for` over a value that is not a list or a map."""
    return RuleRuntimeError("'for' needs a list or a map, not " + fmt(items))


def log_piece(value):
    """A value read by a `log` effect, kept until the line is built (engine/effects.py `_log`)."""
    return value if type(value) in SCALARS else fmt(value)


def new_move(cache: dict, name: str, param: str, value, parts) -> tuple:
    """The listed move of a one-parameter action for `value` (engine/legal.py's tuple), kept
    in `cache` when the value is a whole number or a text (equal values, equal moves)."""
    move = (name, ((param, value if type(value) in SCALARS else freeze(value)),), None, parts, None)
    if type(value) in (int, str):
        cache[value] = move
    return move


def end_phase(frame: list) -> None:
    """engine/flow.py `end_phase` on the phase frame (a list): once the effects under way have
    run, the flow goes on from the frame's stage (phases.py, game.py)."""
    frame[STAGE] = "leave" if frame[STAGE] in ("exit", "leave") else "exit"
    frame[PLAYER] = None


def open_choice(state, effect, game_vars: dict, names: dict):
    """A `choose` effect inside an action (engine/effects.py `_choose`): none or one option is
    bound at once (None); with more, the decision the generated code yields: (player, options,
    (label template, names) or None, prompt); the labels are rendered when read (decisions.py)."""
    player = effect.player.fn(game_vars, names)
    options = choice_options(effect, game_vars, names)
    if len(options) < 2:
        names[effect.bind] = options[0] if options else None
        return None
    if type(player) is not int or not 0 <= player < game_vars["num_players"]:
        raise RuleRuntimeError(f"choose: {fmt(player)} is not a player",  # the reference says it, located
                               plain="choose: the chooser is not a player")
    return player, options, (effect.label, dict(names)) if effect.label else None, effect.prompt
