"""Small named expressions written into the code that calls them: `held(p, k)` =
`get(stock[p], k, 0)` or `at(x)` = `get(places, x)` cost a Python call each time
they are read, more than their own work. When the generated functions are bound (compiler.py
`build`), a call `d_x(_V, _L, a, b)` of such a define whose arguments are names or literals is
replaced by the define's own code with its parameters replaced by those arguments (a var or a
local of the caller, a dict read each time, only for a parameter read once).

What stays the same: the work charged (the same operations run; a name or a literal, read once
or more, charges nothing) and the errors. A define's fast code (plain subscripts, generate.py)
is written only into a function that falls back to its checked variant on a lookup error
(`except _LE`), which calls the define as before, so an error is explained by the define's own
checked code; a define with one variant (nothing indexed, no attribute read) is written
anywhere: its code is the code that would run. A small define is one expression with no
comprehension, no lambda or `let`, no kept call, no collection given to the work bound (`_T`),
and no call of itself; a define whose values are kept (pure.py) is called, not written in.

Owns: `inline_small_defines`, and `function_sources` (generated source cut into its functions).
"""
from __future__ import annotations

import re

from .generate_calls import SIMPLE_OPERAND

MAX_INLINED = 320  # characters of a define's code written into a caller
PASSES = 3  # a define written in may call one to write in too
_STRINGS = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_NOT_SMALL = re.compile(r"\bfor\b|\blambda\b|:=|\b_h\d|\b_k\b|_keep\(|_again\(|\b_T\(|\b_Vn_|\b_Ln_|\b_Kn_")
# a call of a define: `d_<name>(` after no name character or dot (the check looks back from the
# `d`, so that the search skips to each `d` instead of testing every position of the code)
_CALL = re.compile(r"d(?<![\w.]d)_(\w+)\(")


def inline_small_defines(entries: list, codes: dict, params: dict) -> list:
    """The generated entries with the calls of small defines written in (`codes`: define ->
    (checked code, fast code); `params`: define -> its parameters)."""
    kept = {line[6:line.index("_body(")] for entry in entries for line in entry.splitlines()
            if line.startswith("def d_") and "_body(" in line}  # (pure.py renamed these)
    small = {name: pair for name, pair in codes.items()
             if name not in kept and name in params and _small(name, pair[1])}
    if not small:
        return entries
    return ["".join(_written_in(function, small, params) for function in function_sources(entry)) for entry in entries]


def function_sources(entry: str) -> list:
    """The generated source cut before each line that starts with `def `: the pieces of a split at
    `(?m)^(?=def )` (less its empty first piece), found with str.find rather than a regular
    expression tried at every position of the source."""
    pieces, start = [], 0
    cut = entry.find("\ndef ")
    while cut >= 0:
        pieces.append(entry[start:cut + 1])
        start = cut + 1
        cut = entry.find("\ndef ", start)
    pieces.append(entry[start:])
    return pieces


def _small(name: str, code: str) -> bool:
    return len(code) <= MAX_INLINED and not _NOT_SMALL.search(_STRINGS.sub("''", code)) and f"d_{name}(" not in code


def _written_in(function: str, small: dict, params: dict) -> str:
    """One generated function with the calls it can take written in."""
    falls_back = "    except _LE:\n" in function
    own = function[4:function.index("(")] if function.startswith("def d_") else None
    for _ in range(PASSES):
        changed, out, position = False, [], 0
        for call in _CALL.finditer(function):
            name = call.group(1)
            if call.start() < position or name not in small or f"d_{name}" == own:
                continue
            code, fast = small[name]
            if code != fast and not falls_back:
                continue
            arguments, end = _arguments(function, call.end())
            if arguments is None or arguments[:2] != ["_V", "_L"] or len(arguments) != len(params[name]) + 2 \
                    or not all(_cheap_enough(given, param, fast) for given, param in zip(arguments[2:], params[name])):
                continue
            out.append(function[position:call.start()])
            out.append("(" + _with_arguments(fast, params[name], arguments[2:]) + ")")
            position, changed = end, True
        if not changed:
            break
        function = "".join(out) + function[position:]
    return function


def _cheap_enough(argument: str, param: str, code: str) -> bool:
    """May `argument` be written for parameter `param` wherever `code` reads it? A name or a
    literal; a var or a local (a dict read each time) only where the parameter is read once."""
    if not SIMPLE_OPERAND.match(argument):
        return False
    return argument[0] != "_" or len(re.findall(rf"(?<![\w.])u_{param}\b", _STRINGS.sub("''", code))) <= 1


def _arguments(text: str, start: int):
    """(the arguments of the call whose `(` ends before `start`, where the call ends), or
    (None, start) when the text is not a plain call there."""
    arguments, depth, current = [], 0, start
    position = start
    while position < len(text):
        literal = _STRINGS.match(text, position)
        if literal:
            position = literal.end()
            continue
        character = text[position]
        if character in "([{":
            depth += 1
        elif character in ")]}":
            if depth == 0:
                arguments.append(text[current:position].strip())
                return [argument for argument in arguments if argument], position + 1
            depth -= 1
        elif character == "," and depth == 0:
            arguments.append(text[current:position].strip())
            current = position + 1
        elif character == "\n":
            break
        position += 1
    return None, start


def _with_arguments(code: str, names: list, arguments: list) -> str:
    """`code` with each parameter `u_<name>` read as its argument (string literals left alone)."""
    # (a number in brackets: `0.__class__` and `x ** -1` read otherwise)
    replacements = {f"u_{name}": f"({argument})" if argument[0] in "-0123456789" else argument
                    for name, argument in zip(names, arguments)}
    pattern = re.compile(r"(?<![\w.])(" + "|".join(re.escape(key) for key in replacements) + r")\b") \
        if replacements else None
    pieces, position = [], 0
    for literal in _STRINGS.finditer(code):
        pieces.append(_replaced(code[position:literal.start()], pattern, replacements))
        pieces.append(literal.group())
        position = literal.end()
    pieces.append(_replaced(code[position:], pattern, replacements))
    return "".join(pieces)


def _replaced(text: str, pattern, replacements: dict) -> str:
    return pattern.sub(lambda found: replacements[found.group(1)], text) if pattern is not None else text
