"""Training smoke run: a tabular learner written with numpy, trained through the Gymnasium
adapter, beats the random agent at tic-tac-toe within a bounded number of episodes (seeded)."""
import pytest

pytest.importorskip("gymnasium")
import numpy as np  # noqa: E402

import interpreter  # noqa: E402
from interpreter.adapters.gymnasium import RulebookEnv  # noqa: E402

EPISODES = 1500
EVALUATION_GAMES = 300


def _greedy(table, key, mask, rng, epsilon):
    legal = np.flatnonzero(mask)
    if rng.random() < epsilon or key not in table:
        return int(rng.choice(legal))
    values = table[key][legal]
    return int(legal[rng.choice(np.flatnonzero(values == values.max()))])


def _train(environment, rng):
    """Every-visit Monte Carlo control on (observation, action) with an epsilon-greedy policy."""
    table, counts = {}, {}
    for episode in range(EPISODES):
        observation, _ = environment.reset(seed=episode)
        visited, done, reward = [], False, 0.0
        while not done:
            key = observation["observation"].tobytes()
            action = _greedy(table, key, observation["action_mask"], rng, epsilon=0.3)
            visited.append((key, action))
            observation, reward, done, _, _ = environment.step(action)
        for key, action in visited:
            table.setdefault(key, np.zeros(environment.action_space.n))
            counts.setdefault(key, np.zeros(environment.action_space.n))
            counts[key][action] += 1
            table[key][action] += (reward - table[key][action]) / counts[key][action]
    return table


def _play(environment, policy, games):
    """(wins, draws, losses) of `policy` against the env's random opponent."""
    results = [0, 0, 0]
    for game in range(games):
        observation, _ = environment.reset(seed=100_000 + game)
        done, reward = False, 0.0
        while not done:
            observation, reward, done, _, _ = environment.step(policy(observation))
        results[0 if reward > 0 else 1 if reward == 0 else 2] += 1
    return results


def test_a_tabular_learner_beats_random_at_tictactoe():
    rs = interpreter.load("tictactoe")
    environment = RulebookEnv(rs, seat=0, opponents="random")
    rng = np.random.default_rng(0)
    table = _train(environment, rng)

    def learned(observation):
        return _greedy(table, observation["observation"].tobytes(), observation["action_mask"], rng, 0.0)

    def uniform(observation):
        return int(rng.choice(np.flatnonzero(observation["action_mask"])))

    trained = _play(environment, learned, EVALUATION_GAMES)
    baseline = _play(environment, uniform, EVALUATION_GAMES)
    # random against random: X wins about 58 %, loses about 29 %
    assert trained[0] > baseline[0] + 0.1 * EVALUATION_GAMES, (trained, baseline)
    assert trained[2] < baseline[2] / 2, (trained, baseline)
