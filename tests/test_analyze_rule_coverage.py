"""Rule coverage: the engine's counting copy of a ruleset (interpreter/engine/coverage.py) and
`rulebook analyze` listing the procedures, defines and `if` branches no game reached, on a
small ruleset with one of each planted (tests/rulesets/coverage)."""
import io
import json
import os

import interpreter
from interpreter.cli import run
from interpreter.engine.coverage import Coverage, instrument, points

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "tests", "rulesets", "coverage")


def play_first(state):
    while not state.is_terminal:
        assert state.apply(state.legal_actions()[0])
    return state


def test_counting_copy_counts_and_plays_the_same_game():
    rs = interpreter.load(RULES)
    blocks_before = list(rs.blocks)
    coverage = Coverage()
    counting = instrument(rs, coverage)
    plain = play_first(rs.new_game(2, seed=3))  # not recording: nothing counted
    assert coverage.counts == {}
    coverage.start()
    counted = play_first(counting.new_game(2, seed=3))
    coverage.stop()
    assert counted.vars == plain.vars and counted.steps == plain.steps
    assert rs.blocks == blocks_before  # the original's effects are untouched
    counts = coverage.counts
    # 8 turns: `rich` (coins >= 3) holds on each player's 3rd and 4th turn
    assert counts["procedure:pay_bonus"] == 4 and "procedure:award_jackpot" not in counts
    assert counts["define:rich"] == 8 and "define:jackpot" not in counts
    assert counts["then@game.yaml:29:9"] == 4 and counts["else@game.yaml:29:9"] == 4
    assert "then@game.yaml:30:9" not in counts and counts["else@game.yaml:30:9"] == 8
    assert counts["then@game.yaml:31:9"] == 8 and "else@game.yaml:31:9" not in counts
    assert {p.key for p in points(rs)} >= set(counts)


def test_nothing_is_counted_while_paused():
    rs = interpreter.load(RULES)
    coverage = Coverage()
    coverage.start()
    state = instrument(rs, coverage).new_game(2, seed=1)
    with coverage.paused():
        play_first(state.copy())  # an agent's search on a copy
    assert coverage.counts == {}
    state.apply(state.legal_actions()[0])
    assert coverage.counts["then@game.yaml:31:9"] == 1


def analyze(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(["analyze", *argv, "--quiet"], out, err, io.StringIO())
    assert code == 0, err.getvalue()
    return out.getvalue()


def test_analyze_lists_dead_procedure_define_and_branches(tmp_path):
    db = str(tmp_path / "r.sqlite")
    cov = json.loads(analyze(RULES, "--games", "12", "--db", db, "--json"))["coverage"]
    assert cov["procedures_never_called"] == [{"procedure": "award_jackpot", "where": "coverage/game.yaml:22"}]
    assert cov["defines_never_evaluated"] == [{"define": "jackpot", "where": "coverage/game.yaml:17"}]
    assert cov["branches_never_taken"] == [
        {"branch": "then", "condition": "coins[player] > 50", "where": "coverage/game.yaml:30"},
        {"branch": "else", "condition": "coins[player] >= 0", "where": "coverage/game.yaml:31"}]
    assert cov["rule_points"] == {"total": 10, "reached": 6} and cov["not_measured"] == []
    text = analyze(RULES, "--games", "12", "--db", db, "--from-db")
    assert "procedure never called: award_jackpot (coverage/game.yaml:22)" in text
    assert "define never evaluated: jackpot (coverage/game.yaml:17)" in text
    assert "if-branch never taken: else of `if: coins[player] >= 0` (coverage/game.yaml:31)" in text
