"""The `return` of a generated expression function written as statements where that saves
Python calls, with the same steps in the same order (the same values, charges and errors):

- `any(x for ...)` / `all(x for ...)` as the whole expression (generated as `_next((v for
  ... if c), d)`, generate_calls.py) becomes the loops themselves: `for ...: if c: return v`,
  then `return d` (no generator object, no `next` call, no resumption per item);
- a folded `range` of literals (`_R_<start>_<stop>_<step>`) that is the first thing such a loop
  or a whole-expression list comprehension goes through is charged to the work bound by its
  length, known when the code is generated (`_B.left -= 9`), instead of by a `_T` call;
- such a list comprehension with one `for` over at most SHORT_RANGE items becomes a loop that
  appends to `_result` (no function object and frame made for the comprehension at each call,
  which cost more than the appends for a few items: ~800 instructions against ~50 an item).

Owns: `return_statements(code)`. The code is our own generated Python (parsed here with `ast`
only to find its parts; the parts are copied as text).
"""
from __future__ import annotations

import ast
import re

_FOLDED = re.compile(r"^_R_([0-9m]+)_([0-9m]+)_([0-9m]+)$")
# what the code must start with for either rewrite: `_next(` (the whole expression decided by
# one item) or `[` with a folded range charged by `_T` in it (a list comprehension). Any other
# code is returned as it is without parsing it (parsing every expression cost ~5 ms of a Davos
# start-up; 128 of ~11,800 bundled expressions are rewritten, all of them `_next(`).
_MAY_BE_REWRITTEN = re.compile(r"[\s(]*(?:_next\b|\[.*_T\(_R_)")
_INDENT = "        "  # inside the function's `try`
SHORT_RANGE = 16  # a list comprehension over a folded range up to this long is written as a loop


def return_statements(code: str) -> str:
    """The statements (indented for the body of a `try`) that return the value of `code`."""
    if "\n" in code or not _MAY_BE_REWRITTEN.match(code):  # (generated expressions are one line)
        return f"{_INDENT}return {code}\n"
    tree = ast.parse(code, mode="eval").body
    if _is_decided_by_one(tree):
        return _loops(code, tree.args[0], f"return ({_text(code, tree.args[0].elt)})", f"return ({_text(code, tree.args[1])})")
    if isinstance(tree, ast.ListComp):
        charge, first = _charged_first(code, tree.generators[0])
        if charge and len(tree.generators) == 1 and _folded_length(first) <= SHORT_RANGE:
            return _loops(code, tree, f"_result.append(({_text(code, tree.elt)}))", "return _result", "_result = []")
        if charge:
            data, (start, end) = code.encode(), _span(tree.generators[0].iter)
            return charge + f"{_INDENT}return {data[:start].decode()}{first}{data[end:].decode()}\n"
    return f"{_INDENT}return {code}\n"


def _is_decided_by_one(tree) -> bool:
    """Is `tree` `_next((value for ...), default)`?"""
    return (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "_next"
            and len(tree.args) == 2 and not tree.keywords and isinstance(tree.args[0], ast.GeneratorExp))


def _loops(code: str, comprehension, innermost: str, last: str, before: str = "") -> str:
    """The nested `for`/`if` statements of a generator or list comprehension (after the
    statement `before`, if any), `innermost` inside them, `last` after them."""
    charge, first = _charged_first(code, comprehension.generators[0])
    lines, depth = [before] if before else [], 0
    for number, clause in enumerate(comprehension.generators):
        iterated = first if number == 0 and charge else _text(code, clause.iter)
        lines.append(f"{'    ' * depth}for {_text(code, clause.target)} in ({iterated}):")
        depth += 1
        for condition in clause.ifs:
            lines.append(f"{'    ' * depth}if ({_text(code, condition)}):")
            depth += 1
    lines.append(f"{'    ' * depth}{innermost}")
    lines.append(last)
    return charge + "".join(f"{_INDENT}{line}\n" for line in lines)


def _charged_first(code: str, clause: ast.comprehension) -> tuple:
    """(the statements charging the clause's iterable, the code of the iterable itself) when it
    is a folded range given to the work bound (`_T(_R_...)`); ("", None) otherwise."""
    iterable = clause.iter
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "_T"
            and len(iterable.args) == 1 and not iterable.keywords and isinstance(iterable.args[0], ast.Name)):
        return "", None
    name = iterable.args[0].id
    if _FOLDED.match(name) is None:
        return "", None
    return f"{_INDENT}_B.left -= {_folded_length(name)}\n{_INDENT}if _B.left < 0:\n{_INDENT}    _B.exceeded()\n", name


def _folded_length(name: str) -> int:
    """The number of items of the folded range named `name` (`_R_0_9_1`: 9)."""
    return len(range(*(int(part.replace("m", "-")) for part in _FOLDED.match(name).groups())))


def _span(node) -> tuple:
    """(start, end) offsets of `node` in the UTF-8 bytes of its one-line code."""
    return node.col_offset, node.end_col_offset


def _text(code: str, node) -> str:
    """The code of `node` (without the parentheses around it: put back where it is used)."""
    return ast.get_source_segment(code, node)
