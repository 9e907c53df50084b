"""The fast schema check (schema.py) against jsonschema: the same answer, valid or not, on every
rule file of the repository and on random mutations of them; refusal to build on a keyword it
does not implement; and no jsonschema import while loading a valid ruleset."""
import copy
import glob
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter.errors import RulebookError
from interpreter.loader import load_file, plain
from interpreter.schema import _build_fast_check, _fast_check, _validator, schema

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _files():
    """(path, plain data) of every YAML file of the bundled rulesets and of the test rulesets
    that loads."""
    paths = sorted(glob.glob(os.path.join(ROOT, "rulesets", "*", "**", "*.yaml"), recursive=True))
    for sub in ("golden", "rulesets"):
        paths += sorted(glob.glob(os.path.join(HERE, sub, "**", "*.yaml"), recursive=True))
    out = []
    for path in paths:
        try:
            out.append((os.path.relpath(path, ROOT), plain(load_file(path))))
        except RulebookError:
            continue
    return out


FILES = _files()
FAST = _fast_check()
SLOW = _validator()
SEEDS = [data for _, data in FILES if SLOW.is_valid(data)]


def test_bundled_schema_compiles():
    assert FAST is not None, "the bundled schema uses a keyword the fast check does not implement"


@pytest.mark.parametrize("path,data", FILES, ids=[p for p, _ in FILES])
def test_agrees_on_repository_files(path, data):
    assert FAST(data) == SLOW.is_valid(data)


def test_repository_has_valid_and_invalid_files():
    verdicts = {FAST(data) for _, data in FILES}
    assert verdicts == {True, False} and len(SEEDS) > 50


VALUES = [0, 1, 17, -1, 1.0, 2.5, float("nan"), True, False, None, "", "x", "not an id", "x\n",
          [], ["x"], [1], {}, {"x": 1}, {"expr": "1"}, {"if": "true", "then": []}]
KEYS = ["zz_unknown", "bad-key", "1x", "expr", "if", "then", "effects", "label", "source", "to", "kind"]


def _containers(data, path=()):
    """The path of every dict and list in plain data, the root first."""
    if isinstance(data, (dict, list)):
        yield path
        for k, v in (data.items() if isinstance(data, dict) else enumerate(data)):
            yield from _containers(v, path + (k,))


def _subtrees(data):
    yield data
    for v in (data.values() if isinstance(data, dict) else data if isinstance(data, list) else ()):
        yield from _subtrees(v)


def _at(data, path):
    for part in path:
        data = data[part]
    return data


def _mutate(draw, data):
    """One random change of a dict or list somewhere in `data`, in place."""
    node = _at(data, draw(st.sampled_from(list(_containers(data)))))
    # a literal of another type, or a piece of the same file somewhere it does not belong
    value = copy.deepcopy(draw(st.sampled_from(VALUES) | st.sampled_from(list(_subtrees(data)))))
    if isinstance(node, dict):
        kind = draw(st.sampled_from(["delete", "replace", "add", "rename"] if node else ["add"]))
        if kind == "add":
            node[draw(st.sampled_from(KEYS + list(node)))] = value
            return
        key = draw(st.sampled_from(list(node)))
        if kind == "delete":
            del node[key]
        elif kind == "replace":
            node[key] = value
        else:
            node[draw(st.sampled_from(KEYS))] = node.pop(key)
    else:
        kind = draw(st.sampled_from(["delete", "replace", "insert"] if node else ["insert"]))
        if kind == "insert":
            node.insert(draw(st.integers(0, len(node))), value)
            return
        index = draw(st.integers(0, len(node) - 1))
        if kind == "delete":
            del node[index]
        else:
            node[index] = value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_agrees_on_mutated_files(data):
    mutated = copy.deepcopy(data.draw(st.sampled_from(SEEDS)))
    for _ in range(data.draw(st.integers(1, 3))):
        _mutate(data.draw, mutated)
    assert FAST(mutated) == SLOW.is_valid(mutated)


@pytest.mark.parametrize("sub", [
    {"type": "integer"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}, {"type": "string"},
    {"type": "array"}, {"type": "object"}, {"type": ["string", "number", "boolean"]},
    {"enum": [1, "a", [1, True], {"a": 0}, False, None]}, {"minimum": 1, "maximum": 16},
    {"pattern": "^[A-Za-z][A-Za-z0-9_]*$"}, {"minItems": 1}, {"minProperties": 1, "maxProperties": 1},
    {"required": ["a"]}, {"items": False}, {"propertyNames": {"pattern": "^a"}},
    {"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}},
    {"anyOf": [{"type": "null"}, {"required": ["a"]}]},
])
def test_keyword_semantics_match_jsonschema(sub):
    import jsonschema

    values = [0, 1, 1.0, 1.5, 17, -1, True, False, None, "", "1", "a", "ab", "a b", "a\n", [], [1],
              [1, True], [1.0, 1], {}, {"a": 0}, {"a": 0.0}, {"a": False}, {"a": "x", "b": 2},
              float("nan"), float("inf")]
    fast = _build_fast_check(sub)
    slow = jsonschema.Draft202012Validator(sub)
    assert fast is not None
    for value in values:
        assert fast(value) == slow.is_valid(value), value


def test_recursive_ref():
    doc = {"$defs": {"tree": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/tree"}]}}},
           "$ref": "#/$defs/tree"}
    fast = _build_fast_check(doc)
    assert fast([1, [2, [3, []]]]) and not fast([1, [2, ["x"]]])


@pytest.mark.parametrize("edit", [
    lambda d: d["$defs"]["id"].update(format="identifier"),  # a keyword in a referenced definition
    lambda d: d["properties"]["include"].update(maxItems=3),
    lambda d: d.update(unevaluatedProperties=False),
    lambda d: d["properties"]["game"].update({"$ref": "#/$defs/nowhere"}),
    lambda d: d["properties"]["include"].update(type="text"),
    lambda d: d["properties"]["include"].update({"$id": "elsewhere"}),
])
def test_unknown_keyword_refuses_to_build(edit):
    doc = json.loads(json.dumps(schema()))
    edit(doc)
    assert _build_fast_check(doc) is None


def test_valid_ruleset_loads_without_jsonschema():
    code = ("import sys, interpreter; interpreter.load('tictactoe'); "
            "print('jsonschema' in sys.modules)")
    env = dict(os.environ, RULEBOOK_CACHE="0")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_a_positioned_tree_with_text_keys_is_checked_as_it_is():
    """validate_tree gives the loaded tree itself to the fast check when every key in the file is
    text (Map, Seq and Text are dict, list and str): the same verdict as on its plain copy."""
    paths = sorted(glob.glob(os.path.join(ROOT, "rulesets", "*", "**", "*.yaml"), recursive=True))
    paths += sorted(glob.glob(os.path.join(HERE, "rulesets", "**", "*.yaml"), recursive=True))
    checked = 0
    for path in paths:
        try:
            tree = load_file(path)
        except RulebookError:
            continue
        if getattr(tree, "text_keys", False):
            assert FAST(tree) == FAST(plain(tree)), path
            checked += 1
    assert checked > 50


def test_a_key_that_is_not_text_takes_the_plain_copy(tmp_path):
    from interpreter.loader import load_text

    tree = load_text("game: {name: g}\n1: x\n", "f.yaml")
    assert tree.text_keys is False
    assert load_text("game: {name: g}\n", "f.yaml").text_keys is True
