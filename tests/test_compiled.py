"""The compiled game (interpreter/compiled/) against the reference engine: the same seeds give the
same state hash at every step, the same legal actions and labels, the same scores and save, for
every ruleset the generator supports; the others report the construct that stops them."""
import os
import random

import pytest

from interpreter import load
from interpreter.compiled import support
from interpreter.compiled.game import CompiledState
from interpreter.compiled.module import game_module
from interpreter.engine import State

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULESETS = sorted([os.path.join(ROOT, "rulesets", name) for name in os.listdir(os.path.join(ROOT, "rulesets"))] +
                  [os.path.join(ROOT, "tests", "rulesets", name)
                   for name in os.listdir(os.path.join(ROOT, "tests", "rulesets"))])
# compiled today (a ruleset that stops compiling is a regression: say which construct stopped it)
EXPECTED_COMPILED = {"kuhn-poker", "tictactoe", "davos", "deep-state", "global-mogul", "deals", "proc_param_choose", "action_markers", "bounded_bets", "coverage", "curator", "dice",
                     "fixed_rounds", "hidden_die", "modifiers", "pass_round_robin", "phase_chain", "rankings",
                     "scenario_defines", "scoring_rows", "start_player", "tokens", "variants", "vote", "zones",
                     "bounded_answers", "view_modules"}


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
    assert compiled.to_json() == reference.to_json()
    return step


@pytest.mark.parametrize("folder", RULESETS, ids=os.path.basename)
def test_compiled_games_are_the_reference_games_step_by_step(folder):
    ruleset = load(folder)
    name = os.path.basename(folder)
    gap = support(ruleset)
    if gap is not None:
        assert name not in EXPECTED_COMPILED, f"{name} no longer compiles: {gap}"
        assert type(ruleset.new_game(ruleset.players[0], seed=1, engine="compiled")) is State
        return
    assert name in EXPECTED_COMPILED, f"{name} compiles now: add it to EXPECTED_COMPILED"
    for players in ruleset.players:
        for seed in range(4):
            _play_alongside(ruleset, players, seed)


def test_a_gap_names_the_construct_and_where_it_is_written():
    gap = support(load("corporate-times"))
    assert gap is not None and "'choose'" not in gap.construct
    assert gap.where.startswith("rulesets/corporate-times/") and gap.where.count(":") == 2
    secret = support(load(os.path.join(ROOT, "tests", "rulesets", "secret_note")))
    assert "secret action" in secret.construct and "'write'" in secret.where
    simultaneous = support(load(os.path.join(ROOT, "tests", "rulesets", "goofspiel")))
    assert simultaneous.construct == "a simultaneous phase" and "game.yaml:" in simultaneous.where


def test_rulebook_info_says_whether_the_game_is_compiled():
    from interpreter.info import describe

    assert describe(load("tictactoe"), 2)["compiled"]["supported"] is True
    corporate = describe(load("corporate-times"), 4)["compiled"]
    assert corporate["supported"] is False and "corporate-times" in corporate["where"]


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


def test_a_rule_failing_in_a_move_is_a_rule_error_and_the_game_is_unchanged(tmp_path):
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "game.yaml").write_text(
        "game: {name: breaks, players: [2], start: play}\n"
        "vars: {count: {value: 0}, items: {value: [1, 2]}}\n"
        "actions:\n"
        "  step: {effects: ['count += 1', {if: 'count == 2', then: ['items[5] = 1']}]}\n"
        "phases:\n"
        "  play: {kind: turns, actions: [step], rounds: 3, next: end}\n")
    ruleset = load(str(folder))
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
    """Each module combination of a compiled bundled game: one seed at its smallest player
    count, compared at every step (the base games are compared above with more seeds)."""
    for combination in load(name).combinations:
        if not combination["modules"]:
            continue
        ruleset = load(name, modules=tuple(combination["modules"]))
        gap = support(ruleset)
        if gap is not None:  # a module may bring a construct the generator does not write
            assert type(ruleset.new_game(combination["players"][0], seed=1, engine="compiled")) is State
            continue
        _play_alongside(ruleset, combination["players"][0], 1)
