"""Static dead-rule checks: conditions fixed by the settings and the declared bounds of vars."""
import pytest

import interpreter

GAME = """\
game: {name: d, players: [1], start: p}
settings:
  rounds: {value: 3, min: 1, max: 9}
vars:
  round: {value: 1, min: 1, max: rounds}
actions:
  wait: {label: "wait", requires: {expr: "rounds > 5", reason: "only long games"}, effects: []}
  go: {label: "go", effects: ["round += 1"]}
phases:
  p:
    kind: turns
    actions: [go, wait]
    rounds: 1
    next: [{to: p, if: "round < rounds"}, {to: q, if: "round > 3"}, {to: e}]
  q: {kind: auto, effects: [{if: "rounds == 3", then: ["round = 1"]}], next: e}
  e: {kind: end}
"""


def _warnings(tmp_path, **settings):
    (tmp_path / "game.yaml").write_text(GAME)
    rs = interpreter.load(str(tmp_path), settings=settings)
    return [(w.pos.line, w.message) for w in rs.warnings if w.code == "dead-rule"]


def test_conditions_fixed_by_settings_and_bounds_are_warned_at_their_line(tmp_path):
    found = _warnings(tmp_path)
    assert (7, "requirement 'rounds > 5' is always false (given the settings and the declared bounds of vars)") in found
    assert any(line == 14 and "branch 'round > 3' is always false" in m for line, m in found)
    assert any(line == 15 and "condition 'rounds == 3' is always true" in m for line, m in found)
    assert not any("round < rounds" in m for _, m in found)  # decided by play, not by the bounds


def test_a_setting_changes_what_is_dead(tmp_path):
    found = _warnings(tmp_path, rounds=6)
    assert not any("round > 3" in m for _, m in found)
    assert any("rounds > 5' is always true" in m for _, m in found)
    assert any("rounds == 3' is always false" in m for _, m in found)


def test_bundled_rulesets_have_no_dead_rules():
    for name, modules in (("davos", ["mean", "big"]), ("deep-state", []), ("kuhn-poker", []), ("tictactoe", [])):
        assert not [w for w in interpreter.load(name, modules).warnings if w.code == "dead-rule"], name
