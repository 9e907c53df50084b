"""Plain values in drawn worlds (module `worlds`, `world_search`): equality as JSON, the texts
inside a value, two items exchanged in place, where two observations differ, outcomes in a
weighted random order.

Owns: these value helpers (no state is played here).
"""
from __future__ import annotations

import collections
import json

__all__ = ["same_value", "scalars", "exchange", "observed_differences", "weighted_order"]


def same_value(left, right) -> bool:
    """Whether two plain values are equal as JSON (1 and True differ)."""
    if type(left) in _PLAIN and type(right) in _PLAIN:  # (equal as JSON exactly when of one type and equal)
        return type(left) is type(right) and left == right
    return json.dumps(left, sort_keys=True, default=str) == json.dumps(right, sort_keys=True, default=str)


# types whose values are equal as JSON exactly when they are of one type and ==, and never equal
# as JSON to a value of another of these types (a text is quoted; 1, true and null differ): not
# float (-0.0 == 0.0, and 1.0 is written "1.0")
_PLAIN = (str, int, bool, type(None))


def scalars(value, out: list, keys: bool = False) -> list:
    """The texts inside `value` (lists and maps, nested), and with `keys` the maps' keys too."""
    if isinstance(value, dict):
        if keys:
            out.extend(value)
        for item in value.values():
            scalars(item, out, keys)
    elif isinstance(value, (list, tuple)):
        for item in value:
            scalars(item, out, keys)
    elif isinstance(value, str):
        out.append(value)
    return out


def exchange(value, first, second) -> None:
    """Swap every `first` and `second` inside the lists and maps of `value` (in place)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in list(items):
        if isinstance(item, (list, dict)):
            exchange(item, first, second)
        elif type(item) is type(first) and item == first:
            value[key] = second
        elif type(item) is type(second) and item == second:
            value[key] = first


def observed_differences(have, want) -> list:
    """[(value in `have`, value in `want`)] where two observations differ: place by place where
    both hold a single value, then the values one holds anywhere and the other does not (an
    item drawn into another place than the one seen, or a map keyed by another place: a piece
    placed at another position than the one seen), paired in order."""
    pairs: list = []
    _differing_places(have, want, pairs)
    extra = collections.Counter(scalars(have, [], keys=True))
    extra.subtract(scalars(want, [], keys=True))
    surplus = [value for value, count in extra.items() for _ in range(count) if count > 0]
    lacking = [value for value, count in extra.items() for _ in range(-count) if count < 0]
    pairs.extend(zip(surplus, lacking))
    return pairs


def _differing_places(have, want, out: list) -> None:
    if isinstance(have, dict) and isinstance(want, dict):
        for key in have:  # in the observation's order (a set of keys would follow the hash seed)
            if key in want:
                _differing_places(have[key], want[key], out)
    elif isinstance(have, list) and isinstance(want, list):
        if len(have) == len(want):
            for left, right in zip(have, want):
                _differing_places(left, right, out)
    elif have != want and not isinstance(have, (list, dict)) and not isinstance(want, (list, dict)):
        out.append((have, want))


def weighted_order(outcomes: list, chooser) -> list:
    """The outcomes in a random order, each earlier with a chance in proportion to its
    probability (weighted sampling without replacement)."""
    keyed = [(chooser.random() ** (1.0 / probability), index) for index, (_, probability) in enumerate(outcomes)]
    keyed.sort(reverse=True)
    return [outcomes[index][0] for _, index in keyed]
