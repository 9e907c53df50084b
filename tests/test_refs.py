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


def _one_phase_game(folder, colours, condition):
    folder.mkdir()
    (folder / "game.yaml").write_text(
        "game: {name: t, players: [1], start: p}\n"
        f"components: {{colour: {{{colours}}}}}\n"
        "vars: {chosen: {value: red, ref: colour}}\n"
        f"phases:\n  p: {{kind: auto, next: [{{to: q, if: \"{condition}\"}}, {{to: e}}]}}\n"
        f"  q: {{kind: auto, next: [{{to: e, if: \"{condition}\"}}, {{to: e}}]}}\n"
        "  e: {kind: end}\n")
    return str(folder)


def test_the_same_expression_text_is_checked_at_each_place_and_against_each_ruleset(tmp_path):
    """An expression text is scanned once per process; each place it is written still gets its own
    diagnostic, and each ruleset its own allowed values."""
    misspelt = _one_phase_game(tmp_path / "a", "red: {}, blue: {}", "chosen == 'bleu'")
    with pytest.raises(RulebookError) as e:
        interpreter.load(misspelt)
    found = [(d.pos.line, d.hint) for d in e.value.diagnostics if "compared with text: 'bleu'" in d.message]
    assert found == [(5, "did you mean 'blue'?"), (6, "did you mean 'blue'?")]
    allowed_here = _one_phase_game(tmp_path / "b", "red: {}, bleu: {}", "chosen == 'bleu'")
    assert interpreter.load(allowed_here) is not None


def test_bundled_rulesets_have_valid_references():
    for name in ("davos", "deep-state", "tictactoe", "kuhn-poker"):
        interpreter.load(name)
    interpreter.load("davos", ["mean", "big", "dissidents"])


def test_unquoted_none_in_data_is_an_error_at_its_column(tmp_path):
    (tmp_path / "game.yaml").write_text(
        "game: {name: n, players: [1], start: p}\n"
        "components:\n  bill:\n    tax: {ideology: L}\n    audit: {ideology: none, note: 'none', other: null}\n"
        "phases:\n  p: {kind: end}\n")
    with pytest.raises(RulebookError) as e:
        interpreter.load(str(tmp_path))
    found = [d for d in e.value.diagnostics if d.code == "yaml-none"]
    assert len(found) == 1 and (found[0].pos.line, found[0].pos.col) == (5, 23)
    assert found[0].severity == "error" and "write null (or ~)" in found[0].hint


def test_a_failed_count_assertion_names_the_items_beyond(tmp_path):
    (tmp_path / "game.yaml").write_text(
        "game: {name: c, players: [1], start: p}\n"
        "components: {corp: {a: {s: t}, b: {s: t}, c: {s: p}, d: {s: t}}}\n"
        "assertions:\n  - {expect: \"count(x for x in corp if x.s == 't') == 2\", message: '2 t'}\n"
        "  - {expect: \"len([x for x in corp if x.s == 'p']) == 3\", message: '3 p'}\n"
        "phases:\n  p: {kind: end}\n")
    with pytest.raises(RulebookError) as e:
        interpreter.load(str(tmp_path))
    messages = [d.message for d in e.value.diagnostics]
    assert "assertion failed: 2 t; found 3, 1 beyond the stated 2: d" in messages
    assert "assertion failed: 3 p; found 1, 2 fewer than the stated 3" in messages


def _scanned_by_every_pattern(text):
    """`refs._scan_expression` without its gate (`_searched`): every pattern searched."""
    from interpreter import refs

    comparisons = []
    for pattern in refs._COMPARED:
        for match in pattern.finditer(text):
            literal_group, name_group = (1, 2) if refs._STRING.fullmatch(match.group(1) or "") else (2, 1)
            literals = tuple((literal.group(0)[1:-1], match.start(literal_group) + literal.start())
                             for literal in refs._STRING.finditer(match.group(literal_group)))
            comparisons.append((match.group(name_group), literals))
    return tuple(comparisons)


def test_the_scan_skips_only_patterns_that_cannot_match():
    """`_searched` runs only the patterns whose match a text can hold: every expression text of
    the bundled rulesets (alone and with each of their modules) and 3,000 seeded soups of the pieces the
    patterns look for give the same comparisons as searching with every pattern."""
    import random

    from interpreter import refs
    from interpreter.compose import bundled_rulesets, compose

    texts = set()
    for folder in bundled_rulesets().values():
        for modules in [[]] + [[name] for name in sorted(compose(folder).tree.get("modules") or {})]:
            try:
                tree = compose(folder, modules).tree
            except RulebookError:  # a module that needs another
                continue
            texts.update(str(text) for text in refs._expressions(tree))
    pieces = ["x", "a.b", "_c1", "1abc", " ", "\n", "\t", "==", "!=", "=", "!", "'t'", '"u"', "'", '"', "in", "not",
              "[", "]", "['p', \"q\"]", ",", "(", ")", "for", "e.kind", "'none'", "[1]"]
    rng = random.Random(15)
    texts.update("".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(3000))
    found = 0
    for text in sorted(texts):
        expected = _scanned_by_every_pattern(text)
        assert refs._scan_expression(text) == expected, text
        found += bool(expected)
    assert found > 100  # the soups do hold comparisons: the gate is tested where it lets them through
