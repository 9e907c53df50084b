"""Typed references: the designer mistakes of issue 13 ("Why") are errors at file:line:col with a
suggestion, on a copy of Davos with one edit each."""
import os
import shutil

import pytest

import interpreter
from interpreter.errors import RulebookError

DAVOS = os.path.join(os.path.dirname(__file__), "..", "rulesets", "davos")


def _edited(tmp_path, file, old, new, count=1):
    folder = tmp_path / "davos"
    shutil.copytree(DAVOS, folder)
    path = folder / file
    text = path.read_text()
    assert text.count(old) >= count
    path.write_text(text.replace(old, new, count))
    line = text[:text.index(old)].count("\n") + 1
    return str(folder), line


@pytest.mark.parametrize("file, old, new, modules, message, hint", [
    ("components/board.yaml", "    party_america_l:\n      bloc: america", "    party_america_l:\n      bloc: amerca",
     [], "party 'party_america_l' field 'bloc': 'amerca' is not one of its allowed values", "did you mean 'america'"),
    ("components/goals.yaml", "{kind: corps_combined, bloc: america}", "{kind: corps_combined, bloc: amerca}",
     [], "field 'requirements.bloc': 'amerca'", "did you mean 'america'"),
    ("bills.yaml", "c.sector == bill.sector", "c.sectr == bill.sector",
     [], "attribute 'sectr'", "did you mean 'sector'"),
    ("modules/big.yaml", "card.effect == 'bankrupt_to_party'", "card.effect == 'bankrupt_to_pary'",
     ["mean", "big"], "'card.effect' compared with text: 'bankrupt_to_pary'", "did you mean 'bankrupt_to_party'"),
])
def test_a_misspelt_reference_is_an_error_where_it_is_written(tmp_path, file, old, new, modules, message, hint):
    folder, line = _edited(tmp_path, file, old, new)
    with pytest.raises(RulebookError) as e:
        interpreter.load(folder, modules)
    found = [d for d in e.value.diagnostics if message in d.message]
    assert found, [d.message for d in e.value.diagnostics]
    d = found[0]
    assert d.pos.file.endswith(file) and d.pos.line in (line, line + 1) and d.pos.col > 0
    assert hint in (d.hint or "")


def test_a_ref_to_an_unknown_type_and_an_unknown_field(tmp_path):
    folder, _ = _edited(tmp_path, "world.yaml", "party: {bloc: {ref: bloc},", "party: {bloc: {ref: blok}, blco: {ref: bloc},")
    with pytest.raises(RulebookError) as e:
        interpreter.load(folder)
    messages = [d.message + " " + (d.hint or "") for d in e.value.diagnostics]
    assert any("'blok', which is not a component type" in m and "did you mean 'bloc'" in m for m in messages)
    assert any("no party has the field 'blco'" in m for m in messages)


def test_a_typed_var_checks_its_value_and_comparisons(tmp_path):
    (tmp_path / "game.yaml").write_text(
        "game: {name: t, players: [1], start: p}\n"
        "components: {colour: {red: {}, blue: {}}}\n"
        "vars: {chosen: {value: red, ref: colour}, mood: {value: calm, enum: [calm, angry]}}\n"
        "phases:\n  p: {kind: auto, next: [{to: e, if: \"chosen == 'bleu' or mood != 'angyr'\"}, {to: e}]}\n"
        "  e: {kind: end}\n")
    with pytest.raises(RulebookError) as e:
        interpreter.load(str(tmp_path))
    hints = sorted((d.hint or "") for d in e.value.diagnostics)
    assert hints == ["did you mean 'angry'?", "did you mean 'blue'?"]
    assert all(d.pos.line == 5 for d in e.value.diagnostics)


def test_bundled_rulesets_have_valid_references():
    for name in ("davos", "deep-state", "tictactoe", "kuhn-poker"):
        interpreter.load(name)
    interpreter.load("davos", ["mean", "big", "dissidents"])
