"""A parameter's values off the bounds it declares (docs/language.md "Bounds of integer
parameters") are checked where the listing reads them (engine/declared.py `checked_values`),
on both engines: a value off them that a requirement leaves out lists no move, so it is no
error; once a listed move uses it, it is the located rule error, the same text on both engines.
One action per way the listing reads a parameter's values (`shape` picks it): the one parameter
with a requirement on it, the first of two (the second's moves kept in rows), the second of two
(read once), the second of two whose values read the first (read for each), the second of two
listed by rows (no requirement on it: never left out)."""
import os
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
def test_a_value_off_its_bounds_a_listed_move_uses_is_the_rule_error(tmp_path, monkeypatch, engine, shape):
    monkeypatch.chdir(tmp_path)  # (a rule file is shown by its path from here when that is shorter)
    state, folder = _game(tmp_path, engine, shape)
    assert state.apply("allow")  # the requirement no longer leaves out a value off the bounds
    before = state.hash()
    outcome = state.apply("widen")  # the next player's moves would use one
    assert not outcome and outcome.code == "rule_error"
    said = LISTED_OFF[shape].format(where=os.path.relpath(folder / "game.yaml", tmp_path))
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


SMALL = "game: {{name: {name}, players: [2], start: play}}\nvars:\n  {var}: {{value: {value}}}\nactions:\n"
ALONE = SMALL.format(name="bounded_alone", var="past", value=0) + """\
  give:
    params:
      n: {from: "range(1, 4 + past)", max: 3}
    effects: ["past = n - 1"]
phases:
  play: {kind: turns, actions: [give], rounds: 3, next: end}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_the_one_action_of_a_phase_listed_at_once_is_checked_too(tmp_path, monkeypatch, engine):
    """The phase's one action, one parameter and no requirement: its moves listed by one
    comprehension (compiled/legal_code.py `_listed_at_once`), its values checked there."""
    (tmp_path / "game.yaml").write_text(ALONE)
    monkeypatch.chdir(tmp_path)  # (a rule file is shown by its path from here when that is shorter)
    state = interpreter.load(str(tmp_path)).new_game(2, seed=1, engine=engine)
    assert [dict(action.args)["n"] for action in state.legal_actions()] == [1, 2, 3]
    assert state.apply({"action": "give", "args": {"n": 1}})  # past 0: the next listing reads 1..3 again
    before = state.hash()
    outcome = state.apply({"action": "give", "args": {"n": 2}})  # past 1: it would read 1..4, and list 4
    assert not outcome and outcome.code == "rule_error"
    assert outcome.reason.startswith(f"the value 4 of parameter 'n' of action 'give' at game.yaml:7:7 "
                                     "lies off the range or step it declares (max: 3), but the rules list it")
    assert state.hash() == before


@pytest.mark.parametrize("shape", sorted(LISTED_OFF))
def test_the_generated_listing_finds_what_the_reference_finds(tmp_path, shape):
    """The compiled game's generated listing itself (a failing listing is otherwise played again
    by the reference): called on the vars as the rules would make them, it lists the reference's
    moves when the requirement leaves the values off the bounds out, and raises the reference's
    error when a listed move uses one."""
    from interpreter.compiled.module import game_module
    from interpreter.errors import RuleRuntimeError
    from interpreter.engine.legal import actions_for

    compiled, _ = _game(tmp_path, "compiled", shape)
    reference, _ = _game(tmp_path, "reference", shape)
    listing = game_module(compiled.rs).legal[0]
    frame = reference.d["stack"][-1]
    phase = reference.rs.phases["play"]
    for opened in (0, 1):
        game_vars = dict(compiled.V, past=1, open=opened)
        reference.d["vars"].update(past=1, open=opened)
        if opened or shape == 5:  # (shape 5 has no requirement to leave a value out)
            with pytest.raises(RuleRuntimeError) as generated:
                listing(compiled, game_vars, 0, 1)
            with pytest.raises(RuleRuntimeError) as expected:
                actions_for(reference, phase, 0, frame)
            assert str(generated.value) == str(expected.value) and "but the rules list it" in str(expected.value)
        else:
            moves = listing(compiled, game_vars, 0, 1)
            assert [move[:2] for move in moves] == [move[:2] for move in actions_for(reference, phase, 0, frame)]


BAD_STEP = SMALL.format(name="bad_step", var="half", value=1) + """\
  pick:
    params:
      n: {from: "range(0, 4)", step: half}
    requires: "n > 10"
  halve:
    effects: ["half = 0.5"]
phases:
  play: {kind: turns, actions: [pick, halve], rounds: 2, next: end}
"""


def test_a_bound_is_read_where_the_values_are_read_even_if_a_requirement_leaves_them_all_out(tmp_path):
    """The bounds are read with the values (docs/language.md): a step that is not a whole
    number is the located rule error there, on both engines alike, though no move of `pick`
    would be listed."""
    (tmp_path / "game.yaml").write_text(BAD_STEP)
    reasons = {}
    for engine in ENGINES:
        state = interpreter.load(str(tmp_path)).new_game(2, seed=1, engine=engine)
        assert [action.name for action in state.legal_actions()] == ["halve"]
        before = state.hash()
        outcome = state.apply("halve")
        assert not outcome and outcome.code == "rule_error" and state.hash() == before
        reasons[engine] = outcome.reason
    assert reasons["reference"] == reasons["compiled"]
    assert reasons["reference"].endswith("game.yaml:7:7: the step of the values of parameter 'n' of action 'pick': 0.5 "
                                         "is not a whole number of at least 1")
