"""The PettingZoo parallel adapter (issue 12, item 4): `parallel_env` passes PettingZoo's own
`parallel_api_test` on the simultaneous test rulesets and on bundled ones, plays seeded random
games to the end, steps only the agents who must act, and never shows one player's choice to
another before the rules reveal it."""
import os
import warnings

import pytest

pytest.importorskip("pettingzoo")
import numpy as np  # noqa: E402
from pettingzoo.test import parallel_api_test  # noqa: E402

import interpreter  # noqa: E402
from interpreter.adapters.pettingzoo import parallel_env  # noqa: E402
from interpreter.adapters.returns import utility_of  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(name):
    return interpreter.load(os.path.join(HERE, "rulesets", name))


def _api_test(environment, cycles=50):
    with warnings.catch_warnings():
        # the classic convention (a dict with observation and action_mask) draws these
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.simplefilter("error")  # any other warning of the API test is a failure
        parallel_api_test(environment, num_cycles=cycles)


@pytest.mark.parametrize("name,players", [("sealed_bid", 2), ("sealed_bid", 3), ("goofspiel", 2),
                                          ("goofspiel", 3), ("draft", 3)])
def test_parallel_api_test_on_simultaneous_rulesets(name, players):
    _api_test(parallel_env(_load(name), players=players))


@pytest.mark.parametrize("name,modules,players", [("kuhn-poker", (), 2), ("deep-state", (), 3),
                                                  ("deep-state", ("draft",), 2), ("deep-state", ("draft",), 3),
                                                  ("deep-state", ("draft",), 4)])
def test_parallel_api_test_on_bundled_rulesets(name, modules, players):
    # kuhn-poker and base deep-state are sequential (one agent acts per step); deep-state's draft
    # module drafts simultaneously
    _api_test(parallel_env(name, modules=modules, players=players), cycles=30)


def _random_game(environment, seed):
    """A seeded random game through the env: [(acting agents, actions)] and the last rewards."""
    rng = np.random.default_rng(seed)
    observations, infos = environment.reset(seed=seed)
    steps, rewards = [], {}
    while environment.agents:
        acting = sorted(agent for agent in environment.agents if infos[agent]["must_act"])
        for agent in environment.agents:
            assert (observations[agent]["action_mask"].sum() > 0) == (agent in acting)
        actions = {agent: int(rng.choice(np.flatnonzero(observations[agent]["action_mask"])))
                   for agent in acting}
        steps.append((acting, actions))
        observations, rewards, terminations, truncations, infos = environment.step(actions)
        assert not any(truncations.values())
    assert all(terminations.values())
    return steps, rewards


def test_seeded_random_goofspiel_to_the_end():
    environment = parallel_env(_load("goofspiel"), players=3)
    steps, rewards = _random_game(environment, seed=4)
    # five rounds, every player bidding in each of them at once
    assert [acting for acting, _ in steps] == [["player_0", "player_1", "player_2"]] * 5
    assert environment.state.is_terminal
    assert list(rewards.values()) == utility_of(environment.state, environment.utility.mode)
    assert sum(environment.state.vars["points"]) <= 15
    assert _random_game(parallel_env(_load("goofspiel"), players=3), seed=4) == (steps, rewards)


def test_seeded_random_sequential_game_steps_one_agent_at_a_time():
    environment = parallel_env("kuhn-poker")
    steps, rewards = _random_game(environment, seed=2)
    assert all(len(acting) == 1 for acting, _ in steps) and len(steps) >= 2
    assert sum(rewards.values()) == 0


def test_entries_of_agents_who_do_not_act_are_ignored():
    environment = parallel_env("kuhn-poker")
    observations, infos = environment.reset(seed=0)
    acting = [agent for agent in environment.agents if infos[agent]["must_act"]]
    assert len(acting) == 1
    other = [agent for agent in environment.agents if agent not in acting][0]
    assert observations[other]["action_mask"].sum() == 0
    legal = int(np.flatnonzero(observations[acting[0]]["action_mask"])[0])
    first = parallel_env("kuhn-poker")
    first.reset(seed=0)
    first.step({acting[0]: legal})
    environment.step({acting[0]: legal, other: 12345})  # ignored: not their turn
    assert environment.state.hash() == first.state.hash()


def test_a_missing_or_illegal_action_is_refused_with_the_state_unchanged():
    environment = parallel_env(_load("sealed_bid"), players=2)
    observations, _ = environment.reset(seed=0)
    before = environment.state.hash()
    legal = int(np.flatnonzero(observations["player_0"]["action_mask"])[0])
    with pytest.raises(ValueError, match="player_1 must act now"):
        environment.step({"player_0": legal})
    illegal = environment.space.size  # no action has this id
    with pytest.raises(ValueError, match="not legal"):
        environment.step({"player_0": legal, "player_1": illegal})
    assert environment.state.hash() == before and environment.state.current_players == [0, 1]


def test_the_second_bidder_sees_the_same_whatever_the_first_bid():
    """Before the reveal: player 1's observation, mask and info are the same whichever amount
    player 0 has already sealed (the engine holds it, the env shows nothing of it)."""
    seen = []
    for amount in (1, 2, 3):
        environment = parallel_env(_load("sealed_bid"), players=3)
        environment.reset(seed=0)
        bid = [a for a in environment.state.legal_actions(0) if dict(a.args)["amount"] == amount][0]
        assert environment.state.apply(bid)
        view = environment.observe("player_1")
        seen.append((view["observation"].tobytes(), view["action_mask"].tobytes(),
                     environment._infos(["player_1"]), environment.render()))
    assert seen[0] == seen[1] == seen[2]


def test_after_a_step_the_bids_show_only_once_all_are_in():
    """One step applies every bid at once and the rules resolve the round; the higher bid (2, gaining 3 - 2) is paid more than the lower."""
    environment = parallel_env(_load("sealed_bid"), players=2)
    observations, _ = environment.reset(seed=0)
    space = environment.space
    ids = {agent: [n for n in np.flatnonzero(observations[agent]["action_mask"])
                   if space.describe(int(n)).endswith(f"amount={amount})")][0]
           for agent, amount in (("player_0", 2), ("player_1", 1))}
    _, rewards, terminations, _, _ = environment.step(ids)
    assert environment.state.vars["shown"] == [2, 1] and all(terminations.values())
    assert rewards["player_0"] > rewards["player_1"] and environment.agents == []
