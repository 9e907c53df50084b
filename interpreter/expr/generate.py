"""Tree -> Python source: name resolution (what a name means in a Scope), the light static
types that catch obvious mistakes before play (their helpers are in types.py), and the
generated code of every construct (`_Gen`). The source it produces only names `_V`, `_L`,
`_K`, `u_*`, `d_*`, `_f_*` and the runtime helpers; compiling and binding it is the compiler's.

`_Gen` holds names, literals, dispatch and assignment targets; the code of the other
constructs is in its parts: operators (generate_operators.py), calls (generate_calls.py),
collections, comprehensions, attributes and indexing (generate_access.py).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from lark import Token

from ..errors import ExpressionError, suggest
from .builtins import BUILTINS, MAX_INT_BITS, MAX_INT_DIGITS
from .generate_access import AccessCode
from .generate_calls import CallCode
from .generate_operators import OperatorCode
from .generate_sharing import SharingCode
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
    entity_types: component type -> set of attribute names (for checking `card.attr`),
    define_types: define -> the static type of its value, where its expression tells it
    (filled as the defines are compiled, callees first: ruleset.py `compile_defines`),
    map_attributes: the attribute names whose value is a map in every component that has them
    (types.py `map_attributes`), proven_defines: the defines whose value is a number for
    certain (proofs.py)."""

    vars: dict = field(default_factory=dict)
    locals: dict = field(default_factory=dict)
    constants: dict = field(default_factory=dict)
    defines: dict = field(default_factory=dict)
    entity_types: dict = field(default_factory=dict)
    const_types: dict = field(default_factory=dict)
    define_types: dict = field(default_factory=dict)
    map_attributes: frozenset = frozenset()
    proven_defines: set = field(default_factory=set)

    def with_locals(self, names) -> "Scope":
        new_locals = dict(self.locals)
        if isinstance(names, dict):
            new_locals.update(names)
        else:
            for name in names:
                new_locals.setdefault(name, None)
        return Scope(self.vars, new_locals, self.constants, self.defines, self.entity_types, self.const_types,
                     self.define_types, self.map_attributes, self.proven_defines)

    def known(self):
        return (list(self.vars) + list(self.locals) + list(self.constants) + list(self.defines)
                + list(BUILTINS))


_SIMPLE_CONSTANTS = (int, float, str)


class _Gen(OperatorCode, CallCode, AccessCode, SharingCode):
    """Tree -> Python source, with name resolution and light type checks."""

    def __init__(self, scope: Scope, source: str, fast: bool = False, keep_across=None):
        self.scope = scope
        self.source = source
        self.fast = fast
        # the local names that change between the evaluations the code is made for, when the
        # calls that read none of them are kept across evaluations (generate_sharing.py)
        self.keep_across = keep_across
        self.uses_budget = False
        self.names_used: set = set()
        self.proofs: dict = {}  # node -> is it a number for certain (proofs.py)
        self.likely_maps: set = set()  # code of attributes that are maps in every component (generate_access.py)
        # in the order met: ("read", attribute, line, column) for an attribute read on a value of
        # no known component type, ("call", define, argument types) for a define called; what
        # expr/attributes.py checks once the known attributes are known
        self.attribute_events: list = []
        self.start_sharing()

    def err(self, node, message, hint=None, code="name"):
        line, column = position_of(node)
        raise ExpressionError(message, line, column, code=code, hint=hint, source=self.source)

    # ------------------------------------------------------------------ names
    def name(self, token, lex):
        name = str(token)
        self.names_used.add(name)
        if name in lex:
            return "u_" + name, lex[name]
        scope = self.scope
        if name in scope.locals:
            return self.read("_L", name), scope.locals[name]
        if name in scope.vars:
            return self.read("_V", name), scope.vars[name]
        if name in scope.constants:
            value = scope.constants[name]
            if isinstance(value, bool) or value is None or isinstance(value, _SIMPLE_CONSTANTS):
                return repr(value), _type_of_value(value)
            return self.read("_K", name), scope.const_types.get(name) or _type_of_value(value, self.scope)
        if name in scope.defines and not scope.defines[name]:
            return self.call_code(f"d_{name}(_V, _L)"), scope.define_types.get(name)
        if name in scope.defines or name in BUILTINS:
            self.err(token, f"'{name}' is a function: call it as {name}(...)", code="type")
        self.err(token, f"unknown name '{name}'", suggest(name, list(lex) + scope.known()))

    def read(self, mapping: str, name: str) -> str:
        """The code that reads `name` from `mapping` (`_V`, `_L` or `_K`). In the fast variant,
        a var or a constant read for each item of a comprehension over a constant or a literal
        `range` (many items, statically bounded) is a local the function reads once before it (`hoisted_reads_preamble`): an expression
        changes neither, and both are always there. (Not a local: one the scope declares may be
        missing at an evaluation that does not read it, and the lookup error would send every
        such evaluation to the checked variant.)"""
        if mapping != "_L" and self.fast and self.sharing and self.keep_across is None and self.over_constant:
            return f"{mapping}n_{name}"
        return f"{mapping}[{name!r}]"

    # ------------------------------------------------------------------ dispatch
    def gen(self, node, lex) -> tuple[str, Any]:
        if isinstance(node, Token):
            if node.type == "NAME":
                return self.name(node, lex)
            raise AssertionError(node.type)
        method = getattr(self, "g_" + node.data.rstrip("_"), None)
        if method is None:  # pragma: no cover - grammar and generator out of step
            self.err(node, f"unsupported construct {node.data}", code="syntax")
        return method(node, lex)

    def g_expression(self, node, lex):
        return self.gen(node.children[0], lex)

    def g_name(self, node, lex):
        return self.name(node.children[0], lex)

    # ------------------------------------------------------------------ literals
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

    # ------------------------------------------------------------------ statements
    def statement(self, node, lex):
        target, operator, value = node.children
        value_code, _ = self.gen(value, lex)
        root, path = self.target(target, lex)
        return root, path, str(operator), value_code

    def target(self, node, lex):
        """Returns (root variable name, [key code, ...]) of an assignment target."""
        if node.data == "t_name":
            name = str(node.children[0])
            scope = self.scope
            if name not in scope.vars and name not in scope.locals and name not in lex:
                if name in scope.constants:
                    self.err(node.children[0], f"'{name}' is a constant and cannot be changed",
                             code="assign")
                self.err(node.children[0], f"unknown variable '{name}'",
                         suggest(name, list(scope.vars) + list(scope.locals)) or
                         "declare it under 'vars:'", code="name")
            self.names_used.add(name)
            return name, []
        root, path = self.target(node.children[0], lex)
        if node.data == "t_index":
            key, _ = self.gen(node.children[1], lex)
            return root, path + [key]
        return root, path + [repr(str(node.children[1]))]
