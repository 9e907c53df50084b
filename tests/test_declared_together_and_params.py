"""The bounds a `choose` of several players at once and an action's parameter declare
(`min`/`max`/`step`, docs/language.md "Bounds of integer parameters"), kept in play on both
engines as a one-player `choose`'s are (tests/test_declared_answers.py): options or parameter
values the rules list off them are a rule error located at the decision or parameter, the same
text on both engines, the state unchanged; an answer or value off them handed to `apply` is
refused with the reason, the state unchanged."""
import textwrap

import pytest

import interpreter
from interpreter.errors import RuleRuntimeError

ENGINES = ("reference", "compiled")

RULES = """\
game: {name: bounded_together, players: [2], start: play}
settings:
  top: {value: 5, min: 1, max: 9}
  wide: {value: 0, min: 0, max: 2, description: "how far the rules' numbers go past the bounds they declare"}
vars:
  total: {value: 0}
  past: {value: 0}
actions:
  bid:
    effects:
      - {choose: {players: "players", from: "range(0, top + p + wide + 1)", as: bids, max: "top + p", prompt: "sealed bid"}}
      - "total = bids[0] + 10 * bids[1]"
  give:
    params:
      n: {from: "range(1, top + past + 1)", min: 1, max: top}
    effects: ["total += n"]
  widen:
    effects: ["past = wide"]
phases:
  play: {kind: turns, actions: [bid, give, widen], rounds: 2, next: end}
"""


def _game(tmp_path, engine, wide=0):
    folder = tmp_path / f"rules_{wide}"
    folder.mkdir(exist_ok=True)
    (folder / "game.yaml").write_text(textwrap.dedent(RULES))
    return interpreter.load(str(folder), settings={"wide": wide}).new_game(2, seed=1, engine=engine)


def _answer(value, player):
    return {"action": "choose", "args": {"value": value}, "player": player}


@pytest.mark.parametrize("engine", ENGINES)
def test_answers_of_several_players_off_their_bounds_are_refused_each_read_with_p_the_seat(tmp_path, engine):
    state = _game(tmp_path, engine)
    assert state.apply("bid") and sorted(state.current_players) == [0, 1]
    before = state.hash()
    outcome = state.apply(_answer(6, 0))  # seat 0's max is top + 0 = 5
    assert not outcome and outcome.code == "not_an_option"
    assert outcome.reason.startswith("the answer 6 to the decision 'bids' (sealed bid) at ")
    assert outcome.reason.endswith("lies off the range or step it declares (max: 5)")
    assert state.hash() == before
    assert state.apply(_answer(6, 1))  # seat 1's max is top + 1 = 6
    assert state.apply(_answer(5, 0)) and state.vars["total"] == 65


@pytest.mark.parametrize("engine", ENGINES)
def test_options_of_several_players_off_their_bounds_are_a_rule_error(tmp_path, engine):
    state = _game(tmp_path, engine, wide=1)
    before = state.hash()
    outcome = state.apply("bid")
    assert not outcome and outcome.code == "rule_error"
    assert "the answer 6 to the decision 'bids' (sealed bid) at " in outcome.reason
    assert "lies off the range or step it declares (max: 5), but the rules list it" in outcome.reason
    assert state.hash() == before and state.pending is None


@pytest.mark.parametrize("engine", ENGINES)
def test_a_parameter_value_off_its_bounds_is_refused_with_the_reason(tmp_path, engine):
    state = _game(tmp_path, engine)
    before = state.hash()
    for value, said in ((0, "0"), (6, "6"), (-2, "-2")):
        outcome = state.apply({"action": "give", "args": {"n": value}})
        assert not outcome and outcome.code == "bad_parameter"
        assert outcome.reason.startswith(f"the value {said} of parameter 'n' of action 'give' at ")
        assert outcome.reason.endswith("game.yaml:15:7 lies off the range or step it declares (min: 1, max: 5)")
        assert state.hash() == before
    assert state.apply({"action": "give", "args": {"n": 5}}) and state.vars["total"] == 5


@pytest.mark.parametrize("engine", ENGINES)
def test_parameter_values_listed_off_their_bounds_are_a_rule_error_at_the_parameter(tmp_path, engine):
    state = _game(tmp_path, engine, wide=2)
    before = state.hash()
    outcome = state.apply("widen")  # the next player's moves would list give 6 and 7
    assert not outcome and outcome.code == "rule_error"
    assert outcome.reason.startswith("the value 6 of parameter 'n' of action 'give' at ")
    assert "game.yaml:15:7 lies off the range or step it declares (min: 1, max: 5), but the rules list it" in outcome.reason
    assert state.hash() == before and state.vars["past"] == 0


def test_a_listing_that_fails_on_a_bound_raises_the_located_rule_error(tmp_path):
    state = _game(tmp_path, "reference", wide=2)
    state.d["vars"]["past"] = 2  # as if the rules had widened it: the listing is what fails
    state.touched()
    with pytest.raises(RuleRuntimeError, match=r"game\.yaml:15:7 lies off .* \(min: 1, max: 5\), but the rules list it"):
        state.legal_actions()


def test_the_rule_errors_are_the_same_text_on_both_engines(tmp_path):
    reasons = {engine: (_game(tmp_path, engine, wide=2).apply("widen").reason, _game(tmp_path, engine, wide=1).apply("bid").reason)
               for engine in ENGINES}
    assert reasons["reference"] == reasons["compiled"]
