"""Scenario steps for a decision of several players at once: `{at_once: {seat: step}}` (a
simultaneous phase, or any decision of several seats) and `{choose: {seat: value}}` (a
`choose: {players: ...}`). Every seat still to choose needs one legal answer; a missing,
extra or illegal one stops the scenario with a message at the step's file:line:col, and
nothing of the step is played."""
import os
import shutil

import pytest

import interpreter
from interpreter.scenario import run_scenarios
from interpreter.scenario_seats import SeatError, answers_by_seat, seat_moves

RULESETS = os.path.join(os.path.dirname(__file__), "rulesets")


@pytest.mark.parametrize("name,count", [("sealed_bid", 3), ("draft", 1)])
def test_the_test_rulesets_scenarios_by_seat_pass(name, count):
    results = run_scenarios(os.path.join(RULESETS, name))
    assert len(results) == count and all(result.ok for result in results), [r.messages for r in results]


def _run(tmp_path, name, text):
    folder = tmp_path / name
    shutil.copytree(os.path.join(RULESETS, name), folder)
    for old in (folder / "examples").glob("*.yaml"):
        old.unlink()
    (folder / "examples" / "x.yaml").write_text(text, encoding="utf-8")
    [result] = run_scenarios(str(folder))
    return result


BAD = [
    ("sealed_bid", "at_once: {0: \"bid 2\"}",
     "x.yaml:4:5: no answer for seat 1: seats [0, 1] choose at once here, each needs one (add 1: ...)"),
    ("sealed_bid", "at_once: {0: \"bid 2\", 1: \"bid 9\"}",
     "x.yaml:4:5: seat 1's answer is not one of its legal moves: bid 9; legal for seat 1: bid 1, bid 2, bid 3"),
    ("sealed_bid", "at_once: {0: \"bid 2\", 1: \"bid 2\", 2: \"bid 1\"}",
     "x.yaml:4:5: seat 2 does not choose now (choosing: [0, 1])"),
    ("sealed_bid", "at_once: {first: \"bid 2\"}", "'first' is not a seat number"),
    ("sealed_bid", "at_once: [\"bid 2\"]", "\"at_once\" takes one move per seat"),
    ("draft", "choose: {0: i, 1: z}",
     "seat 1's answer is not one of its legal moves: choose 'z'; legal for seat 1: keep d, keep c, keep e"),
    ("draft", "choose: {1: d}", "no answer for seat 0"),
    ("draft", "at_once: {0: {action: bid, args: {amount: 1}}, 1: \"keep d\"}",
     "seat 0's answer is not one of its legal moves: bid"),
]


@pytest.mark.parametrize("name,step,message", BAD)
def test_a_missing_extra_or_illegal_answer_stops_the_scenario_with_a_message(tmp_path, name, step, message):
    result = _run(tmp_path, name, f"name: x\nseed: 3\nsteps:\n  - {step}\n")
    assert not result.ok
    assert any(message in line for line in result.messages), result.messages


def test_a_plain_label_two_choosing_seats_are_offered_stops_and_names_them(tmp_path):
    result = _run(tmp_path, "sealed_bid", 'name: x\nseed: 3\nsteps:\n  - "bid 2"\n')
    assert not result.ok
    assert any("x.yaml:4:5: 'bid 2' is offered to seats [0, 1], who choose at once here" in line
               and "at_once: {0: 'bid 2', 1: ...}" in line for line in result.messages), result.messages


def test_a_step_by_seat_where_one_player_acts_alone_says_so(tmp_path):
    text = "name: x\nplayers: 2\nchance: [3, 1]\nsteps:\n  - at_once: {0: roll, 1: roll}\n"
    folder = tmp_path / "dice"
    shutil.copytree(os.path.join(RULESETS, "dice"), folder)
    (folder / "examples" / "roll.yaml").write_text(text, encoding="utf-8")
    [result] = run_scenarios(str(folder))
    assert any("a step by seat needs players choosing at once, but here player 0 acts alone" in line
               for line in result.messages), result.messages


def test_no_answer_of_a_step_is_played_when_one_of_them_is_illegal():
    from interpreter.scenario import _find_action

    state = interpreter.load(os.path.join(RULESETS, "sealed_bid")).new_game(2)
    before = state.hash()
    with pytest.raises(SeatError, match="seat 1's answer"):
        seat_moves(state, answers_by_seat(state, {"at_once": {0: "bid 2", 1: "bid 7"}}), _find_action)
    assert state.hash() == before and state.current_players == [0, 1]


def test_a_mapping_chosen_by_one_player_is_still_a_value():
    """`choose: {0: X}` is read by seat only where several players decide at once."""
    state = interpreter.load(os.path.join(RULESETS, "dice")).new_game(2)
    assert answers_by_seat(state, {"choose": {0: "x"}}) is None
    assert answers_by_seat(state, "roll") is None
