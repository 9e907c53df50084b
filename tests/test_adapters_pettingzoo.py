"""The PettingZoo adapter passes PettingZoo's own API test on every bundled ruleset."""
import warnings

import pytest

pytest.importorskip("pettingzoo")
import numpy as np  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

import interpreter  # noqa: E402
from interpreter.adapters.pettingzoo import env, raw_env  # noqa: E402

from adapters_support import BUNDLED, CASES, rulesets  # noqa: E402,F401 (a fixture)


def _api_test(environment, cycles):
    with warnings.catch_warnings():
        # the classic convention (a dict with observation and action_mask) draws these
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(environment, num_cycles=cycles)


@pytest.mark.parametrize("name,players", CASES)
def test_api_test(rulesets, name, players):
    _api_test(env(rulesets[name], players=players), cycles=10)


@pytest.mark.slow
@pytest.mark.parametrize("name", BUNDLED)
def test_api_test_every_module_combination(name):
    base = interpreter.load(name)
    for combo in base.combinations or [{"modules": [], "players": list(base.players)}]:
        rs = interpreter.load(name, combo.get("modules") or [])
        for players in combo.get("players") or rs.players:
            _api_test(env(rs, players=players), cycles=200)


def test_tictactoe_game_through_the_env(rulesets):
    environment = raw_env(rulesets["tictactoe"])
    environment.reset(seed=1)
    # X takes the top row while O plays the middle row
    for cell in (0, 3, 1, 4, 2):
        agent = environment.agent_selection
        observation = environment.observe(agent)
        assert observation["action_mask"][cell] == 1
        assert environment.observe([a for a in environment.agents if a != agent][0])["action_mask"].sum() == 0
        environment.step(cell)
    assert all(environment.terminations.values())
    assert environment._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}


def test_the_mask_matches_the_legal_actions(rulesets):
    environment = raw_env(rulesets["davos"], players=3)
    environment.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(30):
        agent = environment.agent_selection
        if environment.terminations[agent]:
            break
        mask = environment.observe(agent)["action_mask"]
        assert mask.sum() == len(set(environment.state.legal_actions()))
        environment.step(int(rng.choice(np.flatnonzero(mask))))


def test_render_shows_no_secret(rulesets):
    environment = raw_env(rulesets["kuhn-poker"], render_mode="ansi")
    environment.reset(seed=0)
    text = environment.render()
    hands = environment.state.vars["hand"]
    assert '"hidden"' in text and all(f'"{hand[0]}"' not in text for hand in hands)


def test_bad_arguments_are_refused(rulesets):
    with pytest.raises(ValueError, match="players"):
        raw_env(rulesets["tictactoe"], players=3)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(rulesets["tictactoe"], render_mode="rgb_array")
