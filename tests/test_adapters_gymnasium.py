"""The Gymnasium adapter passes Gymnasium's env checker on every bundled ruleset."""
import warnings

import pytest

pytest.importorskip("gymnasium")
import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from interpreter.adapters.gymnasium import RulebookEnv, make_env  # noqa: E402

from adapters_support import CASES, rulesets  # noqa: E402,F401 (a fixture)


@pytest.mark.parametrize("name,players", CASES)
def test_check_env(rulesets, name, players):
    with warnings.catch_warnings():
        # scores have no declared bound: the vector is unscaled and its Box unbounded
        warnings.filterwarnings("ignore", message=".*Box observation space m")
        warnings.filterwarnings("ignore", message=".*Not able to test alternative render modes")
        check_env(RulebookEnv(rulesets[name], players, render_mode="ansi"))


@pytest.mark.parametrize("opponents", ["random", "greedy", "mcts:20"])
def test_a_whole_game_against_each_agent(rulesets, opponents):
    environment = RulebookEnv(rulesets["tictactoe"], seat=1, opponents=opponents)
    observation, _ = environment.reset(seed=0)
    assert environment.state.current_player == 1  # the opponent (X) has already moved
    rng = np.random.default_rng(0)
    done, reward, steps = False, 0.0, 0
    while not done:
        mask = environment.action_masks()
        assert (mask == observation["action_mask"].astype(bool)).all() and mask.any()
        observation, reward, done, truncated, _ = environment.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        assert not truncated
    assert reward in (-1.0, 0.0, 1.0) and 1 <= steps <= 5


def test_an_illegal_id_ends_the_episode(rulesets):
    environment = RulebookEnv(rulesets["tictactoe"])
    observation, _ = environment.reset(seed=0)
    environment.step(4)
    observation, reward, done, _, info = environment.step(4 if environment.state.vars["board"][4] else 0)
    if not info.get("illegal"):  # the random opponent took cell 0: play 4 again
        observation, reward, done, _, info = environment.step(4)
    assert (reward, done, info.get("illegal")) == (-1.0, True, True)


def test_one_opponent_per_seat_and_by_name():
    environment = make_env("davos", players=3, seat=2, opponents=["greedy", "random"])
    environment.reset(seed=5)
    assert environment.state.current_player == 2 or environment.state.is_terminal
    with pytest.raises(ValueError, match="one opponent per other seat"):
        make_env("davos", players=3, opponents=["random"])
    with pytest.raises(ValueError, match="built-in agents"):
        make_env("tictactoe", opponents="human").reset(seed=0)
