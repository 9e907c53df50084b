"""The labels of a `choose`'s options (tests/rulesets/choice_labels): a label that fails shows the
plain label with its reason and the move goes on (issue 16.11, as an action's label), a label's
work is bounded on its own and never charged to the step, and the compiled engine, which renders
only the labels that are read, gives the reference's text, history and games
(tests/test_compiled.py plays the ruleset step by step too)."""
import os
import random

from interpreter import load

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "tests", "rulesets", "choice_labels")


def _at_decision(state, action_id: str) -> None:
    """Make the move `action_id` (its decision then waits)."""
    (move,) = [action for action in state.legal_actions() if action.name == action_id]
    assert state.apply(move)


def test_a_failing_option_label_shows_its_reason_and_the_move_goes_on():
    ruleset = load(FOLDER)
    for engine in ("reference", "compiled"):
        state = ruleset.new_game(2, seed=1, engine=engine)
        _at_decision(state, "give")
        labels = [action.label for action in state.legal_actions()]
        assert labels[0].startswith("choose 0 (label error at ") and "division by zero" in labels[0], engine
        assert "game.yaml:27:" in labels[0]
        assert labels[1:] == ["give 1 of 4 (12 each)", "give 2 of 4 (6 each)", "give 3 of 4 (4 each)",
                              "give 4 of 4 (3 each)"]
        assert state.apply(state.legal_actions()[0])  # the option whose label failed
        assert state.vars["turns"] == 1 and state.vars["stock"][0] == 4


def test_an_option_label_is_bounded_on_its_own_and_not_charged_to_the_step():
    ruleset = load(FOLDER)
    limit = ruleset.budget.limit
    try:
        ruleset.budget.limit = 30  # the heavy label builds 40 elements; the move itself far fewer
        for engine in ("reference", "compiled"):
            state = ruleset.new_game(2, seed=2, engine=engine)
            _at_decision(state, "weigh")
            light, heavy = [action.label for action in state.legal_actions()]
            assert light == "light: 0 counted"
            assert heavy.startswith("choose heavy (label error") and "work bound of 30" in heavy, (engine, heavy)
            assert state.apply(state.legal_actions()[1])
            assert state.vars["work"] == 41
        ruleset.budget.limit = 50  # within the bound: the label is rendered whatever the step spent
        state = ruleset.new_game(2, seed=2, engine="compiled")
        _at_decision(state, "weigh")
        assert [action.label for action in state.legal_actions()] == ["light: 0 counted", "heavy: 40 counted"]
    finally:
        ruleset.budget.limit = limit


def test_labels_read_one_at_a_time_or_never_give_the_reference_history():
    """Through ids no label is read at a decision; through legal_action(i) only the one picked:
    the history keeps each answer's label, and the Actions handed out keep theirs after the move."""
    ruleset = load(FOLDER)
    for players in (2, 3):
        for seed in range(6):
            reference = ruleset.new_game(players, seed=seed)
            by_ids = ruleset.new_game(players, seed=seed, engine="compiled")
            one_by_one = ruleset.new_game(players, seed=seed, engine="compiled")
            rng = random.Random(seed)
            while not reference.is_terminal:
                expected = reference.legal_actions()
                index = rng.randrange(len(expected))
                picked = one_by_one.legal_action(index)
                assert picked.label == expected[index].label
                assert reference.apply(expected[index]) and by_ids.apply_id(index) and one_by_one.apply(picked)
                assert by_ids.hash() == one_by_one.hash() == reference.hash()
                assert picked.label == expected[index].label  # the label of the position it was listed in
            assert by_ids.history() == one_by_one.history() == reference.history()
            assert by_ids.is_terminal and one_by_one.is_terminal


def test_vars_changed_at_a_decision_leave_its_labels_as_they_were():
    """The reference renders a decision's labels when it opens; the compiled engine renders them
    before anyone can change the vars it hands out (`vars`, then `touched()`)."""
    ruleset = load(FOLDER)
    labels = {}
    for engine in ("reference", "compiled"):
        state = ruleset.new_game(2, seed=1, engine=engine)
        _at_decision(state, "give")
        state.vars["stock"][0] = 2
        state.touched()
        labels[engine] = [action.label for action in state.legal_actions()]
    assert labels["compiled"] == labels["reference"]
    assert labels["reference"][1:] == ["give 1 of 4 (12 each)", "give 2 of 4 (6 each)", "give 3 of 4 (4 each)",
                                       "give 4 of 4 (3 each)"]
