"""Generated functions are compiled on their first call: a function held before that call (by
an action's requirement list, say) becomes the compiled function itself, and an expression
never called is never compiled."""
import pytest

from interpreter.expr import compiler as C
from interpreter.expr.compiler import CodeUnit, Scope, compile_expression


@pytest.fixture(autouse=True)
def _no_disk_cache(monkeypatch):
    """Code from the per-user cache would arrive compiled: these tests watch first calls."""
    monkeypatch.setenv("RULEBOOK_CACHE", "0")


def _unit(*sources, defines=None):
    scope = Scope(vars={"a": "number", "b": "number", "m": None}, defines={k: p for k, (p, _) in (defines or {}).items()})
    unit = CodeUnit(scope, {})
    for name, (params, body) in (defines or {}).items():
        unit.add_define(name, params, body)
    handles = [unit.add_expression(s) for s in sources]
    unit.build()
    return unit, handles


def test_a_function_held_before_its_first_call_becomes_the_compiled_one():
    unit, (h1, h2) = _unit("a * 1000 + b * 77 + 424242", "a - b - 171717")
    held = h1.fn
    assert held.__code__ is C._stub_code()  # (the expression is new to this process)
    assert held({"a": 2, "b": 3}, {}) == 2000 + 231 + 424242
    assert held.__code__ is not C._stub_code()
    assert held is unit.ns[h1.name] and held({"a": 1, "b": 0}, {}) == 1000 + 424242
    assert h2.fn({"a": 5, "b": 1}, {}) == 5 - 1 - 171717


def test_an_expression_never_called_is_never_compiled():
    before = len(C._CODE_CACHE)
    _unit("a * 31337 + b * 8675309")
    assert len(C._CODE_CACHE) == before


def test_the_checked_fallback_and_named_expressions_compile_on_demand():
    unit, (h,) = _unit("twice(m['k']) + 999331", defines={"twice": (["x"], "x * 2 + 123457")})
    assert h.fn({"m": {"k": 4}}, {}) == 8 + 123457 + 999331
    from interpreter.errors import RuleRuntimeError

    with pytest.raises(RuleRuntimeError) as caught:  # a missing key: the checked version explains it
        h.fn({"m": {}}, {})
    assert str(caught.value) == "no key 'k' in {}"


def test_compile_expression_still_evaluates():
    ce = compile_expression("sum(x * 3 for x in xs) + 8181", ["xs"])
    assert ce.evaluate({"xs": [1, 2, 3]}) == 18 + 8181


def test_every_generated_function_of_every_bundled_combination_compiles():
    """Validation no longer compiles what set-up does not run, so this test does: every
    generated function of every module combination of every bundled ruleset is valid Python."""
    import interpreter
    from interpreter.compose import bundled_rulesets

    seen = set()
    for name in bundled_rulesets():
        base = interpreter.load(name, check=False)
        for combo in base.combinations or [{"modules": []}]:
            rs = interpreter.load(name, modules=sorted(combo.get("modules") or []), check=False)
            for entry in rs.unit.lines:
                if entry not in seen:
                    seen.add(entry)
                    compile(entry, "<rulebook expressions>", "exec")
    assert len(seen) > 1000


def test_a_defines_checked_twin_is_compiled_only_when_called():
    """A define that indexes has a fast version and a checked twin (`d_x_safe`, called on a
    lookup error), generated together: each is compiled alone, the twin only when called."""
    unit, (h,) = _unit("pick('k') + 99917", defines={"pick": (["x"], "sum([m[x] for one in [1]]) + 123461")})
    fast, twin = unit.ns["d_pick"], unit.ns["d_pick_safe"]
    assert h.fn({"m": {"k": 4}}, {}) == 4 + 123461 + 99917
    assert fast.__code__ is not C._stub_code() and twin.__code__ is C._stub_code()
    from interpreter.errors import RuleRuntimeError

    with pytest.raises(RuleRuntimeError) as caught:  # a missing key: the twin explains it
        h.fn({"m": {}}, {})
    assert str(caught.value) == "no key 'k' in {}"
    assert twin.__code__ is not C._stub_code()
