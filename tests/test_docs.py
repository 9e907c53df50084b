"""Every example in docs/language.md is checked: `# example:` blocks load as rule files and
play to the end with random agents; `# expression:` blocks evaluate to true."""
import os
import re

import pytest

from interpreter import compile_expression, load
from interpreter.play import play_game

DOC = os.path.join(os.path.dirname(__file__), "..", "docs", "language.md")


def _blocks(kind):
    text = open(DOC, encoding="utf-8").read()
    for m in re.finditer(r"```yaml\n# " + kind + r": ([^\n]*)\n(.*?)```", text, re.S):
        yield m.group(1), m.group(2)


@pytest.mark.parametrize("title,body", list(_blocks("example")), ids=lambda x: x if len(x) < 60 else None)
def test_doc_example_loads_and_plays(tmp_path, title, body):
    (tmp_path / "game.yaml").write_text(body, encoding="utf-8")
    rs = load(str(tmp_path))
    for n in rs.players:
        r = play_game(rs, n, seed=3, agent_specs=["random"])
        assert r.error is None, r.error


@pytest.mark.parametrize("title,body", list(_blocks("expression")))
def test_doc_expression_is_true(title, body):
    assert compile_expression(body.strip()).evaluate({}) is True


def test_docs_have_examples():
    assert len(list(_blocks("example"))) >= 10
    assert len(list(_blocks("expression"))) >= 3
