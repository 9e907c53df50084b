"""From a composed tree to a compiled Ruleset.

Stages, each a gate (all errors of a stage are reported together, then it stops):
  compose (compose.py) -> schema (schema.py) -> compile (here: components, constants, vars,
  defines, procedures, scoring; compile_play.py: actions, phases; compile_effects.py: effect
  lists) -> checks (checks.py: graph, references, counts, assertions, unused definitions).

Owns: the Ruleset record and the compilation of every section but what is played. Does not
own play (interpreter/engine/) or the CLI.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Optional

from .compile_play import PROVENANCE_KEYS, Action, Phase, PlayCompiler
from .compose import Composed, compose, derive_combinations, find_ruleset
from .engine import effects as fx
from .errors import Diagnostic, ExpressionError, Pos, RulebookError, suggest
from .expr.builtins import Budget
from .expr.compiler import CodeUnit, Handle, Scope, check_name
from .loader import Map, Text, expr_pos, key_pos, plain, pos_of, value_pos

__all__ = ["Ruleset", "Action", "Phase", "load", "compile_composed", "ENGINE_VARS", "PROVENANCE_KEYS"]

# Names the engine provides to every expression.
ENGINE_VARS = ("players", "num_players", "current_phase")
DEFAULT_MAX_STEPS = 100_000


@dataclass
class VarDecl:
    name: str
    per_player: bool
    visibility: str
    value: Any = None
    init: Optional[Handle] = None


@dataclass
class Ruleset:
    """A compiled ruleset; `new_game` starts a game. Treat it as read-only: games share it
(only its per-player-count templates of initial values are filled in as games start)."""

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
    view: Any = None  # the compiled `view:` section (interpreter/view/spec.py)

    def new_game(self, players: Optional[int] = None, seed: int = 0, chance: str = "seeded"):
        """Start a game. With chance="manual" the game stops at each chance node
        (State.is_chance / chance_outcomes / apply_chance) instead of using the seeded RNG."""
        from .engine import State

        return State.new(self, players if players is not None else self.players[0], seed, chance)


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
    from .view.spec import compile_view

    rs.view = compile_view(rs)  # a bad view is a load error, with file:line:col
    if check:
        from .checks import run_checks

        rs.warnings = run_checks(rs, composed)
    return rs


# ----------------------------------------------------------------------------- compile
class _Compiler(PlayCompiler):
    """Compiles a composed tree: components, constants, vars, defines, procedures, scoring and
    assertions here; actions and phases in compile_play.PlayCompiler, effect lists in
    compile_effects.EffectCompiler."""

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
            simple_blocks=fx.simple_blocks(self.blocks),
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
