"""Names a designer may give (vars, constants, defines, parameters), and the checks on the
named expressions as a whole: no cycle of defines calling each other, no chain deeper than
MAX_DEFINE_DEPTH.
"""
from __future__ import annotations

import re
from typing import Optional

from ..errors import ExpressionError

__all__ = ["check_name", "define_problems", "callees_first", "MAX_DEFINE_DEPTH"]


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


KEYWORDS = frozenset({"and", "or", "not", "in", "if", "else", "for", "lambda", "let",
                       "true", "false", "none", "True", "False", "None"})


_LOOKS_LIKE_VALUES = {"null": "none", "Null": "none", "NULL": "none", "yes": "true", "no": "false",
                      "on": "true", "off": "false", "TRUE": "true", "FALSE": "false"}


def check_name(name) -> Optional[tuple]:
    """None if `name` can name a var, a constant, a define or a parameter; else (message,
    suggestion). Names are letters, digits and '_', starting with a letter, and are not words
    of the expression language (nor YAML's spellings of none/true/false)."""
    if name is None or isinstance(name, bool):  # an unquoted YAML key `null`, `~`, `true`, `no`...
        word = {None: "null", True: "true", False: "false"}[name]
        return (f"a name written as {word} reads as the value {_LOOKS_LIKE_VALUES.get(word, word)} in YAML",
                f"choose another name, such as '{word}_count'")
    if not isinstance(name, str) or not _NAME.match(name):
        shown = repr(name)
        cleaned = re.sub(r"[^A-Za-z0-9_]", "", str(name)).lstrip("_0123456789")
        return (f"{shown} is not a usable name: a name is letters, digits and '_', starting with a letter",
                f"did you mean '{cleaned}'?" if cleaned else "choose a name such as 'score'")
    if name in KEYWORDS:
        return (f"'{name}' is a word of the expression language and cannot be a name",
                f"choose another name, such as '{name.lower()}_value'")
    if name in _LOOKS_LIKE_VALUES:
        return (f"'{name}' cannot be a name: in YAML it reads as the value {_LOOKS_LIKE_VALUES[name]}",
                f"choose another name, such as '{name.lower()}_count'")
    return None


MAX_DEFINE_DEPTH = 200  # named expressions calling each other, one inside the next


def define_problems(calls: dict) -> list:
    """Cycles and over-deep chains in the call graph of the named expressions (iterative: a
    chain may be thousands long)."""
    depth: dict = {}  # define -> length of its longest chain of calls (1: calls no define)
    state: dict = {}
    problems = []
    for root in calls:
        if root in state:
            continue
        path, stack = [root], [iter(calls[root])]
        state[root] = "open"
        while stack:
            callee = next(stack[-1], None)
            if callee is None:
                name = path.pop()
                stack.pop()
                depth[name] = 1 + max((depth[c] for c in calls[name] if c in depth), default=0)
                state[name] = "done"
            elif callee not in calls:
                continue
            elif state.get(callee) == "open":
                cycle = path[path.index(callee):] + [callee]
                problems.append((cycle[0], ExpressionError(
                    "named expressions call each other without end: " + " -> ".join(cycle), 1, 1,
                    code="define-cycle", hint="one of them must stop calling the others")))
            elif callee not in state:
                state[callee] = "open"
                path.append(callee)
                stack.append(iter(calls[callee]))
    too_deep = {n for n, d in depth.items() if d > MAX_DEFINE_DEPTH}
    called = {c for n in too_deep for c in calls[n]}
    for head in [n for n in calls if n in too_deep and n not in called]:
        chain = [head]
        while calls.get(chain[-1]):
            chain.append(max((c for c in calls[chain[-1]] if c in depth), key=depth.get))
        shown = " -> ".join(chain[:3] + ["..."] + chain[-1:]) if len(chain) > 5 else " -> ".join(chain)
        problems.append((head, ExpressionError(
            f"the chain of named expressions from '{head}' is too deep: {len(chain)} levels "
            f"({shown}); at most {MAX_DEFINE_DEPTH}", 1, 1, code="define-depth",
            hint="compute the value in fewer steps (a comprehension over a list, or a constant)")))
    return problems



def callees_first(calls: dict) -> list:
    """The names of `calls` (define -> the names its text mentions) ordered so that each comes
    after the defines it calls, where no cycle forbids it (iterative: a chain may be thousands
    long). The compiler then knows the type of a callee's value when it compiles a caller."""
    order: list = []
    seen: set = set()
    for root in calls:
        if root in seen:
            continue
        seen.add(root)
        path, stack = [root], [iter(calls[root])]
        while stack:
            callee = next(stack[-1], None)
            if callee is None:
                order.append(path.pop())
                stack.pop()
            elif callee in calls and callee not in seen:
                seen.add(callee)
                path.append(callee)
                stack.append(iter(calls[callee]))
    return order
