"""The Python examples of docs/research.md run as written."""
import os
import re

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

import interpreter  # noqa: E402
from interpreter.adapters.openspiel import has_chance_api  # noqa: E402

DOC = os.path.join(os.path.dirname(__file__), "..", "docs", "research.md")
BLOCKS = re.findall(r"```python\n(.*?)```", open(DOC, encoding="utf-8").read(), re.S)


def test_research_has_an_example_per_adapter():
    assert len(BLOCKS) == 5  # OpenSpiel (and its simultaneous moves), PettingZoo, Gymnasium, engine=
    assert [("openspiel" in b, "pettingzoo" in b, "gymnasium" in b) for b in BLOCKS] == [
        (True, False, False), (True, False, False), (False, True, False), (False, False, True),
        (False, True, True)]


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_research_example_runs(index, capsys):
    if "cfr" in BLOCKS[index] and not has_chance_api(interpreter.load("kuhn-poker")):
        pytest.skip("CFR needs the engine's chance nodes")
    exec(compile(BLOCKS[index], f"docs/research.md example {index + 1}", "exec"), {})
    printed = capsys.readouterr().out.strip()
    if "cfr" in BLOCKS[index]:
        assert float(printed) < 0.01
    if "apply_actions" in BLOCKS[index]:
        assert printed == "Dynamics.SIMULTANEOUS"
    if "engine=" in BLOCKS[index]:
        assert printed == "CompiledState"
    elif "make_env" in BLOCKS[index]:
        assert float(printed) in (-1.0, 0.0, 1.0)
