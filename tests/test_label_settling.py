"""The Actions a reference game hands out keep the labels of the state they were listed in
(State._settle_labels), and the settling is skipped only for a ruleset none of whose action
labels reads the state (Ruleset.labels_read_state, found once per ruleset)."""
import random

import interpreter


def test_labels_read_state_is_found_from_the_action_labels():
    assert interpreter.load("tictactoe").labels_read_state is False  # "{cell}": the parameter only
    assert interpreter.load("kuhn-poker").labels_read_state is False
    corporate = interpreter.load("corporate-times")  # "buy share {hold(player, m) + 1} of ...": reads the state
    assert corporate.labels_read_state is True
    assert not corporate.actions["purchase"].label_static


def test_labels_listed_before_a_move_read_as_in_the_state_they_were_listed_in():
    ruleset = interpreter.load("corporate-times")
    rng = random.Random(7)
    state = ruleset.new_game(4, seed=7)
    compared = 0
    for _ in range(400):
        if state.is_terminal:
            break
        actions = state.legal_actions()
        before = state.copy()
        expected = [action.label for action in before.legal_actions()]
        chosen = actions[rng.randrange(len(actions))]
        assert state.apply(chosen)
        if any(not ruleset.actions[action.name].label_static for action in actions
               if action.name in ruleset.actions and ruleset.actions[action.name].label_parts):
            assert [action.label for action in actions] == expected  # read only now, after the move
            compared += 1
    assert compared > 10
