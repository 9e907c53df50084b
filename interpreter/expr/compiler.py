"""Expressions: parse with the Lark grammar, resolve names, check obvious type errors, and
generate Python source that is compiled ONCE; evaluation calls the compiled function and never
parses or walks a tree.

Safety comes from the grammar and the generator, not from a deny-list: a name in the language
can only become `_V['name']` (a state variable), `_L['name']` (a local of an effect),
`_K['name']` (a constant), `u_name` (a comprehension or lambda variable), `d_name` (a named
expression of the ruleset) or `_f_name` (a whitelisted builtin). Attribute access goes through
`_A`, which only reads component records and plain dicts. The code runs with no Python builtins.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import re
from types import FunctionType as _FunctionType
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Optional

from lark import Token

from ..errors import ExpressionError, RuleRuntimeError, suggest
from ..memo import BoundedMemo, bounded_memo
from .builtins import BUILTINS, CHARGED, ITERATING, MAX_INT_BITS, MAX_INT_DIGITS, Budget, make_runtime
from .names import KEYWORDS, check_name, define_problems
from .parser import _TREES, _parser, parse, position_of
from .runtime import (_PY_ERRORS, _aug, _clip, _cp, _get_or0, _key, _located,
                      _runtime_error)

__all__ = ["Scope", "CodeUnit", "compile_expression", "CompiledExpression", "parse"]


# the process-level memos of the compiler (see interpreter/memo.py; parse trees: parser.py)
_GEN_CACHE = BoundedMemo("generated expression code", 100_000)  # (kind, text, signature) -> code
_CODE_CACHE = BoundedMemo("compiled expression functions", 100_000)  # generated source -> code objects
_NAMES = BoundedMemo("names in expression texts", 100_000)  # text -> its identifiers


def clear_memos() -> None:
    """Forget everything the compiler memoised in this process."""
    for memo in (_TREES, _GEN_CACHE, _CODE_CACHE, _NAMES, _entity_signature_of.memo, _parser.memo,
                 _stub_code.memo):
        memo.clear()


# --- types: just enough to catch obvious mistakes before play -------------------------------
NUM, STR, BOOL, NONE = "number", "text", "boolean", "none"


def _list_of(t):
    return ("list", t)


def _is_entity(t):
    return isinstance(t, tuple) and t[0] == "entity"


def _elem(t):
    if isinstance(t, tuple) and t[0] == "list":
        return t[1]
    return None


@dataclass
class Scope:
    """What names mean when an expression is compiled.

    vars: state variables (read from the state), locals: names bound by the effect context
    (`player`, action parameters, `choose` results, `for` variables), constants: values fixed at
    compile time, defines: named expressions of the ruleset (name -> parameter names),
    entity_types: component type -> set of attribute names (for checking `card.attr`)."""

    vars: dict = field(default_factory=dict)
    locals: dict = field(default_factory=dict)
    constants: dict = field(default_factory=dict)
    defines: dict = field(default_factory=dict)
    entity_types: dict = field(default_factory=dict)
    const_types: dict = field(default_factory=dict)

    def with_locals(self, names) -> "Scope":
        loc = dict(self.locals)
        if isinstance(names, dict):
            loc.update(names)
        else:
            for n in names:
                loc.setdefault(n, None)
        return Scope(self.vars, loc, self.constants, self.defines, self.entity_types, self.const_types)

    def known(self):
        return (list(self.vars) + list(self.locals) + list(self.constants) + list(self.defines)
                + list(BUILTINS))


class _Gen:
    """Tree -> Python source, with name resolution and light type checks."""

    def __init__(self, scope: Scope, source: str, fast: bool = False):
        self.scope = scope
        self.source = source
        self.fast = fast
        self.uses_budget = False
        self.names_used: set = set()

    def err(self, node, message, hint=None, code="name"):
        line, col = position_of(node)
        raise ExpressionError(message, line, col, code=code, hint=hint, source=self.source)

    # ------------------------------------------------------------------ names
    def name(self, tok, lex):
        n = str(tok)
        self.names_used.add(n)
        if n in lex:
            return "u_" + n, lex[n]
        s = self.scope
        if n in s.locals:
            return f"_L[{n!r}]", s.locals[n]
        if n in s.vars:
            return f"_V[{n!r}]", s.vars[n]
        if n in s.constants:
            v = s.constants[n]
            if isinstance(v, bool) or v is None or isinstance(v, (int, float, str)):
                return repr(v), _type_of_value(v)
            return f"_K[{n!r}]", s.const_types.get(n) or _type_of_value(v, self.scope)
        if n in s.defines and not s.defines[n]:
            return f"d_{n}(_V, _L)", None
        if n in s.defines or n in BUILTINS:
            self.err(tok, f"'{n}' is a function: call it as {n}(...)", code="type")
        self.err(tok, f"unknown name '{n}'", suggest(n, list(lex) + s.known()))

    # ------------------------------------------------------------------ dispatch
    def gen(self, node, lex) -> tuple[str, Any]:
        if isinstance(node, Token):
            if node.type == "NAME":
                return self.name(node, lex)
            raise AssertionError(node.type)
        meth = getattr(self, "g_" + node.data.rstrip("_"), None)
        if meth is None:  # pragma: no cover - grammar and generator out of step
            self.err(node, f"unsupported construct {node.data}", code="syntax")
        return meth(node, lex)

    def g_expression(self, node, lex):
        return self.gen(node.children[0], lex)

    def g_number(self, node, lex):
        text = str(node.children[0])
        # normalised: Python refuses leading zeros ("01") in source
        if "." in text:
            value = float(text)
            if value == float("inf"):
                self.err(node, f"the number {_clip(text)} is too large (the largest is about 1.8e308)",
                         hint="use a smaller number", code="number")
            return repr(value), NUM
        digits = text.lstrip("0") or "0"
        if len(digits) > MAX_INT_DIGITS or int(digits).bit_length() > MAX_INT_BITS:
            self.err(node, f"the number {_clip(text)} is too large (at most {MAX_INT_BITS} bits, "
                           f"about {MAX_INT_DIGITS} digits)", hint="use a smaller number", code="number")
        return str(int(digits)), NUM

    def g_string(self, node, lex):
        raw = str(node.children[0])
        if "\\" not in raw:
            return repr(raw[1:-1]), STR
        try:
            value = ast.literal_eval(raw)
        except Exception:
            self.err(node, "malformed string", code="syntax")
        return repr(value), STR

    def g_true(self, node, lex):
        return "True", BOOL

    def g_false(self, node, lex):
        return "False", BOOL

    def g_none(self, node, lex):
        return "None", NONE

    def g_name(self, node, lex):
        return self.name(node.children[0], lex)

    def g_list(self, node, lex):
        items = [self.gen(c, lex) for c in node.children if c is not None]
        t = items[0][1] if items and all(i[1] == items[0][1] for i in items) else None
        return "[" + ", ".join(c for c, _ in items) + "]", _list_of(t)

    def g_tuple(self, node, lex):
        items = [self.gen(c, lex) for c in node.children if c is not None]
        return "[" + ", ".join(c for c, _ in items) + "]", _list_of(None)

    def g_dict(self, node, lex):
        parts = []
        text_keys = True
        for pair in node.children:
            if pair is None:
                continue
            k, _ = self.gen(pair.children[0], lex)
            v, _ = self.gen(pair.children[1], lex)
            parts.append(f"{k}: {v}")
            text_keys = text_keys and k[:1] in ("'", '"')
        literal = "{" + ", ".join(parts) + "}"
        return (literal if text_keys else f"_map({literal})"), "map"  # keys are text (see `text_key`)

    def _comp(self, elt, comp_for, lex):
        """Returns (clauses source, element source, element type)."""
        self.uses_budget = True
        inner = dict(lex)
        clauses = []
        for clause in comp_for.children:
            targets_node, iter_node, *ifs = clause.children
            it_code, it_t = self.gen(iter_node, inner)
            targets = [str(t) for t in targets_node.children]
            for t in targets:
                if t in self.scope.vars or t in self.scope.constants:
                    pass  # shadowing is allowed, the innermost wins
            et = _elem(it_t)
            if len(targets) == 1:
                inner[targets[0]] = et
            else:
                for t in targets:
                    inner[t] = None
            tgt = ", ".join("u_" + t for t in targets)
            src = f"for {tgt} in _T({it_code})"
            for cif in ifs:
                c, _ = self.gen(cif.children[0], inner)
                src += f" if {c}"
            clauses.append(src)
        ec, et = self.gen(elt, inner)
        return " ".join(clauses), ec, et

    def g_listcomp(self, node, lex):
        clauses, ec, et = self._comp(node.children[0], node.children[1], lex)
        return f"[{ec} {clauses}]", _list_of(et)

    def g_setcomp(self, node, lex):
        clauses, ec, et = self._comp(node.children[0], node.children[1], lex)
        return f"_f_distinct([{ec} {clauses}])", _list_of(et)

    def g_ifexp(self, node, lex):
        a, ta = self.gen(node.children[0], lex)
        c, _ = self.gen(node.children[1], lex)
        b, tb = self.gen(node.children[2], lex)
        return f"({a} if {c} else {b})", ta if ta == tb else None

    def g_lambda(self, node, lex):
        # (the tree keeps no `lambda` keyword: the error points at it, just before the parameters)
        first_param = node.children[0].children[0]
        start = self.source.rfind("lambda", 0, first_param.start_pos)
        where = first_param
        if start >= 0 and "\n" not in self.source[start:first_param.start_pos]:
            where = Token("LAMBDA", "lambda", start, first_param.line,
                          first_param.column - (first_param.start_pos - start))
        self.err(where, "a lambda is not a value: it can only be given to a builtin, "
                       "as in sorted(xs, key=lambda x: ...)", code="type",
                 hint="store or return the value it computes, or name it as a define with params")

    def _lambda_argument(self, node, lex):
        params = [str(t) for t in node.children[0].children]
        inner = dict(lex)
        for p in params:
            inner[p] = None
        body, _ = self.gen(node.children[1], inner)
        return f"(lambda {', '.join('u_' + p for p in params)}: {body})", "function"

    def g_let(self, node, lex):
        name = str(node.children[0])
        val, vt = self.gen(node.children[1], lex)
        inner = dict(lex)
        inner[name] = vt
        body, bt = self.gen(node.children[2], inner)
        return f"(lambda u_{name}: {body})({val})", bt

    def g_or(self, node, lex):
        a, _ = self.gen(node.children[0], lex)
        b, _ = self.gen(node.children[1], lex)
        return f"({a} or {b})", None

    def g_and(self, node, lex):
        a, _ = self.gen(node.children[0], lex)
        b, _ = self.gen(node.children[1], lex)
        return f"({a} and {b})", None

    def g_not(self, node, lex):
        a, _ = self.gen(node.children[0], lex)
        return f"(not {a})", BOOL

    def g_compare(self, node, lex):
        ch = node.children
        first, ft = self.gen(ch[0], lex)
        parts = []
        native = [first]  # the same chain in Python's own syntax, when it has no 'in'
        left, lt = first, ft
        for i in range(1, len(ch), 2):
            op = " ".join(str(t) for t in ch[i].children)
            right, rt = self.gen(ch[i + 1], lex)
            native += [op, right]
            if op in ("<", ">", "<=", ">=") and {lt, rt} == {NUM, STR}:
                self.err(ch[i], f"cannot compare {lt} with {rt} using '{op}'", code="type")
            if op == "in":
                parts.append(f"_in({left}, {right})")
            elif op == "not in":
                parts.append(f"(not _in({left}, {right}))")
            else:
                parts.append(f"({left} {op} {right})")
            left, lt = right, rt
        if len(parts) == 1:
            return parts[0], BOOL
        if not any(op in ("in", "not in") for op in native[1::2]):
            # a < b < c: Python's chain evaluates each operand once
            return "(" + " ".join(native) + ")", BOOL
        # with 'in': Python semantics; operands are pure so evaluating twice is fine
        return "(" + " and ".join(parts) + ")", BOOL

    def _arith(self, node, lex, op):
        a, ta = self.gen(node.children[0], lex)
        b, tb = self.gen(node.children[1], lex)
        if op in "-/%" or op == "//":
            for t, child in ((ta, node.children[0]), (tb, node.children[1])):
                if t in (STR, BOOL, NONE) or (isinstance(t, tuple) and t[0] == "list"):
                    self.err(child, f"'{op}' needs numbers, not {_tname(t)}", code="type")
        if op == "+" and {ta, tb} == {NUM, STR}:
            self.err(node.children[1], "cannot add text and a number",
                     hint="use str(x) to turn a number into text", code="type")
        if op == "+" and NONE in (ta, tb):
            self.err(node, "cannot add none", code="type")
        return a, b, ta, tb

    def g_add(self, node, lex):
        a, b, ta, tb = self._arith(node, lex, "+")
        t = ta if ta == tb else None
        if NUM in (ta, tb):
            return f"({a} + {b})", t
        return f"_add({a}, {b})", t  # lists or texts: the elements produced are charged

    def g_sub(self, node, lex):
        a, b, *_ = self._arith(node, lex, "-")
        return f"({a} - {b})", NUM

    def g_mul(self, node, lex):
        a, b, ta, tb = self._arith(node, lex, "*")
        if _is_small_literal(a) and tb == NUM or _is_small_literal(b) and ta == NUM:
            return f"({a} * {b})", NUM  # growth bounded by the literal (stored numbers are checked)
        if ta == NUM and tb == NUM:
            return f"_mul({a}, {b})", NUM  # checked: repeated squaring would make huge numbers
        if _is_int_literal(b) or _is_int_literal(a):
            # x * 2 with x of unknown type: a number, or a repeated list checked for length
            x, k = (a, b) if _is_int_literal(b) else (b, a)
            return f"_mulk({x}, {k})", ta if tb == NUM else (tb if ta == NUM else None)
        return f"_mul({a}, {b})", ta if tb == NUM else (tb if ta == NUM else None)

    def g_div(self, node, lex):
        a, b, *_ = self._arith(node, lex, "/")
        if _is_num_literal(b) and float(b) != 0:
            return f"({a} / {b})", NUM
        return f"_div({a}, {b})", NUM

    def g_floordiv(self, node, lex):
        a, b, *_ = self._arith(node, lex, "//")
        if _is_num_literal(b) and float(b) != 0:
            return f"({a} // {b})", NUM
        return f"_fdiv({a}, {b})", NUM

    def g_mod(self, node, lex):
        a, b, *_ = self._arith(node, lex, "%")
        if _is_num_literal(b) and float(b) != 0:
            return f"({a} % {b})", NUM
        return f"_mod({a}, {b})", NUM

    def g_neg(self, node, lex):
        a, t = self.gen(node.children[0], lex)
        if t in (STR, BOOL, NONE):
            self.err(node.children[0], f"cannot negate {_tname(t)}", code="type")
        return f"(-{a})", NUM

    def g_pos(self, node, lex):
        a, t = self.gen(node.children[0], lex)
        return f"(+{a})", NUM

    def g_pow(self, node, lex):
        a, _ = self.gen(node.children[0], lex)
        b, _ = self.gen(node.children[1], lex)
        return f"_pow({a}, {b})", NUM

    def g_attr(self, node, lex):
        obj, t = self.gen(node.children[0], lex)
        attr = str(node.children[1])
        if _is_entity(t) and t[1] in self.scope.entity_types:
            attrs = self.scope.entity_types[t[1]]
            if attr != "id" and attr not in attrs:
                self.err(node.children[1], f"a {t[1]} has no attribute '{attr}'",
                         suggest(attr, list(attrs) + ["id"]))
            return f"_A({obj}, {attr!r})", ("entity", t[1]) if attr == "id" else None
        if _is_entity(t) and self.fast:
            # a component id: read its record directly (any error falls back to the checked `_A`)
            return f"_E[{obj}][{attr!r}]", ("entity", t[1]) if attr == "id" else None
        if t in (NUM, BOOL, NONE):
            self.err(node.children[1], f"{_tname(t)} has no attribute '{attr}'", code="type")
        return f"_A({obj}, {attr!r})", None

    def g_index(self, node, lex):
        obj, t = self.gen(node.children[0], lex)
        key, _ = self.gen(node.children[1], lex)
        if t in (NUM, BOOL, NONE):
            self.err(node.children[0], f"cannot index {_tname(t)}", code="type")
        if self.fast:
            return f"{obj}[{key}]", _elem(t)
        return f"_I({obj}, {key})", _elem(t)

    def g_slice(self, node, lex):
        obj, t = self.gen(node.children[0], lex)
        lo = self.gen(node.children[1], lex)[0] if node.children[1] is not None else ""
        hi = self.gen(node.children[2], lex)[0] if node.children[2] is not None else ""
        return f"{obj}[{lo}:{hi}]", t

    def g_call(self, node, lex):
        fname = str(node.children[0])
        args_node = node.children[1]
        pos_args: list = []
        kw_args: list = []
        if args_node is not None:
            if args_node.data == "genexp_arg":
                self.uses_budget = True
                clauses, ec, _ = self._comp(args_node.children[0], args_node.children[1], lex)
                pos_args.append((f"[{ec} {clauses}]", None, args_node))
            else:
                for a in args_node.children:
                    if a is None:
                        continue
                    if getattr(a, "data", None) == "kwarg":
                        v, vt = self._argument(fname, a.children[1], lex)
                        kw_args.append((str(a.children[0]), v, a))
                    else:
                        c, ct = self._argument(fname, a, lex)
                        pos_args.append((c, ct, a))
        if fname in self.scope.defines and (fname not in lex):
            self.names_used.add(fname)  # a called define is used (no false 'unused' warning)
            params = self.scope.defines[fname]
            if kw_args:
                self.err(kw_args[0][2], f"'{fname}' takes no keyword arguments", code="arity")
            if len(pos_args) != len(params):
                self.err(node, f"'{fname}' takes {len(params)} argument(s) "
                               f"({', '.join(params)}), got {len(pos_args)}", code="arity")
            args = ", ".join(["_V", "_L"] + [c for c, _, _ in pos_args])
            return f"d_{fname}({args})", None
        if fname not in BUILTINS:
            self.err(node.children[0], f"unknown function '{fname}'",
                     suggest(fname, list(BUILTINS) + list(self.scope.defines)))
        fn, lo, hi, kws = BUILTINS[fname]
        n = len(pos_args)
        if n < lo or (hi is not None and n > hi):
            want = f"{lo}" if lo == hi else (f"{lo} or more" if hi is None else f"{lo} to {hi}")
            self.err(node, f"'{fname}' takes {want} argument(s), got {n}", code="arity")
        for k, _, knode in kw_args:
            if k not in kws:
                self.err(knode, f"'{fname}' has no keyword '{k}'",
                         suggest(k, kws) or (f"it takes {', '.join(kws)}" if kws else None),
                         code="arity")
        if fname in ("len", "count", "sum") and pos_args and pos_args[0][1] in (NUM, BOOL, NONE):
            self.err(pos_args[0][2], f"'{fname}' needs a collection, not {_tname(pos_args[0][1])}",
                     code="type")
        codes = [c for c, _, _ in pos_args]
        if fname in ITERATING and codes and not (fname in ("min", "max") and len(codes) > 1):
            # (min/max of several values, e.g. max(0, x), iterate over nothing)
            self.uses_budget = True
            # a comprehension argument was charged while it was built: it has at most as many
            # elements as were iterated, so it is not charged twice
            built = [getattr(a, "data", None) in ("genexp_arg", "listcomp", "setcomp") for _, _, a in pos_args]
            if len(codes) == 1 or fname in ("union", "intersection", "zip"):
                codes = [c if b else f"_T({c})" for c, b in zip(codes, built)]
            elif not built[0]:
                codes[0] = f"_T({codes[0]})"
        parts = codes + [f"{k}={v}" for k, v, _ in kw_args]
        rtype = None
        if fname == "sum":
            rtype = _sum_type(pos_args)
        elif fname in ("count", "len", "abs", "floor", "ceil", "int", "round", "round_down", "sign", "clamp"):
            rtype = NUM
        elif fname in ("any", "all"):
            rtype = BOOL
        elif fname in ("sorted", "distinct", "reversed", "ranked", "most", "difference",
                       "intersection", "remove_one") and pos_args:
            rtype = pos_args[0][1]
        elif fname in ("first", "last", "min", "max") and len(pos_args) == 1:
            rtype = _elem(pos_args[0][1])
        elif fname == "str":
            rtype = STR
        elif fname == "range":
            rtype = _list_of(NUM)
        return f"_f_{fname}({', '.join(parts)})", rtype

    def _argument(self, fname, node, lex):
        """An argument of a call: a lambda is allowed here, and only for a builtin."""
        if getattr(node, "data", None) == "lambda_" and fname in BUILTINS and fname not in self.scope.defines:
            return self._lambda_argument(node, lex)
        return self.gen(node, lex)

    # ------------------------------------------------------------------ statements
    def statement(self, node, lex):
        target, op, value = node.children
        vcode, _ = self.gen(value, lex)
        root, path = self.target(target, lex)
        return root, path, str(op), vcode

    def target(self, node, lex):
        """Returns (root variable name, [key code, ...]) of an assignment target."""
        if node.data == "t_name":
            n = str(node.children[0])
            if n not in self.scope.vars and n not in self.scope.locals and n not in lex:
                if n in self.scope.constants:
                    self.err(node.children[0], f"'{n}' is a constant and cannot be changed",
                             code="assign")
                self.err(node.children[0], f"unknown variable '{n}'",
                         suggest(n, list(self.scope.vars) + list(self.scope.locals)) or
                         "declare it under 'vars:'", code="name")
            self.names_used.add(n)
            return n, []
        root, path = self.target(node.children[0], lex)
        if node.data == "t_index":
            k, _ = self.gen(node.children[1], lex)
            return root, path + [k]
        return root, path + [repr(str(node.children[1]))]


def _sum_type(args):
    """sum(xs) is a number (it starts from 0); sum(xs, start) has the type of `start`: a sum
    of lists is a list."""
    if len(args) == 2:
        start = args[1][1]
        return start if start == NUM or (isinstance(start, tuple) and start[0] == "list") else None
    return NUM


def _tname(t):
    if isinstance(t, tuple):
        return "a list" if t[0] == "list" else f"a {t[1]}"
    return {NUM: "a number", STR: "text", BOOL: "a boolean", NONE: "none"}.get(t, "a value")


def _is_int_literal(code: str) -> bool:
    return code.isdigit()


def _is_small_literal(code: str) -> bool:
    """A number literal below 2**31: multiplying by it cannot make a number explode."""
    return _is_num_literal(code) and abs(float(code)) < 2 ** 31


def _is_num_literal(code: str) -> bool:
    try:
        float(code)
        return True
    except ValueError:
        return False


def _type_of_value(v, scope: Optional[Scope] = None):
    if isinstance(v, bool):
        return BOOL
    if isinstance(v, (int, float)):
        return NUM
    if isinstance(v, str):
        return STR
    if v is None:
        return NONE
    if isinstance(v, list):
        return _list_of(None)
    if isinstance(v, dict):
        return "map"
    return None


class CodeUnit:
    """Collects the generated functions of many expressions and compiles them into ONE code
    object, once. Each expression becomes `def _eN(_V, _L)`; each define `def d_name(_V, _L, ...)`."""

    def __init__(self, scope: Scope, entities: Optional[dict] = None, budget: Optional[Budget] = None):
        self.scope = scope
        self.entities = entities if entities is not None else {}
        self.budget = budget or Budget()
        self.lines: list[str] = []
        self.count = 0
        self.ns: Optional[dict] = None
        self.pending: list = []  # (index, holder) resolved after build()
        self.define_calls: dict = {}  # define name -> the defines its expression calls

    def _gen(self, source: str, start: str, scope: Scope):
        tree = parse(source, start)
        g = _Gen(scope, source)
        return g, tree

    def add_expression(self, source: str, scope: Optional[Scope] = None, lex: Optional[dict] = None):
        """Compile-check one expression now; return a handle whose `.fn` is set by build()."""
        scope = scope or self.scope
        if isinstance(source, bool) or source is None or isinstance(source, (int, float)):
            source = repr(source) if not isinstance(source, bool) else ("true" if source else "false")
            if source == "None":
                source = "none"
        key = ("expr", str(source), _signature(str(source), scope, lex))
        hit = _cached_gen(key)
        if hit is not None:
            code, typ, fcode, names_used = hit
        else:
            g, tree = self._gen(str(source), "expression", scope)
            code, typ = g.gen(tree, dict(lex or {}))
            if "[" in str(source) or "." in str(source):
                fast = _Gen(scope, str(source), fast=True)
                fcode, _ = fast.gen(tree, dict(lex or {}))
            else:  # no indexing and no attribute: the fast variant would be the same code
                fcode = code
            names_used = g.names_used
            _store_gen(key, (code, typ, fcode, sorted(names_used)))
        self.count += 1
        name, entries = _expression_source(str(source), code, fcode)
        self.lines.extend(entries)
        h = Handle(name, str(source), typ, set(names_used))
        self.pending.append(h)
        return h

    def add_statement(self, source: str, scope: Optional[Scope] = None):
        """An assignment `target op value`. Generates `def _sN(_V, _L)` that performs it."""
        scope = scope or self.scope
        key = ("stmt", str(source), _signature(str(source), scope, None))
        hit = _cached_gen(key)
        if hit is not None:
            root, path, op, vcode, names_used = hit
            path = list(path)
        else:
            g, tree = self._gen(str(source), "statement", scope)
            root, path, op, vcode = g.statement(tree, {})
            names_used = g.names_used
            _store_gen(key, (root, list(path), op, vcode, sorted(names_used)))
        base = f"_L[{root!r}]" if root in scope.locals else f"_V[{root!r}]"
        name = "_s" + _digest(base, repr(path), op, vcode, str(source))
        self.count += 1
        body = []
        if not path:
            tgt = base
            if op == "=":
                body.append(f"    {tgt} = _cp({vcode})")
            else:
                body.append(f"    {tgt} = _aug({tgt}, {op[:-1]!r}, {vcode})")
        else:
            body.append(f"    _o = {base}")
            for k in path[:-1]:
                body.append(f"    _o = _I(_o, {k})")
            body.append(f"    _k = _key(_o, {path[-1]})")
            if op == "=":
                body.append(f"    _o[_k] = _cp({vcode})")
            else:
                body.append(f"    _o[_k] = _aug(_get_or0(_o, _k), {op[:-1]!r}, {vcode})")
        body = ["    try:"] + ["    " + b for b in body]
        body.append(_guard(name, str(source)).rstrip("\n"))
        self.lines.append(f"def {name}(_V, _L):\n" + "\n".join(body) + "\n")
        h = Handle(name, str(source), None, set(names_used))
        h.target = root
        self.pending.append(h)
        return h

    def add_define(self, name: str, params: list, source: str, scope: Optional[Scope] = None):
        """A named expression `name(params)`: generates `def d_name(_V, _L, ...)`."""
        scope = scope or self.scope
        for n in [name, *params]:
            problem = check_name(n)
            if problem is not None:
                raise ExpressionError(problem[0], 1, 1, code="name", hint=problem[1], source=str(source))
        lex = {p: None for p in params}
        key = ("define", str(source), _signature(str(source), scope, lex))
        hit = _cached_gen(key)
        if hit is not None:
            code, typ, names_used = hit
        else:
            g, tree = self._gen(str(source), "expression", scope)
            code, typ = g.gen(tree, lex)
            names_used = g.names_used
            _store_gen(key, (code, typ, sorted(names_used)))
        args = ", ".join(["_V", "_L"] + ["u_" + p for p in params])
        self.lines.append(f"def d_{name}({args}):\n    return {code}\n")
        self.define_calls[name] = sorted(set(names_used) & set(scope.defines) - set(params) - {name}
                                         | ({name} if name in names_used else set()))
        return typ, set(names_used)

    def check_defines(self) -> list:
        """[(define name, ExpressionError)] for every cycle of named expressions that call each
        other, and every chain of calls deeper than MAX_DEFINE_DEPTH (reported at its head)."""
        return define_problems(self.define_calls)

    def build(self, constants: Optional[dict] = None) -> dict:
        ns = make_runtime(self.entities, self.budget)
        ns["_K"] = dict(constants if constants is not None else self.scope.constants)
        ns["_aug"] = functools.partial(_aug, self.budget)
        ns["_key"] = _key
        ns["_get_or0"] = _get_or0
        ns["_cp"] = _cp
        ns["_PE"] = _PY_ERRORS
        ns["_NOV"] = _NO_VALUES
        ns["_rt"] = functools.partial(_runtime_error, self.pending)
        ns["_at"] = functools.partial(_located, self.pending)
        ns["_RRE"] = RuleRuntimeError
        # each generated function is compiled once per process (by its source text) and bound
        # to this ruleset's namespace; the source comes from the grammar, no builtins reachable.
        # A function not compiled yet is bound as a stub that compiles it on its first call and
        # then becomes it (the same function object takes the compiled code): validating a
        # ruleset compiles only what its set-up runs, and play pays once per function it uses.
        entries = list(dict.fromkeys(self.lines))
        missing = [e for e in entries if e not in _CODE_CACHE]
        from .. import diskcache

        if missing and diskcache.enabled():
            disk = diskcache.section("code")
            for e in missing:
                hit = disk.get(diskcache.digest(e))
                if hit is not None:
                    _CODE_CACHE[e] = [(n, code, _NOV_DEFAULTS if has_defaults else None)
                                      for n, code, has_defaults in hit]
        lazy: dict = {}
        for e in entries:
            codes = _CODE_CACHE.get(e)
            if codes is not None:
                for n, code, defaults in codes:
                    ns[n] = _FunctionType(code, ns, n, defaults)
            else:
                for n in _def_names(e):
                    stub = ns[n] = _FunctionType(_stub_code(), ns, n)
                    stub.__kwdefaults__ = {"_me_": n}
                    lazy[n] = e
        if lazy:
            ns["_LAZY"] = lambda name: _materialize(ns, lazy, name)
        for h in self.pending:
            h.fn = ns[h.name]
        self.ns = ns
        return ns


def _expression_source(source: str, code: str, fcode: str) -> tuple:
    """The generated function(s) of an expression, named by content: the same expression in
    another module combination compiles once."""
    name = "_e" + _digest(code, fcode, source)
    # a Python error (a value of the wrong type met at run time) becomes a RuleRuntimeError
    # that names the expression; `try` costs nothing when nothing is raised
    guard = _guard(name, source)
    if fcode != code:
        # plain subscripts first; on any lookup error, the checked version explains it
        return name, (f"def {name}_safe(_V, _L):\n    try:\n        return {code}\n" + guard,
                      f"def {name}(_V=_NOV, _L=_NOV):\n    try:\n        return {fcode}\n"
                      f"    except _LE:\n        return {name}_safe(_V, _L)\n" + guard)
    return name, (f"def {name}(_V=_NOV, _L=_NOV):\n    try:\n        return {code}\n" + guard,)


@bounded_memo(1)
def _stub_code():
    """The code of a function not compiled yet: compile it (see `_materialize`), then call it."""
    scratch: dict = {"__builtins__": {}}
    exec(compile("def _stub(*_a, _me_=None, **_k):\n    return _LAZY(_me_)(*_a, **_k)\n",  # noqa: S102
                 "<rulebook stub>", "exec"), scratch)
    return scratch["_stub"].__code__


def _materialize(ns: dict, lazy: dict, name: str):
    """Compile the generated source that defines `name` and give its functions (the stubs in
    `ns`, which other code may already hold) their compiled code."""
    entry = lazy.get(name)
    if entry is not None:
        codes = _CODE_CACHE.get(entry)
        if codes is None:
            scratch = {"__builtins__": {}, "_NOV": _NO_VALUES}
            try:
                code = compile(entry, "<rulebook expressions>", "exec")
            except SyntaxError as e:  # a generator bug (tests compile every bundled function)
                from ..errors import RuleRuntimeError

                raise RuleRuntimeError(f"internal error: generated code failed to compile: {e}") from None
            exec(code, scratch)  # noqa: S102
            codes = [(n, scratch[n].__code__, scratch[n].__defaults__) for n in _def_names(entry)]
            _CODE_CACHE.put(entry, codes)
            from .. import diskcache

            if diskcache.enabled():
                diskcache.section("code")[diskcache.digest(entry)] = [
                    (n, code, defaults is not None) for n, code, defaults in codes]
                diskcache.touch()
        for n, code, defaults in codes:
            fn = ns[n]
            if fn.__code__ is _stub_code():
                fn.__code__ = code
                fn.__defaults__ = defaults
                fn.__kwdefaults__ = None
            lazy.pop(n, None)
    return ns[name]


_NO_VALUES = MappingProxyType({})
_NOV_DEFAULTS = (_NO_VALUES, _NO_VALUES)
_STRINGS = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_IDENTIFIERS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
def _text_names(source: str) -> tuple:
    """The identifiers of an expression, found in its text (string literals left out): a
    superset of its names (attribute and keyword names too), enough to key caches by."""
    hit = _NAMES.get(source)
    if hit is None:
        text = _STRINGS.sub("''", source)
        hit = _NAMES.put(source, tuple(sorted(set(_IDENTIFIERS.findall(text)) - KEYWORDS)))
    return hit


def _signature(source: str, scope, lex) -> tuple:
    """What the generated code of an expression depends on: for each name in it, what the
    scope says it is (local, var, constant, define, builtin) with its type, and the component
    types' attributes (for the attribute checks)."""
    sig = []
    lx = lex or {}
    locs, vars_, consts, defs = scope.locals, scope.vars, scope.constants, scope.defines
    for n in _text_names(source):
        # types are strings, tuples or None: hashable as they are (repr only for the disk key)
        if n in lx:
            sig.append((n, "x", lx[n]))
        elif n in locs:
            sig.append((n, "l", locs[n]))
        elif n in vars_:
            sig.append((n, "v", vars_[n]))
        elif n in consts:
            v = consts[n]
            sig.append((n, "k", repr(v) if isinstance(v, (int, float, str, bool)) or v is None
                        else (scope.const_types.get(n), type(v).__name__)))
        elif n in defs:
            sig.append((n, "d", tuple(defs[n])))
        else:
            sig.append((n, "?", ""))
    return (tuple(sig), _entity_signature(scope.entity_types))


def _entity_signature(entity_types: dict) -> str:
    """The component types' attributes, as one short text (the same dict object is shared by
    every scope of a ruleset, so this is computed once per ruleset)."""
    return _entity_signature_of(_Identity(entity_types))


class _Identity:
    """A dict as a memo key by identity (it is not changed once the scopes of a ruleset
    share it); holding it keeps its id from being reused while the memo remembers it."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __hash__(self):
        return id(self.value)

    def __eq__(self, other):
        return type(other) is _Identity and other.value is self.value


@bounded_memo(1000)
def _entity_signature_of(entity_types: _Identity) -> str:
    text = repr(sorted((t, sorted(a)) for t, a in entity_types.value.items()))
    return hashlib.sha1(text.encode()).hexdigest()


def _cached_gen(key):
    hit = _GEN_CACHE.get(key)  # (None for a key with an unhashable type: compiled again)
    if hit is not None:
        return hit
    from .. import diskcache

    if diskcache.enabled():
        hit = diskcache.section("gen").get(diskcache.digest(repr(key)))
        if hit is not None:
            _GEN_CACHE[key] = hit
    return hit


def _store_gen(key, value):
    _GEN_CACHE.put(key, value)
    from .. import diskcache

    if diskcache.enabled():
        diskcache.section("gen")[diskcache.digest(repr(key))] = value
        diskcache.touch()


def _digest(*parts) -> str:
    return hashlib.sha1("\x00".join(parts).encode()).hexdigest()[:16]


def _def_names(src: str) -> list:
    """The names of the functions a generated source defines."""
    return [line[4:line.index("(")] for line in src.splitlines() if line.startswith("def ")]


def _guard(name: str, source: str) -> str:
    """The `except` clauses of a generated function: a Python error (a value of the wrong type
    met at run time) becomes a RuleRuntimeError in plain words naming the expression, and any
    rule error gets the expression's position in the rule files (`try` costs nothing when
    nothing is raised)."""
    return (f"    except _PE as _x:\n        raise _rt(_x, {_clip(source)!r}, {name!r}) from None\n"
            f"    except _RRE as _x:\n        raise _at(_x, {_clip(source)!r}, {name!r}) from None\n")


class Handle:
    __slots__ = ("name", "source", "type", "fn", "names", "target", "pos")

    def __init__(self, name, source, typ, names):
        self.name = name
        self.source = source
        self.type = typ
        self.names = names
        self.fn = None
        self.target = None
        self.pos = None


class CompiledExpression:
    """One expression compiled once. `evaluate(mapping)` gives its value; the mapping supplies
    every name the expression was compiled with."""

    __slots__ = ("source", "_fn", "_budget", "names", "evaluate")

    def __init__(self, source, fn, budget, names):
        self.source = source
        self._fn = fn
        self._budget = budget  # None when the expression charges no work
        self.names = names
        # `evaluate(mapping)` is the generated function itself when there is no work budget to
        # reset (no call in between); otherwise a small closure resets the budget first
        if budget is None:
            self.evaluate = fn
        else:
            def evaluate(mapping=_NO_VALUES, _fn=fn, _b=budget):
                _b.left = _b.limit
                return _fn(mapping)
            self.evaluate = evaluate

    def __call__(self, mapping=None):
        return self.evaluate(_NO_VALUES if mapping is None else mapping)

    def __repr__(self):
        return f"CompiledExpression({self.source!r})"


def compile_expression(source: str, names=(), *, functions: Optional[dict] = None,
                       entities: Optional[dict] = None, work_limit: int = 2_000_000) -> CompiledExpression:
    """Compile `source` once. `names` are the names the expression may use (an iterable, or a
    mapping name -> example value, used only for its type). `functions` maps a name to
    (params, body source) for named helper expressions. Raises ExpressionError with
    `.line`, `.column`, `.message` on a syntax or name error."""
    if isinstance(names, dict):
        vars_ = {n: _example_type(v, entities) for n, v in names.items()}
    else:
        vars_ = {n: None for n in names}
    defines = {k: list(v[0]) for k, v in (functions or {}).items()}
    scope = Scope(vars=vars_, defines=defines)
    budget = Budget(work_limit)
    unit = CodeUnit(scope, entities or {}, budget)
    for fname, (params, body) in (functions or {}).items():
        unit.add_define(fname, list(params), body)
    h = unit.add_expression(source)
    unit.build()
    charges = any(_CHARGING.search(line) for line in unit.lines)
    return CompiledExpression(source, h.fn, budget if charges else None, sorted(h.names))


# generated code that may charge the work budget: then each evaluation starts with a full budget
_CHARGING = re.compile(r"_T\(|_in\(|_add\(|_mul|_aug\(|_f_(" + "|".join(sorted(CHARGED)) + r")\(")


def _example_type(v, entities=None):
    """The type of an example value; a list also tells its elements' type when they agree
    (all numbers, or all ids of components of one type)."""
    if isinstance(v, list) and v:
        if all(type(x) is int for x in v):
            return _list_of(NUM)
        if entities and all(isinstance(x, str) and x in entities for x in v):
            kinds = {(entities[x] or {}).get("type") for x in v}
            if len(kinds) == 1 and None not in kinds:
                return _list_of(("entity", kinds.pop()))
    return _type_of_value(v)
