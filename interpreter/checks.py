"""Consistency checks beyond the schema, on a compiled ruleset.

Owns: the phase graph checks (on `phase_edges`; networkx only builds the graph that is drawn),
static assertions (numbers the rulebook states), set-up assertions for every allowed player
count, unused-definition warnings, labels dropped for reading what their mover may not see
(`label-reads-hidden`), prompts that may (`prompt-reads-hidden`), `reveals:` with nothing hidden
to show (`reveals-nothing`), parts of a view's `about:` that may read what a reader may not see
(`about-reads-hidden`), and the provenance report. Errors raise RulebookError; warnings are
returned.
"""
from __future__ import annotations

import re

from .engine import effects as fx
from .engine.declared import declared_bounds, off_declared
from .errors import Diagnostic, RuleRuntimeError, RulebookError
from .loader import Text, expr_pos, key_pos, pos_of, value_pos

__all__ = ["phase_graph", "phase_edges", "run_checks"]


def phase_graph(ruleset):
    """The top-level phase graph (a networkx DiGraph, for drawing): an edge per `next` entry
    and per `enter`."""
    import networkx as nx

    graph = nx.DiGraph()
    for phase_id, phase in ruleset.phases.items():
        graph.add_node(phase_id, kind=phase.kind, label=phase.label)
    graph.add_node("end", kind="end", label="end")
    for source, target, data in phase_edges(ruleset):
        graph.add_edge(source, target, **data)
    return graph


def phase_edges(ruleset) -> list:
    """The edges of the phase graph as (phase, target, data): data is `{"condition": text or
    None}` for a `next` entry, `{"kind": "enter"}` for an `enter`. (The checks walk these
    directly: importing networkx alone was a fifth of a `simulate` start-up.)"""
    edges = []
    for phase_id, phase in ruleset.phases.items():
        for target, condition in phase.next:
            if target == "return":
                continue
            edges.append((phase_id, target, {"condition": condition.source if condition is not None else None}))
        for block in _blocks_of(phase):
            for sub in _entered(ruleset, block, set()):
                edges.append((phase_id, sub, {"kind": "enter"}))
        for sub in _action_enters(ruleset, phase):  # an action of the phase enters a sub-phase
            edges.append((phase_id, sub, {"kind": "enter"}))
    return edges


def _descendants(successors: dict, start) -> set:
    """Every phase reachable from `start` by one edge or more (`start` itself only on a cycle)."""
    found: set = set()
    todo = list(successors.get(start, ()))
    while todo:
        phase_id = todo.pop()
        if phase_id not in found:
            found.add(phase_id)
            todo.extend(successors.get(phase_id, ()))
    return found


def _blocks_of(phase):
    return [block for block in (phase.enter_block, phase.exit_block, phase.turn_block, phase.round_block)
            if block is not None]


def _entered(ruleset, block, seen):
    """Phases entered (with `enter`) from a block, through nested blocks and procedures."""
    if block in seen:
        return set()
    seen.add(block)
    out = set()
    for effect in ruleset.blocks[block]:
        if isinstance(effect, fx.Enter):
            out.add(effect.phase)
        elif isinstance(effect, fx.If):
            out |= _entered(ruleset, effect.then_block, seen)
            if effect.else_block is not None:
                out |= _entered(ruleset, effect.else_block, seen)
        elif isinstance(effect, fx.For):
            out |= _entered(ruleset, effect.body, seen)
        elif isinstance(effect, fx.Call):
            out |= _entered(ruleset, ruleset.proc_blocks[effect.procedure], seen)
    return out


def _action_enters(ruleset, phase):
    out = set()
    for action_id in phase.actions:
        out |= _entered(ruleset, ruleset.actions[action_id].block, set())
    return out


def _attribute_diagnostics(ruleset, tree) -> list:
    """`c.sectr` and its kind, found by the compiler's static types (expr/attributes.py): one error
    per place, at the attribute's file:line:col, with "did you mean"."""
    from .expr.attributes import attribute_problems
    from .refs import known_attributes

    out = []
    for source, error in attribute_problems(ruleset.unit, known_attributes(tree)):
        if isinstance(source, Text):
            out.append(Diagnostic("attribute", error.message, expr_pos(source, error.line, error.column), error.hint))
    return out


def run_checks(ruleset, composed) -> list:
    """Raise RulebookError with every error of a stage (references and the phase graph and
    static assertions, then the set-up of each player count); return the warnings."""
    from .refs import check_references

    errors: list = []
    warnings: list = []
    tree = composed.tree
    for found in check_references(tree):
        (warnings if found.severity == "warning" else errors).append(found)
    errors.extend(_attribute_diagnostics(ruleset, tree))
    errors.extend(_graph_diagnostics(ruleset, tree.get("phases") or {}))
    errors.extend(_static_assertion_diagnostics(ruleset))
    if errors:
        raise RulebookError(errors, "checks")
    errors.extend(_setup_diagnostics(ruleset, tree))
    if errors:
        raise RulebookError(errors, "checks")
    from .costs import unpayable_cost_warnings
    from .deadrules import dead_rule_warnings

    warnings.extend(dead_rule_warnings(ruleset))
    warnings.extend(unpayable_cost_warnings(ruleset))
    warnings.extend(_unused_warnings(ruleset, tree))
    warnings.extend(decision_bound_warnings(ruleset))
    warnings.extend(listed_off_bound_warnings(ruleset))
    warnings.extend(label_warnings(ruleset))
    warnings.extend(prompt_warnings(ruleset))
    warnings.extend(reveals_warnings(ruleset))
    warnings.extend(about_warnings(ruleset))
    return warnings


def label_warnings(ruleset) -> list:
    """Label templates dropped because they may read a var hidden from the mover
    (engine/labels.py `hide_labels_reading_others`): the move reads as its plain label."""
    return [Diagnostic("label-reads-hidden", f"{what} may read '{var}' (itself, or through a define or a "
                       "local bound from it) where its mover may not see it: every player, the mover too, reads the "
                       "move by its plain label", pos,
                       f"read only the mover's own slot of '{var}' ('{var}[player]' in an action's label), "
                       "public vars and the move's own values",
                       severity="warning") for pos, var, what in ruleset.labels_reading_hidden]


def prompt_warnings(ruleset) -> list:
    """Parts of `choose` prompts shown as `?` because they may read a var hidden from the decider
    (engine/prompts.py `hide_prompt_reading_others`)."""
    return [Diagnostic("prompt-reads-hidden", f"{what} may read '{var}' (itself, or through a define or a "
                       "local bound from it) where its decider may not see it: every view shows '?' there", pos,
                       f"read only the decider's own slot of '{var}', public vars and what the decider "
                       "chose, or name the value in an option label of the decider's own",
                       severity="warning") for pos, var, what in ruleset.prompts_reading_hidden]


def reveals_warnings(ruleset) -> list:
    """`reveals:` on a `choose` whose prompt and option labels read nothing hidden from its
    decider (engine/labels.py): a stale mark, or one on the wrong `choose`."""
    return [Diagnostic("reveals-nothing", f"{what} says it reveals something ('reveals:'), but neither its prompt nor "
                       "its option labels may read a var hidden from its decider", pos,
                       "remove 'reveals:', or move it to the choose whose prompt shows the secret",
                       severity="warning") for pos, what in ruleset.reveals_reading_nothing]


def about_warnings(ruleset) -> list:
    """Parts of a view's `decisions:` `about:` templates shown as `?` to a reader they may show
    a var hidden from (view/about_reads.py)."""
    return [Diagnostic("about-reads-hidden", f"{what} may read '{var}' (itself, or through a define or a "
                       f"local bound from it) where {who} may not see it: they read '?' there", pos,
                       f"read only the decider's own slot of '{var}' and public values, or say `reveals:` on "
                       "the choose if its decider may read it (the others never do)",
                       severity="warning") for pos, var, what, who in ruleset.abouts_reading_hidden]


def decision_bound_warnings(ruleset) -> list:
    """Decisions sharing an answer name and prompt of which only some declare `min`/`max`/`step`:
    the research adapters tell decisions apart by those two only, so they cannot check the
    answers of any of them (play checks each `choose` against its own)."""
    places: dict = {}
    for block in ruleset.blocks:
        for effect in block:
            if isinstance(effect, fx.Choose):
                places.setdefault((effect.bind, effect.prompt), []).append(effect)
    warnings = []
    for (bind, prompt), effects in places.items():
        declared = [effect for effect in effects if effect.declared is not None]
        for effect in effects if declared else ():
            if effect.declared is None:
                warnings.append(Diagnostic(
                    "decision-bounds", f"decision '{bind}' ({prompt}) declares no min/max/step here, but it does at "
                    f"{declared[0].pos}: the research adapters tell the two apart by answer name and prompt only, so "
                    "they check neither's answers", effect.pos, "declare the same bound here, or give it another prompt",
                    severity="warning"))
    return warnings


def listed_off_bound_warnings(ruleset) -> list:
    """Decisions and parameters whose numbers the rules compute from settings and constants
    alone (`range(0, 41, opening_step)`) and that list one off the `min`/`max`/`step` they
    declare: play stops with a rule error wherever they are listed (engine/declared.py), said
    here before a game is played. (A parameter another requirement may filter is left to play.)"""
    fixed = set(ruleset.settings or {}) | set((ruleset.tree or {}).get("constants") or {})
    listed = [(effect.options, effect.declared) for block in ruleset.blocks for effect in block
              if isinstance(effect, (fx.Choose, fx.ChooseTogether)) and effect.declared is not None
              and effect.count is None]
    listed += [(handle, action.declared[name]) for action in ruleset.actions.values() if action.declared
               and not any(action.req_levels[1:]) for name, handle in action.params if name in action.declared]
    warnings = []
    for handle, declared in listed:
        if not all(set(part.names or ()) <= fixed for part in (handle, *declared.handles) if part is not None):
            continue
        try:
            ruleset.budget.reset()
            bounds = declared_bounds(declared, {}, {})
            reason = next(filter(None, (off_declared(declared, value, bounds) for value in handle.fn({}, {}))), None)
        except (RuleRuntimeError, *fx.ENGINE_ERRORS):
            continue  # play says what fails
        if reason is not None:
            warnings.append(Diagnostic("declared-bounds", f"{reason}, but the rules list it: play stops there with a "
                                       "rule error", declared.pos, "make the rules keep the bound, or declare the one "
                                       "they keep", severity="warning"))
    return warnings


def _graph_diagnostics(ruleset, phases_node) -> list:
    """Phases that cannot be reached, have no `next`, branch without a default or never reach
    the end of the game."""
    if ruleset.start not in ruleset.phases:
        return []
    found = []
    edges = phase_edges(ruleset)
    successors: dict = {}
    for source, target, _ in edges:
        successors.setdefault(source, []).append(target)
    entered = {target for _, target, data in edges if data.get("kind") == "enter"}
    reach = _descendants(successors, ruleset.start) | {ruleset.start}
    # phases entered from procedures are reachable from wherever the procedure is used
    for phase_id in ruleset.phases:
        if phase_id not in reach and phase_id not in entered and not _entered_by_procedure(ruleset, phase_id):
            found.append(Diagnostic("unreachable", f"phase '{phase_id}' can never be reached from '{ruleset.start}'",
                                    key_pos(phases_node, phase_id), "add a 'next' that leads here, or remove it"))
    for phase_id in sorted(phase_id for phase_id in reach if phase_id in ruleset.phases):
        phase = ruleset.phases[phase_id]
        if phase.kind == "end" or (phase_id in entered and all(target == "return" for target, _ in phase.next)):
            continue
        if not phase.next:
            if not (phase_id in entered or _entered_by_procedure(ruleset, phase_id)):
                found.append(Diagnostic("dead-end", f"phase '{phase_id}' has no 'next'",
                                        key_pos(phases_node, phase_id), "add 'next: end' to end the game here"))
            continue
        conditions = [condition for _, condition in phase.next]
        if any(condition is not None for condition in conditions) and conditions[-1] is not None:
            found.append(Diagnostic("no-default", f"phase '{phase_id}' branches but its last exit has a condition",
                                    value_pos(phases_node[phase_id], "next"),
                                    "make the last entry of 'next' an unconditional default"))
        after = _descendants(successors, phase_id)
        ends = "end" in after or any(ruleset.phases.get(target) is not None and ruleset.phases[target].kind == "end"
                                     for target in after)
        if not ends and phase_id not in entered:
            found.append(Diagnostic("no-end", f"phase '{phase_id}' can never reach the end of the game",
                                    key_pos(phases_node, phase_id),
                                    "give some phase on its way a 'next' that leads to 'end'"))
    return found


def _static_assertion_diagnostics(ruleset) -> list:
    """The `static` assertions (numbers the rulebook states) that fail or cannot be evaluated."""
    found = []
    const_vars = {"num_players": 0, "players": [], "current_phase": None}
    for when, handle, message, pos in ruleset.assertions:
        if when != "static" or handle is None:
            continue
        try:
            ruleset.budget.reset()
            holds = handle.fn(const_vars, {})
        except RuleRuntimeError as error:
            found.append(Diagnostic("assertion", f"assertion could not be evaluated: {error}", pos))
            continue
        if not holds:
            found.append(Diagnostic("assertion", f"assertion failed: {message}"
                                    + _count_detail(ruleset, handle, const_vars),
                                    pos, "the data disagrees with a number the rulebook states"))
    return found


def _setup_diagnostics(ruleset, tree) -> list:
    """A smoke start for each allowed player count, and the `setup` assertions on it."""
    from .state import State

    found = []
    for count in ruleset.players:
        try:
            state = State.new(ruleset, count, 0)
        except RuleRuntimeError as error:
            found.append(Diagnostic("setup", f"the game cannot start with {count} players: {error}",
                                    error.pos or pos_of(tree)))
            continue
        for when, handle, message, pos in ruleset.assertions:
            if when != "setup" or handle is None:
                continue
            try:
                ruleset.budget.reset()
                holds = handle.fn(state.vars, {})
            except RuleRuntimeError as error:
                found.append(Diagnostic("assertion", f"with {count} players, assertion could not be evaluated: "
                                        f"{error}", pos))
                continue
            if not holds:
                found.append(Diagnostic("assertion", f"with {count} players, assertion failed: {message}", pos))
    return found


def _unused_warnings(ruleset, tree) -> list:
    """A define or var never read, a procedure never called, an action no phase offers."""
    define_names = _define_names_used(ruleset)
    used = set()
    for handle in ruleset.unit.pending:
        used |= set(handle.names or ())
    called = {effect.procedure for block in ruleset.blocks for effect in block if isinstance(effect, fx.Call)}
    offered = {action_id for phase in ruleset.phases.values() for action_id in phase.actions}
    warnings = []
    for section in ("define", "vars", "procedures", "actions"):
        for name in (tree.get(section) or {}):
            if section == "actions":
                message = None if name in offered else f"action '{name}' is offered by no phase"
            elif section == "procedures":
                message = None if name in called else f"procedure '{name}' is never used"
            elif name not in used and name not in define_names:
                message = f"{'define' if section == 'define' else 'var'} '{name}' is never used"
            else:
                message = None
            if message:
                warnings.append(Diagnostic("unused", message, key_pos(tree[section], name), severity="warning"))
    return warnings


def _define_names_used(ruleset):
    """Every word in the text of a define or a var's `init` (a name read there is used)."""
    names = set()
    for spec in (ruleset.tree.get("define") or {}).values():
        source = spec.get("expr") if isinstance(spec, dict) else spec
        names |= set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", str(source)))
    for spec in (ruleset.tree.get("vars") or {}).values():
        if isinstance(spec, dict) and "init" in spec:
            names |= set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", str(spec["init"])))
    return names


def _entered_by_procedure(ruleset, phase_id):
    return any(isinstance(effect, fx.Enter) and effect.phase == phase_id
               for block in ruleset.blocks for effect in block)


_COUNT = re.compile(r"^\s*(len|count)\((.+)\)\s*==\s*(\d+)\s*$", re.S)


def _count_detail(ruleset, handle, variables) -> str:
    """For a failed `len(LIST) == N` (or `count(...) == N`): the number found and the items
    beyond N (or how many are missing), e.g. "; found 13: the one beyond 12 is corp_obay"."""
    match = _COUNT.match(str(handle.source))
    if not match:
        return ""
    inner, stated = match.group(2), int(match.group(3))
    if match.group(1) == "count":
        inner = f"[{inner}]" if not inner.lstrip().startswith("[") else inner
    try:
        from .expr.compiler import CodeUnit

        unit = CodeUnit(ruleset.unit.scope.with_locals({}), ruleset.entities, ruleset.budget)
        probe = unit.add_expression(inner)
        namespace = unit.build(ruleset.unit.ns["_K"])
        for name, function in ruleset.unit.ns.items():
            if name.startswith("d_") and name not in namespace:
                namespace[name] = function
        ruleset.budget.reset()
        items = probe.fn(variables, {})
    except Exception:  # noqa: BLE001 - the detail is a courtesy; the failure is reported anyway
        return ""
    if not isinstance(items, (list, tuple)):
        return ""
    found = len(items)
    if found > stated:
        extra = [str(x) for x in items[stated:]]
        shown = ", ".join(extra[:10]) + (" …" if len(extra) > 10 else "")
        return f"; found {found}, {found - stated} beyond the stated {stated}: {shown}"
    return f"; found {found}, {stated - found} fewer than the stated {stated}"
