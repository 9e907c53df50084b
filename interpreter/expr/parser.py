"""Parsing an expression or a statement: Lark's LALR parser for grammar.lark, used through its
documented API only (`Lark.open`, `Lark.parse`), the parse errors in the designer's words
(with line and column), the nesting bound, and where a tree node is (`position_of`).

Owns the text -> tree step and nothing after it: names, types and code are the compiler's.
"""
from __future__ import annotations

import re

from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import ExpressionError
from ..memo import BoundedMemo, bounded_memo

__all__ = ["parse", "position_of", "MAX_DEPTH"]


@bounded_memo(1)
def _parser():
    """The LALR parser of the grammar, once per process: read from the tables shipped beside
    grammar.lark (parser_tables.py: JSON, checked against the grammar's digest and Lark's
    version), or, when they are stale, built from grammar.lark with Lark's documented API.
    Tokens carry their line and column; a tree node's position is its first token's (see
    `position_of`). (No `cache=True`: Lark would unpickle a file from the shared temporary
    directory.)"""
    from .parser_tables import build_parser, load_parser

    return load_parser() or build_parser()


def position_of(node) -> tuple:
    """(line, column) of a token, or of the first token inside a tree node ((1, 1) if none)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Token):
            return item.line or 1, item.column or 1
        if item is not None and hasattr(item, "children"):
            stack.extend(reversed(item.children))
    return 1, 1


_TOKEN_NAMES = {
    "EQUAL": "'='", "ASSIGN_OP": "an assignment", "NAME": "a name", "NUMBER": "a number",
    "STRING": "a string", "RPAR": "')'", "LPAR": "'('", "RSQB": "']'", "LSQB": "'['",
    "COMMA": "','", "COLON": "':'", "DOT": "'.'", "$END": "the end",
}


_IF_WORD = re.compile(r"\bif\b")  # the parser may expect `else` after any operand; say so only after an `if`


def _expected_hint(expected) -> str:
    """"expected ..." naming the tokens the parser could have taken: each by its text ('+',
    'else') or what it is (a name), sorted, the first six and how many more. The same text in
    every process (Lark's set of expected tokens has no fixed order)."""
    names = sorted({_token_name(token) for token in expected})
    more = f" or {len(names) - 6} more" if len(names) > 6 else ""
    return "expected " + ", ".join(names[:6]) + more


@bounded_memo(1)
def _literal_terminals() -> dict:
    """{terminal name: its text} for the grammar's terminals written as plain text ('+', 'if')."""
    from lark.lexer import PatternStr

    return {terminal.name: repr(terminal.pattern.value) for terminal in _parser().terminals
            if isinstance(terminal.pattern, PatternStr)}


def _token_name(token: str) -> str:
    return _TOKEN_NAMES.get(token) or _literal_terminals().get(token) or repr(token)


_TREES = BoundedMemo("expression parse trees", 50_000)  # (text, start) -> tree


def parse(source: str, start: str = "expression"):
    """Parse to a Lark tree or raise ExpressionError with line and column. Trees are cached by
    text, so composing many module combinations parses each expression once."""
    if not isinstance(source, str):
        return _parse(source, start)
    key = (source, start)
    tree = _TREES.get(key)
    if tree is None:
        tree = _TREES.put(key, _parse(source, start))
    return tree


def _parse(source: str, start: str = "expression"):
    if not isinstance(source, str):
        raise ExpressionError("an expression must be text", 1, 1)
    if len(source) > 4000:
        raise ExpressionError("expression longer than 4000 characters", 1, 1, code="too-long")
    try:
        tree = _parser().parse(source, start=start)
        _check_depth(tree, source)
        return tree
    except UnexpectedCharacters as error:
        character = source[error.pos_in_stream] if error.pos_in_stream < len(source) else ""
        hint = None
        if character == "_":
            hint = "names may not start with an underscore"
        elif character in "&|":
            hint = "use 'and' / 'or'"
        elif character == "!":
            hint = "use 'not' (or '!=' to compare)"
        elif character == "=" and start == "expression":
            hint = "use '==' to compare; effects assign with 'name = value'"
        raise ExpressionError(f"unexpected character {character!r}", error.line, error.column, hint=hint,
                              source=source) from None
    except UnexpectedEOF:
        line, col = _end_of(source)
        raise ExpressionError("the expression ends too early", line, col,
                              hint="is a bracket or an operand missing?", source=source) from None
    except UnexpectedToken as error:
        tok = error.token
        if "ELSE" in error.expected and _IF_WORD.search(source, 0, tok.start_pos if tok.type != "$END" else len(source)):
            line, col = (tok.line, tok.column) if tok.type != "$END" else _end_of(source)
            raise ExpressionError("a conditional expression needs `else`: `A if COND else B`", line, col,
                                  hint="add `else` and the value to use otherwise", source=source) from None
        if tok.type == "$END":
            line, col = _end_of(source)
            raise ExpressionError("the expression ends too early", line, col,
                                  hint="is a bracket or an operand missing?", source=source) from None
        hint = None
        if str(tok) == "=" or tok.type in ("EQUAL", "ASSIGN_OP"):
            hint = "use '==' to compare" if start == "expression" else None
        if not hint and error.expected:
            hint = _expected_hint(error.expected)
        raise ExpressionError(f"unexpected {str(tok)!r}", tok.line, tok.column, hint=hint,
                              source=source) from None
    except UnexpectedInput as error:  # pragma: no cover - other lark errors
        raise ExpressionError(str(error).splitlines()[0], getattr(error, "line", 1) or 1,
                              getattr(error, "column", 1) or 1, source=source) from None


def _end_of(source: str) -> tuple:
    """(line, column) just after the last character of `source`."""
    return source.count("\n") + 1, len(source.rsplit("\n", 1)[-1]) + 1


MAX_DEPTH = 64  # nesting of the parse tree; deeper would overflow Python's own compiler


def _check_depth(tree, source):
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            line, col = position_of(node)
            raise ExpressionError(f"the expression is nested more than {MAX_DEPTH} levels deep", line, col,
                                  code="too-deep", hint="split it with 'let' or a named expression (define)",
                                  source=source)
        for child in node.children:
            if isinstance(child, Tree):
                stack.append((child, depth + 1))

