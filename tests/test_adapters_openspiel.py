"""The OpenSpiel adapter: OpenSpiel's random simulation test from the start on every bundled
ruleset at every player count (more games of each in the slow sweep), the exact
solve of tic-tac-toe against OpenSpiel's own, and CFR on Kuhn poker (which needs the engine's
chance nodes: skipped until they exist)."""
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import cfr, exploitability, expected_game_score  # noqa: E402
from open_spiel.python.algorithms import get_all_states, minimax  # noqa: E402

from interpreter.adapters.openspiel import has_chance_api, register  # noqa: E402

from adapters_support import CASES, rulesets  # noqa: E402,F401 (a fixture)


def _game(rs, players=None):
    return pyspiel.load_game(register(rs, players=players))


# How many random games OpenSpiel's simulation test plays from the start, per ruleset (3 when
# absent; the slow sweep plays 3 of every case). One game of Corporate Times at 5 players is
# ~1200 nodes, each asking every seat's information state and observation (tensor and string).
SIMULATIONS = {"global-mogul": 1, "corporate-times": 1}


@pytest.mark.parametrize("name,players", CASES)
def test_random_sim_test_every_player_count(rulesets, name, players):
    game = _game(rulesets[name], players)
    assert game.num_distinct_actions() > 0 and game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=SIMULATIONS.get(name, 3), serialize=False, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("name,players", CASES)
def test_random_sim_test_every_player_count_three_games(rulesets, name, players):
    pyspiel.random_sim_test(_game(rulesets[name], players), num_sims=3, serialize=False, verbose=False)


def test_game_type(rulesets):
    tictactoe = _game(rulesets["tictactoe"]).get_type()
    assert tictactoe.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert tictactoe.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert tictactoe.utility == pyspiel.GameType.Utility.ZERO_SUM
    kuhn = _game(rulesets["kuhn-poker"])
    assert kuhn.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert (kuhn.min_utility(), kuhn.max_utility()) == (-2.0, 2.0)
    assert kuhn.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC


def test_register_twice_gives_the_same_name(rulesets):
    assert register(rulesets["tictactoe"]) == register(rulesets["tictactoe"]) == "rulebook_tictactoe_2p"
    assert register(rulesets["tictactoe"], name="my_ttt") == "my_ttt"
    assert pyspiel.load_game("my_ttt").num_distinct_actions() == 9
    with pytest.raises(ValueError, match="already registered"):
        register(rulesets["kuhn-poker"], name="my_ttt")


def test_tictactoe_has_openspiels_5478_states(rulesets):
    ours = get_all_states.get_all_states(_game(rulesets["tictactoe"]), depth_limit=-1, include_terminals=True,
                                         include_chance_states=False, to_string=str)
    theirs = get_all_states.get_all_states(pyspiel.load_game("tic_tac_toe"), depth_limit=-1,
                                           include_terminals=True, include_chance_states=False, to_string=str)
    assert len(ours) == len(theirs) == 5478
    assert sum(s.is_terminal() for s in ours.values()) == sum(s.is_terminal() for s in theirs.values())


def test_tictactoe_solves_to_a_draw(rulesets):
    value, _ = minimax.alpha_beta_search(_game(rulesets["tictactoe"]), maximum_depth=10)
    assert value == 0.0


def _kuhn_states_by_cards(game):
    """Initial decision states of Kuhn poker, by (card of player 0, card of player 1)."""
    out = {}
    for _ in range(60):
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[len(out) % len(outcomes)][0])
        hands = state.engine.state.vars["hand"]
        out.setdefault((hands[0][0], hands[1][0]), state)
    return out


def test_kuhn_information_states_hide_the_other_card(rulesets):
    states = _kuhn_states_by_cards(_game(rulesets["kuhn-poker"]))
    assert states[("K", "J")].information_state_string(0) == states[("K", "Q")].information_state_string(0)
    assert states[("K", "J")].information_state_string(1) != states[("K", "Q")].information_state_string(1)
    assert states[("K", "J")].observation_tensor(0) == states[("K", "Q")].observation_tensor(0)


def test_kuhn_cfr_reaches_the_game_value(rulesets):
    rs = rulesets["kuhn-poker"]
    if not has_chance_api(rs):
        pytest.skip("needs the engine's chance nodes (state.is_chance / chance_outcomes / apply_chance)")
    game = _game(rs)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    solver = cfr.CFRPlusSolver(game)
    for _ in range(100):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    value = expected_game_score.policy_value(game.new_initial_state(), [average, average])[0]
    assert abs(value - (-1 / 18)) < 0.005, value
    assert exploitability.exploitability(game, average) < 0.01


def test_kuhn_information_state_tensor_hides_the_other_card(rulesets):
    game = _game(rulesets["kuhn-poker"])
    assert game.get_type().provides_information_state_tensor
    states = _kuhn_states_by_cards(game)
    size = game.information_state_tensor_size()
    assert size == len(states[("K", "J")].information_state_tensor(0)) > game.observation_tensor_size()
    assert states[("K", "J")].information_state_tensor(0) == states[("K", "Q")].information_state_tensor(0)
    assert states[("K", "J")].information_state_tensor(1) != states[("K", "Q")].information_state_tensor(1)
    after_bet = [s.clone() for s in (states[("K", "J")], states[("K", "Q")])]
    for state in after_bet:
        state.apply_action(next(a for a in state.legal_actions() if "bet" in state.action_to_string(a)))
    assert after_bet[0].information_state_tensor(0) == after_bet[1].information_state_tensor(0)
    assert after_bet[0].information_state_tensor(0) != states[("K", "J")].information_state_tensor(0)  # the bet is recalled


def test_the_history_window_is_a_registration_parameter(rulesets):
    default = _game(rulesets["kuhn-poker"])
    short = pyspiel.load_game(register(rulesets["kuhn-poker"], name="kuhn_window_4", history_window=4))
    assert short.information_state_tensor_size() < default.information_state_tensor_size()
    state = short.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
        assert len(state.information_state_tensor(0)) == short.information_state_tensor_size()
    with pytest.raises(ValueError, match="history window"):
        register(rulesets["kuhn-poker"], name="kuhn_window_4", history_window=8)


def test_strings_and_tensors_derived_once_per_node_are_the_fresh_ones(rulesets):
    """The adapter keeps what it derived at a node (shared with clones) and builds the history's
    text on from the previous node's: at every node of a random game, on the state and on a
    clone, each player's strings and tensors are exactly those computed from scratch."""
    import json
    import random

    import numpy as np

    from interpreter.adapters.infostate import known_information
    from interpreter.adapters.openspiel import _observation_text
    from adapters_support import openspiel_apply, openspiel_random_step

    game = _game(rulesets["davos"], 3)
    state, rng, nodes = game.new_initial_state(), random.Random(5), 0
    while True:
        engine, setup = state.engine.state, state.setup
        for node in (state, state.clone()):
            for player in range(3):
                known = known_information(engine, player)
                assert node.information_state_string(player) == json.dumps(known, sort_keys=True, default=str)
                assert np.array_equal(np.asarray(node.information_state_tensor(player), np.float32),
                                      np.asarray(setup.infostate.encode_info(known, player), np.float32))
                assert node.observation_string(player) == _observation_text(engine, player)
                assert np.array_equal(np.asarray(node.observation_tensor(player), np.float32),
                                      np.asarray(setup.layout.encode(engine, player), np.float32))
        nodes += 1
        if state.is_terminal():
            break
        openspiel_apply(state, openspiel_random_step(state, rng))
    assert nodes > 20
