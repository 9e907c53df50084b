"""Typed references: component fields and vars whose values are ids of a component type or one
of a list of allowed values, checked wherever they are written.

    fields:
      party: {bloc: {ref: bloc}, ideology: {enum: [L, C, R]}}
      goal: {requirements.bloc: {ref: bloc}}          # a path through nested mappings and lists
      bill: {sector: {ref: sector, extra: [all]}}      # ids of `sector`, or the text 'all'
    vars:
      leader: {value: america, ref: bloc}

Checks (errors at file:line:col, with "did you mean"):
  - a declared `ref` names a component type; a declared field exists on some component;
  - every component's value of a typed field is allowed;
  - an unquoted `none` in data is an error (YAML's null is `null` or `~`, the text is `'none'`);
  - a var's literal initial value is allowed;
  - in every expression, a text compared with a typed field or var (`x.bloc == 'amerca'`,
    `'amerca' != x.bloc`, `x.bloc in ['america', 'eurpoe']`) is allowed, or at least held by
    some component under that name (expressions are matched by the field's name, not its type).

Owns these checks only; it reads expression texts from the composed tree. Attribute names
(`c.sectr`) are checked by the compiler's static types (expr/attributes.py), against the attributes
`known_attributes` lists where a value's type is not known.
"""
from __future__ import annotations

import re

from .errors import Diagnostic, suggest
from .loader import Text, expr_pos, key_pos, pos_of, value_pos
from .memo import BoundedMemo

__all__ = ["check_references", "known_attributes"]

# keys whose text is prose, data or a template, never an expression
_NOT_EXPRESSIONS = {"source", "reconstructed", "interpretation", "description", "message", "label",
                    "reason", "name", "prompt", "title", "log", "file", "files", "to", "do", "enter",
                    "kind", "visibility", "when", "code", "start", "final_tie", "as", "as_list",
                    "player_var"}
_SKIPPED_SECTIONS = {"components", "constants", "settings", "fields", "modules", "combinations", "include",
                     "patch"}
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_COMPARED = (
    re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s*(?:==|!=)\s*('[^']*'|\"[^\"]*\")"),
    re.compile(r"('[^']*'|\"[^\"]*\")\s*(?:==|!=)\s*([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)"),
    re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\s+(?:not\s+)?in\s+\[([^\]]*)\]"),
)
_IN_A_LIST = re.compile(r"in\s+\[")  # what the third pattern's match holds


def check_references(tree) -> list:
    """Every diagnostic of the typed references of a composed tree (errors, and warnings with
    severity 'warning')."""
    comps = tree.get("components") or {}
    ids = {typ: set((defs or {}).keys()) for typ, defs in comps.items()}
    diags: list = []
    allowed_by_field = _field_types(tree, ids, diags)
    allowed_by_var = _var_types(tree, ids, diags)
    _check_component_values(tree, comps, ids, diags)
    _check_none_text(tree, diags)
    # a field name may mean different things in different records (a requirement's `kind` and a
    # card's `kind`): a text some component holds under that name is accepted too
    for name, values in _data_values(comps).items():
        if name in allowed_by_field:
            allowed_by_field[name] = allowed_by_field[name] | values
    texts_by_field = {name: _as_texts(values) for name, values in allowed_by_field.items()}
    texts_by_var = {name: _as_texts(values) for name, values in allowed_by_var.items()}
    for text in _expressions(tree):
        _check_expression(text, (allowed_by_field, texts_by_field), (allowed_by_var, texts_by_var), diags)
    return diags


def _allowed(decl, ids) -> set:
    values = set(ids.get(str(decl.get("ref")), ())) if decl.get("ref") else set()
    values |= {value for value in decl.get("enum") or []}
    values |= {value for value in decl.get("extra") or []}
    return values


def _field_types(tree, ids, diags) -> dict:
    """last field name -> allowed values (the union over the types that declare it)."""
    out: dict = {}
    fields = tree.get("fields") or {}
    for typ, decls in fields.items():
        if typ not in ids:
            diags.append(Diagnostic("reference", f"fields of '{typ}': there is no component type '{typ}'",
                                    key_pos(fields, typ), suggest(typ, list(ids))))
            continue
        for path, decl in (decls or {}).items():
            if not isinstance(decl, dict):
                continue
            ref = decl.get("ref")
            if ref is not None and ref not in ids:
                diags.append(Diagnostic("reference", f"field '{typ}.{path}' refers to '{ref}', which is not a "
                                                     "component type", value_pos(decl, "ref"), suggest(ref, list(ids))))
                continue
            out.setdefault(str(path).split(".")[-1], set()).update(_allowed(decl, ids))
    return out


def _var_types(tree, ids, diags) -> dict:
    out: dict = {}
    for name, decl in (tree.get("vars") or {}).items():
        if not isinstance(decl, dict) or not (decl.get("ref") or decl.get("enum")):
            continue
        ref = decl.get("ref")
        if ref is not None and ref not in ids:
            diags.append(Diagnostic("reference", f"var '{name}' refers to '{ref}', which is not a component type",
                                    value_pos(decl, "ref"), suggest(ref, list(ids))))
            continue
        allowed = _allowed(decl, ids)
        out[name] = allowed
        value = decl.get("value")
        for item in (value if isinstance(value, list) else [value] if value is not None else []):
            if isinstance(item, (str, int, float)) and item not in allowed:
                diags.append(_not_allowed(f"var '{name}'", item, allowed, value_pos(decl, "value")))
    return out


def _not_allowed(what, value, allowed, pos) -> Diagnostic:
    hint = suggest(str(value), [str(a) for a in allowed]) or (
        "allowed: " + ", ".join(sorted(map(str, allowed))[:12]) + (" …" if len(allowed) > 12 else ""))
    return Diagnostic("reference", f"{what}: '{value}' is not one of its allowed values", pos, hint)


def _check_component_values(tree, comps, ids, diags) -> None:
    for typ, decls in (tree.get("fields") or {}).items():
        if typ not in ids:
            continue
        for path, decl in (decls or {}).items():
            if not isinstance(decl, dict) or (decl.get("ref") is not None and decl.get("ref") not in ids):
                continue
            allowed = _allowed(decl, ids)
            steps = str(path).split(".")
            found = False
            for cid, record in (comps.get(typ) or {}).items():
                for value, pos in _values_at(record, steps):
                    found = True
                    if value not in allowed:
                        diags.append(_not_allowed(f"{typ} '{cid}' field '{path}'", value, allowed, pos))
            if not found:
                diags.append(Diagnostic("reference", f"no {typ} has the field '{path}'", key_pos(decls, path),
                                        "check the field's name (a path goes through nested mappings)"))


def _values_at(node, steps):
    """(value, position) of each scalar at a dotted path; lists are walked through."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            if isinstance(item, (dict, list)):
                yield from _values_at(item, steps)
            elif not steps:
                yield item, value_pos(node, index)
        return
    if not isinstance(node, dict) or not steps or steps[0] not in node:
        return
    value = node[steps[0]]
    if len(steps) == 1:
        if isinstance(value, list):
            for index, item in enumerate(value):
                if not isinstance(item, (dict, list)):
                    yield item, value_pos(value, index)
        elif value is not None and not isinstance(value, dict):
            yield value, value_pos(node, steps[0])
        return
    yield from _values_at(value, steps[1:])


def _check_none_text(tree, diags) -> None:
    """An unquoted `none` in data (component fields, constants, var and setting values) is an
    error: YAML reads it as the text "none", while in an expression `none` is no value, so the
    designer must say which is meant (`null`/`~` for no value, `'none'` for the text)."""
    def walk(node, key=None, holder=None):
        if isinstance(node, Text):
            if str(node).lower() == "none" and not node.quoted:
                diags.append(Diagnostic("yaml-none", f"an unquoted '{node}' in data is ambiguous: YAML reads it "
                                                     "as the text \"none\", not as no value", pos_of(node),
                                        "write null (or ~) for no value, or quote it ('none') if you mean the text"))
        elif isinstance(node, dict):
            for child_key, value in node.items():
                walk(value, child_key, node)
        elif isinstance(node, list):
            for value in node:
                walk(value, key, node)

    for section in ("components", "constants"):
        walk(tree.get(section))
    for section in ("vars", "settings"):
        for decl in (tree.get(section) or {}).values():
            if isinstance(decl, dict):
                walk(decl.get("value"))


def _data_values(comps) -> dict:
    """attribute name -> every scalar value it has anywhere in the component data."""
    out: dict = {}

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                    out.setdefault(str(key), set()).add(value)
                elif isinstance(value, list):
                    out.setdefault(str(key), set()).update(x for x in value if isinstance(x, (str, int, float)))
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(comps)
    return out


def known_attributes(tree) -> set:
    """Every mapping key in the component data, constants and var values, plus id and type."""
    names = {"id", "type"}

    def keys(node):
        if isinstance(node, dict):
            for key, value in node.items():
                names.add(str(key))
                keys(value)
        elif isinstance(node, list):
            for value in node:
                keys(value)

    for section in ("components", "constants"):
        for defs in (tree.get(section) or {}).values():
            keys(defs)
    for decl in (tree.get("vars") or {}).values():
        if isinstance(decl, dict):
            keys(decl.get("value"))
    return names


def _expressions(tree):
    """The texts of the tree that may be expressions (prose, data and ids are skipped)."""
    def walk(node, key=None):
        if isinstance(node, Text):
            if key not in _NOT_EXPRESSIONS:
                yield node
        elif isinstance(node, dict):
            for child_key, value in node.items():
                if child_key not in _NOT_EXPRESSIONS:
                    yield from walk(value, child_key)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value, key)

    for section, value in tree.items():
        if section not in _SKIPPED_SECTIONS and section != "game":
            yield from walk(value)
    game = tree.get("game") or {}
    for key in ("end_if", "heuristic"):
        if isinstance(game.get(key), Text):
            yield game[key]


def _where(text, offset):
    before = str(text)[:offset]
    line = before.count("\n") + 1
    col = offset - (before.rfind("\n") + 1) + 1
    return expr_pos(text, line, col)


def _check_expression(text, by_field, by_var, diags) -> None:
    """The diagnostics of one expression text. `by_field` and `by_var` are pairs of dicts:
    name -> allowed values, and name -> the same values as texts."""
    for name, literals in _scan_expression(str(text)):
        values_by_name, texts_by_name = by_field if "." in name else by_var
        key = name.split(".")[-1] if "." in name else name
        allowed = values_by_name.get(key)
        if not allowed:
            continue
        allowed_texts = texts_by_name[key]
        for value, offset in literals:
            if value not in allowed_texts:
                diags.append(_not_allowed(f"'{name}' compared with text", value, allowed, _where(text, offset)))


_SCANS = BoundedMemo("reference scans of expression texts", 50_000)  # text -> comparisons


def _scan_expression(plain_text: str) -> tuple:
    """The comparisons of one expression text with text literals, found once per distinct text
    (all module combinations share them): `((name, ((literal value, offset), ...)), ...)`."""
    found = _SCANS.get(plain_text)
    if found is not None:
        return found
    comparisons = []
    for pattern in _searched(plain_text):
        for match in pattern.finditer(plain_text):
            if _STRING.fullmatch(match.group(1) or ""):
                literal_group, name_group = 1, 2
            else:
                literal_group, name_group = 2, 1
            literals = tuple((literal.group(0)[1:-1], match.start(literal_group) + literal.start())
                             for literal in _STRING.finditer(match.group(literal_group)))
            comparisons.append((match.group(name_group), literals))
    return _SCANS.put(plain_text, tuple(comparisons))


def _searched(plain_text: str) -> tuple:
    """The `_COMPARED` patterns that can match the text at all: a match of the first two holds
    `==` or `!=` and a quote, one of the third holds `in [` (with any spacing). The others find
    nothing there and are not run: their search backtracks through every identifier of the text
    (~90 k instructions a text, 39 M of a one-game Davos `simulate`, where 29 of the 431 texts
    can match the first two and 3 the third)."""
    equality = ("==" in plain_text or "!=" in plain_text) and ("'" in plain_text or '"' in plain_text)
    return (_COMPARED[:2] if equality else ()) + ((_COMPARED[2],) if _IN_A_LIST.search(plain_text) else ())


def _as_texts(allowed) -> frozenset:
    """The allowed values as texts (what a quoted literal in an expression is compared with)."""
    return frozenset(str(value) for value in allowed)
