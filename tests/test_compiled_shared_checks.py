"""Requirements shared by two actions of one listing (interpreter/compiled/shared_checks.py):
the second action reads whether the leading checks it shares with the first passed for each
value, and charges their work again, so the compiled game is the same with the sharing as
without it at every work bound (the moves, the states, the step where the bound is reached, the
message and its place in the rule files: a rule error inside a move is met again by the reference
engine, which then makes the move, so what shows is that the bound is reached at the same step).
The game of tests/rulesets/shared_checks is also played step by step against the reference
engine by test_compiled.py."""
import os
import re

from interpreter import load
from interpreter.compiled import legal_code
from interpreter.compiled.module import clear_memos, game_module
from test_compiled_loops import _compiled_games

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = os.path.join(ROOT, "tests", "rulesets", "shared_checks")


def test_the_second_action_reads_what_the_first_recorded():
    source = game_module(load(GAME)).source
    assert len(re.findall(r"checked\d+ = \[\]", source)) == 1
    assert len(re.findall(r"kept\d+ = checked\d+ if", source)) == 1
    # the two checks they share (free_site, holdings) are recorded; each keeps its own third
    assert re.search(r"passed\d+ = _h\d+\(V, L\) and _h\d+\(V, L\)\n", source)


def test_the_game_is_the_same_without_the_sharing_at_every_work_bound(monkeypatch):
    limits, seeds = range(4, 300, 2), range(3)
    shared = _compiled_games(GAME, limits, seeds)
    monkeypatch.setattr(legal_code, "sharing_plan", lambda *_arguments: {})
    try:
        plain = _compiled_games(GAME, limits, seeds)
        assert "= checked" not in game_module(load(GAME)).source
    finally:
        clear_memos()
    assert shared == plain
    # not vacuous: the bound refuses moves at some bounds and lets them through at larger ones
    refused = {key for key, steps in shared.items() if any(not applied for _, applied, _, _ in steps)}
    assert refused and len(refused) < len(shared)
