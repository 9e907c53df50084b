"""The engine under hostile or broken rules and saves (issue 16, items 6, 8, 9, 10): apply is
atomic for the engine's own errors, operand types are checked at validation where they are
known, labels are rendered when listed, saves are checked when read back, work is bounded."""
import io
import json
import textwrap

import pytest

import interpreter
from interpreter.cli import run
from interpreter.errors import RulebookError, RuleRuntimeError
from interpreter.state import SaveError, State


def write_game(tmp_path, body, name="hostile"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "game.yaml").write_text(textwrap.dedent(body), encoding="utf-8")
    return str(folder)


GAME = """\
game: {name: hostile, players: [2], start: play}
vars:
  x: {value: 0}
  deck: {value: 5}
  word: {value: "abc"}
  zero: {value: 0}
  pot: {value: 0}
actions:
  shuffle_number: {effects: ["x += 100", {shuffle: deck}]}
  random_number: {effects: ["x += 100", {random: {from: deck, as: r}}]}
  loop_number: {effects: ["x += 100", {for: "i in deck", do: ["x += 1"]}]}
  choose_text: {effects: ["x += 100", {choose: {from: "[1, 2, 3]", count: word, as: c}}]}
  move_text: {effects: ["x += 100", {move: {from: "[1, 2]", to: "[]", count: word}}]}
  divide: {effects: ["x += 100", "x = x // zero"]}
  raise:
    label: "raise the pot from {pot} to {pot + 1}"
    effects: ["pot += 1"]
phases:
  play: {kind: turns, actions: [shuffle_number, random_number, loop_number, choose_text, move_text, divide, raise], next: end}
"""

BROKEN = ["shuffle_number", "random_number", "loop_number", "choose_text", "move_text", "divide"]


@pytest.fixture()
def hostile(tmp_path):
    return interpreter.load(write_game(tmp_path, GAME))


@pytest.mark.parametrize("action", BROKEN)
def test_an_error_inside_an_effect_is_a_rule_error_and_changes_nothing(hostile, action):
    state = hostile.new_game(2)
    before = state.to_json()
    outcome = state.apply(by_name(state, action))
    assert not outcome and outcome.code == "rule_error", outcome
    assert "game.yaml:" in outcome.reason, "the reason names the rule's file and line"
    assert state.to_json() == before and state.vars["x"] == 0
    assert state.apply(by_name(state, "raise")), "the game goes on"


def test_a_label_is_rendered_when_the_action_is_listed(hostile):
    state = hostile.new_game(2)
    listed = [a for a in state.legal_actions() if a.name == "raise"][0]
    assert listed.label == "raise the pot from 0 to 1"
    assert state.apply(listed)
    assert listed.label == "raise the pot from 0 to 1", "not re-read from the later state"
    assert state.history()[-1]["action"]["label"] == "raise the pot from 0 to 1"
    assert [a.label for a in state.legal_actions() if a.name == "raise"] == ["raise the pot from 1 to 2"]


@pytest.mark.parametrize("effect,message", [
    ('{shuffle: "5"}', "'shuffle' needs a list"),
    ('{random: {from: "3", as: r}}', "'random from' needs a list or a map"),
    ('{for: "i in 3", do: []}', "'for' loops over a list or a map"),
    ('{choose: {from: "[1, 2]", count: "\'two\'", as: c}}', "'choose count' needs a number"),
    ('{move: {from: "[1]", to: "[]", count: "true"}}', "'move count' needs a number"),
])
def test_operand_types_known_statically_are_checked_at_validation(tmp_path, effect, message):
    body = f"""\
    game: {{name: typed, players: [2], start: s}}
    phases:
      s:
        kind: auto
        effects: [{effect}]
        next: end
    """
    with pytest.raises(RulebookError) as info:
        interpreter.load(write_game(tmp_path, body, "typed"))
    assert any(message in d.message and d.code == "type" for d in info.value.diagnostics), info.value.render()


@pytest.mark.parametrize("setting,message", [
    ("rounds: \"'three'\"", "'rounds' needs a number"),
    ("players: \"2\"", "'players' needs a list"),
    ("actions_per_turn: \"[1]\"", "'actions_per_turn' needs a number"),
])
def test_phase_settings_known_statically_are_checked_at_validation(tmp_path, setting, message):
    body = f"""\
    game: {{name: typed, players: [2], start: s}}
    actions:
      go: {{effects: []}}
    phases:
      s:
        kind: turns
        actions: [go]
        {setting}
        next: end
    """
    with pytest.raises(RulebookError) as info:
        interpreter.load(write_game(tmp_path, body, "typed"))
    assert any(message in d.message for d in info.value.diagnostics), info.value.render()


def by_name(state, name):
    return [a for a in state.legal_actions() if a.name == name][0]


def _tampered(state, change):
    data = json.loads(state.to_json())
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize("change,reason", [
    (lambda d: d["state"]["stack"][0].update(player=7), "not one of the 2 players"),
    (lambda d: d["state"]["stack"][0].update(phase="nowhere"), "phase 'nowhere' does not exist"),
    (lambda d: d["state"]["vars"].update(intruder=1), "var 'intruder' is not declared"),
    (lambda d: d["state"]["vars"].pop("board"), "declared var 'board' is missing"),
    (lambda d: d["state"].update(step="many"), "'step' is not a int"),
    (lambda d: d["state"]["stack"].append({"kind": "mystery"}), "no known kind"),
    (lambda d: d.update(format=1), "format"),
    (lambda d: d.update(digest="0" * 16), "rules of tictactoe changed"),
    (lambda d: d.update(ruleset="kuhn-poker"), "saved under 'kuhn-poker'"),
])
def test_from_json_refuses_a_damaged_or_foreign_save_with_its_reason(change, reason):
    ttt = interpreter.load("tictactoe")
    state = ttt.new_game(2)
    with pytest.raises(SaveError) as info:
        State.from_json(ttt, _tampered(state, change))
    assert reason in str(info.value)


def test_from_json_refuses_text_that_is_not_a_save():
    ttt = interpreter.load("tictactoe")
    for text in ("not json", "[1, 2]", "{}", '{"state": 5}'):
        with pytest.raises(SaveError):
            State.from_json(ttt, text)


def test_a_save_round_trips_with_its_history():
    ttt = interpreter.load("tictactoe")
    state = ttt.new_game(2)
    assert state.apply(state.legal_actions()[4])
    again = State.from_json(ttt, state.to_json())
    assert again.hash() == state.hash() and again.history() == state.history()


def test_parameter_enumeration_charges_every_combination_tried(tmp_path):
    body = """\
    game: {name: product, players: [2], start: s}
    actions:
      pick:
        params: {a: "range(0, 100000)", b: "range(0, 100000)"}
        requires: "a + b < 0"
    phases:
      s: {kind: turns, actions: [pick], next: end}
    """
    folder = write_game(tmp_path, body, "product")
    with pytest.raises(RulebookError, match="work bound"):  # validation plays the set-up: it ends
        interpreter.load(folder)
    rs = interpreter.load(folder, check=False)
    with pytest.raises(RuleRuntimeError, match="work bound"):
        rs.new_game(2)


def test_a_state_that_grows_past_the_size_guard_refuses_the_next_move(monkeypatch, hostile):
    from interpreter.engine import state as engine_state

    game = hostile.new_game(2)
    monkeypatch.setattr(engine_state, "MAX_STATE_BYTES", 10)
    before = game.hash()
    outcome = game.apply(by_name(game, "raise"))
    assert not outcome and outcome.code == "rule_error" and "grew past" in outcome.reason
    assert game.hash() == before


def test_play_stops_an_agent_that_keeps_proposing_refused_moves(monkeypatch, tmp_path):
    import interpreter.agents as agents
    from interpreter.state import Action

    class Stubborn(agents.Agent):
        def act(self, state, player):
            return Action("no-such-move", {}, player)

    monkeypatch.setattr(agents, "make_agent", lambda spec, seed=0: Stubborn(seed))
    out, err = io.StringIO(), io.StringIO()
    code = run(["play", "tictactoe", "--agents", "random", "--save", str(tmp_path / "g.json")],
               stdout=out, stderr=err, stdin=io.StringIO())
    assert code == 1
    assert "refused moves in a row" in err.getvalue()
    assert out.getvalue().count("refused:") == 20


# ------------------------------------------------------------------ saves and histories
def test_from_history_plays_a_game_again():
    from interpreter.state import State

    kuhn = interpreter.load("kuhn-poker")
    state = kuhn.new_game(2, chance="manual")
    for card in ("K", "J"):
        assert state.apply_chance(card)
    assert state.apply(state.legal_actions()[1])
    again = State.from_history(kuhn, 2, state.history())
    assert again.hash() == state.hash()
    seeded = kuhn.new_game(2, seed=9)
    assert seeded.apply(seeded.legal_actions()[0])
    assert State.from_history(kuhn, 2, seeded.history(), seed=9).hash() == seeded.hash()


def test_from_history_names_the_first_step_no_longer_legal(tmp_path):
    from interpreter.state import HistoryError, State

    body = GAME
    rs = interpreter.load(write_game(tmp_path, body))
    state = rs.new_game(2)
    assert state.apply(by_name(state, "raise")) and state.apply(by_name(state, "raise"))
    edited = interpreter.load(write_game(tmp_path, body.replace("effects: [\"pot += 1\"]",
                                                                "requires: \"pot < 1\"\n    effects: [\"pot += 1\"]"),
                                         "edited"), check=False)
    with pytest.raises(SaveError, match="changed"):
        State.from_json(edited, state.to_json())
    with pytest.raises(HistoryError) as info:
        State.from_history(edited, 2, state.history())
    assert info.value.step == 1 and "requires pot < 1" in info.value.reason
    assert info.value.state.vars["pot"] == 1, "the game up to that step is kept"


def test_replay_plays_a_saved_state_with_chance_again(tmp_path):
    kuhn = interpreter.load("kuhn-poker")
    state = kuhn.new_game(2, chance="manual")
    for card in ("Q", "K"):
        assert state.apply_chance(card)
    assert state.apply(state.legal_actions()[0])
    save = tmp_path / "kuhn.json"
    save.write_text(state.to_json(), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert run(["replay", str(save)], stdout=out, stderr=err, stdin=io.StringIO()) == 0, err.getvalue()
    assert "chance: 'Q'" in out.getvalue() and f"state hash {state.hash()}" in out.getvalue()


@pytest.mark.parametrize("replay,code", [
    ('{"ruleset": "tictactoe", "players": 2, "seed": 1e400, "actions": []}', 1),
    ('{"ruleset": "tictactoe", "players": 2, "actions": [{"action": ["x"], "args": {}}]}', 1),
    ('{"ruleset": "tictactoe", "players": 2, "actions": [{"action": "place", "args": ' + "[" * 100000 + "]" * 100000 + '}]}', 1),
    ('{"ruleset": "tictactoe", "players": 2, "actions": [{"action": "place", "args": {}, "label": "\\ud800"}]}', 1),
    ('{"ruleset": "tictactoe", "players": 2, "actions": [5]}', 1),
])
def test_replay_of_a_hostile_file_is_an_error_not_a_traceback(tmp_path, replay, code):
    path = tmp_path / "r.json"
    path.write_text(replay, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert run(["replay", str(path)], stdout=out, stderr=err, stdin=io.StringIO()) == code
    assert "Traceback" not in err.getvalue()


def test_apply_with_a_list_as_the_action_name_is_refused():
    state = interpreter.load("tictactoe").new_game(2)
    outcome = state.apply({"action": ["place"], "args": {}})
    assert not outcome and outcome.code == "bad_action"


def test_an_action_of_the_wrong_player_is_refused_even_when_its_move_is_legal():
    from interpreter.state import Action

    state = interpreter.load("tictactoe").new_game(2)
    listed = state.legal_actions()[0]
    outcome = state.apply(Action(listed.name, listed.args, player=1))
    assert not outcome and outcome.code == "not_your_turn"
    assert state.apply(Action(listed.name, listed.args, player=0))


def test_an_error_in_a_phase_setting_names_the_phase_and_changes_nothing(tmp_path):
    body = """\
    game: {name: settings, players: [2], start: play}
    vars:
      limit: {value: 1}
      count: {value: 0}
    actions:
      go: {effects: ["count += 1", "limit = 'many'"]}
    phases:
      play: {kind: turns, actions: [go], rounds: limit, next: end}
    """
    rs = interpreter.load(write_game(tmp_path, body, "settings"))
    state = rs.new_game(2)
    before = state.to_json()
    outcome = state.apply("go")
    assert not outcome and outcome.code == "rule_error"
    assert "phase 'play'" in outcome.reason and "game.yaml:" in outcome.reason, outcome.reason
    assert state.to_json() == before
