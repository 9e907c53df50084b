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


def _answered(state, answers):
    for answer in answers:
        assert state.apply(f"choose {answer}"), answer
    return state


def _copies(state):
    """The game itself, a copy and a save loaded back (from either engine's save)."""
    from interpreter.state import State

    return {"live": state, "copy": state.copy(), "saved": State.from_json(state.rs, state.to_json())}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("answered", [0, 1, 2], ids=["at the first decision", "in the loop", "at the loop's end"])
def test_a_local_bound_to_a_var_before_a_decision_is_that_var_in_a_copy_and_a_save(engine, answered):
    """`take` (tests/rulesets/local_values) binds `h` to the player's hand and `both` to the two
    hands, waits for decisions, then moves through `h` and the loop's `zone`: the hands change,
    in the live game, its copy and a save loaded back alike."""
    ruleset = interpreter.load(RULESET)
    answers = [1, 1, 1]

    def waiting():
        state = ruleset.new_game(2, seed=5, engine=engine)
        assert state.apply("take")
        return _answered(state, answers[:answered])

    expected = ruleset.new_game(2, seed=5, engine="reference")
    assert expected.apply("take") and _answered(expected, answers)
    assert expected.vars["hand"] == [[3], [2, 3]] and sorted(expected.vars["pile"]) == [1, 1, 2]
    for name, state in _copies(waiting()).items():
        _answered(state, answers[answered:])
        assert state.hash() == expected.hash(), name
    # undo back to the decision, and a refused answer, leave the local what it was too
    state = waiting()
    before = state.hash()
    assert state.apply_id(0) and state.undo() and state.hash() == before
    assert not state.apply("choose 7")
    _answered(state, answers[answered:])
    assert state.hash() == expected.hash()


CONSTANT_ACROSS_A_DECISION = ('[{let: {d: deck0}}, {choose: {from: "[1, 2]", as: n, prompt: "how many?"}}, '
                              '{move: {from: d, to: pile, count: n}}]')


@pytest.mark.parametrize("engine", ENGINES)
def test_a_local_bound_to_a_constant_before_a_decision_is_refused_in_a_copy_and_a_save(tmp_path, engine):
    ruleset = interpreter.load(_write(tmp_path, CONSTANT_ACROSS_A_DECISION), check=False)
    state = ruleset.new_game(2, seed=1, engine=engine)
    assert state.apply("act")
    for name, game in _copies(state).items():
        before = game.hash()
        outcome = game.apply("choose 2")
        assert not outcome and "would change the constant 'deck0'" in outcome.reason, name
        assert game.hash() == before and game.vars["pile"] == []
    assert ruleset.unit.ns["_K"]["deck0"] == ["a", "b", "c"]


def test_a_save_whose_links_lead_nowhere_or_make_a_loop_is_refused(tmp_path):
    import json

    from interpreter.state import SaveError, State

    ruleset = interpreter.load(RULESET)
    state = ruleset.new_game(2, seed=5)
    assert state.apply("take")
    save = json.loads(state.to_json())
    assert save["links"]  # `h` and `both`'s two hands are the vars' lists
    frame = next(index for index, entry in enumerate(save["state"]["stack"]) if entry["kind"] == "effects")
    for links in ([[[frame, "locals", "h"], ["vars", "nowhere"]]], [[[0, "locals", "h"], ["vars", "hand", 0]]],
                  [[[frame, "locals", "new"], ["vars", "hand", 0]]], [[[frame, "locals", "h"], ["vars", "turns"]]],
                  [[[frame, "locals", "both", 0], ["stack", frame, "locals", "both"]]],
                  [[[frame, "locals", "h"], ["vars"]]], [[[frame, "locals", "h"], ["constant", "nothing"]]], "links"):
        damaged = dict(save, links=links)
        with pytest.raises(SaveError, match="the saved state is damaged"):
            State.from_json(ruleset, json.dumps(damaged))


SUB_PHASE_IN_SET_UP = """\
game: {name: local_below_a_sub_phase, players: [2], start: setup}
vars:
  hand: {per_player: true, value: [x, y, z]}
  pile: {value: []}
  picks: {value: 0}
actions:
  pick:
    effects: ["picks += 1"]
  draw:
    effects: [{move: {from: "hand[0]", to: pile, count: 1}}]
phases:
  setup:
    kind: auto
    effects:
      - {let: {h: "hand[0]"}}
      - {enter: drafting}
      - {move: {from: h, to: pile, count: 2}}
    next: main
  drafting: {kind: turns, actions: [pick, draw], rounds: 1, next: return}
  main: {kind: turns, actions: [pick], rounds: 1, next: end}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_local_held_below_a_sub_phase_is_its_var_when_the_sub_phase_returns(tmp_path, engine):
    """Set-up binds `h` to hand[0] and enters a sub-phase (the reference engine sets the game
    up; the compiled game plays the sub-phase's turns with the set-up's frame held below):
    when it returns, the move through `h` takes from hand[0] in the live game, a copy and a
    save loaded back, on both engines."""
    (tmp_path / "game.yaml").write_text(SUB_PHASE_IN_SET_UP)
    ruleset = interpreter.load(str(tmp_path))
    for name, state in _copies(ruleset.new_game(2, seed=1, engine=engine)).items():
        assert state.phase == "drafting"
        assert state.apply("pick") and state.apply("pick")
        assert state.phase == "main", name
        assert state.vars["hand"] == [["z"], ["x", "y", "z"]] and state.vars["pile"] == ["x", "y"], name


JOINED = """\
game: {name: joined_lists, players: [2], start: play}
vars:
  hand: {per_player: true, value: [x, y, z]}
  piles: {value: []}
  out: {value: []}
actions:
  gather:
    effects: ["piles += [hand[0]]"]
  drain:
    effects: [{move: {from: "piles[0]", to: out, count: 1}}]
phases:
  play: {kind: turns, actions: [gather, drain], rounds: 2, next: end}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_list_joined_with_plus_equals_is_stored_as_its_own_copy(tmp_path, engine):
    """`piles += [hand[0]]` stores a copy of the hand (assignment has value semantics): a move
    from `piles[0]` leaves the hand as it is, in the live game as in its copy (it used to take
    from the hand itself, live only)."""
    (tmp_path / "game.yaml").write_text(JOINED)
    ruleset = interpreter.load(str(tmp_path))
    state = ruleset.new_game(2, seed=1, engine=engine)
    assert state.apply("gather")
    copy = state.copy()
    for game in (state, copy):
        assert game.apply("drain")
        assert game.vars["hand"] == [["x", "y", "z"]] * 2 and game.vars["piles"] == [["y", "z"]]
    assert state.hash() == copy.hash()


@pytest.mark.parametrize("engine", ENGINES)
def test_undo_in_the_sub_phase_leaves_the_local_held_below_it_its_var(tmp_path, engine):
    """A move of the sub-phase changes hand[0] (which `h`, held below, names) and is taken back:
    the move through `h` after the sub-phase still takes from hand[0], as in the reference."""
    (tmp_path / "game.yaml").write_text(SUB_PHASE_IN_SET_UP)
    ruleset = interpreter.load(str(tmp_path))
    state = ruleset.new_game(2, seed=1, engine=engine)
    draw = [action.label for action in state.legal_actions()].index("draw")
    assert state.apply_id(draw) and state.undo()
    assert state.apply("draw") and state.apply("pick") and state.phase == "main"
    assert state.vars["hand"] == [[], ["x", "y", "z"]] and state.vars["pile"] == ["y", "z", "x"]
