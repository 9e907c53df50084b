"""Numbers a `choose` (of one player or of several at once) or an action's parameter declares
with `min`/`max`/`step` (docs/language.md, "Bounds of integer parameters"): play keeps the
promise as the research adapters do, on both engines. Rules that list an option off the
bounds (tests/rulesets/stepped_bids with `opening_step: 5`) stop with a rule error located at
the decision or parameter, naming the value and the bound, the same text on both engines, the
state unchanged; an answer or parameter value off the bounds handed to `apply` is refused with
that reason, the state unchanged; answers and values on them play as before."""
import os
import textwrap

import pytest

import interpreter

STEPPED = os.path.join(os.path.dirname(__file__), "rulesets", "stepped_bids")
ENGINES = ("reference", "compiled")
OFF_STEP = ("the answer 5 to the decision 'amount' (opening bid) at tests/rulesets/stepped_bids/game.yaml:24:9 lies "
            "off the range or step it declares (min: 0, max: 40, step: 10), but the rules list it: a bug in the rules")


def _answer(value, player=None):
    """The JSON form of the answer `value` to a decision (an answer the game need not list)."""
    return {"action": "choose", "args": {"value": value}, **({"player": player} if player is not None else {})}


@pytest.mark.parametrize("engine", ENGINES)
def test_options_off_the_declared_step_are_a_rule_error_at_the_decision_the_state_unchanged(engine):
    state = interpreter.load(STEPPED, settings={"opening_step": 5}).new_game(2, seed=0, engine=engine)
    before = state.hash()
    outcome = state.apply("open")
    assert not outcome and outcome.code == "rule_error"
    assert outcome.reason.startswith(OFF_STEP)
    assert state.hash() == before and state.pending is None and state.phase == "opening"


def test_the_rule_error_is_the_same_text_on_both_engines():
    reasons = {engine: interpreter.load(STEPPED, settings={"opening_step": 5}).new_game(2, seed=0, engine=engine)
               .apply("open").reason for engine in ENGINES}
    assert reasons["reference"] == reasons["compiled"]


@pytest.mark.parametrize("engine", ENGINES)
def test_an_answer_off_the_declared_step_is_refused_with_its_reason(engine):
    state = interpreter.load(STEPPED).new_game(2, seed=0, engine=engine)
    assert state.apply("open")
    labels = [action.label for action in state.legal_actions()]
    assert labels == [f"choose {amount}" for amount in range(0, 41, 10)]
    before = state.hash()
    for answer, said in ((15, "15"), (50, "50"), (-10, "-10"), (2.5, "2.5")):
        outcome = state.apply(_answer(answer))
        assert not outcome and outcome.code == "not_an_option"
        assert outcome.reason == (f"the answer {said} to the decision 'amount' (opening bid) at "
                                  "tests/rulesets/stepped_bids/game.yaml:24:9 lies off the range or step it declares "
                                  "(min: 0, max: 40, step: 10)")
        assert state.hash() == before and state.pending["prompt"] == "opening bid"
    assert state.apply(_answer("ten")).reason == "ten is not one of the options"  # not a number: not one
    assert state.apply_id(labels.index("choose 20"))
    assert state.vars["bid"] == 20 and state.pending is None


def _loaded(tmp_path, text: str):
    """The ruleset of one game.yaml holding `text` (in a folder of its own under tmp_path)."""
    folder = tmp_path / f"rules{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    (folder / "game.yaml").write_text(textwrap.dedent(text))
    return interpreter.load(str(folder))


def _rules(tmp_path, actions: str, phase_actions: str):
    """One turn each of a game whose actions are `actions` (YAML at the actions' level)."""
    return _loaded(tmp_path, "game: {name: bounded, players: [2], start: play}\n"
                             "settings:\n  top: {value: 5, min: 1, max: 9}\n"
                             "vars:\n  got: {value: -1}\n"
                             f"actions:\n{textwrap.indent(textwrap.dedent(actions), '  ')}"
                             f"phases:\n  play: {{kind: turns, actions: [{phase_actions}], rounds: 1, next: end}}\n")


def _ruleset(tmp_path, options: str, bounds: str):
    """Its action `pick` asks for a number from `options` that declares `bounds`."""
    return _rules(tmp_path, """\
        pick:
          effects:
            - {let: {low: 2}}
            - {choose: {from: "%s", as: n, %s, prompt: "how many?"}}
            - "got = n"
        """ % (options, bounds), "pick")


@pytest.mark.parametrize("engine", ENGINES)
def test_answers_below_min_or_above_max_are_refused_min_and_max_read_settings_and_locals(tmp_path, engine):
    state = _ruleset(tmp_path, "range(low, top + 1)", 'min: "low", max: top').new_game(2, seed=3, engine=engine)
    assert state.apply("pick")
    assert [action.label for action in state.legal_actions()] == [f"choose {n}" for n in range(2, 6)]
    before = state.hash()
    for answer in (1, 6, 7):
        outcome = state.apply(_answer(answer))
        assert not outcome and outcome.reason.endswith("declares (min: 2, max: 5)") and state.hash() == before
    assert state.apply("choose 5") and state.vars["got"] == 5


@pytest.mark.parametrize("engine", ENGINES)
def test_options_below_min_or_above_max_are_a_rule_error(tmp_path, engine):
    state = _ruleset(tmp_path, "range(0, 8)", 'min: "low", max: top').new_game(2, seed=3, engine=engine)
    before = state.hash()
    outcome = state.apply("pick")
    assert not outcome and outcome.code == "rule_error"
    assert "the answer 0 to the decision 'n' (how many?) at " in outcome.reason
    assert "declares (min: 2, max: 5), but the rules list it" in outcome.reason
    assert state.hash() == before


@pytest.mark.parametrize("engine", ENGINES)
def test_a_single_option_off_the_bounds_is_a_rule_error_not_bound_at_once(tmp_path, engine):
    state = _ruleset(tmp_path, "[top + 10]", "max: top").new_game(2, seed=3, engine=engine)
    outcome = state.apply("pick")
    assert not outcome and "the answer 15 to the decision 'n' (how many?) at " in outcome.reason
    assert state.vars["got"] == -1
    assert _ruleset(tmp_path, "[top]", "max: top").new_game(2, seed=3, engine=engine).apply("pick")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_step_without_min_counts_from_0(tmp_path, engine):
    state = _ruleset(tmp_path, "range(0, 8, 3)", "step: 3").new_game(2, seed=3, engine=engine)
    assert state.apply("pick")
    assert not state.apply(_answer(4))
    assert state.apply("choose 6") and state.vars["got"] == 6
    assert "the answer 1 to the decision 'n'" in _ruleset(tmp_path, "range(1, 8, 3)", "step: 3").new_game(
        2, seed=3, engine=engine).apply("pick").reason


def test_the_web_table_refuses_the_move_with_the_rule_error():
    pytest.importorskip("starlette")
    from interpreter.web.table import Refused, Table

    class Store:
        def add_move(self, *args):
            raise AssertionError("a refused move is not stored")

    ruleset = interpreter.load(STEPPED, settings={"opening_step": 5})
    table = Table({"id": "t", "seats": ["human", "human"], "delay": 0, "players": 2, "seed": 0}, ruleset)
    opening = table.choose(table.state.current_player, table.state.steps, 0)
    # a seat reads the public text: the listed value and the bounds' values may be secrets
    with pytest.raises(Refused, match=r"a listed answer to the decision 'amount' \(opening bid\) .*step: 10\), but"):
        table.apply(opening, Store())
    assert table.history == []


def test_check_warns_of_decisions_sharing_answer_and_prompt_of_which_only_some_declare_a_bound(tmp_path):
    ruleset = _loaded(tmp_path, """\
        game: {name: shared_prompt, players: [2], start: play}
        vars:
          got: {value: 0}
        actions:
          low:
            effects:
              - {choose: {from: "range(0, 8)", as: n, max: 7, prompt: "how many?"}}
              - "got = n"
          high:
            effects:
              - {choose: {from: "range(0, 20)", as: n, prompt: "how many?"}}
              - "got = n"
        phases:
          play: {kind: turns, actions: [low, high], rounds: 1, next: end}
        """)
    found = [w for w in ruleset.warnings if w.code == "decision-bounds"]
    assert len(found) == 1
    (warning,) = found
    assert (warning.pos.line, warning.severity) == (11, "warning")
    assert "decision 'n' (how many?) declares no min/max/step here, but it does at " in warning.message
    assert "game.yaml:7:" in warning.message
    assert not [w for w in interpreter.load(STEPPED).warnings if w.code == "decision-bounds"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_step_that_is_a_whole_float_is_that_whole_number(tmp_path, engine):
    # `top * 1.0` is 5.0: the adapters read it as 5, and play too (it was a rule error)
    state = _ruleset(tmp_path, "range(0, 8)", 'step: "top * 1.0"').new_game(2, seed=3, engine=engine)
    assert "declares (step: 5), but the rules list it" in state.apply("pick").reason
    state = _ruleset(tmp_path, "range(0, 8, 5)", 'step: "top * 1.0"').new_game(2, seed=3, engine=engine)
    assert state.apply("pick")
    outcome = state.apply(_answer(4))
    assert not outcome and "(step: 5)" in outcome.reason
    assert state.apply("choose 5") and state.vars["got"] == 5


@pytest.mark.parametrize("engine", ENGINES)
def test_a_step_that_is_not_a_whole_number_is_a_located_rule_error(tmp_path, engine):
    outcome = _ruleset(tmp_path, "range(0, 8)", 'step: "top / 2"').new_game(2, seed=3, engine=engine).apply("pick")
    assert not outcome and outcome.code == "rule_error"
    assert outcome.reason.endswith("game.yaml:10:9: the step of the answers to the decision 'n' (how many?): 2.5 is "
                                   "not a whole number of at least 1")


def test_the_adapters_count_a_step_without_min_from_0_as_play_does(tmp_path):
    from interpreter.adapters.bounds import Bounds
    bounds = Bounds(_ruleset(tmp_path, "range(0, 8, 3)", "step: 3"), 2)
    counted = bounds.choice({"from": "range(1, 8)", "as": "n", "max": 7, "step": 3})
    assert counted.values == (3, 6)  # not 1, 4, 7: play refuses those


def test_validation_warns_of_numbers_from_settings_alone_listed_off_their_bounds(tmp_path):
    found = [w for w in interpreter.load(STEPPED, settings={"opening_step": 5}).warnings if w.code == "declared-bounds"]
    assert [(w.pos.line, w.pos.col, w.severity) for w in found] == [(24, 9, "warning")]
    assert found[0].message.startswith(OFF_STEP.split(", but")[0] + ", but the rules list it")
    assert not [w for w in interpreter.load(STEPPED).warnings if w.code == "declared-bounds"]
    # numbers that read the state are left to play
    assert not [w for w in _ruleset(tmp_path, "range(0, got + 9)", "max: top").warnings if w.code == "declared-bounds"]
    filtered = _parameters(tmp_path, "n: {from: \"range(1, top + 2)\", max: top}\n"
                                     "m: {from: \"range(1, top + 2)\", max: top}", '["got >= 0", "m > n"]')
    assert not [w for w in filtered.warnings if w.code == "declared-bounds"]  # `m > n` may keep 6 out
    unfiltered = _parameters(tmp_path, "n: {from: \"range(1, top + 2)\", max: top}", '"got >= 0"')
    (warning,) = [w for w in unfiltered.warnings if w.code == "declared-bounds"]
    assert warning.message.startswith("the value 6 of parameter 'n' of action 'give' at ") and warning.pos.line == 9


def _parameters(tmp_path, params: str, requires: str):
    """Its action `give` (listed once `start` is made) has the parameters `params`."""
    return _rules(tmp_path, """\
        give:
          params:
        %s
          requires: %s
          effects: ["got = n"]
        start:
          effects: ["got = 0"]
        """ % (textwrap.indent(params, " " * 12)[8:], requires), "give, start")


def test_rulebook_validate_and_check_say_it(tmp_path):
    import io

    from interpreter.cli import run

    def cli(*argv):
        out, err = io.StringIO(), io.StringIO()
        return run(list(argv), out, err, io.StringIO()), out.getvalue() + err.getvalue()

    rules = _ruleset(tmp_path, "[0, 3, top + 5]", "max: top")
    code, said = cli("validate", rules.folder)
    assert code == 0 and "warning[declared-bounds]: the answer 10 to the decision 'n' (how many?)" in said
    code, said = cli("check", STEPPED, "--conformance", "--games", "1", "--set", "opening_step=5")
    assert code == 1 and "refused: rule_error: " + OFF_STEP in said
