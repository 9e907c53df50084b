"""Numeric decisions with a `step` (docs/language.md, docs/research.md): Global Mogul's Standard
bids (multiples of $10, some above $100) get an id each through the PettingZoo env, and a small
ruleset's stepped `choose` and parameter are encoded as (max - min) / step + 1 ids, an answer off
the step or outside the range being an error that names the decision (rules that list one stop
in play first, with a rule error at the decision)."""
import os
import random

import pytest

import interpreter
from interpreter.adapters.encoding import ActionSpace
from interpreter.engine import Action

STEPPED = os.path.join(os.path.dirname(__file__), "rulesets", "stepped_bids")
# (players, seed) of the seeded random Standard games in which a bid above $100 is legal
HIGH_BIDS = [(2, 1), (4, 1)]


def _bids_above(state, amount):
    return [a for a in state.legal_actions()
            if a.name in ("raise_bid", "choose") and any(type(v) is int and v > amount for _, v in a.args)
            and (a.name == "raise_bid" or "bid" in str((state.pending or {}).get("prompt")))]


@pytest.mark.parametrize("players,seed", HIGH_BIDS)
def test_standard_bids_above_100_have_ids_through_pettingzoo(players, seed):
    pytest.importorskip("pettingzoo")
    from interpreter.adapters.pettingzoo import raw_env

    environment = raw_env(interpreter.load("global-mogul", ["standard"]), players=players)
    environment.reset(seed=seed)
    rng = random.Random(seed)
    high = 0
    while not environment.state.is_terminal:
        state = environment.state
        high += len(_bids_above(state, 100))
        mask = environment.observe(environment.agent_selection)["action_mask"]
        legal = state.legal_actions()
        assert int(mask.sum()) == len(set(legal))  # every legal move has an id, none dropped
        environment.step(environment.space.encode(rng.choice(legal), state))
    assert high > 0  # the game did offer bids above $100
    assert environment.space.dropped == 0


def test_standard_bids_are_declared_in_steps_of_10():
    space = ActionSpace(interpreter.load("global-mogul", ["standard"]), 3)
    assert space.untyped == [] and space.unbounded == []
    amount = space.by_name["raise_bid"].slots[0]
    assert amount.proven and amount.values == tuple(range(10, 1751, 10))


def test_a_stepped_choose_and_parameter_are_encoded_by_step():
    rs = interpreter.load(STEPPED)
    space = ActionSpace(rs, 2)
    assert space.untyped == [] and space.unbounded == []
    raise_to = space.by_name["raise_to"]
    assert raise_to.slots[0].values == (5, 10, 15, 20, 25, 30) and raise_to.size == 6
    numbers = {key[1] for key in space.by_name["choose"].slots[0].index if key[0] == "int"}
    assert numbers == {0, 1, 10, 20, 30, 40}  # the seats and the opening bids
    for seed in range(4):
        state = rs.new_game(2, seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            ids = space.legal_ids(state)
            assert len(ids) == len(set(state.legal_actions()))
            state.apply(rng.choice(state.legal_actions()))
    assert space.dropped == 0


def test_an_answer_off_the_step_is_an_error_naming_the_decision():
    # rules that offer 5, 15, ... stop in play first (a rule error: tests/test_declared_answers.py)
    assert interpreter.load(STEPPED, settings={"opening_step": 5}).new_game(2, 0).apply("open").code == "rule_error"
    rs = interpreter.load(STEPPED)
    space = ActionSpace(rs, 2)
    state = rs.new_game(2, 0)
    assert state.apply("open") and space.legal_ids(state)
    with pytest.raises(ValueError, match=r"answer 5 to the decision 'amount' \(opening bid\) at .*game\.yaml:\d+:\d+ .*step: 10"):
        space.check_bounds(Action("choose", (("value", 5),), state.current_player), state)


def test_a_step_below_1_is_refused():
    rs = interpreter.load(STEPPED, settings={"opening_step": 1})
    bounds = ActionSpace(rs, 2).bounds
    assert bounds.step({"from": "x", "step": "opening_step"}) == 1
    assert bounds.step({"from": "x"}) == 1
    with pytest.raises(ValueError, match="step: 'opening_step - 1' of the domain 'x'"):
        bounds.step({"from": "x", "step": "opening_step - 1"})


def test_a_number_outside_an_assumed_bound_is_an_error_not_a_gap():
    rs = interpreter.load(os.path.join(os.path.dirname(__file__), "rulesets", "bounded_bets"))
    space = ActionSpace(rs, 2)
    wait = type(rs.new_game(2, 0).legal_actions()[0])("wait", {"n": 101}, 0)
    with pytest.raises(ValueError, match=r"wait\.n = 101 lies outside the assumed bound 0\.\.100 .*declare min:/max: \(and step:\)"):
        space.check_bounds(wait)
