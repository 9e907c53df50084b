"""Shape checks with JSON Schema (draft 2020-12), errors mapped back to `file:line:col`.

Owns: loading the bundled schema, a fast validity check compiled from it (so a valid file never
imports jsonschema), and turning jsonschema's errors into Diagnostics, best first.
Does not own anything the schema cannot say (references, expression types): that is checks.py.
"""
from __future__ import annotations

import json
import numbers
import os
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from .errors import Diagnostic, RulebookError, suggest
from .loader import Map, Seq, key_pos, plain, pos_of, value_pos

__all__ = ["schema", "schema_path", "validate_tree"]


def schema_path() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "schema_files", "ruleset.schema.json"),
                 os.path.join(os.path.dirname(here), "schema", "ruleset.schema.json")):
        if os.path.isfile(cand):
            return cand
    raise FileNotFoundError("ruleset.schema.json is not installed")


def _inline_refs(schema_doc: dict) -> dict:
    """The schema with every `$ref` to a definition that does not refer back to itself
    replaced by the definition: the same meaning, far fewer reference look-ups while
    validating. Recursive definitions (effects contain effects) keep their `$ref`."""
    defs = schema_doc.get("$defs", {})

    def refs_in(node, acc):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                acc.add(ref[len("#/$defs/"):])
            for value in node.values():
                refs_in(value, acc)
        elif isinstance(node, list):
            for value in node:
                refs_in(value, acc)
        return acc

    graph = {name: refs_in(d, set()) for name, d in defs.items()}

    def reaches(start, goal, seen=None):
        seen = seen or set()
        for successor in graph.get(start, ()):
            if successor == goal or (successor not in seen and (seen.add(successor) or reaches(successor, goal, seen))):
                return True
        return False

    recursive = {n for n in defs if reaches(n, n)}

    def sub(node):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and len(node) == 1:
                name = ref[len("#/$defs/"):]
                if name not in recursive and name in defs:
                    return sub(defs[name])
            return {k: (v if k == "$defs" else sub(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [sub(v) for v in node]
        return node

    out = sub(schema_doc)
    out["$defs"] = {k: sub(v) for k, v in defs.items()}
    return out


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    return jsonschema.Draft202012Validator(_inline_refs(schema()))


@lru_cache(maxsize=1)
def schema() -> dict:
    with open(schema_path(), encoding="utf-8") as stream:
        return json.load(stream)


# The fast check: the schema compiled once into closures that answer only "is this plain data
# valid?", with jsonschema's Draft 2020-12 meaning. A keyword it does not implement makes it
# refuse to build (None): then jsonschema decides every time, so it is never silently wrong.

# keywords that say nothing about validity ($id only at the root: below it, it would move `$ref`)
_ANNOTATIONS = frozenset({"description", "title", "$comment", "examples", "default", "$schema", "$defs"})


class _Unsupported(Exception):
    """The schema says something the fast check does not implement."""


def _always(value):
    return True


def _never(value):
    return False


def _is_integer(value):
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())


def _is_number(value):
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


_TYPES = {
    "array": lambda x: isinstance(x, list),
    "boolean": lambda x: isinstance(x, bool),
    "integer": _is_integer,
    "null": lambda x: x is None,
    "number": _is_number,
    "object": lambda x: isinstance(x, dict),
    "string": lambda x: isinstance(x, str),
}

_TRUE, _FALSE = object(), object()


def _unbool(value):
    return _TRUE if value is True else _FALSE if value is False else value


def _equal(one, two) -> bool:
    """JSON equality as jsonschema's `_utils.equal`: 1 == 1.0, but True != 1, also inside lists
    and mappings."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(k in two and _equal(v, two[k]) for k, v in one.items())
    return _unbool(one) == _unbool(two)


def _type(node, sub):
    names = node["type"]
    names = [names] if isinstance(names, str) else names
    if not isinstance(names, list) or not all(n in _TYPES for n in names):
        raise _Unsupported(f"type {names!r}")
    tests = [_TYPES[n] for n in names]
    if len(tests) == 1:
        return tests[0]
    return lambda x: any(t(x) for t in tests)


def _members(node, sub):
    """`properties` and `additionalProperties` together: each key's value against its
    property's schema, or else against the additional one (absent: anything)."""
    props = {k: sub(v) for k, v in node.get("properties", {}).items()}
    extra = sub(node.get("additionalProperties", True))

    def check(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if not props.get(key, extra)(item):
                    return False
        return True
    return check


def _required(node, sub):
    names = node["required"]
    return lambda x: not isinstance(x, dict) or all(k in x for k in names)


def _min_properties(node, sub):
    least = node["minProperties"]
    return lambda x: not isinstance(x, dict) or len(x) >= least


def _max_properties(node, sub):
    most = node["maxProperties"]
    return lambda x: not isinstance(x, dict) or len(x) <= most


def _property_names(node, sub):
    name = sub(node["propertyNames"])
    return lambda x: not isinstance(x, dict) or all(name(k) for k in x)


def _items(node, sub):
    item = sub(node["items"])
    return lambda x: not isinstance(x, list) or all(item(v) for v in x)


def _min_items(node, sub):
    least = node["minItems"]
    return lambda x: not isinstance(x, list) or len(x) >= least


def _min_length(node, sub):
    least = node["minLength"]
    return lambda x: not isinstance(x, str) or len(x) >= least


def _minimum(node, sub):
    low = node["minimum"]
    return lambda x: not _is_number(x) or not x < low


def _maximum(node, sub):
    high = node["maximum"]
    return lambda x: not _is_number(x) or not x > high


def _pattern(node, sub):
    search = re.compile(node["pattern"]).search
    return lambda x: not isinstance(x, str) or search(x) is not None


def _enum(node, sub):
    values = node["enum"]
    return lambda x: any(_equal(v, x) for v in values)


def _any_of(node, sub):
    branches = [sub(b) for b in node["anyOf"]]
    return lambda x: any(b(x) for b in branches)


def _ref(node, sub):
    return sub.ref(node["$ref"])


# keyword -> builder(schema node, subschema compiler) -> check; one builder may own two keywords
_KEYWORDS = {
    "type": _type, "enum": _enum, "anyOf": _any_of, "$ref": _ref,
    "properties": _members, "additionalProperties": _members, "required": _required,
    "propertyNames": _property_names, "minProperties": _min_properties, "maxProperties": _max_properties,
    "items": _items, "minItems": _min_items, "minLength": _min_length,
    "minimum": _minimum, "maximum": _maximum, "pattern": _pattern,
}


class _Compiler:
    """Compiles schema nodes into checks; owns the `#/$defs/...` look-ups, each definition
    compiled once, a recursive one through a late-bound slot."""

    def __init__(self, schema_doc: dict):
        self.defs = schema_doc.get("$defs", {})
        self.compiled: dict = {}

    def __call__(self, node):
        if isinstance(node, bool):
            return _always if node else _never
        if not isinstance(node, dict):
            raise _Unsupported(f"schema {node!r}")
        unknown = [k for k in node if k not in _KEYWORDS and k not in _ANNOTATIONS]
        if unknown:
            raise _Unsupported(f"keyword {unknown[0]!r}")
        builders = dict.fromkeys(_KEYWORDS[k] for k in node if k in _KEYWORDS)
        checks = [build(node, self) for build in builders]
        if not checks:
            return _always
        if len(checks) == 1:
            return checks[0]

        def check(value):
            for check_one in checks:
                if not check_one(value):
                    return False
            return True
        return check

    def ref(self, ref):
        name = ref[len("#/$defs/"):] if isinstance(ref, str) and ref.startswith("#/$defs/") else ""
        if not name or any(c in name for c in "/~%") or name not in self.defs:
            raise _Unsupported(f"$ref {ref!r}")
        if name not in self.compiled:
            slot = []
            self.compiled[name] = lambda x: slot[0](x)  # what the definition's own body sees
            slot.append(self(self.defs[name]))
            self.compiled[name] = slot[0]
        return self.compiled[name]


def _build_fast_check(schema_doc: dict):
    """The schema's validity check (plain data -> bool), or None if it uses a keyword the check
    does not implement."""
    root = {k: v for k, v in schema_doc.items() if k != "$id"}
    try:
        return _Compiler(schema_doc)(root)
    except _Unsupported:
        return None


@lru_cache(maxsize=1)
def _fast_check():
    return _build_fast_check(schema())


def _locate(tree, path, value=False):
    """The deepest positioned node along a JSON path, and the key position where useful."""
    node = tree
    pos = pos_of(tree)
    for index, part in enumerate(path):
        if isinstance(node, Map) and part in node:
            pos = key_pos(node, part) if index == len(path) - 1 and not value else value_pos(node, part)
            node = node[part]
        elif isinstance(node, Seq) and isinstance(part, int) and part < len(node):
            pos = value_pos(node, part)
            node = node[part]
        else:
            break
    return pos


def _message(err) -> tuple[str, str | None]:
    validator = err.validator
    hint = None
    if validator == "additionalProperties":
        extra = [k for k in err.instance if k not in (err.schema.get("properties") or {})]
        allowed = list((err.schema.get("properties") or {}).keys())
        if extra:
            hint = suggest(extra[0], allowed) or f"allowed here: {', '.join(allowed)}"
            return f"unknown key '{extra[0]}'", hint
    if validator == "enum":
        return f"{err.instance!r} is not one of {', '.join(map(repr, err.validator_value))}", suggest(str(err.instance), [str(x) for x in err.validator_value])
    if validator == "required":
        return err.message.replace("is a required property", "is required here"), None
    if validator == "pattern":
        return f"'{err.instance}' is not a valid name (letters, digits and '_', starting with a letter)", None
    if validator == "anyOf" and err.context:
        return _message(_best(err))
    if validator == "type":
        want = err.validator_value
        want = " or ".join(want) if isinstance(want, list) else want
        return f"expected {want}, got {type(err.instance).__name__.replace('Text','string').replace('Map','mapping').replace('Seq','list').replace('str','string').replace('dict','mapping')}", None
    return err.message, hint


def _is_null_branch(error) -> bool:
    return error.validator == "type" and error.validator_value in ("null", ["null"])


def _best(err):
    """The error of an `anyOf` that explains it best: the deepest one, then one that is not
    'expected null' (the optional branch), then an unknown key."""
    leaf = err
    while leaf.validator == "anyOf" and leaf.context:
        leaf = min(leaf.context, key=lambda e: (-len(e.absolute_path), _is_null_branch(e),
                                                e.validator != "additionalProperties"))
    return leaf


# validators whose error is about a value (point at the value, not at its key)
_VALUE_ERRORS = ("type", "enum", "pattern", "minimum", "maximum", "minItems", "maxItems", "minLength", "const")


_VALID: dict = {}


def validate_files(files) -> None:
    """Validate each rule file (display path, tree) on its own: every file of a ruleset, a
    module file too, is a rule file. Parsed files are shared read-only trees (loader.py), so
    the result is kept per tree for this process: checking every module combination
    validates each file once."""
    diags = []
    for display, tree in files:
        hit = _VALID.get(id(tree))
        if hit is not None and hit[0] is tree:
            diags.extend(hit[1])
            continue
        try:
            validate_tree(tree)
            found = []
        except RulebookError as error:
            found = error.diagnostics
        if len(_VALID) > 2000:
            _VALID.clear()
        _VALID[id(tree)] = (tree, found)  # the tree is kept, so its id is not reused
        diags.extend(found)
    if diags:
        raise RulebookError(diags, "schema")


def validate_tree(tree) -> None:
    fast = _fast_check()
    # the positioned tree is plain data already (mappings, lists, text) when every key is text
    if fast is not None and fast(tree if getattr(tree, "text_keys", False) else plain(tree)):
        return  # valid: jsonschema is needed only to explain an error
    data = plain(tree)
    import jsonschema

    validator = _validator()
    # best error first: jsonschema's relevance (the key best_match maximises), most relevant first
    errors = sorted(validator.iter_errors(data), key=jsonschema.exceptions.relevance, reverse=True)
    diags = []
    seen = set()
    for err in errors:
        leaf = _best(err)
        path = list(leaf.absolute_path)
        if leaf.validator == "additionalProperties" and isinstance(leaf.instance, dict):
            allowed = leaf.schema.get("properties") or {}
            extra = [k for k in leaf.instance if k not in allowed]
            if extra:  # point at the unknown key itself
                path = path + [extra[0]]
        pos = _locate(tree, path, value=leaf.validator in _VALUE_ERRORS)
        msg, hint = _message(err)
        key = (str(pos), msg)
        if key in seen:
            continue
        seen.add(key)
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in leaf.absolute_path)
        diags.append(Diagnostic("schema", f"{msg} (at {where})", pos, hint))
    if diags:
        raise RulebookError(diags, "schema")
