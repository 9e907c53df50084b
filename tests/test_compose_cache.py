"""Parsed files are shared between compositions in one process: composing one module
combination must never change what another composes to."""
import json

from interpreter.compose import compose, find_ruleset
from interpreter.loader import plain


def _dump(folder, mods):
    return json.dumps(plain(compose(folder, mods).tree), sort_keys=True)


def test_compositions_do_not_leak_into_each_other():
    folder = find_ruleset("tests/rulesets/variants")
    from interpreter.ruleset import load

    combos = [sorted(c.get("modules") or []) for c in load(folder).combinations]
    first = {tuple(m): _dump(folder, m) for m in combos}
    for m in reversed(combos):  # again, in another order
        assert _dump(folder, m) == first[tuple(m)]
    assert len(set(first.values())) == len(combos)
