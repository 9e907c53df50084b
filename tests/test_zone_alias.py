"""A move through a zone named by a parameter, a `let` or a define changes the var's own list;
when the move is then refused, both engines put the var back (the compiled engine's undo log
saves every var before such a zone changes: compiled/blocks.py `save_zone_vars`)."""
import os

import pytest

import interpreter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULESET = os.path.join(ROOT, "tests", "rulesets", "zone_alias")


@pytest.mark.parametrize("engine", ["reference", "compiled"])
@pytest.mark.parametrize("label", ["give up a card, then change your mind",
                                   "drop a card through a let, then change your mind",
                                   "drop a card through a define, then change your mind"])
def test_a_refused_move_through_an_aliased_zone_leaves_the_var_as_it_was(engine, label):
    ruleset = interpreter.load(RULESET, settings={"change_mind": 1})
    state = ruleset.new_game(2, seed=1, engine=engine)
    before = state.hash()
    action = next(action for action in state.legal_actions() if action.label == label)
    outcome = state.apply(action)
    assert not outcome and "changed my mind" in outcome.reason
    assert state.hash() == before
    assert [state.scores()[seat]["total"] for seat in (0, 1)] == [3, 3]
    reference = ruleset.new_game(2, seed=1)
    assert state.apply(next(a for a in state.legal_actions() if a.label == "pass"))
    assert reference.apply(next(a for a in reference.legal_actions() if a.label == "pass"))
    assert state.hash() == reference.hash()
