"""From a composed tree to a compiled Ruleset.

Stages, each a gate (all errors of a stage are reported together, then it stops):
  compose (compose.py) -> schema (schema.py) -> compile (here: components, constants, vars,
  defines, procedures, scoring; compile_play.py: actions, phases; compile_effects.py: effect
  lists) -> checks (checks.py: graph, references, counts, assertions, unused definitions).

Owns: the Ruleset record and the compilation of every section but what is played. Does not
own play (interpreter/engine/) or the CLI.
"""
from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Optional

from .compile_play import PROVENANCE_KEYS, Action, Phase, PlayCompiler
from .compose import Composed, compose, derive_combinations, find_ruleset
from .engine import effects as fx
from .engine.labels import hide_labels_reading_others
from .errors import Diagnostic, ExpressionError, Pos, RulebookError, suggest
from .expr.builtins import Budget
from .expr.compiler import CodeUnit, Handle, Scope, check_name, text_names
from .expr.names import callees_first
from .expr.proofs import define_proven
from .expr.types import map_attributes
from .loader import Map, Text, expr_pos, key_pos, plain, pos_of, value_pos

__all__ = ["Ruleset", "Action", "Phase", "load", "compile_composed", "ENGINE_VARS", "PROVENANCE_KEYS"]

# Names the engine provides to every expression.
ENGINE_VARS = ("players", "num_players", "current_phase")
DEFAULT_MAX_STEPS = 100_000


@dataclass
class VarDecl:
    """A declared var: per player or not, who may see it, and its initial value or expression."""
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
    chanceless_blocks: list  # simple and drawing nothing (effects.simple_blocks): in place without a seeded RNG too
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
    label_publicity: Any = None  # action id -> its label may be read by all (engine/labels.py)
    labels_reading_hidden: list = field(default_factory=list)  # (pos, var, what): dropped templates (engine/labels.py)
    prompts_reading_hidden: list = field(default_factory=list)  # (pos, var, what): hidden prompt parts (engine/prompts.py)
    reveals_reading_nothing: list = field(default_factory=list)  # (pos, what): a `reveals:` with nothing to reveal (engine/labels.py)
    abouts_reading_hidden: list = field(default_factory=list)  # (pos, var, what, who): hidden parts of view abouts (view/about_reads.py)
    chooses_read: Any = None  # (LabelReads, [(choose as kept, reads of its locals)]) for view/about_reads.py (engine/labels.py)

    @functools.cached_property
    def labels_read_state(self) -> bool:
        """Some action's label template reads the game's state: the Actions a game handed out
        render theirs before it changes (engine/state.py); found once per ruleset."""
        return any(action.label_parts and not action.label_static for action in self.actions.values())

    def new_game(self, players: Optional[int] = None, seed: int = 0, chance: str = "seeded", engine: str = "reference"):
        """Start a game. With chance="manual" the game stops at each chance node
        (State.is_chance / chance_outcomes / apply_chance) instead of using the seeded RNG.
        engine="compiled" plays the ruleset's generated module when it has one (interpreter/compiled)."""
        if engine != "reference":
            return _compiled_new_game()(self, players if players is not None else self.players[0], seed, chance,
                                        engine)
        from .engine import State

        return State.new(self, players if players is not None else self.players[0], seed, chance)


@functools.lru_cache(maxsize=None)
def _compiled_new_game():
    """interpreter.compiled's `new_game`, imported on first use (a `from ... import` in the
    function itself cost a fifth of a compiled tic-tac-toe game's set-up)."""
    from .compiled import new_game

    return new_game


def load(name_or_path, modules=(), *, check: bool = True, settings: Optional[dict] = None) -> Ruleset:
    """`settings` overrides declared settings by name; None takes the command's `--set` ones."""
    from .settings import active_overrides, apply_overrides

    folder = find_ruleset(name_or_path)
    composed = compose(folder, modules)
    composed.overrides = dict(active_overrides() if settings is None else settings)
    apply_overrides(composed.tree, composed.overrides)
    from .schema import validate_files

    validate_files(composed.trees)
    ruleset = compile_composed(composed)
    from .view.spec import compile_view

    ruleset.view = compile_view(ruleset)  # a bad view is a load error, with file:line:col
    if check:
        from .checks import run_checks

        ruleset.warnings = run_checks(ruleset, composed)
    return ruleset


# ----------------------------------------------------------------------------- compile
class _Compiler(PlayCompiler):
    """Compiles a composed tree: components, constants, vars, defines, procedures, scoring and
    assertions here; actions and phases in compile_play.PlayCompiler, effect lists in
    compile_effects.EffectCompiler."""

    def __init__(self, composed: Composed):
        self.composed = composed
        self.tree = composed.tree
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
            handle = self.unit.add_expression(text, scope, lex)
            if isinstance(text, Text):
                handle.pos = pos_of(text)
            else:
                handle.pos = value_pos(where_node, key) if where_node is not None else None
            return handle
        except ExpressionError as error:
            self._expr_error(error, text, where_node, key)
            return None

    def stmt(self, text, scope: Scope) -> Optional[Handle]:
        try:
            handle = self.unit.add_statement(text, scope)
            handle.pos = pos_of(text)
            return handle
        except ExpressionError as error:
            self._expr_error(error, text, None, None)
            return None

    def _expr_error(self, error: ExpressionError, text, node, key):
        if isinstance(text, Text):
            pos = expr_pos(text, error.line, error.column)
        elif node is not None:
            pos = value_pos(node, key)
        else:
            pos = Pos("<expression>", error.line, error.column)
        self.diags.append(Diagnostic(error.code if error.code != "syntax" else "expression", error.message, pos, error.hint))

    # ---------------------------------------------------------------------------------------
    def run(self) -> Ruleset:
        """Compile every section in order (the errors of all of them are reported together)."""
        tree = self.tree
        game = tree.get("game") or Map()
        if not game.get("name"):
            self.err("game", "the game has no name", pos_of(tree.get("game") or tree),
                     "game.yaml needs 'game: {name: ...}'")
        types, attributes = self.compile_components()
        constants = self.compile_constants(types)
        const_types = {typ: ("list", ("entity", typ)) for typ in types}
        vars_scope = self.declare_vars(constants)
        defines_raw = tree.get("define") or {}
        defines = {name: list(spec.get("params") or []) if isinstance(spec, dict) else []
                   for name, spec in defines_raw.items()}
        self.scope = Scope(vars=vars_scope, locals={"player": "number"}, constants=constants, defines=defines,
                           entity_types=attributes, const_types=const_types, map_attributes=map_attributes(self.entities))
        self.unit = CodeUnit(self.scope, self.entities, self.budget)
        self._const_types = const_types  # (so `for c in corp` knows c is a corp)
        base_scope = self.scope
        self.compile_defines(defines_raw, defines, base_scope)
        init_scope = Scope(vars={name: None for name in ENGINE_VARS}, locals={}, constants=constants,
                           defines=defines, entity_types=attributes, const_types=const_types)
        var_decls = self.compile_var_decls(init_scope)
        self.compile_procedures(base_scope)
        actions = {action_id: self.action(action_id, spec, base_scope)
                   for action_id, spec in (tree.get("actions") or {}).items()}
        phases = {phase_id: self.phase(phase_id, spec, base_scope, actions)
                  for phase_id, spec in (tree.get("phases") or {}).items()}
        start = self.start_phase(game, phases)
        end_if = self.expr(game.get("end_if"), base_scope, game, "end_if") if game.get("end_if") is not None else None
        heuristic = (self.expr(game.get("heuristic"), base_scope.with_locals({"p": "number"}), game, "heuristic")
                     if game.get("heuristic") is not None else None)
        scoring = tree.get("scoring") or {}
        rows, tiebreakers = self.compile_scoring(scoring, base_scope.with_locals({"p": "number"}))
        assertions = self.compile_assertions(init_scope, base_scope)
        combos = plain(tree.get("combinations") or [])
        players = _player_counts(game, combos)
        for name, error in self.unit.check_defines():
            self._expr_error(error, None, defines_raw, name)
        if self.diags:
            raise RulebookError(self.diags, "compile")
        self.unit.build(constants)  # functions compile on first call (compiler.py, _materialize)
        self.finish_actions(actions)
        proc_blocks = {name: proc["block"] for name, proc in self.procs.items()}
        return hide_labels_reading_others(Ruleset(
            name=str(game.get("name", os.path.basename(self.composed.folder))),
            title=str(game.get("title", game.get("name", ""))),
            folder=self.composed.folder, modules=self.composed.modules, players=players, start=start,
            components=MappingProxyType(types), entities=MappingProxyType(self.entities),
            vars=var_decls, actions=actions, phases=phases, blocks=self.blocks,
            proc_blocks=proc_blocks, simple_blocks=fx.simple_blocks(self.blocks, proc_blocks),
            chanceless_blocks=fx.simple_blocks(self.blocks, proc_blocks, chance=False), end_if=end_if,
            max_steps=int(game.get("max_steps", DEFAULT_MAX_STEPS)), heuristic=heuristic, assertions=assertions,
            score_rows=rows, tiebreakers=tiebreakers, final_tie=str(scoring.get("final_tie", "shared")),
            combinations=derive_combinations(combos, plain(tree.get("modules") or {}), players),
            module_decls=plain(tree.get("modules") or {}), provenance=_provenance(tree),
            files=self.composed.files, tree=tree, unit=self.unit, budget=self.budget,
            digest=_rules_digest(self.composed), overrides=dict(self.composed.overrides),
            settings={name: constants[name] for name in (tree.get("settings") or {}) if name in constants},
        ))

    def compile_components(self):
        """`self.entities` (id -> record) and (type -> ids, type -> attribute names)."""
        entities: dict = {}
        types: dict = {}
        attributes: dict = {}
        for typ, records in (self.tree.get("components") or {}).items():
            ids = []
            names = set()
            for component_id, record in (records or {}).items():
                if component_id in entities:
                    self.err("duplicate", f"component id '{component_id}' is used by two types",
                             key_pos(records, component_id), "component ids are unique across all types")
                    continue
                fields = _plain_record(record) if record is not None else {}
                entities[component_id] = {"id": component_id, "type": typ, **fields}
                ids.append(component_id)
                names.update(fields.keys())
            types[typ] = tuple(ids)
            attributes[typ] = names | {"id", "type"}
        self.entities = entities
        return types, attributes

    def compile_constants(self, types) -> dict:
        """The constants, each component type as the list of its ids, and the settings."""
        constants = {name: plain(value) for name, value in (self.tree.get("constants") or {}).items()}
        for typ, ids in types.items():
            if typ in constants:
                self.err("duplicate", f"'{typ}' is both a constant and a component type",
                         key_pos(self.tree["constants"], typ))
            constants[typ] = list(ids)
        self.add_settings(constants)
        return constants

    def declare_vars(self, constants) -> dict:
        """The names of the engine's and the ruleset's vars (name -> type, None if unknown)."""
        vars_scope: dict = {name: None for name in ENGINE_VARS}
        vars_scope["players"] = ("list", "number")
        vars_scope["num_players"] = "number"
        declared = self.tree.get("vars") or {}
        for name in declared:
            if name in ENGINE_VARS:
                self.err("reserved", f"'{name}' is provided by the engine", key_pos(declared, name))
                continue
            problem = check_name(name)
            if problem is not None:
                self.err("name", problem[0], key_pos(declared, name), problem[1])
            if name in constants:
                self.err("duplicate", f"'{name}' is both a var and a constant or component type",
                         key_pos(declared, name))
            vars_scope[name] = None
        return vars_scope

    def compile_defines(self, defines_raw, defines, scope) -> None:
        """Compile the named expressions, each after those it calls: a caller's code then knows
        the type of their values (`Scope.define_types`: `n + count(xs)` written in a define is a
        number wherever it is called)."""
        sources = {}
        for name, spec in defines_raw.items():
            source = spec.get("expr") if isinstance(spec, dict) else spec
            sources[name] = ("true" if source else "false") if isinstance(source, bool) else source
        mentioned = {name: [word for word in text_names(str(source)) if word != name]
                     for name, source in sources.items()}
        errors = {}
        for name in callees_first(mentioned):
            try:
                scope.define_types[name], _ = self.unit.add_define(name, defines[name], sources[name],
                                                                   scope.with_locals({}))
                if define_proven(sources[name], defines[name], scope):
                    scope.proven_defines.add(name)
            except ExpressionError as error:
                errors[name] = error
        for name, spec in defines_raw.items():  # (reported in the order of the rule files)
            if name in errors:
                self._expr_error(errors[name], spec.get("expr") if isinstance(spec, dict) else spec, defines_raw, name)
        calls = self.unit.define_calls  # (a cycle is found, and named, in the order of the rule files)
        self.unit.define_calls = {name: calls[name] for name in defines_raw if name in calls}

    def compile_var_decls(self, init_scope) -> dict:
        """name -> VarDecl: per player or not, visibility, and a literal `value` or an `init`."""
        var_decls = {}
        for name, spec in (self.tree.get("vars") or {}).items():
            if name in ENGINE_VARS or spec is None:
                continue
            spec = spec or {}
            declared = VarDecl(name, bool(spec.get("per_player")), str(spec.get("visibility") or "public"))
            if "value" in spec and "init" in spec:
                self.err("var", f"var '{name}' has both 'value' and 'init'", key_pos(spec, "init"),
                         "use 'value' for a literal or 'init' for an expression")
            if "init" in spec:
                scope = init_scope.with_locals({"p": "number"}) if declared.per_player else init_scope
                declared.init = self.expr(spec["init"], scope, spec, "init")
            else:
                declared.value = plain(spec.get("value"))
            if declared.visibility == "owner" and not declared.per_player:
                self.err("var", f"var '{name}' is visible to its 'owner' but is not per_player",
                         value_pos(spec, "visibility"), "add 'per_player: true' or choose another visibility")
            var_decls[name] = declared
        return var_decls

    def compile_procedures(self, scope) -> None:
        """`self.procs` (name -> params, block); every procedure and phase is known before
        any effect compiles, so that effects may call or enter any of them."""
        self.proc_decls = self.tree.get("procedures") or {}
        self.procs: dict = {name: {"params": list(spec.get("params") or []), "block": None}
                            for name, spec in self.proc_decls.items()}
        self.phase_ids = set((self.tree.get("phases") or {}).keys())
        for name, spec in self.proc_decls.items():
            params = self.procs[name]["params"]
            self.procs[name]["block"] = self.block(spec.get("effects") or [], scope.with_locals(params))

    def start_phase(self, game, phases) -> Optional[str]:
        """`game.start`, or the first phase."""
        start = str(game["start"]) if game.get("start") else None
        if not start:
            start = next(iter(phases), None)
            if start is None:
                self.err("phases", "the game has no phases", pos_of(self.tree), "add a 'phases:' section")
        elif start not in phases:
            self.err("reference", f"start phase '{start}' is not defined", value_pos(game, "start"),
                     suggest(start, phases))
        return start

    def compile_scoring(self, scoring, scope):
        """[(id, label, Handle)] of the score rows and [(label, Handle)] of the tie-breakers."""
        rows = []
        for row_id, row in (scoring.get("rows") or {}).items():
            if row is None:
                continue
            if isinstance(row, dict):
                rows.append((row_id, row.get("label", row_id), self.expr(row.get("expr"), scope, row, "expr")))
            else:
                rows.append((row_id, row_id, self.expr(row, scope, scoring["rows"], row_id)))
        tiebreakers = []
        for index, tiebreaker in enumerate(scoring.get("tiebreakers") or []):
            if isinstance(tiebreaker, dict):
                source, label = tiebreaker.get("expr"), tiebreaker.get("label", f"tie-breaker {index + 1}")
            else:
                source, label = tiebreaker, str(tiebreaker)
            tiebreakers.append((label, self.expr(source, scope, scoring["tiebreakers"], index)))
        return rows, tiebreakers

    def compile_assertions(self, init_scope, scope) -> list:
        """[(when, Handle, message, pos)]; a `static` assertion reads only the initial values."""
        assertions = []
        for assertion in self.tree.get("assertions") or []:
            when = assertion.get("when", "static")
            handle = self.expr(assertion.get("expect"), init_scope if when == "static" else scope, assertion, "expect")
            assertions.append((when, handle, assertion.get("message") or str(assertion.get("expect")),
                               value_pos(assertion, "expect")))
        return assertions

    def add_settings(self, constants: dict) -> None:
        """Settings are read by name like constants (their values after any override)."""
        from .settings import setting_values

        for name, value in setting_values(self.tree).items():
            if name in constants:
                self.err("duplicate", f"'{name}' is both a setting and a constant or component type",
                         key_pos(self.tree["settings"], name), "rename one of them")
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
    record_plain = plain(rec)
    _RECORDS[id(rec)] = (rec, record_plain)
    return record_plain


def _player_counts(game, combos) -> tuple:
    """`game.players`, or else every count a combination names, or else (2,)."""
    players = tuple(game.get("players") or [])
    if not players:
        players = tuple(sorted({count for combo in combos for count in combo.get("players", [])})) or (2,)
    return players


def _provenance(tree) -> dict:
    """Counts of definitions by provenance: rulebook (source), reconstructed, interpretation,
    or none, per section."""
    out: dict = {}

    def visit(section, spec):
        if not isinstance(spec, dict):
            return
        kind = "unmarked"
        if spec.get("interpretation"):
            kind = "interpretation"
        elif spec.get("reconstructed"):
            kind = "reconstructed"
        elif spec.get("source"):
            kind = "rulebook"
        out.setdefault(section, {}).setdefault(kind, 0)
        out[section][kind] += 1

    for section in ("vars", "define", "procedures", "actions", "phases"):
        for _, definition in (tree.get(section) or {}).items():
            visit(section, definition)
    for typ, defs in (tree.get("components") or {}).items():
        for _, definition in (defs or {}).items():
            visit(f"components.{typ}", definition)
    return out


def _rules_digest(composed: Composed) -> str:
    """A fingerprint of the rules: the modules chosen and every file read, by its path inside
    the ruleset folder and the digest of its bytes. Two loads of unchanged files agree."""
    digest = hashlib.sha256()
    digest.update(("modules:" + ",".join(composed.modules) + "\n").encode())
    if composed.overrides:
        digest.update(("settings:" + repr(sorted(composed.overrides.items())) + "\n").encode())
    for display, tree in composed.trees:
        rel = os.path.relpath(os.path.abspath(display), composed.folder)
        digest.update(f"{rel}:{getattr(tree, 'digest', None) or ''}\n".encode())
    return digest.hexdigest()[:16]


def compile_composed(composed: Composed) -> Ruleset:
    # procedures must know phase ids and each other before effects compile
    compiler = _Compiler(composed)
    return compiler.run()
