"""A parameter's values off the bounds it declares (docs/language.md "Bounds of integer
parameters") are checked where the listing reads them (engine/declared.py `checked_values`),
on both engines: a value off them that a requirement leaves out lists no move, so it is no
error; once a listed move uses it, it is the located rule error, the same text on both engines.
One action per way the listing reads a parameter's values (`shape` picks it): the one parameter
with a requirement on it, the first of two (the second's moves kept in rows), the second of two
(read once), the second of two whose values read the first (read for each), the second of two
listed by rows (no requirement on it: never left out)."""
import textwrap

import pytest

import interpreter

ENGINES = ("reference", "compiled")

RULES = """\
game: {name: filtered_bounds, players: [2], start: play}
settings:
  shape: {value: 1, min: 1, max: 5}
vars:
  past: {value: 0}
  open: {value: 0}
  total: {value: 0}
actions:
  one:
    params:
      n: {from: "range(0, 7, 2 - past)", max: 6, step: 2}
    requires: ["shape == 1", "n % 2 == 0 or open == 1"]
    effects: ["total += n"]
  first:
    params:
      a: {from: "range(1, 4 + past)", min: 1, max: 3}
      b: "range(0, 2)"
    requires: ["shape == 2", "a <= 3 + open"]
    effects: ["total += a + b"]
  second:
    params:
      a: "range(0, 2)"
      b: {from: "range(1, 4 + past)", max: 3}
    requires: ["shape == 3", "b <= 3 + open"]
    effects: ["total += a + b"]
  reading:
    params:
      a: "range(1, 3)"
      b: {from: "range(a, 4 + past)", max: 3}
    requires: ["shape == 4", "b <= 3 + open"]
    effects: ["total += a + b"]
  rows:
    params:
      a: "range(0, 2)"
      b: {from: "range(1, 4 + past)", max: 3}
    requires: ["shape == 5"]
    effects: ["total += a + b"]
  widen:
    effects: ["past = 1"]
  allow:
    effects: ["open = 1"]
phases:
  play: {kind: turns, actions: [one, first, second, reading, rows, widen, allow], rounds: 3, next: end}
"""

LISTED_OFF = {  # shape: the first value a listed move uses off the bounds, its parameter and action, the bounds
    1: "the value 1 of parameter 'n' of action 'one' at {where}:11:7 lies off the range or step it declares (max: 6, step: 2)",
    2: "the value 4 of parameter 'a' of action 'first' at {where}:16:7 lies off the range or step it declares (min: 1, max: 3)",
    3: "the value 4 of parameter 'b' of action 'second' at {where}:23:7 lies off the range or step it declares (max: 3)",
    4: "the value 4 of parameter 'b' of action 'reading' at {where}:29:7 lies off the range or step it declares (max: 3)",
    5: "the value 4 of parameter 'b' of action 'rows' at {where}:35:7 lies off the range or step it declares (max: 3)",
}


def _game(tmp_path, engine, shape):
    folder = tmp_path / "rules"
    folder.mkdir(exist_ok=True)
    (folder / "game.yaml").write_text(textwrap.dedent(RULES))
    return interpreter.load(str(folder), settings={"shape": shape}).new_game(2, seed=1, engine=engine), folder


def _values(state) -> list:
    return sorted((action.name, tuple(sorted(dict(action.args).items()))) for action in state.legal_actions())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("shape", (1, 2, 3, 4))
def test_a_value_off_its_bounds_that_a_requirement_leaves_out_is_no_error(tmp_path, engine, shape):
    state, _ = _game(tmp_path, engine, shape)
    before = _values(state)
    assert state.apply("widen")  # the values read now go past the bounds; the requirement leaves those out
    assert _values(state) == before  # the same moves, none off the bounds
    assert state.apply("widen") and _values(state) == before


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("shape", sorted(LISTED_OFF))
def test_a_value_off_its_bounds_a_listed_move_uses_is_the_rule_error(tmp_path, engine, shape):
    state, folder = _game(tmp_path, engine, shape)
    assert state.apply("allow")  # the requirement no longer leaves out a value off the bounds
    before = state.hash()
    outcome = state.apply("widen")  # the next player's moves would use one
    assert not outcome and outcome.code == "rule_error"
    said = LISTED_OFF[shape].format(where=folder / "game.yaml")
    assert said + ", but the rules list it: a bug in the rules" in outcome.reason
    assert state.hash() == before and state.vars["past"] == 0


@pytest.mark.parametrize("shape", sorted(LISTED_OFF))
def test_the_rule_error_of_a_listed_value_is_the_same_text_on_both_engines(tmp_path, shape):
    reasons = {}
    for engine in ENGINES:
        state, _ = _game(tmp_path, engine, shape)
        assert state.apply("allow")
        reasons[engine] = state.apply("widen").reason
    assert reasons["reference"] == reasons["compiled"] and "but the rules list it" in reasons["reference"]
