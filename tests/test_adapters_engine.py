"""The adapters' `engine=` keyword: "compiled" plays the ruleset's generated module, and every
agent gets exactly what it gets on the reference engine (the default): the same observation
vectors, masks, rewards, terminations and infos at every step of seeded random episodes
(PettingZoo AEC and parallel, Gymnasium, OpenSpiel); PettingZoo's own API test passes on it; an
unknown engine is refused; OpenSpiel's explicit chance nodes stay on the reference engine."""
import os
import random
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from adapters_support import BUNDLED, CASES, rulesets  # noqa: E402,F401 (a fixture)

from interpreter.adapters.gymnasium import RulebookEnv  # noqa: E402
from interpreter.adapters.pettingzoo import env, parallel_env  # noqa: E402
from interpreter.compiled.game import CompiledState  # noqa: E402
from interpreter.engine import State  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _same(first, second, where):
    """Two adapter outputs (dicts, lists, tuples, arrays, numbers) equal, arrays element for element."""
    if isinstance(first, dict):
        assert list(first) == list(second), where
        for key in first:
            _same(first[key], second[key], (where, key))
    elif isinstance(first, (list, tuple)):
        assert type(first) is type(second) and len(first) == len(second), where
        for index, (mine, theirs) in enumerate(zip(first, second)):
            _same(mine, theirs, (where, index))
    elif isinstance(first, np.ndarray):
        assert first.dtype == second.dtype and np.array_equal(first, second), where
    else:
        assert first == second, where


def _aec_episode(environment, seed):
    """Everything a random AEC agent sees along one seeded episode."""
    rng = random.Random(seed)
    environment.reset(seed=seed)
    seen = []
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, info = environment.last()
        seen.append((agent, observation, reward, terminated, truncated, info))
        mask = np.flatnonzero(observation["action_mask"])
        environment.step(None if terminated or truncated else int(mask[rng.randrange(len(mask))]))
    return seen


@pytest.mark.parametrize("name,players", CASES)
def test_the_aec_env_on_the_compiled_engine_shows_what_it_shows_on_the_reference(rulesets, name, players):
    reference = env(rulesets[name], players=players)
    compiled = env(rulesets[name], players=players, engine="compiled")
    for seed in range(2):
        _same(_aec_episode(compiled, seed), _aec_episode(reference, seed), (name, players, seed))
    assert type(compiled.unwrapped.state) is CompiledState and type(reference.unwrapped.state) is State


@pytest.mark.parametrize("name,players", [("tictactoe", 2), ("davos", 4), ("deep-state", 3)])
def test_pettingzoo_api_test_on_the_compiled_engine(rulesets, name, players):
    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(env(rulesets[name], players=players, engine="compiled"), num_cycles=30)


def _parallel_episode(environment, seed):
    rng = random.Random(seed)
    observations, infos = environment.reset(seed=seed)
    seen = [(observations, infos)]
    while environment.agents:
        actions = {}
        for agent in environment.agents:
            mask = np.flatnonzero(observations[agent]["action_mask"])
            if len(mask):
                actions[agent] = int(mask[rng.randrange(len(mask))])
        observations, *rest = environment.step(actions)
        seen.append((observations, *rest))
    return seen


@pytest.mark.parametrize("name,players", [("tictactoe", 2), ("kuhn-poker", 2), ("goofspiel", 2), ("sealed_bid", 3)])
def test_the_parallel_env_on_the_compiled_engine_shows_what_it_shows_on_the_reference(name, players):
    import interpreter

    ruleset = interpreter.load(name if name in BUNDLED else os.path.join(HERE, "rulesets", name))
    for seed in range(3):
        _same(_parallel_episode(parallel_env(ruleset, players=players, engine="compiled"), seed),
              _parallel_episode(parallel_env(ruleset, players=players), seed), (name, seed))


def _gymnasium_episode(environment, seed):
    rng = random.Random(seed)
    observation, info = environment.reset(seed=seed)
    seen = [(observation, info)]
    done = False
    while not done:
        mask = np.flatnonzero(observation["action_mask"])
        observation, reward, done, truncated, info = environment.step(int(mask[rng.randrange(len(mask))]))
        seen.append((observation, reward, done, truncated, info))
    return seen


@pytest.mark.parametrize("name,players", [("tictactoe", 2), ("kuhn-poker", 2), ("davos", 4), ("deep-state", 3)])
def test_the_gymnasium_env_on_the_compiled_engine_shows_what_it_shows_on_the_reference(rulesets, name, players):
    for seed in range(2):
        _same(_gymnasium_episode(RulebookEnv(rulesets[name], players, seat=1, engine="compiled"), seed),
              _gymnasium_episode(RulebookEnv(rulesets[name], players, seat=1), seed), (name, seed))


def test_openspiel_plays_the_compiled_engine_without_chance_nodes_and_the_reference_with_them(rulesets):
    pyspiel = pytest.importorskip("pyspiel")
    from interpreter.adapters.openspiel import register

    game = pyspiel.load_game(register(rulesets["tictactoe"], name="engine_ttt_compiled", engine="compiled"))
    reference = pyspiel.load_game(register(rulesets["tictactoe"], name="engine_ttt_reference"))
    rng = random.Random(4)
    state, expected = game.new_initial_state(), reference.new_initial_state()
    assert type(state.engine.state) is CompiledState
    while not expected.is_terminal():
        for player in range(2):
            assert state.observation_string(player) == expected.observation_string(player)
            assert state.information_state_string(player) == expected.information_state_string(player)
            assert np.array_equal(state.observation_tensor(player), expected.observation_tensor(player))
        assert state.legal_actions() == expected.legal_actions()
        action = rng.choice(expected.legal_actions())
        state.apply_action(action)
        expected.apply_action(action)
    assert state.is_terminal() and state.returns() == expected.returns()
    kuhn = pyspiel.load_game(register(rulesets["kuhn-poker"], name="engine_kuhn_compiled", engine="compiled"))
    assert kuhn.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert type(kuhn.new_initial_state().engine.state) is State  # chance nodes: the reference engine's only


def test_the_same_name_for_another_engine_is_refused(rulesets):
    pytest.importorskip("pyspiel")
    from interpreter.adapters.openspiel import register

    register(rulesets["tictactoe"], name="engine_ttt_once")
    with pytest.raises(ValueError, match="engine"):
        register(rulesets["tictactoe"], name="engine_ttt_once", engine="compiled")


def test_an_unknown_engine_is_refused(rulesets):
    for make in (lambda: env(rulesets["tictactoe"], engine="fast"),
                 lambda: parallel_env(rulesets["tictactoe"], engine="fast"),
                 lambda: RulebookEnv(rulesets["tictactoe"], engine="fast")):
        with pytest.raises(ValueError, match="engine is one of reference, compiled"):
            make()
