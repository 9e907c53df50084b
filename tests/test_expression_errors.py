"""Expression errors in the designer's words (issues 13 and 16): each mistake is an error with a
position and a plain message, never a traceback or a misleading message."""
import os
import subprocess
import sys

import pytest

from interpreter import compile_expression
from interpreter.errors import ExpressionError, RuleRuntimeError
from interpreter.expr.compiler import CodeUnit, Scope, check_name


def _compile_error(src, names=("x", "xs")):
    with pytest.raises(ExpressionError) as info:
        compile_expression(src, names)
    return info.value


@pytest.mark.parametrize("src,col", [
    ("1 if x == 0", 12), ("[1 if x]", 8), ("max(1 if x, 2)", 11), ("(x if x)", 8),
])
def test_if_without_else_says_so(src, col):
    e = _compile_error(src)
    assert e.message == "a conditional expression needs `else`: `A if COND else B`"
    assert (e.line, e.column) == (1, col)


def test_a_comprehension_filter_needs_no_else():
    assert compile_expression("[x for x in xs if x]", ["xs"]).evaluate({"xs": [0, 2]}) == [2]


@pytest.mark.parametrize("src", ["1" + "0" * 400 + ".5", "9" * 1300])
def test_a_number_too_large_is_an_error_at_the_number(src):
    e = _compile_error("x + " + src)
    assert (e.line, e.column) == (1, 5)
    assert "too large" in e.message and e.code == "number"


def test_sum_of_lists_is_a_list():
    ce = compile_expression("len(sum(xs, []))", {"xs": [[1], [2, 3]]})
    assert ce.evaluate({"xs": [[1], [2, 3]]}) == 3
    assert compile_expression("sum(xs, [])[0]", {"xs": [[1]]}).evaluate({"xs": [[4]]}) == 4


def test_len_of_a_sum_of_numbers_is_still_refused():
    e = _compile_error("len(sum([1, 2]))")
    assert "needs a collection" in e.message


# ---------------------------------------------------------------- lambdas are not values
@pytest.mark.parametrize("src", [
    "lambda x: x", "[lambda x: x]", "{'f': lambda x: x}", "let f = lambda x: x; f",
    "x if x else lambda y: y", "double(lambda y: y)",
])
def test_a_lambda_is_only_an_argument_of_a_builtin(src):
    with pytest.raises(ExpressionError) as info:
        compile_expression(src, ["x"], functions={"double": (["v"], "v")})
    assert "lambda" in info.value.message


def test_a_lambda_given_to_a_builtin_is_fine():
    assert compile_expression("sorted(xs, key=lambda v: -v)", ["xs"]).evaluate({"xs": [1, 3]}) == [3, 1]
    assert compile_expression("most(xs, lambda v: v % 2)", ["xs"]).evaluate({"xs": [1, 2, 3]}) == [1, 3]


def test_an_assignment_of_a_lambda_is_refused_at_compile_time():
    unit = CodeUnit(Scope(vars={"f": None}))
    with pytest.raises(ExpressionError) as info:
        unit.add_statement("f = lambda x: x")
    assert "lambda" in info.value.message and info.value.column == 5


def test_a_value_nested_too_deeply_cannot_be_stored():
    unit = CodeUnit(Scope(vars={"f": None, "g": None}))
    handle = unit.add_statement("f = g")
    unit.build()
    deep = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(RuleRuntimeError, match="nested too deeply"):
        handle.fn({"f": 0, "g": deep}, {})


def test_a_value_that_is_not_data_cannot_be_stored():
    unit = CodeUnit(Scope(vars={"f": None, "g": None}))
    handle = unit.add_statement("f = g")
    unit.build()
    with pytest.raises(RuleRuntimeError, match="only numbers, text"):
        handle.fn({"f": 0, "g": [print]}, {})


# ---------------------------------------------------------------- names
@pytest.mark.parametrize("name,hint", [
    ("null", "none"), ("true", None), ("false", None), ("none", None), ("None", None),
    ("if", None), ("lambda", None), ("and", None), ("for", None),
])
def test_keywords_are_not_names(name, hint):
    problem = check_name(name)
    assert problem is not None
    message, suggestion = problem
    assert repr(name) in message and suggestion
    if hint:
        assert hint in message or hint in suggestion


@pytest.mark.parametrize("name", ["foo\n", "a b", "_x", "1st", "", "é", None, True, False, 3])
def test_names_that_are_not_identifiers(name):
    assert check_name(name) is not None


@pytest.mark.parametrize("name", ["score", "hand_limit", "p2", "noneish", "iffy"])
def test_ordinary_names(name):
    assert check_name(name) is None


def test_a_define_name_with_a_newline_is_an_error_not_a_traceback():
    unit = CodeUnit(Scope(defines={"foo\n": []}))
    with pytest.raises(ExpressionError) as info:
        unit.add_define("foo\n", [], "1")
    assert "not a usable name" in info.value.message


# ---------------------------------------------------------------- chains of named expressions
def _chain(n, cycle=False):
    defines = {f"d{i}": [] for i in range(n + 1)}
    unit = CodeUnit(Scope(defines=defines))
    for i in range(n):
        unit.add_define(f"d{i}", [], f"d{i + 1} + 1")
    unit.add_define(f"d{n}", [], "d0 + 1" if cycle else "1")
    return unit


def test_a_long_chain_of_defines_is_too_deep_not_a_cycle():
    problems = dict(_chain(1500).check_defines())
    assert "d0" in problems
    message = problems["d0"].message
    assert "too deep" in message and "without end" not in message
    assert "1501" in message  # the real length of the chain


def test_a_cycle_of_defines_is_named():
    problems = dict(_chain(3, cycle=True).check_defines())
    assert "without end" in problems["d0"].message
    assert "d0 -> d1 -> d2 -> d3 -> d0" in problems["d0"].message


def test_a_short_chain_is_fine():
    unit = _chain(50)
    assert unit.check_defines() == []
    unit.build()


# ---------------------------------------------------------------- map keys: text or whole numbers, one kind per map
@pytest.mark.parametrize("src,expected", [
    ("{1: 'a', 2: 'b'}", {1: "a", 2: "b"}),
    ("{'a': 1}", {"a": 1}),
    ("{0: 5}[0]", 5),
    ("keys({'2': 'x', 'y': 1})", [2, "y"]),
    ("combined([{0: 1}, {'0': 2}])", {"0": 3}),  # a map built by a builtin has text keys
    ("1 in {1: 0}", True),
])
def test_map_keys(src, expected):
    got = compile_expression(src).evaluate({})
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("src", ["{1.5: 'a'}", "{none: 1}", "{true: 1}", "{1: 'a', 'b': 2}", "combined([m])"])
def test_other_map_keys_are_a_rule_error(src):
    ce = compile_expression(src, ["m"])
    with pytest.raises(RuleRuntimeError, match="map keys are text or whole numbers"):
        ce.evaluate({"m": {2.5: 1}})


@pytest.mark.parametrize("key", ["1.5", "none", "[1]"])
def test_an_assignment_with_another_key_is_a_rule_error(key):
    unit = CodeUnit(Scope(vars={"m": None}))
    handle = unit.add_statement(f"m[{key}] = 1")
    unit.build()
    values = {"m": {}}
    with pytest.raises(RuleRuntimeError, match="map keys are text or whole numbers"):
        handle.fn(values, {})
    assert values["m"] == {}


# ---------------------------------------------------------------- rule errors name their expression and place
def test_a_rule_error_names_the_failing_expression_and_its_position():
    from interpreter.errors import Pos

    unit = CodeUnit(Scope(vars={"x": None}))
    handle = unit.add_expression("'to ' + str(10 // x)")
    handle.pos = Pos("game.yaml", 8, 11)
    unit.build()
    with pytest.raises(RuleRuntimeError) as info:
        handle.fn({"x": 0}, {})
    assert str(info.value) == "division by zero"
    assert info.value.expression == "'to ' + str(10 // x)"
    assert info.value.pos == Pos("game.yaml", 8, 11)


def test_a_python_type_error_is_told_in_plain_words_with_its_position():
    from interpreter.errors import Pos

    unit = CodeUnit(Scope(vars={"x": None, "y": None}))
    handle = unit.add_expression("x >= y")
    handle.pos = Pos("rules.yaml", 3, 14)
    unit.build()
    with pytest.raises(RuleRuntimeError) as info:
        handle.fn({"x": 1, "y": "3"}, {})
    assert str(info.value).startswith("cannot compare a number with text using '>='")
    assert info.value.pos == Pos("rules.yaml", 3, 14)


def test_fifteen_hundred_requirements_validate(tmp_path):
    import io

    from interpreter import cli

    requires = "".join(f'      - "score[player] >= {-i}"\n' for i in range(1500))
    (tmp_path / "game.yaml").write_text(
        "game: {name: g, players: [2], start: play}\n"
        "vars:\n  score: {per_player: true, value: 0}\n"
        f"actions:\n  step:\n    requires:\n{requires}    effects: [\"score[player] += 1\"]\n"
        "phases:\n  play: {kind: turns, actions: [step], rounds: 3, next: end}\n")
    out, err = io.StringIO(), io.StringIO()
    assert cli.run(["validate", str(tmp_path)], out, err) == 0, err.getvalue()


# ---------------------------------------------------------------- an assignment into a part
@pytest.mark.parametrize("target,key,value,before,after", [
    ("xs", "1", "'a'", [0, 0, 0], [0, "a", 0]),  # a whole number in range: stored at as it is
    ("xs", "-1", "2.5", [0, 0, 0], [0, 0, 2.5]),  # a negative index: through `_key`, as before
    ("xs", "true", "none", [0, 0], [0, None]),  # a truth value as an index (`_key`: Python's list index)
    ("m", "'k'", "[1, [2]]", {}, {"k": [1, [2]]}),  # a text key; a list stored is a copy
    ("m", "3", "false", {}, {"3": False}),  # a whole number as a map key: stored as its text
])
def test_an_assignment_into_a_part_stores_what_the_checked_path_stores(target, key, value, before, after):
    unit = CodeUnit(Scope(vars={"xs": None, "m": None}))
    handle = unit.add_statement(f"{target}[{key}] = {value}")
    unit.build()
    values = {"xs": None, "m": None, target: before}
    handle.fn(values, {})
    assert values[target] == after and [type(item) for item in values[target]] == [type(item) for item in after]
    if value.startswith("["):  # the stored list is not the literal's object shared with anything
        assert values[target]["k"][1] is not after["k"][1]


@pytest.mark.parametrize("key", ["3", "-4", "99"])
def test_an_assignment_outside_a_list_is_a_rule_error(key):
    unit = CodeUnit(Scope(vars={"xs": None}))
    handle = unit.add_statement(f"xs[{key}] = 1")
    unit.build()
    values = {"xs": [0, 0, 0]}
    with pytest.raises(RuleRuntimeError, match=f"index {key} is outside a list of 3"):
        handle.fn(values, {})
    assert values["xs"] == [0, 0, 0]



def test_two_operands_side_by_side_are_not_called_a_conditional():
    error = _compile_error("x xs")
    assert error.message == "unexpected 'xs'"
    assert error.hint.startswith("expected ") and "or " in error.hint


def test_the_expected_tokens_hint_is_the_same_in_every_process():
    """Lark's set of expected tokens has no fixed order; the hint sorts all of them first."""
    script = ("from interpreter.expr.parser import parse\n"
              "try:\n    parse('1 + )')\nexcept Exception as error:\n    print(error.hint)\n")
    hints = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("0", "1", "2")}
    assert hints == {"expected '(', '+', '-', '[', '{', a name or 2 more\n"}
