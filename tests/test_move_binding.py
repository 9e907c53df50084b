"""`move … as:` has one shape (issue 13): `as: NAME` binds the one item moved (none when the
zone was empty), `as_list: NAME` always binds the list of what moved; `as` on a move of
several items is an error that says to write `as_list`."""
import pytest

import interpreter
from interpreter.errors import RulebookError


def _game(tmp_path, move, after, deck="[1, 2, 3]"):
    (tmp_path / "game.yaml").write_text(
        "game: {name: g, players: [1], start: play}\n"
        f"vars: {{deck: {{value: {deck}}}, hand: {{value: []}}, seen: {{value: 0}}}}\n"
        f"actions:\n  draw:\n    effects: [{{move: {move}}}, \"{after}\"]\n"
        "phases:\n  play: {kind: turns, actions: [draw], rounds: 1, next: end}\n  end: {kind: end}\n")
    return interpreter.load(str(tmp_path))


def _play(rules):
    state = rules.new_game(seed=1)
    outcome = state.apply(state.legal_actions()[0])
    assert outcome, outcome
    return state.vars


def test_as_list_binds_a_list_also_for_one_item(tmp_path):
    rules = _game(tmp_path, "{from: deck, to: hand, count: 1, as_list: drawn}", "seen = len(drawn) * 10 + drawn[0]")
    assert _play(rules)["seen"] == 11


def test_as_binds_the_item_and_none_from_an_empty_zone(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    rules = _game(tmp_path / "a", "{from: deck, to: hand, as: drawn}", "seen = drawn + 5")
    assert _play(rules)["seen"] == 6
    empty = _game(tmp_path / "b", "{from: deck, to: hand, as: drawn}", "seen = 1 if drawn == none else 2", deck="[]")
    assert _play(empty)["seen"] == 1


@pytest.mark.parametrize("move", ["{from: deck, to: hand, count: 2, as: drawn}",
                                  "{from: deck, to: hand, item: '[1, 2]', as: drawn}"])
def test_as_on_a_move_of_several_items_says_to_write_as_list(tmp_path, move):
    with pytest.raises(RulebookError) as error:
        _game(tmp_path, move, "seen = 1")
    found = [d for d in error.value.diagnostics if "'as' binds one item" in d.message]
    assert found and "as_list: drawn" in found[0].hint and found[0].pos.line == 5


def test_as_and_as_list_together_is_an_error(tmp_path):
    with pytest.raises(RulebookError) as error:
        _game(tmp_path, "{from: deck, to: hand, as: one, as_list: drawn}", "seen = 1")
    assert any("not both" in d.message for d in error.value.diagnostics)
