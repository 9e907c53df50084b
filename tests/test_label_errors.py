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
    failed = [label for label in labels if "division by zero" in label]
    assert failed and all(label.startswith("place(cell=") and "label error at " in label for label in failed)
    assert all(f"game.yaml:{text.splitlines().index(TEMPLATE) + 1}:" in label for label in failed)  # the rule's line
    if not broken.endswith("- 9)}"):
        assert [label for label in failed] == [label for label in labels if label.startswith("place(cell=4)")]
    out, err = io.StringIO(), io.StringIO()
    code = run(["play", str(folder), "--agents", "random,random", "--seed", "1",
                "--save", str(tmp_path / "game.replay.json")], stdout=out, stderr=err)  # (not in the working directory)
    assert code == 0 and "Traceback" not in err.getvalue() + out.getvalue()
    assert "label error" in out.getvalue()
