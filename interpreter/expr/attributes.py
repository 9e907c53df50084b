"""Static attribute checks with the compiler's own types: every `NAME.attr` of a ruleset's
expressions is checked against what NAME can be, before play.

The generator (generate.py) already refuses `c.sectr` where the type of `c` is known at the
expression (a `for`/`choose`/`random`/`move` over a list of one component type, an action
parameter with a component domain, a comprehension over such a list). This module adds the two
places where the type is known only elsewhere or not at all:
  - a named expression (`define`) is checked once for each combination of argument types it is
    called with: `affected(bill, c)` called with `c` from `for c in corp` checks `c.sector` in
    the define's body against the attributes of a corp (and its own calls, in turn);
  - an attribute read on a value whose type is not known (a var, an untyped parameter) must be
    an attribute that some component, constant or var value has.

Each problem is reported once, at the attribute's file:line:col in the rule files, with
"did you mean". The compiler records what to check (`CodeUnit.typed`, `CodeUnit.define_sources`);
checks.py calls `attribute_problems` on a compiled ruleset's unit.
"""
from __future__ import annotations

from ..errors import ExpressionError, suggest
from ..memo import BoundedMemo
from .generate import _Gen
from .parser import parse

__all__ = ["attribute_problems"]

_UNKNOWN = (None, "map")  # types whose attributes are checked against every known attribute
_KNOWN = BoundedMemo("known attribute sets", 1_000)  # each set met, kept as one object
_CHECKED = BoundedMemo("typed attribute checks", 100_000)  # (kind, text, signature, attrs) -> result


class _TypedGen(_Gen):
    """The generator, run for its static types only: records the argument types of each call
    of a named expression, and checks an attribute read on a value of unknown type."""

    def __init__(self, scope, source, known_attributes, calls):
        super().__init__(scope, source)
        self.known_attributes = known_attributes
        self.calls = calls
        self.types: dict = {}

    def gen(self, node, lex):
        code, typ = super().gen(node, lex)
        self.types[id(node)] = typ
        return code, typ

    def g_attr(self, node, lex):
        result = super().g_attr(node, lex)
        attr = str(node.children[1])
        if self.types.get(id(node.children[0]), "") in _UNKNOWN and attr not in self.known_attributes:
            self.err(node.children[1], f"no component, constant or var value has the attribute '{attr}'",
                     suggest(attr, sorted(self.known_attributes)) or
                     "check the name (component attributes are the keys of their records)", code="attribute")
        return result

    def _call_define(self, node, fname, pos_args, kw_args):
        result = super()._call_define(node, fname, pos_args, kw_args)
        self.calls.append((fname, tuple(typ for _, typ, _ in pos_args)))
        return result


def attribute_problems(unit, known_attributes) -> list:
    """[(source text, ExpressionError)] for every attribute that cannot exist, over every
    expression, statement and define the unit compiled, and every define for each combination
    of argument types it is called with. The source text is the one the rule files hold (a
    `Text` with its position), so the caller can place the error."""
    known = frozenset(known_attributes)
    known = _KNOWN.get(known) or _KNOWN.put(known, known)  # one object per set: keys compare by identity
    problems: list = []
    reported: dict = {}  # place -> index in problems
    calls: list = []
    untyped_defines = []  # checked last: where a define's argument types are known, that error says more
    for source, scope, lex, kind, key in unit.typed:
        if kind == "define":
            untyped_defines.append((source, scope, lex, key))
            continue
        error, found_calls = _check(kind, source, scope, lex, known, key)
        calls.extend(found_calls)
        _keep(problems, reported, source, error)
    _check_calls(unit, calls, known, problems, reported)
    for source, scope, lex, key in untyped_defines:
        error, found_calls = _check("define", source, scope, lex, known, key)
        _keep(problems, reported, source, error)
        _check_calls(unit, list(found_calls), known, problems, reported)
    return problems


def _check_calls(unit, calls, known, problems, reported) -> None:
    """Check each define for the argument types it is called with (and what it calls in turn)."""
    checked: set = set()
    while calls:
        fname, arg_types = calls.pop()
        if (fname, arg_types) in checked or fname not in unit.define_sources:
            continue
        checked.add((fname, arg_types))
        source, scope, params = unit.define_sources[fname]
        if len(params) != len(arg_types):
            continue
        error, found_calls = _check("define", source, scope, dict(zip(params, arg_types)), known)
        calls.extend(found_calls)
        _keep(problems, reported, source, error)


def _keep(problems, reported, source, error) -> None:
    """Add one problem unless the same place was reported already (a define met with several
    argument types fails at one place once); an error that names the value's type replaces
    one that could not (`a corp has no attribute 'sectr'` says more than `no component ...`)."""
    if error is None:
        return
    place = (id(source), error.line, error.column)
    if place not in reported:
        reported[place] = len(problems)
        problems.append((source, error))
    elif error.code != "attribute" and problems[reported[place]][1].code == "attribute":
        problems[reported[place]] = (source, error)


def _check(kind, source, scope, lex, known, key=None) -> tuple:
    """(the first ExpressionError of one text or None, [(define, argument types)] it calls),
    memoised by what the check depends on: the compiler's key (the text and the types of its
    names) and the known attributes."""
    from .compiler import _signature, text_names

    text = str(source)
    if "." not in text and not any(name in scope.defines for name in text_names(text)):
        return None, ()  # no attribute read (`x.name`) and no named expression called: nothing to check
    key = (key or (kind, text, _signature(text, scope, lex)), known)
    found = _CHECKED.get(key)
    if found is not None:
        return found
    calls: list = []
    generator = _TypedGen(scope, text, known, calls)
    error = None
    try:
        tree = parse(text, "statement" if kind == "statement" else "expression")
        if kind == "statement":
            generator.statement(tree, dict(lex or {}))
        else:
            generator.gen(tree, dict(lex or {}))
    except ExpressionError as problem:
        error = problem if problem.code == "attribute" or "has no attribute" in problem.message else None
    return _CHECKED.put(key, (error, tuple(calls)))
