"""What makes drawing worlds cheaper without changing a world (docs/performance.md, "MCTS,
fourth round (worlds)"): a block that can neither suspend nor draw runs in place in a
manual-chance game too (`Ruleset.chanceless_blocks`), and a trial copy (`State.copy(trial=True)`)
keeps the legal moves listed and its moves no snapshot, a draw under way is not compared again,
and MCTS hands its worlds to their compiled games (`played_on(world, copy=False)`). Each is
checked against the plain way on the same moves and outcomes, state hash by state hash."""
from __future__ import annotations

import dataclasses
import os
import random

import pytest

import interpreter
import interpreter.engine.infosets
from interpreter.engine import effects, legal, worlds

HERE = os.path.dirname(os.path.abspath(__file__))
GAMES = [("davos", 4), ("kuhn-poker", 2), (os.path.join(HERE, "rulesets", "dice"), 2),
         (os.path.join(HERE, "rulesets", "deals"), 3), ("deep-state", 3)]


def _load(name):
    return interpreter.load(name)


def _step(state, chooser) -> bool:
    """One random move or chance outcome on `state`; False at the end."""
    if state.is_terminal:
        return False
    if state.is_chance():
        outcomes = [outcome for outcome, _ in state.chance_outcomes()]
        assert state.apply_chance(outcomes[chooser.randrange(len(outcomes))])
        return True
    actions = state.legal_actions()
    if not actions:
        return False
    assert state.apply(actions[chooser.randrange(len(actions))])
    return True


@pytest.mark.parametrize("name,players", GAMES)
def test_chanceless_blocks_are_the_simple_blocks_that_draw_nothing(name, players):
    ruleset = _load(name)
    assert len(ruleset.chanceless_blocks) == len(ruleset.blocks)
    for block, chanceless in enumerate(ruleset.chanceless_blocks):
        if chanceless:  # (a simple block may draw: a shuffle suspends only a manual-chance game)
            assert ruleset.simple_blocks[block]
        if any(isinstance(effect, (effects.Shuffle, effects.Random)) for effect in ruleset.blocks[block] or ()):
            assert not chanceless
    if name in ("davos", "deep-state"):  # both kinds
        assert any(ruleset.chanceless_blocks) and not all(ruleset.chanceless_blocks)


@pytest.mark.parametrize("name,players", GAMES)
def test_a_manual_chance_game_is_the_same_with_its_chanceless_blocks_pushed_as_frames(name, players):
    ruleset = _load(name)
    pushed = dataclasses.replace(ruleset, chanceless_blocks=[False] * len(ruleset.blocks))  # the earlier way
    for seed in range(3):
        in_place = ruleset.new_game(players, chance="manual")
        framed = pushed.new_game(players, chance="manual")
        chooser, twin_chooser = random.Random(seed), random.Random(seed)
        steps = 0
        while steps < 400:
            assert in_place.hash() == framed.hash()
            assert in_place.chance_outcomes() == framed.chance_outcomes()
            going = _step(in_place, chooser)
            assert _step(framed, twin_chooser) == going
            if not going:
                break
            steps += 1
        assert steps >= 4


@pytest.mark.parametrize("name,players", GAMES)
def test_a_trial_copy_plays_as_a_copy_does(name, players):
    ruleset = _load(name)
    state = ruleset.new_game(players, chance="manual")
    chooser = random.Random(7)
    for _ in range(120):
        if state.is_terminal:
            break
        if not state.is_chance():
            actions = state.legal_actions()
            for action in actions[:4]:
                plain, trial = state.copy(), state.copy(trial=True)
                assert trial.legal_action_ids() == plain.legal_action_ids()
                assert [move.key for move in trial.legal_actions()] == [move.key for move in plain.legal_actions()]
                assert bool(plain.apply(action.to_json())) == bool(trial.apply(action.to_json()))
                assert plain.hash() == trial.hash()
                assert plain.legal_action_ids() == trial.legal_action_ids()
        _step(state, chooser)


def _listed_davos(monkeypatch) -> tuple:
    """A seeded Davos game with its moves listed, and the list of games listed from now on."""
    state = _load("davos").new_game(4, seed=3)
    state.legal_actions()
    listed: list = []
    real = legal.legal_moves
    monkeypatch.setattr(legal, "legal_moves", lambda game: listed.append(game) or real(game))
    return state, listed


def test_a_trial_copy_lists_no_move_again_and_keeps_undo_points(monkeypatch):
    state, listed = _listed_davos(monkeypatch)
    trial = state.copy(trial=True)
    assert trial.legal_action_ids() == state.legal_action_ids() and not listed
    assert state.copy().legal_action_ids() and len(listed) == 1  # a plain copy lists them again
    before = trial.hash()
    assert trial.apply_id(0)  # (a move that can be taken back keeps its snapshot)
    assert trial.undo(1) and trial.hash() == before


def test_a_trial_copy_of_a_state_whose_labels_read_it_lists_its_moves_anew(monkeypatch):
    state, listed = _listed_davos(monkeypatch)
    moves = state._moves()
    state.cache_legal([move[:4] + (({}, {}),) + move[5:] for move in moves])  # as if a label read the state
    assert state.copy(trial=True).legal_action_ids() == list(range(len(moves))) and len(listed) == 1


@pytest.mark.parametrize("name,players", GAMES)
def test_a_draw_under_way_changes_nothing_anyone_sees(name, players):
    ruleset = _load(name)
    under_way = 0
    for seed in range(3):
        state = ruleset.new_game(players, chance="manual")
        chooser = random.Random(seed)
        for _ in range(300):
            if state.is_terminal:
                break
            seen = [state.observe(player) for player in range(players)]
            was_chance = state.is_chance()
            _step(state, chooser)
            if was_chance and state.draws_under_way():
                under_way += 1
                assert [state.observe(player) for player in range(players)] == seen
            elif not state.is_chance():
                assert not state.draws_under_way()
    if name in ("davos", "kuhn-poker", "deep-state"):  # (their set-up shuffles a deck)
        assert under_way


def _davos_states():
    """(state, player to decide) at every real choice along a seeded random Davos game."""
    ruleset = _load("davos")
    chooser = random.Random(3)
    state = ruleset.new_game(4, seed=3)
    found = []
    while not state.is_terminal:
        actions = state.legal_actions()
        if len(actions) > 1:
            found.append((state.copy(), actions[0].player))
        state.apply(actions[chooser.randrange(len(actions))])
    return found


def test_worlds_are_the_same_when_every_draw_is_compared(monkeypatch):
    states = _davos_states()[::12]  # over the whole game: later worlds are repaired and searched
    skipping = [[state.determinize(player, seed).hash() for seed in range(3)] for state, player in states]
    monkeypatch.setattr(worlds, "_seen_as_before", lambda *_: False)
    interpreter.engine.infosets._MEMO.clear()
    comparing = [[state.determinize(player, seed).hash() for seed in range(3)] for state, player in states]
    assert skipping == comparing


def test_a_world_handed_over_to_its_compiled_game_plays_as_a_copied_one():
    from interpreter.compiled import played_on
    for state, player in _davos_states()[:12]:
        world = state.determinize(player, 5)
        kept = world.hash()
        copied, handed = played_on(world), played_on(world.copy(), copy=False)
        chooser = random.Random(player)
        made = 0
        for _ in range(12):
            assert copied.legal_action_ids() == handed.legal_action_ids()
            ids = copied.legal_action_ids()
            if copied.is_terminal or not ids:
                break
            chosen = ids[chooser.randrange(len(ids))]
            assert bool(copied.apply_id(chosen)) == bool(handed.apply_id(chosen))
            made += 1
            assert copied.hash() == handed.hash()
        assert copied.undo(made) and handed.undo(made)
        assert copied.hash() == handed.hash() == kept
        assert world.hash() == kept  # (copied: never changed)


def test_a_listed_copy_keeps_the_moves_listed_and_stays_atomic(monkeypatch):
    state, listed = _listed_davos(monkeypatch)
    twin = state.copy(listed=True)
    assert twin.legal_action_ids() == state.legal_action_ids() and not listed
    before = twin.hash()
    assert not twin.apply({"action": "no such action", "args": {}})
    assert twin.hash() == before
    assert twin.apply(twin.legal_actions()[0]) and twin.hash() != state.hash()


def test_a_seeded_world_keeps_the_listing_of_the_world_it_was_drawn_as():
    state, player = _davos_states()[2]
    world = state.determinize(player, 1)
    assert world.legal_action_ids() == world.copy().legal_action_ids()
    assert [action.key for action in world.legal_actions()] == [action.key for action in world.copy().legal_actions()]
