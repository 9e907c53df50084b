"""expr/statements.py: the rewrite of a generated expression's `return` is the same whether or
not the code is parsed (the text filter in front of `ast.parse` skips only code that neither
rewrite can apply to)."""
import ast

import pytest

import interpreter
from interpreter.expr import compiler, statements
from interpreter.memo import clear_all


def _parsed_always(code):
    """return_statements without its text filter: every one-line code parsed, as before."""
    plain = f"{statements._INDENT}return {code}\n"
    if "\n" in code:
        return plain
    tree = ast.parse(code, mode="eval").body
    if statements._is_decided_by_one(tree):
        return statements._loops(code, tree.args[0], f"return ({statements._text(code, tree.args[0].elt)})",
                                 f"return ({statements._text(code, tree.args[1])})")
    if isinstance(tree, ast.ListComp):
        charge, first = statements._charged_first(code, tree.generators[0])
        if charge and len(tree.generators) == 1 and statements._folded_length(first) <= statements.SHORT_RANGE:
            return statements._loops(code, tree, f"_result.append(({statements._text(code, tree.elt)}))",
                                     "return _result", "_result = []")
        if charge:
            data, (start, end) = code.encode(), statements._span(tree.generators[0].iter)
            return charge + f"{statements._INDENT}return {data[:start].decode()}{first}{data[end:].decode()}\n"
    return plain


@pytest.mark.parametrize("code", [
    "_next((v for v in x if v), 0)",
    "(_next((v for v in x), None))",
    "[v for v in _T(_R_0_3_1)]",
    "[v for v in _T(_R_0_3_1) if v] + [1]",
    "[v for v in _T(_R_0_99_1) if v]",
    "[v for v in _T(_R_0_3_1) for w in x]",
    "[v for v in x]",
    "a + _next((v for v in x), 0)",
    "_nextx(1)",
    "f(_T(_R_0_3_1))",
])
def test_filter_keeps_every_rewrite(code):
    assert statements.return_statements(code) == _parsed_always(code)


def test_filter_keeps_every_rewrite_of_a_bundled_ruleset(monkeypatch):
    met = []
    original = statements.return_statements

    def recording(code):
        met.append(code)
        return original(code)

    monkeypatch.setattr(compiler, "return_statements", recording)
    clear_all()  # (generated code is memoised by text: a ruleset loaded before would meet none)
    interpreter.load("davos")
    assert len(met) > 100
    rewritten = 0
    for code in met:
        expected = _parsed_always(code)
        assert original(code) == expected
        rewritten += expected != f"{statements._INDENT}return {code}\n"
    assert rewritten > 0
