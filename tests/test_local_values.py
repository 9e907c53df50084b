"""Locals are values (tests/rulesets/local_values): assigning into a part of a `let`, a loop
variable or a parameter changes that local only, never the constant, component record or var it
was read from; a move or shuffle refuses to change a constant (at validation when the zone is
written as one, when it runs when a local or a parameter names it). Every game of a loaded
ruleset starts from the same constants, on both engines."""
import os
import textwrap

import pytest

import interpreter
from interpreter.errors import RulebookError

RULESET = os.path.join(os.path.dirname(__file__), "rulesets", "local_values")
ENGINES = ("reference", "compiled")
MOVES = ["tweak c1", "poke", "tweak c2", "poke", "tweak c1", "poke"]


def _played(ruleset, engine, seed=5):
    state = ruleset.new_game(2, seed=seed, engine=engine)
    for label in MOVES:
        assert state.apply(label), label
    assert state.is_terminal
    return state


def _shared(ruleset):
    """What every game of the ruleset reads: its constants and component records."""
    return (repr(ruleset.unit.ns["_K"]), repr(dict(ruleset.entities)))


def test_a_second_game_is_not_changed_by_what_the_first_assigned_through_its_locals():
    ruleset = interpreter.load(RULESET)  # (its set-up already ran once, in the load checks)
    shared = _shared(ruleset)
    assert ruleset.unit.ns["_K"]["table"] == [1, 2, 3] and ruleset.entities["c1"]["effect"] == {"amount": 5}
    games = [_played(ruleset, engine) for engine in ENGINES + ENGINES]
    assert len({game.hash() for game in games}) == 1
    assert _shared(ruleset) == shared
    game = games[-1]
    # each turn read the constants as written, however often a local bound to them was changed
    assert game.vars["reads"] == [[1, 5, 1]] * 3
    assert game.vars["seen"] == [101, 2, 3]  # the local's own copy, changed
    assert game.vars["amounts"] == [106, 5, 108, 7, 106, 5]  # the local's amount, then the record's
    assert game.vars["rows"] == [[50, 2], [50, 4]] * 3


def test_the_set_up_of_a_new_game_reads_the_constants_as_written():
    ruleset = interpreter.load(RULESET)
    for engine in ENGINES:
        assert ruleset.new_game(2, seed=1, engine=engine).vars["seen"] == [1, 0, 3]
    assert ruleset.unit.ns["_K"]["table"] == [1, 2, 3]


@pytest.mark.parametrize("engine", ENGINES)
def test_assigning_through_a_local_bound_to_a_var_changes_the_local_not_the_var(engine):
    ruleset = interpreter.load(RULESET)
    state = ruleset.new_game(2, seed=5, engine=engine)
    state.apply("tweak c1")
    before = state.hash()
    index = [action.label for action in state.legal_actions()].index("poke")
    assert state.apply_id(index)
    assert state.vars["hand"] == [[1, 2, 3], [1, 2, 3]]
    assert state.vars["mine"] == [[], [9, 2, 3]]
    state.undo()
    assert state.hash() == before and state.vars["mine"] == [[], []]


def _write(tmp_path, effects, extra=""):
    folder = tmp_path / "rules"
    folder.mkdir(exist_ok=True)
    text = textwrap.dedent("""\
        game: {name: zones_of_constants, players: [2], start: play}
        constants:
          deck0: [a, b, c]
          grid: [[1, 2], [3, 4]]
        vars:
          pile: {value: []}
          rows: {value: [[1, 2]]}
        procedures:
          draw:
            params: [zone]
            effects: [{move: {from: zone, to: pile}}]
          mix:
            params: [zone]
            effects: [{shuffle: zone}]
        actions:
          act:
            effects: %s
        phases:
          play: {kind: turns, actions: [act], rounds: 1, next: end}
        """) % effects
    (folder / "game.yaml").write_text(text + extra)
    return str(folder)


def _refusal(tmp_path, effects, engine):
    """(the ruleset, the reason) of `act` refused as a rule error, the state left unchanged."""
    ruleset = interpreter.load(_write(tmp_path, effects), check=False)
    state = ruleset.new_game(2, seed=1, engine=engine)
    before = state.hash()
    outcome = state.apply("act")
    assert not outcome and outcome.code == "rule_error"
    assert state.hash() == before
    return ruleset, outcome.reason


@pytest.mark.parametrize("effect, where", [
    ('{move: {from: deck0, to: pile}}', "'move from' would change 'deck0'"),
    ('{move: {from: pile, to: "grid[1]"}}', "'move to' would change 'grid'"),
    ('{shuffle: deck0}', "'shuffle' would change 'deck0'"),
])
def test_a_move_or_shuffle_of_a_zone_written_as_a_constant_is_a_validation_error(tmp_path, effect, where):
    with pytest.raises(RulebookError) as raised:
        interpreter.load(_write(tmp_path, f"[{effect}]"))
    (diagnostic,) = raised.value.diagnostics
    assert diagnostic.code == "assign" and diagnostic.message.startswith(where)
    assert "a rule cannot change a constant" in diagnostic.message
    assert diagnostic.pos.line == 17 and diagnostic.pos.col > 1
    assert "copy it into a var first" in diagnostic.hint


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("effect", ['{do: draw, with: {zone: deck0}}', '{do: mix, with: {zone: deck0}}',
                                    '{let: {g: grid}}, {move: {from: "g[0]", to: pile}}'])
def test_a_move_or_shuffle_of_a_constant_named_by_a_local_is_refused_when_it_runs(tmp_path, engine, effect):
    ruleset, reason = _refusal(tmp_path, f"[{effect}]", engine)
    assert "would change the constant" in reason and "copy it into a var first" in reason
    assert ruleset.unit.ns["_K"] == {"deck0": ["a", "b", "c"], "grid": [[1, 2], [3, 4]]}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_move_of_an_item_named_by_a_constant_moves_the_zones_own_item(tmp_path, engine):
    # `item: grid[0]` names the row of `rows` equal to it: the row that moves is the zone's, so
    # changing it afterwards in `pile` leaves the constant as it is
    effects = '[{move: {from: rows, to: pile, item: "grid[0]"}}, "pile[0][0] = 9"]'
    ruleset = interpreter.load(_write(tmp_path, effects))
    state = ruleset.new_game(2, seed=1, engine=engine)
    assert state.apply("act")
    assert state.vars["pile"] == [[9, 2]] and state.vars["rows"] == []
    assert ruleset.unit.ns["_K"]["grid"] == [[1, 2], [3, 4]]


@pytest.mark.parametrize("engine", ENGINES)
def test_copying_a_large_local_again_and_again_is_stopped_by_the_work_bound(tmp_path, engine):
    effects = '[{let: {t: "list(range(0, 20000))"}}, {for: "i in range(0, 20000)", do: ["t[0] = i"]}]'
    _, reason = _refusal(tmp_path, effects, engine)
    assert "work bound" in reason and "copying a local to assign into it" in reason


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("copy", ["{let: {u: 0}}, {for: \"i in range(0, 2000)\", do: [\"u = t\"]}",
                                  "{for: \"i in range(0, 2000)\", do: [\"pile = t\"]}",
                                  "{for: \"i in range(0, 2000)\", do: [\"rows[0] = t\"]}"],
                         ids=["to a local", "to a var", "to a part of a var"])
def test_assigning_a_large_list_again_and_again_is_stopped_by_the_work_bound(tmp_path, engine, copy):
    """`v = t` copies `t` (assignment has value semantics): charged as the copy a local gets
    before a part of it is assigned, the same on both engines."""
    effects = '[{let: {t: "list(range(0, 20000))"}}, %s]' % copy
    _, reason = _refusal(tmp_path, effects, engine)
    assert "work bound" in reason and "copying a list or map to assign it" in reason
