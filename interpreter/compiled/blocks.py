"""The generator's first half: effect blocks as straight-line code (phases.py writes the flow and
assembles the module; legal_code.py writes the legal moves).

  act_A(st, V, L, S)              an action's effects inlined, `if`/`for`/procedure bodies included;
                                  a generator when a `choose` in it may wait: it yields the decision
                                  (runtime `open_choice`) and the answer is sent back (game.py)

Every effect that writes a var first records the var's old value in `S` (the move's undo log).
Rule text never becomes code here: an expression is a call of the function the expression
compiler generated for it (`_h0(V, L)`), and every name or text of the rules is written as a
`repr` literal.

Owns: the `Writer` of generated source, the code of each effect kind, actions.
"""
from __future__ import annotations

import re

from ..engine import effects as fx
from ..ruleset import ENGINE_VARS
from .support import SubPhase

__all__ = ["text", "Writer", "write_block", "write_action", "write_procedures", "may_choose",
           "FRAME_FIELDS"]

# the phase frame's fields, in the order of the list the generated code keeps (frames.PhaseFrame)
FRAME_FIELDS = ("phase", "stage", "player", "round", "acted", "order", "index", "begin", "round_opened",
                "passed_over", "empty_turns")
PHASE, STAGE, PLAYER, ROUND, ACTED, ORDER, INDEX, BEGIN, OPENED, PASSED, EMPTY = range(len(FRAME_FIELDS))


class Writer:
    """Lines of source with indentation, and the values they refer to by generated names."""

    def __init__(self, ruleset):
        self.rs = ruleset
        self.lines: list = []
        self.constants: dict = {}
        self._names_of: dict = {}
        self.var_names = set(ruleset.vars) | set(ENGINE_VARS)
        self._fresh = 0
        self.calling: list = []  # the procedures being inlined, innermost last
        self.procedure_functions: set = set()  # procedures written as functions (they recurse)
        self.procedure_index = {name: number for number, name in enumerate(ruleset.proc_blocks)}
        # whose secret move runs the code being written: False (no secret move: a phase's effects,
        # a plain action), True (a secret action: its log lines are the mover's), None (not known:
        # a procedure written as a function reads the `_secret_to` local)
        self.secret = False
        self.yielded = False  # the function being written yields (a `choose`, or a call of one that may)
        self.shared: dict = {}  # the listing being written: action id -> its checks shared (shared_checks.py)
        # by depth, the vars recorded in the undo log by the lines written since at that depth
        # on the same path (the block being written and those around it): recording one again
        # there would find it recorded already
        self.recorded: list = []

    def fresh(self, prefix: str) -> str:
        """A new local variable name of the generated code."""
        self._fresh += 1
        return f"{prefix}{self._fresh}"

    def emit(self, depth: int, text: str) -> None:
        # a line comes after the blocks deeper than it: their records may not have run
        del self.recorded[depth + 1:]
        self.lines.append("    " * depth + text)
        if "yield" in text:  # the function waits: what it recorded is not counted on after it
            self.recorded.clear()

    def value(self, value, prefix: str = "_c") -> str:
        """A generated name bound to `value` in the module (handles, label parts, effects)."""
        key = id(value)
        if key not in self._names_of:
            name = f"{prefix}{len(self.constants)}"
            self.constants[name] = value
            self._names_of[key] = name
        return self._names_of[key]

    def call(self, handle, local_names: str) -> str:
        """The call of a compiled expression or statement: `_hN(V, L)`."""
        return self.call_function(handle.fn, local_names)

    def call_function(self, function, local_names: str) -> str:
        return f"{self.value(function, '_h')}(V, {local_names})"

    def save_var(self, depth: int, name: str) -> None:
        """Record var `name`'s value in the move's undo log before it first changes: unless
        a line before this one, on every way the function can come here (the same block or
        one around it) and with no `yield` between, recorded it already (the test would be
        false: the generated code is the same without it)."""
        if any(name in names for names in self.recorded[:depth + 1]):
            return
        self.emit(depth, f"if {text(name)} not in S: S[{text(name)}] = _copy(V[{text(name)}])")
        self.recorded.extend(set() for _ in range(depth + 1 - len(self.recorded)))
        self.recorded[depth].add(name)

    def save_read_vars(self, depth: int, handles) -> None:
        """Before an effect changes a zone it reads through expressions: the vars they read."""
        for name in sorted(set().union(*(handle.names for handle in handles if handle is not None)) & self.var_names):
            self.save_var(depth, name)

    def save_zone_vars(self, depth: int, handles) -> None:
        """Before `move`/`shuffle` changes zones: the vars their expressions read when each
        zone is written as a var's own part (`hand[player]`, `players[p].deck`); otherwise (a
        parameter, a `let`, a define's value may be a var's list) every var."""
        for handle in handles:
            written = _VAR_PART.match(handle.source) if handle is not None else None
            if handle is not None and (written is None or written.group(1) not in self.var_names):
                name = self.fresh("name")
                self.emit(depth, f"for {name} in V:")
                self.emit(depth + 1, f"if {name} not in S: S[{name}] = _copy(V[{name}])")
                return
        self.save_read_vars(depth, handles)


def text(value) -> str:
    """A text of the rules (a name, a label, a reason) as a Python string literal."""
    return repr(str(value))


# ----------------------------------------------------------------------------- effects
def write_block(out: Writer, block, depth: int, local: str) -> None:
    effects = out.rs.blocks[block] if block is not None else ()
    if not effects:
        out.emit(depth, "pass")
    for effect in effects:
        _EFFECTS[type(effect)](out, effect, depth, local)


def _nested(out: Writer, block, depth: int, local: str, bind=None) -> None:
    """A nested block with its own copy of the local names (as the reference runs it), or,
    when nothing binds a name in it (`_binds_names`), with the names of the block around it:
    the copy would be read only, the same names."""
    if bind is None and not _binds_names(out, block):
        write_block(out, block, depth, local)
        return
    inner = out.fresh("L")
    out.emit(depth, f"{inner} = dict({local})")
    if bind is not None:
        out.emit(depth, f"{inner}[{text(bind[0])}] = {bind[1]}")
    write_block(out, block, depth, inner)


# effects that never change the local names of the block they are in (an `if`'s branches and a
# `for`'s body, a procedure's effects, get their own when they bind one); a `move` or a
# statement does unless `_binds_names` finds otherwise
_KEEPS_NAMES = (fx.If, fx.For, fx.Call, fx.Shuffle, fx.Log, fx.Fail, fx.EndPhase)


def _binds_names(out: Writer, block) -> bool:
    """Can an effect of `block` itself bind or change a local name (`let`, `choose`, `random`,
    a `move ... as`, an assignment to a local)? Only what is known not to counts as not."""
    for effect in out.rs.blocks[block] if block is not None else ():
        if type(effect) is fx.Move and effect.bind is None:
            continue
        if type(effect) is fx.Stmt and not effect.handle.assigns_local:  # it assigns a var
            continue
        if not isinstance(effect, _KEEPS_NAMES):
            return True
    return False


def _stmt(out, effect, depth, local):
    root = effect.handle.target
    if root in out.var_names:
        out.save_var(depth, root)
    out.emit(depth, out.call(effect.handle, local))


def _if(out, effect, depth, local):
    out.emit(depth, f"if {out.call(effect.condition, local)}:")
    _nested(out, effect.then_block, depth + 1, local)
    if effect.else_block is not None:
        out.emit(depth, "else:")
        _nested(out, effect.else_block, depth + 1, local)


def _let(out, effect, depth, local):
    for name, handle in effect.binds:
        out.emit(depth, f"{local}[{text(name)}] = {out.call(handle, local)}")


def _for(out, effect, depth, local):
    items, item = out.fresh("items"), out.fresh("item")
    out.emit(depth, f"{items} = {out.call(effect.items, local)}")
    out.emit(depth, f"if not isinstance({items}, _LOOPABLE): raise _not_loopable({items})")
    guard = _loop_guard(out, effect)
    if guard is None:
        out.emit(depth, f"for {item} in list({items}):")
        _nested(out, effect.body, depth + 1, local, (effect.var, item))
        return
    _for_while(out, effect, guard, depth, local, items, item)


def _loop_guard(out, effect):
    """The `if` of a loop whose body is one `if` without `else` and whose condition does not
    read the loop's name ("up to N times, while C"), else None."""
    body = out.rs.blocks[effect.body] or ()
    if len(body) != 1 or type(body[0]) is not fx.If or body[0].else_block is not None:
        return None
    return body[0] if effect.var not in body[0].condition.names else None


def _for_while(out, effect, guard, depth, local, items, item):
    """A loop "up to N times, while C" stops at the first turn whose condition is false: that
    turn changed nothing (its body is only the `if`, and expressions change nothing), so the
    condition is false in every turn after it. Those turns are charged the work the condition
    just cost, each, as evaluating it every turn (the reference engine does) would; when that
    would pass the work bound, the turns go on and the one that reaches it raises, located in
    the rule files as the reference's (the same function, the same state: the same work)."""
    listed, turns_after, before, rest = (out.fresh(name) for name in ("listed", "turns_after", "before", "rest_work"))
    budget, inner = out.value(out.rs.budget, "_budget"), out.fresh("L")
    out.emit(depth, f"{listed} = list({items})")
    out.emit(depth, f"{turns_after} = len({listed})")
    out.emit(depth, f"for {item} in {listed}:")
    out.emit(depth + 1, f"{turns_after} -= 1")
    out.emit(depth + 1, f"{inner} = dict({local})")
    out.emit(depth + 1, f"{inner}[{text(effect.var)}] = {item}")
    out.emit(depth + 1, f"{before} = {budget}.left")
    out.emit(depth + 1, f"if not {out.call(guard.condition, inner)}:")
    out.emit(depth + 2, f"{rest} = ({before} - {budget}.left) * {turns_after}")
    out.emit(depth + 2, f"if {rest} <= {budget}.left:")
    out.emit(depth + 3, f"{budget}.left -= {rest}")
    out.emit(depth + 3, "break")
    out.emit(depth + 2, "continue")  # past the bound: the turn that reaches it raises, as the reference's does
    _nested(out, guard.then_block, depth + 1, inner)


def _call(out, effect, depth, local):
    inner = out.fresh("L")
    out.emit(depth, f"{inner} = {{'player': {local}.get('player')}}")
    if out.secret is not False:  # the procedure's log lines are the secret move's mover's too
        secret = text(fx.SECRET_TO)
        out.emit(depth, f"if {secret} in {local}: {inner}[{secret}] = {local}[{secret}]")
    for parameter, handle in effect.binds:
        out.emit(depth, f"{inner}[{text(parameter)}] = {out.call(handle, local)}")
    if effect.procedure in out.calling:  # it recurses: a function, not inlined again
        out.procedure_functions.add(effect.procedure)
        call = f"proc_{out.procedure_index[effect.procedure]}(st, V, {inner}, S)"
        if may_choose(out.rs, out.rs.proc_blocks[effect.procedure]):  # a generator: its decisions pass through
            out.emit(depth, f"yield from {call}")
            out.yielded = True
        else:
            out.emit(depth, call)
        return
    out.calling.append(effect.procedure)
    write_block(out, out.rs.proc_blocks[effect.procedure], depth, inner)
    out.calling.pop()


def _move(out, effect, depth, local):
    out.save_zone_vars(depth, (effect.source, effect.target))
    out.emit(depth, f"_run_move(None, {out.value(effect)}, None, V, {local})")


def _shuffle(out, effect, depth, local):
    out.save_zone_vars(depth, (effect.zone,))
    out.emit(depth, f"_run_shuffle(st.chance_holder, {out.value(effect)}, None, V, {local})")


def _random(out, effect, depth, local):
    out.emit(depth, f"_run_random(st.chance_holder, {out.value(effect)}, None, V, {local})")


def _log(out, effect, depth, local):
    pieces = [text(part) if isinstance(part, str) else f"_piece({out.call(part, local)})" for part in effect.parts]
    line = f"({', '.join(pieces)}{',' if len(pieces) == 1 else ''})"
    # a game whose log nobody reads (a search world: CompiledState.drop_log) computes no pieces
    out.emit(depth, "if st.log_kept:")
    if effect.readers is not None:  # a line for some players only (the pieces are read first)
        out.emit(depth + 1, f"st.note(_log_entry({line}, {out.call(effect.readers, local)}))")
    elif out.secret is not False:  # a secret move's line is the mover's only
        out.emit(depth + 1, f"st.note(_log_entry({line}, {local}.get({text(fx.SECRET_TO)})))")
    else:
        out.emit(depth + 1, f"st.note({line})")


def _choose(out, effect, depth, local):
    """A choice with one option or none binds it at once; with more, the decision is yielded
    (the function is a generator) and the answer sent back is bound."""
    decision = out.fresh("decision")
    out.emit(depth, f"{decision} = _open_choice(st, {out.value(effect)}, V, {local})")
    out.emit(depth, f"if {decision} is not None:")
    out.emit(depth + 1, f"{local}[{text(effect.bind)}] = yield {decision}")
    out.yielded = True


def _fail(out, effect, depth, local):
    out.emit(depth, f"raise _Failure({text(effect.reason)})")


def _end_phase(out, effect, depth, local):
    """engine/flow.py `end_phase`: the stage after the block is the frame's (phases.py reads it)."""
    out.emit(depth, "_end_phase(st.frame)")


def _hand_over(out, effect, depth, local):
    """`choose_together`: the reference engine makes the move (several players' answers wait
    together in its frames)."""
    out.emit(depth, "raise _HandOver()")


def _enter(out, effect, depth, local):
    """`enter`: the function yields the sub-phase (a generator, as at a `choose`); the game
    plays it (decisions.py) and, when it returns, sends the function on to the effects after."""
    number = list(out.rs.phases).index(effect.phase)
    out.emit(depth, f"yield {out.value(SubPhase(number), '_sub')}")
    out.yielded = True


# a zone written as a var's own part: the var's name, then indexes without brackets inside or
# attributes (`hand[player]`, `players[p].deck`); any other zone may be a var's list too
_VAR_PART = re.compile(r"\s*([A-Za-z_]\w*)(?:\[[^\[\]]*\]|\.\w+)*\s*$")

_EFFECTS = {fx.Stmt: _stmt, fx.If: _if, fx.Let: _let, fx.For: _for, fx.Call: _call, fx.Move: _move,
            fx.Shuffle: _shuffle, fx.Random: _random, fx.Log: _log, fx.Fail: _fail, fx.Choose: _choose,
            fx.EndPhase: _end_phase, fx.Enter: _enter, fx.ChooseTogether: _hand_over}


def write_procedures(out: Writer) -> None:
    """The procedures that recurse, as functions (each written once; writing one may need more)."""
    written: set = set()
    while out.procedure_functions - written:
        name = sorted(out.procedure_functions - written)[0]
        written.add(name)
        out.emit(0, f"def proc_{out.procedure_index[name]}(st, V, L, S):")
        out.calling = [name]
        out.secret = None  # called from secret moves and others alike
        write_block(out, out.rs.proc_blocks[name], 1, "L")
        out.calling = []
        out.secret = False
        out.emit(0, "")


def may_choose(ruleset, block, seen=None) -> bool:
    """Can running `block` meet a `choose` or an `enter` (in it, its branches and loops, the
    procedures it calls)? A procedure written as a function that may is a generator, called
    with `yield from`."""
    if block is None:
        return False
    seen = set() if seen is None else seen
    for effect in ruleset.blocks[block] or ():
        if isinstance(effect, (fx.Choose, fx.Enter)):
            return True
        nested = []
        if isinstance(effect, fx.If):
            nested = [effect.then_block, effect.else_block]
        elif isinstance(effect, fx.For):
            nested = [effect.body]
        elif isinstance(effect, fx.Call) and effect.procedure not in seen:
            seen.add(effect.procedure)
            nested = [ruleset.proc_blocks[effect.procedure]]
        if any(may_choose(ruleset, inner, seen) for inner in nested):
            return True
    return False


def write_action(out: Writer, action, index: int) -> bool:
    """act_A; True when it is a generator (a `choose` in it may wait for a player)."""
    out.emit(0, f"def act_{index}(st, V, L, S):")
    if action.secret:  # engine/acting.py: its effects' log lines are the mover's only
        out.emit(1, f"L[{text(fx.SECRET_TO)}] = L['player']")
    out.secret = bool(action.secret)
    out.yielded = False
    write_block(out, action.block, 1, "L")
    out.secret = False
    out.emit(0, "")
    return out.yielded
