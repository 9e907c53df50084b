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


def _yaml_under(*parts):
    return sorted(glob.glob(os.path.join(ROOT, *parts, "**", "*.yaml"), recursive=True))


# every bundled ruleset file, every test ruleset, and the broken ones (golden cases: bad YAML,
# tags, merge keys, an alias bomb, too deep a nesting, a file that is not UTF-8, ...)
FILES = (_yaml_under("rulesets") + _yaml_under("tests", "rulesets") + _yaml_under("tests", "failing_rulesets")
         + _yaml_under("tests", "golden"))

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


def _read_file(path, use_c, monkeypatch):
    monkeypatch.setattr(L, "_USE_C", use_c)
    try:
        return "ok", _shape(L._load_file(path, "f.yaml"))  # not load_file: it keeps trees per path
    except RulebookError as e:
        return "error", [d.render() for d in e.diagnostics]


@pytest.mark.skipif(not L._USE_C, reason="needs libyaml")
@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_both_parsers_give_the_same_tree(path, monkeypatch):
    assert _read_file(path, True, monkeypatch) == _read_file(path, False, monkeypatch)


def test_the_files_compared_include_the_broken_ones():
    names = {os.path.relpath(p, ROOT) for p in FILES}
    for case in ("alias_bomb", "too_deep", "yaml_syntax", "tab_indent", "forbidden_tag", "merge_key", "non_utf8"):
        assert os.path.join("tests", "golden", case, "game.yaml") in names, case
    assert any(name.startswith(os.path.join("tests", "rulesets")) for name in names)


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


# ------------------------------------------------------------------ bad YAML: today's messages
# libyaml refuses these; the pure-Python parser reads the text again and its error is the one
# the designer sees, word for word, whichever reader was tried first.
MESSAGES = [
    ("a: [1, 2}\n", "f.yaml:1:9: error[yaml]: expected ',' or ']', but got '}' (while parsing a flow sequence)\n"
     "    = help: check the brackets of the list opened at line 1, column 4"),
    ("a:\n\tb: 1\n", "f.yaml:2:1: error[yaml]: found character '\\t' that cannot start any token (while scanning "
     "for the next token)\n    = help: indent with spaces, not tabs"),
    ("a: b: c\n", "f.yaml:1:5: error[yaml]: mapping values are not allowed here\n    = help: quote a value that contains ': '"),
    ("a: 'x\n", "f.yaml:2:1: error[yaml]: found unexpected end of stream (while scanning a quoted scalar)"),
    ("a: *nope\n", "f.yaml:1:4: error[yaml]: found undefined alias 'nope'"),
    ("x: 1\n---\ny: 2\n", "f.yaml:2:1: error[yaml]: but found another document (expected a single document in the stream)"),
    ("a: {b: 1\n", "f.yaml:2:1: error[yaml]: expected ',' or '}', but got '<stream end>' (while parsing a flow mapping)\n"
     "    = help: check the brackets of the mapping opened at line 1, column 4"),
    ("a:\n  - 1\n b: 2\n", "f.yaml:3:2: error[yaml]: expected <block end>, but found '<block mapping start>' "
     "(while parsing a block mapping)"),
    ("a: \x07\n", "f.yaml:1:4: error[encoding]: character U+0007 is not allowed in a rule file\n"
     "    = help: remove the control character"),
    ("key: @x\n", "f.yaml:1:6: error[yaml]: found character '@' that cannot start any token (while scanning for the next token)"),
]


@pytest.mark.parametrize("use_c", [True, False] if L._USE_C else [False])
@pytest.mark.parametrize("text, message", MESSAGES)
def test_bad_yaml_keeps_its_message(text, message, use_c, monkeypatch):
    tried = []

    class Recording(L.yaml.CSafeLoader):
        def __init__(self, stream):
            tried.append(stream)
            super().__init__(stream)

    monkeypatch.setattr(L.yaml, "CSafeLoader", Recording)
    assert _read(text, use_c, monkeypatch) == ("error", [message])
    assert len(tried) == (1 if use_c else 0)  # the C reader was tried first, then the Python one explained


# ------------------------------------------------------------------ hostile inputs, both readers
DEEP = 100_000
HOSTILE = {
    "deep flow list": "a: " + "[" * DEEP + "]" * DEEP + "\n",
    "deep flow list unclosed": "a: " + "[" * DEEP + "\n",
    "deep flow mapping": "{a: " * DEEP + "1" + "}" * DEEP + "\n",
    "deep flow mapping in a value": "a: " + "{a: " * DEEP + "1" + "}" * DEEP + "\n",
    "deep flow, lists and mappings": "a: " + "[{a: " * (DEEP // 2) + "1" + "}]" * (DEEP // 2) + "\n",
    "deep block list on one line": "- " * DEEP + "b\n",
    "deep block mapping": "".join(" " * level + "a:\n" for level in range(1500)) + " " * 1500 + "b\n",
    "deep block list": "".join(" " * level + "-\n" for level in range(1500)) + " " * 1500 + "b\n",
    "just under libyaml's own bound": "a: " + "[" * 999 + "]" * 999 + "\n",
    "alias bomb": "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 9)),
    "python tag": "a: !!python/object/apply:os.system ['echo x']\n",
    "python name": "a: !!python/name:os.system\n",
    "local tag": "a: !thing {b: 1}\n",
    "merge key": "base: &b {x: 1}\nother:\n  <<: *b\n",
    "mapping key": "? {a: 1}\n: b\n",
}


@pytest.mark.skipif(not L._USE_C, reason="needs libyaml")
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_inputs_read_alike(name, monkeypatch):
    c_reading = _read(HOSTILE[name], True, monkeypatch)
    assert c_reading[0] == "error", name
    assert c_reading == _read(HOSTILE[name], False, monkeypatch)


@pytest.mark.skipif(not L._USE_C, reason="needs libyaml")
def test_deep_nesting_through_libyaml_never_crashes_the_process():
    """libyaml's composer recurses in C; a hostile nesting must end in a clean diagnostic, not a
    crash (a separate process, so a crash fails this test instead of killing the run)."""
    import subprocess
    import sys

    script = (
        "import sys, json\n"
        "from tests.test_loader import HOSTILE, L\n"
        "from interpreter.errors import RulebookError\n"
        "assert L._USE_C\n"
        "codes = {}\n"
        "for name, text in HOSTILE.items():\n"
        "    if 'deep' in name or 'bound' in name:\n"
        "        try:\n"
        "            L.load_text(text, 'f.yaml')\n"
        "        except RulebookError as error:\n"
        "            codes[name] = error.diagnostics[0].code\n"
        "print(json.dumps(codes))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    import json

    codes = json.loads(done.stdout)
    assert len(codes) == 9 and set(codes.values()) == {"yaml-too-deep"}, codes


@pytest.mark.parametrize("name", ["a", "Z", "0", "_", "-"])
def test_an_alias_bomb_is_measured_whatever_its_anchor_names(name):
    lines = [f"{name}0: &{name}0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"{name}{i}: &{name}{i} [" + ", ".join([f"*{name}{i - 1}"] * 10) + "]")
    with pytest.raises(RulebookError) as caught:
        L.load_text("\n".join(lines) + "\n", "f.yaml")
    assert "expands to" in caught.value.render() and "aliases" in caught.value.render()


def test_an_ampersand_in_text_is_not_an_anchor():
    assert not L._ANCHOR.search('name: "Pill & Bill"\nwhen: "a && b"\n')
    assert L._ANCHOR.search("a: &x 1\n") and L._ANCHOR.search("a: [&-x 1]\n")


@pytest.mark.parametrize("use_c", [True, False] if L._USE_C else [False])
@pytest.mark.parametrize("prefix", ["a: ", "a: &x 1\nb: ", "- {a: 1}\n- "])
@pytest.mark.parametrize("first", ["1", "*x", "{k: v}", "[]"])
def test_too_deep_names_the_same_node_at_any_depth(prefix, first, use_c, monkeypatch):
    """A file nested a little too deep is read by the composer and named by the builder; one
    nested past libyaml's bound or Python's recursion by the event scan (`_deep_at`): both name
    the first node past the limit (an alias at its anchor)."""
    if first == "*x" and "&x" not in prefix:
        first = "1"
    readings = set()
    for depth in (80, 400, 1200):  # the builder; the Python composer too deep; libyaml too deep
        text = prefix + "[" * 64 + first + ", " + "[" * depth + "]" * (depth + 64) + "\n"
        outcome, messages = _read(text, use_c, monkeypatch)
        assert outcome == "error" and "error[yaml-too-deep]" in messages[0]
        readings.add(messages[0])
    assert len(readings) == 1, readings
