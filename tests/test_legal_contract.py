"""The contract of `legal_actions()` for embedders (docs/api.md, "When a rule fails"): a rule
that fails while the legal actions are listed raises a RuleRuntimeError that names the rule's
file:line:col, and leaves the state unchanged; `apply` never raises for it (it refuses with
`rule_error`); a state reached by `apply` alone never raises (the failing move was refused)."""
from __future__ import annotations

import pytest

import interpreter
from interpreter.errors import RuleRuntimeError

GAME = """\
game: {name: divide, players: [2], start: s}
vars:
  d: {value: 1}
actions:
  zero: {effects: ["d = 0"]}
  split: {requires: "10 // d > 1"}
phases:
  s: {kind: turns, actions: [zero, split], rounds: 3, next: end}
"""


@pytest.fixture
def game(tmp_path):
    folder = tmp_path / "divide"
    folder.mkdir()
    (folder / "game.yaml").write_text(GAME)
    return interpreter.load(str(folder), check=False).new_game(2, seed=0)


def test_a_move_whose_next_listing_fails_is_refused_with_the_rule_located(game):
    before = game.hash()
    outcome = game.apply("zero")  # after it, listing 'split' would divide by zero
    assert not outcome and outcome.code == "rule_error"
    assert "game.yaml:6:" in outcome.reason and "division by zero" in outcome.reason
    assert game.hash() == before
    assert [action.label for action in game.legal_actions()] == ["zero", "split"]


def test_legal_actions_raises_a_located_error_and_changes_nothing(game):
    game.vars["d"] = 0  # a state arranged from outside (a scenario, an edited save)
    game.touched()
    before = game.hash()
    with pytest.raises(RuleRuntimeError) as raised:
        game.legal_actions()
    assert str(raised.value).startswith(str(raised.value.pos))
    assert raised.value.pos.line == 6 and "division by zero" in str(raised.value)
    assert game.hash() == before


def test_apply_refuses_instead_of_raising_when_the_listing_fails(game):
    game.vars["d"] = 0
    game.touched()
    before = game.hash()
    outcome = game.apply({"action": "zero", "args": {}})
    assert outcome.code == "rule_error" and "game.yaml:6:" in outcome.reason
    assert game.hash() == before
