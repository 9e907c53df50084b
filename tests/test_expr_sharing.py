"""The generated expression code that does not repeat work (interpreter/expr/generate_sharing.py
and the folded `range` of generate_calls.py): the same values and the same errors as the code
generated without it, on random expressions and inputs; the work bound still stops a hostile
expression; and the sharing happens where it is sound, and only there."""
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter import compile_expression
from interpreter.errors import ExpressionError, RuleRuntimeError
from interpreter.expr import generate_sharing
from interpreter.expr.compiler import _GEN_CACHE, CodeUnit
from interpreter.expr.generate import Scope

DEFINES = {
    "lim": ([], "n + 1"),
    "twice": (["v"], "v * 2"),
    "got": (["v"], "get(m, str(v), none)"),
    "evens": ([], "[x for x in xs if x % 2 == 0]"),
}
NAMES = {"n": 2, "xs": [1, 2, 3], "m": {"1": 5, "2": 0}, "k": "k1"}
ENTITIES = {"k1": {"id": "k1", "type": "card", "cost": 3}, "k2": {"id": "k2", "type": "card"}}


def outcome(source, names, *, sharing, work_limit=2_000_000):
    """What evaluating `source` gives, compiled with or without sharing and folding."""
    generate_sharing.ENABLED = sharing
    _GEN_CACHE.clear()  # (generated code is memoised by text: generate it again)
    try:
        compiled = compile_expression(source, names, functions=DEFINES, work_limit=work_limit,
                                      entities=ENTITIES)
        return "value", compiled(dict(names))
    except (ExpressionError, RuleRuntimeError) as error:
        return "error", str(error)
    finally:
        generate_sharing.ENABLED = True
        _GEN_CACHE.clear()


def _leaf():
    return st.sampled_from(["n", "lim", "0", "1", "3", "a", "b", "none", "len(xs)", "-1", "k.cost", "k.id",
                            "get(m, k)", "get(m, n, 0)", "get(m, '1', -1)", "get(k, '1')", "get(xs, n)"])


def _lists():
    return st.sampled_from(["xs", "range(4)", "range(1, 3)", "range(3, -2, -1)", "evens", "range(0)",
                            "[a, b]", "m"])


def _expression(children):
    pair = st.tuples(children, children)
    return st.one_of(
        pair.map(lambda p: f"({p[0]} + {p[1]})"),
        pair.map(lambda p: f"({p[0]} == {p[1]})"),
        pair.map(lambda p: f"({p[0]} < {p[1]})"),
        pair.map(lambda p: f"({p[0]} and {p[1]})"),
        children.map(lambda c: f"(not {c})"),
        st.tuples(children, children, children).map(lambda p: f"({p[0]} < {p[1]} <= {p[2]})"),
        pair.map(lambda p: f"({p[0]} or {p[1]})"),
        st.tuples(children, children, children).map(lambda p: f"({p[0]} if {p[1]} else {p[2]})"),
        children.map(lambda c: f"twice({c})"),
        children.map(lambda c: f"got({c})"),
        children.map(lambda c: f"get(m, {c})"),
        st.tuples(st.sampled_from("ab"), _lists()).map(lambda p: f"[{p[0]}.cost for {p[0]} in {p[1]}]"),
        st.tuples(children, st.sampled_from("ab"), _lists(), children).map(
            lambda p: f"[{p[0]} for {p[1]} in {p[2]} if {p[3]}]"),
        st.tuples(children, _lists()).map(lambda p: f"({p[0]} in {p[1]})"),
        st.tuples(st.sampled_from("ab"), children, children).map(lambda p: f"(let {p[0]} = {p[1]}; {p[2]})"),
        _lists().map(lambda l: f"sum({l})"),
        _lists(),
        # the same call again after a part that makes it (or may not)
        st.tuples(_calls(children), children, children).map(lambda p: f"({p[0]} if {p[0]} == {p[1]} else {p[2]})"),
        st.tuples(_calls(children), children).map(lambda p: f"(({p[0]} < {p[1]}) and ({p[0]} + 1))"),
        st.tuples(_calls(children), children).map(lambda p: f"(({p[1]} or {p[0]}) or {p[0]})"),
        st.tuples(_calls(children), children).map(lambda p: f"(({p[1]} and {p[0]}) and {p[0]})"),
        st.tuples(_calls(children), children, children).map(
            lambda p: f"({p[0]} if not ({p[1]} and {p[0]}) else {p[2]})"),
        st.tuples(_calls(children), children, children).map(lambda p: f"(({p[1]} < {p[2]} < {p[0]}) or {p[0]})"),
        st.tuples(_calls(children), st.sampled_from("ab"), _lists()).map(
            lambda p: f"[{p[0]} for {p[1]} in {p[2]} if {p[0]} != 0]"),
        st.tuples(st.sampled_from("ab"), _lists(), children).map(
            lambda p: f"[({p[0]} + lim) for {p[0]} in {p[1]} if {p[2]} and lim > {p[0]}]"),
        # `any`/`all` of a generator: only the deciding item yielded (generate_calls.py)
        st.tuples(st.sampled_from(["any", "all"]), children, st.sampled_from("ab"), _lists()).map(
            lambda p: f"{p[0]}({p[1]} for {p[2]} in {p[3]})"),
        st.tuples(st.sampled_from(["any", "all"]), children, st.sampled_from("ab"), _lists(), children).map(
            lambda p: f"{p[0]}({p[1]} for {p[2]} in {p[3]} if {p[4]})"),
    )


def _calls(children):
    return st.one_of(children.map(lambda c: f"twice({c})"), children.map(lambda c: f"got({c})"),
                     st.just("lim"), st.just("len(evens)"))


EXPRESSIONS = st.recursive(_leaf(), _expression, max_leaves=12)
INPUTS = st.fixed_dictionaries({
    "n": st.integers(-2, 4),
    "xs": st.lists(st.integers(-3, 5), max_size=5),
    "m": st.dictionaries(st.sampled_from(["0", "1", "2", "3"]), st.integers(-1, 3), max_size=4),
    "k": st.sampled_from(["k1", "k2", "nope", "1", {"cost": 2}, {}, 3, None, [1]]),
})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS, INPUTS)
def test_shared_code_gives_what_the_plain_code_gives(source, names):
    assert outcome(source, names, sharing=True) == outcome(source, names, sharing=False)


@pytest.mark.parametrize("source", [
    "got(n) if got(n) != none else 0",
    "[twice(x) for x in xs if twice(x) > 2]",
    "got(1) != none and got(1) > 1",
    "[x for x in xs if x < lim]",
    "[y for x in range(3) if twice(x) > 0 for y in range(twice(x))]",
    "(n > 0 and got(1) != none) and got(1) > 2",  # the left true: both its operands were evaluated
    "not (n > 0 and got(1) != none) or got(1)",  # the left false: the `and` inside was true
    "(n < 0 or got(1) == none) or got(1) > 2",  # the left false: both its operands were evaluated
    "got(1) if n < 3 < got(1) else 0",  # the chain true: every operand was evaluated
])
def test_the_repeated_call_is_made_once(source):
    generated = _generated(source)
    assert ":=" in generated, generated
    assert outcome(source, NAMES, sharing=True) == outcome(source, NAMES, sharing=False)


@pytest.mark.parametrize("source", [
    "got(n) == 1 or [got(n) for n in xs]",  # `n` bound anew: another value
    "(n > 0 and got(n) != none) or got(n) == 0",  # the left does not always make the call
    "not (n > 0 and got(n) != none) and got(n)",  # the `and` inside may be false on its left
    "0 if n < 3 < got(n) else got(n)",  # the chain false: its last operand may not be evaluated
    "[x for x in [lim for y in xs] if x > 0]",  # a comprehension's iterable: Python refuses `:=` there
    "let k = 1; [x for x in xs if x < lim + k]",  # in a lambda's scope
    "got('twice(1)') if got('twice(1)') else twice(1)",  # the text of a call inside a string is not a call
    "twice([n for a in evens if n]) and twice([n for a in evens if n])",  # `evens` in an iterable
])
def test_no_sharing_where_it_would_not_be_sound(source):
    assert outcome(source, NAMES, sharing=True) == outcome(source, NAMES, sharing=False)
    generated = _generated(source)
    if "got(n)" in source:
        assert ":=" not in generated, generated
    compile(generated, "<test>", "exec")  # the generated code is valid Python


def test_a_string_that_looks_like_a_call_is_left_alone():
    generated = _generated("got(1) if got(1) else 'd_got(_V, _L, 1)'")
    assert "'d_got(_V, _L, 1)'" in generated


@pytest.mark.parametrize("source", [
    "let k = 1; [len(range(100000)) for x in range(100000)]",  # a folded range copied: each copy charged
    "[len(range(100000)) + x for x in range(100000) for y in range(100000)]",
    "[x for x in range(100000) for y in range(100000)]",
    "sum([1 for x in range(100000) if x in range(100000)])",
    "[x for x in range(100000) if lim > 0 and len(evens) >= 0 for y in range(100000)]",
])
def test_a_hostile_expression_is_still_stopped(source):
    kind, message = outcome(source, NAMES, sharing=True, work_limit=1_000_000)
    assert kind == "error" and "work bound" in message, message


def test_a_call_kept_for_every_item_is_made_once():
    # the same value for every item: computed once, so the work is 100,000 items, not 10^10
    kind, value = outcome("[len(range(100000)) for x in range(100000)]", NAMES, sharing=True, work_limit=1_000_000)
    assert kind == "value" and len(value) == 100000
    assert "(_h1 := _f_len(" in _generated("[len(range(100000)) for x in range(100000)]")


def test_a_folded_range_is_a_fresh_list_each_time():
    compiled = compile_expression("range(3)", {})
    first = compiled({})
    first.append(99)
    assert compiled({}) == [0, 1, 2]


def test_a_range_that_would_be_refused_is_refused_at_run_time():
    kind, message = outcome("range(100001)", NAMES, sharing=True)
    assert kind == "error" and "larger than" in message


def _generated(source):
    scope = Scope(vars={name: None for name in NAMES}, defines={name: params for name, (params, _) in DEFINES.items()})
    unit = CodeUnit(scope)
    for name, (params, body) in DEFINES.items():
        unit.add_define(name, params, body)
    unit.add_expression(source)
    return "\n".join(line for line in unit.lines if re.match(r"def _e", line))


@pytest.mark.parametrize("source,value", [
    ("any(x > 2 for x in xs)", True),
    ("any(x > 3 for x in xs)", False),
    ("all(x > 0 for x in xs)", True),
    ("all(x > 1 for x in xs)", False),
    ("any(x for x in [])", False),
    ("all(x for x in [])", True),
    ("any([x] for x in xs)", True),  # a value's truth, as Python's any reads it
    ("all(x - 1 for x in xs)", False),
    ("any(x == 1 or 10 // (x - 1) > 0 for x in xs)", True),  # stops at the item that decides
    ("all(x < 3 and [y for y in xs if n // (y - 1) > 0] for x in [5, 0])", False),
])
def test_any_and_all_decide_at_the_first_item_that_does(source, value):
    generated = _generated(source)  # (as the whole expression: the loop itself, statements.py)
    assert re.search(r"^ +for u_x in .*\n +if \(", generated, re.M) and "_next((" not in generated, generated
    assert "_next((" in _generated(f"[{source}]")
    assert outcome(f"[{source}]", NAMES, sharing=True) == ("value", [value])
    assert outcome(source, NAMES, sharing=True) == ("value", value) == outcome(source, NAMES, sharing=False)


@pytest.mark.parametrize("source,charged", [
    ("[x for x in range(9) if x > n]", "_B.left -= 9"),
    ("any(x > n + 5 for x in range(1, 7))", "_B.left -= 6"),
    ("all(x < 5 for x in range(9, 0, -2) for y in range(3))", "_B.left -= 5"),
    ("any(x > 9 for x in xs)", None),
    ("[x for x in range(4)] + [y for y in range(9)]", None),  # not the first step: `_T` where it was
])
def test_a_folded_range_gone_through_first_is_charged_its_length_at_once(source, charged):
    generated = _generated(source)
    assert (charged in generated) if charged else "_B.left -=" not in generated, generated
    for limit in range(1, 40):  # the same outcome as without folding (the builtin charges), at every bound
        folded, built = (outcome(source, NAMES, sharing=sharing, work_limit=limit) for sharing in (True, False))
        assert folded[0] == built[0] and (folded == built or "work bound" in folded[1] and "work bound" in built[1])


@pytest.mark.parametrize("source", [
    "[x * n for x in range(5) if x != 2]",
    "[x for x in range(0)]",
    "[[y for y in xs if y > x] for x in range(3)]",
    "[10 // (x - 2) for x in range(4)]",  # the error at the item that raises it
    "[got(x) for x in range(1, 4) if x > 0]",
    "[x for x in range(16, 0, -1) if x % 3 == 0]",
])
def test_a_list_comprehension_over_a_short_folded_range_is_a_loop(source):
    generated = _generated(source)
    assert "_result.append((" in generated and "return _result" in generated, generated
    assert outcome(source, NAMES, sharing=True) == outcome(source, NAMES, sharing=False)
    for limit in range(1, 30):  # the same charges at the same steps
        looped, built = (outcome(source, NAMES, sharing=sharing, work_limit=limit) for sharing in (True, False))
        assert looped[0] == built[0] and (looped == built or "work bound" in looped[1] and "work bound" in built[1])


@pytest.mark.parametrize("source", ["[x for x in range(17)]", "[x + y for x in range(3) for y in xs]",
                                    "[x for x in xs]"])
def test_a_long_or_nested_list_comprehension_stays_one(source):
    assert "_result" not in _generated(source)
    assert outcome(source, NAMES, sharing=True) == outcome(source, NAMES, sharing=False)


def test_any_past_the_work_bound_is_stopped():
    kind, message = outcome("any(x < 0 for x in range(100000) for y in range(100000))", NAMES, sharing=True,
                            work_limit=1_000_000)
    assert kind == "error" and "work bound" in message, message


def test_a_name_read_for_each_item_is_read_once_before_the_loop():
    generated = _generated("[x + n for x in range(5) if get(m, str(x), 0) > 0]")
    fast = generated[generated.index("def _e", generated.index("_safe(") + 1):]
    assert "_Vn_n = _V['n']" in fast and "_Vn_m = _V['m']" in fast, fast
    looped = [line for line in fast.splitlines() if " = _V[" not in line]  # (a loop: statements.py)
    assert not any("_V['n']" in line or "_V['m']" in line for line in looped), fast
    assert any("_result.append(" in line and "_Vn_n" in line for line in looped), fast
    # (only over a constant or a literal range: a var's list may be short, the reads not worth it)
    assert "_Vn_" not in _generated("[x + n for x in xs]")


def test_a_missing_name_read_before_the_loop_falls_back_to_the_checked_variant():
    compiled = compile_expression("[x + n for x in range(1, 3)]", {"n": 1})
    assert compiled({"n": 1}) == [2, 3]
    with pytest.raises(RuleRuntimeError):
        compiled({})


def test_a_string_that_looks_like_a_hoisted_name_is_left_alone():
    source = "[x for x in range(1, 4) if '_Vn_n' != x and n > 0]"
    assert "_Vn_n = _V['n']" in _generated(source)
    assert outcome(source, NAMES, sharing=True) == ("value", [1, 2, 3]) == outcome(source, NAMES, sharing=False)


@pytest.mark.parametrize("source", ["get(ms[n], k, 0)", "get(ms[n], 'a')", "get(ms[1], n, -1)",
                                    "get(ms[n][0], 'a', 0)", "[get(ms[x], k, 0) for x in range(3)]"])
@pytest.mark.parametrize("ms", [[{"a": 1}, {"1": 2, "k1": 3}, {}], [{"a": 1}, [4, 5]], [[{"a": 7}]], {"1": {"a": 2}},
                                [{"a": 1}, {"2": 9}, 3]])
@pytest.mark.parametrize("n", [0, 1, 2, 5, "k1"])
def test_get_of_an_indexed_map_gives_what_the_plain_code_gives(source, ms, n):
    names = {"ms": ms, "n": n, "k": "k1"}
    assert outcome(source, names, sharing=True) == outcome(source, names, sharing=False)


def test_get_of_an_indexed_map_reads_it_with_the_map_s_own_get():
    unit = CodeUnit(Scope(vars={"ms": None, "n": None, "k": None}))
    unit.add_expression("get(ms[n], k, 0)")
    generated = "\n".join(unit.lines)
    fast = generated[generated.index("def _e", generated.index("_safe(") + 1):]
    assert "_V['ms'][_V['n']].get(_V['k'], 0)" in fast and "_f_get(" in fast, fast
