"""The `return` of a generated expression function written as statements where that saves
Python calls, with the same steps in the same order (the same values, charges and errors):

- `any(x for ...)` / `all(x for ...)` as the whole expression (generated as `_next((v for
  ... if c), d)`, generate_calls.py) becomes the loops themselves: `for ...: if c: return v`,
  then `return d` (no generator object, no `next` call, no resumption per item);
- a folded `range` of literals (`_R_<start>_<stop>_<step>`) that is the first thing such a loop
  or a whole-expression list comprehension goes through is charged to the work bound by its
  length, known when the code is generated (`_B.left -= 9`), instead of by a `_T` call.

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


def return_statements(code: str) -> str:
    """The statements (indented for the body of a `try`) that return the value of `code`."""
    if "\n" in code or not _MAY_BE_REWRITTEN.match(code):  # (generated expressions are one line)
        return f"{_INDENT}return {code}\n"
    tree = ast.parse(code, mode="eval").body
    if _is_decided_by_one(tree):
        return _loops(code, tree.args[0], tree.args[1])
    if isinstance(tree, ast.ListComp):
        charge, first = _charged_first(code, tree.generators[0])
        if charge:
            data, (start, end) = code.encode(), _span(tree.generators[0].iter)
            return charge + f"{_INDENT}return {data[:start].decode()}{first}{data[end:].decode()}\n"
    return f"{_INDENT}return {code}\n"


def _is_decided_by_one(tree) -> bool:
    """Is `tree` `_next((value for ...), default)`?"""
    return (isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id == "_next"
            and len(tree.args) == 2 and not tree.keywords and isinstance(tree.args[0], ast.GeneratorExp))


def _loops(code: str, generator: ast.GeneratorExp, default) -> str:
    """The nested `for`/`if` statements of the generator, returning its first item."""
    charge, first = _charged_first(code, generator.generators[0])
    lines, depth = [], 0
    for number, clause in enumerate(generator.generators):
        iterated = first if number == 0 and charge else _text(code, clause.iter)
        lines.append(f"{'    ' * depth}for {_text(code, clause.target)} in ({iterated}):")
        depth += 1
        for condition in clause.ifs:
            lines.append(f"{'    ' * depth}if ({_text(code, condition)}):")
            depth += 1
    lines.append(f"{'    ' * depth}return ({_text(code, generator.elt)})")
    lines.append(f"return ({_text(code, default)})")
    return charge + "".join(f"{_INDENT}{line}\n" for line in lines)


def _charged_first(code: str, clause: ast.comprehension) -> tuple:
    """(the statements charging the clause's iterable, the code of the iterable itself) when it
    is a folded range given to the work bound (`_T(_R_...)`); ("", None) otherwise."""
    iterable = clause.iter
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "_T"
            and len(iterable.args) == 1 and not iterable.keywords and isinstance(iterable.args[0], ast.Name)):
        return "", None
    name = iterable.args[0].id
    match = _FOLDED.match(name)
    if match is None:
        return "", None
    length = len(range(*(int(part.replace("m", "-")) for part in match.groups())))
    return f"{_INDENT}_B.left -= {length}\n{_INDENT}if _B.left < 0:\n{_INDENT}    _B.exceeded()\n", name


def _span(node) -> tuple:
    """(start, end) offsets of `node` in the UTF-8 bytes of its one-line code."""
    return node.col_offset, node.end_col_offset


def _text(code: str, node) -> str:
    """The code of `node` (without the parentheses around it: put back where it is used)."""
    return ast.get_source_segment(code, node)
