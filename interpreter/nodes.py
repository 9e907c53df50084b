"""The positioned tree of rule files: `Map`, `Seq` and `Text` nodes that remember the
file:line:col they came from, the helpers that read those positions (`pos_of`, `key_pos`,
`value_pos`, `expr_pos` for a place inside an expression text), `plain` (the tree as plain
Python values) and `clone` (a copy whose mappings and lists may be changed).

Owns the node types only; reading YAML into them is loader.py.
"""
from __future__ import annotations

from typing import Optional

from .errors import Pos

__all__ = ["Map", "Seq", "Text", "pos_of", "key_pos", "value_pos", "expr_pos", "plain", "clone"]

_GENERATED = Pos("<generated>", 0, 0)  # the position of a node made by code, not read from a file


class Map(dict):
    """A YAML mapping that remembers its position and those of its keys and values."""

    __slots__ = ("pos", "kpos", "vpos", "digest", "text_keys")

    def __init__(self, *items, **named):
        super().__init__(*items, **named)
        self.pos: Pos = _GENERATED
        self.kpos: dict = {}
        self.vpos: dict = {}
        self.digest = None  # of the file's bytes, on a file's top mapping
        self.text_keys = False  # on a file's top mapping: every key in the file is text


class Seq(list):
    __slots__ = ("pos", "ipos")

    def __init__(self, *items):
        super().__init__(*items)
        self.pos: Pos = _GENERATED
        self.ipos: list = []


class Text(str):
    """A string scalar with its position; `col_offset` is 1 when the scalar was quoted, so a
    column inside the text maps to a column in the file."""

    __slots__ = ("pos", "quoted", "block")

    def __new__(cls, value, pos=None, quoted=False, block=False):
        obj = str.__new__(cls, value)
        obj.pos = pos or _GENERATED
        obj.quoted = quoted
        obj.block = block
        return obj


def pos_of(node, default: Optional[Pos] = None) -> Pos:
    return getattr(node, "pos", None) or default or Pos("<unknown>", 0, 0)


def key_pos(node, key) -> Pos:
    if isinstance(node, Map) and key in node.kpos:
        return node.kpos[key]
    return pos_of(node)


def value_pos(node, key) -> Pos:
    if isinstance(node, Map) and key in node.vpos:
        return node.vpos[key]
    if isinstance(node, Seq) and isinstance(key, int) and key < len(node.ipos):
        return node.ipos[key]
    return pos_of(node)


def expr_pos(text, line: int, col: int) -> Pos:
    """Position in the file of (line, col) inside an expression scalar."""
    base = pos_of(text)
    if isinstance(text, Text) and isinstance(text.block, tuple):
        mapped = _map_multiline(text.block, line, col)
        if mapped is not None:
            return Pos(base.file, mapped[0], mapped[1])
    if isinstance(text, Text) and text.block:
        return Pos(base.file, base.line + line, col + base.col)
    if line > 1:
        return Pos(base.file, base.line + line - 1, col)
    offset = 1 if isinstance(text, Text) and text.quoted else 0
    return Pos(base.file, base.line, base.col + offset + col - 1)


def _map_multiline(info, line: int, col: int):
    """(line, col) inside the value of a scalar written over several file lines -> (file line,
    file col). `info` is (folded, [(file line, file col of the content, content), ...]): a
    literal block keeps every line break, a folded block or a multi-line flow scalar turns a
    line break into a space and a blank line into a line break."""
    folded, rows = info
    # the value's lines, to turn (line, col) into an offset counting a line break as one char
    value_lines: list = []
    cur = None
    for _, _, content in rows:
        if not folded:
            value_lines.append(content)
        elif not content:
            value_lines.append(cur or "")
            cur = None
        else:
            cur = content if cur is None else cur + " " + content
    if folded:
        value_lines.append(cur or "")
    text_offset = sum(len(v) + 1 for v in value_lines[:line - 1]) + col - 1
    # walk the file rows with the same accounting
    offset = text_offset
    for file_line, file_column, content in rows:
        if folded and not content:
            continue
        if offset <= len(content):
            return file_line, file_column + offset
        offset -= len(content) + 1
    return None


def plain(node):
    """The same tree as plain dicts, lists and strs (for JSON Schema and for the engine)."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    if isinstance(node, Text):
        return str(node)
    return node


def clone(node):
    """A copy of a positioned tree whose mappings and lists can be changed freely (text leaves
    are immutable and shared)."""
    if isinstance(node, Map):
        mapping = Map((k, clone(v)) for k, v in node.items())
        mapping.pos, mapping.kpos, mapping.vpos = node.pos, dict(node.kpos), dict(node.vpos)
        return mapping
    if isinstance(node, Seq):
        sequence = Seq(clone(v) for v in node)
        sequence.pos, sequence.ipos = node.pos, list(node.ipos)
        return sequence
    return node
