"""The batch calls for agents (issue 15): `legal_action_ids()`, `legal_action(i)`,
`action_key(i)`, `apply_id(i)` and `undo(n)`, and the log kept beside the state (built when
read). Each is checked against the plain API on seeded games of the bundled rulesets."""
import os
import random
import textwrap

import pytest

import interpreter
from interpreter.engine.effects import LOG_LIMIT

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = (("tictactoe", 2), ("kuhn-poker", 2), ("davos", 4), ("deep-state", 3))


@pytest.mark.parametrize("name,players", GAMES)
def test_ids_name_the_legal_actions_in_order(name, players):
    state = interpreter.load(name).new_game(players, seed=4)
    rng = random.Random(4)
    for _ in range(40):
        if state.is_terminal:
            break
        ids = state.legal_action_ids()
        actions = state.legal_actions()
        assert ids == list(range(len(actions)))
        for index in ids:
            assert state.legal_action(index) is actions[index]
            assert state.action_key(index) == actions[index].key
        state.apply(actions[rng.randrange(len(actions))])


@pytest.mark.parametrize("name,players", GAMES)
def test_apply_id_plays_the_same_game_as_apply(name, players):
    ruleset = interpreter.load(name)
    by_action, by_id = ruleset.new_game(players, seed=9), ruleset.new_game(players, seed=9)
    rng = random.Random(9)
    for _ in range(60):
        if by_action.is_terminal:
            break
        index = rng.randrange(len(by_id.legal_action_ids()))
        assert by_action.apply(by_action.legal_actions()[index])
        assert by_id.apply_id(index)
        assert by_id.hash() == by_action.hash()
        assert by_id.log == by_action.log
    assert by_id.history() == by_action.history()


@pytest.mark.parametrize("name,players", GAMES)
def test_undo_gives_back_exactly_the_state_before(name, players):
    state = interpreter.load(name).new_game(players, seed=2)
    rng = random.Random(2)
    before = []
    for _ in range(25):
        if state.is_terminal:
            break
        before.append((state.to_json(), state.hash(), [a.label for a in state.legal_actions()]))
        assert state.apply_id(rng.choice(state.legal_action_ids()))
    while before:
        text, digest, labels = before.pop()
        assert state.undo()
        assert state.to_json() == text and state.hash() == digest
        assert [a.label for a in state.legal_actions()] == labels
    assert not state.undo() and state.undo().code == "nothing_to_undo"


def test_undo_of_several_moves_at_once_and_a_copy_keeps_its_own_log():
    state = interpreter.load("davos").new_game(4, seed=1)
    start = state.to_json()
    rng = random.Random(1)
    made = 0
    while made < 30 and not state.is_terminal:
        made += bool(state.apply_id(rng.choice(state.legal_action_ids())))
    twin = state.copy()
    twin_log = twin.log
    assert state.undo(made)
    assert state.to_json() == start
    assert twin.log == twin_log, "taking moves back does not change a copy made after them"
    assert not state.undo(1), "no undo point is left"


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_log_taken_back_by_undo_is_not_written_to_while_a_copy_holds_it(engine):
    """undo() puts the log back to the list of its undo point; a copy (or a compiled game's
    memoised start position) may hold that list too: the next line goes to a new list."""
    ruleset = interpreter.load(os.path.join(ROOT, "tests", "rulesets", "private_lines"))
    game = ruleset.new_game(3, seed=1, engine=engine)
    copy = game.copy()
    assert game.apply_id(0) and game.undo() and game.apply_id(0)
    assert len(game.log) == 4
    assert copy.log == ["— play —"] == ruleset.new_game(3, seed=1, engine=engine).log


@pytest.mark.parametrize("engine", ["reference", "compiled"])
@pytest.mark.parametrize("name", ["davos", "kuhn-poker", "corporate-times"])
def test_a_copy_that_moves_undoes_and_moves_again_leaves_the_original_s_log_alone(name, engine):
    """A copy shares the log list until it writes; a move taken back gives it the shared list
    again, which it must copy before the next line (it wrote into the original's log)."""
    ruleset = interpreter.load(name)
    tried = 0
    for seed in range(10):
        state = ruleset.new_game(ruleset.players[0], seed=seed, engine=engine)
        rng = random.Random(seed)
        for _ in range(30):
            if state.is_terminal:
                break
            index = rng.randrange(len(state.legal_action_ids()))
            before, twin = list(state.log), state.copy()
            assert twin.apply_id(index)
            if len(twin.log) > len(before):  # the move writes a line
                assert twin.undo() and twin.apply_id(index)
                assert list(state.log) == before
                tried += 1
            assert state.apply_id(index)
    assert tried, "no move wrote a line: pick other seeds"


def test_apply_id_refuses_an_id_that_is_not_legal_and_changes_nothing():
    state = interpreter.load("tictactoe").new_game(2)
    before = state.to_json()
    for bad in (-1, 9, "0", 1.0, None):
        outcome = state.apply_id(bad)
        assert not outcome and outcome.code == "bad_action"
        assert state.to_json() == before


def test_a_rule_error_under_apply_id_changes_nothing_and_keeps_no_undo_point(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "game.yaml").write_text(textwrap.dedent("""\
        game: {name: broken, players: [2], start: play}
        vars:
          x: {value: 0}
          zero: {value: 0}
        actions:
          divide: {effects: ["x += 100", {log: "x is {x}"}, "x = x // zero"]}
          step: {effects: ["x += 1", {log: "x is {x}"}]}
        phases:
          play: {kind: turns, actions: [divide, step], next: end}
        """), encoding="utf-8")
    state = interpreter.load(str(folder)).new_game(2)
    before, log = state.to_json(), state.log
    outcome = state.apply_id(0)
    assert not outcome and outcome.code == "rule_error"
    assert state.to_json() == before and state.log == log
    assert not state.undo(), "a refused move leaves no undo point"
    assert state.apply_id(1) and state.log[-1] == "x is 1"
    assert state.undo() and state.log == log


def test_the_log_keeps_its_last_lines_as_before(tmp_path):
    """More lines than LOG_LIMIT: the older half goes each time it is exceeded."""
    folder = tmp_path / "chatty"
    folder.mkdir()
    (folder / "game.yaml").write_text(textwrap.dedent("""\
        game: {name: chatty, players: [1], start: play}
        vars:
          n: {value: 0}
          items: {value: [1, 2]}
        actions:
          say: {effects: ["n += 1", {log: "line {n} of {items} {n > 3} {none}"}]}
        phases:
          play: {kind: turns, actions: [say], end: "n >= 450", next: end}
        """), encoding="utf-8")
    state = interpreter.load(str(folder)).new_game(1)
    expected = list(state.log)
    for _ in range(450):
        state.apply(state.legal_actions()[0])
        expected.append(f"line {state.vars['n']} of [1, 2] {'true' if state.vars['n'] > 3 else 'false'} none")
        if len(expected) > LOG_LIMIT:
            del expected[:LOG_LIMIT // 2]
    assert state.log == expected


POT_GAME = """\
game: {name: pot, players: [2], start: play}
vars:
  pot: {value: 0}
actions:
  raise:
    label: "raise the pot from {pot} to {pot + n}"
    params: {n: "[1, 2, 3]"}
    effects: ["pot += n"]
phases:
  play: {kind: turns, actions: [raise], next: end}
"""


def test_a_label_that_reads_the_state_is_the_one_of_the_state_it_was_listed_in(tmp_path):
    folder = tmp_path / "pot"
    folder.mkdir()
    (folder / "game.yaml").write_text(POT_GAME, encoding="utf-8")
    ruleset = interpreter.load(str(folder))
    state = ruleset.new_game(2)
    listed = state.legal_actions()  # no label read yet
    assert state.apply(listed[1])
    assert [action.label for action in listed] == [f"raise the pot from 0 to {n}" for n in (1, 2, 3)]
    first, third = state.legal_action(0), state.legal_action(2)  # built alone, labels not read
    assert state.apply_id(1)
    assert (first.label, third.label) == ("raise the pot from 2 to 3", "raise the pot from 2 to 5")
    assert [entry["action"]["label"] for entry in state.history()] == ["raise the pot from 0 to 2",
                                                                       "raise the pot from 2 to 4"]
    assert state.undo() and state.legal_actions()[0].label == "raise the pot from 2 to 3"
