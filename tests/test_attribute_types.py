"""Attribute names are checked by the compiler's static types (interpreter/expr/attributes.py), not
by a pass over expression texts (issue 13, item 1): a named expression is checked for each
argument type it is called with, and an attribute of a value of unknown type must be one some
component, constant or var value has."""
import pytest

import interpreter
from interpreter.errors import RulebookError

GAME = """\
game: {{name: t, players: [1], start: p}}
components:
  corp: {{obay: {{sector: tech}}, acme: {{sector: oil}}}}
  bloc: {{america: {{name: America}}}}
define:
  in_sector: {{params: [c, s], expr: "{body}"}}
vars: {{n: {{value: 0}}, held: {{value: [obay]}}}}
phases:
  p: {{kind: auto, effects: ["{effect}"], next: e}}
  e: {{kind: end}}
"""


def _errors(tmp_path, body="c.sector == s", effect="n = count(x for x in corp if in_sector(x, 'tech'))"):
    (tmp_path / "game.yaml").write_text(GAME.format(body=body, effect=effect))
    with pytest.raises(RulebookError) as error:
        interpreter.load(str(tmp_path))
    return [(d.pos.line, d.pos.col, d.message, d.hint) for d in error.value.diagnostics]


def test_a_define_is_checked_with_the_type_of_its_arguments(tmp_path):
    # `name` is an attribute of a bloc, not of a corp: only the argument's type can tell
    found = _errors(tmp_path, body="c.name == s")
    assert [f[:3] for f in found] == [(6, 40, "a corp has no attribute 'name'")]


def test_a_misspelt_attribute_in_a_define_names_the_type_and_the_right_name(tmp_path):
    assert _errors(tmp_path, body="c.sectr == s") == [(6, 40, "a corp has no attribute 'sectr'",
                                                       "did you mean 'sector'?")]


def test_an_attribute_of_a_value_of_unknown_type_must_exist_somewhere(tmp_path):
    found = _errors(tmp_path, effect="n = len([h for h in held if h.sectr == 'tech'])")
    assert found == [(9, 60, "no component, constant or var value has the attribute 'sectr'",
                      "did you mean 'sector'?")]


def test_one_error_per_place_for_a_define_called_with_several_types(tmp_path):
    found = _errors(tmp_path, body="c.sectr == s",
                    effect="n = count(x for x in corp if in_sector(x, 'tech')) + (1 if in_sector(held[0], 'x') else 0)")
    assert len(found) == 1 and found[0][2] == "a corp has no attribute 'sectr'"


def test_the_same_misspelt_text_in_two_places_is_reported_at_each(tmp_path):
    # the second place reuses the first's generated code (and what its generator recorded)
    effect = "n = len([h for h in held if h.sectr == 'tech'])\", \"n = len([h for h in held if h.sectr == 'tech'])"
    found = _errors(tmp_path, effect=effect)
    assert [f[2] for f in found] == ["no component, constant or var value has the attribute 'sectr'"] * 2
    assert len({f[:2] for f in found}) == 2


def test_the_first_unknown_attribute_of_a_text_is_the_one_reported(tmp_path):
    found = _errors(tmp_path, effect="n = len([h for h in held if h.sectr == 'tech' or h.nme == 'x'])")
    assert [f[2] for f in found] == ["no component, constant or var value has the attribute 'sectr'"]


def test_a_define_called_only_with_untyped_values_is_checked_against_every_attribute(tmp_path):
    found = _errors(tmp_path, body="c.sectr == s", effect="n = 1 if in_sector(held[0], 'tech') else 0")
    assert found == [(6, 40, "no component, constant or var value has the attribute 'sectr'",
                      "did you mean 'sector'?")]


CHAIN = """\
game: {name: t, players: [1], start: p}
components:
  corp: {obay: {sector: tech}}
  bloc: {america: {name: America}}
define:
  outer: {params: [c], expr: "inner(c)"}
  inner: {params: [c], expr: "c.name == 'x'"}
vars: {n: {value: 0}}
phases:
  p: {kind: auto, effects: ["n = count(x for x in corp if outer(x))"], next: e}
  e: {kind: end}
"""


def test_a_define_is_checked_with_the_types_another_define_passes_it(tmp_path):
    # `outer` is called with a corp, and passes it on: `inner` is checked with a corp too
    (tmp_path / "game.yaml").write_text(CHAIN)
    with pytest.raises(RulebookError) as error:
        interpreter.load(str(tmp_path))
    assert [(d.pos.line, d.message) for d in error.value.diagnostics] == [(7, "a corp has no attribute 'name'")]
