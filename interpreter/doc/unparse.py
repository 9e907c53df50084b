"""An expression's parse tree written back as expression text (`unparse`), with the fewest
brackets its operators' precedence needs: the fallback of the plain-words rendering, shown as
code when a form has no words.

Owns the writing back only; the words are words.py.
"""
from __future__ import annotations

__all__ = ["unparse"]

_PRECEDENCE = {"ifexp": 1, "lambda_": 1, "let": 1, "or_": 2, "and_": 3, "not_": 4, "compare": 5,
               "add": 6, "sub": 6, "mul": 7, "div": 7, "floordiv": 7, "mod": 7, "neg": 8, "pos": 8,
               "pow": 9}
_BINARY = {"or_": "or", "and_": "and", "add": "+", "sub": "-", "mul": "*", "div": "/",
           "floordiv": "//", "mod": "%", "pow": "**"}


def _kids(node) -> list:
    return [c for c in node.children if c is not None]


def _is_tree(node) -> bool:
    return hasattr(node, "data") and hasattr(node, "children")


def _wrap(child, parent_prec: int, text: str) -> str:
    prec = _PRECEDENCE.get(getattr(child, "data", ""), 99)
    return f"({text})" if prec < parent_prec else text


def unparse(node) -> str:
    """An expression tree back to expression text (normalised spacing)."""
    if not _is_tree(node):
        return str(node)
    kind = node.data
    kids = _kids(node)
    if kind in _BINARY:
        prec = _PRECEDENCE[kind]
        left = _wrap(kids[0], prec, unparse(kids[0]))
        right = _wrap(kids[1], prec + 1, unparse(kids[1]))
        return f"{left} {_BINARY[kind]} {right}"
    simple = _UNPARSE.get(kind)
    if simple is not None:
        return simple(node, kids)
    return " ".join(unparse(kid) for kid in kids)


def _unparse_compare(node, kids) -> str:
    parts = []
    for kid in kids:
        if _is_tree(kid) and kid.data == "comp_op":
            parts.append(" ".join(str(t) for t in kid.children))
        else:
            parts.append(_wrap(kid, 6, unparse(kid)))
    return " ".join(parts)


def _unparse_call(node, kids) -> str:
    name = str(node.children[0])
    args = node.children[1]
    return f"{name}({unparse(args) if args is not None else ''})"


def _unparse_slice(node, kids) -> str:
    base, low, high = node.children
    return f"{unparse(base)}[{unparse(low) if low is not None else ''}:{unparse(high) if high is not None else ''}]"


_UNPARSE: dict = {
    "expression": lambda n, k: unparse(k[0]),
    "number": lambda n, k: str(k[0]), "string": lambda n, k: str(k[0]), "name": lambda n, k: str(k[0]),
    "true": lambda n, k: "true", "false": lambda n, k: "false", "none": lambda n, k: "none",
    "list": lambda n, k: "[" + ", ".join(unparse(x) for x in k) + "]",
    "tuple": lambda n, k: "(" + ", ".join(unparse(x) for x in k) + ("," if len(k) == 1 else "") + ")",
    "dict": lambda n, k: "{" + ", ".join(unparse(x) for x in k) + "}",
    "pair": lambda n, k: f"{unparse(k[0])}: {unparse(k[1])}",
    "listcomp": lambda n, k: f"[{unparse(k[0])} {unparse(k[1])}]",
    "setcomp": lambda n, k: f"{{{unparse(k[0])} {unparse(k[1])}}}",
    "genexp_arg": lambda n, k: f"{unparse(k[0])} {unparse(k[1])}",
    "comp_for": lambda n, k: " ".join(unparse(x) for x in k),
    "comp_clause": lambda n, k: " ".join([f"for {unparse(k[0])} in {_wrap(k[1], 3, unparse(k[1]))}"]
                                         + [unparse(x) for x in k[2:]]),
    "comp_targets": lambda n, k: ", ".join(str(x) for x in k),
    "comp_if": lambda n, k: f"if {unparse(k[0])}",
    "ifexp": lambda n, k: f"{_wrap(k[0], 2, unparse(k[0]))} if {_wrap(k[1], 2, unparse(k[1]))} else {unparse(k[2])}",
    "lambda_": lambda n, k: f"lambda {unparse(k[0])}: {unparse(k[1])}",
    "lambda_params": lambda n, k: ", ".join(str(x) for x in k),
    "let": lambda n, k: f"let {k[0]} = {unparse(k[1])}; {unparse(k[2])}",
    "not_": lambda n, k: f"not {_wrap(k[0], 4, unparse(k[0]))}",
    "neg": lambda n, k: f"-{_wrap(k[0], 8, unparse(k[0]))}",
    "pos": lambda n, k: f"+{_wrap(k[0], 8, unparse(k[0]))}",
    "compare": _unparse_compare,
    "attr": lambda n, k: f"{_wrap(k[0], 10, unparse(k[0]))}.{k[1]}",
    "index": lambda n, k: f"{_wrap(k[0], 10, unparse(k[0]))}[{unparse(k[1])}]",
    "slice": _unparse_slice,
    "call": _unparse_call,
    "arguments": lambda n, k: ", ".join(unparse(x) for x in k),
    "kwarg": lambda n, k: f"{k[0]}={unparse(k[1])}",
    "statement": lambda n, k: f"{unparse(k[0])} {k[1]} {unparse(k[2])}",
    "t_name": lambda n, k: str(k[0]),
    "t_index": lambda n, k: f"{unparse(k[0])}[{unparse(k[1])}]",
    "t_attr": lambda n, k: f"{unparse(k[0])}.{k[1]}",
}
