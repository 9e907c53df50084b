"""The expression parser's own loop (`_Driver`) gives exactly the tree `Lark.parse` gives, with
the same tokens and positions, for every expression of every bundled ruleset and for the
corners of the grammar; on input Lark refuses it gives no tree (Lark then explains)."""
import functools
import glob
import os
import random

import pytest
from hypothesis import given, settings, strategies as st
from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from interpreter.expr import compiler as C

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _shape(t):
    if isinstance(t, Tree):
        m = t.meta
        meta = None if m.empty else tuple(getattr(m, a, None) for a in
                                          ("line", "column", "end_line", "end_column", "start_pos", "end_pos"))
        return ("tree", t.data, meta, [_shape(c) for c in t.children])
    if isinstance(t, Token):
        return ("token", t.type, str(t), t.start_pos, t.line, t.column, t.end_line, t.end_column, t.end_pos)
    return t


def _both(text, start, positions):
    ours = C._driver(positions).parse(text, start)
    try:
        theirs = C._parser(positions).parse(text, start=start)
    except UnexpectedInput:
        theirs = None
    return (None if ours is None else _shape(ours)), (None if theirs is None else _shape(theirs))


@functools.lru_cache(maxsize=1)
def _bundled_expressions():
    """Every expression and statement the bundled rulesets compile (recorded while loading,
    with the caches that would skip parsing emptied and the per-user cache off)."""
    import interpreter

    seen = {}
    saved = C._parse
    saved_env = os.environ.get("RULEBOOK_CACHE")
    os.environ["RULEBOOK_CACHE"] = "0"
    C._GEN_CACHE.clear()

    def record(source, start="expression", positions=True):
        seen[(str(source), start)] = None
        return saved(source, start, positions)

    C._parse = record
    C._TREE_CACHE.clear()
    try:
        for folder in sorted(glob.glob(os.path.join(ROOT, "rulesets", "*", "game.yaml"))):
            interpreter.load(os.path.dirname(folder), check=False)
    finally:
        C._parse = saved
        if saved_env is None:
            del os.environ["RULEBOOK_CACHE"]
        else:
            os.environ["RULEBOOK_CACHE"] = saved_env
    return list(seen)


CORNERS = [
    ("a", "expression"), ("1.5 + -2 ** 3 // 4 % 5", "expression"), ("not a in b and c not in d", "expression"),
    ("x if y else z if w else v", "expression"), ("lambda p, q: p + q", "expression"),
    ("let n = 3; n * n", "expression"), ("f(a, b=2, *[1])", "expression"), ("f(x for x in xs if x)", "expression"),
    ("[x for x in xs for y in ys if x if y]", "expression"), ("{k: v for k in ks}", "expression"),
    ("{x for x in xs}", "expression"), ("{}", "expression"), ("{'a': 1, 'b': [2, 3],}", "expression"),
    ("(1,)", "expression"), ("(1, 2, 3)", "expression"), ("xs[1:]", "expression"), ("xs[:2]", "expression"),
    ("xs[:]", "expression"), ("a.b.c[d](e)", "expression"), ("'it\\'s' + \"q\\\"\"", "expression"),
    ("a\n  + b  # a note\n  + c", "expression"), ("true or True or none or None or false", "expression"),
    ("a <= b < c != d == e >= f > g", "expression"), ("a == b", "expression"), ("x = 1", "statement"),
    ("x //= 2", "statement"), ("x[i].y += 3", "statement"), ("x -= y", "statement"), ("m['k'] *= 2", "statement"),
    ("iffy + elsewhere + notable + lambdas", "expression"),
    # refused by the grammar: no tree from either
    ("a = 1", "expression"), ("x == 1", "statement"), ("_x", "expression"), ("a +", "expression"),
    ("(a", "expression"), ("a b", "expression"), ("1 +* 2", "expression"), ("", "expression"), ("a // = b", "statement"),
    ("a && b", "expression"), ("x //= ", "statement"),
]


@pytest.mark.parametrize("positions", [False, True])
def test_the_loop_agrees_with_lark_on_every_bundled_expression(positions):
    exprs = _bundled_expressions()
    assert len(exprs) > 1000
    for text, start in exprs:
        ours, theirs = _both(text, start, positions)
        assert ours is not None and ours == theirs, text


@pytest.mark.parametrize("text,start", CORNERS)
@pytest.mark.parametrize("positions", [False, True])
def test_the_loop_agrees_with_lark_on_the_corners(text, start, positions):
    ours, theirs = _both(text, start, positions)
    assert ours == theirs


_PIECES = ["a", "b1", "1", "2.5", "'s'", "(", ")", "[", "]", "{", "}", ",", ":", ";", ".", "+", "-", "*", "/",
           "//", "%", "**", "<", "<=", "==", "!=", "=", "+=", "if", "else", "for", "in", "not", "and", "or",
           "lambda", "let", "true", "none", " ", "\n", "# c\n", "f(", "x.y", "_"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12), st.sampled_from(["expression", "statement"]))
def test_the_loop_agrees_with_lark_on_random_token_soup(pieces, start):
    text = " ".join(pieces)
    ours, theirs = _both(text, start, False)
    assert ours == theirs


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


def test_the_loop_agrees_with_lark_on_random_expressions():
    compared = 0
    for i in range(2000):
        text = _expr(_R.randint(0, 4))
        if _R.random() < .2:
            text = text.replace(" ", "\n  ", 1)
        start = "expression"
        if _R.random() < .2:
            start = "statement"
            text = _R.choice(["x", "m[k]", "a.b"]) + " " + _R.choice(["=", "+=", "-=", "*=", "//="]) + " " + text
        ours, theirs = _both(text, start, positions=(i % 10 == 0))
        assert ours == theirs, text
        compared += theirs is not None
    assert compared > 1500
