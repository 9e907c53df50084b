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
"did you mean". The compiler's generator records, as it generates each expression, statement
and define, the attributes it reads on values of no known component type and the argument types
of each define it calls (generate.py `attribute_events`; `CodeUnit.typed`,
`CodeUnit.define_sources`), so those texts are not generated again here: only a define called
with some argument of a known type is generated again, with those types. checks.py calls
`attribute_problems` on a compiled ruleset's unit.
"""
from __future__ import annotations

from ..errors import ExpressionError, suggest
from ..memo import BoundedMemo
from .generate import _Gen
from .parser import parse

__all__ = ["attribute_problems"]

_KNOWN = BoundedMemo("known attribute sets", 1_000)  # each set met, kept as one object
_CHECKED = BoundedMemo("typed attribute checks", 100_000)  # (text, signature, attrs) -> result


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
    for source, kind, events in unit.typed:
        if kind == "define":
            untyped_defines.append((source, events))
            continue
        error, found_calls = _first_problem(source, events, known)
        calls.extend(found_calls)
        _keep(problems, reported, source, error)
    _check_calls(unit, calls, known, problems, reported)
    for source, events in untyped_defines:
        error, found_calls = _first_problem(source, events, known)
        _keep(problems, reported, source, error)
        _check_calls(unit, list(found_calls), known, problems, reported)
    return problems


def _check_calls(unit, calls, known, problems, reported) -> None:
    """Check each define for the argument types it is called with (and what it calls in turn):
    with none known, as the compiler generated it; otherwise generated again with those types."""
    checked: set = set()
    while calls:
        fname, arg_types = calls.pop()
        if (fname, arg_types) in checked or fname not in unit.define_sources:
            continue
        checked.add((fname, arg_types))
        source, scope, params, events = unit.define_sources[fname]
        if len(params) != len(arg_types):
            continue
        if all(typ is None for typ in arg_types):
            error, found_calls = _first_problem(source, events, known)
        else:
            error, found_calls = _typed_check(source, scope, dict(zip(params, arg_types)), known)
        calls.extend(found_calls)
        _keep(problems, reported, source, error)


def _first_problem(source, events, known) -> tuple:
    """(the first attribute of `events` that no known value has, as an ExpressionError, or None;
    [(define, argument types)] called before it): what a generation that stopped at that
    attribute would have found."""
    calls = []
    for event in events:
        if event[0] == "call":
            calls.append(event[1:])
        elif event[1] not in known:
            _, attr, line, column = event
            hint = (suggest(attr, sorted(known)) or
                    "check the name (component attributes are the keys of their records)")
            return ExpressionError(f"no component, constant or var value has the attribute '{attr}'", line, column,
                                   code="attribute", hint=hint, source=str(source)), tuple(calls)
    return None, tuple(calls)


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


def _typed_check(source, scope, lex, known) -> tuple:
    """(the first attribute error of a define generated with its parameters' types, or None;
    [(define, argument types)] it calls before it), memoised by what the check depends on: the
    text, the types of its names and the known attributes."""
    from .compiler import _signature, text_names

    text = str(source)
    if "." not in text and not any(name in scope.defines for name in text_names(text)):
        return None, ()  # no attribute read (`x.name`) and no named expression called: nothing to check
    key = (text, _signature(text, scope, lex), known)
    found = _CHECKED.get(key)
    if found is not None:
        return found
    generator = _Gen(scope, text)
    raised = None
    try:
        generator.gen(parse(text, "expression"), dict(lex))
    except ExpressionError as problem:
        raised = problem
    error, calls = _first_problem(text, generator.attribute_events, known)
    if error is None and raised is not None and (raised.code == "attribute" or "has no attribute" in raised.message):
        error = raised
    return _CHECKED.put(key, (error, calls))
