"""Tree -> Python source: name resolution (what a name means in a Scope), the light static
types that catch obvious mistakes before play (their helpers are in types.py), and the
generated code of every construct (`_Gen`). The source it produces only names `_V`, `_L`,
`_K`, `u_*`, `d_*`, `_f_*` and the runtime helpers; compiling and binding it is the compiler's.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from lark import Token

from ..errors import ExpressionError, suggest
from .builtins import BUILTINS, ITERATING, MAX_INT_BITS, MAX_INT_DIGITS
from .parser import position_of
from .runtime import _clip
from .types import (BOOL, NONE, NUM, STR, _builtin_type, _elem, _is_entity, _is_int_literal,  # noqa: F401
                    _is_num_literal, _is_small_literal, _list_of, _tname, _type_of_value)

__all__ = ["Scope", "NUM", "STR", "BOOL", "NONE"]



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
            if self.fast and attr != "id":  # its record read directly (an error falls back to `_A`)
                return f"_E[{obj}][{attr!r}]", None
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
        pos_args, kw_args = self._call_arguments(fname, node.children[1], lex)
        if fname in self.scope.defines and (fname not in lex):
            return self._call_define(node, fname, pos_args, kw_args)
        if fname not in BUILTINS:
            self.err(node.children[0], f"unknown function '{fname}'",
                     suggest(fname, list(BUILTINS) + list(self.scope.defines)))
        self._check_builtin_call(node, fname, pos_args, kw_args)
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
        return f"_f_{fname}({', '.join(parts)})", _builtin_type(fname, pos_args)

    def _call_arguments(self, fname, args_node, lex) -> tuple:
        """([(code, type, node)] of the positional arguments, [(keyword, code, node)])."""
        pos_args: list = []
        kw_args: list = []
        if args_node is None:
            return pos_args, kw_args
        if args_node.data == "genexp_arg":
            self.uses_budget = True
            clauses, ec, _ = self._comp(args_node.children[0], args_node.children[1], lex)
            pos_args.append((f"[{ec} {clauses}]", None, args_node))
            return pos_args, kw_args
        for a in args_node.children:
            if a is None:
                continue
            if getattr(a, "data", None) == "kwarg":
                v, _ = self._argument(fname, a.children[1], lex)
                kw_args.append((str(a.children[0]), v, a))
            else:
                c, ct = self._argument(fname, a, lex)
                pos_args.append((c, ct, a))
        return pos_args, kw_args

    def _call_define(self, node, fname, pos_args, kw_args):
        self.names_used.add(fname)  # a called define is used (no false 'unused' warning)
        params = self.scope.defines[fname]
        if kw_args:
            self.err(kw_args[0][2], f"'{fname}' takes no keyword arguments", code="arity")
        if len(pos_args) != len(params):
            self.err(node, f"'{fname}' takes {len(params)} argument(s) "
                           f"({', '.join(params)}), got {len(pos_args)}", code="arity")
        args = ", ".join(["_V", "_L"] + [c for c, _, _ in pos_args])
        return f"d_{fname}({args})", None

    def _check_builtin_call(self, node, fname, pos_args, kw_args):
        """Arity, keywords, and a number given where a collection is needed."""
        _, lo, hi, kws = BUILTINS[fname]
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
