"""What the research-adapter tests share (tests/test_adapters_*.py): the bundled rulesets, every
(ruleset, player count) case, a module-scoped `rulesets` fixture (import it into a test module
to use it) and a seeded random game that visits every state."""
import random

import pytest

import interpreter

BUNDLED = ["tictactoe", "kuhn-poker", "davos", "deep-state", "global-mogul", "corporate-times"]
CASES = [(name, n) for name in BUNDLED for n in interpreter.load(name).players]


@pytest.fixture(scope="module")
def rulesets():
    return {name: interpreter.load(name) for name in BUNDLED}


def random_game(rs, players, seed, visit):
    """Play a seeded random game of `rs`, calling `visit(state)` before every move and at the end."""
    state = rs.new_game(players, seed)
    rng = random.Random(seed)
    while not state.is_terminal:
        visit(state)
        state.apply(rng.choice(state.legal_actions()))
    visit(state)
    return state


def openspiel_random_step(state, rng):
    """A random move of an OpenSpiel state: a chance outcome, a joint action (a list, one id per
    seat) at a simultaneous node, else one id of the current player."""
    if state.is_chance_node():
        return rng.choice([outcome for outcome, _ in state.chance_outcomes()])
    if state.is_simultaneous_node():
        return [rng.choice(state.legal_actions(seat)) for seat in range(state.num_players())]
    return rng.choice(state.legal_actions())


def openspiel_apply(state, step):
    if isinstance(step, list):
        state.apply_actions(step)
    else:
        state.apply_action(step)
