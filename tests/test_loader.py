"""The YAML reader (interpreter/loader.py): positions, YAML corners and the limits, and the
same tree whether libyaml's composer or the pure-Python one reads a file (libyaml reads the
files that parse; the pure-Python parser explains the ones that do not)."""
import glob
import os

import pytest

from interpreter import loader as L
from interpreter.errors import RulebookError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _shape(n):
    if isinstance(n, L.Map):
        return ("map", n.pos, n.text_keys, [(k, n.kpos[k], n.vpos[k], _shape(v)) for k, v in n.items()])
    if isinstance(n, L.Seq):
        return ("seq", n.pos, list(n.ipos), [_shape(v) for v in n])
    if isinstance(n, L.Text):
        return ("text", str(n), n.pos, n.quoted, n.block)
    return (type(n).__name__, n)


def _read(text, use_c, monkeypatch):
    monkeypatch.setattr(L, "_USE_C", use_c)
    try:
        return "ok", _shape(L.load_text(text, "f.yaml"))
    except RulebookError as e:
        return "error", [d.render() for d in e.diagnostics]


FILES = sorted(glob.glob(os.path.join(ROOT, "rulesets", "**", "*.yaml"), recursive=True))

CASES = [
    "a: 1_000\nb: 1:30\nc: 0x1f\nd: .inf\ne: ~\nf:\ng: 2020-01-01\n",
    "a: &x [1, 2, {b: 3}]\nc: *x\nd: *x\n",
    "k: |\n  line one\n  line two\nj: >\n  a\n\n  b\n",
    "q: 'x\n  y'\nr: \"a\\tb\"\n",
    "- a\n- b: c\n  d: [1, 2.5, -3, +4, 0o17, 1e3, 'no']\n",
    "a: null\nb: Null\nc: NULL\nd: true\ne: True\nf: FALSE\n",
    "1: a\n2.5: b\nnull: c\n",
    "a: 'it''s'\nb: \"\\u00e9\"\nc: é ü\n",
]


@pytest.mark.skipif(not L._USE_C, reason="needs libyaml")
@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_both_parsers_give_the_same_tree(path, monkeypatch):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    assert _read(text, True, monkeypatch) == _read(text, False, monkeypatch)


@pytest.mark.parametrize("text", CASES)
def test_yaml_corners_read_alike(text, monkeypatch):
    assert _read(text, True, monkeypatch) == _read(text, False, monkeypatch)


def test_positions_and_values():
    tree = L.load_text("game:\n  name: 'x'\n  n: [1, 2.5, true]\n", "g.yaml")
    assert L.key_pos(tree, "game") == L.Pos("g.yaml", 1, 1)
    game = tree["game"]
    assert L.value_pos(game, "name") == L.Pos("g.yaml", 2, 9) and game["name"].quoted
    assert list(game["n"]) == [1, 2.5, True] and game["n"].ipos[1] == L.Pos("g.yaml", 3, 10)
    assert tree.text_keys


@pytest.mark.parametrize("text, code", [
    ("a: yes\n", "yaml-bool"),
    ("a: 1\na: 2\n", "duplicate-key"),
    ("a: !!python/object:os.system x\n", "yaml-tag"),
    ("<<: {a: 1}\n", "yaml-merge"),
    ("? [a]\n: b\n", "yaml-key"),
    ("x: 1\n---\ny: 2\n", "yaml"),
    ("a: *nope\n", "yaml"),
    ("a: [1\n", "yaml"),
    ("a: " + "[" * 70 + "]" * 70 + "\n", "yaml-too-deep"),
    ("a: \x07\n", "encoding"),
])
def test_bad_yaml_is_a_diagnostic(text, code):
    with pytest.raises(RulebookError) as caught:
        L.load_text(text, "f.yaml")
    assert caught.value.diagnostics[0].code == code, caught.value.render()
    assert "f.yaml:" in caught.value.render()
