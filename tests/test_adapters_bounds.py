"""Integer bounds for the research encodings (interpreter/adapters/bounds.py): proven from a
var's declared `max`, declared on a parameter (`{from:, min:, max:}`), or reported with what to
declare (tests/rulesets/bounded_bets); the bundled rulesets keep every bound they declare;
numbers of bounded vars are scaled in the observation."""
import io
import math
import os

import pytest

import interpreter
from interpreter.engine import Action
from interpreter.adapters.bounds import Bounds
from interpreter.adapters.encoding import ActionSpace
from interpreter.adapters.observation import ObservationLayout, squash
from interpreter.cli import run

from adapters_support import CASES, random_game, rulesets  # noqa: F401 (a fixture)

BETS = os.path.join(os.path.dirname(__file__), "rulesets", "bounded_bets")
ANSWERS = os.path.join(os.path.dirname(__file__), "rulesets", "bounded_answers")


def _int_slots(space):
    return {(block.name, slot.name): (slot.values[0], slot.values[-1], slot.proven, slot.how)
            for block in space.blocks for slot in block.slots if slot.kind == "int"}


def test_proven_declared_and_assumed_bounds():
    space = ActionSpace(interpreter.load(BETS), 2)
    slots = _int_slots(space)
    assert slots[("bet", "n")] == (1, 8, True, "proven")  # range(1, chips[player] + 1), chips max 2 * start_chips
    assert slots[("take", "n")] == (1, 8, True, "declared")
    assert slots[("wait", "n")][2] is False
    assert [(a, p, blockers, missing) for a, p, _, blockers, missing in space.unbounded] == \
        [("wait", "n", ("var turns",), ("max",))]


def test_a_setting_moves_a_bound():
    space = ActionSpace(interpreter.load(BETS, settings={"start_chips": 6}), 2)
    assert _int_slots(space)[("bet", "n")][:2] == (1, 12)


def test_a_broken_declared_bound_is_refused_with_its_name():
    rs = interpreter.load(BETS, ["broken"])
    space = ActionSpace(rs, 2)
    state = rs.new_game(2, 0)
    before = state.hash()
    # play keeps the bound first: the bet would make take n=2 legal, off its declared max
    refused = state.apply(next(a for a in state.legal_actions() if a.name == "bet" and a.kwargs["n"] == 3))
    assert not refused and refused.code == "rule_error" and state.hash() == before
    assert "the value 2 of parameter 'n' of action 'take' at " in refused.reason and "(min: 1, max: 1)" in refused.reason
    with pytest.raises(ValueError, match=r"take\.n = 2 lies outside its declared bound 1\.\.1"):
        space.check_bounds(Action("take", (("n", 2),), 1), state)


def test_deep_state_rows_follow_the_player_count(rulesets):
    assert _int_slots(ActionSpace(rulesets["deep-state"], 4))[("deploy", "pos")][:2] == (0, 8)
    assert _int_slots(ActionSpace(rulesets["deep-state"], 2))[("deploy", "pos")][:2] == (0, 7)
    assert Bounds(rulesets["deep-state"], 3).number("row_size - 1") == 7




def test_numeric_decision_answers_are_bounded_like_parameters():
    rs = interpreter.load(ANSWERS)
    bounds = Bounds(rs, 2)
    proven = bounds.choice({"from": "range(1, chips[player] + 1)", "as": "n"})
    declared = bounds.choice({"from": "range(0, pot + 1)", "as": "back", "max": 6})
    unbounded = bounds.choice({"from": "range(turns + 1)", "as": "said"})
    assert (proven.values, proven.how) == (tuple(range(1, 7)), "proven")
    assert (declared.values, declared.how) == (tuple(range(0, 7)), "declared")
    assert (unbounded.values, unbounded.blockers, unbounded.missing) == (None, ("var turns",), ("max",))
    assert bounds.choice({"from": "['yes', 'no']", "as": "v"}) is None  # not numbers by its form
    space = ActionSpace(rs, 2)
    assert space.unbounded == [("choose", "said", "range(turns + 1)", ("var turns",), ("max",))]
    numbers = [v for v in space.by_name["choose"].slots[0].values if type(v) is int]
    assert numbers == list(range(0, 101))  # the unbounded one falls back to 0..100 (assumed)
    out = io.StringIO()
    assert run(["info", ANSWERS], out, io.StringIO()) == 0
    out = out.getvalue()
    assert "game.yaml:42:9: the answer said of a choose ranges over 'range(turns + 1)'" in out
    assert 'declare it on the decision, {choose: {from: "range(turns + 1)", as: said, max: N}}' in out


def test_a_decision_whose_answers_validation_cannot_type_is_noted_where_it_is():
    """A procedure's list: its answers may be numbers, so 0..100 are assumed and `info` says
    where the decision is and what to declare; `numeric: false` says they are never numbers."""
    space = ActionSpace(interpreter.load(ANSWERS), 2)
    assert [(where.rsplit("/", 1)[-1], answer, source) for where, answer, source in space.untyped] == \
        [("game.yaml:47:9", "number", "pairs(turns)")]  # `word` declares numeric: false
    out = io.StringIO()
    assert run(["info", ANSWERS], out, io.StringIO()) == 0
    assert ("game.yaml:47:9: the answer number of a choose ranges over 'pairs(turns)', whose values validation "
            "cannot type: its ids cover 0..100 (assumed numbers); declare the bound of its numeric answers on the "
            'decision, {choose: {from: "pairs(turns)", as: number, min: A, max: B}}, or {choose: {from: '
            '"pairs(turns)", as: number, numeric: false}} when its answers are never numbers') in out.getvalue()
    assert "as: word" not in out.getvalue()


@pytest.mark.parametrize("name,players", CASES)
def test_bundled_rulesets_bound_every_integer_parameter_and_keep_their_bounds(rulesets, name, players):
    rs = rulesets[name]
    space = ActionSpace(rs, players)
    bounds = Bounds(rs, players)
    assert [item for item in space.unbounded if item[0] != "choose"] == []
    # every decision's numeric answers are bounded (declared or proven), and every decision validation
    # cannot type declares its bound or `numeric: false` (`rulebook info` would note it)
    assert [item for item in space.unbounded if item[0] == "choose"] == []
    assert space.untyped == []

    def visit(state):
        space.legal_ids(state)  # raises on a value outside a declared or proven bound
        assert bounds.violations(state.vars) == []

    for seed in (1, 2):
        random_game(rs, players, seed, visit)
    assert space.dropped == 0


@pytest.mark.parametrize("name", ["deep-state", "global-mogul"])
def test_every_module_combination_declares_its_decisions(name):
    """The modules' decisions and parameters are declared too, the Standard Game's bids with a
    step (multiples of $10 up to a reconstructed $1,750, README): nothing is left assumed."""
    for combo in interpreter.load(name).combinations:
        modules = sorted(combo.get("modules") or [])
        space = ActionSpace(interpreter.load(name, modules=modules), max(combo.get("players")))
        left = [(answer, source) for _, answer, source in space.untyped]
        assert left == [], (modules, left)
        assert [(action, param) for action, param, *_ in space.unbounded] == [], modules


def test_scaled_observation(rulesets):
    layout = ObservationLayout(rulesets["kuhn-poker"], 2)
    assert layout.scaled == {"chips": (-2.0, 2.0), "pot": (0.0, 4.0)}

    def visit(state):
        vector = layout.encode(state, 0)
        for name, offset, size in layout.table():
            if name in layout.scaled:
                assert all(0.0 <= x <= 1.0 for x in vector[offset:offset + size]), (name, vector[offset:offset + size])

    random_game(rulesets["kuhn-poker"], 2, 3, visit)


def test_info_says_what_to_declare():
    out, err = io.StringIO(), io.StringIO()
    assert run(["info", BETS], out, err) == 0, err.getvalue()
    text = out.getvalue()
    assert "bet(n: int 1..8 (proven))" in text and "take(n: int 1..8 (declared))" in text
    assert "note: wait.n ranges over 'range(turns + 1)'" in text
    assert 'n: {from: "range(turns + 1)", max: N}' in text and "give var turns a max:" in text


def test_numbers_without_both_bounds_are_squashed():
    rs = interpreter.load(ANSWERS)
    layout = ObservationLayout(rs, 2)
    assert layout.scaled == {"chips": (0.0, 6.0)}
    state = rs.new_game(2, 0)
    state.apply(next(a for a in state.legal_actions() if a.name == "bet"))
    state.apply(next(a for a in state.legal_actions() if dict(a.args).get("value") == 3 or a.args[0][1] == 3))
    assert state.vars["pot"] == 3
    offsets = {name: offset for name, offset, _ in layout.table()}
    vector = layout.encode(state, 0)
    assert vector[offsets["pot"]] == pytest.approx(squash(3)) == pytest.approx(math.log(4))
    assert vector[offsets["chips"]] == pytest.approx(0.0)  # seat 0 bet all 3 of its chips: (0 - 0) / 6
    assert vector[offsets["chips"] + 1] == pytest.approx(0.5)  # seat 1: (3 - 0) / 6
    assert [squash(x) for x in (0, -3, 100)] == pytest.approx([0.0, -math.log(4), math.log(101)])
