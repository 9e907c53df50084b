"""Worlds kept from one decision to the next (`State.determinize_from`, MCTS's particle filter),
another player's `choose` answer unmasked once the rules reveal it, and MCTS at a simultaneous
node choosing for every seat independently (issue 9, item 3)."""
from __future__ import annotations

import os

import pytest

import interpreter
from interpreter.agents import MCTSAgent

HERE = os.path.dirname(os.path.abspath(__file__))


def _kuhn(card_of_0, card_of_1):
    ruleset = interpreter.load("kuhn-poker")
    for seed in range(200):
        state = ruleset.new_game(2, seed=seed)
        if state.vars["hand"] == [[card_of_0], [card_of_1]]:
            return state
    raise AssertionError("no seed deals these cards")


def _played_on(state, moves):
    later = state.copy()
    for move in moves:
        assert later.apply(move)
    return later


# ----------------------------------------------------------------------------- worlds played on
def test_a_world_played_on_is_consistent_with_what_the_player_saw_since():
    start = _kuhn("K", "J")
    world = start.determinize(0, 5)
    later = _played_on(start, ["check", "bet 1"])
    played_on = later.determinize_from(world, 0, 6)
    assert played_on is not None and played_on.replayed
    assert played_on.observe(0) == later.observe(0)
    assert played_on.information_state(0) == later.information_state(0)
    assert played_on.vars["hand"][0] == ["K"]  # the player's own card, as seen


def test_a_world_of_another_player_or_game_is_not_played_on():
    start = _kuhn("K", "J")
    later = _played_on(start, ["check", "bet 1"])
    assert later.determinize_from(start.determinize(1, 5), 0, 6) is None  # drawn for player 1
    other_game = _kuhn("Q", "J")
    assert later.determinize_from(other_game.determinize(0, 5), 0, 6) is None
    assert later.determinize_from(start.copy(), 0, 6) is None  # not a drawn world


def test_a_world_that_contradicts_a_later_observation_is_dropped():
    """Player 1 holds a 3 and cannot see player 0's 6. Worlds drawn then hold any die for
    player 0; once a call of 'liar' on a bid of 9 shows the bid held, only a 6 fits."""
    ruleset = interpreter.load(os.path.join(HERE, "rulesets", "hidden_die"))
    state = ruleset.new_game(2, chance="manual")
    assert state.apply_chance(6) and state.apply_chance(3)
    worlds = [state.determinize(1, seed) for seed in range(12)]
    assert {world.vars["die"][0] for world in worlds} != {6}
    later = _played_on(state, ["bid 4", "bid 7", "bid 9", "liar"])
    assert later.is_terminal and later.vars["won"] == [1, 0]
    played_on = [later.determinize_from(world, 1, 7) for world in worlds]
    assert [world is not None for world in played_on] == [world.vars["die"][0] == 6 for world in worlds]
    assert all(world.vars["die"][0] == 6 for world in played_on if world is not None)


@pytest.mark.parametrize("cards", [("K", "J"), ("K", "Q")])
def test_mcts_keeps_worlds_but_not_the_secret(cards):
    """Two decisions of one agent in one game: the choices are the same whatever the hidden
    card (the kept worlds hold only what the player saw)."""
    def choices(card_of_1, seed):
        agent = MCTSAgent(seed, iterations=30)
        start = _kuhn("K", card_of_1)
        first = agent.act(start, 0)
        later = _played_on(start, ["check", "bet 1"])
        return first.key, agent.act(later, 0).key

    for seed in range(3):
        assert choices(cards[1], seed) == choices("Q" if cards[1] == "J" else "J", seed)


def test_mcts_plays_its_worlds_on():
    agent = MCTSAgent(1, iterations=30)
    start = _kuhn("K", "J")
    agent.act(start, 0)
    first_worlds = list(agent._kept[0])
    later = _played_on(start, ["check", "bet 1"])
    agent.act(later, 0)
    assert all(world.replayed and world.observe(0) == later.observe(0) for world in agent._kept[0])
    assert all(world is not earlier for world, earlier in zip(agent._kept[0], first_worlds))


# ----------------------------------------------------------------------------- answers revealed later
def _sealed_by_choice(bid_of_0):
    ruleset = interpreter.load(os.path.join(HERE, "rulesets", "secret_bid"), modules=["by_choice"])
    state = ruleset.new_game(2, seed=0)
    assert state.apply("seal a bid") and state.apply(f"choose {bid_of_0}")
    return state


def test_an_answer_the_rules_reveal_later_is_unmasked_then_and_only_then():
    sealed = _sealed_by_choice(3)
    assert sealed.information_state(1)["history"][1] == {"player": 0, "action": "choose", "secret": True}
    revealed = _played_on(sealed, ["seal a bid", "choose 2"])
    assert revealed.vars["shown"] == [3, 2]  # turned face up
    history = revealed.information_state(1)["history"]
    assert history[1]["action"]["args"] == {"value": 3}
    # the earlier state's history does not learn from the later reveal
    assert sealed.information_state(1)["history"][1] == {"player": 0, "action": "choose", "secret": True}


def test_an_answer_never_revealed_stays_masked():
    """Davos: another player's answers stay masked while hidden goals make them unsure."""
    state = _sealed_by_choice(2)
    later = _played_on(state, ["seal a bid"])
    assert later.information_state(1)["history"][1]["secret"] is True


# ----------------------------------------------------------------------------- simultaneous nodes
def test_mcts_at_a_simultaneous_node_chooses_for_each_seat_independently():
    """Goofspiel: both players play a card at once. In the tree every seat's moves have their
    own statistics at the node (each seat picked once per iteration, whatever the others
    picked), and what follows hangs under the joint choice, not under one seat's move."""
    state = interpreter.load(os.path.join(HERE, "rulesets", "goofspiel")).new_game(2, seed=1)
    assert state.is_simultaneous() and state.current_players == [0, 1]
    agent = MCTSAgent(3, iterations=60)
    choice = agent.act(state, 0)
    assert choice.player == 0
    root = agent.tree
    seats = {}
    for key, (child, mover) in root.children.items():
        if key[0] == "joint":
            assert mover is None and [seat for seat, _ in key[1]] == [0, 1]
            continue
        assert key[0] == ("seat", mover) and not child.children  # no reply is chosen under a move
        seats[mover] = seats.get(mover, 0) + child.visits
    assert seats == {0: 60, 1: 60}


# ----------------------------------------------------------------------------- a plan's states
def test_a_plan_made_in_place_gives_every_state_on_the_way():
    """play_plan makes a run of planned draws in place (one copy per shuffle, not one per
    draw); `Plan.state_before` gives the state before any step all the same: the game played
    step by step with the plan's choices (what repairs and the world search restart from)."""
    import random

    from interpreter.engine import infosets, worlds
    from interpreter.engine.state import State

    ruleset = interpreter.load("davos")
    state = ruleset.new_game(4, seed=3)
    rng = random.Random(3)
    while len(state.history()) < 52:
        state.apply(rng.choice(state.legal_actions()))
    steps = infosets.trajectory(state, 1)
    for seed in range(20):
        plan = worlds.Plan(steps)
        world = worlds.draw_world(state, 1, steps, random.Random(seed), plan)
        if world is not None:
            break
    assert world is not None
    assert plan.before.count(None) > sum("chance" in step.entry for step in steps) // 2  # most draws made in place
    replay = State.new(ruleset, 4, 0, "manual")
    for index, step in enumerate(steps):
        assert plan.state_before(index, steps).hash() == replay.hash()
        assert worlds.make_move(replay, plan.choices[index] if plan.choices[index] is not None
                                else step.entry["action"], "chance" in step.entry)
    assert replay.hash() == world.hash()
