"""MCTS plays its iterations on the compiled engine (`compiled.played_on`): the same game as the
drawn worlds, so the same choices as on the reference engine; worlds played on together
(`determinize_from_each`) are the worlds `determinize_from` gives one by one; undo(n) of a
compiled game takes n moves back to the very position (issue 15, MCTS)."""
from __future__ import annotations

import os
import random
import sys

import pytest

import interpreter
from interpreter.agents import MCTSAgent
from interpreter.compiled import played_on
from interpreter.engine import infosets

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools", "bench"))
import mcts as mcts_bench  # noqa: E402


def _decisions(name, players, count):
    """(state, player) of a seeded random game where the mover has a real choice (the states
    tools/bench/mcts.py times)."""
    return mcts_bench.decision_states(interpreter, name if "/" not in name else os.path.join(HERE, name),
                                      players, count, False)


def _choices(decisions, engine, repeat=1):
    agent = MCTSAgent(5, iterations=24, rollout_limit=8, engine=engine)
    return [agent.act(state, player).key for _ in range(repeat) for state, player in decisions]


@pytest.mark.parametrize("name,players,count", [("davos", 4, 12), ("kuhn-poker", 2, 2), ("tictactoe", 2, 4),
                                                ("deep-state", 3, 4), ("rulesets/goofspiel", 2, 3)])
def test_mcts_chooses_the_same_on_the_compiled_engine(name, players, count):
    decisions = _decisions(name, players, count)
    assert len(decisions) == count
    # twice round: the second time the worlds kept from later decisions meet earlier states
    assert _choices(decisions, "auto", 2) == _choices(decisions, "reference", 2)


def test_the_iterations_play_compiled_games_and_leave_them_where_they_were():
    state, player = _decisions("davos", 4, 1)[0]
    agent = MCTSAgent(5, iterations=8, rollout_limit=6)
    worlds = agent._draw_worlds(state, player)
    games = agent._played(worlds)
    assert all(type(game).__name__ == "CompiledState" for game in games)
    assert [game.hash() for game in games] == [world.hash() for world in worlds]
    before = [game.hash() for game in games]
    agent.act(state, player)  # its own worlds, searched and taken back
    assert [game.hash() for game in games] == before
    assert MCTSAgent(5, engine="reference")._played(worlds) is worlds


def test_played_on_is_the_same_game_as_the_world():
    for state, player in _decisions("davos", 4, 6):
        world = state.determinize(player, 11)
        game = played_on(world)
        reference = world.copy()
        assert game.hash() == reference.hash()
        rng = random.Random(1)
        for _ in range(30):
            if reference.is_terminal:
                break
            ids = reference.legal_action_ids()
            assert game.legal_action_ids() == ids
            chosen = rng.choice(ids)
            assert bool(game.apply_id(chosen)) == bool(reference.apply_id(chosen))
            assert game.hash() == reference.hash()
        assert world.hash() == state.determinize(player, 11).hash()  # the world itself is untouched


def test_played_on_needs_seeded_chance():
    ruleset = interpreter.load("kuhn-poker")
    assert played_on(ruleset.new_game(2, seed=1, chance="manual")) is None


@pytest.mark.parametrize("name,players", [("davos", 4), ("corporate-times", 4), ("global-mogul", 3)])
def test_compiled_undo_of_many_moves_is_undo_of_each(name, players):
    """undo(n) takes back n moves at once (an answer inside a move whose start is taken back
    next is not made again first): the positions are the reference's, move by move."""
    for seed in range(3):
        game = interpreter.load(name).new_game(players, seed=seed, engine="compiled")
        reference = interpreter.load(name).new_game(players, seed=seed)
        rng = random.Random(seed)
        for _ in range(40):
            start = game.hash()
            assert start == reference.hash()
            made = 0
            for _ in range(rng.randrange(1, 12)):
                if game.is_terminal:
                    break
                chosen = rng.choice(game.legal_action_ids())
                assert bool(game.apply_id(chosen)) == bool(reference.apply_id(chosen))
                made += 1
            if made:
                taken = rng.randrange(1, made + 1)
                assert game.undo(taken) and reference.undo(taken)
                assert game.hash() == reference.hash()
                assert game.legal_action_ids() == reference.legal_action_ids()
                if taken == made:
                    assert game.hash() == start
            if game.is_terminal:
                break
            chosen = rng.choice(game.legal_action_ids())
            game.apply(game.legal_action(chosen))
            reference.apply(reference.legal_action(chosen))


def _played_like_the_world(game, world, seed):
    """`game` (played_on(world)) is the generated code's game at the world's position: it makes
    the world's moves, position by position, and undo takes it back to the world."""
    assert game._ref is None and game._pending is not None  # no reference holds the game
    assert game.hash() == world.hash()
    reference = world.copy()
    rng = random.Random(seed)
    made = 0
    while made < 12 and not reference.is_terminal:
        ids = reference.legal_action_ids()
        assert game.legal_action_ids() == ids
        chosen = rng.choice(ids)
        assert bool(game.apply_id(chosen)) == bool(reference.apply_id(chosen))
        made += 1
        assert game.hash() == reference.hash()
    assert game.undo(made)
    assert game.hash() == world.hash()
    assert game.legal_action_ids() == world.legal_action_ids()


def test_a_world_waiting_inside_a_move_is_the_move_made_again_by_the_generated_code():
    """A world waiting for an answer inside a move (5 of the bench's 12 Davos decisions), drawn
    anew or played on from a world of the player's last decision: the move is made again from
    its start on the compiled engine (infosets.move_start), so the answers are compiled moves."""
    decisions = _decisions("davos", 4, 12)
    waiting = [index for index, (state, _) in enumerate(decisions) if state.d["pending"] is not None]
    assert len(waiting) == 5
    played_on_from_earlier = 0
    for index in waiting:
        state, player = decisions[index]
        world = state.determinize(player, 11)
        start, moves = infosets.move_start(world)
        assert start.d["pending"] is None and moves[0].name != "choose"
        assert all(move.name == "choose" for move in moves[1:])
        _played_like_the_world(played_on(world), world, index)
        earlier = [(other, seat) for other, seat in decisions[:index] if seat == player]
        if earlier:
            for later_world in state.determinize_from_each(earlier[-1][0].determinize(player, 5), player, [1, 2]):
                if later_world is not None:
                    _played_like_the_world(played_on(later_world), later_world, index)
                    played_on_from_earlier += 1
    assert played_on_from_earlier


def test_worlds_played_on_together_are_the_worlds_played_on_one_by_one():
    decisions = _decisions("davos", 4, 12)
    for (earlier, player), (later, _) in zip(decisions, decisions[4:]):
        if player not in later.current_players:
            continue
        world = earlier.determinize(player, 3)
        seeds = [7, 8, 9]
        together = later.determinize_from_each(world, player, seeds)
        one_by_one = [later.determinize_from(world, player, seed) for seed in seeds]
        assert [None if sample is None else sample.hash() for sample in together] == \
               [None if sample is None else sample.hash() for sample in one_by_one]
        for sample in together:
            if sample is not None:
                assert sample.information_state(player) == later.information_state(player)


def test_worlds_with_one_replay_key_are_played_on_alike():
    """Seeds whose hidden draws since a kept world are the same share one manual-chance world
    (infosets.replay_key); played on from any of them, the next worlds are the same, so MCTS
    plays the moves since once per key (not once per kept world)."""
    decisions = _decisions("davos", 4, 12)
    shared = 0
    for player in range(4):
        own = [state for state, seat in decisions if seat == player]
        if len(own) < 3:
            continue
        earlier, middle, later = own[:3]
        fitting = [sample for sample in middle.determinize_from_each(earlier.determinize(player, 3), player,
                                                                       list(range(8))) if sample is not None]
        groups: dict = {}
        for sample in fitting:
            groups.setdefault(infosets.replay_key(sample), []).append(sample)
        histories = [group[0].history() for group in groups.values()]
        assert all(histories.count(history) == 1 for history in histories)  # one key per distinct world
        for group in groups.values():
            assert all(sample.vars == group[0].vars and sample.history() == group[0].history() for sample in group)
            if len(group) > 1:
                shared += 1
                hashes = [[None if world is None else world.hash() for world in
                           later.determinize_from_each(sample, player, [4, 5])] for sample in group]
                assert all(entry == hashes[0] for entry in hashes)
    assert shared


def test_rules_counted_for_coverage_stay_on_the_reference_engine():
    """analyze plays a copy of the rules whose blocks count coverage (no rule expression in
    them): the generator cannot write those, so `support` names them and MCTS plays the worlds."""
    from interpreter.analyze.runner import counting_copy
    from interpreter.compiled.support import support

    counted = counting_copy(interpreter.load("tictactoe"))
    assert support(counted) is not None
    state = counted.new_game(2, seed=0)
    assert played_on(state) is None
    assert MCTSAgent(1, iterations=10).act(state, 0) in state.legal_actions()
