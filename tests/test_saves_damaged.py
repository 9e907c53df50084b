"""A damaged save is refused with SaveError and its reason, never a traceback (issue 16.9/16.11):
found by tests/test_fuzz.py, pinned here."""
import json

import pytest

import interpreter
from interpreter.engine import SaveError
from interpreter.state import State


@pytest.mark.parametrize("modules", [5, 1.5, "big", [3]])
def test_modules_of_the_wrong_type_are_a_save_error(modules):
    rules = interpreter.load("tictactoe")
    data = json.loads(rules.new_game(2, seed=1).to_json())
    data["modules"] = modules
    with pytest.raises(SaveError, match="modules"):
        State.from_json(rules, json.dumps(data))


def test_a_frame_of_an_unforeseen_shape_is_a_save_error():
    rules = interpreter.load("tictactoe")
    data = json.loads(rules.new_game(2, seed=1).to_json())
    data["state"]["stack"] = [["not", "a", "frame"]]
    with pytest.raises(SaveError, match="damaged"):
        State.from_json(rules, json.dumps(data))
