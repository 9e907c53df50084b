"""`interpreter.settings.with_values`: the public way to make a variant of a loaded ruleset
(a setting, a top-level var's initial value, a constant) without reading a file again; what
`rulebook analyze --set/--compare/--sweep` use."""
import os

import pytest

import interpreter
from interpreter import loader
from interpreter.errors import RulebookError
from interpreter.settings import with_values

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def play_first(state):
    while not state.is_terminal:
        assert state.apply(state.legal_actions()[0])
    return state


def test_constant_override(monkeypatch):
    rs = interpreter.load(os.path.join(ROOT, "tests", "rulesets", "fixed_rounds"))
    monkeypatch.setattr(loader, "read_limited", lambda *a, **k: pytest.fail("a rule file was read again"))
    two = with_values(rs, {"years": 2})
    assert play_first(two.new_game(2, seed=1)).vars["year"] == 2  # the assertion year == years holds
    assert play_first(rs.new_game(2, seed=1)).vars["year"] == 3  # the original is untouched
    assert two.digest != rs.digest and with_values(rs, {"years": 2}).digest == two.digest
    assert with_values(rs, {}) is rs


def test_var_initial_value_override_drops_its_init():
    rs = interpreter.load(os.path.join(ROOT, "tests", "rulesets", "fixed_rounds"))
    rich = with_values(rs, {"coins": 5})
    assert rich.new_game(2, seed=0).vars["coins"] == [5, 5]
    assert rs.new_game(2, seed=0).vars["coins"] == [1, 1]


def test_setting_override_is_checked_like_set(monkeypatch):
    rs = interpreter.load("davos")
    monkeypatch.setattr(loader, "read_limited", lambda *a, **k: pytest.fail("a rule file was read again"))
    short = with_values(rs, {"years": 2})
    assert short.settings["years"] == 2 and short.overrides == {"years": 2}
    assert rs.settings["years"] == 3 and rs.tree["settings"]["years"]["value"] == 3
    with pytest.raises(RulebookError, match="outside its declared bounds"):
        with_values(rs, {"years": 11})
    with pytest.raises(ValueError, match="did you mean 'years'"):
        with_values(rs, {"yeers": 2})
