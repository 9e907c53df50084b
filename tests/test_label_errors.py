"""A label template that fails at run time never breaks listing, playing or showing moves
(issue 16.11): the action keeps its plain label with the reason, so a designer sees it."""
import io
import shutil

import pytest

import interpreter
from interpreter.cli import run
from interpreter.compose import bundled_rulesets

TEMPLATE = '    label: "{marks[player]} on {cell}"'


@pytest.mark.parametrize("broken", ["{10 // (cell - 4)}", "{10 // (len(board) - 9)}"],
                         ids=["reads-parameters-only", "reads-the-state"])
def test_a_failing_label_is_shown_with_its_reason(tmp_path, broken):
    folder = tmp_path / "tictactoe"
    shutil.copytree(bundled_rulesets()["tictactoe"], folder)
    text = (folder / "game.yaml").read_text()
    assert TEMPLATE in text
    (folder / "game.yaml").write_text(text.replace(TEMPLATE, TEMPLATE[:-1] + " " + broken + '"'))
    state = interpreter.load(str(folder)).new_game(2, seed=1)
    labels = [action.label for action in state.legal_actions()]
    assert any("label error: division by zero" in label for label in labels)
    assert "place(cell=4) (label error: division by zero)" in labels or broken.endswith("- 9)}")
    out, err = io.StringIO(), io.StringIO()
    code = run(["play", str(folder), "--agents", "random,random", "--seed", "1"], stdout=out, stderr=err)
    assert code == 0 and "Traceback" not in err.getvalue() + out.getvalue()
    assert "label error" in out.getvalue()
