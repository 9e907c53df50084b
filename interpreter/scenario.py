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
                            - {choose: {0: X, 1: Y}}       one answer per seat, when several
                                                           players decide at once
                            - {at_once: {0: step, 1: step}} one move per seat where several
                                                           players choose at once (a label,
                                                           {action: ...} or {choose: value})
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

from .errors import ExpressionError, Pos, RuleRuntimeError, RulebookError
from .loader import Text, expr_pos, load_file, plain, pos_of, safe_path
from .scenario_seats import SeatError, answers_by_seat, seat_moves
from .scenario_shape import shape_problem

__all__ = ["run_scenarios", "ScenarioResult"]


@dataclass
class ScenarioResult:
    file: str
    name: str
    ok: bool
    messages: list = field(default_factory=list)


EXPECT_LOCALS = {"scores": None, "winners": None, "phase": None, "current": None,
                 "pending_options": None, "player": None}


class _Stop(Exception):
    """Internal: the scenario cannot go on; `message` says why."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _compile(ruleset, text, kind="expression"):
    from .expr.compiler import CodeUnit

    unit = CodeUnit(ruleset.unit.scope.with_locals(EXPECT_LOCALS), ruleset.entities, ruleset.budget)
    handle = unit.add_expression(text) if kind == "expression" else unit.add_statement(text)
    namespace = unit.build(ruleset.unit.ns["_K"])
    # the ruleset's named expressions (compiled in its own unit) are callable here too
    for name, function in ruleset.unit.ns.items():
        if name.startswith("d_") and name not in namespace:
            namespace[name] = function
    return handle.fn


def run_scenarios(target, modules=(), only: Optional[str] = None):
    from . import load
    from .compose import find_ruleset

    folder = find_ruleset(target)
    results = []
    loaded: dict = {}
    for path in sorted(glob.glob(os.path.join(folder, "examples", "*.yaml"))):
        shown = os.path.relpath(path)
        if only and only not in os.path.basename(path):
            continue
        try:
            # the one path check (symlinks resolved, inside the ruleset folder, regular file)
            content = load_file(safe_path(folder, os.path.relpath(path, folder), "scenario file",
                                          Pos(shown, 0, 0)), shown)
        except RulebookError as error:
            results.append(ScenarioResult(shown, os.path.basename(path), False, [error.render()]))
            continue
        scenarios = content if isinstance(content, list) else [content]
        for index, scenario in enumerate(scenarios):
            name = f"{os.path.basename(path)}#{index + 1}"
            if isinstance(scenario, dict) and scenario.get("name") is not None:
                name = str(scenario["name"])
            problem = shape_problem(scenario)
            if problem:
                node, why = problem
                results.append(ScenarioResult(shown, name, False, [f"{_where(node, shown)}: {why}"]))
                continue
            chosen = tuple(sorted(set(modules) | {str(m) for m in scenario.get("modules") or []}))
            try:
                if chosen not in loaded:
                    loaded[chosen] = load(folder, modules=list(chosen), check=False)
                results.append(_run_one(loaded[chosen], scenario, shown, name))
            except RulebookError as error:
                results.append(ScenarioResult(shown, name, False, [error.render()]))
    return results


def _where(node, shown):
    pos = pos_of(node)
    return f"{pos}" if pos.line else shown


def _expect(ruleset, state, text, shown):
    try:
        function = _compile(ruleset, text)
    except ExpressionError as error:
        pos = expr_pos(text, error.line, error.column) if isinstance(text, Text) else shown
        return f"{pos}: cannot compile {text!r}: {error.message}" + (f" ({error.hint})" if error.hint else "")
    try:
        ruleset.budget.reset()
        holds = function(state.vars, _locals(state))
    except RuleRuntimeError as error:
        return f"{_where(text, shown)}: {text!r} failed: {error}"
    if not holds:
        return f"{_where(text, shown)}: expected {text!r} to hold" + _explain(ruleset, state, text)
    return None


def _explain(ruleset, state, text):
    """The value of each name and each part of the failed expectation (`score[0] = 2`, then
    `score = [2, 0]`), as pytest shows the parts of a failed assertion: one line each, the
    outermost parts first; a part that cannot be evaluated on its own is left out."""
    lines = []
    for part in _parts(text):
        try:
            function = _compile(ruleset, part)
            ruleset.budget.reset()
            value = function(state.vars, _locals(state))
        except (ExpressionError, RuleRuntimeError):
            continue
        shown = repr(value)
        lines.append(f"\n  where {part} = {shown if len(shown) < 200 else shown[:197] + '...'}")
        if len(lines) == _MAX_PARTS:
            break
    return "".join(lines)


_MAX_PARTS = 8
_SHOWN_NODES = ("name", "attr", "index", "call")


def _parts(text) -> list:
    """The texts of the names, attribute reads, indexings and calls of an expression, outermost
    first, each once (names bound inside a comprehension or lambda fail alone and are skipped)."""
    from .expr.parser import parse

    try:
        tree = parse(str(text))
    except ExpressionError:
        return []
    found: list = []
    stack = [tree]
    while stack:
        node = stack.pop(0)
        if not hasattr(node, "data"):
            continue
        if node.data in _SHOWN_NODES:
            written = _written(node)
            if written is not None and written not in found:
                found.append(written)
        stack.extend(child for child in node.children if hasattr(child, "data"))
    return found


def _written(node):
    """An expression part written back as text (names, numbers, strings, attributes, indexings
    and calls of those), or None for anything else."""
    if not hasattr(node, "data"):
        return None
    kids = node.children
    if node.data in ("name", "number", "string"):
        return str(kids[0])
    if node.data == "neg":
        inner = _written(kids[0])
        return None if inner is None else "-" + inner
    if node.data == "attr":
        inner = _written(kids[0])
        return None if inner is None else f"{inner}.{kids[1]}"
    if node.data == "index":
        inner, key = _written(kids[0]), _written(kids[1])
        return None if inner is None or key is None else f"{inner}[{key}]"
    if node.data == "call":
        args = [] if kids[1] is None else [_written(arg) for arg in kids[1].children]
        if (kids[1] is not None and kids[1].data != "arguments") or None in args:
            return None
        return f"{kids[0]}({', '.join(args)})"
    return None


def _locals(state):
    totals = {}
    try:
        totals = {player: entry["total"] for player, entry in state.scores().items()}
    except RuleRuntimeError:
        pass
    pending = state.pending
    return {"scores": totals, "winners": state.winners() if state.is_terminal else [], "phase": state.phase,
            "current": state.current_player, "pending_options": pending["options"] if pending else [],
            "player": state.current_player}


def _find_action(state, step, seat=None):
    """(the action a step names, how to show it); the action is None if no legal one matches.
    `seat`: the player whose move it is, where several players choose at once."""
    from .engine.values import Action, freeze

    legal = state.legal_actions() if seat is None else state.legal_actions(seat)
    player = state.current_player if seat is None else seat
    if isinstance(step, str):
        matches = [action for action in legal if action.label == step]
        return (matches[0] if matches else None), step
    if "choose" in step:
        value = plain(step["choose"])
        matches = [action for action in legal
                   if action.name == "choose" and dict(action.args).get("value") == freeze(value)]
        return (matches[0] if matches else Action("choose", {"value": value}, player)), f"choose {value!r}"
    if "action" in step:
        args = plain(step.get("args") or {})
        if not isinstance(args, dict):
            return None, f"{step['action']} with args {args!r}"
        action = Action(str(step["action"]), args, player)
        return action, action.label
    return None, repr(plain(step))


def _run_one(ruleset, scenario, shown, name) -> ScenarioResult:
    script = plain(scenario["chance"]) if scenario.get("chance") is not None else None
    try:
        state = _start(ruleset, scenario, script, shown)
        messages = _play_steps(ruleset, state, scenario, script, shown)
    except _Stop as stop:
        return ScenarioResult(shown, name, False, [stop.message])
    if not messages:
        for text in scenario.get("expect") or []:
            message = _expect(ruleset, state, text, shown)
            if message:
                messages.append(message)
    return ScenarioResult(shown, name, not messages, messages)


def _start(ruleset, scenario, script, shown):
    """The game set up as the scenario says: players, seed, chance, `setup`, `phase`."""
    from .engine import State

    players = scenario.get("players", ruleset.players[0])
    try:
        state = State.new(ruleset, players, scenario.get("seed", 0), "manual" if script is not None else "seeded")
    except RuleRuntimeError as error:
        raise _Stop(f"set-up failed: {error}") from None
    _settle_chance(state, script, scenario, shown)
    for statement in scenario.get("setup") or []:
        message = _assign(ruleset, state, statement, shown)
        if message:
            raise _Stop(message)
    if scenario.get("phase"):
        phase_id = str(scenario["phase"])
        if phase_id not in ruleset.phases:
            raise _Stop(f"{_where(scenario['phase'], shown)}: unknown phase '{phase_id}'")
        try:
            state.enter_phase(phase_id)
        except RuleRuntimeError as error:
            raise _Stop(f"entering phase '{phase_id}' failed: {error}") from None
        _settle_chance(state, script, scenario, shown)
    return state


def _play_steps(ruleset, state, scenario, script, shown) -> list:
    """Play the scenario's steps; the messages of what went wrong (it stops at the first
    step that cannot be played)."""
    messages = []
    for step in scenario.get("steps") or []:
        try:
            message = _step(ruleset, state, step, scenario, script, shown)
        except _Stop as stop:
            return messages + [stop.message]
        if message:
            messages.append(message)
    return messages


def _step(ruleset, state, step, scenario, script, shown):
    """Play one step; a message when an expectation fails (raises _Stop when the scenario
    cannot go on)."""
    if isinstance(step, dict) and "expect" in step:
        return _expect(ruleset, state, step["expect"], shown)
    if isinstance(step, dict) and "set" in step:
        message = _assign(ruleset, state, step["set"], shown)
        if message:
            raise _Stop(message)
        return None
    if isinstance(step, dict) and "refused" in step:
        return _refused(state, step, shown)
    try:
        answers = answers_by_seat(state, step)
    except SeatError as error:
        raise _Stop(f"{_where(step, shown)}: {error}") from None
    message = _play_at_once(state, step, answers, shown) if answers is not None else _play(state, step, shown)
    if message:
        raise _Stop(message)
    _settle_chance(state, script, scenario, shown)
    return None


def _play_at_once(state, step, answers, shown):
    """Every seat's move of a step by seat, each checked before any is played."""
    try:
        moves = seat_moves(state, answers, _find_action)
    except SeatError as error:
        return f"{_where(step, shown)}: {error}"
    for seat, action, label in moves:
        outcome = state.apply(action)
        if not outcome:
            return f"{_where(step, shown)}: seat {seat}'s {label} was refused: {outcome.code}: {outcome.reason}"
    return None


def _seats_offering(state, step) -> list:
    """The seats offered a plain label step's move (more than one only where seats choose at once)."""
    if not isinstance(step, str):
        return []
    return sorted({action.player for action in state.legal_actions() if action.label == step})


def _refused(state, step, shown):
    action, label = _find_action(state, step["refused"])
    if action is None:
        return None  # not even offered: refused
    before = state.hash()
    outcome = state.apply(action)
    if outcome:
        raise _Stop(f"{_where(step, shown)}: expected {label} to be refused, but it was applied")
    if step.get("code") and outcome.code != step["code"]:
        return f"{_where(step, shown)}: {label} was refused with '{outcome.code}' ({outcome.reason}), expected '{step['code']}'"
    if state.hash() != before:
        return f"{_where(step, shown)}: a refused action changed the state"
    return None


def _play(state, step, shown):
    ambiguous = _seats_offering(state, step)
    if len(ambiguous) > 1:
        return (f"{_where(step, shown)}: {step!r} is offered to seats {ambiguous}, who choose at once here: "
                f"say whose move it is, e.g. at_once: {{{ambiguous[0]}: {step!r}, {ambiguous[1]}: ...}}")
    action, label = _find_action(state, step)
    if action is None:
        legal = ", ".join(candidate.label for candidate in state.legal_actions()[:12])
        return (f"{_where(step, shown)}: {label!r} is not a legal action now (phase {state.phase}, "
                f"player {state.current_player}); legal: {legal or 'none'}")
    outcome = state.apply(action)
    if not outcome:
        return f"{_where(step, shown)}: {label} was refused: {outcome.code}: {outcome.reason}"
    return None


def _settle_chance(state, script, scenario, shown):
    """Give every chance node the game reaches the next outcome of the scenario's `chance`
    list; stops the scenario when the list is used up or an outcome is not possible."""
    while state.is_chance():
        options = ", ".join(repr(outcome) for outcome, _ in state.chance_outcomes()[:12])
        where = _where(scenario.get("chance", scenario), shown)
        if not script:
            raise _Stop(f"{where}: the game needs a chance outcome ({options}) but the scenario's 'chance' "
                        "list is used up")
        outcome = script.pop(0)
        result = state.apply_chance(outcome)
        if not result:
            raise _Stop(f"{where}: chance outcome {outcome!r}: {result.reason} (possible: {options})")


def _assign(ruleset, state, statement, shown):
    try:
        function = _compile(ruleset, statement, "statement")
    except ExpressionError as error:
        pos = expr_pos(statement, error.line, error.column) if isinstance(statement, Text) else shown
        return f"{pos}: cannot compile {statement!r}: {error.message}"
    try:
        ruleset.budget.reset()
        function(state.vars, _locals(state))
    except RuleRuntimeError as error:
        return f"{_where(statement, shown)}: {statement!r} failed: {error}"
    state.touched()
    return None
