"""The expression parser (`parser.parse`, Lark's documented `Lark.parse`): every expression
of every bundled ruleset parses; on input the grammar refuses, `parse` raises ExpressionError
with a position inside the text, never another exception; well-formed random expressions parse."""
import functools
import glob
import os
import random
import re

import pytest
from hypothesis import given, settings, strategies as st
from lark import Tree

from interpreter.errors import ExpressionError
from interpreter.expr import compiler as C
from interpreter.expr import parser as P

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _outcome(text, start):
    """("tree", tree) or ("error", line, column): anything else escapes as a test failure."""
    try:
        tree = P._parse(text, start)
    except ExpressionError as e:
        lines = text.split("\n")
        assert 1 <= e.line <= len(lines), (text, e.line)
        assert 1 <= e.column <= len(lines[e.line - 1]) + 1, (text, e.line, e.column)
        return ("error", e.line, e.column)
    assert isinstance(tree, Tree) and tree.data == start
    return ("tree", tree)


@functools.lru_cache(maxsize=1)
def _bundled_expressions():
    """Every expression and statement the bundled rulesets compile (recorded while loading,
    with the compiler's memos emptied so that every expression is parsed)."""
    import interpreter

    seen = {}
    saved = P._parse
    C.clear_memos()

    def record(source, start="expression"):
        seen[(str(source), start)] = None
        return saved(source, start)

    P._parse = record
    saved_env = os.environ.get("RULEBOOK_CACHE")
    os.environ["RULEBOOK_CACHE"] = "0"  # no per-user disk cache either
    try:
        for folder in sorted(glob.glob(os.path.join(ROOT, "rulesets", "*", "game.yaml"))):
            interpreter.load(os.path.dirname(folder), check=False)
    finally:
        P._parse = saved
        if saved_env is None:
            del os.environ["RULEBOOK_CACHE"]
        else:
            os.environ["RULEBOOK_CACHE"] = saved_env
    return list(seen)


CORNERS = [
    ("a", "expression"), ("1.5 + -2 ** 3 // 4 % 5", "expression"), ("not a in b and c not in d", "expression"),
    ("x if y else z if w else v", "expression"), ("lambda p, q: p + q", "expression"),
    ("let n = 3; n * n", "expression"), ("f(x for x in xs if x)", "expression"),
    ("[x for x in xs for y in ys if x if y]", "expression"),
    ("{x for x in xs}", "expression"), ("{}", "expression"), ("{'a': 1, 'b': [2, 3],}", "expression"),
    ("(1,)", "expression"), ("(1, 2, 3)", "expression"), ("xs[1:]", "expression"), ("xs[:2]", "expression"),
    ("xs[:]", "expression"), ("'it\\'s' + \"q\\\"\"", "expression"),
    ("a\n  + b  # a note\n  + c", "expression"), ("true or True or none or None or false", "expression"),
    ("a <= b < c != d == e >= f > g", "expression"), ("a == b", "expression"), ("x = 1", "statement"),
    ("x //= 2", "statement"), ("x[i].y += 3", "statement"), ("x -= y", "statement"), ("m['k'] *= 2", "statement"),
    ("iffy + elsewhere + notable + lambdas", "expression"),
    # refused by the grammar: no tree from either
    ("a = 1", "expression"), ("{k: v for k in ks}", "expression"), ("a.b.c[d](e)", "expression"), ("f(a, b=2, *[1])", "expression"), ("x == 1", "statement"), ("_x", "expression"), ("a +", "expression"),
    ("(a", "expression"), ("a b", "expression"), ("1 +* 2", "expression"), ("", "expression"), ("a // = b", "statement"),
    ("a && b", "expression"), ("x //= ", "statement"),
]


def test_every_bundled_expression_parses():
    exprs = _bundled_expressions()
    assert len(exprs) > 1000
    for text, start in exprs:
        assert _outcome(text, start)[0] == "tree", text


REFUSED_FROM = CORNERS.index(("a = 1", "expression"))


@pytest.mark.parametrize("text,start", CORNERS[:REFUSED_FROM])
def test_the_corners_of_the_grammar_parse(text, start):
    assert _outcome(text, start)[0] == "tree"


@pytest.mark.parametrize("text,start", CORNERS[REFUSED_FROM:])
def test_text_the_grammar_refuses_is_an_error_with_a_position(text, start):
    assert _outcome(text, start)[0] == "error"


def test_a_node_is_at_its_first_token():
    tree = P._parse("a +\n  f(b)[c]", "expression")
    add = tree.children[0]
    index = add.children[1]
    assert P.position_of(tree) == P.position_of(add) == (1, 1)
    assert P.position_of(index) == (2, 3)  # `f(b)[c]` starts at `f`
    for node in tree.iter_subtrees():
        line, col = P.position_of(node)
        assert line >= 1 and col >= 1


_PIECES = ["a", "b1", "1", "2.5", "'s'", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "+", "-", "*", "/",
           "//", "%", "**", "<", "<=", "==", "!=", "=", "+=", "if", "else", "for", "in", "not", "and", "or",
           "lambda", "let", "true", "none", " ", "\n", "# c\n", "f(", "x.y", "_"]


_SOUP = random.Random(7)


def test_random_token_soup_parses_or_is_an_error_with_a_position():
    outcomes = {"tree": 0, "error": 0}
    for _ in range(1500):
        pieces = [_SOUP.choice(_PIECES) for _ in range(_SOUP.randint(1, 12))]
        start = _SOUP.choice(["expression", "statement"])
        outcomes[_outcome(" ".join(pieces), start)[0]] += 1
    # the soup is mostly refused, but not only: both paths are exercised (seeded, so fixed)
    assert outcomes["tree"] >= 20 and outcomes["error"] >= 1000, outcomes


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12), st.sampled_from(["expression", "statement"]))
def test_token_soup_never_escapes_as_another_exception(pieces, start):
    assert _outcome(" ".join(pieces), start)[0] in ("tree", "error")


# --- random well-formed expressions (seeded): most parse, so the trees themselves are compared
_R = random.Random(11)
_NAMES = ["a", "b", "xs", "card", "p", "iffy", "notes", "orbit", "lambdas", "True", "none", "false"]
_OPS = ["+", "-", "*", "/", "//", "%", "**", "<", "<=", "==", "!=", ">", ">=", "in", "not in", "and", "or"]


def _atom(d):
    k = _R.randint(0, 9) if d > 0 else _R.choice([0, 1, 9])
    if k == 0:
        return str(_R.randint(0, 99))
    if k == 1:
        return _R.choice(["'s'", '"t"', "'a\\'b'", "2.5"])
    if k == 2:
        return "(" + _expr(d - 1) + ")"
    if k == 3:
        return "[" + ", ".join(_expr(d - 1) for _ in range(_R.randint(0, 3))) + "]"
    if k == 4:
        return "{" + ", ".join(_expr(d - 1) + ": " + _expr(d - 1) for _ in range(_R.randint(0, 2))) + "}"
    if k == 5:
        cond = " if " + _expr(d - 1) if _R.random() < .5 else ""
        return "[" + _expr(d - 1) + " for x in " + _expr(d - 1) + cond + "]"
    if k == 6:
        return "(" + _expr(d - 1) + ", " + _expr(d - 1) + ")"
    return _R.choice(_NAMES)


def _postfix(d):
    s = _atom(d) if _R.random() < .7 else _R.choice(["f", "count", "max"]) + "(" + _args(d) + ")"
    for _ in range(_R.randint(0, 2)):
        k = _R.randint(0, 2) if d > 0 else 0
        if k == 0:
            s += "." + _R.choice(_NAMES[:5])
        elif k == 1:
            s += "[" + _expr(d - 1) + "]"
        else:
            s += "[" + _R.choice(["", _expr(d - 1)]) + ":" + _R.choice(["", _expr(d - 1)]) + "]"
    return s


def _args(d):
    k = _R.randint(0, 3) if d > 0 else 0
    if k == 0:
        return ""
    if k == 1:
        return _expr(d - 1) + " for y in " + _postfix(d - 1)
    parts = [_expr(d - 1) for _ in range(_R.randint(1, 3))]
    if _R.random() < .3:
        parts.append("key=" + ("lambda q: " + _expr(d - 1) if _R.random() < .5 else _expr(d - 1)))
    return ", ".join(parts)


def _expr(d):
    k = _R.randint(0, 6)
    if d <= 0 or k < 2:
        return _postfix(d)
    if k == 2:
        return _R.choice(["-", "+", "not "]) + _expr(d - 1)
    if k == 3:
        return _expr(d - 1) + " if " + _expr(d - 1) + " else " + _expr(d - 1)
    if k == 4 and _R.random() < .3:
        return "let z = " + _expr(d - 1) + "; " + _expr(d - 1)
    return _expr(d - 1) + " " + _R.choice(_OPS) + " " + _expr(d - 1)


def test_random_well_formed_expressions_parse():
    parsed = 0
    for _ in range(2000):
        text = _expr(_R.randint(0, 4))
        if _R.random() < .2:
            text = text.replace(" ", "\n  ", 1)
        start = "expression"
        if _R.random() < .2:
            start = "statement"
            text = _R.choice(["x", "m[k]", "a.b"]) + " " + _R.choice(["=", "+=", "-=", "*=", "//="]) + " " + text
        outcome = _outcome(text, start)
        parsed += outcome[0] == "tree"
    # a few are refused on purpose (keyword-named fields like `a.True`, too deep): most parse
    assert parsed > 1500


# --- the shipped LALR tables (parser_tables.py) against the parser Lark builds from grammar.lark
def test_the_shipped_tables_are_built_from_this_grammar():
    from interpreter.expr import parser_tables

    assert parser_tables.stale() == "", (
        "grammar.lark (or Lark) changed since the tables were written: run `python -m interpreter.expr.parser_tables`"
        f" ({parser_tables.stale()})")
    assert parser_tables.load_parser() is not None


def _full_outcome(parser, text, start, monkeypatch):
    """The tree, or everything an ExpressionError says, parsing with `parser`. The tokens a
    syntax error lists as expected are left out: which of them Lark's table builder offers at an
    error depends on the reduction it made its default in that state, chosen in set order, so two
    fresh builds under different hash seeds can list different ones (the shipped tables always
    give the same list)."""
    monkeypatch.setattr(P, "_parser", lambda: parser)
    try:
        return ("tree", P._parse(text, start))
    except ExpressionError as e:
        unlisted = [re.sub(r"expected .*", "expected ...", part) if part else part for part in (e.message, e.hint)]
        return ("error", unlisted[0], e.line, e.column, unlisted[1], e.code)


def test_the_shipped_tables_parse_exactly_as_the_grammar(monkeypatch):
    from interpreter.expr import parser_tables

    shipped, built = parser_tables.load_parser(), parser_tables.build_parser()
    soup = random.Random(5)
    texts = list(_bundled_expressions()) + CORNERS
    texts += [(" ".join(soup.choice(_PIECES) for _ in range(soup.randint(1, 12))),
               soup.choice(["expression", "statement"])) for _ in range(1500)]
    errors = 0
    for text, start in texts:
        expected = _full_outcome(built, text, start, monkeypatch)
        assert _full_outcome(shipped, text, start, monkeypatch) == expected, (text, start)
        errors += expected[0] == "error"
    assert errors > 1000  # the refusals (and their messages) are compared too, not only trees


def test_the_action_rows_read_back_as_lark_wrote_them():
    """The action table is shipped as flat integer rows (parser_tables._flat_actions): reading
    them back gives Lark's serialized table exactly, shifts and reductions alike."""
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    from interpreter.expr import parser_tables

    data, _memo = parser_tables.build_parser().memo_serialize([TerminalDef, Rule])
    states = data["parser"]["parser"]["states"]
    rows = parser_tables._flat_actions(states)
    assert all(isinstance(number, int) for row in rows for number in row)
    assert parser_tables._nested_actions(rows) == states
    kinds = {kind for actions in states.values() for kind, _target in actions.values()}
    assert kinds == {0, 1}  # both shifts and reductions went through the rows


def test_tables_for_another_grammar_or_lark_are_not_used(tmp_path):
    """A stale file is refused (the caller then builds from grammar.lark); nothing is unpickled."""
    import json

    from interpreter.expr import parser_tables

    with open(parser_tables.TABLES_PATH, encoding="utf-8") as shipped:
        document = json.load(shipped)
    for key, value in [("grammar_sha256", "0" * 64), ("lark", "0.0.1"), ("options", {"parser": "earley"})]:
        path = tmp_path / f"{key}.json"
        path.write_text(json.dumps(dict(document, header=dict(document["header"], **{key: value}))))
        assert parser_tables.load_parser(str(path)) is None
        assert key in parser_tables.stale(str(path))
    (tmp_path / "broken.json").write_text("{not json")
    assert parser_tables.load_parser(str(tmp_path / "broken.json")) is None
    assert parser_tables.load_parser(str(tmp_path / "missing.json")) is None


def test_reading_the_tables_never_unpickles(monkeypatch):
    import pickle

    from interpreter.expr import parser_tables

    def refuse(*args, **kwargs):
        raise AssertionError("pickle used")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    assert parser_tables.load_parser().parse("a + 1", start="expression").data == "expression"
