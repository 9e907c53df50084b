"""Which hidden vars a label template may read, and through which seat: the static reading
behind engine/labels.py's rule that a mover never reads another player's secret in their own
move's label, and engine/prompts.py's that a decider never reads one in their `choose` prompt.

A read is (var, seat name): an `owner` var indexed by a bare name (`hand[player]`: seat name
`player`, `hand[who]`: `who`), or (var, None) for any other read of a var that is not public (a
`hidden` or `count` var, a whole `owner` var, one indexed by anything else: `hand[1 - player]`).
A label is safe for its mover when every read's seat name is one of the names that hold the
mover's seat. Defines are followed with their parameters bound to the caller's arguments (and
`player` to the caller's `player`). A `choose` option label may read the locals of its rule: each
reads what the effect that bound it before the `choose` read (`let`, `for`, `random`, `choose`
and `move` `as`: a moved item reads the zone it went to), a procedure's parameter what any
call passes it, and a parameter of a `secret: true` action is its mover's secret (as if it were
their slot of an `owner` var: (parameter, `player`)). What decides a value counts as read:
`[c for c in cards if c in hand[1 - player]]` reads `hand`; `len(...)` of a var reads only a
size, which every player sees. Worked out once per ruleset, when it is compiled.

Owns: `LabelReads` (the reads of an expression, of a define, of the locals a `choose`'s label
and prompt, and a view's `about:`, may read).
"""
from __future__ import annotations

from lark import Token, Tree

from ..expr.parser import parse
from . import effects as fx

__all__ = ["LabelReads", "hidden_from"]

_BINDING_NODES = ("listcomp", "setcomp", "genexp_arg")


def hidden_from(reads, movers) -> list:
    """The vars of `reads` the mover may not see, when `movers` are the names holding their seat."""
    return sorted({var for var, seat in reads if seat is None or seat not in movers})


class LabelReads:
    """The reads of the expressions of one ruleset (see the module docstring)."""

    def __init__(self, ruleset):
        self.vars = ruleset.vars
        tree = ruleset.tree or {}
        self.defines = {str(name): (list(body.get("params") or []), body.get("expr")) if isinstance(body, dict)
                        else ([], body) for name, body in (tree.get("define") or {}).items()}
        self.define_memo: dict = {}
        self.params: dict = {}  # procedure -> {parameter: what its callers pass it reads}

    def of_action_label(self, handle, params) -> frozenset:
        """The reads of a part of an action's label (its names: the parameters, `round`,
        `player`, vars and defines)."""
        return self.expression(handle.source, dict.fromkeys([*params, "round"]), {})

    def expression(self, source, env: dict, local_reads) -> frozenset:
        """The reads of an expression; `env`: names bound around it that read nothing (and
        stand for no seat); `local_reads`: {effect local: its reads}, None inside a define."""
        if isinstance(source, bool) or source is None:
            return frozenset()
        try:
            return frozenset(self._walk(parse(str(source)), env, local_reads))
        except RecursionError:  # a chain of defines too deep to follow: unknown, so hidden
            return frozenset({("a chain of defines", None)})

    # the effects --------------------------------------------------------------------------
    def chooses(self, ruleset) -> list:
        """(block, position, effect, {local: reads}) of every `choose`, with
        the reads of the locals bound before it in its rule: by the effects before it (`let`,
        `for`, `random`, `choose` and `move` `as`), and a procedure's parameters by what its
        callers pass (until nothing changes: a procedure may call itself)."""
        self.params = {name: {} for name in ruleset.proc_blocks}
        while True:
            before = {name: dict(reads) for name, reads in self.params.items()}
            found: list = []
            seen: set = set()
            for block, local_reads in self._roots(ruleset):
                self._block(ruleset, block, local_reads, seen, found)
            for block in range(len(ruleset.blocks)):  # reached from nowhere above: no locals known
                self._block(ruleset, block, {}, seen, found)
            if self.params == before:
                return found

    def _roots(self, ruleset) -> list:
        roots = [(action.block, _secret_params(action)) for action in ruleset.actions.values()]
        roots += [(block, dict(self.params[name])) for name, block in ruleset.proc_blocks.items()]
        for phase in ruleset.phases.values():
            roots += [(block, {}) for block in (phase.enter_block, phase.exit_block, phase.turn_block,
                                                phase.round_block, phase.reveal_block) if block is not None]
        return roots

    def _block(self, ruleset, index, local_reads: dict, seen: set, found: list) -> None:
        if index is None or index in seen:
            return
        seen.add(index)
        local_reads = dict(local_reads)
        for position, effect in enumerate(ruleset.blocks[index] or ()):
            if isinstance(effect, fx.Choose):
                found.append((index, position, effect, dict(local_reads)))
            elif isinstance(effect, fx.ChooseTogether):  # `p`: the seat
                found.append((index, position, effect, _without_seat(local_reads, "p")))
            if isinstance(effect, fx.If):
                self._block(ruleset, effect.then_block, local_reads, seen, found)
                self._block(ruleset, effect.else_block, local_reads, seen, found)
            elif isinstance(effect, fx.For):
                inner = dict(local_reads)
                _bind(inner, effect.var, self.expression(effect.items.source, {}, local_reads))
                self._block(ruleset, effect.body, inner, seen, found)
            elif isinstance(effect, fx.Call):
                self._pass(effect, local_reads)
            for name, handle in _bindings(effect):
                reads = self.expression(handle.source, {}, local_reads)
                if isinstance(effect, fx.ChooseTogether):  # options read with `p`: no seat out here
                    reads = frozenset((var, None if seat == "p" else seat) for var, seat in reads)
                _bind(local_reads, name, reads)

    def _pass(self, call, local_reads: dict) -> None:
        """Add what a call passes to its procedure's parameters (a seat name of the caller's is
        the parameter it is passed as, `player` stays `player`, any other: no seat known)."""
        passed = {str(handle.source).strip(): name for name, handle in call.binds if handle is not None}
        params = self.params.setdefault(call.procedure, {})
        for name, handle in call.binds:
            if handle is None:
                continue
            reads = self.expression(handle.source, {}, local_reads)
            reads = frozenset((var, seat if seat == "player" else passed.get(seat)) for var, seat in reads)
            params[name] = params.get(name, frozenset()) | reads

    # the walk -----------------------------------------------------------------------------
    def _walk(self, node, env: dict, local_reads) -> set:
        """Reads of a tree node; `env`: names bound inside the expression -> the outer name they
        alias (`let x = player`) or None."""
        if not isinstance(node, Tree):
            return set()
        kind = node.data
        if kind == "name":
            return self._name(str(node.children[0]), env, local_reads)
        if kind == "index":
            return self._index(node, env, local_reads)
        if kind == "call":
            return self._call(node, env, local_reads)
        if kind in _BINDING_NODES:
            element, clauses = node.children
            found, inner = set(), dict(env)
            for clause in clauses.children:
                targets, *rest = clause.children
                for part in rest:
                    found |= self._walk(part, inner, local_reads)
                inner.update({str(target): None for target in targets.children})
            return found | self._walk(element, inner, local_reads)
        if kind == "lambda_":
            params, body = node.children
            return self._walk(body, dict(env, **{str(name): None for name in params.children}), local_reads)
        if kind == "let":
            name, value, body = node.children
            found = self._walk(value, env, local_reads)
            return found | self._walk(body, dict(env, **{str(name): _alias(value, env, local_reads)}), local_reads)
        found = set()
        for child in node.children:
            found |= self._walk(child, env, local_reads)
        return found

    def _name(self, name: str, env: dict, local_reads) -> set:
        if name in env:
            return set()  # its value's reads were counted where it was bound
        if name in self.vars:
            return set() if self.vars[name].visibility == "public" else {(name, None)}
        if name in self.defines:
            return set(self._define(name, {}, env["player"] if "player" in env else "player"))
        return set((local_reads or {}).get(name, ()))  # a local of the effects; a parameter or constant: none

    def _index(self, node, env: dict, local_reads) -> set:
        base, key = node.children
        found = self._walk(key, env, local_reads)
        var = str(base.children[0]) if isinstance(base, Tree) and base.data == "name" else None
        if var in self.vars and var not in env and self.vars[var].visibility == "owner":
            return found | {(var, _alias(key, env, local_reads))}
        return found | self._walk(base, env, local_reads)

    def _call(self, node, env: dict, local_reads) -> set:
        name, arguments = str(node.children[0]), node.children[1]
        if name == "len" and name not in env and self._size_shown(arguments, env):
            return self._walk(arguments.children[0].children[1], env, local_reads) \
                if arguments.children[0].data == "index" else set()
        found = self._walk(arguments, env, local_reads) if arguments is not None else set()
        if name in env or name not in self.defines:
            return found
        params = self.defines[name][0]
        bound = {}
        if isinstance(arguments, Tree) and arguments.data == "arguments":  # (a define takes no keywords)
            for param, argument in zip(params, arguments.children):
                bound[str(param)] = _alias(argument, env, local_reads)
        player = env["player"] if "player" in env else "player"
        return found | set(self._define(name, bound, player))

    def _size_shown(self, arguments, env: dict) -> bool:
        """`len(v)` of a var, or `len(v[key])` of an `owner` or `count` var: a size every player
        sees (engine/visibility.py shows hidden lists by their sizes)."""
        if not isinstance(arguments, Tree) or arguments.data != "arguments" or len(arguments.children) != 1:
            return False
        argument = arguments.children[0]
        if isinstance(argument, Tree) and argument.data == "index":
            argument = argument.children[0]
            visible = ("owner", "count")
        else:
            visible = ("owner", "count", "hidden")
        var = str(argument.children[0]) if isinstance(argument, Tree) and argument.data == "name" else None
        return var in self.vars and var not in env and self.vars[var].visibility in visible

    def _define(self, name: str, bound: dict, player) -> frozenset:
        """Reads of define `name` called with its parameters aliasing `bound` and `player` the
        caller's `player` (None: not a name the caller holds)."""
        params, source = self.defines[name]
        env = {str(param): bound.get(str(param)) for param in params}
        if "player" not in env:
            env["player"] = player
        key = (name, tuple(sorted(env.items(), key=lambda item: item[0])))
        if key not in self.define_memo:
            self.define_memo[key] = frozenset()  # a define calling itself is a compile error; stop here
            self.define_memo[key] = self.expression(source, env, None)
        return self.define_memo[key]


def _secret_params(action) -> dict:
    """The reads of an action's parameters where its effects begin: none, but those of a
    `secret: true` action, which only its mover (`player`) may see."""
    if not action.secret:
        return {}
    return {name: frozenset({(name, "player")}) for name, _ in action.params}


def _alias(node, env: dict, local_reads):
    """The outer name a bare name stands for: what `env` binds it to, else the name itself
    (inside a define: None, only its parameters and `player` stand for the caller's names).
    None for any other expression."""
    if isinstance(node, Tree) and node.data == "name" and isinstance(node.children[0], Token):
        name = str(node.children[0])
        return env[name] if name in env else (None if local_reads is None else name)
    return None


def _bind(local_reads: dict, name: str, reads: frozenset) -> None:
    """Bind local `name` to `reads`; a read through the old `name` no longer knows its seat."""
    local_reads.update(_without_seat(local_reads, name))
    local_reads[name] = reads


def _without_seat(local_reads: dict, name: str) -> dict:
    """`local_reads` with the reads through seat name `name` knowing no seat (`name` now stands
    for another value)."""
    return {local: frozenset((var, None if seat == name else seat) for var, seat in known)
            for local, known in local_reads.items()}


def _bindings(effect) -> list:
    """(local name, handle of what it reads) of the names an effect binds for the rest of its list."""
    if isinstance(effect, fx.Let):
        return [(name, handle) for name, handle in effect.binds if handle is not None]
    if isinstance(effect, (fx.Random, fx.Choose, fx.ChooseTogether)) and effect.options is not None:
        return [(effect.bind, effect.options)]
    if isinstance(effect, fx.Move) and effect.bind and effect.target is not None:
        return [(effect.bind, effect.target)]
    return []
