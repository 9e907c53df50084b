"""The list and map builtins of the expression language (`count`, `distinct`, `union`, `most`,
`biggest`, `keys`, `sum` of lists, ...): pure functions on plain data. Those that take the work
budget as their first argument are named in `CHARGED` (builtins.py); the list-as-set ones
(`distinct`, `union`, `intersection`, `difference`) use a hash set for hashable items.

Owns: these functions. The whitelist that names them (`BUILTINS`) is in builtins.py.
"""
from __future__ import annotations

from ..errors import RuleRuntimeError
from .budget import MAX_RANGE, Budget, _key_back, _short, kind_of, text_key

def _biggest(budget, counts, *others):
    """The single owner with strictly more than every other owner, else none.

    `counts` is a mapping owner -> number (owners with 0 do not count), or a list of such
    mappings, which are combined first."""
    if others:
        counts = _combined(budget, [counts, *others])
    elif isinstance(counts, list):
        counts = _combined(budget, counts)
    if not counts:
        return None
    budget.charge(len(counts), "biggest")
    best = None
    best_n = 0
    tie = False
    for owner, number in counts.items():
        if number > best_n:
            best, best_n, tie = owner, number, False
        elif number == best_n and number > 0:
            tie = True
    if best_n <= 0 or tie:
        return None
    return _key_back(best)


def _combined(budget, maps):
    out: dict = {}
    read = 0
    for mapping in maps:
        if not mapping:
            continue
        read += len(mapping)
        for key, value in mapping.items():
            if type(key) is not str:
                key = text_key(key)
            out[key] = out.get(key, 0) + value
    budget.charge(read, "combined")  # (the maps exist already: reading them cannot run away)
    return out


_NO_VALUE = object()


def _count(items, value=_NO_VALUE):
    if type(items) is list:
        return len(items) if value is _NO_VALUE else items.count(value)
    if value is not _NO_VALUE:  # count(xs, none) counts the nones
        if type(items) is list:
            return items.count(value)
        return sum(1 for x in items if x == value)
    if isinstance(items, (list, str, dict, tuple, range)):
        return len(items)
    return sum(1 for _ in items)


class _Seen:
    """Membership for the list-as-set builtins: a hash set for hashable items, and a list
    scanned item by item (each comparison charged) for the others (lists, maps)."""

    __slots__ = ("hashable", "others", "budget")

    def __init__(self, budget: Budget, items=()):
        self.hashable: set = set()
        self.others: list = []
        self.budget = budget
        for item in items:
            self.add(item)

    def __contains__(self, item) -> bool:
        try:
            return item in self.hashable
        except TypeError:
            self.budget.charge(len(self.others), "comparing lists or maps one by one")
            return item in self.others

    def add(self, item) -> None:
        try:
            self.hashable.add(item)
        except TypeError:
            self.others.append(item)


def _distinct(budget, items):
    seen = _Seen(budget)
    out = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _min(*args, default=None, key=None):
    if len(args) > 1:  # min(a, b, ...): never empty
        return min(args, key=key) if key else min(args)
    seq = list(args[0])
    if not seq:
        return default
    return min(seq, key=key) if key else min(seq)


def _max(*args, default=None, key=None):
    if len(args) > 1:  # max(a, b, ...): never empty
        return max(args, key=key) if key else max(args)
    seq = list(args[0])
    if not seq:
        return default
    return max(seq, key=key) if key else max(seq)


def _range(start, stop=None, step=1):
    if stop is None:
        start, stop = 0, start
    numbers = range(int(start), int(stop), int(step))
    if len(numbers) > MAX_RANGE:
        raise RuleRuntimeError(f"range of {len(numbers)} elements is larger than {MAX_RANGE}",
                               plain=f"a range larger than {MAX_RANGE} elements")
    return list(numbers)


def _most(items, key=None):
    """All items that share the best (largest) key: the 'most X' with ties kept."""
    items = list(items)
    if not items:
        return []
    keys = [key(x) for x in items] if key is not None else items
    best = max(keys)
    return [x for x, k in zip(items, keys) if k == best]


def _ranked(items, key, reverse=True):
    """Items ordered best first by `key` (a number or a list of tie-breakers, compared in turn)."""
    return sorted(items, key=key, reverse=reverse)


def _get(mapping, key, default=None):
    if type(mapping) is dict or isinstance(mapping, dict):  # (the exact type first: the common case, and cheaper)
        value = mapping.get(key, _missing)
        if value is not _missing:
            return value
        return default if isinstance(key, str) else mapping.get(str(key), default)
    if isinstance(mapping, list) and isinstance(key, int) and -len(mapping) <= key < len(mapping):
        return mapping[key]
    return default


_missing = object()


def _first(seq, default=None):
    for item in seq:
        return item
    return default


def _last(seq, default=None):
    seq = list(seq)
    return seq[-1] if seq else default


def _index(seq, item):
    try:
        return list(seq).index(item)
    except ValueError:
        return -1


def _keys(mapping):
    if isinstance(mapping, dict):  # (_key_back, written out: this runs for every key)
        return [int(k) if isinstance(k, str) and k.isdigit() else k for k in mapping]
    return list(range(len(mapping)))


def _values(mapping):
    return list(mapping.values()) if isinstance(mapping, dict) else list(mapping)


def _items(budget, mapping):
    """items(m): its [key, value] pairs (a player number's text key back as the number), charged
    by their count. One loop in one function, not `_charging_result_of_one` around a
    comprehension: it runs for every `for k, v in items(m)`, mostly on maps of a few keys."""
    result = []
    append = result.append
    for key, value in mapping.items():
        append([int(key) if isinstance(key, str) and key.isdigit() else key, value])
    budget.left -= len(result)
    if budget.left < 0:
        budget.exceeded("items")
    return result


def _union(budget, *seqs):
    return _distinct(budget, [x for seq in seqs for x in seq])


def _intersection(budget, first, *rest):
    others = [_Seen(budget, rest_items) for rest_items in rest]
    return [x for x in _distinct(budget, first) if all(x in rest_items for rest_items in others)]


def _difference(budget, first, second):
    budget.charge(len(second), "difference")
    removed = _Seen(budget, second)
    return [item for item in first if item not in removed]


def _remove_one(seq, item):
    seq = list(seq)
    if item in seq:
        seq.remove(item)
    return seq


def _sum(budget, seq, start=0):
    """Python's sum; a sum of lists (`sum(hands, [])`) is built in one list, each element
    charged, instead of copying the partial list at every step."""
    if type(start) is not list:
        return sum(seq, start)
    out = list(start)
    for part in seq:
        if type(part) is not list:
            raise RuleRuntimeError(f"sum of lists met {_short(part)}, which is not a list",
                                   plain=f"sum of lists met {kind_of(part)}")
        budget.charge(len(part), "sum of lists")
        out.extend(part)
    return out


def _charging_result(function, what):
    """`fn`, charging the budget by the length of what it returns (the elements it built)."""
    def charged(budget, *args):
        result = function(*args)
        budget.charge(len(result), what)
        return result
    return charged


def _charging_result_of_one(function, what):
    """`_charging_result` for a function of one argument (no argument tuple built per call)."""
    def charged(budget, value):
        result = function(value)
        budget.left -= len(result)
        if budget.left < 0:
            budget.exceeded(what)
        return result
    return charged


def _sorted(seq, key=None, reverse=False):
    return sorted(seq, key=key, reverse=reverse)


def _enumerate(seq):
    return [[i, x] for i, x in enumerate(seq)]


def _zip(*seqs):
    return [list(t) for t in zip(*seqs)]


def _reversed(seq):
    return list(reversed(seq))
