"""The expression grammar's LALR tables, shipped in the package as JSON (grammar_tables.json) so
that a process does not rebuild them from grammar.lark at start-up (Lark's table construction
was a sixth of a one-game `rulebook simulate`).

Owns writing that file and reading it back as a Lark parser. The file is plain JSON read with
`json` (never pickle): Lark's own serialized form of the parser (`memo_serialize`, the data its
standalone generator embeds) with two tags, since JSON has no tuples and no integer keys, and
its LALR action table (the bulk of it: ~3,000 actions) written apart as one flat list of
integers per state, read back into Lark's form with plain loops (parsing it as tagged JSON
objects cost ~12 M instructions more at every start-up: docs/performance.md). It
records the SHA-256 of the grammar text, the Lark version and the parser options it was built
from; `load_parser` returns None unless all three match the running ones, and the caller then
builds the parser from grammar.lark as before (a stale file makes start-up slower, never the
parser wrong). tests/test_parser.py fails when the file is stale.

Regenerate after editing grammar.lark (or upgrading Lark):

    python -m interpreter.expr.parser_tables
"""
from __future__ import annotations

import hashlib
import json
import os

__all__ = ["TABLES_PATH", "GRAMMAR_PATH", "OPTIONS", "grammar_digest", "load_parser", "write_tables", "stale"]

HERE = os.path.dirname(os.path.abspath(__file__))
GRAMMAR_PATH = os.path.join(HERE, "grammar.lark")
TABLES_PATH = os.path.join(HERE, "grammar_tables.json")
# the options the parser is built with (parser.py passes these to Lark.open)
OPTIONS = {"parser": "lalr", "start": ["expression", "statement"], "maybe_placeholders": True}

_PAIRS, _TUPLE = "<pairs>", "<tuple>"  # a dict whose keys are not all text; a tuple
_REDUCE = 1  # the action kind Lark's serialized table gives a reduction (0 is a shift)


def grammar_digest() -> str:
    with open(GRAMMAR_PATH, "rb") as grammar:
        return hashlib.sha256(grammar.read()).hexdigest()


def _lark_version() -> str:
    import lark

    return lark.__version__


def _header() -> dict:
    """What the tables were built from: a file whose header differs is not used."""
    return {"grammar_sha256": grammar_digest(), "lark": _lark_version(), "options": OPTIONS}


def _encode(value):
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value):
            return {key: _encode(item) for key, item in value.items()}
        return {_PAIRS: [[_encode(key), _encode(item)] for key, item in value.items()]}
    if isinstance(value, tuple):
        return {_TUPLE: [_encode(item) for item in value]}
    if isinstance(value, list):
        return [_encode(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"Lark's serialized parser holds a {type(value).__name__}: not JSON data")


def _decode_object(mapping: dict):
    """json's object hook: undo the two tags of `_encode` (JSON arrays read inside a tagged
    key come back as lists: a key is made a tuple again)."""
    if len(mapping) == 1:
        if _PAIRS in mapping:
            return {(tuple(key) if isinstance(key, list) else key): item for key, item in mapping[_PAIRS]}
        if _TUPLE in mapping:
            return tuple(mapping[_TUPLE])
    return mapping


def build_parser():
    """The parser built from grammar.lark by Lark (computing the LALR tables)."""
    from lark import Lark

    return Lark.open(GRAMMAR_PATH, **OPTIONS)


def write_tables(path: str = TABLES_PATH) -> None:
    """Build the parser from grammar.lark and write its tables to `path`."""
    from lark.grammar import Rule
    from lark.lexer import TerminalDef

    data, memo = build_parser().memo_serialize([TerminalDef, Rule])
    table = data["parser"]["parser"]
    actions = _flat_actions(table.pop("states"))
    document = {"header": _header(), "parser": _encode({"data": data, "memo": memo}), "actions": actions}
    with open(path, "w", encoding="utf-8") as out:
        json.dump(document, out, separators=(",", ":"), sort_keys=False)
        out.write("\n")


def _flat_actions(states: dict) -> list:
    """Lark's serialized action table {state: {token: (0, next state) or (1, {"@": rule})}} as
    one list per state: [state, token, 0, next state, token, 1, rule, ...] (tokens and rules
    are Lark's own indices into the table's token list and the memo)."""
    rows = []
    for state, actions in states.items():
        row = [state]
        for token, (kind, target) in actions.items():
            row += [token, kind, target["@"] if kind == _REDUCE else target]
        rows.append(row)
    return rows


def _nested_actions(rows: list) -> dict:
    """The inverse of `_flat_actions`: Lark's serialized action table."""
    states = {}
    for row in rows:
        actions = {}
        for start in range(1, len(row), 3):
            token, kind, target = row[start], row[start + 1], row[start + 2]
            actions[token] = (kind, {"@": target} if kind == _REDUCE else target)
        states[row[0]] = actions
    return states


def _read(path: str):
    try:
        with open(path, encoding="utf-8") as tables:
            return json.load(tables, object_hook=_decode_object)
    except (OSError, ValueError):
        return None


def _unusable(document) -> str:
    """Why a read tables document cannot be used ("" if it can)."""
    if (not isinstance(document, dict) or not isinstance(document.get("header"), dict)
            or not isinstance(document.get("actions"), list)):
        return "it is missing or not a tables file"
    header = document["header"]
    for key, value in _header().items():
        if header.get(key) != value:
            return f"it was built for {key} {header.get(key)!r}, not {value!r}"
    return ""


def stale(path: str = TABLES_PATH) -> str:
    """Why the tables at `path` cannot be used ("" if they can)."""
    reason = _unusable(_read(path))
    return f"{path}: {reason}" if reason else ""


def load_parser(path: str = TABLES_PATH):
    """The parser read from the tables at `path` with Lark's `Lark.load` (given the data, not
    a file: no pickle), or None when the file is missing or was built from another grammar,
    Lark version or options."""
    from lark import Lark

    document = _read(path)
    if _unusable(document):
        return None
    parser = document["parser"]
    parser["data"]["parser"]["parser"]["states"] = _nested_actions(document["actions"])
    return Lark.load(parser)


if __name__ == "__main__":
    write_tables()
    print(f"wrote {TABLES_PATH}")
