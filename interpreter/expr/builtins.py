"""The board-game builtins an expression may call, and the runtime helpers the generated code
uses (attribute access, the work budget). Everything here is pure and works on plain data.

Owns: the whitelist (`BUILTINS`, with arity) and the helpers. Does not own parsing or names.
"""
from __future__ import annotations

import functools
import math
from typing import Any, Callable

from ..errors import RuleRuntimeError

__all__ = ["BUILTINS", "CHARGED", "Budget", "make_runtime"]

MAX_RANGE = 100_000
MAX_SEQUENCE = 100_000
MAX_INT_BITS = 4096  # a product or power past this is refused (repeated squaring would hang)
MAX_INT_DIGITS = 1233
_SMALL = 1 << 64  # integers below this are multiplied without a check  # decimal digits of the largest integer of MAX_INT_BITS bits


def int_too_big(a, b, op="*"):
    """Would `a op b` on integers pass MAX_INT_BITS? (checked before computing it)"""
    if type(a) is int and type(b) is int:
        if op == "**":
            return b > 0 and a.bit_length() * b > MAX_INT_BITS
        return a.bit_length() + b.bit_length() > MAX_INT_BITS
    return False


class Budget:
    """A bound on the work one evaluation (or one engine step) may do, counted in elements:
    every element a comprehension or a builtin iterates over, builds or compares, and every
    element (or 64-bit word of a big integer) an operator produces.

    The public API, for the engine and for builtins:
      `charge(n, what)`  count `n` units of work; past the limit, refuse with a RuleRuntimeError
                         that says what was being done (and start afresh for the next step)
      `take(seq)`        charge `len(seq)` and give the sequence back (an iterator is read
                         element by element, each charged)
      `reset()`          a new step: the whole limit is available again
    """

    __slots__ = ("left", "limit")

    def __init__(self, limit: int = 2_000_000):
        self.limit = limit
        self.left = limit

    def reset(self) -> None:
        self.left = self.limit

    def charge(self, n: int, what: str = "an expression iterates over too much") -> None:
        self.left -= n
        if self.left < 0:
            self.exceeded(what)

    def exceeded(self, what: str = "an expression iterates over too much"):
        self.left = self.limit
        raise RuleRuntimeError(f"the work bound of {self.limit} elements per step was exceeded ({what})")

    def take(self, seq):
        try:
            n = len(seq)
        except TypeError:
            return list(_bounded_iter(seq, self))
        self.left -= n
        if self.left < 0:
            self.exceeded()
        if type(seq) is dict:
            return [_key_back(k) for k in seq]
        return seq


def _bounded_iter(it, budget):
    for x in it:
        budget.left -= 1
        if budget.left < 0:
            budget.exceeded()
        yield x


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
    for owner, n in counts.items():
        if n > best_n:
            best, best_n, tie = owner, n, False
        elif n == best_n and n > 0:
            tie = True
    if best_n <= 0 or tie:
        return None
    return _key_back(best)


def _key_back(k):
    # JSON object keys are strings; owners that are player numbers come back as ints
    if isinstance(k, str) and k.isdigit():
        return int(k)
    return k


def text_key(key):
    """A map key as it is stored: text as it is, a whole number as its text (player numbers
    come back as numbers through `keys`, `items` and iteration); any other key is refused."""
    t = type(key)
    if t is str:
        return key
    if t is int:
        return str(key)
    raise RuleRuntimeError(f"map keys are text or whole numbers, not {_short(key)}")


def one_kind_of_keys(mapping: dict) -> dict:
    """`mapping` (a map literal) checked: its keys are all text or all whole numbers."""
    kinds = {type(key) for key in mapping}
    if kinds <= {str} or kinds == {int}:
        return mapping
    other = next((key for key in mapping if type(key) not in (str, int)), None)
    if other is not None or not mapping:
        raise RuleRuntimeError(f"map keys are text or whole numbers, not {_short(other)}")
    raise RuleRuntimeError("map keys are text or whole numbers, one kind per map: this map mixes both "
                           f"({_short(list(mapping))})")


def _combined(budget, maps):
    out: dict = {}
    read = 0
    for m in maps:
        if not m:
            continue
        read += len(m)
        for k, v in m.items():
            if type(k) is not str:
                k = text_key(k)
            out[k] = out.get(k, 0) + v
    budget.charge(read, "combined")  # (the maps exist already: reading them cannot run away)
    return out


_NO_VALUE = object()


def _count(it, value=_NO_VALUE):
    if value is not _NO_VALUE:  # count(xs, none) counts the nones
        if type(it) is list:
            return it.count(value)
        return sum(1 for x in it if x == value)
    if isinstance(it, (list, str, dict, tuple, range)):
        return len(it)
    return sum(1 for _ in it)


class _Seen:
    """Membership for the list-as-set builtins: a hash set for hashable items, and a list
    scanned item by item (each comparison charged) for the others (lists, maps)."""

    __slots__ = ("hashable", "others", "budget")

    def __init__(self, budget: Budget, items=()):
        self.hashable: set = set()
        self.others: list = []
        self.budget = budget
        for x in items:
            self.add(x)

    def __contains__(self, x) -> bool:
        try:
            return x in self.hashable
        except TypeError:
            self.budget.charge(len(self.others), "comparing lists or maps one by one")
            return x in self.others

    def add(self, x) -> None:
        try:
            self.hashable.add(x)
        except TypeError:
            self.others.append(x)


def _distinct(budget, items):
    seen = _Seen(budget)
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _min(*args, default=None, key=None):
    seq = args[0] if len(args) == 1 else args
    seq = list(seq)
    if not seq:
        return default
    return min(seq, key=key) if key else min(seq)


def _max(*args, default=None, key=None):
    seq = args[0] if len(args) == 1 else args
    seq = list(seq)
    if not seq:
        return default
    return max(seq, key=key) if key else max(seq)


def _range(a, b=None, step=1):
    if b is None:
        a, b = 0, a
    r = range(int(a), int(b), int(step))
    if len(r) > MAX_RANGE:
        raise RuleRuntimeError(f"range of {len(r)} elements is larger than {MAX_RANGE}")
    return list(r)


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


def _get(m, k, default=None):
    if isinstance(m, dict):
        v = m.get(k, _missing)
        if v is not _missing:
            return v
        return default if isinstance(k, str) else m.get(str(k), default)
    if isinstance(m, list) and isinstance(k, int) and -len(m) <= k < len(m):
        return m[k]
    return default


_missing = object()


def _first(seq, default=None):
    for x in seq:
        return x
    return default


def _last(seq, default=None):
    seq = list(seq)
    return seq[-1] if seq else default


def _index(seq, x):
    try:
        return list(seq).index(x)
    except ValueError:
        return -1


def _keys(m):
    if isinstance(m, dict):  # (_key_back, written out: this runs for every key)
        return [int(k) if isinstance(k, str) and k.isdigit() else k for k in m]
    return list(range(len(m)))


def _values(m):
    return list(m.values()) if isinstance(m, dict) else list(m)


def _items(m):
    return [[int(k) if isinstance(k, str) and k.isdigit() else k, v] for k, v in m.items()]


def _union(budget, *seqs):
    return _distinct(budget, [x for seq in seqs for x in seq])


def _intersection(budget, first, *rest):
    others = [_Seen(budget, r) for r in rest]
    return [x for x in _distinct(budget, first) if all(x in r for r in others)]


def _difference(budget, first, second):
    budget.charge(len(second), "difference")
    removed = _Seen(budget, second)
    return [x for x in first if x not in removed]


def _remove_one(seq, x):
    seq = list(seq)
    if x in seq:
        seq.remove(x)
    return seq


def _clamp(x, lo, hi):
    return max(lo, min(hi, x))


def _round_down(x, step):
    return (x // step) * step


def _sum(budget, seq, start=0):
    """Python's sum; a sum of lists (`sum(hands, [])`) is built in one list, each element
    charged, instead of copying the partial list at every step."""
    if type(start) is not list:
        return sum(seq, start)
    out = list(start)
    for part in seq:
        if type(part) is not list:
            raise RuleRuntimeError(f"sum of lists met {_short(part)}, which is not a list")
        budget.charge(len(part), "sum of lists")
        out.extend(part)
    return out


def _str(budget, x):
    if x is None:
        return "none"
    if x is True:
        return "true"
    if x is False:
        return "false"
    text = str(x)
    budget.charge(len(text), "str")
    return text


def _int(x):
    if type(x) is str and len(x) > MAX_INT_DIGITS:
        raise RuleRuntimeError(f"a number larger than {MAX_INT_BITS} bits")
    return int(x)


def _charging_result(fn, what):
    """`fn`, charging the budget by the length of what it returns (the elements it built)."""
    def charged(budget, *args, **kwargs):
        result = fn(*args, **kwargs)
        budget.charge(len(result), what)
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


def _sign(x):
    return (x > 0) - (x < 0)


# name -> (function, min args, max args or None for any, allowed keywords). A function named in
# CHARGED takes the work budget as its first argument (bound in `make_runtime`).
BUILTINS: dict[str, tuple[Callable, int, Any, tuple]] = {
    "abs": (abs, 1, 1, ()),
    "all": (all, 1, 1, ()),
    "any": (any, 1, 1, ()),
    "biggest": (_biggest, 1, None, ()),
    "ceil": (math.ceil, 1, 1, ()),
    "clamp": (_clamp, 3, 3, ()),
    "combined": (_combined, 1, 1, ()),
    "count": (_count, 1, 2, ()),
    "difference": (_difference, 2, 2, ()),
    "distinct": (_distinct, 1, 1, ()),
    "enumerate": (_enumerate, 1, 1, ()),
    "first": (_first, 1, 2, ()),
    "floor": (math.floor, 1, 1, ()),
    "get": (_get, 2, 3, ()),
    "index": (_index, 2, 2, ()),
    "int": (_int, 1, 1, ()),
    "intersection": (_intersection, 1, None, ()),
    "items": (_charging_result(_items, "items"), 1, 1, ()),
    "keys": (_charging_result(_keys, "keys"), 1, 1, ()),
    "last": (_last, 1, 2, ()),
    "len": (len, 1, 1, ()),
    "list": (list, 1, 1, ()),
    "max": (_max, 1, None, ("default", "key")),
    "min": (_min, 1, None, ("default", "key")),
    "most": (_most, 1, 2, ("key",)),
    "range": (_charging_result(_range, "range"), 1, 3, ()),
    "ranked": (_ranked, 1, 3, ("key", "reverse")),
    "remove_one": (_remove_one, 2, 2, ()),
    "reversed": (_reversed, 1, 1, ()),
    "round": (round, 1, 1, ()),
    "round_down": (_round_down, 2, 2, ()),
    "sign": (_sign, 1, 1, ()),
    "sorted": (_sorted, 1, 3, ("key", "reverse")),
    "str": (_str, 1, 1, ()),
    "sum": (_sum, 1, 2, ()),  # Python's sum(xs) and sum(xs, start); a sum of lists is linear
    "union": (_union, 1, None, ()),
    "values": (_charging_result(_values, "values"), 1, 1, ()),
    "zip": (_zip, 1, None, ()),
}

CHARGED = frozenset({"biggest", "combined", "difference", "distinct", "intersection", "items", "keys",
                     "range", "str", "sum", "union", "values"})

# Builtins whose argument is iterated, so it is charged to the work budget.
ITERATING = {"all", "any", "count", "distinct", "enumerate", "first",
             "last", "list", "max", "min", "most", "ranked", "sorted", "sum", "union",
             "intersection", "difference", "zip", "index",
             "reversed", "remove_one"}


def make_runtime(entities: dict, budget: Budget) -> dict:
    """The namespace the generated code runs in: builtins under `_f_<name>`, helpers under
    `_<name>`, and no Python builtins at all."""
    ns: dict = {"__builtins__": {}}
    for name, (fn, *_rest) in BUILTINS.items():
        ns["_f_" + name] = functools.partial(fn, budget) if name in CHARGED else fn
    ns.update(_access_helpers(entities))
    ns.update(_operator_helpers(budget))
    ns.update(_LE=(KeyError, IndexError, TypeError), _pow=_pow, _div=_div, _fdiv=_fdiv, _mod=_mod,
              _T=budget.take, _E=entities, _map=one_kind_of_keys)
    return ns


def _access_helpers(ent: dict) -> dict:
    """`_A(o, k)` (an attribute of a component or a key of a map) and `_I(o, k)` (indexing),
    with errors in the designer's words."""

    def _A(o, k):
        try:  # the common case: an attribute of a component
            return ent[o][k]
        except (KeyError, TypeError):
            return _A_slow(o, k)

    def _A_slow(o, k):
        t = type(o)
        if t is str:
            try:
                rec = ent[o]
            except KeyError:
                raise RuleRuntimeError(f"'{o}' is not a component, so it has no '{k}'") from None
            if k == "id":
                return o
            try:
                return rec[k]
            except KeyError:
                raise RuleRuntimeError(f"component '{o}' has no attribute '{k}'") from None
        if t is dict:
            try:
                return o[k]
            except KeyError:
                raise RuleRuntimeError(f"no '{k}' in {_short(o)}") from None
        raise RuleRuntimeError(f"{_short(o)} has no attribute '{k}'")

    def _I(o, k):
        try:
            return o[k]
        except (KeyError, IndexError, TypeError):
            if type(o) is dict and type(k) is int and str(k) in o:
                return o[str(k)]
            if type(o) is dict and k not in o:
                raise RuleRuntimeError(f"no key {_short(k)} in {_short(o)}") from None
            raise RuleRuntimeError(f"cannot index {_short(o)} with {_short(k)}") from None

    return {"_A": _A, "_I": _I}


def _operator_helpers(budget: Budget) -> dict:
    """The operators whose cost depends on their operands, charged to `budget`: `*` (big
    integers, repeated sequences), `+` of lists or texts, `in` on a list or a text."""
    charge = budget.charge

    def _mul(a, b):
        ta, tb = type(a), type(b)
        if ta is int and tb is int:
            bits = a.bit_length() + b.bit_length()
            if bits > MAX_INT_BITS:
                raise RuleRuntimeError(f"a number larger than {MAX_INT_BITS} bits")
            if bits > 128:
                charge(bits >> 6, "multiplying large numbers")
            return a * b
        if ta is list or ta is str or tb is list or tb is str:
            times, seq = (b, a) if ta is list or ta is str else (a, b)
            if type(times) is int and times > 0:
                if len(seq) * times > MAX_SEQUENCE:
                    raise RuleRuntimeError("a repeated sequence would be too long")
                charge(len(seq) * times, "repeating a sequence")
        return a * b

    def _mulk(a, k):
        # a * k for a literal whole number k: small numbers directly, anything else checked
        t = type(a)
        if t is float or (t is int and -_SMALL < a < _SMALL):
            return a * k
        return _mul(a, k)

    def _add(a, b):
        # a + b where the operands may be lists or text: the elements produced are charged
        ta = type(a)
        if (ta is list or ta is str) and type(b) is ta:
            charge(len(a) + len(b), "joining lists or texts")
        return a + b

    def _in(a, b):
        tb = type(b)
        if tb is dict:
            if type(a) is int:
                return str(a) in b or a in b
        elif tb is list or tb is str:
            charge(len(b) >> 3 if tb is str else len(b), "looking for an item in a list")
        try:
            return a in b
        except TypeError:
            raise RuleRuntimeError(f"cannot look for {_short(a)} in {_short(b)}") from None

    return {"_mul": _mul, "_mulk": _mulk, "_add": _add, "_in": _in}


def _pow(a, b):
    if isinstance(b, (int, float)) and abs(b) > 64:
        raise RuleRuntimeError("exponent too large")
    if int_too_big(a, b, "**"):
        raise RuleRuntimeError(f"a number larger than {MAX_INT_BITS} bits")
    return a ** b


def _div(a, b):
    if b == 0:
        raise RuleRuntimeError("division by zero")
    return a / b


def _fdiv(a, b):
    if b == 0:
        raise RuleRuntimeError("division by zero")
    return a // b


def _mod(a, b):
    if b == 0:
        raise RuleRuntimeError("modulo by zero")
    return a % b


def _short(x) -> str:
    s = repr(x)
    return s if len(s) <= 40 else s[:37] + "..."
