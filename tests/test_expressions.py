"""The expression language: targeted tests of the board-game builtins, of error positions, and
of safety (nothing reaches Python objects; no expression can run away with time or memory)."""

import pytest

from interpreter import compile_expression
from interpreter.errors import ExpressionError, RuleRuntimeError


def ev(src, **names):
    return compile_expression(src, names).evaluate(names)


# --------------------------------------------------------------------------- builtins
@pytest.mark.parametrize("src,expected", [
    # biggest: the single owner with strictly more than every other; zero owners do not count
    ("biggest({'0': 3, '1': 2})", 0),
    ("biggest({'0': 2, '1': 2})", None),
    ("biggest({'0': 2, '1': 2, '2': 3})", 2),
    ("biggest({'0': 0, '1': 0})", None),
    ("biggest({'0': 0})", None),
    ("biggest({})", None),
    ("biggest({'0': -1, '1': -3})", None),
    ("biggest({'usa': 3, 'ussr': 1})", "usa"),
    ("biggest([{'0': 1}, {'1': 2}])", 1),
    ("biggest([{'0': 2}, {'0': 1, '1': 2}])", 0),
    ("biggest([{'0': 1}, {'1': 1}])", None),
    ("biggest([{}, {}])", None),
    ("biggest({'0': 1}, {'1': 3})", 1),
    # combined: maps of counts summed
    ("combined([{'a': 1}, {}, {'a': 2, 'b': 1}])", {"a": 3, "b": 1}),
    ("combined([])", {}),
    ("combined(m for m in [{'0': 1}, {'0': 4}])", {"0": 5}),
    # most: every item tied for the largest key
    ("most([1, 2, 3, 4, 5], key=lambda x: x % 3)", [2, 5]),
    ("most([3, 1, 2], key=lambda x: x)", [3]),
    ("most([], key=lambda x: x)", []),
    # ranked: best first; a key may be a list of tie-breakers
    ("ranked([0, 1, 2], key=lambda p: [[5, 7, 5][p], [1, 0, 2][p]])", [1, 2, 0]),
    ("ranked([0, 1, 2], key=lambda p: [3, 1, 2][p])", [0, 2, 1]),
    ("ranked([0, 1, 2], key=lambda p: [3, 1, 2][p], reverse=false)", [1, 2, 0]),
    # count
    ("count([1, 2, 3])", 3),
    ("count([1, 2, 1, 1], 1)", 3),
    ("count(['', 'X', ''], '')", 2),
    ("count([none, 1, none], none)", 2),
    ("count([], 0)", 0),
    ("count(p for p in [0, 1, 2] if p > 0)", 2),
    ("count({'a': 1, 'b': 2})", 2),
    # distinct and the list-as-set helpers keep order
    ("distinct([3, 1, 3, 2, 1])", [3, 1, 2]),
    ("{x % 3 for x in [5, 1, 2, 4]}", [2, 1]),
    ("union([1, 2], [2, 3], [4])", [1, 2, 3, 4]),
    ("intersection([3, 1, 2, 1], [1, 3])", [3, 1]),
    ("difference([1, 2, 3, 2], [2])", [1, 3]),
    ("remove_one([1, 2, 1], 1)", [2, 1]),
    ("remove_one([1, 2], 5)", [1, 2]),
    # maps: player numbers stored as text come back as numbers
    ("keys({'0': 1, '1': 2})", [0, 1]),
    ("keys({'a': 1})", ["a"]),
    ("values({'a': 1, 'b': 2})", [1, 2]),
    ("items({'0': 'x'})", [[0, "x"]]),
    ("get({'0': 5}, 0)", 5),
    ("get({'a': 5}, 'b', 7)", 7),
    ("get([1, 2], 5, 'none')", "none"),
    ("first([4, 5])", 4), ("first([], 9)", 9), ("last([4, 5])", 5), ("last([])", None),
    ("index([4, 5], 5)", 1), ("index([4, 5], 6)", -1),
    # numbers
    ("round_down(35, 10)", 30), ("clamp(12, 0, 10)", 10), ("clamp(-2, 0, 10)", 0),
    ("sign(-4)", -1), ("sign(0)", 0), ("floor(2.5)", 2), ("ceil(2.1)", 3),
    ("max([], default=3)", 3), ("min([4, 2, 8])", 2), ("max(1, 5, 3)", 5),
    ("max([0, 1, 2], key=lambda p: [5, 9, 1][p])", 1),
    ("sum([1, 2, 3])", 6), ("sum(x * x for x in range(4))", 14),
    ("str(true) + str(none) + str(3)", "truenone3"),
    ("sorted([3, 1, 2], reverse=true)", [3, 2, 1]),
    ("list(reversed([1, 2, 3]))", [3, 2, 1]),
    ("enumerate(['a', 'b'])", [[0, "a"], [1, "b"]]),
    ("zip([1, 2], ['a', 'b'])", [[1, "a"], [2, "b"]]),
    ("range(2, 8, 3)", [2, 5]),
    ("let n = 4; 'many' if n > 3 else 'few'", "many"),
    ("[a + b for a, b in [[1, 2], [3, 4]]]", [3, 7]),
    ("[x for x in [1, 2, 3] if x > 1 if x < 3]", [2]),
    ("1 < 2 < 3 and not (3 < 2 < 1)", True),
    ("2 in {'2': 1}", True),
    ("[1, 2, 3][-1] + [1, 2, 3][:2][1]", 5),
])
def test_builtin(src, expected):
    got = ev(src)
    assert got == expected and type(got) is type(expected), f"{src}: {got!r}"


def test_names_and_attributes_of_components():
    entities = {"c1": {"id": "c1", "type": "card", "cost": 2}, "c2": {"id": "c2", "type": "card", "cost": 5}}
    ce = compile_expression("sum(c.cost for c in cards if c.cost > n)", {"cards": [], "n": 0}, entities=entities)
    assert ce.evaluate({"cards": ["c1", "c2"], "n": 1}) == 7
    assert ce.evaluate({"cards": ["c1", "c2"], "n": 3}) == 5


def test_named_helper_functions():
    ce = compile_expression("double(x) + 1", ["x"], functions={"double": (["v"], "v * 2")})
    assert ce.evaluate({"x": 4}) == 9


# --------------------------------------------------------------------------- errors with positions
@pytest.mark.parametrize("src,line,col,fragment", [
    ("1 +", 1, 4, "ends too early"),
    ("1 +\n  * 2", 2, 3, "unexpected '*'"),
    ("a == == b", 1, 6, "unexpected"),
    ("scor + 1", 1, 1, "unknown name 'scor'"),
    ("len(x, x)", 1, 1, "takes 1 argument"),
    ("lenn(x)", 1, 1, "unknown function 'lenn'"),
    ("x + 'a' + 1", 1, 5, "cannot add text and a number"),
    ("x + 1 + 'a'", 1, 9, "cannot add text and a number"),
    ("\"a\" + 1", 1, 7, "cannot add text and a number"),
    ("x &&& 1", 1, 3, "unexpected character '&'"),
])
def test_expression_errors_have_positions(src, line, col, fragment):
    with pytest.raises(ExpressionError) as info:
        compile_expression(src, {"x": 1, "score": 0})
    e = info.value
    assert (e.line, e.column) == (line, col), (e.line, e.column, e.message)
    assert fragment in e.message
    assert isinstance(e.message, str) and e.message


def test_did_you_mean():
    with pytest.raises(ExpressionError) as info:
        compile_expression("scor + 1", ["score"])
    assert info.value.hint == "did you mean 'score'?"


# --------------------------------------------------------------------------- safety
@pytest.mark.parametrize("src", [
    "__class__", "_x", "x._y", "().__class__", "[].__class__", "'a'.__class__", "x.__dict__",
    "'a'.upper()", "(lambda: 1)()", "(lambda x: x)(1)", "sorted([1], key=lambda x: x.__class__)",
    "let f = lambda x: x; f(1)", "sorted([1], key=len)", "getattr(x, 'y')", "eval('1')", "exec('1')",
    "open('/etc/passwd')", "__import__('os')", "globals()", "type(x)", "x.mro()", "[c for c in ().__class__.__bases__]",
    "'abc'[::-1]", "{**x}", "[*x]", "f'{x}'", "x if x", "x := 1", "import os", "lambda: 1",
    "(" * 200 + "1" + ")" * 200 + " +",
    "-" * 300 + "1",
    "not " * 300 + "true",
    "+".join(["1"] * 400),
    "[" * 80 + "1" + "]" * 80,
    "len(" * 70 + "[1]" + ")" * 70,
    "1" * 5000,
])
def test_refused_at_compile_time(src):
    with pytest.raises(ExpressionError) as info:
        compile_expression(src, {"x": {"a": 1}})
    assert info.value.line >= 1 and info.value.column >= 1 and info.value.message


@pytest.mark.parametrize("src", [
    "range(10**9)",
    "len(range(10 ** 6))",
    "'a' * 10**9",
    "[0] * 10**9",
    "10**9 * 'a'",
    "'ab' * 60000",
    "2 ** 10 ** 10",
    "(((((2**64)**64)**64)**64)**64)",
    "let a = 2**60; let b = a*a; let c = b*b; let d = c*c; let e = d*d; let f = e*e; let g = f*f; g*g",
    "(10.0 ** 60) ** 60",
    "[1 for a in range(1000) for b in range(1000) for c in range(1000)]",
    "sum(1 for a in range(10000) for b in range(10000))",
    "[[y for y in range(100000)] for x in range(100)]",
    "count(x for x in range(100000) for y in range(100000) if x == y)",
    "sorted(range(100000)) + sorted(range(100000)) + [x for x in range(100000) for y in range(30)]",
    "any(x < 0 for x in range(100000) for y in range(100))",
    "x.upper", "'a'.upper", "x['missing']", "[1][5]", "1 // 0", "1 % 0", "1 / 0", "0 ** -1",
    "int('9' * 5000)", "x + 1", "len(n)", "biggest(n)", "all(n)", "n[0]", "n.id", "-x",
])
def test_refused_at_run_time(src):
    ce = compile_expression(src, ["x", "n"])  # untyped names: only run time can tell
    # the work bound stops it (how fast is measured by tools/bench, not asserted here)
    with pytest.raises(RuleRuntimeError):
        ce.evaluate({"x": {"a": 1}, "n": 3})


@pytest.mark.parametrize("src", ["len(n)", "n[0]", "n.id", "n + 'a'", "-'x'"])
def test_known_types_are_refused_at_compile_time(src):
    with pytest.raises(ExpressionError):
        compile_expression(src, {"n": 3})


def test_budget_is_per_evaluation():
    ce = compile_expression("sum(x for x in range(100000))")
    for _ in range(30):  # 3,000,000 elements in total, 100,000 per evaluation
        assert ce.evaluate({}) == 4999950000


def test_no_python_builtins_in_generated_code():
    ce = compile_expression("x", ["x"])
    assert ce._fn.__globals__["__builtins__"] == {}


@pytest.mark.parametrize("src,expected", [
    # any/all/first of a comprehension stop at the first item that decides, as in Python: the
    # items after it are never computed (here: they would divide by zero)
    ("any(10 // x > 1 for x in [1, 0])", True),
    ("all(10 // x > 20 for x in [1, 0])", False),
    ("first(10 // x for x in [2, 0])", 5),
    ("first(x for x in [] if 10 // x > 1)", None),
])
def test_any_all_first_stop_at_the_deciding_item(src, expected):
    assert ev(src) == expected


@pytest.mark.parametrize("src", [
    "any(10 // x > 100 for x in [1, 0])",  # no item decides before the bad one: it is reached
    "any(x < 0 for x in range(100000) for y in range(100000))",  # still bounded
    "sum(1 for x in keys(m) for y in values(m) for z in range(100000))",
])
def test_short_circuit_and_uncharged_results_stay_bounded(src):
    with pytest.raises(RuleRuntimeError):
        compile_expression(src, ["m"]).evaluate({"m": {str(key): key for key in range(1000)}})
