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


def test_decisions_inside_moves_are_made_by_the_reference_and_undo_crosses_them():
    """Davos asks players inside moves (`choose`): those moves are handed over to the reference
    engine and the generated code takes the game back at the next plain turn; apply_id/undo
    (what MCTS uses) go back exactly across both kinds of move."""
    ruleset = load("davos")
    for seed in range(2):
        reference, compiled = _both(ruleset, 4, seed)
        rng = random.Random(seed)
        hashes = [compiled.hash()]
        handed_over = 0
        for _ in range(60):
            if reference.is_terminal:
                break
            assert compiled.legal_action_ids() == reference.legal_action_ids()
            index = rng.randrange(len(reference.legal_action_ids()))
            assert reference.apply_id(index) and compiled.apply_id(index)
            handed_over += compiled._ref is not None
            assert compiled.hash() == reference.hash()
            hashes.append(compiled.hash())
        assert handed_over, "no move of these games was handed over: pick a seed that asks a player"
        while len(hashes) > 1:
            hashes.pop()
            assert compiled.undo() and compiled.hash() == hashes[-1]


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


def test_moves_predicted_to_hand_over_go_to_the_reference_without_a_try_and_stay_identical():
    """Global Mogul's actions that ask a player in nearly every position: after a few tries
    their moves go straight to the reference engine (one in HandOverRecord.RETRY_EVERY is
    still tried); the games, legal ids and undo stay the reference's."""
    ruleset = load("global-mogul")
    records = game_module(ruleset).hand_overs
    records.clear()
    for seed in range(3):
        reference, compiled = _both(ruleset, 3, seed)
        rng = random.Random(seed)
        hashes = [compiled.hash()]
        while not reference.is_terminal and len(hashes) < 150:
            assert compiled.legal_action_ids() == reference.legal_action_ids()
            index = rng.randrange(len(reference.legal_action_ids()))
            assert reference.apply_id(index) and compiled.apply_id(index)
            assert compiled.hash() == reference.hash(), (seed, len(hashes))
            hashes.append(compiled.hash())
        while len(hashes) > 1:
            hashes.pop()
            assert compiled.undo() and compiled.hash() == hashes[-1]
    assert any(record.skipped for record in records.values()), "no move went to the reference without a try"
    assert any(record.tries > record.hand_overs for record in records.values()), \
        "every action that ever handed over was predicted to: the test no longer sees a plain move of one"


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
