"""Scenarios: a ruleset's `examples/*.yaml`, the rulebook's worked examples as executable
checks. A scenario sets up a game, optionally arranges the state, plays actions and asserts
expressions. `rulebook check` runs them all and ends with `N passed, N failed`.

Scenario file keys:
  name, source            what it is and where the rulebook gives it
  players, seed, modules  how the game is started (modules add to the check's modules)
  chance                  optional: the outcomes of the game's chance events, in order (e.g.
                          [4, 2] for two dice, or the cards a shuffle puts last, then next to
                          last, ...); the game is then played with chance="manual" and each
                          chance node takes the next outcome from the list
  setup                   assignments run after the game's set-up, e.g. "stake['c1'] = {'0': 3}"
  phase                   optional: jump to this phase (its on_enter runs) after `setup`
  steps                   a list; each item is one of
                            - "label"                      a legal action by its label
                            - {action: id, args: {...}}    a legal action by id and arguments
                            - {choose: value}              the answer to a pending decision
                            - {refused: <step>, code: c}   a step that must be refused
                            - {expect: expr}               an assertion at this point
                            - {set: "assignment"}          arrange the state mid-way
  expect                  expressions that must all be true at the end (names: the game's
                          vars and constants, plus `scores` {player: total}, `winners`,
                          `phase`, `current`, `pending_options`)
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from typing import Optional

from .errors import ExpressionError, RuleRuntimeError, RulebookError
from .loader import Text, expr_pos, load_file, plain, pos_of

__all__ = ["run_scenarios", "ScenarioResult"]


@dataclass
class ScenarioResult:
    file: str
    name: str
    ok: bool
    messages: list = field(default_factory=list)


EXPECT_LOCALS = {"scores": None, "winners": None, "phase": None, "current": None,
                 "pending_options": None, "player": None}


def _compile(rs, text, kind="expression"):
    from .expr.compiler import CodeUnit

    unit = CodeUnit(rs.unit.scope.with_locals(EXPECT_LOCALS), rs.entities, rs.budget)
    if kind == "expression":
        h = unit.add_expression(text)
    else:
        h = unit.add_statement(text)
    ns = unit.build(rs.unit.ns["_K"])
    # the ruleset's named expressions (compiled in its own unit) are callable here too
    for name, fn in rs.unit.ns.items():
        if name.startswith("d_") and name not in ns:
            ns[name] = fn
    return h.fn


def run_scenarios(target, modules=(), only: Optional[str] = None):
    from . import load
    from .compose import find_ruleset

    folder = find_ruleset(target)
    files = sorted(glob.glob(os.path.join(folder, "examples", "*.yaml")))
    results = []
    cache = {}
    for f in files:
        shown = os.path.relpath(f)
        if only and only not in os.path.basename(f):
            continue
        try:
            sc = load_file(f, shown)
        except RulebookError as e:
            results.append(ScenarioResult(shown, os.path.basename(f), False, [e.render()]))
            continue
        scenarios = sc if isinstance(sc, list) else [sc]
        for i, s in enumerate(scenarios):
            name = str(s.get("name", f"{os.path.basename(f)}#{i + 1}"))
            mods = tuple(sorted(set(modules) | set(s.get("modules") or [])))
            try:
                if mods not in cache:
                    cache[mods] = load(folder, modules=list(mods), check=False)
                rs = cache[mods]
                results.append(_run_one(rs, s, shown, name))
            except RulebookError as e:
                results.append(ScenarioResult(shown, name, False, [e.render()]))
    return results


def _where(node, shown):
    p = pos_of(node)
    return f"{p}" if p.line else shown


def _expect(rs, st, text, shown):
    try:
        fn = _compile(rs, text)
    except ExpressionError as e:
        p = expr_pos(text, e.line, e.column) if isinstance(text, Text) else shown
        return f"{p}: cannot compile {text!r}: {e.message}" + (f" ({e.hint})" if e.hint else "")
    L = _locals(st)
    try:
        rs.budget.reset()
        ok = fn(st.vars, L)
    except RuleRuntimeError as e:
        return f"{_where(text, shown)}: {text!r} failed: {e}"
    if not ok:
        return f"{_where(text, shown)}: expected {text!r} to hold" + _explain(rs, st, text)
    return None


def _explain(rs, st, text):
    # show the values of the plain names in a failed expectation, to make it actionable
    import re

    names = sorted(set(re.findall(r"\b[a-z_][a-z0-9_]*\b", str(text))) & set(st.vars))
    if not names:
        return ""
    parts = []
    for n in names[:4]:
        val = repr(st.vars[n])
        parts.append(f"{n} = {val if len(val) < 200 else val[:197] + '...'}")
    return " (" + "; ".join(parts) + ")"


def _locals(st):
    sc = {}
    try:
        sc = {p: s["total"] for p, s in st.scores().items()}
    except RuleRuntimeError:
        pass
    pend = st.pending
    return {"scores": sc, "winners": st.winners() if st.is_terminal else [], "phase": st.phase,
            "current": st.current_player, "pending_options": pend["options"] if pend else [],
            "player": st.current_player}


def _find_action(st, step):
    from .engine.values import Action, freeze as _freeze

    legal = st.legal_actions()
    if isinstance(step, str):
        m = [a for a in legal if a.label == step]
        return (m[0] if m else None), step
    if "choose" in step:
        val = _freeze(plain(step["choose"]))
        m = [a for a in legal if a.name == "choose" and dict(a.args).get("value") == val]
        return (m[0] if m else Action("choose", {"value": plain(step["choose"])}, st.current_player)), f"choose {plain(step['choose'])!r}"
    if "action" in step:
        a = Action(str(step["action"]), plain(step.get("args") or {}), st.current_player)
        return a, a.label
    return None, repr(plain(step))


def _run_one(rs, s, shown, name) -> ScenarioResult:
    from .engine import State

    msgs = []
    players = int(s.get("players", rs.players[0]))
    script = None
    if s.get("chance") is not None:
        script = plain(s["chance"])
        if not isinstance(script, list):
            return ScenarioResult(shown, name, False, [f"{_where(s['chance'], shown)}: 'chance' is a list of outcomes"])
    try:
        st = State.new(rs, players, int(s.get("seed", 0)), "manual" if script is not None else "seeded")
    except RuleRuntimeError as e:
        return ScenarioResult(shown, name, False, [f"set-up failed: {e}"])
    err = _settle_chance(st, script, s, shown)
    if err:
        return ScenarioResult(shown, name, False, [err])
    for stmt in s.get("setup") or []:
        err = _assign(rs, st, stmt, shown)
        if err:
            return ScenarioResult(shown, name, False, [err])
    if s.get("phase"):
        pid = str(s["phase"])
        if pid not in rs.phases:
            return ScenarioResult(shown, name, False, [f"{_where(s['phase'], shown)}: unknown phase '{pid}'"])
        try:
            st.enter_phase(pid)
        except RuleRuntimeError as e:
            return ScenarioResult(shown, name, False, [f"entering phase '{pid}' failed: {e}"])
        err = _settle_chance(st, script, s, shown)
        if err:
            return ScenarioResult(shown, name, False, [err])
    for step in s.get("steps") or []:
        if isinstance(step, dict) and "expect" in step:
            m = _expect(rs, st, step["expect"], shown)
            if m:
                msgs.append(m)
            continue
        if isinstance(step, dict) and "set" in step:
            err = _assign(rs, st, step["set"], shown)
            if err:
                msgs.append(err)
                break
            st.touched()
            continue
        if isinstance(step, dict) and "refused" in step:
            a, label = _find_action(st, step["refused"])
            before = st.hash()
            if a is None:
                continue  # not even offered: refused
            out = st.apply(a)
            if out:
                msgs.append(f"{_where(step, shown)}: expected {label} to be refused, but it was applied")
                break
            if step.get("code") and out.code != step["code"]:
                msgs.append(f"{_where(step, shown)}: {label} was refused with '{out.code}' ({out.reason}), expected '{step['code']}'")
            if st.hash() != before:
                msgs.append(f"{_where(step, shown)}: a refused action changed the state")
            continue
        a, label = _find_action(st, step)
        if a is None:
            legal = ", ".join(x.label for x in st.legal_actions()[:12])
            msgs.append(f"{_where(step, shown)}: {label!r} is not a legal action now (phase {st.phase}, "
                        f"player {st.current_player}); legal: {legal or 'none'}")
            break
        out = st.apply(a)
        if not out:
            msgs.append(f"{_where(step, shown)}: {label} was refused: {out.code}: {out.reason}")
            break
        err = _settle_chance(st, script, s, shown)
        if err:
            msgs.append(err)
            break
    if not msgs:
        for text in s.get("expect") or []:
            m = _expect(rs, st, text, shown)
            if m:
                msgs.append(m)
    return ScenarioResult(shown, name, not msgs, msgs)


def _settle_chance(st, script, s, shown):
    """Give every chance node the game reaches the next outcome of the scenario's `chance`
    list; an error message when the list is used up or an outcome is not possible."""
    while st.is_chance():
        options = ", ".join(repr(o) for o, _ in st.chance_outcomes()[:12])
        if not script:
            return (f"{_where(s.get('chance', s), shown)}: the game needs a chance outcome ({options}) "
                    "but the scenario's 'chance' list is used up")
        outcome = script.pop(0)
        out = st.apply_chance(outcome)
        if not out:
            return f"{_where(s['chance'], shown)}: chance outcome {outcome!r}: {out.reason} (possible: {options})"
    return None


def _assign(rs, st, stmt, shown):
    try:
        fn = _compile(rs, stmt, "statement")
    except ExpressionError as e:
        p = expr_pos(stmt, e.line, e.column) if isinstance(stmt, Text) else shown
        return f"{p}: cannot compile {stmt!r}: {e.message}"
    try:
        rs.budget.reset()
        fn(st.vars, _locals(st))
    except RuleRuntimeError as e:
        return f"{_where(stmt, shown)}: {stmt!r} failed: {e}"
    st.touched()
    return None
