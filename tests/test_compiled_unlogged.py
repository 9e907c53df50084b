"""Moves made with `apply` on a compiled game whose rules can refuse a move (`fail`, `choose`)
keep an undo point but no undo log of the vars when undo() cannot take them back and the game
can be played again from set-up (game.py `_apply_index`): a refused move, a refused answer and
the position asked for at a decision inside the move are then put right from the game played
again (`_vars_at`), and are still the reference engine's."""
import random

from interpreter import load
from interpreter.compiled.game import CompiledState
from interpreter.compiled.module import game_module

RULES = """\
game: {name: unlogged, players: [2], start: play, end_if: "total >= 40"}
vars: {total: {value: 0}, picks: {value: []}}
phases: {play: {kind: turns, actions: [take, add], next: end}}
actions:
  add: {params: {n: "[1, 2]"}, effects: ["total += n", "picks = picks + [n]"]}
  take:
    effects:
      - "picks = picks + [player]"
      - {choose: {player: player, from: "[1, 2, 3]", as: a, prompt: "how many?"}}
      - "total += a"
      - {if: "a == 3 and total % 2 == 1", then: [{fail: "odd"}]}
      - {choose: {player: "1 - player", from: "[0, 1]", as: b, prompt: "one more?"}}
      - "total += b"
      - "picks = picks + [a + b]"
"""


def _ruleset(tmp_path):
    folder = tmp_path / "unlogged"
    folder.mkdir()
    (folder / "game.yaml").write_text(RULES)
    return load(str(folder))


def _both(ruleset, seed):
    reference, compiled = ruleset.new_game(2, seed=seed), ruleset.new_game(2, seed=seed, engine="compiled")
    assert type(compiled) is CompiledState
    return reference, compiled


def _vars_logged(game) -> bool:
    """Does the move under way (the game waits at a decision inside it) keep an undo log of the vars?"""
    return game._pending.start[7] is not game.module.every_var


def test_moves_made_with_apply_without_an_undo_log_are_the_references_refusals_too(tmp_path):
    """Random games with `apply` only, the position compared at every plain turn (where no
    replay is needed) and at the end: answers refused by `fail` put the game back at the
    decision from the game played again."""
    ruleset = _ruleset(tmp_path)
    seen = {"unlogged": 0, "refused": 0}
    for seed in range(8):
        reference, compiled = _both(ruleset, seed)
        rng = random.Random(seed)
        while not reference.is_terminal:
            if compiled._pending is None:
                assert compiled.hash() == reference.hash(), seed
            else:
                seen["unlogged"] += not _vars_logged(compiled)
            assert compiled.legal_action_ids() == reference.legal_action_ids()
            index = rng.randrange(len(reference.legal_action_ids()))
            expected, outcome = reference.apply(reference.legal_action(index)), compiled.apply(compiled.legal_action(index))
            assert (bool(outcome), outcome.code, outcome.reason) == (bool(expected), expected.code, expected.reason)
            seen["refused"] += not outcome
        assert compiled.is_terminal and compiled.hash() == reference.hash()
        assert compiled.history() == reference.history() and compiled.log == reference.log
    assert seen["unlogged"] > 20 and seen["refused"] > 2, seen


def test_the_position_at_a_decision_is_the_game_played_again_and_later_moves_keep_a_log(tmp_path):
    ruleset = _ruleset(tmp_path)
    reference, compiled = _both(ruleset, 1)
    take = next(action for action in compiled.legal_actions() if action.name == "take")
    assert compiled.apply(take) and reference.apply(take.to_json())
    assert compiled._pending is not None and not _vars_logged(compiled)
    assert compiled.hash() == reference.hash() and compiled.to_json() == reference.to_json()
    for _ in range(2):  # the answers: the move is over
        assert compiled.apply(compiled.legal_action(0)) and reference.apply(reference.legal_action(0))
    assert compiled._pending is None and compiled.hash() == reference.hash()
    take = next(action for action in compiled.legal_actions() if action.name == "take")
    assert compiled.apply(take) and reference.apply(take.to_json())
    assert _vars_logged(compiled), "asked for once, the position at a decision is likely asked for again"
    assert compiled.hash() == reference.hash()


def test_a_game_changed_from_outside_keeps_undo_logs(tmp_path):
    """A game whose vars were changed from outside (`touched`) is not its set-up played again:
    its moves keep undo logs, and a refused answer puts back the changed vars."""
    ruleset = _ruleset(tmp_path)
    reference, compiled = _both(ruleset, 2)
    for game in (reference, compiled):
        game.vars["total"] = 4
        game.touched()
    take = next(action for action in compiled.legal_actions() if action.name == "take")
    assert compiled.apply(take) and reference.apply(take.to_json())
    assert _vars_logged(compiled)
    refused, expected = compiled.apply(compiled.legal_action(2)), reference.apply(reference.legal_action(2))  # 3: odd
    assert not refused and (refused.code, refused.reason) == (expected.code, expected.reason)
    assert compiled.vars["total"] == 4 and compiled.hash() == reference.hash()
    assert game_module(ruleset).refusable


def test_a_rule_failing_in_a_game_changed_from_outside_puts_back_the_change(tmp_path):
    """Rules that cannot refuse a move: `apply` keeps no undo point in a game set up by the
    generated code (a rule failing halfway is put right by playing the game again), but one in a
    game whose vars were changed from outside, which playing again would not give back."""
    from test_compiled import _breaking

    ruleset = _breaking(tmp_path, "['count += 1', 'items[0] = count', {if: 'count == 12', then: ['items[5] = 1']}]")
    assert not game_module(ruleset).refusable
    reference, compiled = ruleset.new_game(2, seed=1), ruleset.new_game(2, seed=1, engine="compiled")
    for game in (reference, compiled):
        assert game.apply(game.legal_actions()[0])
        game.vars["count"] = 10
        game.touched()
        assert game.apply(game.legal_actions()[0])
    before = compiled.hash()
    failed, expected = compiled.apply(compiled.legal_actions()[0]), reference.apply(reference.legal_actions()[0])
    assert not failed and failed.code == "rule_error" == expected.code and failed.reason == expected.reason
    assert compiled.hash() == before == reference.hash() and compiled.vars["count"] == 11
