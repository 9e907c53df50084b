"""Scenario files of the wrong shape fail as scenarios with a message, never a traceback
(issue 16, item 11)."""
import os
import shutil

import pytest

from interpreter.scenario import run_scenarios

DICE = os.path.join(os.path.dirname(__file__), "rulesets", "dice")

SHAPES = [
    ("- 1\n- 2\n", "a scenario is a mapping"),
    ("name: x\nsteps: roll\n", "'steps' must be a list"),
    ("name: x\nplayers: two\n", "'players' must be a int"),
    ("name: x\nseed: [1]\n", "'seed' must be a int"),
    ("name: x\nsetup: \"top = 1\"\n", "'setup' must be a list"),
    ("name: x\nexpect: \"top == 1\"\n", "'expect' must be a list"),
    ("name: x\nchance: 4\n", "'chance' must be a list"),
    ("name: x\nsteps: [[1, 2]]\n", "a step is a label or a mapping"),
    ("name: x\nstep: [roll]\n", "unknown scenario key 'step'"),
    ("name: x\nsteps: [{action: roll, args: [1]}]\n", "not a legal action"),
    ("name: x\nplayers: 9\n", "set-up failed"),
    ("name: x\nphase: nowhere\n", "unknown phase 'nowhere'"),
    ("name: x\nchance: [3, 1]\nsteps: [roll]\n", "used up"),
    ("name: x\nchance: [7]\n", "not a possible outcome"),
    # steps and items of the wrong shape (each raised a TypeError, or passed, before)
    ("name: x\nsteps: [{refused: }]\n", "a step is a label or a mapping, not None"),
    ("name: x\nsteps: [{refused: 5}]\n", "a step is a label or a mapping, not 5"),
    ("name: x\nsteps: [{refused: [roll]}]\n", "a step is a label or a mapping, not ['roll']"),
    ("name: x\nsteps: [{refused: {expect: 'true'}}]\n", "exactly one of choose, action"),
    ("name: x\nsteps: [{refused: roll, code: [1]}]\n", "'code' of a 'refused' step is a refusal code (text)"),
    ("name: x\nsteps: [{expect: 5}]\n", "'expect' takes an expression (text), not 5"),
    ("name: x\nsteps: [{expect: }]\n", "'expect' takes an expression (text), not None"),
    ("name: x\nsteps: [{set: [1]}]\n", "'set' takes an expression (text), not [1]"),
    ("name: x\nsteps: [{action: [roll]}]\n", "'action' takes an action id (text)"),
    ("name: x\nsteps: [{choose: 1, expect: 'true'}]\n", "exactly one of expect, set, refused, choose, action, at_once"),
    ("name: x\nsteps: [{}]\n", "this one has none"),
    ("name: x\nsteps: [{expect: 'true', code: x}]\n", "a step with 'expect' has no key 'code'"),
    ("name: x\nsteps: [{at_once: {0: 5}}]\n", "a step is a label or a mapping, not 5"),
    ("name: x\nexpect: [5]\n", "each item of 'expect' is an expression (text), not 5"),
    ("name: x\nexpect: [[1]]\n", "each item of 'expect' is an expression (text), not [1]"),
    ("name: x\nsetup: [null]\n", "each item of 'setup' is an expression (text), not None"),
]


@pytest.mark.parametrize("text,message", SHAPES)
def test_a_scenario_of_the_wrong_shape_fails_with_a_message(tmp_path, text, message):
    folder = tmp_path / "dice"
    shutil.copytree(DICE, folder)
    (folder / "examples" / "roll.yaml").write_text(text, encoding="utf-8")
    results = run_scenarios(str(folder))
    assert results and not any(r.ok for r in results)
    assert any(message in m for r in results for m in r.messages), [m for r in results for m in r.messages]


def test_a_failed_expectation_shows_the_value_of_each_part_where_it_is_written(tmp_path):
    folder = tmp_path / "dice"
    shutil.copytree(DICE, folder)
    (folder / "examples" / "roll.yaml").write_text(
        "name: x\nchance: [3, 1, 4, 6]\nsteps: [roll, roll]\n"
        "expect:\n  - \"rolled[0] >= 7 and len(deck) == top + 1\"\n", encoding="utf-8")
    [result] = run_scenarios(str(folder))
    assert not result.ok
    [message] = result.messages
    lines = message.splitlines()
    assert lines[0].endswith("roll.yaml:5:5: expected 'rolled[0] >= 7 and len(deck) == top + 1' to hold")
    assert lines[1:] == ["  where rolled[0] = 6", "  where len(deck) = 3", "  where rolled = [6, 8]",
                         "  where top = 2", "  where deck = [2, 1, 3]"]
