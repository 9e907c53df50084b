"""What a compiled game shows a player (`observe`, `hidden_vars`) is the reference's, byte for
byte, computed by the same function (engine/visibility.py `observation`) on the compiled game's
own data: at plain turns, at decisions inside moves, in sub-phases a move entered, once the game
is over, and while the reference holds the game (a simultaneous phase, `choose_together`); for
every ruleset and bundled module combination, at every step, for every seat and a spectator.
Hidden information is a security property: no extra field, no secret. And the information
states (answered by the reference twin) are the reference's, built on from the earlier ones as
the reference engine's are."""
import json
import os
import random

import pytest

from interpreter import load
from interpreter.compiled.game import CompiledState
from interpreter.compiled.twin import Twin

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULESETS = sorted([os.path.join(ROOT, "rulesets", name) for name in os.listdir(os.path.join(ROOT, "rulesets"))] +
                  [os.path.join(ROOT, "tests", "rulesets", name)
                   for name in os.listdir(os.path.join(ROOT, "tests", "rulesets"))])
BUNDLED = sorted(os.listdir(os.path.join(ROOT, "rulesets")))
KINDS = os.path.join(ROOT, "tests", "rulesets", "visibility_kinds")


def _same_views(reference, compiled, players, where):
    """Every seat's observation (and a spectator's, -1) and hidden vars: the same JSON text, keys
    in the same order."""
    for seat in [*range(players), -1]:
        expected, seen = json.dumps(reference.observe(seat)), json.dumps(compiled.observe(seat))
        assert seen == expected, (where, seat)
        assert compiled.hidden_vars(seat) == reference.hidden_vars(seat), (where, seat)


def _observe_alongside(ruleset, players, seed, by_ids=False):
    """One random game through both engines, the views compared at every step; the number of
    decisions inside moves met on the way."""
    reference = ruleset.new_game(players, seed=seed)
    compiled = ruleset.new_game(players, seed=seed, engine="compiled")
    assert type(compiled) is CompiledState
    rng = random.Random(seed)
    step = decisions = 0
    while True:
        _same_views(reference, compiled, players, (ruleset.name, players, seed, step))
        if reference.is_terminal:
            return decisions
        decisions += reference.pending is not None
        ids = reference.legal_action_ids()
        choice = rng.randrange(len(ids))
        assert reference.apply_id(ids[choice])
        assert compiled.apply_id(compiled.legal_action_ids()[choice]) if by_ids else \
            compiled.apply(compiled.legal_actions()[choice])
        step += 1


@pytest.mark.parametrize("folder", RULESETS, ids=os.path.basename)
def test_every_seat_sees_the_same_on_both_engines_at_every_step(folder):
    ruleset = load(folder)
    for players in ruleset.players:
        for seed in range(3):
            _observe_alongside(ruleset, players, seed, by_ids=seed == 2)


@pytest.mark.parametrize("name", BUNDLED)
def test_every_module_combination_shows_the_same(name):
    for combination in load(name).combinations:
        if combination["modules"]:
            ruleset = load(name, modules=tuple(combination["modules"]))
            _observe_alongside(ruleset, combination["players"][0], 0)


def test_hidden_count_and_owner_vars_and_a_decision_are_shown_as_the_reference_shows_them():
    ruleset = load(KINDS)
    decisions = sum(_observe_alongside(ruleset, players, seed) for players in (2, 3) for seed in range(6))
    assert decisions > 5  # the decisions inside moves were compared too
    game = ruleset.new_game(2, seed=1, engine="compiled")
    view = game.observe(0)
    assert view["vars"]["deck"] == {"hidden": 7} and view["vars"]["stashed"] == {"hidden": True}
    assert view["vars"]["piles"] == {"left": {"hidden": 0}, "right": {"hidden": 0}}
    assert view["vars"]["hand"][1] == {"hidden": 1} and len(view["vars"]["hand"][0]) == 1
    assert game.hidden_vars(0) == [("deck", None), ("stashed", None), ("piles", None), ("hand", 1)]


def test_observe_builds_no_reference_state_at_a_turn_nor_at_a_decision(monkeypatch):
    ruleset = load(KINDS)
    game = ruleset.new_game(2, seed=3, engine="compiled")
    reference = ruleset.new_game(2, seed=3)
    stash = next(i for i, action in enumerate(game.legal_actions()) if action.name == "stash")
    assert game.apply_id(stash) and reference.apply_id(stash)
    assert reference.pending is not None  # player 1 is asked where player 0's card goes
    expected = [json.dumps(reference.observe(seat)) for seat in (0, 1)]

    def no_twin(self):
        raise AssertionError("observe built a reference State")
    monkeypatch.setattr(Twin, "reference", no_twin)
    assert [json.dumps(game.observe(seat)) for seat in (0, 1)] == expected
    assert game.observe(1)["pending"]["options"] == ["left", "right"]
    assert game.observe(0)["pending"]["options"] == {"hidden": 2}
    assert game.apply_id(0) and reference.apply_id(0)
    assert json.dumps(game.observe(0)) == json.dumps(reference.observe(0))
    assert game.hidden_vars(1) == reference.hidden_vars(1)


def test_after_undo_and_on_a_copy_the_views_are_the_references():
    ruleset = load(KINDS)
    game = ruleset.new_game(3, seed=2, engine="compiled")
    rng = random.Random(2)
    positions = []
    while not game.is_terminal:
        positions.append([json.dumps(game.observe(seat)) for seat in range(3)])
        ids = game.legal_action_ids()
        assert game.apply_id(ids[rng.randrange(len(ids))])
    for earlier in reversed(positions):
        assert game.undo()
        assert [json.dumps(game.observe(seat)) for seat in range(3)] == earlier
        copy = game.copy()
        assert [json.dumps(copy.observe(seat)) for seat in range(3)] == earlier


def _entries_played_again(ruleset, players, seed, engine, monkeypatch):
    """The information state of the player to act at every step of a random game: how many
    history entries infosets played again in all (a later state extends an earlier one's)."""
    from interpreter.engine import infosets

    played = []
    known_earlier = infosets._known_earlier

    def counted(state, player):
        earlier, entries = known_earlier(state, player)
        played.append(len(entries))
        return earlier, entries
    monkeypatch.setattr(infosets, "_known_earlier", counted)
    game = ruleset.new_game(players, seed=seed, engine=engine)
    rng = random.Random(seed)
    states = []
    while not game.is_terminal:
        states.append(json.dumps(game.information_state(game.current_player)))
        ids = game.legal_action_ids()
        assert game.apply_id(ids[rng.randrange(len(ids))])
    monkeypatch.undo()
    return sum(played), states


def test_information_states_at_decisions_are_built_on_from_the_earlier_ones_as_on_the_reference(monkeypatch):
    """The compiled game's information state is its reference twin's; at a decision inside a
    move the twin takes the game's own history chain, so the next state's trajectory is built
    on from this one's (infosets' memo, keyed by the chain's links) as on the reference engine."""
    ruleset = load(KINDS)
    for seed in range(3):
        reference = _entries_played_again(ruleset, 3, 100 + seed, "reference", monkeypatch)
        compiled = _entries_played_again(ruleset, 3, 100 + seed, "compiled", monkeypatch)
        assert compiled == reference
