"""Cost bounds (issue 16, item 10): every builtin and operator charges the work bound by the
work it really does, the list-as-set builtins are set-based for hashable items, and nothing an
expression or an assignment builds can grow past the bound. Complexity is asserted by counting
comparisons, never by timing."""
import pytest

from interpreter import compile_expression
from interpreter.errors import ExpressionError, RuleRuntimeError
from interpreter.expr.builtins import Budget
from interpreter.expr.compiler import CodeUnit, Scope


def ev(src, limit=2_000_000, **names):
    return compile_expression(src, names, work_limit=limit).evaluate(names)


class Counted(int):
    """An integer that counts how often it is compared for equality."""

    comparisons = 0

    def __eq__(self, other):
        Counted.comparisons += 1
        return int.__eq__(self, other)

    __hash__ = int.__hash__


@pytest.fixture
def counted():
    Counted.comparisons = 0
    return [Counted(i) for i in range(3000)] * 2


# ---------------------------------------------------------------- the Budget API
def test_budget_charge_and_its_message():
    budget = Budget(10)
    budget.charge(4)
    budget.charge(6)
    assert budget.left == 0
    with pytest.raises(RuleRuntimeError) as info:
        budget.charge(1)
    assert "work bound of 10" in str(info.value)
    assert budget.left == 10  # refused: the next step starts afresh


def test_budget_take_charges_the_length():
    budget = Budget(100)
    assert budget.take([1, 2, 3]) == [1, 2, 3]
    assert budget.left == 97


# ---------------------------------------------------------------- set-based builtins
@pytest.mark.parametrize("src", [
    "distinct(xs)", "union(xs, xs)", "intersection(xs, xs)", "difference(xs, xs[:10])",
    "{x for x in xs}",
])
def test_list_as_set_builtins_are_linear_on_hashable_items(src, counted):
    got = ev(src, xs=counted)
    assert isinstance(got, list)
    assert Counted.comparisons < 5 * len(counted), Counted.comparisons


@pytest.mark.parametrize("src,expected", [
    ("distinct([3, 1, 3, 2, 1])", [3, 1, 2]),
    ("distinct([[1], [2], [1], 1, [1], 1])", [[1], [2], 1]),
    ("distinct([{'a': 1}, {'a': 1}, {'a': 2}])", [{"a": 1}, {"a": 2}]),
    ("distinct([1, 1.0, true])", [1]),
    ("union([[1]], [[1], [2]], [3])", [[1], [2], 3]),
    ("intersection([[1], [2], 3, 3], [[2], 3])", [[2], 3]),
    ("intersection([1, 2], [2, [1]])", [2]),
    ("difference([[1], [2], 3], [[2]])", [[1], 3]),
    ("difference([1, 2, 3], [[1], 2])", [1, 3]),
    ("{x % 2 for x in [3, 4, 5]}", [1, 0]),
    ("sum([[1], [2, 3], []], [])", [1, 2, 3]),
    ("sum([[1]], [0])", [0, 1]),
    ("sum([1, 2.5])", 3.5),
    ("[x for x in [1, 2, 3] if x in [2, 3]]", [2, 3]),
    ("'b' in 'abc'", True),
    ("len(distinct(range(100000)))", 100000),
])
def test_results_are_unchanged(src, expected):
    got = ev(src)
    assert got == expected and type(got) is type(expected), got


@pytest.mark.parametrize("src", [
    "distinct(xs)", "union(xs)", "intersection(xs, xs)", "difference(xs, xs)", "{x for x in xs}",
])
def test_unhashable_items_fall_back_and_are_charged_for_the_quadratic_work(src):
    xs = [[i] for i in range(300)]  # 300 lists: ~45,000 comparisons
    ev(src, limit=200_000, xs=xs)  # within a generous bound
    with pytest.raises(RuleRuntimeError, match="work bound"):
        ev(src, limit=10_000, xs=xs)


# ---------------------------------------------------------------- per element produced
@pytest.mark.parametrize("src", [
    "sum(xs, [])",                               # 10,000 elements produced
    "[x for x in ys if x in zs]",                # 100 x 100 membership tests
    "let a = [1]; " + "let a = a + a; " * 14 + "len(a)",   # 16,384 elements
    "let a = 'ab'; " + "let a = a + a; " * 13 + "len(a)",
    "keys(m)", "values(m)", "items(m)", "combined([m, m])", "biggest(m)",
    "len(range(9000))", "len(str(ys * 100))", "count(zs * 100, 1)",
])
def test_builtins_and_operators_charge_what_they_produce(src):
    names = {"xs": [[0] * 100 for _ in range(100)], "ys": list(range(100)), "zs": list(range(100, 200)),
             "m": {str(i): i for i in range(6000)}}
    ev(src, limit=100_000, **names)  # within a generous bound
    with pytest.raises(RuleRuntimeError, match="work bound"):
        ev(src, limit=5_000, **names)


def test_doubling_in_a_let_chain_hits_the_bound_long_before_memory_runs_out():
    src = "let a = 'abcdefgh'; " + "let a = a + a; " * 40 + "len(a)"
    with pytest.raises(RuleRuntimeError, match="work bound"):
        ev(src)


# ---------------------------------------------------------------- big integers
def test_a_huge_integer_literal_is_refused_where_it_is_written():
    with pytest.raises(ExpressionError) as info:
        compile_expression("x * " + "7" * 1300, ["x"])
    assert (info.value.line, info.value.column) == (1, 5)
    assert "too large" in info.value.message


def _assignment(source, variables):
    unit = CodeUnit(Scope(vars={n: None for n in variables}))
    handle = unit.add_statement(source)
    unit.build()
    return handle.fn


@pytest.mark.parametrize("statement", [
    "x = x * " + "9" * 1000,    # a 1,000-digit multiplier, applied again and again
    "x *= " + "9" * 1000,
    "x = x * x + 1",
    "x += x",
    "x = x * 10",
])
def test_repeated_multiplication_in_a_loop_stops(statement):
    assign = _assignment(statement, ["x"])
    variables = {"x": 3}
    with pytest.raises(RuleRuntimeError, match="too large|larger than"):
        for _ in range(100_000):
            assign(variables, {})
    assert variables["x"].bit_length() <= 4096 + 1


def test_int_of_a_long_text_is_refused():
    with pytest.raises(RuleRuntimeError, match="too large|larger than"):
        ev("int(t)", t="9" * 4000)
