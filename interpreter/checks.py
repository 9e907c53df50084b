"""Consistency checks beyond the schema, on a compiled ruleset.

Owns: the phase graph (networkx) checks, static assertions (numbers the rulebook states),
set-up assertions for every allowed player count, unused-definition warnings, and the
provenance report. Errors raise RulebookError; warnings are returned.
"""
from __future__ import annotations

import re

from .engine import effects as fx
from .errors import Diagnostic, RuleRuntimeError, RulebookError
from .loader import Text, expr_pos, key_pos, pos_of, value_pos

__all__ = ["phase_graph", "run_checks"]


def phase_graph(rs):
    """The top-level phase graph: an edge per `next` entry and per `enter`."""
    import networkx as nx

    g = nx.DiGraph()
    for pid, ph in rs.phases.items():
        g.add_node(pid, kind=ph.kind, label=ph.label)
    g.add_node("end", kind="end", label="end")
    for pid, ph in rs.phases.items():
        for target, cond in ph.next:
            if target == "return":
                continue
            g.add_edge(pid, target, condition=cond.source if cond is not None else None)
        for b in _blocks_of(ph):
            for sub in _entered(rs, b, set()):
                g.add_edge(pid, sub, kind="enter")
        for sub in _action_enters(rs, ph):  # an action of the phase enters a sub-phase
            g.add_edge(pid, sub, kind="enter")
    return g


def _blocks_of(ph):
    return [b for b in (ph.enter_block, ph.exit_block, ph.turn_block, ph.round_block) if b is not None]


def _entered(rs, block, seen):
    """Phases entered (with `enter`) from a block, through nested blocks and procedures."""
    if block in seen:
        return set()
    seen.add(block)
    out = set()
    for op in rs.blocks[block]:
        if isinstance(op, fx.Enter):
            out.add(op.phase)
        elif isinstance(op, fx.If):
            out |= _entered(rs, op.then_block, seen)
            if op.else_block is not None:
                out |= _entered(rs, op.else_block, seen)
        elif isinstance(op, fx.For):
            out |= _entered(rs, op.body, seen)
        elif isinstance(op, fx.Call):
            out |= _entered(rs, rs.proc_blocks[op.procedure], seen)
    return out


def _action_enters(rs, ph):
    out = set()
    for a in ph.actions:
        out |= _entered(rs, rs.actions[a].block, set())
    return out


def _attribute_diagnostics(rs, tree) -> list:
    """`c.sectr` and its kind, found by the compiler's static types (expr/attributes.py): one error
    per place, at the attribute's file:line:col, with "did you mean"."""
    from .expr.attributes import attribute_problems
    from .refs import known_attributes

    out = []
    for source, error in attribute_problems(rs.unit, known_attributes(tree)):
        if isinstance(source, Text):
            out.append(Diagnostic("attribute", error.message, expr_pos(source, error.line, error.column), error.hint))
    return out


def run_checks(rs, composed) -> list:
    import networkx as nx

    diags: list = []
    warnings: list = []
    tree = composed.tree
    phases_node = tree.get("phases") or {}
    from .refs import check_references

    for found in check_references(tree):
        (warnings if found.severity == "warning" else diags).append(found)
    diags.extend(_attribute_diagnostics(rs, tree))
    g = phase_graph(rs)
    entered = {v for _, v, d in g.edges(data=True) if d.get("kind") == "enter"}
    if rs.start in rs.phases:
        reach = nx.descendants(g, rs.start) | {rs.start}
        # phases entered from procedures are reachable from wherever the procedure is used
        for pid in rs.phases:
            if pid not in reach and pid not in entered and not _entered_by_procedure(rs, pid):
                diags.append(Diagnostic("unreachable", f"phase '{pid}' can never be reached from '{rs.start}'",
                                        key_pos(phases_node, pid), "add a 'next' that leads here, or remove it"))
        top = {pid for pid in reach if pid in rs.phases}
        for pid in sorted(top):
            ph = rs.phases[pid]
            if ph.kind == "end":
                continue
            if pid in entered and all(t == "return" for t, _ in ph.next):
                continue
            if not ph.next:
                if pid in entered or _entered_by_procedure(rs, pid):
                    continue
                diags.append(Diagnostic("dead-end", f"phase '{pid}' has no 'next'", key_pos(phases_node, pid),
                                        "add 'next: end' to end the game here"))
                continue
            conds = [c for _, c in ph.next]
            if any(c is not None for c in conds) and conds[-1] is not None:
                diags.append(Diagnostic("no-default", f"phase '{pid}' branches but its last exit has a condition",
                                        value_pos(phases_node[pid], "next"),
                                        "make the last entry of 'next' an unconditional default"))
            if not (nx.has_path(g, pid, "end") or any(rs.phases.get(t) is not None and rs.phases[t].kind == "end" for t in nx.descendants(g, pid))):
                if pid not in entered:
                    diags.append(Diagnostic("no-end", f"phase '{pid}' can never reach the end of the game",
                                            key_pos(phases_node, pid),
                                            "give some phase on its way a 'next' that leads to 'end'"))
    # static assertions
    const_vars = {"num_players": 0, "players": [], "current_phase": None}
    for when, h, message, pos in rs.assertions:
        if when != "static" or h is None:
            continue
        try:
            rs.budget.reset()
            ok = h.fn(const_vars, {})
        except RuleRuntimeError as e:
            diags.append(Diagnostic("assertion", f"assertion could not be evaluated: {e}", pos))
            continue
        if not ok:
            diags.append(Diagnostic("assertion", f"assertion failed: {message}" + _count_detail(rs, h, const_vars),
                                    pos, "the data disagrees with a number the rulebook states"))
    if diags:
        raise RulebookError(diags, "checks")
    # set-up assertions and a smoke start for each allowed player count
    from .state import State

    for n in rs.players:
        try:
            st = State.new(rs, n, 0)
        except RuleRuntimeError as e:
            diags.append(Diagnostic("setup", f"the game cannot start with {n} players: {e}", e.pos or pos_of(tree)))
            continue
        for when, h, message, pos in rs.assertions:
            if when != "setup" or h is None:
                continue
            try:
                rs.budget.reset()
                ok = h.fn(st.vars, {})
            except RuleRuntimeError as e:
                diags.append(Diagnostic("assertion", f"with {n} players, assertion could not be evaluated: {e}", pos))
                continue
            if not ok:
                diags.append(Diagnostic("assertion", f"with {n} players, assertion failed: {message}", pos))
    if diags:
        raise RulebookError(diags, "checks")
    from .costs import unpayable_cost_warnings
    from .deadrules import dead_rule_warnings

    warnings.extend(dead_rule_warnings(rs))
    warnings.extend(unpayable_cost_warnings(rs))
    # unused definitions
    define_names = _define_names_used(rs)
    used = set()
    for h in rs.unit.pending:
        used |= set(h.names or ())
    called = {op.procedure for b in rs.blocks for op in b if isinstance(op, fx.Call)}
    offered = {a for ph in rs.phases.values() for a in ph.actions}
    for section in ("define", "vars", "procedures", "actions"):
        for name in (tree.get(section) or {}):
            if section == "actions":
                if name not in offered:
                    warnings.append(Diagnostic("unused", f"action '{name}' is offered by no phase",
                                               key_pos(tree[section], name), severity="warning"))
            elif section == "procedures":
                if name not in called:
                    warnings.append(Diagnostic("unused", f"procedure '{name}' is never used",
                                               key_pos(tree[section], name), severity="warning"))
            elif name not in used and name not in define_names:
                warnings.append(Diagnostic("unused", f"{'define' if section == 'define' else 'var'} '{name}' is never used",
                                           key_pos(tree[section], name), severity="warning"))
    return warnings


def _define_names_used(rs):
    cache = getattr(rs, "_define_names_cache", None)
    if cache is None:
        import re

        cache = set()
        for name, d in (rs.tree.get("define") or {}).items():
            src = d.get("expr") if isinstance(d, dict) else d
            cache |= set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", str(src)))
        for name, d in (rs.tree.get("vars") or {}).items():
            if isinstance(d, dict) and "init" in d:
                cache |= set(re.findall(r"[A-Za-z][A-Za-z0-9_]*", str(d["init"])))
    return cache


def _entered_by_procedure(rs, pid):
    return any(isinstance(op, fx.Enter) and op.phase == pid for b in rs.blocks for op in b)


_COUNT = re.compile(r"^\s*(len|count)\((.+)\)\s*==\s*(\d+)\s*$", re.S)


def _count_detail(rs, handle, variables) -> str:
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

        unit = CodeUnit(rs.unit.scope.with_locals({}), rs.entities, rs.budget)
        probe = unit.add_expression(inner)
        namespace = unit.build(rs.unit.ns["_K"])
        for name, fn in rs.unit.ns.items():
            if name.startswith("d_") and name not in namespace:
                namespace[name] = fn
        rs.budget.reset()
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
