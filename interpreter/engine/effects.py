"""The effect machine: one small dataclass per kind of effect (built by ruleset.py from the
rule files), and a table from each kind to the function that runs it.

An effect list is a block (`Ruleset.blocks[i]`, a tuple of effects). It runs in an effect frame (frames.py)
from its `next` pointer; an effect that must wait (a loop, a procedure, a sub-phase, a decision, a chance
node, the end of the phase) pushes a frame or records what is pending and returns False, and the flow
(flow.py) resumes the machine later.

Owns: the effect kinds, which blocks can run to their end without suspending, and running a block.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Optional

from ..errors import RuleRuntimeError
from .chance import ChanceNeeded, draw
from .declared import check_options
from .frames import effect_frame, for_frame
from .values import SCALARS, fmt, freeze, not_a, render_label

__all__ = ["Stmt", "If", "Let", "For", "Call", "Move", "Shuffle", "Random", "Choose", "ChooseTogether", "Enter", "Log", "Fail", "EndPhase",
           "RuleFailure", "execute", "run_block", "simple_blocks", "located_error", "describe_error", "ENGINE_ERRORS", "log_entry",
           "MAX_CHOICE_COMBINATIONS", "LOG_LIMIT", "SECRET_TO", "choice_options", "option_label", "run_move", "run_shuffle", "run_random"]

MAX_CHOICE_COMBINATIONS = 5_000
LOG_LIMIT = 200  # lines kept in the state's log; the older half goes when it is exceeded
# a local holding the seat whose secret move is running: its effects' log lines are theirs only
# (an underscore name: no expression can read or write it)
SECRET_TO = "_secret_to"


class RuleFailure(Exception):
    """A `fail` effect: the action is refused with `reason`, the rules' literal `fail:` text, so every player may read it (`public_reason`)."""

    def __init__(self, reason, public_reason=None):
        super().__init__(reason)
        self.reason = reason
        self.public_reason = reason if public_reason is None else public_reason  # see values.Outcome


@dataclass(frozen=True, slots=True)
class Stmt:
    """An assignment written as the effect's text (`score[player] += 1`), compiled to `handle`."""
    handle: Any  # a compiled statement (assignment)
    text: str
    pos: Any = None


@dataclass(frozen=True, slots=True)
class If:
    """`if`: block `then_block` when `condition` holds, else block `else_block` (or nothing)."""
    condition: Any
    then_block: int
    else_block: Optional[int]
    pos: Any = None


@dataclass(frozen=True, slots=True)
class Let:
    """`let`: names bound to the values of expressions, for the effects after it in the block."""
    binds: tuple  # ((name, handle), ...)
    pos: Any = None


@dataclass(frozen=True, slots=True)
class For:
    """`for`: block `body` once for each of `items`, with the item bound to `var`."""
    var: str
    items: Any
    body: int
    pos: Any = None


@dataclass(frozen=True, slots=True)
class Call:
    """`do`: the procedure's effects, its parameters bound as `binds` gives them."""
    procedure: str
    binds: tuple  # ((parameter, handle), ...)
    pos: Any = None


@dataclass(frozen=True, slots=True)
class Move:
    """`move`: items from zone `source` to zone `target` (how many, which, at which ends)."""
    source: Any
    target: Any
    count: Any  # a handle, or None for one item
    item: Any  # a handle naming the item(s) to move, or None to move from an end
    from_end: str  # "top" or "bottom"
    to_end: str
    bind: Optional[str]  # `as`/`as_list`: the name bound to what moved
    pos: Any = None
    bind_list: bool = False  # `as_list`: bind the list of what moved; `as`: the one item (none if none moved)
    fixed: Any = field(default=None, compare=False, hash=False)  # the ruleset's constant parts (compile_effects.constant_parts)


@dataclass(frozen=True, slots=True)
class Shuffle:
    """`shuffle`: zone `zone` put in a random order."""
    zone: Any
    pos: Any = None
    fixed: Any = field(default=None, compare=False, hash=False)  # as Move's


@dataclass(frozen=True, slots=True)
class Random:
    """`random`: one of `options`, drawn by chance, bound to `bind`."""
    options: Any
    bind: str
    pos: Any = None


@dataclass(frozen=True, slots=True)
class Choose:
    """`choose`: player `player` picks one of `options` (or `count` of them), bound to `bind`."""
    player: Any
    options: Any
    bind: str
    prompt: str
    count: Any  # choose `count` of the options (a combination), or None for one
    label: Optional[list]  # a label template for each option, or None
    pos: Any = None
    declared: Any = None  # the `min`/`max`/`step` it declares (declared.py's Declared), or None
    written: Any = None  # the prompt as the rule file wrote it (a Text: its position), for validate
    reveals: Any = None  # `reveals:` (a Text: why its prompt and labels show the decider what they read), or None


@dataclass(frozen=True, slots=True)
class ChooseTogether:
    """`choose` by several players at once: each of `players` picks, the answers bound by seat. No
    `reveals:` (compile_effects.py refuses it): its prompt and labels are read per decider, `p`."""
    players: Any  # the seats who choose at once
    options: Any  # read with `p` bound to each seat
    bind: str  # bound to a list by seat (none for a seat that does not choose)
    prompt: str
    count: Any
    label: Optional[list]
    pos: Any = None
    declared: Any = None  # as Choose's, read with `p` bound to each seat
    written: Any = None  # as Choose's


@dataclass(frozen=True, slots=True)
class Enter:
    """`enter`: sub-phase `phase` is played, then the effects after this one go on."""
    phase: str
    pos: Any = None


@dataclass(frozen=True, slots=True)
class Log:
    """`log`: a line of the game's log made of texts and expression parts, for `readers` or everybody."""
    parts: list
    pos: Any = None
    readers: Any = None  # `to`: the player or players who may read the line (None: everybody)


@dataclass(frozen=True, slots=True)
class Fail:
    """`fail`: the action is refused with `reason`."""
    reason: str
    pos: Any = None


@dataclass(frozen=True, slots=True)
class EndPhase:
    """`end_phase`: the phase ends once the effects under way have run."""
    pos: Any = None


# effects that never suspend a seeded game (a block made only of them can run in place)
_SIMPLE = (Stmt, Let, Log, Move, Shuffle, Random, Fail)
_CHANCE = (Shuffle, Random)  # the ones that suspend a manual-chance game (until its outcome is given)


def simple_blocks(blocks, proc_blocks=None, chance: bool = True) -> list:
    """For each block: can it run to its end without suspending (no decision, sub-phase or
    phase end; its `if` branches, loop bodies and the procedures it calls (`proc_blocks`:
    procedure -> block) likewise)? A procedure that calls itself is never simple. `chance` False:
    a chance effect does not run through either (Ruleset.chanceless_blocks: manual chance)."""
    simple = [False] * len(blocks)
    changed = True
    while changed:  # a block is simple once everything it runs is known to be
        changed = False
        for index in range(len(blocks) - 1, -1, -1):
            if not simple[index] and all(_runs_through(effect, simple, proc_blocks, chance) for effect in blocks[index] or ()):
                simple[index] = changed = True
    return simple


def _runs_through(effect, simple, proc_blocks, chance: bool) -> bool:
    """Can `effect` run to its end without suspending, given the blocks known `simple`?"""
    if isinstance(effect, _SIMPLE):
        return chance or not isinstance(effect, _CHANCE)
    if isinstance(effect, If):
        return simple[effect.then_block] and (effect.else_block is None or simple[effect.else_block])
    if isinstance(effect, For):
        return simple[effect.body]
    return isinstance(effect, Call) and proc_blocks is not None and simple[proc_blocks[effect.procedure]]


# ----------------------------------------------------------------------------- running
# what a rule may raise while it runs on values of the wrong type or size; each becomes a
# RuleRuntimeError naming the rule (and so a `rule_error` refusal)
ENGINE_ERRORS = (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, AttributeError, OverflowError, RecursionError, MemoryError)
_RULE_ERRORS = (RuleRuntimeError,) + ENGINE_ERRORS


def located_error(message: str, effect, plain=None) -> RuleRuntimeError:
    """A RuleRuntimeError at the effect's position in the rule files (or naming its kind)."""
    pos = getattr(effect, "pos", None)
    located = pos is not None and getattr(pos, "line", 0)
    return RuleRuntimeError(message, "" if located else type(effect).__name__.lower(), pos if located else None, plain)


def describe_error(error, plain: bool = False) -> str:  # plain: without the message, which may quote a value
    if isinstance(error, RecursionError):
        return "a rule recursed too deeply"
    if plain:
        return f"a rule failed: {type(error).__name__}"
    return f"a rule failed: {type(error).__name__}: {error}"[:400]


def execute(state, frame) -> bool:
    """Run an effect frame from its `next` effect until it finishes (True) or must wait (False)."""
    ops = state.rs.blocks[frame["block"]]
    game_vars = state.d["vars"]
    names = frame["locals"]
    while frame["next"] < len(ops):
        effect = ops[frame["next"]]
        frame["next"] += 1
        try:
            go_on = _HANDLERS[type(effect)](state, effect, frame, game_vars, names)
        except ChanceNeeded as need:
            frame["next"] -= 1  # the effect runs again, from its start, once the outcome is known
            frame["drawn"] = 0
            frame.setdefault("draws", [])
            state.d["chance"] = {"options": need.options, "frame": len(state.d["stack"]) - 1}
            return False
        except _RULE_ERRORS as error:
            located = _located(error, effect)
            if located is error:
                raise
            raise located from None
        if "draws" in frame:  # the outcomes forced for that effect are used up
            del frame["draws"], frame["drawn"]
        if not go_on:
            return False
    return True


def run_block(state, block: int, local_names: dict) -> bool:
    """Run a block in place when nothing in it can suspend (chance is seeded, or it draws
    nothing), else push it on the stack; True when it ran in place."""
    rules = state.rs
    if rules.simple_blocks[block] and (state.d["rng"] is not None or rules.chanceless_blocks[block]):
        _run_in_place(state, block, local_names)
        return True
    state.d["stack"].append(effect_frame(block, local_names))
    return False


def _run_in_place(state, block: int, names: dict) -> None:
    """`execute` for a block that cannot suspend, in a seeded game: no frame is needed (its
    `next` pointer and chance draws serve only a block that may wait); errors are located the
    same way."""
    game_vars = state.d["vars"]
    for effect in state.rs.blocks[block]:
        try:
            _HANDLERS[type(effect)](state, effect, None, game_vars, names)
        except _RULE_ERRORS as error:
            located = _located(error, effect)
            if located is error:
                raise
            raise located from None


def _located(error, effect):
    """The error to raise for `error`, met while `effect` ran: itself when it already names
    where it happened, else a RuleRuntimeError at the effect."""
    if not isinstance(error, RuleRuntimeError):
        return located_error(describe_error(error), effect, describe_error(error, plain=True))
    if error.where or getattr(error, "pos", None) is not None:
        return error
    return located_error(str(error), effect, error.shown())


def _stmt(state, effect, frame, game_vars, names):
    effect.handle.fn(game_vars, names)
    return True


def _if(state, effect, frame, game_vars, names):
    block = effect.then_block if effect.condition.fn(game_vars, names) else effect.else_block
    if block is None:
        return True
    return run_block(state, block, dict(names))


def _let(state, effect, frame, game_vars, names):
    for name, handle in effect.binds:
        names[name] = handle.fn(game_vars, names)
    return True


def _for(state, effect, frame, game_vars, names):
    items = effect.items.fn(game_vars, names)
    if not isinstance(items, (list, tuple, dict, str)):
        raise not_a("'for' needs a list or a map", items)
    rules = state.rs  # each body in place, as run_block would run it
    if rules.simple_blocks[effect.body] and (state.d["rng"] is not None or rules.chanceless_blocks[effect.body]):
        for item in list(items):
            local_names = dict(names)
            local_names[effect.var] = item
            _run_in_place(state, effect.body, local_names)
        return True
    state.d["stack"].append(for_frame(effect.body, effect.var, list(items), dict(names)))
    return False


def _call(state, effect, frame, game_vars, names):
    bound = {"player": names.get("player")}
    if SECRET_TO in names:
        bound[SECRET_TO] = names[SECRET_TO]
    for parameter, handle in effect.binds:
        bound[parameter] = handle.fn(game_vars, names)
    return run_block(state, state.rs.proc_blocks[effect.procedure], bound)


def _refuse_a_constant(zone, effect, kind: str) -> None:
    """A rule error when `zone` is (a part of) a constant or a component record, reached through
    a local, a parameter or a define (a zone written as a constant is refused by validation)."""
    if effect.fixed and id(zone) in effect.fixed:
        raise RuleRuntimeError(f"{kind} would change {effect.fixed[id(zone)]}: a rule cannot change a constant; "
                               f"copy it into a var first")


def run_move(state, effect, frame, game_vars, names):
    """The `move` effect (the generated game, interpreter/compiled/, calls it too)."""
    source = effect.source.fn(game_vars, names)
    target = effect.target.fn(game_vars, names)
    if not isinstance(source, list) or not isinstance(target, list):
        raise RuleRuntimeError("move needs two lists (zones)")
    _refuse_a_constant(source, effect, "this move")
    _refuse_a_constant(target, effect, "this move")
    moved = []
    if effect.item is not None:
        chosen = effect.item.fn(game_vars, names)
        items = chosen if isinstance(chosen, list) and effect.count is None and chosen not in source else [chosen]
        for item in items:
            if item not in source:
                raise RuleRuntimeError(f"{fmt(item)} is not in the zone it should move from", plain="an item is not in the zone it moves from")
            moved.append(source.pop(source.index(item)))  # the zone's own item, not the value naming it
    else:
        count = effect.count.fn(game_vars, names) if effect.count is not None else 1
        if not isinstance(count, int) or isinstance(count, bool):
            raise not_a("move count must be a whole number", count)
        for _ in range(min(count, len(source))):
            moved.append(source.pop(0) if effect.from_end == "top" else source.pop())
    if effect.to_end == "top":
        target[0:0] = moved
    else:
        target.extend(moved)
    if effect.bind:
        if effect.bind_list:
            names[effect.bind] = moved
        elif len(moved) > 1:
            raise RuleRuntimeError(f"'as: {effect.bind}' binds one item, but {len(moved)} moved: "
                                   f"write 'as_list: {effect.bind}' to bind the list",
                                   plain=f"'as: {effect.bind}' binds one item, but several moved")
        else:
            names[effect.bind] = moved[0] if moved else None
    return True


def run_shuffle(state, effect, frame, game_vars, names):
    """The `shuffle` effect (`state` needs only `d["rng"]`; the generated game calls it too)."""
    zone = effect.zone.fn(game_vars, names)
    if not isinstance(zone, list):
        raise not_a("shuffle needs a list (a zone)", zone)
    _refuse_a_constant(zone, effect, "this shuffle")
    order = list(zone)
    for position in range(len(order) - 1, 0, -1):  # all draws first: a suspended shuffle changed nothing
        pick = draw(state.d, frame, order, position + 1)
        order[position], order[pick] = order[pick], order[position]
    zone[:] = order
    return True


def run_random(state, effect, frame, game_vars, names):
    """The `random` effect (`state` needs only `d["rng"]`; the generated game calls it too)."""
    pool = effect.options.fn(game_vars, names)
    if isinstance(pool, dict):
        pool = list(pool)
    if not isinstance(pool, list):
        raise not_a("random needs a list to pick from", pool)
    if not pool:
        names[effect.bind] = None
        return True
    names[effect.bind] = pool[draw(state.d, frame, pool, len(pool))]
    return True


def choice_options(effect, game_vars, names) -> list:
    """A `choose`'s options (combinations of `count` of them if it has one), in its declared bounds."""
    options = list(effect.options.fn(game_vars, names))
    if effect.declared is not None:
        check_options(effect.declared, options, game_vars, names)
    if effect.count is not None:
        count = effect.count.fn(game_vars, names)
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise not_a("choose count must be a whole number", count)
        combos = itertools.combinations(options, count)
        options = [list(combo) for combo in itertools.islice(combos, MAX_CHOICE_COMBINATIONS)]
    return options


def option_label(budget, template, game_vars, names, option) -> str:
    """The label of one option of a `choose` (`option` bound among `names`): rendered under a
    work bound of its own, so it never charges the step nor fails it (a template that fails
    gives the plain label with the reason, as an action's does). The compiled engine renders
    only the labels that are read, when they are read (compiled/decisions.py): the same text."""
    left = budget.left
    budget.left = budget.limit
    try:
        return render_label(template, game_vars, dict(names, option=option), "choose", (("value", freeze(option)),))
    finally:
        budget.left = left


def _choose(state, effect, frame, game_vars, names):
    player = effect.player.fn(game_vars, names)
    options = choice_options(effect, game_vars, names)
    if len(options) < 2:  # none is `none`, one is taken at once
        names[effect.bind] = options[0] if options else None
        return True
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < state.num_players:
        raise RuleRuntimeError(f"choose: {fmt(player)} is not a player", plain="choose: the chooser is not a player")
    labels = None
    if effect.label:
        budget = state.rs.budget
        labels = [option_label(budget, effect.label, game_vars, names, option) for option in options]
    state.d["pending"] = {"player": player, "options": options, "bind": effect.bind, "prompt": effect.prompt,
                          "frame": len(state.d["stack"]) - 1, "labels": labels}
    return False


def _enter(state, effect, frame, game_vars, names):
    from .flow import push_phase

    push_phase(state, effect.phase, sub=True)
    return False


def _choose_together(state, effect, frame, game_vars, names):
    from .simultaneous import open_decision

    return open_decision(state, effect, game_vars, names)


def _log(state, effect, frame, game_vars, names):
    # the values are read now; the line is joined when the log is read (state.log)
    pieces = []
    for part in effect.parts:
        if type(part) is not str:
            part = part.fn(game_vars, names)
            if type(part) not in SCALARS:
                part = fmt(part)
        pieces.append(part)
    readers = effect.readers.fn(game_vars, names) if effect.readers is not None else names.get(SECRET_TO)
    state.note(log_entry(tuple(pieces), readers))
    return True


def log_entry(pieces: tuple, readers):
    """The log entry of a line: its pieces, or for a line some players only may read (`readers`:
    a seat or a list of seats) {"to": [seats], "text": pieces} (see State.log_for)."""
    if readers is None:
        return pieces
    seats = readers if isinstance(readers, list) else [readers]
    if not all(isinstance(seat, int) and not isinstance(seat, bool) for seat in seats):
        raise not_a("log 'to' names players (seats)", readers)
    return {"to": sorted(set(seats)), "text": pieces}


def _fail(state, effect, frame, game_vars, names):
    raise RuleFailure(effect.reason)


def _end_phase(state, effect, frame, game_vars, names):
    from .flow import end_phase

    end_phase(state)
    return True


_HANDLERS = {Stmt: _stmt, If: _if, Let: _let, For: _for, Call: _call, Move: run_move, Shuffle: run_shuffle,
             Random: run_random, Choose: _choose, ChooseTogether: _choose_together, Enter: _enter, Log: _log, Fail: _fail, EndPhase: _end_phase}
