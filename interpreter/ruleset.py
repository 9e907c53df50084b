"""From a composed tree to an immutable, compiled Ruleset.

Stages, each a gate (all errors of a stage are reported together, then it stops):
  compose (compose.py) -> schema (schema.py) -> compile (here: names, expressions, effects,
  phases) -> checks (checks.py: graph, references, counts, assertions, unused definitions).

Owns: the compiled form of every section. Does not own play (state.py) or the CLI.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Optional

from .compose import Composed, compose, derive_combinations, find_ruleset
from .errors import Diagnostic, ExpressionError, Pos, RulebookError, suggest
from .expr.builtins import Budget
from .expr.compiler import CodeUnit, Handle, Scope, check_name
from .loader import Map, Seq, Text, expr_pos, key_pos, plain, pos_of, value_pos

__all__ = ["Ruleset", "load", "compile_composed", "ENGINE_VARS", "PROVENANCE_KEYS"]

# Names the engine provides to every expression.
ENGINE_VARS = ("players", "num_players", "current_phase")
PROVENANCE_KEYS = ("source", "reconstructed", "interpretation")
DEFAULT_MAX_STEPS = 100_000


@dataclass
class Action:
    id: str
    label: Optional[str]
    params: list  # [(name, Handle)]
    requires: list  # [(Handle, reason, code)]
    block: int
    fallback: bool
    label_parts: Optional[list] = None
    req_fns: tuple = ()
    req_levels: tuple = ((),)
    label_static: bool = False


@dataclass
class Phase:
    id: str
    kind: str
    label: str
    enter_block: Optional[int]
    exit_block: Optional[int]
    turn_block: Optional[int]
    round_block: Optional[int]
    actions: tuple
    players: Optional[Handle]
    first: Optional[Handle]
    order: int  # +1 clockwise, -1 counterclockwise
    skip: Optional[Handle]
    end: Optional[Handle]
    rounds: Optional[Handle]
    per_turn: Optional[Handle]
    next: list  # [(target, Handle or None)]
    pos: Pos = None


@dataclass
class VarDecl:
    name: str
    per_player: bool
    visibility: str
    value: Any = None
    init: Optional[Handle] = None


@dataclass
class Ruleset:
    """An immutable compiled ruleset; `new_game` starts a game."""

    name: str
    title: str
    folder: str
    modules: tuple
    players: tuple
    start: str
    components: Any  # type -> tuple of ids
    entities: Any  # id -> attributes (read-only)
    vars: dict
    actions: dict
    phases: dict
    blocks: list
    proc_blocks: dict
    simple_blocks: list
    end_if: Optional[Handle]
    max_steps: int
    score_rows: list  # [(id, label, Handle)]
    tiebreakers: list  # [(label, Handle)]
    final_tie: str
    heuristic: Optional[Handle]
    assertions: list  # [(when, Handle, message, pos)]
    combinations: list
    module_decls: dict
    provenance: dict
    files: list
    warnings: list = field(default_factory=list)
    init_templates: dict = field(default_factory=dict)
    tree: Any = None
    unit: Any = None
    budget: Any = None
    digest: str = ""  # of every rule file read (path and bytes), the modules chosen and --set overrides
    settings: dict = field(default_factory=dict)  # setting -> value (after overrides)
    overrides: dict = field(default_factory=dict)  # setting -> value given by --set / load(settings=)

    def new_game(self, players: Optional[int] = None, seed: int = 0):
        from .state import State

        return State.new(self, players if players is not None else self.players[0], seed)

    def allowed_players(self) -> tuple:
        return self.players


def load(name_or_path, modules=(), *, check: bool = True, settings: Optional[dict] = None) -> Ruleset:
    """`settings` overrides declared settings by name; None takes the command's `--set` ones."""
    from .settings import active_overrides, apply_overrides

    folder = find_ruleset(name_or_path)
    composed = compose(folder, modules)
    composed.overrides = dict(active_overrides() if settings is None else settings)
    apply_overrides(composed.tree, composed.overrides)
    from .schema import validate_files

    validate_files(composed.trees)
    rs = compile_composed(composed)
    if check:
        from .checks import run_checks

        rs.warnings = run_checks(rs, composed)
    return rs


# ----------------------------------------------------------------------------- compile
class _Compiler:
    def __init__(self, composed: Composed):
        self.c = composed
        self.t = composed.tree
        self.diags: list[Diagnostic] = []
        self.blocks: list = []
        self.budget = Budget()

    def err(self, code, message, pos, hint=None):
        self.diags.append(Diagnostic(code, message, pos, hint))

    # expressions ---------------------------------------------------------------------------
    def expr(self, text, scope: Scope, where_node=None, key=None, lex=None) -> Optional[Handle]:
        if text is None:
            return None
        try:
            h = self.unit.add_expression(text, scope, lex)
            h.pos = pos_of(text) if isinstance(text, Text) else (value_pos(where_node, key) if where_node is not None else None)
            return h
        except ExpressionError as e:
            self._expr_error(e, text, where_node, key)
            return None

    def stmt(self, text, scope: Scope) -> Optional[Handle]:
        try:
            h = self.unit.add_statement(text, scope)
            h.pos = pos_of(text)
            return h
        except ExpressionError as e:
            self._expr_error(e, text, None, None)
            return None

    def _expr_error(self, e: ExpressionError, text, node, key):
        if isinstance(text, Text):
            p = expr_pos(text, e.line, e.column)
        elif node is not None:
            p = value_pos(node, key)
        else:
            p = Pos("<expression>", e.line, e.column)
        self.diags.append(Diagnostic(e.code if e.code != "syntax" else "expression", e.message, p, e.hint))

    # ---------------------------------------------------------------------------------------
    def run(self) -> Ruleset:
        t = self.t
        game = t.get("game") or Map()
        if not game.get("name"):
            self.err("game", "the game has no name", pos_of(game) if t.get("game") else pos_of(t),
                     "game.yaml needs 'game: {name: ...}'")
        # components
        comps = t.get("components") or {}
        entities: dict = {}
        types: dict = {}
        attrs: dict = {}
        for typ, defs in comps.items():
            ids = []
            names = set()
            for cid, rec in (defs or {}).items():
                if cid in entities:
                    self.err("duplicate", f"component id '{cid}' is used by two types",
                             key_pos(defs, cid), "component ids are unique across all types")
                    continue
                r = _plain_record(rec) if rec is not None else {}
                entities[cid] = {"id": cid, "type": typ, **r}
                ids.append(cid)
                names.update(r.keys())
            types[typ] = tuple(ids)
            attrs[typ] = names | {"id", "type"}
        self.entities = entities
        constants = {k: plain(v) for k, v in (t.get("constants") or {}).items()}
        for typ, ids in types.items():
            if typ in constants:
                self.err("duplicate", f"'{typ}' is both a constant and a component type", key_pos(t["constants"], typ))
            constants[typ] = list(ids)
        self.add_settings(constants)
        const_types = {typ: ("list", ("entity", typ)) for typ in types}
        # vars
        var_decls: dict = {}
        vars_scope: dict = {n: None for n in ENGINE_VARS}
        vars_scope["players"] = ("list", "number")
        vars_scope["num_players"] = "number"
        for name, d in (t.get("vars") or {}).items():
            if name in ENGINE_VARS:
                self.err("reserved", f"'{name}' is provided by the engine", key_pos(t["vars"], name))
                continue
            problem = check_name(name)
            if problem is not None:
                self.err("name", problem[0], key_pos(t["vars"], name), problem[1])
            if name in constants:
                self.err("duplicate", f"'{name}' is both a var and a constant or component type", key_pos(t["vars"], name))
            vars_scope[name] = None
        defines_raw = t.get("define") or {}
        defines: dict = {}
        for name, d in defines_raw.items():
            params = list(d.get("params") or []) if isinstance(d, dict) else []
            defines[name] = params
        self.scope = Scope(vars=vars_scope, locals={"player": "number"}, constants=constants,
                           defines=defines, entity_types=attrs, const_types=const_types)
        # the types of component-type constants (so `for c in corp` knows c is a corp)
        self.unit = CodeUnit(self.scope, entities, self.budget)
        self._const_types = const_types
        # constants of component types get entity-list types through a wrapper scope
        base_scope = self.scope
        for name, d in defines_raw.items():
            src = d.get("expr") if isinstance(d, dict) else d
            params = defines[name]
            try:
                self.unit.add_define(name, params, src if not isinstance(src, bool) else ("true" if src else "false"),
                                     base_scope.with_locals({}))
            except ExpressionError as e:
                self._expr_error(e, src, defines_raw, name)
        init_scope = Scope(vars={n: None for n in ENGINE_VARS}, locals={}, constants=constants,
                           defines=defines, entity_types=attrs, const_types=const_types)
        for name, d in (t.get("vars") or {}).items():
            if name in ENGINE_VARS or d is None:
                continue
            d = d or {}
            vd = VarDecl(name, bool(d.get("per_player")), str(d.get("visibility") or "public"))
            if "value" in d and "init" in d:
                self.err("var", f"var '{name}' has both 'value' and 'init'", key_pos(d, "init"),
                         "use 'value' for a literal or 'init' for an expression")
            if "init" in d:
                vd.init = self.expr(d["init"], init_scope.with_locals({"p": "number"}) if vd.per_player else init_scope, d, "init")
            else:
                vd.value = plain(d.get("value"))
            if vd.visibility == "owner" and not vd.per_player:
                self.err("var", f"var '{name}' is visible to its 'owner' but is not per_player",
                         value_pos(d, "visibility"), "add 'per_player: true' or choose another visibility")
            var_decls[name] = vd
        # procedures
        self.proc_decls = t.get("procedures") or {}
        self.procs: dict = {}
        for name, d in self.proc_decls.items():
            self.procs[name] = {"params": list(d.get("params") or []), "block": None}
        self.phase_ids = set((t.get("phases") or {}).keys())
        for name, d in self.proc_decls.items():
            params = self.procs[name]["params"]
            self.procs[name]["block"] = self.block(d.get("effects") or [], base_scope.with_locals(params))
        # actions
        actions: dict = {}
        for aid, d in (t.get("actions") or {}).items():
            actions[aid] = self.action(aid, d, base_scope)
        # phases
        phases: dict = {}
        for pid, d in (t.get("phases") or {}).items():
            phases[pid] = self.phase(pid, d, base_scope, actions)
        start = str(game["start"]) if game.get("start") else None
        if not start:
            start = next(iter(phases), None)
            if start is None:
                self.err("phases", "the game has no phases", pos_of(t), "add a 'phases:' section")
        elif start not in phases:
            self.err("reference", f"start phase '{start}' is not defined", value_pos(game, "start"),
                     suggest(start, phases))
        end_if = self.expr(game.get("end_if"), base_scope, game, "end_if") if game.get("end_if") is not None else None
        heuristic = self.expr(game.get("heuristic"), base_scope.with_locals({"p": "number"}), game, "heuristic") if game.get("heuristic") is not None else None
        # scoring
        scoring = t.get("scoring") or {}
        rows = []
        pscope = base_scope.with_locals({"p": "number"})
        for rid, rd in (scoring.get("rows") or {}).items():
            if rd is None:
                continue
            src = rd.get("expr") if isinstance(rd, dict) else rd
            label = rd.get("label", rid) if isinstance(rd, dict) else rid
            h = self.expr(src, pscope, rd if isinstance(rd, dict) else scoring["rows"], "expr" if isinstance(rd, dict) else rid)
            rows.append((rid, label, h))
        tbs = []
        for i, tb in enumerate(scoring.get("tiebreakers") or []):
            src = tb.get("expr") if isinstance(tb, dict) else tb
            label = tb.get("label", f"tie-breaker {i + 1}") if isinstance(tb, dict) else str(tb)
            tbs.append((label, self.expr(src, pscope, scoring["tiebreakers"], i)))
        # assertions
        asserts = []
        for i, a in enumerate(t.get("assertions") or []):
            when = a.get("when", "static")
            sc = init_scope if when == "static" else base_scope
            h = self.expr(a.get("expect"), sc, a, "expect")
            asserts.append((when, h, a.get("message") or str(a.get("expect")), value_pos(a, "expect")))
        players = tuple(game.get("players") or [])
        combos = plain(t.get("combinations") or [])
        if not players:
            all_counts = sorted({n for c in combos for n in c.get("players", [])})
            players = tuple(all_counts) or (2,)
        for name, e in self.unit.check_defines():
            self._expr_error(e, None, defines_raw, name)
        if self.diags:
            raise RulebookError(self.diags, "compile")
        self.unit.build(constants)  # functions compile on first call (compiler.py, _materialize)
        self.finish_actions(actions)
        return Ruleset(
            name=str(game.get("name", os.path.basename(self.c.folder))),
            title=str(game.get("title", game.get("name", ""))),
            folder=self.c.folder,
            modules=self.c.modules,
            players=players,
            start=start,
            components=MappingProxyType(types),
            entities=MappingProxyType(entities),
            vars=var_decls,
            actions=actions,
            phases=phases,
            blocks=self.blocks,
            proc_blocks={k: v["block"] for k, v in self.procs.items()},
            simple_blocks=_simple_blocks(self.blocks),
            end_if=end_if,
            max_steps=int(game.get("max_steps", DEFAULT_MAX_STEPS)),
            score_rows=rows,
            tiebreakers=tbs,
            final_tie=str(scoring.get("final_tie", "shared")),
            heuristic=heuristic,
            assertions=asserts,
            combinations=derive_combinations(combos, plain(t.get("modules") or {}), players),
            module_decls=plain(t.get("modules") or {}),
            provenance=_provenance(t),
            files=self.c.files,
            tree=t,
            unit=self.unit,
            budget=self.budget,
            digest=_rules_digest(self.c),
            overrides=dict(self.c.overrides),
            settings={k: constants[k] for k in (self.t.get("settings") or {}) if k in constants},
        )

    def add_settings(self, constants: dict) -> None:
        """Settings are read by name like constants (their values after any override)."""
        from .settings import setting_values

        for name, value in setting_values(self.t).items():
            if name in constants:
                self.err("duplicate", f"'{name}' is both a setting and a constant or component type",
                         key_pos(self.t["settings"], name), "rename one of them")
                continue
            constants[name] = value

    # actions -------------------------------------------------------------------------------
    def action(self, aid, d, scope: Scope) -> Action:
        params = []
        loc = {"round": "number"}  # the engine binds the current round of the turns phase
        for pname, dom in (d.get("params") or {}).items():
            if pname == "player":
                self.err("reserved", "'player' is bound by the engine", key_pos(d["params"], pname))
            h = self.expr(dom, scope.with_locals(loc), d["params"], pname)
            params.append((pname, h))
            elem = None
            if h is not None and isinstance(h.type, tuple) and h.type[0] == "list":
                elem = h.type[1]
            loc[pname] = elem
        ascope = scope.with_locals(loc)
        reqs = []
        raw = d.get("requires")
        if raw is not None:
            items = raw if isinstance(raw, list) else [raw]
            for i, r in enumerate(items):
                if isinstance(r, dict):
                    h = self.expr(r.get("expr"), ascope, r, "expr")
                    reqs.append((h, r.get("reason") or f"requires {r.get('expr')}", r.get("code") or "requirement"))
                else:
                    h = self.expr(r, ascope, items if isinstance(raw, list) else d, i if isinstance(raw, list) else "requires")
                    reqs.append((h, f"requires {r}", "requirement"))
        block = self.block(d.get("effects") or [], ascope)
        label = d.get("label")
        parts = self.template(label, ascope) if label else None
        return Action(aid, label, params, reqs, block, bool(d.get("fallback")), parts)

    def finish_actions(self, actions):
        state_names = set(self.scope.vars) | set(self.scope.defines) | {"round"}
        for a in actions.values():
            if a.label_parts:
                a.label_static = all(isinstance(part, str) or (part is not None and not (set(part.names or ()) & state_names))
                                     for part in a.label_parts)
            a.req_fns = tuple(h.fn for h, _, _ in a.requires if h is not None)
            # each requirement is checked as soon as the last parameter it reads is bound
            names = [n for n, _ in a.params]
            levels = [[] for _ in range(len(names) + 1)]
            for h, _, _ in a.requires:
                if h is None:
                    continue
                used = set(h.names or ())
                lvl = max([names.index(n) + 1 for n in names if n in used] or [0])
                levels[lvl].append(h.fn)
            a.req_levels = tuple(tuple(x) for x in levels)

    def template(self, text, scope):
        """'Place in {cell}' -> ['Place in ', Handle]."""
        out = []
        s = str(text)
        i = 0
        while i < len(s):
            j = s.find("{", i)
            if j < 0:
                out.append(s[i:])
                break
            k = s.find("}", j)
            if k < 0:
                out.append(s[i:])
                break
            if j > i:
                out.append(s[i:j])
            inner = s[j + 1:k]
            line, col = s.count("\n", 0, j + 1) + 1, j + 1 - s.rfind("\n", 0, j + 1)  # of `inner`
            sub = Text(inner, expr_pos(text, line, col)) if isinstance(text, Text) else None
            h = self.expr(sub, scope)
            out.append(h)
            i = k + 1
        return out

    # phases ---------------------------------------------------------------------------------
    def phase(self, pid, d, scope: Scope, actions) -> Phase:
        kind = d.get("kind") or ("turns" if d.get("actions") else "auto")
        pscope = scope.with_locals({"round": "number"})
        for a in d.get("actions") or []:
            if a not in actions:
                self.err("reference", f"phase '{pid}' offers unknown action '{a}'",
                         value_pos(d["actions"], list(d["actions"]).index(a)), suggest(a, actions))
        enter_fx = list(d.get("on_enter") or []) + list(d.get("effects") or [])
        nxt = []
        raw_next = d.get("next")
        if isinstance(raw_next, str):
            nxt.append((str(raw_next), None, value_pos(d, "next")))
        elif isinstance(raw_next, list):
            for i, e in enumerate(raw_next):
                h = self.expr(e.get("if"), pscope, e, "if") if e.get("if") is not None else None
                nxt.append((str(e.get("to")), h, key_pos(e, "to")))
        for target, _, p in nxt:
            if target not in ("end", "return") and target not in self.phase_ids:
                self.err("reference", f"phase '{pid}' goes to unknown phase '{target}'", p,
                         suggest(target, list(self.phase_ids) + ["end", "return"]))
        def h(key, sc=pscope):
            return self.expr(d.get(key), sc, d, key) if d.get(key) is not None else None
        return Phase(
            id=str(pid), kind=kind, label=str(d.get("label", pid)),
            enter_block=self.block(enter_fx, pscope) if enter_fx else None,
            exit_block=self.block(d.get("on_exit"), pscope) if d.get("on_exit") else None,
            turn_block=self.block(d.get("on_turn"), pscope) if d.get("on_turn") else None,
            round_block=self.block(d.get("on_round"), pscope) if d.get("on_round") else None,
            actions=tuple(d.get("actions") or ()),
            players=h("players"), first=h("first"),
            order=-1 if d.get("order") == "counterclockwise" else 1,
            skip=h("skip", pscope.with_locals({"p": "number"})), end=h("end"), rounds=h("rounds"),
            per_turn=h("actions_per_turn"),
            next=[(t_, c) for t_, c, _ in nxt], pos=key_pos(self.t["phases"], pid),
        )

    # effects ----------------------------------------------------------------------------------
    def block(self, effects, scope: Scope) -> int:
        """Compile an effect list into a block of ops; returns its index in `blocks`."""
        idx = len(self.blocks)
        self.blocks.append(None)
        ops = []
        loc = dict(scope.locals)
        effects = effects or []
        if not isinstance(effects, list):
            self.err("effect", "effects must be a list", pos_of(effects))
            effects = []
        sc, sc_locals = scope, scope.locals  # a new scope only once an effect has bound a name
        for i, e in enumerate(effects):
            if loc != sc_locals:
                sc = scope.with_locals(loc)
                sc_locals = dict(loc)
            op = self.effect(e, sc, effects, i, loc)
            if op is not None:
                ops.append(op)
        self.blocks[idx] = tuple(ops)
        return idx

    def effect(self, e, scope: Scope, parent, i, loc):
        p = value_pos(parent, i) if isinstance(parent, (Seq, Map)) else pos_of(e)
        if isinstance(e, str):
            h = self.stmt(e, scope)
            return ("stmt", h, e) if h else None
        if not isinstance(e, dict):
            self.err("effect", "an effect is an assignment text or a mapping", p)
            return None
        keys = set(e) - set(PROVENANCE_KEYS)
        if "if" in keys:
            cond = self.expr(e["if"], scope, e, "if")
            then_b = self.block(e.get("then") or [], scope)
            else_b = self.block(e.get("else") or [], scope) if e.get("else") else None
            extra = keys - {"if", "then", "else"}
            if extra:
                self.err("effect", f"'if' does not take {', '.join(sorted(extra))}", p)
            if "then" not in e:
                self.err("effect", "'if' needs 'then'", key_pos(e, "if"))
            return ("if", cond, then_b, else_b)
        if "for" in keys:
            spec = str(e["for"])
            if " in " not in spec:
                self.err("effect", "'for' reads 'name in collection'", value_pos(e, "for"), "e.g. for: c in corp")
                return None
            var, coll = spec.split(" in ", 1)
            var = var.strip()
            if not var.isidentifier() or var.startswith("_"):
                self.err("effect", f"'{var}' is not a name", value_pos(e, "for"))
                return None
            coll_text = Text(coll, pos_of(e["for"]).shifted(0, len(spec) - len(coll) + 1 + (1 if getattr(e["for"], "quoted", False) else 0)) if isinstance(e["for"], Text) else None) if isinstance(e["for"], Text) else coll
            h = self.expr(coll_text, scope, e, "for")
            elem = h.type[1] if h is not None and isinstance(h.type, tuple) and h.type[0] == "list" else None
            body = self.block(e.get("do") or [], scope.with_locals({var: elem}))
            return ("for", var, h, body)
        if "let" in keys:
            binds = []
            for name, src in (e["let"] or {}).items():
                h = self.expr(src, scope.with_locals({k: None for k, _ in binds}), e["let"], name)
                binds.append((str(name), h))
                loc[name] = h.type if h else None
            return ("let", tuple(binds))
        if "move" in keys:
            m = e["move"]
            frm = self.expr(m.get("from"), scope, m, "from")
            to = self.expr(m.get("to"), scope, m, "to")
            cnt = self.expr(m.get("count", 1), scope, m, "count") if "count" in m else None
            item = self.expr(m.get("item"), scope, m, "item") if "item" in m else None
            if m.get("as"):
                loc[m["as"]] = None
            return ("move", frm, to, cnt, item, str(m.get("from_end", "top")), str(m.get("to_end", "top")),
                    str(m["as"]) if m.get("as") else None)
        if "shuffle" in keys:
            return ("shuffle", self.expr(e["shuffle"], scope, e, "shuffle"))
        if "random" in keys:
            r = e["random"]
            h = self.expr(r.get("from"), scope, r, "from")
            loc[r["as"]] = h.type[1] if h is not None and isinstance(h.type, tuple) and h.type[0] == "list" else None
            return ("random", h, str(r["as"]))
        if "choose" in keys:
            c = e["choose"]
            who = self.expr(c.get("player", "player"), scope, c, "player")
            frm = self.expr(c.get("from"), scope, c, "from")
            cnt = self.expr(c.get("count"), scope, c, "count") if c.get("count") is not None else None
            loc[c["as"]] = (frm.type[1] if frm is not None and cnt is None and isinstance(frm.type, tuple) and frm.type[0] == "list" else None)
            label = self.template(c["label"], scope.with_locals({"option": None})) if c.get("label") else None
            return ("choose", who, frm, str(c["as"]), str(c.get("prompt", c["as"])), cnt, label)
        if "enter" in keys:
            target = e["enter"]
            if target not in self.phase_ids:
                self.err("reference", f"'enter' names unknown phase '{target}'", value_pos(e, "enter"),
                         suggest(target, self.phase_ids))
            return ("enter", str(target))
        if "do" in keys:
            name = e["do"]
            if not isinstance(name, str):
                self.err("effect", "'do' names a procedure", p, "use 'for' with 'do' for a loop")
                return None
            if name not in self.procs:
                self.err("reference", f"unknown procedure '{name}'", value_pos(e, "do"), suggest(name, self.procs))
                return None
            params = self.procs[name]["params"]
            given = e.get("with") or {}
            binds = []
            for k in given:
                if k not in params:
                    self.err("reference", f"procedure '{name}' has no parameter '{k}'", key_pos(given, k),
                             suggest(k, params) or f"it takes: {', '.join(params) or 'nothing'}")
            for prm in params:
                if prm in given:
                    binds.append((str(prm), self.expr(given[prm], scope, given, prm)))
                elif prm in scope.locals:
                    binds.append((str(prm), self.expr(prm, scope)))
                else:
                    self.err("reference", f"procedure '{name}' needs '{prm}'", p, f"add with: {{{prm}: ...}}")
            return ("call", name, tuple(binds))
        if "log" in keys:
            return ("log", self.template(e["log"], scope))
        if "fail" in keys:
            return ("fail", str(e["fail"]))
        if "end_phase" in keys:
            return ("end_phase",)
        self.err("effect", f"unknown effect '{', '.join(sorted(keys)) or '?'}'", p,
                 suggest(next(iter(keys), ""), ["if", "for", "let", "move", "shuffle", "random", "choose",
                                                 "enter", "do", "log", "fail", "end_phase"]))
        return None


_RECORDS: dict = {}


def _plain_record(rec) -> dict:
    """plain() of a component record, once per parsed record (parsed files are shared and
    read-only, so every module combination reuses it); callers copy it."""
    hit = _RECORDS.get(id(rec))
    if hit is not None and hit[0] is rec:
        return hit[1]
    if len(_RECORDS) > 100_000:
        _RECORDS.clear()
    r = plain(rec)
    _RECORDS[id(rec)] = (rec, r)
    return r


_SIMPLE_OPS = {"stmt", "let", "log", "move", "shuffle", "random", "fail"}


def _simple_blocks(blocks) -> list:
    """For each block: can it run to the end without suspending (no choice, loop frame,
    procedure call, sub-phase or phase end)? Nested blocks have larger indices."""
    simple = [False] * len(blocks)
    for i in range(len(blocks) - 1, -1, -1):
        ok = True
        for op in blocks[i] or ():
            if op[0] in _SIMPLE_OPS:
                continue
            if op[0] == "if" and simple[op[2]] and (op[3] is None or simple[op[3]]):
                continue
            ok = False
            break
        simple[i] = ok
    return simple


def _provenance(t) -> dict:
    """Counts of definitions by provenance: rulebook (source), reconstructed, interpretation,
    or none, per section."""
    out: dict = {}

    def visit(section, d):
        if not isinstance(d, dict):
            return
        kind = "unmarked"
        if d.get("interpretation"):
            kind = "interpretation"
        elif d.get("reconstructed"):
            kind = "reconstructed"
        elif d.get("source"):
            kind = "rulebook"
        out.setdefault(section, {}).setdefault(kind, 0)
        out[section][kind] += 1

    for section in ("vars", "define", "procedures", "actions", "phases"):
        for _, d in (t.get(section) or {}).items():
            visit(section, d)
    for typ, defs in (t.get("components") or {}).items():
        for _, d in (defs or {}).items():
            visit(f"components.{typ}", d)
    return out


def _rules_digest(composed: Composed) -> str:
    """A fingerprint of the rules: the modules chosen and every file read, by its path inside
    the ruleset folder and the digest of its bytes. Two loads of unchanged files agree."""
    h = hashlib.sha256()
    h.update(("modules:" + ",".join(composed.modules) + "\n").encode())
    if composed.overrides:
        h.update(("settings:" + repr(sorted(composed.overrides.items())) + "\n").encode())
    for display, tree in composed.trees:
        rel = os.path.relpath(os.path.abspath(display), composed.folder)
        h.update(f"{rel}:{getattr(tree, 'digest', None) or ''}\n".encode())
    return h.hexdigest()[:16]


def compile_composed(composed: Composed) -> Ruleset:
    # procedures must know phase ids and each other before effects compile
    c = _Compiler(composed)
    return c.run()
