"""Small named expressions written into the code that calls them (interpreter/expr/inlining.py):
the same values and the same errors as calling them, and never less work charged, on random
expressions and inputs; which calls are written in, and which are not."""
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter import compile_expression
from interpreter.errors import ExpressionError, RuleRuntimeError
from interpreter.expr import compiler
from interpreter.expr.compiler import CodeUnit
from interpreter.expr.generate import Scope
from interpreter.expr.pure import memo_helpers, pure_defines, with_kept_values

DEFINES = {
    "hold": (["p", "m"], "get(shares[p], m, 0)"),  # a fast variant and a checked one
    "twice": (["v"], "v * 2"),  # one variant
    "pick": (["i"], "xs[i]"),
    "bigger": (["a", "b"], "max(a, b) if a != none and b != none else 0"),
    "nested": (["p"], "hold(p, 'a') + twice(p)"),  # calls small ones
    "evens": ([], "[x for x in xs if x % 2 == 0]"),  # a comprehension: called, not written in
    "costly": (["v"], "sum(range(v)) if v > 0 else 0"),  # charges the work bound
    "half": (["v"], "v / 2"),  # division: a rule error for zero (not a lookup error)
}
INPUTS = st.fixed_dictionaries({
    "shares": st.sampled_from([[{"a": 1}, {"b": 2}], [{"a": 3}], [{"a": 1}, [5]], {"0": {"a": 4}}]),
    "xs": st.sampled_from([[1, 2, 3], [], [0, "a"]]),
    "n": st.sampled_from([0, 1, 2, -1, "a", None]),
    "k": st.sampled_from(["a", "b", 0, None]),
})


def _leaf():
    return st.sampled_from(["n", "k", "0", "1", "2", "'a'", "none", "len(xs)", "xs[0]", "shares[0]"])


def _expression(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "==", "or"]), children).map(" ".join).map("({})".format),
        st.tuples(children, children, children).map(lambda p: f"({p[0]} if {p[1]} else {p[2]})"),
        st.tuples(_leaf(), _leaf()).map(lambda p: f"hold({p[0]}, {p[1]})"),
        _leaf().map(lambda c: f"twice({c})"),
        _leaf().map(lambda c: f"pick({c})"),
        st.tuples(_leaf(), _leaf()).map(lambda p: f"bigger({p[0]}, {p[1]})"),
        _leaf().map(lambda c: f"nested({c})"),
        _leaf().map(lambda c: f"costly({c})"),
        _leaf().map(lambda c: f"half({c})"),
        children.map(lambda c: f"twice({c})"),  # an argument that is not a name: called
        st.sampled_from(["a", "b"]).map(lambda v: f"[hold({v}, k) for {v} in range(3)]"),
        st.just("evens"),
    )


EXPRESSIONS = st.recursive(_leaf(), _expression, max_leaves=6)


def _outcome(source, names, written_in: bool, work_limit=2_000_000):
    """(value or error, work charged) of `source` compiled with or without calls written in."""
    keep = compiler.inline_small_defines
    if not written_in:
        compiler.inline_small_defines = lambda entries, *_rest: entries
    try:
        compiled = compile_expression(source, names, functions=DEFINES, work_limit=work_limit)
        budget = compiled._budget
        try:
            value = ("value", compiled(dict(names)))
        except RuleRuntimeError as error:
            value = ("error", str(error))
        return value, None if budget is None else budget.limit - budget.left
    except ExpressionError as error:
        return ("not compiled", str(error)), None
    finally:
        compiler.inline_small_defines = keep


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, INPUTS)
def test_written_in_calls_give_what_calls_give(source, names):
    (written, written_work), (called, called_work) = _outcome(source, names, True), _outcome(source, names, False)
    assert written == called
    # the work: the same, or more when a lookup error inside the written-in code sends the whole
    # expression to its checked variant (which starts again), where the call's own checked
    # variant took over only the define's part
    assert (written_work or 0) >= (called_work or 0)


def test_the_work_bound_stops_a_written_in_define_where_it_stops_the_call():
    names = {"shares": [], "xs": [], "n": 90_000, "k": None}
    for source in ["costly(n) + twice(n)", "twice(n) + costly(n) + costly(n)"]:
        written, called = _outcome(source, names, True, 150_000), _outcome(source, names, False, 150_000)
        assert written == called
    assert "work bound" in _outcome("twice(n) + costly(n) + costly(n)", names, True, 150_000)[0][1]


def _functions(source: str, names=("shares", "xs", "n", "k")) -> str:
    """The generated source of `source` and the defines, with the calls written in."""
    scope = Scope(vars={name: None for name in names}, defines={name: params for name, (params, _) in DEFINES.items()})
    unit = CodeUnit(scope)
    for name, (params, body) in DEFINES.items():
        unit.add_define(name, params, body)
    unit.add_expression(source)
    params = {name: given[2] for name, given in unit.define_sources.items()}
    entries = with_kept_values(list(dict.fromkeys(unit.lines)), pure_defines(unit.define_reads, unit.define_calls),
                               params, dict(memo_helpers(unit.budget, {})))
    return "\n".join(compiler.inline_small_defines(entries, unit.define_codes, params))


def _fast_function(generated: str, prefix: str) -> str:
    """The function named `prefix...` that falls back to a checked variant (or the only one)."""
    functions = re.split(r"(?m)^(?=def )", generated)
    named = [function for function in functions if function.startswith("def " + prefix)]
    return next((function for function in named if "_safe(" not in function.split("\n")[0]), named[0])


@pytest.mark.parametrize("source,written,called", [
    ("[xs[0] + hold(a, 'b') for a in range(2)]", ["_V['shares'][u_a].get('b', 0)"], ["d_hold("]),  # a fast variant
    ("xs[0] + hold(n, k)", [], []),  # a var for a parameter read three times: called (a dict read each time)
    ("twice(n) + 1", ["(_mulk(_V['n'], 2))"], ["d_twice("]),  # one variant: written in anywhere
    ("hold(n, k) + 1", [], []),  # hold's fast code, in a function without a checked variant: called
    ("twice(n + 1)", [], []),  # an argument that is not a name or a literal: called
    ("len(evens) + xs[0]", [], []),  # a comprehension: called
    ("[xs[0] + nested(a) for a in range(2)]", ["_V['shares'][u_a].get('a', 0)"], ["d_nested(", "d_hold(", "d_twice("]),
])
def test_what_is_written_in(source, written, called):
    generated = _functions(source)
    function = _fast_function(generated, "_e")
    body = function.split("\n", 1)[1]
    for text in written:
        assert text in body, body
    for text in called:
        assert text not in body, body
    if not written:
        assert body.count("d_") >= 1, body


def test_a_define_whose_values_are_kept_is_called():
    # `costly` reads only its argument and goes through a collection: pure.py keeps its values
    generated = _functions("xs[0] + costly(n)")
    assert "d_costly(" in _fast_function(generated, "_e")


def test_the_cutting_and_the_call_search_find_what_the_plain_regular_expressions_find():
    """inlining.py's `function_sources` (str.find) and `_CALL` (the look-behind after the `d`) are
    quicker forms of a split at `(?m)^(?=def )` and of `(?<![\\w.])d_(\\w+)\\(`: the same pieces
    and the same calls, at the same places, over 20,000 seeded soups of the pieces they meet."""
    import random
    import re

    from interpreter.expr.inlining import _CALL, function_sources

    split_at_def, call = re.compile(r"(?m)^(?=def )"), re.compile(r"(?<![\w.])d_(\w+)\(")
    pieces = ["def ", "def d_x(", "\n", "d_", "d_a(", "xd_b(", ".d_c(", " ", "d", "_", "(", "ab", "\ndef ", "dd_e(",
              "_d_f(", "1d_g("]
    rng = random.Random(15)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 15)))
        assert [piece for piece in split_at_def.split(text) if piece] == [piece for piece in function_sources(text) if piece]
        assert "".join(function_sources(text)) == text
        assert [(found.span(), found.group(1)) for found in call.finditer(text)] == \
            [(found.span(), found.group(1)) for found in _CALL.finditer(text)]
