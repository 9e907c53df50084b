"""OpenSpiel games of rulesets with simultaneous moves (issue 12, item 3): the game type says
SIMULTANEOUS; at a node where several players choose at once `current_player()` is
PlayerId.SIMULTANEOUS and every seat gives an id to `apply_actions` (a seat not to choose there
has only the pass id); the game's other nodes keep one current player. OpenSpiel's own random
simulation test passes, OpenSpiel's algorithms for simultaneous games run through
`convert_to_turn_based`, and no tensor or string shows a seat's pending choice to another."""
import os
import random

import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import cfr, exploitability, outcome_sampling_mccfr  # noqa: E402

import interpreter  # noqa: E402
from interpreter.adapters.encoding import ActionSpace  # noqa: E402
from interpreter.adapters.openspiel import register  # noqa: E402

from adapters_support import openspiel_apply, openspiel_random_step  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SIMULTANEOUS = pyspiel.PlayerId.SIMULTANEOUS


def _game(name, players, modules=()):
    path = os.path.join(HERE, "rulesets", name)
    rs = interpreter.load(path if os.path.isdir(path) else name, modules)
    return pyspiel.load_game(register(rs, players=players))


@pytest.mark.parametrize("name,players", [("sealed_bid", 2), ("sealed_bid", 3), ("goofspiel", 2),
                                          ("goofspiel", 3), ("draft", 2), ("draft", 3), ("bystander", 3)])
def test_random_sim_test_on_simultaneous_rulesets(name, players):
    game = _game(name, players)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_dynamics_follow_the_rules():
    assert _game("deep-state", 3, ("draft",)).get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    for name, players in [("tictactoe", 2), ("kuhn-poker", 2), ("deep-state", 3), ("secret_bid", 2)]:
        assert _game(name, players).get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL, name


def test_deep_state_draft_has_simultaneous_and_sequential_nodes():
    game = _game("deep-state", 3, ("draft",))
    state, rng, kinds = game.new_initial_state(), random.Random(3), set()
    while not state.is_terminal():
        player = state.current_player()
        kinds.add("simultaneous" if player == SIMULTANEOUS else "chance" if player == pyspiel.PlayerId.CHANCE
                  else "sequential")
        if player == SIMULTANEOUS:
            assert all(state.legal_actions(seat) for seat in range(3))
        elif player >= 0:
            assert [seat for seat in range(3) if state.legal_actions(seat)] == [player]
        openspiel_apply(state, openspiel_random_step(state, rng))
    assert kinds == {"simultaneous", "sequential", "chance"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_test_on_deep_state_with_its_draft(players):
    pyspiel.random_sim_test(_game("deep-state", players, ("draft",)), num_sims=1, serialize=False, verbose=False)


def test_a_seat_that_sits_out_has_only_the_pass_id():
    game = _game("bystander", 3)
    size = ActionSpace(interpreter.load(os.path.join(HERE, "rulesets", "bystander")), 3).size
    assert game.num_distinct_actions() == size + 1
    state = game.new_initial_state()
    assert state.current_player() == 0 and state.legal_actions(1) == [] == state.legal_actions(2)
    state.apply_action(state.legal_actions(0)[0])  # hide 1
    assert state.current_player() == SIMULTANEOUS
    assert state.legal_actions(0) == [size] and state.action_to_string(0, size).startswith("pass")
    guesses = state.legal_actions(1)
    assert guesses == state.legal_actions(2) and len(guesses) == 2
    assert state.legal_actions() == [0, 1, 2, 3]  # OpenSpiel's flat joint actions: 1 x 2 x 2
    joint = state.clone()
    joint.apply_action(3)  # flat: seat 0 least significant -> guess 2, guess 2
    state.apply_actions([size, guesses[1], guesses[1]])
    assert state.is_terminal() and state.returns() == joint.returns()
    assert str(state) == str(joint)


def test_an_illegal_joint_action_is_refused_with_the_state_unchanged():
    game = _game("sealed_bid", 2)
    state = game.new_initial_state()
    assert state.current_player() == SIMULTANEOUS
    before = str(state)
    bids = state.legal_actions(0)
    for wrong in ([bids[0], 99], [game.num_distinct_actions() - 1, bids[0]], [bids[0]]):
        with pytest.raises(pyspiel.SpielError):
            state.apply_actions(wrong)
        assert str(state) == before and state.history() == []
    with pytest.raises(pyspiel.SpielError):
        state.apply_action(len(state.legal_actions()))  # no such flat joint action
    state.apply_actions([bids[0], bids[1]])
    assert state.is_terminal()


def test_cfr_solves_the_sealed_bid_through_the_turn_based_transform():
    game = pyspiel.convert_to_turn_based(_game("sealed_bid", 2))
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    solver = cfr.CFRSolver(game)
    for _ in range(200):
        solver.evaluate_and_update_policy()
    assert exploitability.nash_conv(game, solver.average_policy()) < 0.01


def test_goofspiel_runs_outcome_sampling_mccfr_and_hides_the_pending_bid():
    game = pyspiel.convert_to_turn_based(_game("goofspiel", 2))
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(20):
        solver.iteration()
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 0
    policy = solver.average_policy().action_probabilities(state)
    assert set(policy) == set(state.legal_actions()) and abs(sum(policy.values()) - 1) < 1e-9
    # seat 0 has chosen in the transform's rollout; seat 1, to choose next, cannot tell what
    children = [state.child(bid) for bid in state.legal_actions()]
    assert all(child.current_player() == 1 for child in children)
    for view in ("information_state_string", "information_state_tensor", "observation_string", "observation_tensor"):
        assert len({str(getattr(child, view)(1)) for child in children}) == 1, view
    assert len({child.information_state_string(0) for child in children}) == len(children)


def test_bids_show_to_nobody_until_all_are_in_then_to_all():
    game = _game("goofspiel", 3)
    turn_based = pyspiel.convert_to_turn_based(game)
    state = turn_based.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    bids = state.legal_actions()
    pending = []  # seats 0 and 1 have chosen in the rollout, seat 2 is to choose
    for first in bids[:3]:
        for second in bids[:2]:
            child = state.child(first)
            child.apply_action(second)
            assert child.current_player() == 2
            pending.append(child)
    for view in ("information_state_tensor", "observation_tensor", "information_state_string"):
        assert len({str(getattr(child, view)(2)) for child in pending}) == 1, view
    # in the game itself the three bids are applied at once and then revealed to every seat
    original = game.new_initial_state()
    while original.is_chance_node():
        original.apply_action(original.chance_outcomes()[0][0])
    assert original.current_player() == SIMULTANEOUS
    hands = [original.legal_actions(seat) for seat in range(3)]
    revealed = [original.clone() for _ in range(3)]
    for child, first in zip(revealed, hands[0][:3]):
        child.apply_actions([first, hands[1][0], hands[2][0]])
    assert len({str(child.information_state_tensor(2)) for child in revealed}) == 3
