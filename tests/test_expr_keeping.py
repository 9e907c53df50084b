"""Calls kept across the evaluations of a requirement while its parameter goes through its
values (interpreter/expr/keeping.py, generate_sharing.py `kept_across`): over a run of
evaluations in which that local changes, the variant gives the values and errors the
expression's own function gives and charges the work bound as it does (never less, so a bound
the reference engine reaches is reached); what reads the changing local or a variable bound
inside is not kept; the compiled game's legal moves use it (tests/rulesets/kept_requirements is
also played step by step against the reference by test_compiled.py)."""
import os

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from interpreter import load
from interpreter.compiled.module import game_module
from interpreter.errors import ExpressionError, RuleRuntimeError
from interpreter.expr.budget import Budget
from interpreter.expr.compiler import CodeUnit
from interpreter.expr.generate import Scope
from interpreter.expr.keeping import keeping_variant
from test_expr_sharing import ENTITIES, EXPRESSIONS, INPUTS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# as in test_expr_sharing, but no named expression reads `n`: here it is the local that changes
DEFINES = {
    "lim": ([], "q + 1"),
    "twice": (["v"], "v * 2"),
    "got": (["v"], "get(m, str(v), none)"),
    "evens": ([], "[x for x in xs if x % 2 == 0]"),
}


def _compiled(source, work_limit=2_000_000):
    """(the unit, the expression's handle) of `source`, `n` a local and the rest state vars."""
    scope = Scope(vars={"xs": None, "m": None, "k": None, "q": None},
                  defines={name: params for name, (params, _) in DEFINES.items()})
    unit = CodeUnit(scope, ENTITIES, Budget(work_limit))
    for name, (params, body) in DEFINES.items():
        unit.add_define(name, params, body)
    handle = unit.add_expression(source, scope.with_locals({"n": None}))
    unit.build()
    return unit, handle


def _run(unit, function, game_vars, values, slots=None):
    """[(outcome, work charged so far)] of evaluations with `n` taking each of `values` (up to
    the first error, as a listing of legal moves stops there)."""
    budget = unit.budget
    budget.reset()
    seen = []
    for value in values:
        names = {"n": value}
        try:
            outcome = ("value", function(game_vars, names) if slots is None else function(game_vars, names, slots))
        except RuleRuntimeError as error:
            outcome = ("error", str(error))
        seen.append((outcome, budget.limit - budget.left))
        if outcome[0] == "error":
            break
    return seen


def _both(source, game_vars, values, work_limit=2_000_000):
    unit, handle = _compiled(source, work_limit)
    plain = _run(unit, handle.fn, game_vars, values)
    variant = keeping_variant(unit, handle, ("n",))
    if variant is None:
        return plain, plain, None
    function, fresh = variant
    return plain, _run(unit, function, game_vars, values, fresh[:]), variant


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, INPUTS, st.lists(st.integers(-2, 4), min_size=1, max_size=4))
def test_kept_calls_give_what_evaluating_each_time_gives(source, names, values):
    game_vars = dict(names, q=names["n"])
    try:
        plain, kept, _ = _both(source, game_vars, values)
    except ExpressionError:
        assume(False)
    assert [outcome for outcome, _ in kept] == [outcome for outcome, _ in plain]
    # the work charged: the same, or more where a call kept could not be shared as well
    assert all(kept_work >= plain_work for (_, kept_work), (_, plain_work) in zip(kept, plain))


@pytest.mark.parametrize("source", [
    "n + twice(q) > lim",
    "[x for x in xs if x < n + len(evens)]",
    "got(q) != none and got(q) > n",  # kept, and shared after the test as a call is
    "sum(xs) + n if n > 0 else sum(xs)",
    "(let a = twice(q); a + n > sum(evens))",
])
def test_a_call_that_does_not_read_the_changing_local_is_kept_and_charged_each_time(source):
    game_vars = {"xs": list(range(40)), "m": {"1": 5, "2": 0}, "k": "k1", "q": 2}
    plain, kept, variant = _both(source, game_vars, [0, 1, 2, 3])
    assert variant is not None, source
    assert kept == plain  # the same values, the same work charged after each evaluation


@pytest.mark.parametrize("source", [
    "twice(n) > 0",  # reads the local that changes
    "[twice(x) for x in xs if x > n]",  # reads a variable bound inside
    "(let a = q; twice(a) + n)",  # a variable bound inside (the let's)
    "n + len(xs) > 0",  # a builtin that neither goes through a collection nor charges
])
def test_what_may_differ_between_evaluations_is_not_kept(source):
    unit, handle = _compiled(source)
    assert keeping_variant(unit, handle, ("n",)) is None


def test_a_kept_call_counts_toward_the_work_bound_as_often_as_it_is_read():
    # each evaluation goes through 300,000 elements: the third reaches a bound of 800,000
    source = "n + sum([1 for x in range(1000) for y in range(300)]) > 0"
    plain, kept, variant = _both(source, {"xs": [], "m": {}, "k": "k1", "q": 0}, [0, 1, 2, 3], work_limit=800_000)
    assert variant is not None
    assert [outcome[0] for outcome, _ in plain] == ["value", "value", "error"]
    assert [outcome for outcome, _ in kept] == [outcome for outcome, _ in plain]


def test_a_local_the_named_expressions_may_read_is_never_kept_across():
    scope = Scope(vars={"xs": None}, locals={"player": "number"}, defines={"mine": []})
    unit = CodeUnit(scope)
    unit.add_define("mine", [], "player + len(xs)")
    handle = unit.add_expression("mine + 1 > player")
    unit.build()
    assert keeping_variant(unit, handle, ("player",)) is None


def test_the_compiled_legal_moves_keep_the_calls_of_the_earlier_parameter():
    ruleset = load(os.path.join(ROOT, "tests", "rulesets", "kept_requirements"))
    source = game_module(ruleset).source
    assert "kept1 = _slots" in source and "(V, L, kept1)" in source
    # the same moves as the reference engine lists, from a position where the call matters
    builds = 0
    for seed in range(3):
        reference = ruleset.new_game(3, seed=seed)
        compiled = ruleset.new_game(3, seed=seed, engine="compiled")
        for step in range(8):
            expected = [action.key for action in reference.legal_actions()]
            assert [action.key for action in compiled.legal_actions()] == expected
            builds += sum(key[0] == "build" for key in expected)
            reference.apply(reference.legal_actions()[step % len(expected)])
            compiled.apply(compiled.legal_actions()[step % len(expected)])
            assert compiled.hash() == reference.hash()
    assert builds > 20
