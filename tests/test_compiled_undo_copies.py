"""The undo log's copy of a var's value (interpreter/compiled/module.py `copy_value`): equal to
the value, of the same types, and sharing nothing that can change with it at any depth, whether
it is copied level by level (a flat list, a map of scalars and flat lists and maps) or through
marshal (anything deeper). Undo itself is checked against the reference by test_compiled.py."""
import pytest

from interpreter.compiled.module import copy_value

VALUES = [
    7, 2.5, "text", None, True,
    [1, "a", None, 2.5],
    [[1, 2], [3]],  # deeper: marshal
    {"corp_a": {"0": 2, "dissident": 1}, "corp_b": {}, "count": 3, "deck": ["x", "y"], "gone": None},
    {"0": {"1": [1, 2]}},  # a list inside a map inside a map: marshal
    {"0": [{"card": 1}]},  # a map inside a list inside a map: marshal
    {1: {"2": 3.5}, 2: [True, False]},  # whole-number keys
    {},
]


def _typed(value):
    """`value` with the type of every part beside it (1, 1.0 and true are equal in Python)."""
    if isinstance(value, dict):
        return "map", [(_typed(key), _typed(item)) for key, item in value.items()]
    if isinstance(value, list):
        return "list", [_typed(item) for item in value]
    return type(value).__name__, value


def _containers(value, path=()):
    """(path, list or map) of every list and map inside `value`, itself first."""
    if isinstance(value, (list, dict)):
        yield path, value
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            yield from _containers(item, path + (key,))


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_a_copy_is_equal_of_the_same_types_and_shares_nothing_that_changes(value):
    copied = copy_value(value)
    assert _typed(copied) == _typed(value)
    originals = dict(_containers(value))
    for path, container in _containers(copied):
        assert container is not originals[path], path
