"""The compiled game (interpreter/compiled/) against the reference engine: the same seeds give the
same state hash at every step, the same legal actions and labels, the same scores, log (each
player's too) and save, for every ruleset and every bundled module combination (all compile:
`choose_together` and simultaneous phases are handed to the reference engine)."""
import os
import random

import pytest

from interpreter import load
from interpreter.compiled import support
from interpreter.compiled.support import handed_over
from interpreter.compiled.game import CompiledState
from interpreter.compiled.module import game_module
from interpreter.engine import State

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULESETS = sorted([os.path.join(ROOT, "rulesets", name) for name in os.listdir(os.path.join(ROOT, "rulesets"))] +
                  [os.path.join(ROOT, "tests", "rulesets", name)
                   for name in os.listdir(os.path.join(ROOT, "tests", "rulesets"))])


def _both(ruleset, players, seed):
    return ruleset.new_game(players, seed=seed), ruleset.new_game(players, seed=seed, engine="compiled")


def _play_alongside(ruleset, players, seed):
    """Play one random game through both engines; compare everything at every step."""
    reference, compiled = _both(ruleset, players, seed)
    assert type(compiled) is CompiledState
    rng = random.Random(seed)
    step = 0
    while True:
        assert compiled.hash() == reference.hash(), (seed, step, reference.diff(compiled.reference()))
        assert compiled.is_terminal == reference.is_terminal
        assert (compiled.phase, compiled.round, compiled.steps) == (reference.phase, reference.round, reference.steps)
        if reference.is_terminal:
            break
        assert compiled.current_player == reference.current_player
        expected, listed = reference.legal_actions(), compiled.legal_actions()
        assert [action.key for action in listed] == [action.key for action in expected], (seed, step)
        assert [action.label for action in listed] == [action.label for action in expected], (seed, step)
        index = rng.randrange(len(expected))
        assert reference.apply(expected[index]) and compiled.apply(listed[index])
        step += 1
    assert compiled.scores() == reference.scores()
    assert compiled.winners() == reference.winners()
    assert compiled.log == reference.log
    for player in range(players):  # a private line (log: {to: ...}, a secret move's) is its readers' only
        assert compiled.log_for(player) == reference.log_for(player)
    assert compiled.history() == reference.history()
    assert compiled.to_json() == reference.to_json()
    return step


@pytest.mark.parametrize("folder", RULESETS, ids=os.path.basename)
def test_compiled_games_are_the_reference_games_step_by_step(folder):
    ruleset = load(folder)
    gap = support(ruleset)
    assert gap is None, f"{os.path.basename(folder)} no longer compiles: {gap}"
    for players in ruleset.players:
        for seed in range(4):
            _play_alongside(ruleset, players, seed)


def test_what_is_handed_to_the_reference_is_named_with_where_it_is_written():
    assert handed_over(load("corporate-times")) == []  # its sub-phase (`enter`) is generated code
    (together,) = handed_over(load("deep-state", modules=("draft",)))
    assert together.construct.startswith("choose_together") and "draft.yaml:" in together.where
    (simultaneous,) = handed_over(load(os.path.join(ROOT, "tests", "rulesets", "goofspiel")))
    assert simultaneous.construct == "a simultaneous phase" and "game.yaml:" in simultaneous.where
    assert handed_over(load("tictactoe")) == []
    assert handed_over(load(os.path.join(ROOT, "tests", "rulesets", "secret_note"))) == []


def test_rulebook_info_says_whether_the_game_is_compiled_and_what_the_reference_plays():
    import io
    from types import SimpleNamespace

    from interpreter.info import describe, run_info

    assert describe(load("tictactoe"), 2)["compiled"] == {"supported": True, "construct": None, "where": None,
                                                         "handed_over": []}
    draft = load("deep-state", modules=("draft",))
    deep_state = describe(draft, 3)["compiled"]
    assert deep_state["supported"] is True
    (together,) = deep_state["handed_over"]
    assert together["construct"].startswith("choose_together") and "draft.yaml:" in together["where"]
    out = io.StringIO()
    run_info(SimpleNamespace(json=False, history_window=None), out, draft, 3)
    line = next(line for line in out.getvalue().splitlines() if line.startswith("compiled play:"))
    assert line.startswith("compiled play: yes") and "draft.yaml:" in line and "choose_together" in line


def test_manual_chance_and_the_reference_engine_are_the_interpreter():
    kuhn = load("kuhn-poker")
    assert type(kuhn.new_game(2, seed=1, chance="manual", engine="compiled")) is State
    assert type(kuhn.new_game(2, seed=1, engine="reference")) is State
    assert type(kuhn.new_game(2, seed=1)) is State  # opt-in: the default stays the reference
    with pytest.raises(ValueError):
        kuhn.new_game(2, seed=1, engine="fast")


def test_apply_id_and_undo_go_back_exactly():
    for name in ("tictactoe", "kuhn-poker"):
        ruleset = load(name)
        game = ruleset.new_game(2, seed=5, engine="compiled")
        rng = random.Random(5)
        hashes = [game.hash()]
        while not game.is_terminal:
            assert game.apply_id(rng.randrange(len(game.legal_action_ids())))
            hashes.append(game.hash())
        assert not game.apply_id(0)  # the game is over: refused
        while len(hashes) > 1:
            hashes.pop()
            assert game.undo()
            assert game.hash() == hashes[-1]
        assert game.undo().code == "nothing_to_undo"
        assert game.hash() == ruleset.new_game(2, seed=5).hash()


def test_a_refused_move_changes_nothing_and_says_why_as_the_reference_does():
    ruleset = load("kuhn-poker")
    reference, compiled = _both(ruleset, 2, 3)
    before = compiled.hash()
    call = [action for action in load("kuhn-poker").new_game(2, seed=3).legal_actions()]
    bad = compiled.apply(call[0].__class__("call", {}, 0))
    expected = reference.apply(call[0].__class__("call", {}, 0))
    assert not bad and (bad.code, bad.reason) == (expected.code, expected.reason)
    assert compiled.hash() == before
    assert compiled.apply_id(99).code == "bad_action" and compiled.hash() == before


def _breaking(tmp_path, effects: str):
    """A game of one action `step` with `effects`, whose rule `items[5] = 1` fails when reached."""
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "game.yaml").write_text(
        "game: {name: breaks, players: [2], start: play}\n"
        "vars: {count: {value: 0}, items: {value: [1, 2]}}\n"
        "actions:\n"
        f"  step: {{effects: {effects}}}\n"
        "phases:\n"
        "  play: {kind: turns, actions: [step], rounds: 3, next: end}\n")
    return load(str(folder))


def test_a_rule_failing_in_a_move_is_a_rule_error_and_the_game_is_unchanged(tmp_path):
    ruleset = _breaking(tmp_path, "['count += 1', {if: 'count == 2', then: ['items[5] = 1']}]")
    reference, compiled = _both(ruleset, 2, 1)
    assert type(compiled) is CompiledState
    assert compiled.apply_id(0) and reference.apply_id(0)
    before = compiled.hash()
    failed, expected = compiled.apply_id(0), reference.apply_id(0)
    assert not failed and failed.code == "rule_error" == expected.code and failed.reason == expected.reason
    assert compiled.hash() == before == reference.hash()


def test_what_the_compiled_state_does_not_implement_comes_from_an_identical_reference_state():
    ruleset = load("kuhn-poker")
    reference, compiled = _both(ruleset, 2, 7)
    compiled.apply_id(1)
    reference.apply_id(1)
    for player in (0, 1):
        assert compiled.observe(player) == reference.observe(player)
        assert compiled.information_state(player) == reference.information_state(player)
    assert compiled.history() == reference.history()
    assert compiled.determinize(0, 3).hash() == reference.determinize(0, 3).hash()
    with pytest.raises(AttributeError, match="engine='reference'"):
        compiled.enter_phase("showdown")


def test_every_name_of_the_reference_state_is_answered_without_a_fallback_getattr():
    """CompiledState has no `__getattr__` (with one Python looks every attribute of the state up
    the slow way): each public name of engine.State is its own or a property that asks the
    reference twin (always for the read-only ones, any while the reference holds the game)."""
    assert not any("__getattr__" in vars(klass) for klass in CompiledState.__mro__[:-1])
    assert all(hasattr(CompiledState, name) for name in dir(State) if not name.startswith("_"))
    ruleset = load("kuhn-poker")
    reference, compiled = _both(ruleset, 2, 5)
    assert compiled.to_json() == reference.to_json() and compiled.hidden_vars(0) == reference.hidden_vars(0)
    assert not hasattr(compiled, "apply_chance")  # not read-only, and the generated code holds the game
    with pytest.raises(AttributeError, match="engine='reference'"):
        compiled.reseed(3)
    compiled.is_terminal = compiled.is_terminal  # a plain attribute (what a playout reads at each step)
    assert compiled.terminal is compiled.is_terminal is False


def test_a_copy_plays_on_alone():
    ruleset = load("tictactoe")
    game = ruleset.new_game(2, seed=2, engine="compiled")
    game.apply_id(0)
    twin = game.copy()
    assert twin.hash() == game.hash()
    twin.apply_id(0)
    assert twin.hash() != game.hash() and game.vars["board"].count("") == 8


def test_the_generated_module_lives_in_memory_only_and_is_made_once():
    ruleset = load("tictactoe")
    module = game_module(ruleset)
    assert game_module(ruleset) is module
    assert "def legal_0(st, V, player, round_):" in module.source
    assert module.enter[0].__code__.co_filename == "<rulebook game tictactoe>"


def _same_outcome(first, second) -> bool:
    return (bool(first), first.code, first.reason) == (bool(second), second.code, second.reason)


def _lockstep(ruleset, players, seed, steps=300):
    """Play one game through both engines with apply_id, taking moves back at random (undo),
    copying and saving at the decisions inside moves: the same outcome, legal ids, labels,
    player and hash at every step. Returns what happened (counts)."""
    reference, compiled = _both(ruleset, players, seed)
    rng = random.Random(seed)
    seen = {"decisions": 0, "handed_over": 0, "refused": 0, "undone": 0}
    made = 0
    for step in range(steps):
        assert compiled.hash() == reference.hash(), (seed, step, reference.diff(compiled.reference())[:4])
        assert compiled.is_terminal == reference.is_terminal
        if reference.is_terminal:
            break
        assert compiled.current_player == reference.current_player
        assert compiled.legal_action_ids() == reference.legal_action_ids(), (seed, step)
        assert [action.label for action in compiled.legal_actions()] == \
            [action.label for action in reference.legal_actions()], (seed, step)
        at_decision = compiled._pending is not None
        seen["decisions"] += at_decision
        if at_decision and rng.random() < 0.2:  # a copy at a decision plays on alone
            assert compiled.to_json() == reference.to_json()
            twin, reference_twin = compiled.copy(), reference.copy()
            for _ in range(4):
                if reference_twin.is_terminal:
                    break
                index = rng.randrange(len(reference_twin.legal_action_ids()))
                assert _same_outcome(twin.apply_id(index), reference_twin.apply_id(index))
                assert twin.hash() == reference_twin.hash()
        if made and rng.random() < 0.25:
            back = rng.randint(1, min(made, 4))
            assert compiled.undo(back) and reference.undo(back)
            made -= back
            seen["undone"] += 1
            continue
        index = rng.randrange(len(reference.legal_action_ids()))
        expected, outcome = reference.apply_id(index), compiled.apply_id(index)
        assert _same_outcome(outcome, expected), (seed, step, outcome, expected)
        made += bool(outcome)
        seen["refused"] += not outcome
        seen["handed_over"] += compiled._ref is not None
    while made:
        assert compiled.undo() and reference.undo()
        made -= 1
        assert compiled.hash() == reference.hash()
    return seen


@pytest.mark.parametrize("name,players", [("davos", 4), ("global-mogul", 3), ("deep-state", 3)])
def test_decisions_inside_moves_are_answered_by_the_generated_code_and_undo_crosses_them(name, players):
    """Davos and Global Mogul ask players inside moves (`choose`): the generated code lists the
    decision as the reference does and takes the answer; apply_id/undo (what MCTS uses), copy
    and the save at a decision are the reference's."""
    ruleset = load(name)
    seen = {"decisions": 0, "handed_over": 0}
    for seed in range(2):
        for key, count in _lockstep(ruleset, players, seed, steps=150).items():
            seen[key] = seen.get(key, 0) + count
    if name != "deep-state":  # its decisions are rarer: it is compared step by step above
        assert seen["decisions"] > 10, "no decision inside a move was met: pick seeds that ask a player"
        assert seen["handed_over"] == 0, "a move was handed over to the reference engine"


DECIDES = """\
game: {name: decides, players: [2], start: play, end_if: "total >= 25"}
vars:
  total: {value: 0}
  picks: {value: []}
procedures:
  again:
    params: [n]
    effects:
      - if: "n > 0"
        then: [{do: again, with: {n: "n - 1"}}]
        else: [{choose: {player: player, from: "[1, 2]", as: x}}, "total += x"]
actions:
  take:
    effects:
      - {choose: {player: player, from: "[1, 2, 3]", as: a, prompt: "how many?", label: "take {option} of {total}"}}
      - {if: "a == 3 and total > 10", then: [{fail: "too greedy"}]}
      - "total += a"
      - {choose: {player: "1 - player", from: "[0, 1]", as: b, prompt: "add one?"}}
      - "total += b"
  loop:
    effects: [{choose: {player: player, from: "[0, 1]", as: y}}, "total += y", {do: again, with: {n: 1}}]
  deep:
    effects: [{do: again, with: {n: 1}}]
  greedy:
    effects: [{fail: "never"}]
phases:
  play:
    kind: turns
    actions: [take, loop, deep, greedy]
    on_turn: [{choose: {player: player, from: "['x', 'y']", as: c}}, "picks = picks + [c]"]
    next: end
"""


def test_decisions_in_a_turn_block_a_refused_answer_and_the_end_at_a_decision_are_the_references(tmp_path):
    """Two decisions in one move, a decision in `on_turn` (a generated stage that waits), in a
    procedure that recurses (a generator called with `yield from`), an answer refused by `fail`
    (the game is back at the decision), the game ending at a decision (`end_if` first: the
    reference makes that move), a move always refused (`greedy`: then predicted to go to the
    reference without a try, module.HandOverRecord)."""
    folder = tmp_path / "decides"
    folder.mkdir()
    (folder / "game.yaml").write_text(DECIDES)
    ruleset = load(str(folder))
    assert support(ruleset) is None
    records = game_module(ruleset).hand_overs
    seen = {}
    for seed in range(12):
        for key, count in _lockstep(ruleset, 2, seed).items():
            seen[key] = seen.get(key, 0) + count
    assert seen["decisions"] > 100 and seen["refused"] and seen["handed_over"] and seen["undone"], seen
    assert records["greedy"].skipped, "no move of 'greedy' went to the reference without a try"
    assert "deep" not in records and "loop" not in records, "a decision in a recursive procedure was handed over"
    reference, compiled = _both(ruleset, 2, 3)
    assert compiled.apply_id(0) and reference.apply_id(0)  # on_turn asks: pick 'x'
    assert compiled.apply("take") and reference.apply("take")  # by its label: a decision inside
    assert compiled.pending == reference.pending and compiled.current_player == 0
    assert [action.label for action in compiled.legal_actions()] == ["take 1 of 0", "take 2 of 0", "take 3 of 0"]
    loop = {"action": "loop", "args": {}}
    refused, expected = compiled.apply(loop), reference.apply(loop)
    assert not refused and (refused.code, refused.reason) == (expected.code, expected.reason) == \
        ("decision_pending", "player 0 must first answer: how many?")
    assert compiled.apply(compiled.legal_actions()[1]) and reference.apply(reference.legal_actions()[1])
    assert compiled.history() == reference.history() and compiled.hash() == reference.hash()


def test_an_action_given_by_its_label_or_json_is_applied_to_the_compiled_game():
    ruleset = load("tictactoe")
    reference, compiled = _both(ruleset, 2, 1)
    label = reference.legal_actions()[4].label
    assert compiled.apply(label) and reference.apply(label)
    as_json = reference.legal_actions()[0].to_json()
    assert compiled.apply(as_json) and reference.apply(as_json)
    assert type(compiled) is CompiledState and compiled._ref is None and compiled.hash() == reference.hash()
    assert compiled.apply("no such label").code == "unknown_action"


@pytest.mark.parametrize("name", ["davos", "deep-state", "global-mogul"])
def test_every_module_combination_plays_the_reference_game(name):
    """Each module combination of a bundled game compiles; one seed at each of its player
    counts, compared at every step (the base games are compared above with more seeds)."""
    for combination in load(name).combinations:
        if not combination["modules"]:
            continue
        ruleset = load(name, modules=tuple(combination["modules"]))
        assert support(ruleset) is None, combination
        for players in combination["players"]:
            _play_alongside(ruleset, players, 1)


def _generated_alongside(ruleset, players, seed, in_sub_phase=None) -> int:
    """Play one random game through both engines with apply_id; every move is made by the
    generated code (none handed over); the hash and each player's log agree at every step.
    Returns how many moves were made inside a sub-phase."""
    reference, compiled = _both(ruleset, players, seed)
    rng = random.Random(seed)
    inside = 0
    while not reference.is_terminal:
        assert compiled._ref is None and compiled.legal_action_ids() == reference.legal_action_ids()
        inside += compiled.sub
        index = rng.randrange(len(reference.legal_action_ids()))
        assert reference.apply_id(index) and compiled.apply_id(index)
        assert compiled.hash() == reference.hash()
        for seat in range(players):
            assert compiled.log_for(seat) == reference.log_for(seat)
    assert compiled.is_terminal
    return inside


def test_private_lines_and_secret_moves_are_written_by_the_generated_code():
    """`log: {to: ...}` and a secret action's lines (in the procedures it calls, one that calls
    itself included) are the readers' only, exactly as the reference writes them."""
    ruleset = load(os.path.join(ROOT, "tests", "rulesets", "private_lines"))
    for players in (2, 3):
        for seed in range(4):
            _generated_alongside(ruleset, players, seed)
    game = ruleset.new_game(2, seed=1, engine="compiled")
    game.apply(next(action for action in game.legal_actions() if action.name == "draw"))
    assert game._ref is None and "hand is now" in game.log_for(0)[1] and game.log_for(1)[1] == "(a private line)"


def test_end_phase_is_run_by_the_generated_code_in_every_block(tmp_path):
    """`end_phase` in an action, `on_enter`, `on_round` and `on_turn`: the effects after it run,
    then the flow goes on from the phase's exit, as the reference's."""
    folder = tmp_path / "ender"
    folder.mkdir()
    (folder / "game.yaml").write_text(
        "game: {name: ender, players: [2, 3], start: play}\n"
        "vars: {count: {value: 0}, after: {value: 0}, exited: {value: 0}, entered: {value: 0}}\n"
        "actions:\n"
        "  tick: {effects: ['count += 1']}\n"
        "  stop: {requires: 'count > 5', effects: [{if: 'true', then: [{end_phase: true}]}, 'after += 1']}\n"
        "phases:\n"
        "  play: {kind: turns, actions: [tick, stop], on_exit: ['exited += 1'],\n"
        "         on_round: [{if: 'round == 4', then: [{end_phase: true}]}], next: again}\n"
        "  again: {kind: auto, effects: [{end_phase: true}, 'entered += 1'], on_exit: ['exited += 1'], next: last}\n"
        "  last: {kind: turns, actions: [tick], on_turn: [{if: 'count > 6', then: [{end_phase: true}]}], next: end}\n")
    ruleset = load(str(folder))
    assert support(ruleset) is None
    for players in (2, 3):
        for seed in range(6):
            _generated_alongside(ruleset, players, seed)


def test_a_sub_phase_is_played_by_the_generated_code_and_undo_crosses_its_edges():
    """A sub-phase the reference entered (here in set-up, which the reference makes: every
    later sub-phase is entered by effects it runs on): the generated code holds the game in
    it, the reference's frames kept below; the moves that return from it are made by the
    reference; apply_id/undo go back exactly across all of them."""
    ruleset = load(os.path.join(ROOT, "tests", "rulesets", "subturns"))
    for seed in range(3):
        reference, compiled = _both(ruleset, 3, seed)
        rng = random.Random(seed)
        hashes, generated_in_sub_phase = [compiled.hash()], 0
        while not reference.is_terminal:
            generated_in_sub_phase += compiled._ref is None and compiled.sub
            index = rng.randrange(len(reference.legal_action_ids()))
            if generated_in_sub_phase == 1 and compiled._ref is None:  # a copy in a sub-phase plays on alone
                _copy_plays_on_alone(compiled, reference, index)
            assert reference.apply_id(index) and compiled.apply_id(index)
            assert compiled.hash() == reference.hash(), (seed, len(hashes))
            hashes.append(compiled.hash())
        assert generated_in_sub_phase > len(hashes) // 2
        _undo_back_through(compiled, hashes)


def _copy_plays_on_alone(compiled, reference, index):
    """A copy makes move `index` as the reference's copy does; the game copied is unchanged."""
    twin, reference_twin, before = compiled.copy(), reference.copy(), compiled.hash()
    assert twin.apply_id(index) and reference_twin.apply_id(index)
    assert twin.hash() == reference_twin.hash() and compiled.hash() == before


def _undo_back_through(compiled, hashes):
    """undo() one move at a time gives the hashes seen, newest first, back to the first."""
    while len(hashes) > 1:
        hashes.pop()
        assert compiled.undo() and compiled.hash() == hashes[-1]


@pytest.mark.parametrize("folder", ["corporate-times", os.path.join(ROOT, "tests", "rulesets", "auction"),
                                    os.path.join(ROOT, "tests", "rulesets", "reaction_window")], ids=os.path.basename)
def test_a_sub_phase_entered_inside_a_move_is_entered_played_and_left_by_the_generated_code(folder):
    """`enter` inside a move (Corporate Times' bidding war, entered by a News card; an auction;
    a reaction window): the generated code enters the sub-phase, plays its turns and, at its
    `return`, sends the effects that entered it on; no move is handed to the reference engine.
    The hash at every step, a copy made in the sub-phase, and apply_id/undo back across all of
    it are the reference's."""
    ruleset = load(folder)
    players = max(ruleset.players)
    met = 0
    for seed in range(2):
        reference, compiled = _both(ruleset, players, seed)
        rng = random.Random(seed)
        hashes, copied = [compiled.hash()], False
        while not reference.is_terminal and len(hashes) < 500:
            assert compiled._ref is None, "a move was handed over to the reference engine"
            in_sub_phase = compiled.entered_here() and compiled._pending.decision is None
            met += in_sub_phase
            index = rng.randrange(len(reference.legal_action_ids()))
            if in_sub_phase and not copied:  # a copy in a sub-phase plays on alone
                copied = True
                _copy_plays_on_alone(compiled, reference, index)
            assert reference.apply_id(index) and compiled.apply_id(index)
            assert compiled.hash() == reference.hash(), (seed, len(hashes))
            hashes.append(compiled.hash())
        _undo_back_through(compiled, hashes)
    assert met > 2, "no sub-phase was met: pick seeds that enter one"


@pytest.mark.parametrize("name,players", [("corporate-times", 4), ("davos", 4)])
def test_evaluate_reads_the_game_s_own_vars_at_every_step_without_a_twin(name, players):
    """`evaluate` (play_game's end assertions, agents' heuristics) gives the reference's value at
    every step, decisions and sub-phases inside moves included, and builds no reference twin."""
    ruleset = load(name)
    handles = [ruleset.heuristic] + [handle for _when, handle, _message, _pos in ruleset.assertions if handle]
    reference, compiled = _both(ruleset, players, 3)
    rng = random.Random(3)
    for _ in range(300):
        for handle in handles:
            for seat in range(players):
                names = {"p": seat, "player": seat}
                assert _value_or_error(compiled, handle, names) == _value_or_error(reference, handle, names)
        if reference.is_terminal:
            break
        index = rng.randrange(len(reference.legal_action_ids()))
        assert reference.apply_id(index) and compiled.apply_id(index)
    assert compiled._twin is None and compiled._ref is None
    assert compiled.hash() == reference.hash()


def _value_or_error(state, handle, names):
    """The value of `handle` in `state`, or the message of the rule error it raises."""
    from interpreter.errors import RuleRuntimeError

    try:
        return state.evaluate(handle, names)
    except RuleRuntimeError as error:
        return f"error: {error}"


def test_a_construct_the_generator_does_not_write_keeps_the_game_on_the_reference(monkeypatch):
    """Every construct compiles today; one that does not (here `end_phase`, taken out of the
    generator's list as a future construct would be missing) is named with where it is written,
    and the game is played by the reference engine."""
    import importlib

    from interpreter.compiled.module import clear_memos
    from interpreter.engine import effects as fx
    from interpreter.info import describe

    support_module = importlib.import_module("interpreter.compiled.support")  # (the package's `support` is the function)
    without = tuple(kind for kind in support_module.SUPPORTED_EFFECTS if kind is not fx.EndPhase)
    monkeypatch.setattr(support_module, "SUPPORTED_EFFECTS", without)
    clear_memos()
    try:
        ruleset = load(os.path.join(ROOT, "tests", "rulesets", "lifecycle"))
        gap = support(ruleset)
        assert gap.construct == "the effect 'endphase'" and gap.where.endswith("game.yaml:29:15")
        assert type(ruleset.new_game(2, seed=1, engine="compiled")) is State
        assert describe(ruleset, 2)["compiled"]["supported"] is False
    finally:
        clear_memos()


def _engines_asked(monkeypatch) -> list:
    """The `engine` of every Ruleset.new_game call from now on."""
    from interpreter.ruleset import Ruleset

    engines = []
    new_game = Ruleset.new_game
    monkeypatch.setattr(Ruleset, "new_game", lambda self, *args, **kwargs: (
        engines.append(kwargs.get("engine")), new_game(self, *args, **kwargs))[1])
    return engines


@pytest.mark.parametrize("name,players,modules", [("tictactoe", 2, ()), ("kuhn-poker", 2, ()), ("davos", 4, ()),
                                                  ("deep-state", 3, ("draft",)), ("global-mogul", 3, ()),
                                                  ("corporate-times", 4, ())])
def test_play_game_plays_random_agents_on_the_compiled_engine_and_the_games_are_the_same(name, players, modules,
                                                                                        monkeypatch):
    """`play_game(engine="auto")` (what `simulate` runs) plays random agents on the compiled
    engine; each game's record is the same as on the reference engine."""
    from interpreter.play import play_game

    ruleset = load(name, modules=modules)
    engines = _engines_asked(monkeypatch)
    for seed in range(2):
        compiled = play_game(ruleset, players, seed, ["random"], record=True).to_json()
        reference = play_game(ruleset, players, seed, ["random"], record=True, engine="reference").to_json()
        assert compiled == reference and compiled["error"] is None, (name, seed)
    assert engines == ["compiled", "reference", "compiled", "reference"]


def test_play_game_plays_other_agents_on_the_reference_engine(monkeypatch):
    """An agent that reads more than its legal moves (greedy, MCTS: drawn worlds) gets the
    reference engine's State."""
    from interpreter.play import play_game

    ruleset = load("kuhn-poker")
    engines = _engines_asked(monkeypatch)
    assert play_game(ruleset, 2, 0, ["random", "greedy"]).error is None
    assert engines[0] == "reference"


def test_start_positions_are_memoised_by_the_chance_outcomes_of_set_up():
    """Set-up that draws a few times (Kuhn deals from a shuffled 3-card deck, dice's deck, a
    random first player) is memoised by its outcomes; one that shuffles a long deck (davos) is
    set up by the generated code every time. Either way every seed starts as the reference does."""
    for name, players, positions in (("kuhn-poker", 2, 6), ("dice", 2, None), ("start_player", 3, 3),
                                     ("davos", 4, 0)):
        folder = name if name in ("kuhn-poker", "davos") else os.path.join(ROOT, "tests", "rulesets", name)
        ruleset = load(folder)
        for seed in range(24):
            reference, compiled = _both(ruleset, players, seed)
            assert compiled.hash() == reference.hash(), (name, seed)
            assert compiled.seed_text == reference.seed_text and compiled.rng == reference.d["rng"], (name, seed)
            index = random.Random(seed).randrange(len(reference.legal_action_ids()))
            assert compiled.apply_id(index) and reference.apply_id(index)
            assert compiled.hash() == reference.hash(), (name, seed)
        memo = game_module(ruleset).start_positions[players]
        if positions == 0:
            assert not memo.open and memo.size == 0, name
        elif positions is not None:
            assert memo.size == positions, name


def test_a_start_position_s_vars_are_new_plain_data_every_game():
    from interpreter.compiled.start import fresh_copier

    data = {"board": ["", "X"], "n": -3, "ok": True, "none": None, "ratio": 0.1, "deep": [[{"1": [2]}]], "7": {5: "q"}}
    copy_of = fresh_copier(data)
    first, second = copy_of(), copy_of()
    assert first == data == second and first is not second and first["deep"][0] is not second["deep"][0]
    assert type(first["ok"]) is bool and list(first["7"]) == [5]
    first["board"][0] = "O"
    assert copy_of()["board"] == ["", "X"]
    for awkward in ({"x": float("inf")}, {"x": (1, 2)}, {"x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}):
        assert fresh_copier(awkward)() == awkward  # marshal copies what a literal cannot write


def test_a_rule_failing_in_a_move_made_without_an_undo_log_leaves_the_game_as_it_was(tmp_path):
    """`apply` keeps no undo log when no effect can refuse a move (no `fail`, no `choose`): a
    rule failing halfway is put right by setting the game up again and making its moves."""
    ruleset = _breaking(tmp_path, "['count += 1', 'items[0] = count', {if: 'count == 3', then: ['items[5] = 1']}]")
    assert not game_module(ruleset).refusable
    reference, compiled = _both(ruleset, 2, 1)
    for _ in range(2):
        assert compiled.apply(compiled.legal_actions()[0]) and reference.apply(reference.legal_actions()[0])
    before = compiled.hash()
    failed, expected = compiled.apply(compiled.legal_actions()[0]), reference.apply(reference.legal_actions()[0])
    assert not failed and failed.code == "rule_error" == expected.code and failed.reason == expected.reason
    assert compiled.hash() == before == reference.hash()
    assert compiled.vars == {**reference.vars} and compiled.history() == reference.history()


def test_undo_after_moves_made_with_apply_goes_back_as_the_reference_does():
    """The reference's undo point is a snapshot: undo() after apply_id then apply goes back to
    before the apply_id move, taking the apply move back too."""
    for name in ("kuhn-poker", "tictactoe"):
        ruleset = load(name)
        reference, compiled = _both(ruleset, 2, 1)
        for game in (reference, compiled):
            assert game.apply_id(0) and game.apply(game.legal_actions()[-1])
        assert compiled.hash() == reference.hash()
        assert compiled.undo() and reference.undo()
        assert compiled.hash() == reference.hash() == ruleset.new_game(2, seed=1).hash(), name


def test_a_random_agent_plays_a_compiled_game_without_building_the_reference():
    """What a random agent reads (is_simultaneous, the legal moves, apply) is answered by the
    generated code, decisions inside moves included: no reference State is built."""
    from interpreter.agents import make_agent

    for name, players in (("davos", 4), ("global-mogul", 3)):
        state = load(name).new_game(players, seed=1, engine="compiled")
        agent = make_agent("random", 1)
        while not state.is_terminal:
            assert state.apply(agent.act(state, state.current_player))
        assert state._twin is None and state._ref is None, name
