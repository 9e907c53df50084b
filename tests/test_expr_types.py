"""What the expressions' static types let the generated code do (docs/performance.md, "The rule
expressions' own code, third round"), and the holes closed on the way:
  - a plain `+` (no charge) only where one side is proven a number by its syntax (proofs.py), not
    by a name's static type: `player = [1, 2]` is allowed, and `player + player` joined lists
    uncharged (a `let` chain of them doubled a list at each step);
  - a define's value has the static type of its expression wherever it is called (defines are
    compiled callees first), and a define whose value is proven a number proves its calls: so
    `n + count(xs)` written in a define makes `x + f(n)` a plain `+`;
  - an attribute read on a value that is a map in every component that has it, or that no
    component has, is a plain subscript in the fast variant; on any other value the checked
    variant gives the same value or the same error as before;
  - `clamp(...)` proves a number only when its three arguments do (lists compare too: a list
    typed as a number was joined by a plain, uncharged `+`);
  - `%` of a text is refused (Python's `%` would format it: `'%0999999d' % 1` is a huge text).
"""
from __future__ import annotations

import textwrap

import pytest

import interpreter
from interpreter.errors import RuleRuntimeError
from interpreter.expr.budget import Budget
from interpreter.expr.compiler import CodeUnit, Scope, compile_expression
from interpreter.expr.parser import parse
from interpreter.expr.proofs import proves_number
from interpreter.expr.types import map_attributes

ENTITIES = {
    "s1": {"id": "s1", "type": "stage", "cost": {"gold": 2, "extra": {"gold": 1}}, "points": 3},
    "s2": {"id": "s2", "type": "stage", "cost": {"gold": 5, "extra": {"gold": 0}}, "points": 1},
    "b1": {"id": "b1", "type": "bonus", "cost": "free", "points": 0},  # `cost` is not always a map
}


def _unit(mapped: bool):
    scope = Scope(vars={"x": None, "m": None, "xs": None}, entity_types={"stage": {"id", "type", "cost", "points"}},
                  map_attributes=map_attributes(ENTITIES) if mapped else frozenset())
    return CodeUnit(scope, ENTITIES, Budget())


def _outcome(handle, values):
    try:
        return "value", handle.fn(values, {})
    except RuleRuntimeError as error:
        return "error", str(error)


def test_map_attributes_are_those_that_are_maps_wherever_they_are_met():
    assert map_attributes(ENTITIES) == frozenset({"extra"})  # `cost` is a text in b1
    assert map_attributes({"a": {"id": "a", "req": {"n": 1}}, "b": {"id": "b", "req": {"n": 2}}}) == {"req"}


@pytest.mark.parametrize("source", ["x.cost.extra.gold", "m.extra.gold + 1", "[c.extra.gold for c in xs]"])
def test_a_map_attribute_read_as_a_subscript_gives_what_the_checked_code_gives(source):
    plain, checked = _unit(True), _unit(False)
    fast_handle, checked_handle = plain.add_expression(source), checked.add_expression(source)
    plain.build()
    checked.build()
    fast_code = plain.lines[-1].splitlines()[2]  # (the fast variant, after the checked one)
    assert "_A(" not in fast_code and "['gold']" in fast_code  # read as subscripts
    cases = [{"x": "s1", "m": {"extra": {"gold": 4}}, "xs": [{"extra": {"gold": 1}}]},
             {"x": "b1", "m": {"extra": "s1"}, "xs": ["s1"]},  # a text where a map was guessed
             {"x": {"cost": {"extra": {"gold": 7}}}, "m": {"extra": {}}, "xs": [{"extra": 3}]},
             {"x": 5, "m": {"other": 1}, "xs": [None]}]
    for values in cases:
        assert _outcome(fast_handle, values) == _outcome(checked_handle, values)


def _ruleset(tmp_path, defines: str, effects: str = ""):
    folder = tmp_path / "typed"
    folder.mkdir()
    (folder / "game.yaml").write_text(textwrap.dedent("""
        game: {name: typed, players: [2], start: play}
        components:
          stage:
            s1: {cost: {gold: 2}, points: 3}
            s2: {cost: {gold: 5}, points: 1}
        vars:
          total: {value: 0}
          seen: {value: []}
        actions:
          go:
            effects: [EFFECTS"total = after(total)", "seen = grown(seen)"]
        phases:
          play: {kind: turns, actions: [go], rounds: 1, next: end}
        scoring:
          rows:
            total: "total"
        """).replace("EFFECTS", effects) + defines)
    return interpreter.load(str(folder))


def test_a_define_calling_one_written_after_it_knows_the_type_of_its_value(tmp_path):
    ruleset = _ruleset(tmp_path, textwrap.dedent("""
        define:
          after: {params: [n], expr: "n + points_of(n)"}
          points_of: {params: [n], expr: "sum([s.points for s in stage])"}
          grown: {params: [xs], expr: "xs + listed(xs)"}
          listed: {params: [xs], expr: "[x for x in xs]"}
        """))
    defines = ruleset.unit.define_codes
    assert ruleset.unit.scope.define_types["points_of"] == "number"
    assert defines["after"][0] == "(u_n + d_points_of(_V, _L, u_n))"  # a number: the plain `+`
    assert defines["grown"][0].startswith("_add(")  # lists: joined by the charged `_add`
    state = ruleset.new_game(2, seed=1)
    state.apply(state.legal_actions()[0])
    assert state.vars["total"] == 4


def test_clamp_of_lists_proves_no_number_and_joining_them_is_charged():
    source = "(let a = clamp(v, v, v); (let b = a + a; (let c = b + b; (let d = c + c; d + d))))"
    assert compile_expression(source, ["v"])({"v": [1, 2]}) == [1, 2] * 16
    assert compile_expression("clamp(v, 0, 10) + 1", ["v"])({"v": 12}) == 11
    with pytest.raises(RuleRuntimeError, match="work bound"):
        compile_expression(source, ["v"], work_limit=1000)({"v": list(range(40))})


@pytest.mark.parametrize("source", ["v % 1", "v % w", "(v % 1) + 1"])
def test_a_text_left_of_percent_is_refused_not_formatted(source):
    evaluate = compile_expression(source, ["v", "w"])
    with pytest.raises(RuleRuntimeError, match="'%' needs numbers, not text"):
        evaluate({"v": "%0999d", "w": 3})
    assert evaluate({"v": 7, "w": 3}) in (0, 1)


@pytest.mark.parametrize("source, proven", [
    ("1", True), ("x", False), ("x + 1", True), ("x + y", False), ("x - y", True), ("-x", True),
    ("x * 2", False), ("2 * 3", True), ("x % 2", False), ("(x + 1) % 2", True), ("count(xs)", True),
    ("sum(xs)", True), ("sum(xs, [])", False), ("sum(xs, 0)", True), ("max(1, x)", False), ("max(1, 2 - x)", True),
    ("clamp(x, 0, 9)", False), ("clamp(x - 0, 0, 9)", True), ("1 if c else x", False), ("1 if c else 2", True),
    ("(let a = 1; a + x)", False), ("(let a = x; 1 + a)", True), ("f(1)", True), ("g(1)", False),
    ("(let f = 1; f(1))", False), ("max(xs)", False), ("x / 2", True), ("2 ** x", True),
])
def test_what_proves_a_number(source, proven):
    scope = Scope(defines={"f": ["a"], "g": ["a"]}, proven_defines={"f"})
    assert proves_number(parse(source, "expression"), scope) is proven


def test_a_name_typed_as_a_number_proves_nothing(tmp_path):
    ruleset = _ruleset(tmp_path, textwrap.dedent("""
        define:
          after: {params: [n], expr: "n"}
          grown: {params: [xs], expr: "xs"}
        """), '"player = [1, 2]", "seen = (let a = player + player; a + a)", ')
    generated = "\n".join(ruleset.unit.lines)
    assert "_add(_L['player'], _L['player'])" in generated  # charged: `player` may hold a list
    state = ruleset.new_game(2, seed=1)
    state.apply(state.legal_actions()[0])
    assert state.vars["seen"] == [1, 2] * 4


def test_callees_first_orders_a_long_chain_and_survives_a_cycle():
    from interpreter.expr.names import callees_first

    chain = {f"d{index}": [f"d{index + 1}"] if index < 4999 else [] for index in range(5000)}
    order = callees_first(chain)
    assert order[0] == "d4999" and order[-1] == "d0" and len(order) == 5000
    assert sorted(callees_first({"a": ["b", "x"], "b": ["a"], "c": []})) == ["a", "b", "c"]
