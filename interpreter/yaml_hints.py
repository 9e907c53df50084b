"""YAML syntax errors in a designer's words: an indentation mistake says "check the indentation
of line N" and the column the line should start at, instead of the parser's
"expected <block end>, but found '<block sequence start>'".

Owns only the wording: `explain(text, message, line, col, hint)` returns a (message, hint) pair
for the loader's error path (loader.py calls it; the positions stay the parser's).
"""
from __future__ import annotations

import re

__all__ = ["explain"]

_KEY = re.compile(r"^(\s*)(?:-\s+)?([A-Za-z_][\w-]*)\s*:(\s|$)")
_ITEM = re.compile(r"^(\s*)-(\s|$)")


def explain(text: str, message: str, line: int, col: int, hint):
    """A clearer (message, hint) for an indentation error at `line` (1-based), else the same."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return message, hint
    current = lines[line - 1]
    indent = len(current) - len(current.lstrip(" "))
    above = [row for row in lines[:line - 1] if row.strip() and not row.lstrip().startswith("#")]
    if "expected <block end>" in message and _ITEM.match(current):
        sibling = next((row for row in reversed(above) if _ITEM.match(row)
                        and len(row) - len(row.lstrip(" ")) > indent), None)
        if sibling is not None:
            want = len(sibling) - len(sibling.lstrip(" ")) + 1
            return (f"this list item is not lined up with the items above: check the indentation of line {line}",
                    f"start it at column {want}, like the item above, or dedent it to close the list")
    if "expected <block end>" in message and _KEY.match(current) and above:
        previous = above[-1]
        prev_indent = len(previous) - len(previous.lstrip(" "))
        if indent > prev_indent and not previous.rstrip().endswith(":"):
            return (f"this key is indented more than the line above, which already has a value: "
                    f"check the indentation of line {line}",
                    f"start it at column {prev_indent + 1} (a key of the same mapping), or nest it "
                    "under a key that ends with ':'")
    if "mapping values are not allowed" in message and _KEY.match(current) and above:
        previous = above[-1]
        prev_indent = len(previous) - len(previous.lstrip(" "))
        if indent > prev_indent and not previous.rstrip().endswith(":"):
            return (f"this key is indented more than the line above: check the indentation of line {line}",
                    f"start it at column {prev_indent + 1}, like the key above; if the line above is a "
                    "value that contains ': ', quote it")
    return message, hint
