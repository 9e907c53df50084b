"""Shape checks with JSON Schema (draft 2020-12), errors mapped back to `file:line:col`.

Owns: loading the bundled schema and turning jsonschema's errors into Diagnostics, best first.
Does not own anything the schema cannot say (references, expression types): that is checks.py.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache

from .errors import Diagnostic, Pos, RulebookError, suggest
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
            r = node.get("$ref")
            if isinstance(r, str) and r.startswith("#/$defs/"):
                acc.add(r[len("#/$defs/"):])
            for v in node.values():
                refs_in(v, acc)
        elif isinstance(node, list):
            for v in node:
                refs_in(v, acc)
        return acc

    graph = {name: refs_in(d, set()) for name, d in defs.items()}

    def reaches(a, b, seen=None):
        seen = seen or set()
        for n in graph.get(a, ()):
            if n == b or (n not in seen and (seen.add(n) or reaches(n, b, seen))):
                return True
        return False

    recursive = {n for n in defs if reaches(n, n)}

    def sub(node):
        if isinstance(node, dict):
            r = node.get("$ref")
            if isinstance(r, str) and r.startswith("#/$defs/") and len(node) == 1:
                name = r[len("#/$defs/"):]
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
def _schema_digest() -> str:
    import hashlib

    with open(schema_path(), "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


@lru_cache(maxsize=1)
def _validator():
    import jsonschema

    return jsonschema.Draft202012Validator(_inline_refs(schema()))


@lru_cache(maxsize=1)
def schema() -> dict:
    with open(schema_path(), encoding="utf-8") as fh:
        return json.load(fh)


def _locate(tree, path, value=False):
    """The deepest positioned node along a JSON path, and the key position where useful."""
    node = tree
    pos = pos_of(tree)
    for i, part in enumerate(path):
        if isinstance(node, Map) and part in node:
            pos = key_pos(node, part) if i == len(path) - 1 and not value else value_pos(node, part)
            node = node[part]
        elif isinstance(node, Seq) and isinstance(part, int) and part < len(node):
            pos = value_pos(node, part)
            node = node[part]
        else:
            break
    return pos


def _message(err) -> tuple[str, str | None]:
    v = err.validator
    hint = None
    if v == "additionalProperties":
        extra = [k for k in err.instance if k not in (err.schema.get("properties") or {})]
        allowed = list((err.schema.get("properties") or {}).keys())
        if extra:
            hint = suggest(extra[0], allowed) or f"allowed here: {', '.join(allowed)}"
            return f"unknown key '{extra[0]}'", hint
    if v == "enum":
        return f"{err.instance!r} is not one of {', '.join(map(repr, err.validator_value))}", suggest(str(err.instance), [str(x) for x in err.validator_value])
    if v == "required":
        return err.message.replace("is a required property", "is required here"), None
    if v == "pattern":
        return f"'{err.instance}' is not a valid name (letters, digits and '_', starting with a letter)", None
    if v == "anyOf" and err.context:
        return _message(_best(err))
    if v == "type":
        want = err.validator_value
        want = " or ".join(want) if isinstance(want, list) else want
        return f"expected {want}, got {type(err.instance).__name__.replace('Text','string').replace('Map','mapping').replace('Seq','list').replace('str','string').replace('dict','mapping')}", None
    return err.message, hint


def _is_null_branch(e) -> bool:
    return e.validator == "type" and e.validator_value in ("null", ["null"])


def _best(err):
    """The error of an `anyOf` that explains it best: the deepest one, then one that is not
    'expected null' (the optional branch), then an unknown key."""
    leaf = err
    while leaf.validator == "anyOf" and leaf.context:
        leaf = min(leaf.context, key=lambda e: (-len(e.absolute_path), _is_null_branch(e),
                                                e.validator != "additionalProperties"))
    return leaf


# validators whose error is about a value (point at the value, not at its key)
_VALUE_ERRORS = ("type", "enum", "pattern", "minimum", "maximum", "minItems", "maxItems", "const")


_VALID: dict = {}


def validate_files(files) -> None:
    """Validate each rule file (display path, tree) on its own: every file of a ruleset, a
    module file too, is a rule file. Parsed files are shared read-only trees (loader.py), so
    the result is kept per tree: checking every module combination validates each file once."""
    from . import diskcache

    diags = []
    for display, tree in files:
        hit = _VALID.get(id(tree))
        if hit is not None and hit[0] is tree:
            diags.extend(hit[1])
            continue
        key = None
        if diskcache.enabled() and getattr(tree, "digest", None):
            key = diskcache.digest("schema", _schema_digest(), display, tree.digest)
            stored = diskcache.section("schema").get(key)
            if stored is not None:
                found = [Diagnostic(d["code"], d["message"], Pos(d["file"], d["line"], d["col"]), d["hint"],
                                    d["severity"]) for d in stored]
                _VALID[id(tree)] = (tree, found)
                diags.extend(found)
                continue
        try:
            validate_tree(tree)
            found = []
        except RulebookError as e:
            found = e.diagnostics
        if key is not None:
            diskcache.section("schema")[key] = [d.to_json() for d in found]
            diskcache.touch()
        if len(_VALID) > 2000:
            _VALID.clear()
        _VALID[id(tree)] = (tree, found)  # the tree is kept, so its id is not reused
        diags.extend(found)
    if diags:
        raise RulebookError(diags, "schema")


def validate_tree(tree) -> None:
    import jsonschema

    validator = _validator()
    data = plain(tree)
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
