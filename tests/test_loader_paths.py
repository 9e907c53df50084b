"""The loader's two paths agree: the one-pass event reader (libyaml, for plain data) and the
composing reader (for everything else, and the one that explains errors) give the same tree,
the same positions and the same diagnostics."""
import glob
import os

import pytest
import yaml

from interpreter import loader as L
from interpreter.errors import RulebookError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.skipif(not getattr(yaml, "__with_libyaml__", False), reason="needs libyaml")


def _shape(n):
    if isinstance(n, L.Map):
        return ("map", n.pos, n.text_keys, [(k, n.kpos[k], n.vpos[k], _shape(v)) for k, v in n.items()])
    if isinstance(n, L.Seq):
        return ("seq", n.pos, list(n.ipos), [_shape(v) for v in n])
    if isinstance(n, L.Text):
        return ("text", str(n), n.pos, n.quoted, n.block)
    return (type(n).__name__, n)


def _read(text, composing):
    saved = L._Builder.from_events
    if composing:
        L._Builder.from_events = lambda self: L._SLOW
    try:
        return "ok", _shape(L.load_text(text, "f.yaml"))
    except RulebookError as e:
        return "error", [d.render() for d in e.diagnostics]
    finally:
        L._Builder.from_events = saved


FILES = sorted(glob.glob(os.path.join(ROOT, "rulesets", "**", "*.yaml"), recursive=True)
               + glob.glob(os.path.join(ROOT, "tests", "**", "*.yaml"), recursive=True))

CASES = [
    "a: yes\nb: No\nc: on\n",
    "a: 1_000\nb: 1:30\nc: 0x1f\nd: .inf\ne: ~\nf:\ng: 2020-01-01\n",
    "a: &x [1, 2, {b: 3}]\nc: *x\nd: *x\n",
    "a: 1\na: 2\nb: yes\n",
    "k: |\n  line one\n  line two\nj: >\n  a\n\n  b\n",
    "q: 'x\n  y'\nr: \"a\\tb\"\n",
    "- a\n- b: c\n  d: [1, 2.5, -3, +4, 0o17, 1e3, 'no']\n",
    "? [a]\n: b\n",
    "!!str a: b\n",
    "a: !!int 3\n",
    "x: 1\n---\ny: 2\n",
    "a: *nope\n",
    "&r [*r]\n",
    "a: null\nb: Null\nc: NULL\nd: true\ne: True\nf: FALSE\n",
    "<<: {a: 1}\n",
    "1: a\n2.5: b\nnull: c\n",
    "a:\n  - x:  # note\n      y\n",
    "a: 'it''s'\nb: \"\\u00e9\"\nc: é ü\n",
]


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_paths_agree_on_every_rule_file(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    assert _read(text, composing=False) == _read(text, composing=True)


@pytest.mark.parametrize("text", CASES)
def test_paths_agree_on_yaml_corners(text):
    assert _read(text, composing=False) == _read(text, composing=True)


def test_event_reader_takes_the_bundled_rule_files():
    """Plain data files (anchors and aliases included) take the one-pass reader."""
    taken = 0
    paths = [p for p in FILES if os.sep + "rulesets" + os.sep in p and os.sep + "tests" + os.sep not in p]
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            taken += L._Builder(path, None, fh.read()).from_events() is not L._SLOW
    assert paths and taken == len(paths)


def test_many_alias_copies_go_to_the_composing_path():
    """The event reader copies an alias's nodes; past a few thousand copies (an alias bomb, or
    simply heavy use) it hands the file to the composing path, which measures before building."""
    with open(os.path.join(ROOT, "tests", "golden", "alias_bomb", "game.yaml"), encoding="utf-8") as fh:
        bomb = fh.read()
    assert L._Builder("f.yaml", None, bomb).from_events() is L._SLOW
    heavy = "a: &a [" + ", ".join(["x"] * 300) + "]\nb: [" + ", ".join(["*a"] * 100) + "]\n"
    assert L._Builder("f.yaml", None, heavy).from_events() is L._SLOW
    assert _read(heavy, composing=False) == _read(heavy, composing=True)
