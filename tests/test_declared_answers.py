"""A `choose` that declares `min`/`max`/`step` (docs/language.md, "Bounds of integer
parameters"): play keeps the promise as the research adapters do. An answer off the declared
range or step is refused with the reason (the decision's answer name, prompt, file:line:col and
bound), the state unchanged, on both engines, through `apply`, `apply_id` and the web table;
an answer on it is taken (tests/rulesets/stepped_bids, whose setting `opening_step: 5` makes the
rules offer opening bids off their step of 10)."""
import os
import textwrap

import pytest

import interpreter

STEPPED = os.path.join(os.path.dirname(__file__), "rulesets", "stepped_bids")
ENGINES = ("reference", "compiled")


def _at_opening_bid(engine, opening_step=5):
    state = interpreter.load(STEPPED, settings={"opening_step": opening_step}).new_game(2, seed=0, engine=engine)
    assert state.apply("open")
    assert state.pending["prompt"] == "opening bid"
    return state


@pytest.mark.parametrize("engine", ENGINES)
def test_an_answer_off_the_declared_step_is_refused_with_its_reason(engine):
    state = _at_opening_bid(engine)
    labels = [action.label for action in state.legal_actions()]
    assert labels == [f"choose {amount}" for amount in range(0, 41, 5)]  # the rules offer them
    before = state.hash()
    outcome = state.apply("choose 15")
    assert not outcome and outcome.code == "refused"
    assert "the answer 15 to the decision 'amount' (opening bid) at " in outcome.reason
    assert "stepped_bids/game.yaml:" in outcome.reason
    assert "lies off the range or step it declares (min: 0, max: 40, step: 10)" in outcome.reason
    assert state.hash() == before and state.pending["prompt"] == "opening bid"
    refused = state.apply_id(labels.index("choose 5"))
    assert not refused and refused.reason == outcome.reason.replace("15", "5", 1)
    assert state.hash() == before
    assert state.apply_id(labels.index("choose 20"))
    assert state.vars["bid"] == 20 and state.pending is None


@pytest.mark.parametrize("engine", ENGINES)
def test_answers_on_the_step_play_as_before(engine):
    state = _at_opening_bid(engine, opening_step=10)
    assert [action.label for action in state.legal_actions()] == [f"choose {amount}" for amount in range(0, 41, 10)]
    assert state.apply("choose 30") and state.vars["bid"] == 30


def _loaded(tmp_path, text: str):
    """The ruleset of one game.yaml holding `text` (in a folder of its own under tmp_path)."""
    folder = tmp_path / f"rules{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    (folder / "game.yaml").write_text(textwrap.dedent(text))
    return interpreter.load(str(folder))


def _ruleset(tmp_path, bounds: str):
    return _loaded(tmp_path, """\
        game: {name: bounded_answer, players: [2], start: play}
        settings:
          top: {value: 5, min: 1, max: 9}
        vars:
          got: {value: -1}
        actions:
          pick:
            effects:
              - {let: {low: 2}}
              - {choose: {from: "range(0, 8)", as: n, %s, prompt: "how many?"}}
              - "got = n"
        phases:
          play: {kind: turns, actions: [pick], rounds: 1, next: end}
        """ % bounds)


@pytest.mark.parametrize("engine", ENGINES)
def test_answers_below_min_or_above_max_are_refused_min_and_max_read_settings_and_locals(tmp_path, engine):
    ruleset = _ruleset(tmp_path, 'min: "low", max: top')
    state = ruleset.new_game(2, seed=3, engine=engine)
    assert state.apply("pick")
    before = state.hash()
    for answer, bound in ((1, "min: 2, max: 5"), (6, "min: 2, max: 5"), (7, "min: 2, max: 5")):
        outcome = state.apply(f"choose {answer}")
        assert not outcome and f"declares ({bound})" in outcome.reason and state.hash() == before
    assert state.apply("choose 5") and state.vars["got"] == 5


@pytest.mark.parametrize("engine", ENGINES)
def test_a_step_without_min_counts_from_0(tmp_path, engine):
    state = _ruleset(tmp_path, "step: 3").new_game(2, seed=3, engine=engine)
    assert state.apply("pick")
    assert not state.apply("choose 4")
    assert state.apply("choose 6") and state.vars["got"] == 6


def test_the_web_table_refuses_it_with_the_reason():
    pytest.importorskip("starlette")
    from interpreter.web.table import Refused, Table

    class Store:
        def add_move(self, *args):
            raise AssertionError("a refused move is not stored")

    ruleset = interpreter.load(STEPPED, settings={"opening_step": 5})
    table = Table({"id": "t", "seats": ["human", "human"], "delay": 0, "players": 2, "seed": 0}, ruleset)
    table.state.apply("open")
    answer = [action for action in table.state.legal_actions() if action.label == "choose 5"][0]
    with pytest.raises(Refused, match=r"the answer 5 to the decision 'amount' \(opening bid\) .*step: 10"):
        table.apply(answer, Store())


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
    state = _ruleset(tmp_path, 'step: "top * 1.0"').new_game(2, seed=3, engine=engine)
    assert state.apply("pick")
    outcome = state.apply("choose 4")
    assert not outcome and "(step: 5)" in outcome.reason
    assert state.apply("choose 5") and state.vars["got"] == 5


def test_the_adapters_count_a_step_without_min_from_0_as_play_does(tmp_path):
    from interpreter.adapters.bounds import Bounds
    bounds = Bounds(_ruleset(tmp_path, "step: 3"), 2)
    counted = bounds.choice({"from": "range(1, 8)", "as": "n", "max": 7, "step": 3})
    assert counted.values == (3, 6)  # not 1, 4, 7: play refuses those
