"""Compiling effect lists into blocks of engine/effects.py dataclasses: one method per effect
kind (dispatched by `_EFFECT_KINDS`), the bindings an effect adds to the rest of its list
(`let`, `move ... as`, `random ... as`, `choose ... as`), and the static type checks of effect
operands and phase settings (`operand`).

Owns: `EffectCompiler`, the base of compile_play.PlayCompiler; the ruleset compiler
(ruleset._Compiler) provides `expr`, `stmt`, `err`, `procs`, `phase_ids` and the list of `blocks`.
"""
from __future__ import annotations

from typing import Optional

from .engine import effects as fx
from .engine.declared import Declared
from .errors import ExpressionError, suggest
from .expr.compiler import Scope, parse
from .loader import Map, Seq, Text, key_pos, pos_of, value_pos

__all__ = ["EffectCompiler", "PROVENANCE_KEYS", "LISTS", "NUMBERS", "element_type", "zone_root"]

PROVENANCE_KEYS = ("source", "reconstructed", "interpretation")
# the types an effect operand or a phase setting must have, where its type is known statically
LISTS = ("list",)
LISTS_OR_MAPS = ("list", "map")
NUMBERS = ("number",)
_TYPE_NAMES = {"list": "a list", "map": "a map", "number": "a number"}


class EffectCompiler:
    """Effect lists and the type checks of their operands (see the module docstring)."""

    def operand(self, handle, kinds, what, pos):
        """A type error at validation when the operand's type is known and is not one of
        `kinds` ("list", "map", "number"); an unknown type is checked when the game runs."""
        if handle is None or handle.type is None:
            return
        typ = handle.type
        kind = typ[0] if isinstance(typ, tuple) else typ
        if kind in kinds:
            return
        shown = {"entity": f"a {typ[1]}" if isinstance(typ, tuple) and len(typ) > 1 else "a component",
                 "text": "text", "boolean": "a boolean", "none": "none"}.get(kind, f"a {kind}")
        self.err("type", f"{what} {' or '.join(_TYPE_NAMES[k] for k in kinds)}, but '{handle.source}' is {shown}", pos)

    def block(self, effects, scope: Scope) -> int:
        """Compile an effect list into a block of effects; returns its index in `blocks`."""
        index = len(self.blocks)
        self.blocks.append(None)
        compiled = []
        bound = dict(scope.locals)
        effects = effects or []
        if not isinstance(effects, list):
            self.err("effect", "effects must be a list", pos_of(effects))
            effects = []
        current, current_locals = scope, scope.locals  # a new scope only once an effect has bound a name
        for position, spec in enumerate(effects):
            if bound != current_locals:
                current = scope.with_locals(bound)
                current_locals = dict(bound)
            effect = self.effect(spec, current, effects, position, bound)
            if effect is not None:
                compiled.append(effect)
        self.blocks[index] = tuple(compiled)
        return index

    def effect(self, spec, scope: Scope, parent, index, bound):
        """Compile one effect (an assignment text or a mapping) into its engine/effects.py
        dataclass; `bound` (name -> type) receives the names it binds for the rest of the list."""
        pos = value_pos(parent, index) if isinstance(parent, (Seq, Map)) else pos_of(spec)
        if isinstance(spec, str):
            handle = self.stmt(spec, scope)
            return fx.Stmt(handle, str(spec), pos) if handle else None
        if not isinstance(spec, dict):
            self.err("effect", "an effect is an assignment text or a mapping", pos)
            return None
        keys = set(spec) - set(PROVENANCE_KEYS)
        for kind, method in _EFFECT_KINDS:
            if kind in keys:
                return getattr(self, method)(spec, scope, pos, bound, keys)
        self.err("effect", f"unknown effect '{', '.join(sorted(keys)) or '?'}'", pos,
                 suggest(next(iter(keys), ""), [kind for kind, _ in _EFFECT_KINDS]))
        return None

    def effect_if(self, spec, scope, pos, bound, keys):
        condition = self.expr(spec["if"], scope, spec, "if")
        then_block = self.block(spec.get("then") or [], scope)
        else_block = self.block(spec.get("else") or [], scope) if spec.get("else") else None
        extra = keys - {"if", "then", "else"}
        if extra:
            self.err("effect", f"'if' does not take {', '.join(sorted(extra))}", pos)
        if "then" not in spec:
            self.err("effect", "'if' needs 'then'", key_pos(spec, "if"))
        return fx.If(condition, then_block, else_block, pos)

    def effect_for(self, spec, scope, pos, bound, keys):
        text = str(spec["for"])
        if " in " not in text:
            self.err("effect", "'for' reads 'name in collection'", value_pos(spec, "for"), "e.g. for: c in corp")
            return None
        var, collection = text.split(" in ", 1)
        var = var.strip()
        if not var.isidentifier() or var.startswith("_"):
            self.err("effect", f"'{var}' is not a name", value_pos(spec, "for"))
            return None
        source = spec["for"]
        if isinstance(source, Text):  # the collection's own position, for its error messages
            quoted = 1 if getattr(source, "quoted", False) else 0
            collection = Text(collection, pos_of(source).shifted(0, len(text) - len(collection) + 1 + quoted))
        handle = self.expr(collection, scope, spec, "for")
        self.operand(handle, LISTS_OR_MAPS, "'for' loops over", value_pos(spec, "for"))
        body = self.block(spec.get("do") or [], scope.with_locals({var: element_type(handle)}))
        return fx.For(var, handle, body, pos)

    def effect_let(self, spec, scope, pos, bound, keys):
        binds = []
        for name, source in (spec["let"] or {}).items():
            handle = self.expr(source, scope.with_locals({known: None for known, _ in binds}), spec["let"], name)
            binds.append((str(name), handle))
            bound[name] = handle.type if handle else None
        return fx.Let(tuple(binds), pos)

    def effect_move(self, spec, scope, pos, bound, keys):
        move = spec["move"]
        source = self.expr(move.get("from"), scope, move, "from")
        target = self.expr(move.get("to"), scope, move, "to")
        count = self.expr(move.get("count", 1), scope, move, "count") if "count" in move else None
        item = self.expr(move.get("item"), scope, move, "item") if "item" in move else None
        self.operand(source, LISTS, "'move from' needs", value_pos(move, "from"))
        self.operand(target, LISTS, "'move to' needs", value_pos(move, "to"))
        self.operand(count, NUMBERS, "'move count' needs", value_pos(move, "count") if "count" in move else pos)
        name, as_list = self.move_binding(move, source, item)
        if name:
            bound[name] = (source.type if source else None) if as_list else element_type(source)
        self.refuse_constant_zone(move.get("from"), scope, value_pos(move, "from"), "move from")
        self.refuse_constant_zone(move.get("to"), scope, value_pos(move, "to"), "move to")
        return fx.Move(source, target, count, item, str(move.get("from_end", "top")), str(move.get("to_end", "top")),
                       name, pos, as_list, self.fixed_parts(scope))

    def move_binding(self, move, source, item):
        """`(name, as_list)` of a move's binding: `as: NAME` binds the one item moved (a move
        without `count` of a single item), `as_list: NAME` the list of what moved (always a
        list); `as` where several items may move is an error that says to write `as_list`."""
        if move.get("as") and move.get("as_list"):
            self.err("effect", "a move has 'as' or 'as_list', not both", key_pos(move, "as_list"),
                     "'as' binds the one item moved; 'as_list' binds the list of what moved")
        if move.get("as_list"):
            return str(move["as_list"]), True
        if not move.get("as"):
            return None, False
        several = "count" in move or (item is not None and isinstance(item.type, tuple) and item.type[0] == "list")
        if several:
            why = "'count'" if "count" in move else "an 'item' that is a list"
            self.err("effect", f"'as' binds one item, but this move has {why}: what moves is a list",
                     key_pos(move, "as"), f"write 'as_list: {move['as']}' to bind the list of what moved "
                                          "(a list also when one item or none moved)")
        return str(move["as"]), False

    def effect_shuffle(self, spec, scope, pos, bound, keys):
        handle = self.expr(spec["shuffle"], scope, spec, "shuffle")
        self.operand(handle, LISTS, "'shuffle' needs", value_pos(spec, "shuffle"))
        self.refuse_constant_zone(spec["shuffle"], scope, value_pos(spec, "shuffle"), "shuffle")
        return fx.Shuffle(handle, pos, self.fixed_parts(scope))

    def fixed_parts(self, scope: Scope) -> dict:
        """The lists and maps of the constants and component records (engine/effects.py
        `constant_parts`), found once: a move or shuffle refuses to change them when it runs."""
        if getattr(self, "_fixed_parts", None) is None:
            self._fixed_parts = constant_parts(scope.constants, self.entities)
        return self._fixed_parts

    def refuse_constant_zone(self, text, scope: Scope, pos, what: str) -> None:
        """A validation error for a zone written as a constant or a part of one (`table`,
        `grid[0]`): a move or shuffle would change what every game of the ruleset shares."""
        root = zone_root(text)
        if root is not None and root in scope.constants and root not in scope.vars and root not in scope.locals:
            self.err("assign", f"'{what}' would change '{root}', a constant: a rule cannot change a constant",
                     pos, f"copy it into a var first, e.g. vars: {{my_{root}: {{init: {root}}}}}")

    def effect_random(self, spec, scope, pos, bound, keys):
        pick = spec["random"]
        handle = self.expr(pick.get("from"), scope, pick, "from")
        self.operand(handle, LISTS_OR_MAPS, "'random from' needs", value_pos(pick, "from"))
        bound[pick["as"]] = element_type(handle)
        return fx.Random(handle, str(pick["as"]), pos)

    def effect_choose(self, spec, scope, pos, bound, keys):
        choice = spec["choose"]
        if choice.get("players") is not None:
            return self.effect_choose_together(choice, scope, pos, bound)
        player = self.expr(choice.get("player", "player"), scope, choice, "player")
        options = self.expr(choice.get("from"), scope, choice, "from")
        count = self.expr(choice.get("count"), scope, choice, "count") if choice.get("count") is not None else None
        self.operand(options, LISTS_OR_MAPS, "'choose from' needs", value_pos(choice, "from"))
        self.operand(count, NUMBERS, "'choose count' needs", value_pos(choice, "count") if "count" in choice else pos)
        self.operand(player, NUMBERS, "'choose player' needs", value_pos(choice, "player") if "player" in choice else pos)
        bound[choice["as"]] = element_type(options) if count is None else None
        label = self.template(choice["label"], scope.with_locals({"option": None})) if choice.get("label") else None
        return fx.Choose(player, options, str(choice["as"]), str(choice.get("prompt", choice["as"])), count, label, pos,
                         self.declared(choice, scope, "answer", _decision(choice), pos), choice.get("prompt"),
                         self.reveals(choice))

    def effect_choose_together(self, choice, scope, pos, bound):
        """`choose: {players: ..., from: ...}`: each of the players chooses at once from `from`
        (read with `p` bound to them); `as` is a list by seat (none for a seat not choosing)."""
        if choice.get("player") is not None:
            self.err("effect", "'choose' takes 'player' or 'players', not both", key_pos(choice, "player"),
                     "players: a list of seats who choose at once")
        players = self.expr(choice.get("players"), scope, choice, "players")
        self.operand(players, LISTS, "'choose players' needs", value_pos(choice, "players"))
        seat_scope = scope.with_locals({"p": "number"})
        options = self.expr(choice.get("from"), seat_scope, choice, "from")
        count = self.expr(choice.get("count"), seat_scope, choice, "count") if choice.get("count") is not None else None
        self.operand(options, LISTS_OR_MAPS, "'choose from' needs", value_pos(choice, "from"))
        bound[choice["as"]] = None
        label = (self.template(choice["label"], seat_scope.with_locals({"option": None}))
                 if choice.get("label") else None)
        if choice.get("reveals") is not None:
            self.err("effect", "'reveals' is for a choose by one player: in a choose by several `players` each of "
                     "them reads its prompt and labels, so one decider could read another's secret there. Each "
                     "already reads their own slot (`hand[p]`), and a part reading anything else is '?' for all",
                     value_pos(choice, "reveals"), 'ask each by a choose of their own: {for: "p in players", do: '
                     '[{choose: {player: p, from: ..., prompt: ..., reveals: "why p may read it"}}]}')
        return fx.ChooseTogether(players, options, str(choice["as"]), str(choice.get("prompt", choice["as"])),
                                 count, label, pos, self.declared(choice, seat_scope, "answer", _decision(choice), pos),
                                 choice.get("prompt"))

    def reveals(self, choice) -> Optional[str]:
        """A `choose`'s `reveals:` reason (the schema has checked it is text); one of spaces alone
        says no reason and is an error at its place."""
        reason = choice.get("reveals")
        if isinstance(reason, str) and not reason.strip():
            self.err("effect", "'reveals' needs a reason: why the decider may read what the prompt shows",
                     value_pos(choice, "reveals"), 'reveals: "the buyer must see the offer to consent (rulebook §...)"')
        return reason

    def declared(self, spec, scope, noun: str, subject: str, pos) -> Optional[Declared]:
        """The `min`/`max`/`step` a decision or parameter (its mapping `spec`) declares, each read
        in `scope`, or None when it declares none (engine/declared.py)."""
        handles = tuple(self.expr(spec.get(key), scope, spec, key) for key in ("min", "max", "step"))
        return Declared(handles, noun, subject, pos) if any(handle is not None for handle in handles) else None

    def effect_enter(self, spec, scope, pos, bound, keys):
        target = spec["enter"]
        if target not in self.phase_ids:
            self.err("reference", f"'enter' names unknown phase '{target}'", value_pos(spec, "enter"),
                     suggest(target, self.phase_ids))
        return fx.Enter(str(target), pos)

    def effect_call(self, spec, scope, pos, bound, keys):
        name = spec["do"]
        if not isinstance(name, str):
            self.err("effect", "'do' names a procedure", pos, "use 'for' with 'do' for a loop")
            return None
        if name not in self.procs:
            self.err("reference", f"unknown procedure '{name}'", value_pos(spec, "do"), suggest(name, self.procs))
            return None
        params = self.procs[name]["params"]
        given = spec.get("with") or {}
        for key in given:
            if key not in params:
                self.err("reference", f"procedure '{name}' has no parameter '{key}'", key_pos(given, key),
                         suggest(key, params) or f"it takes: {', '.join(params) or 'nothing'}")
        binds = []
        for param in params:
            if param in given:
                binds.append((str(param), self.expr(given[param], scope, given, param)))
            elif param in scope.locals:
                binds.append((str(param), self.expr(param, scope)))
            else:
                self.err("reference", f"procedure '{name}' needs '{param}'", pos, f"add with: {{{param}: ...}}")
        return fx.Call(name, tuple(binds), pos)

    def effect_log(self, spec, scope, pos, bound, keys):
        line = spec["log"]
        if isinstance(line, dict):  # {text, to}: a line only these players read
            readers = self.expr(line.get("to"), scope, line, "to")
            return fx.Log(self.template(line.get("text", ""), scope), pos, readers)
        return fx.Log(self.template(line, scope), pos)

    def effect_fail(self, spec, scope, pos, bound, keys):
        return fx.Fail(str(spec["fail"]), pos)

    def effect_end_phase(self, spec, scope, pos, bound, keys):
        return fx.EndPhase(pos)


# each effect kind (the key that names it, tried in this order) and the method compiling it
_EFFECT_KINDS = (("if", "effect_if"), ("for", "effect_for"), ("let", "effect_let"), ("move", "effect_move"),
                 ("shuffle", "effect_shuffle"), ("random", "effect_random"), ("choose", "effect_choose"),
                 ("enter", "effect_enter"), ("do", "effect_call"), ("log", "effect_log"), ("fail", "effect_fail"),
                 ("end_phase", "effect_end_phase"))


def zone_root(text):
    """The name a zone expression starts from when it is a name, or a name indexed or read
    by attribute (`deck`, `grid[0]`, `x.cards`); None for anything else (a call, a literal)."""
    if not isinstance(text, str):
        return None
    try:
        node = parse(text, "expression")
    except ExpressionError:
        return None  # (reported where the expression is compiled)
    node = node.children[0] if node.data == "expression" and len(node.children) == 1 else node
    while node.data in ("index", "attr"):
        node = node.children[0]
    return str(node.children[0]) if node.data == "name" else None


def _decision(choice) -> str:
    """What a decision's answers are to, in the reasons about them: "to the decision 'amount'
    (opening bid)"."""
    return f"to the decision '{choice['as']}' ({choice.get('prompt', choice['as'])})"


def element_type(handle):
    """The type of one element of a list-typed expression, or None."""
    if handle is not None and isinstance(handle.type, tuple) and handle.type[0] == "list":
        return handle.type[1]
    return None


def constant_parts(constants: dict, entities: dict) -> dict:
    """id -> what it is, for every list and map inside the ruleset's constants and component
    records: the values every game of the loaded ruleset shares, which no effect may change."""
    parts: dict = {}

    def walk(value, what):
        if isinstance(value, (list, dict)) and id(value) not in parts:
            parts[id(value)] = what
            for inner in (value.values() if isinstance(value, dict) else value):
                walk(inner, what)

    for name, value in constants.items():
        walk(value, f"the constant '{name}'")
    for component_id, record in entities.items():
        walk(record, f"component '{component_id}'")
    return parts
