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
import marshal as _marshal
from types import FunctionType as _FunctionType
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Optional

from ..errors import ExpressionError, suggest
from .builtins import BUILTINS, ITERATING, Budget, int_too_big, make_runtime

__all__ = ["Scope", "CodeUnit", "compile_expression", "CompiledExpression", "parse"]

_PARSERS: dict = {}


def _parser(positions: bool = True):
    """The LALR parser; `positions` puts line and column on every tree node (tokens always
    have them). Trees without them are cheaper: they are used first, and an expression with
    an error is parsed again with positions to say exactly where."""
    p = _PARSERS.get(positions)
    if p is None:
        from lark import Lark

        p = _PARSERS[positions] = Lark.open(
            "grammar.lark",
            rel_to=__file__,
            parser="lalr",
            start=["expression", "statement"],
            propagate_positions=positions,
            maybe_placeholders=True,
            cache=True,
        )
    return p


_DRIVERS: dict = {}
_str_new = str.__new__


def _driver(positions: bool):
    """The parse loop for the grammar (see `_Driver`), or None where it cannot drive this Lark."""
    if positions not in _DRIVERS:
        try:
            _DRIVERS[positions] = _Driver(_parser(positions))
        except Exception:  # noqa: BLE001 - a Lark whose insides differ: its own loop parses
            _DRIVERS[positions] = None
    return _DRIVERS[positions]


class _Driver:
    """Lark's LALR parser for the grammar, run by a tighter loop: the same parse table, the
    same per-state (contextual) lexers and the same tree-building callbacks as `Lark.parse`,
    so the same tree, with the reductions looked up by state instead of by rule object and
    the tokens read in the same loop. It only parses: on anything unexpected it returns None
    and `Lark.parse` runs, which raises the error the messages are written for."""

    def __init__(self, lark):
        from lark.parsers.lalr_analysis import Shift

        try:
            frontend = lark.parser
            table = frontend.parser._parse_table
            callbacks = frontend.parser.parser.callbacks
            self.state_lexers = frontend.lexer.lexers
        except AttributeError:
            raise LookupError("another version of Lark") from None
        if any(isinstance(k, str) for k in callbacks):
            raise LookupError("callbacks on tokens")  # this grammar has none; Lark's loop handles them
        from lark.parse_tree_builder import ExpandSingleChild

        def reduction(rule):
            cb = callbacks[rule]
            if len(rule.expansion) == 1 and type(cb) is ExpandSingleChild:
                cb = None  # `?rule: child`: the child is the value, nothing to build
            return (len(rule.expansion), rule.origin.name, cb)

        self.rows = {}
        for state, row in table.states.items():
            self.rows[state] = {sym: ((arg, None) if action is Shift else (None, reduction(arg)))
                                for sym, (action, arg) in row.items()}
        self.start_states, self.end_states = table.start_states, table.end_states
        self.lexers: dict = {}  # id(Lark's lexer for a state) -> what the loop needs of it
        self.chains: dict = {}  # (state below, top state, token type) -> top state after unit reductions
        self.by_state: dict = {}  # parser state -> its lexer's (match, ignore, newline types, callbacks)

    def _chain(self, below, top, token_type, end_state):
        """The top state after the `?rule: child` reductions that `token_type` makes in `top`
        over `below` (None if the table has no way on)."""
        rows = self.rows
        while top != end_state:
            act = rows[top].get(token_type)
            if act is None or act[0] is not None or act[1][2] is not None:
                break
            goto = rows[below].get(act[1][1])
            if goto is None or goto[0] is None:
                return None
            top = goto[0]
        return top

    def _lexer(self, state):
        lx = self.state_lexers[state]
        got = self.lexers.get(id(lx))
        if got is None:
            try:
                regexps = lx.scanner._mres  # building the scanner builds lx.callback too
                ignore, newline_types, callback = lx.ignore_types, lx.newline_types, lx.callback
            except AttributeError:
                raise LookupError("another version of Lark") from None
            if len(regexps) != 1 or ignore & set(callback) or getattr(lx, "use_bytes", False):
                raise LookupError("a lexer the loop does not drive")
            got = self.lexers[id(lx)] = (regexps[0].match, ignore, newline_types,
                                         {t: _keywords(cb) for t, cb in callback.items()})
        return got

    def parse(self, text: str, start: str):
        from lark import Token

        rows, chains, by_state = self.rows, self.chains, self.by_state
        states = [self.start_states[start]]
        values: list = []
        end_state = self.end_states[start]
        pos, line, line_start, n = 0, 1, 0, len(text)
        last = None
        while True:
            tok = None
            while pos < n:
                lx = by_state.get(states[-1])
                if lx is None:
                    lx = by_state[states[-1]] = self._lexer(states[-1])
                match, ignore, newline_types, callback = lx
                m = match(text, pos)
                if m is None:
                    return None
                value, type_ = m.group(0), m.lastgroup
                start_pos, start_line, start_col = pos, line, pos - line_start + 1
                if type_ in newline_types:
                    nl = value.count("\n")
                    if nl:
                        line += nl
                        line_start = pos + value.rindex("\n") + 1
                pos += len(value)
                if type_ in ignore:
                    continue
                cb = callback.get(type_)
                if cb is not None and type(cb) is dict:  # a keyword read as a name: its own type
                    type_ = cb.get(value, type_)
                    cb = None
                # Token(type_, value, ...) without its keyword-argument handling (a few times faster)
                tok = _str_new(Token, value)
                tok.type, tok.value, tok.start_pos, tok.line, tok.column = type_, value, start_pos, start_line, start_col
                tok.end_line, tok.end_column, tok.end_pos = line, pos - line_start + 1, pos
                if cb is not None:
                    tok = cb(tok)
                break
            if tok is None:
                tok = Token.new_borrow_pos("$END", "", last) if last is not None else Token("$END", "", 0, 1, 1)
                is_end = True
            else:
                last = tok
                is_end = False
            while True:
                act = rows[states[-1]].get(tok.type)
                if act is None:
                    return None
                shift, reduce = act
                if shift is not None:
                    if is_end:
                        return None
                    states.append(shift)
                    values.append(tok)
                    break
                size, origin, cb = reduce
                if cb is None:
                    # a run of `?rule: child` reductions replaces only the top state, and where
                    # it ends depends only on the state below, the top state and the token
                    key = (states[-2], states[-1], tok.type)
                    top = chains.get(key)
                    if top is None:
                        top = self._chain(*key, end_state)
                        if top is None:
                            return None
                        chains[key] = top
                    states[-1] = top
                    if is_end and top == end_state:
                        return values[-1]
                    continue
                if size:
                    kids = values[-size:]
                    del states[-size:]
                    del values[-size:]
                else:
                    kids = []
                values.append(cb(kids))
                goto = rows[states[-1]].get(origin)
                if goto is None or goto[0] is None:
                    return None
                states.append(goto[0])
                if is_end and states[-1] == end_state:
                    return values[-1]


def _keywords(callback):
    """Lark's callback that gives a keyword matched as a name the keyword's type, as a dict
    (text -> type, the first terminal of Lark's order winning as its alternation does); any
    other callback as it is."""
    from lark.lexer import PatternStr, UnlessCallback

    if type(callback) is not UnlessCallback:
        return callback
    terminals = getattr(callback.scanner, "terminals", None)
    if not terminals or not all(type(t.pattern) is PatternStr and not t.pattern.flags for t in terminals):
        return callback
    table: dict = {}
    for t in terminals:
        table.setdefault(t.pattern.value, t.name)
    return table


class _Retry(Exception):
    """An error was found on a tree without node positions: parse again with them."""


_TOKEN_NAMES = {
    "EQUAL": "'='", "ASSIGN_OP": "an assignment", "NAME": "a name", "NUMBER": "a number",
    "STRING": "a string", "RPAR": "')'", "LPAR": "'('", "RSQB": "']'", "LSQB": "'['",
    "COMMA": "','", "COLON": "':'", "DOT": "'.'", "$END": "the end",
}


_TREE_CACHE: dict = {}


def parse(source: str, start: str = "expression", positions: bool = True):
    """Parse to a Lark tree or raise ExpressionError with line and column. Trees are cached by
    text, so composing many module combinations parses each expression once."""
    key = (str(source), start, positions) if isinstance(source, str) else None
    if key is not None:
        tree = _TREE_CACHE.get(key)
        if tree is not None:
            return tree
    tree = _parse(source, start, positions)
    if key is not None:
        if len(_TREE_CACHE) > 50_000:
            _TREE_CACHE.clear()
        _TREE_CACHE[key] = tree
    return tree


def _parse(source: str, start: str = "expression", positions: bool = True):
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

    if not isinstance(source, str):
        raise ExpressionError("an expression must be text", 1, 1)
    if len(source) > 4000:
        raise ExpressionError("expression longer than 4000 characters", 1, 1, code="too-long")
    try:
        driver = _driver(positions)
        try:
            tree = driver.parse(source, start) if driver is not None else None
        except Exception:  # noqa: BLE001 - a lexer the loop does not drive (another Lark?): Lark's own loop parses
            tree = None
        if tree is None:
            tree = _parser(positions).parse(source, start=start)
        _check_depth(tree, source)
        return tree
    except UnexpectedCharacters as e:
        ch = source[e.pos_in_stream] if e.pos_in_stream < len(source) else ""
        hint = None
        if ch == "_":
            hint = "names may not start with an underscore"
        elif ch in "&|":
            hint = "use 'and' / 'or'"
        elif ch == "!":
            hint = "use 'not' (or '!=' to compare)"
        elif ch == "=" and start == "expression":
            hint = "use '==' to compare; effects assign with 'name = value'"
        raise ExpressionError(f"unexpected character {ch!r}", e.line, e.column, hint=hint,
                              source=source) from None
    except UnexpectedEOF:
        line = source.count("\n") + 1
        col = len(source.rsplit("\n", 1)[-1]) + 1
        raise ExpressionError("the expression ends too early", line, col,
                              hint="is a bracket or an operand missing?", source=source) from None
    except UnexpectedToken as e:
        tok = e.token
        if tok.type == "$END":
            line = source.count("\n") + 1
            col = len(source.rsplit("\n", 1)[-1]) + 1
            raise ExpressionError("the expression ends too early", line, col,
                                  hint="is a bracket or an operand missing?", source=source) from None
        hint = None
        if str(tok) == "=" or tok.type in ("EQUAL", "ASSIGN_OP"):
            hint = "use '==' to compare" if start == "expression" else None
        expected = sorted(_TOKEN_NAMES.get(t, repr(t)) for t in list(e.expected)[:6])
        if not hint and expected:
            hint = "expected " + ", ".join(expected)
        raise ExpressionError(f"unexpected {str(tok)!r}", tok.line, tok.column, hint=hint,
                              source=source) from None
    except UnexpectedInput as e:  # pragma: no cover - other lark errors
        raise ExpressionError(str(e).splitlines()[0], getattr(e, "line", 1) or 1,
                              getattr(e, "column", 1) or 1, source=source) from None


_TOKEN = None


def _Token():
    global _TOKEN
    if _TOKEN is None:
        from lark import Token

        _TOKEN = Token
    return _TOKEN


MAX_DEPTH = 64  # nesting of the parse tree; deeper would overflow Python's own compiler


def _check_depth(tree, source):
    from lark import Tree

    stack = [(tree, 1)]
    while stack:
        node, d = stack.pop()
        if d > MAX_DEPTH:
            meta = getattr(node, "meta", None)
            line = getattr(meta, "line", 1) or 1
            col = getattr(meta, "column", 1) or 1
            raise ExpressionError(f"the expression is nested more than {MAX_DEPTH} levels deep", line, col,
                                  code="too-deep", hint="split it with 'let' or a named expression (define)",
                                  source=source)
        for c in node.children:
            if isinstance(c, Tree):
                stack.append((c, d + 1))


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

    def __init__(self, scope: Scope, source: str, fast: bool = False, positioned: bool = True):
        self.scope = scope
        self.source = source
        self.fast = fast
        self.positioned = positioned
        self.uses_budget = False
        self.names_used: set = set()

    def err(self, node, message, hint=None, code="name"):
        if not self.positioned and not hasattr(node, "line"):
            raise _Retry()
        line = getattr(getattr(node, "meta", None), "line", None) or getattr(node, "line", 1) or 1
        col = getattr(getattr(node, "meta", None), "column", None) or getattr(node, "column", 1) or 1
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
        if isinstance(node, _Token()):
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
        return (repr(float(text)) if "." in text else str(int(text))), NUM

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
        for pair in node.children:
            if pair is None:
                continue
            k, _ = self.gen(pair.children[0], lex)
            v, _ = self.gen(pair.children[1], lex)
            parts.append(f"{k}: {v}")
        return "{" + ", ".join(parts) + "}", "map"

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
        return f"({a} + {b})", t

    def g_sub(self, node, lex):
        a, b, *_ = self._arith(node, lex, "-")
        return f"({a} - {b})", NUM

    def g_mul(self, node, lex):
        a, b, ta, tb = self._arith(node, lex, "*")
        if _is_num_literal(a) and tb == NUM or _is_num_literal(b) and ta == NUM:
            return f"({a} * {b})", NUM  # growth bounded by the literal
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
                        v, vt = self.gen(a.children[1], lex)
                        kw_args.append((str(a.children[0]), v, a))
                    else:
                        c, ct = self.gen(a, lex)
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
        if fname in ("count", "len", "sum", "abs", "floor", "ceil", "int", "round", "round_down", "sign", "clamp"):
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


def _tname(t):
    if isinstance(t, tuple):
        return "a list" if t[0] == "list" else f"a {t[1]}"
    return {NUM: "a number", STR: "text", BOOL: "a boolean", NONE: "none"}.get(t, "a value")


def _is_int_literal(code: str) -> bool:
    return code.isdigit()


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

    def _gen(self, source: str, start: str, scope: Scope, positions: bool = False):
        tree = parse(source, start, positions)
        g = _Gen(scope, source, positioned=positions)
        return g, tree

    def add_expression(self, source: str, scope: Optional[Scope] = None, lex: Optional[dict] = None):
        """Compile-check one expression now; return a handle whose `.fn` is set by build()."""
        try:
            return self._add_expression(source, scope, lex, False)
        except _Retry:
            return self._add_expression(source, scope, lex, True)

    def add_statement(self, source: str, scope: Optional[Scope] = None):
        """An assignment `target op value`. Generates `def _sN(_V, _L)` that performs it."""
        try:
            return self._add_statement(source, scope, False)
        except _Retry:
            return self._add_statement(source, scope, True)

    def add_define(self, name: str, params: list, source: str, scope: Optional[Scope] = None):
        try:
            return self._add_define(name, params, source, scope, False)
        except _Retry:
            return self._add_define(name, params, source, scope, True)

    def _add_expression(self, source, scope, lex, positions):
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
            g, tree = self._gen(str(source), "expression", scope, positions)
            code, typ = g.gen(tree, dict(lex or {}))
            if "[" in str(source) or "." in str(source):
                fast = _Gen(scope, str(source), fast=True, positioned=positions)
                fcode, _ = fast.gen(tree, dict(lex or {}))
            else:  # no indexing and no attribute: the fast variant would be the same code
                fcode = code
            names_used = g.names_used
            _store_gen(key, (code, typ, fcode, sorted(names_used)))
        self.count += 1
        try:
            name, entries = _SOURCES[key]
        except (KeyError, TypeError):
            name, entries = _expression_source(str(source), code, fcode)
            if len(_SOURCES) > 100_000:
                _SOURCES.clear()
            try:
                _SOURCES[key] = (name, entries)
            except TypeError:
                pass
        self.lines.extend(entries)
        h = Handle(name, str(source), typ, set(names_used))
        self.pending.append(h)
        return h

    def _add_statement(self, source, scope, positions):
        scope = scope or self.scope
        key = ("stmt", str(source), _signature(str(source), scope, None))
        hit = _cached_gen(key)
        if hit is not None:
            root, path, op, vcode, names_used = hit
            path = list(path)
        else:
            g, tree = self._gen(str(source), "statement", scope, positions)
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
        body.append(f"    except _PE as _x:\n        raise _rt(_x, {_clip(str(source))!r}) from None")
        self.lines.append(f"def {name}(_V, _L):\n" + "\n".join(body) + "\n")
        h = Handle(name, str(source), None, set(names_used))
        h.target = root
        self.pending.append(h)
        return h

    def _add_define(self, name, params, source, scope, positions):
        scope = scope or self.scope
        lex = {p: None for p in params}
        key = ("define", str(source), _signature(str(source), scope, lex))
        hit = _cached_gen(key)
        if hit is not None:
            code, typ, names_used = hit
        else:
            g, tree = self._gen(str(source), "expression", scope, positions)
            code, typ = g.gen(tree, lex)
            names_used = g.names_used
            _store_gen(key, (code, typ, sorted(names_used)))
        args = ", ".join(["_V", "_L"] + ["u_" + p for p in params])
        self.lines.append(f"def d_{name}({args}):\n    return {code}\n")
        return typ, set(names_used)

    def build(self, constants: Optional[dict] = None) -> dict:
        ns = make_runtime(self.entities, self.budget)
        ns["_K"] = dict(constants if constants is not None else self.scope.constants)
        ns["_aug"] = _aug
        ns["_key"] = _key
        ns["_get_or0"] = _get_or0
        ns["_cp"] = _cp
        ns["_describe"] = _describe
        ns["_PE"] = _PY_ERRORS
        ns["_NOV"] = _NO_VALUES
        ns["_rt"] = _runtime_error
        # each generated function is compiled once per process (by its source text) and bound
        # to this ruleset's namespace; the source comes from the grammar, no builtins reachable.
        # A function not compiled yet is bound as a stub that compiles it on its first call and
        # then becomes it (the same function object takes the compiled code): validating a
        # ruleset compiles only what its set-up runs, and play pays once per function it uses.
        entries = list(dict.fromkeys(self.lines))
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


_SOURCES: dict = {}  # an expression's cache key -> (function name, generated source entries)


def _expression_source(source: str, code: str, fcode: str) -> tuple:
    """The generated function(s) of an expression, named by content: the same expression in
    another module combination compiles once."""
    name = "_e" + _digest(code, fcode, source)
    # a Python error (a value of the wrong type met at run time) becomes a RuleRuntimeError
    # that names the expression; `try` costs nothing when nothing is raised
    guard = f"    except _PE as _x:\n        raise _rt(_x, {_clip(source)!r}) from None\n"
    if fcode != code:
        # plain subscripts first; on any lookup error, the checked version explains it
        return name, (f"def {name}_safe(_V, _L):\n    try:\n        return {code}\n" + guard,
                      f"def {name}(_V=_NOV, _L=_NOV):\n    try:\n        return {fcode}\n"
                      f"    except _LE:\n        return {name}_safe(_V, _L)\n" + guard)
    return name, (f"def {name}(_V=_NOV, _L=_NOV):\n    try:\n        return {code}\n" + guard,)


_STUB = []


def _stub_code():
    """The code of a function not compiled yet: compile it (see `_materialize`), then call it."""
    if not _STUB:
        scratch: dict = {"__builtins__": {}}
        exec(compile("def _stub(*_a, _me_=None, **_k):\n    return _LAZY(_me_)(*_a, **_k)\n",  # noqa: S102
                     "<rulebook stub>", "exec"), scratch)
        _STUB.append(scratch["_stub"].__code__)
    return _STUB[0]


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
            if len(_CODE_CACHE) > 200_000:
                _CODE_CACHE.clear()
            _CODE_CACHE[entry] = codes
        for n, code, defaults in codes:
            fn = ns[n]
            if fn.__code__ is _STUB[0]:
                fn.__code__ = code
                fn.__defaults__ = defaults
                fn.__kwdefaults__ = None
            lazy.pop(n, None)
    return ns[name]


_NO_VALUES = MappingProxyType({})
_CODE_CACHE: dict = {}
_GEN_CACHE: dict = {}
_NAMES: dict = {}


_STRING_RE = None
_KEYWORDS = frozenset({"and", "or", "not", "in", "if", "else", "for", "lambda", "let",
                       "true", "false", "none", "True", "False", "None"})


def _text_names(source: str) -> tuple:
    """The identifiers of an expression, found in its text (string literals left out): a
    superset of its names (attribute and keyword names too), enough to key caches by."""
    global _STRING_RE
    hit = _NAMES.get(source)
    if hit is not None:
        return hit
    import re

    if _STRING_RE is None:
        _STRING_RE = (re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\""),
                      re.compile(r"[A-Za-z_][A-Za-z0-9_]*"))
    text = _STRING_RE[0].sub("''", source)
    names = tuple(sorted(set(_STRING_RE[1].findall(text)) - _KEYWORDS))
    if len(_NAMES) > 200_000:
        _NAMES.clear()
    _NAMES[source] = names
    return names


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


_ENT_SIG: dict = {}


def _entity_signature(entity_types: dict) -> str:
    """The component types' attributes, as one short text (the same dict object is shared by
    every scope of a ruleset, so this is computed once per ruleset)."""
    hit = _ENT_SIG.get(id(entity_types))
    if hit is not None and hit[0] is entity_types:
        return hit[1]
    import hashlib

    text = repr(sorted((t, sorted(a)) for t, a in entity_types.items()))
    sig = hashlib.sha1(text.encode()).hexdigest()
    if len(_ENT_SIG) > 1000:
        _ENT_SIG.clear()
    _ENT_SIG[id(entity_types)] = (entity_types, sig)
    return sig


def _cached_gen(key):
    try:
        hit = _GEN_CACHE.get(key)
    except TypeError:  # an unhashable type in the signature: compile without the cache
        return None
    return hit


def _store_gen(key, value):
    if len(_GEN_CACHE) > 100_000:
        _GEN_CACHE.clear()
    try:
        _GEN_CACHE[key] = value
    except TypeError:
        return


def _digest(*parts) -> str:
    import hashlib

    return hashlib.sha1("\x00".join(parts).encode()).hexdigest()[:16]


_DEF_NAMES: dict = {}


def _def_names(src: str) -> list:
    names = _DEF_NAMES.get(src)
    if names is None:
        names = [line[4:line.index("(")] for line in src.splitlines() if line.startswith("def ")]
        if len(_DEF_NAMES) > 200_000:
            _DEF_NAMES.clear()
        _DEF_NAMES[src] = names
    return names
_PY_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, ArithmeticError,
              RecursionError)


def _clip(source: str) -> str:
    return source if len(source) <= 60 else source[:57] + "..."


def _runtime_error(exc, source):
    from ..errors import RuleRuntimeError

    if isinstance(exc, RecursionError):
        why = "named expressions call each other without end"
    elif isinstance(exc, ZeroDivisionError):
        why = "division by zero"
    elif isinstance(exc, OverflowError):
        why = "a number too large"
    else:
        why = str(exc) or type(exc).__name__
    return RuleRuntimeError(f"{why} (in '{source}')")


def _aug(a, op, b):
    if op == "+":
        if a is None:
            return b
        return a + b
    if op == "-":
        return (a or 0) - b
    if op == "*":
        if int_too_big(a, b):
            from ..errors import RuleRuntimeError
            raise RuleRuntimeError("a number too large")
        return a * b
    if op == "//":
        if b == 0:
            from ..errors import RuleRuntimeError
            raise RuleRuntimeError("division by zero")
        return a // b
    raise AssertionError(op)


def _key(o, k):
    # JSON objects have text keys: a player number used as a key is stored as text
    if type(o) is dict and type(k) is int:
        return str(k)
    if type(o) is list and type(k) is int and not (-len(o) <= k < len(o)):
        from ..errors import RuleRuntimeError
        raise RuleRuntimeError(f"index {k} is outside a list of {len(o)}")
    return k


def _describe(e) -> str:
    if isinstance(e, KeyError):
        return f"no key {e.args[0]!r}"
    if isinstance(e, IndexError):
        return "index outside the list"
    return "that value cannot be changed this way"


def _cp(x):
    """Assignment copies a list or map: rules have value semantics, never aliasing."""
    t = type(x)
    if t is list or t is dict:
        return _marshal.loads(_marshal.dumps(x, 2))
    return x


def _get_or0(o, k):
    if type(o) is dict:
        return o.get(k, 0)
    return o[k]


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
        self._budget = budget  # None when the expression iterates over nothing
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
    iterates = any("_T(" in line for line in unit.lines)
    return CompiledExpression(source, h.fn, budget if iterates else None, sorted(h.names))


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
