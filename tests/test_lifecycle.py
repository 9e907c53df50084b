"""The phase lifecycle as docs/language.md states it, on tests/rulesets/lifecycle."""
import os

import pytest

import interpreter

HERE = os.path.join(os.path.dirname(__file__), "rulesets", "lifecycle")


@pytest.fixture(scope="module")
def lifecycle():
    return interpreter.load(HERE)


def _play_rounds(state):
    while state.phase == "rounds":
        assert state.apply("tick")


@pytest.mark.parametrize("players", [2, 3])
def test_on_round_runs_for_every_played_round_the_first_included(lifecycle, players):
    state = lifecycle.new_game(players)
    assert state.vars["seen_rounds"] == [1], "on_round runs before the first turn of round 1"
    _play_rounds(state)
    assert state.vars["seen_rounds"] == [1, 2], "never for round 3, which is not played"


def test_on_round_runs_before_the_first_on_turn_of_its_round(lifecycle):
    state = lifecycle.new_game(2)
    _play_rounds(state)
    assert state.vars["turn_log"] == [[1, 0], [1, 1], [2, 0], [2, 1]]


@pytest.mark.parametrize("players", [2, 3])
def test_when_nobody_can_act_the_phase_ends_at_once(lifecycle, players):
    state = lifecycle.new_game(players)
    _play_rounds(state)
    assert state.phase == "stopping"
    assert state.vars["stuck_turns"] == 1, "one empty turn shows that nobody can act"
    assert any("nobody can act" in line for line in state.log)


def test_effects_after_end_phase_run_then_the_phase_ends(lifecycle):
    state = lifecycle.new_game(2)
    _play_rounds(state)
    assert state.phase == "stopping" and state.current_player == 0
    assert state.apply("stop")
    assert state.vars["after_end"] is True, "the rest of the list ran"
    assert state.vars["exited"] is True, "on_exit ran after the list"
    assert state.phase != "stopping", "and the phase ended: player 1 got no turn"


def test_end_if_is_checked_before_a_pending_choose(lifecycle):
    state = lifecycle.new_game(2)
    _play_rounds(state)
    assert state.apply("stop")
    assert state.is_terminal, "over became true before the decision"
    assert state.pending is None and state.legal_actions() == []
    assert state.vars["picked"] == 0


def test_end_phase_nested_in_an_if_and_a_loop_lets_the_action_finish(tmp_path):
    (tmp_path / "game.yaml").write_text("""\
game: {name: nested_end, players: [2], start: play}
vars:
  visited: {value: []}
actions:
  sweep:
    effects:
      - {for: "p in players", do: [{if: "p == 0", then: [{end_phase: true}]}, "visited = visited + [p]"]}
      - "visited = visited + [9]"
phases:
  play: {kind: turns, actions: [sweep], rounds: 3, next: after}
  after: {kind: auto, next: end}
""", encoding="utf-8")
    state = interpreter.load(str(tmp_path)).new_game(2)
    assert state.apply("sweep")
    assert state.vars["visited"] == [0, 1, 9], "every effect under way ran"
    assert state.is_terminal, "and the phase ended after the first action: no further turn"


def test_on_turn_handing_the_ability_to_act_around_still_ends_the_phase(tmp_path):
    """Each player's on_turn makes only the *other* player able to act: nobody ever acts, and
    after a round of empty turns the phase ends (no endless loop)."""
    (tmp_path / "game.yaml").write_text("""\
game: {name: toggling, players: [2], start: play}
vars:
  able: {value: -1}
actions:
  act:
    requires: "able == player"
phases:
  play:
    kind: turns
    actions: [act]
    on_turn: ["able = 1 - player"]
    next: end
""", encoding="utf-8")
    state = interpreter.load(str(tmp_path), check=False).new_game(2)
    assert state.is_terminal
    assert state.log.count("nobody can act: the phase ends") == 1
