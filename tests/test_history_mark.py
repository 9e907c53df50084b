"""`State.history_mark` (docs/api.md): the public way to tell that a game moved on, on both
engines. It changes with every move applied, is shared by a copy until the copy plays on, and
undo gives the earlier one back; the OpenSpiel adapter keys what it derives per node on it
instead of reading the engine's private history."""
import os
import random

import pytest

from interpreter import load

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# tic-tac-toe is played by the generated code throughout; subturns hands moves to the reference
CASES = [("tictactoe", 2), ("kuhn-poker", 2), (os.path.join(ROOT, "tests", "rulesets", "subturns"), 2),
         (os.path.join(ROOT, "tests", "rulesets", "proc_param_choose"), 2)]


@pytest.mark.parametrize("engine", ["reference", "compiled"])
@pytest.mark.parametrize("name,players", CASES, ids=[os.path.basename(name) for name, _ in CASES])
def test_the_mark_changes_with_each_move_and_comes_back_with_undo(name, players, engine):
    ruleset = load(name)
    for seed in range(3):
        state = ruleset.new_game(players, seed=seed, engine=engine)
        chooser = random.Random(seed)
        marks = []
        while not state.is_terminal and len(marks) < 40:
            before = state.history_mark
            assert state.history_mark is before  # reading it changes nothing
            copy = state.copy()
            assert copy.history_mark is before
            assert state.apply_id(chooser.randrange(len(state.legal_action_ids())))
            assert state.history_mark is not before
            assert copy.history_mark is before  # the copy has not played on
            marks.append(before)
        for earlier in reversed(marks):
            later = state.history_mark
            assert state.undo(1)
            assert state.history_mark is not later
            if engine == "reference":  # (the compiled game may have made a new one for the position)
                assert state.history_mark is earlier


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_refused_move_keeps_the_mark(engine):
    state = load("tictactoe").new_game(2, seed=0, engine=engine)
    mark = state.history_mark
    assert not state.apply("no such move")
    assert state.history_mark is mark


def test_the_openspiel_adapter_reads_no_private_history():
    """(the adapter used to read `state._history`)"""
    with open(os.path.join(ROOT, "interpreter", "adapters", "openspiel.py"), encoding="utf-8") as source:
        text = source.read()
    assert "._history" not in text and "history_mark" in text
