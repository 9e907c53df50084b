"""Property tests (hypothesis).

1. Robustness of the static half: random text and random mutations of real rule files (the
   tic-tac-toe ruleset and the examples of docs/language.md) never produce a Python traceback
   from `rulebook validate`: only exit 0, or exit 1 with `file:line:col` errors.
2. The expression language agrees with Python on the Python-compatible part of it: random
   well-typed expressions over integers, booleans and lists, compared with Python's own eval
   of the same text (cases where Python raises are skipped).
"""
import io
import os
import re
import tempfile

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from interpreter import cli, compile_expression
from interpreter.errors import ExpressionError, RuleRuntimeError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# CI runs a few seconds of examples; PROPERTY_SCALE=20 (say) searches much longer locally.
SCALE = float(os.environ.get("PROPERTY_SCALE", "1"))


def n(examples: int) -> int:
    return max(1, int(examples * SCALE))
ERROR_LINE = re.compile(r"^(\S.*?):(\d+):(\d+): error\[[\w-]+\]: \S")


def _sources():
    out = [open(os.path.join(ROOT, "rulesets", "tictactoe", "game.yaml"), encoding="utf-8").read()]
    doc = open(os.path.join(ROOT, "docs", "language.md"), encoding="utf-8").read()
    out += [m.group(1) for m in re.finditer(r"```yaml\n# example: [^\n]*\n(.*?)```", doc, re.S)]
    return out


SOURCES = _sources()


def _validate_text(text: str):
    """Write `text` as game.yaml of a fresh ruleset folder and validate it; returns (code, out+err)."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "game.yaml"), "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(text)
        out, err = io.StringIO(), io.StringIO()
        cwd = os.getcwd()
        os.chdir(d)
        try:
            code = cli.run(["validate", ".", "--no-warnings"], out, err)
        finally:
            os.chdir(cwd)
    return code, out.getvalue() + err.getvalue(), err.getvalue()


def _check_outcome(text):
    code, both, err = _validate_text(text)
    assert "Traceback" not in both
    assert code in (0, 1), both
    if code == 1:
        errors = [l for l in err.splitlines() if ERROR_LINE.match(l)]
        assert errors, err
        for l in errors:
            m = ERROR_LINE.match(l)
            assert int(m.group(2)) >= 1 and int(m.group(3)) >= 1, l


# --------------------------------------------------------------------------- mutations
def _mutate(text: str, data) -> str:
    lines = text.split("\n")
    kind = data.draw(st.sampled_from(["delete", "duplicate", "swap", "indent", "token", "char"]))
    i = data.draw(st.integers(0, max(len(lines) - 1, 0)))
    if kind == "delete" and lines:
        del lines[i]
    elif kind == "duplicate" and lines:
        lines.insert(i, lines[i])
    elif kind == "indent" and lines:
        delta = data.draw(st.sampled_from([-4, -2, -1, 1, 2, 4]))
        if delta > 0:
            lines[i] = " " * delta + lines[i]
        else:
            lines[i] = lines[i][min(-delta, len(lines[i]) - len(lines[i].lstrip(" "))):]
    else:
        flat = "\n".join(lines)
        if not flat:
            return flat
        if kind == "swap" and len(flat) > 1:
            j = data.draw(st.integers(0, len(flat) - 2))
            return flat[:j] + flat[j + 1] + flat[j] + flat[j + 2:]
        if kind == "token":
            tokens = list(re.finditer(r"[A-Za-z_][A-Za-z0-9_]*|\d+|[\[\]{}:,\"'=<>+\-*]+", flat))
            if not tokens:
                return flat
            t = data.draw(st.sampled_from(tokens))
            replacement = data.draw(st.sampled_from(
                [m.group(0) for m in tokens[:200]] + ["", "[", "]", "{", "}", ":", "-", "'", '"', "\t",
                 "&a", "*a", "!!str", "<<", "null", "true", "1e9", "_x", "__class__", "0", "-1", "len(",
                 "for", "if", "end", "return", "phases", "next"]))
            return flat[:t.start()] + replacement + flat[t.end():]
        j = data.draw(st.integers(0, len(flat) - 1))
        ch = data.draw(st.sampled_from(list(" \t\n:#-[]{}'\"&*!|>%@`,?0aZ_é\x00")))
        return flat[:j] + ch + flat[j + 1:]
    return "\n".join(lines)


@settings(max_examples=n(80), **SETTINGS)
@given(st.data())
def test_mutated_rule_files_never_crash(data):
    text = data.draw(st.sampled_from(SOURCES))
    for _ in range(data.draw(st.integers(1, 3))):
        text = _mutate(text, data)
    _check_outcome(text)


YAMLISH = st.text(alphabet=st.sampled_from(list("abgmnpsv :-_[]{}'\"\n\t#&*!|>0123456789,.")), max_size=200)


@settings(max_examples=n(60), **SETTINGS)
@given(YAMLISH)
def test_random_text_never_crashes(text):
    _check_outcome(text)


@settings(max_examples=n(30), **SETTINGS)
@given(st.text(max_size=120))
def test_random_unicode_never_crashes(text):
    _check_outcome(text)


def test_sources_are_valid():
    for text in SOURCES:
        code, both, _ = _validate_text(text)
        assert code == 0, both


# --------------------------------------------------------------------------- expressions vs Python
NAMES = {"xs": [3, -1, 4, 1, -5, 9], "ys": [2, 7, 1, 8], "n": 7, "m": -3, "flag": True}
PY_BUILTINS = {"__builtins__": {}, "len": len, "sum": sum, "min": min, "max": max, "abs": abs,
               "any": any, "all": all, "sorted": sorted, "list": list, "range": range,
               "True": True, "False": False, "None": None}


def _wrap(e):
    return e if re.fullmatch(r"-?[A-Za-z0-9_]+", e) else f"({e})"


def _int_leaf(bound):
    opts = [st.integers(0, 12).map(str), st.sampled_from(["n", "m", "-n", "len(xs)"])]
    if bound:
        opts.append(st.sampled_from(bound))
    return st.one_of(*opts)


def _int_expr(depth, bound):
    if depth <= 0:
        return _int_leaf(bound)
    sub = _int_expr(depth - 1, bound)
    return st.one_of(
        _int_leaf(bound),
        st.tuples(sub, st.sampled_from(["+", "-", "*", "//", "%"]), sub, st.booleans()).map(
            # without brackets, precedence has to agree with Python's
            lambda t: f"{t[0]} {t[1]} {t[2]}" if t[3] and t[1] in "+-*" and "if" not in t[0] + t[2]
            else f"{_wrap(t[0])} {t[1]} {_wrap(t[2])}"),
        sub.map(lambda a: f"-{_wrap(a)}"),
        st.tuples(sub, _bool_expr(depth - 1, bound), sub).map(
            lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        _list_expr(depth - 1, bound).map(lambda l: f"len({l})"),
        _list_expr(depth - 1, bound).map(lambda l: f"sum({l})"),
        st.tuples(_int_expr(depth - 1, bound + ["v"]), st.sampled_from(["xs", "ys", "[1, 2, 3]"])).map(
            lambda t: f"sum({t[0]} for v in {t[1]})"),
        sub.map(lambda a: f"abs({a})"),
        st.tuples(sub, sub).map(lambda t: f"max({t[0]}, {t[1]})"),
        st.tuples(sub, sub).map(lambda t: f"min({t[0]}, {t[1]})"),
        st.tuples(st.sampled_from(["xs", "ys"]), st.integers(-4, 3)).map(lambda t: f"{t[0]}[{t[1]}]"),
    )


def _bool_expr(depth, bound):
    leaf = st.sampled_from(["True", "False", "flag"])
    if depth <= 0:
        return leaf
    i = _int_expr(depth - 1, bound)
    b = _bool_expr(depth - 1, bound)
    cmp = st.sampled_from(["<", ">", "==", "!=", "<=", ">="])
    return st.one_of(
        leaf,
        st.tuples(i, cmp, i).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(i, cmp, i, cmp, i).map(lambda t: f"{t[0]} {t[1]} {t[2]} {t[3]} {t[4]}"),
        st.tuples(b, st.sampled_from(["and", "or"]), b).map(lambda t: f"{_wrap(t[0])} {t[1]} {_wrap(t[2])}"),
        b.map(lambda a: f"not {_wrap(a)}"),
        st.tuples(i, st.sampled_from(["in", "not in"]), _list_expr(depth - 1, bound)).map(
            lambda t: f"{_wrap(t[0])} {t[1]} {_wrap(t[2])}"),
        st.tuples(_bool_expr(depth - 1, bound + ["v"]), st.sampled_from(["xs", "ys"]),
                  st.sampled_from(["any", "all"])).map(lambda t: f"{t[2]}({t[0]} for v in {t[1]})"),
    )


def _list_expr(depth, bound):
    leaf = st.one_of(st.sampled_from(["xs", "ys", "[]"]),
                     st.lists(st.integers(-5, 9), max_size=4).map(lambda l: "[" + ", ".join(map(str, l)) + "]"))
    if depth <= 0:
        return leaf
    sub = _list_expr(depth - 1, bound)
    inner = bound + ["x"]
    return st.one_of(
        leaf,
        st.tuples(sub, sub).map(lambda t: f"{_wrap(t[0])} + {_wrap(t[1])}"),
        st.tuples(_int_expr(depth - 1, inner), sub).map(lambda t: f"[{t[0]} for x in {t[1]}]"),
        st.tuples(_int_expr(depth - 1, inner), sub, _bool_expr(depth - 1, inner)).map(
            lambda t: f"[{t[0]} for x in {t[1]} if {t[2]}]"),
        st.tuples(_int_expr(depth - 1, inner + ["y"]), sub, sub).map(
            lambda t: f"[{t[0]} for x in {t[1]} for y in {t[2]}]"),
        sub.map(lambda l: f"sorted({l})"),
        sub.map(lambda l: f"sorted({l}, key=lambda w: -w)"),
        st.integers(0, 6).map(lambda k: f"list(range({k}))"),
        st.tuples(sub, st.integers(-3, 3), st.integers(-3, 5)).map(lambda t: f"{_wrap(t[0])}[{t[1]}:{t[2]}]"),
        st.tuples(sub, st.integers(0, 3)).map(lambda t: f"{_wrap(t[0])} * {t[1]}"),
    )


EXPRESSIONS = st.one_of(_int_expr(3, []), _bool_expr(3, []), _list_expr(3, []))


def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@settings(max_examples=n(200), **SETTINGS)
@given(EXPRESSIONS)
def test_expressions_agree_with_python(src):
    try:
        expected = eval(src, dict(PY_BUILTINS), dict(NAMES))  # noqa: S307 - generated test input
    except Exception:
        assume(False)
    if isinstance(expected, range):
        expected = list(expected)
    got = compile_expression(src, NAMES).evaluate(dict(NAMES))
    assert _same(got, expected), f"{src!r}: rulebook {got!r}, python {expected!r}"


@settings(max_examples=n(150), **SETTINGS)
@given(st.lists(st.sampled_from(list("abxn_01289 +-*/%<>=!()[]{}.,:'\"") + [
    "for ", " in ", "if ", "else ", "lambda ", "not ", "and ", "or ", "let ", ";", "__class__", "len", "range",
    "biggest", "9999999"]), max_size=40).map("".join))
def test_random_expression_text_is_refused_cleanly(src):
    """Garbage is either compiled (then evaluating it raises at most RuleRuntimeError) or refused
    with an ExpressionError that has a line, a column and a message."""
    try:
        ce = compile_expression(src, {"a": 1, "b": [1, 2], "x": 3, "n": 0})
    except ExpressionError as e:
        assert e.line >= 1 and e.column >= 1 and e.message
        return
    try:
        ce.evaluate({"a": 1, "b": [1, 2], "x": 3, "n": 0})
    except RuleRuntimeError:
        pass
