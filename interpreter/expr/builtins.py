"""The board-game builtins an expression may call, and the runtime helpers the generated code
uses (attribute access, the work budget). Everything here is pure and works on plain data.

Owns: the whitelist (`BUILTINS`, with arity) and the helpers. Does not own parsing or names.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from ..errors import RuleRuntimeError

__all__ = ["BUILTINS", "Budget", "make_runtime"]

MAX_RANGE = 100_000
MAX_SEQUENCE = 100_000
MAX_INT_BITS = 4096  # a product or power past this is refused (repeated squaring would hang)


def int_too_big(a, b, op="*"):
    """Would `a op b` on integers pass MAX_INT_BITS? (checked before computing it)"""
    if type(a) is int and type(b) is int:
        if op == "**":
            return b > 0 and a.bit_length() * b > MAX_INT_BITS
        return a.bit_length() + b.bit_length() > MAX_INT_BITS
    return False


class Budget:
    """A bound on the work one evaluation (or one engine step) may do: every element a
    comprehension or a builtin iterates over is counted."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int = 2_000_000):
        self.limit = limit
        self.left = limit

    def reset(self) -> None:
        self.left = self.limit

    def take(self, seq):
        try:
            n = len(seq)
        except TypeError:
            seq = list(_bounded_iter(seq, self))
            return seq
        self.left -= n
        if self.left < 0:
            self.left = self.limit
            raise RuleRuntimeError(
                f"the work bound of {self.limit} elements per step was exceeded "
                "(an expression iterates over too much)"
            )
        if type(seq) is dict:
            return [_key_back(k) for k in seq]
        return seq


def _bounded_iter(it, budget):
    for x in it:
        budget.left -= 1
        if budget.left < 0:
            budget.left = budget.limit
            raise RuleRuntimeError(f"the work bound of {budget.limit} elements per step was exceeded")
        yield x


def _biggest(counts, *others):
    """The single owner with strictly more than every other owner, else none.

    `counts` is a mapping owner -> number (owners with 0 do not count), or a list of such
    mappings, which are combined first."""
    if others:
        counts = _combined([counts, *others])
    elif isinstance(counts, list):
        counts = _combined(counts)
    if not counts:
        return None
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


def _combined(maps):
    out: dict = {}
    for m in maps:
        if not m:
            continue
        for k, v in m.items():
            out[k] = out.get(k, 0) + v
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


def _distinct(it):
    seen = []
    for x in it:
        if x not in seen:
            seen.append(x)
    return seen


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
        if v is _missing and not isinstance(k, str):
            v = m.get(str(k), default)
        return default if v is _missing else v
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
    return [_key_back(k) for k in m] if isinstance(m, dict) else list(range(len(m)))


def _values(m):
    return list(m.values()) if isinstance(m, dict) else list(m)


def _items(m):
    return [[_key_back(k), v] for k, v in m.items()]


def _union(*seqs):
    out = []
    for s in seqs:
        for x in s:
            if x not in out:
                out.append(x)
    return out


def _intersection(a, *rest):
    return [x for x in _distinct(a) if all(x in r for r in rest)]


def _difference(a, b):
    return [x for x in a if x not in b]


def _remove_one(seq, x):
    seq = list(seq)
    if x in seq:
        seq.remove(x)
    return seq


def _clamp(x, lo, hi):
    return max(lo, min(hi, x))


def _round_down(x, step):
    return (x // step) * step


def _str(x):
    if x is None:
        return "none"
    if x is True:
        return "true"
    if x is False:
        return "false"
    return str(x)


def _sum(seq, start=0):
    return sum(seq, start)


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


# name -> (function, min args, max args or None for any, allowed keywords)
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
    "int": (int, 1, 1, ()),
    "intersection": (_intersection, 1, None, ()),
    "items": (_items, 1, 1, ()),
    "keys": (_keys, 1, 1, ()),
    "last": (_last, 1, 2, ()),
    "len": (len, 1, 1, ()),
    "list": (list, 1, 1, ()),
    "max": (_max, 1, None, ("default", "key")),
    "min": (_min, 1, None, ("default", "key")),
    "most": (_most, 1, 2, ("key",)),
    "range": (_range, 1, 3, ()),
    "ranked": (_ranked, 1, 3, ("key", "reverse")),
    "remove_one": (_remove_one, 2, 2, ()),
    "reversed": (_reversed, 1, 1, ()),
    "round": (round, 1, 1, ()),
    "round_down": (_round_down, 2, 2, ()),
    "sign": (_sign, 1, 1, ()),
    "sorted": (_sorted, 1, 3, ("key", "reverse")),
    "str": (_str, 1, 1, ()),
    "sum": (sum, 1, 2, ()),  # Python's own: sum(xs) and sum(xs, start)
    "union": (_union, 1, None, ()),
    "values": (_values, 1, 1, ()),
    "zip": (_zip, 1, None, ()),
}

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
        ns["_f_" + name] = fn
    ent = entities

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
                return None if False else _missing_key(o, k)
            raise RuleRuntimeError(f"cannot index {_short(o)} with {_short(k)}") from None

    def _missing_key(o, k):
        raise RuleRuntimeError(f"no key {_short(k)} in {_short(o)}")

    def _mul(a, b):
        if type(a) is int and type(b) is int:
            if a.bit_length() + b.bit_length() > MAX_INT_BITS:
                raise RuleRuntimeError(f"a number larger than {MAX_INT_BITS} bits")
            return a * b
        if isinstance(a, (list, str)) or isinstance(b, (list, str)):
            n = b if isinstance(a, (list, str)) else a
            seq = a if isinstance(a, (list, str)) else b
            if isinstance(n, int) and len(seq) * max(n, 0) > MAX_SEQUENCE:
                raise RuleRuntimeError("a repeated sequence would be too long")
        return a * b

    def _mulk(a, k):
        # a * k for a literal whole number k: numbers stay small; a repeated sequence is checked
        t = type(a)
        if t is int or t is float:
            return a * k
        return _mul(a, k)

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

    def _in(a, b):
        if type(b) is dict and type(a) is int:
            return str(a) in b or a in b
        try:
            return a in b
        except TypeError:
            raise RuleRuntimeError(f"cannot look for {_short(a)} in {_short(b)}") from None

    ns.update(_LE=(KeyError, IndexError, TypeError), _in=_in, _A=_A, _I=_I, _mul=_mul, _mulk=_mulk, _pow=_pow, _div=_div, _fdiv=_fdiv, _mod=_mod,
              _T=budget.take, _RE=RuleRuntimeError, _E=ent)
    return ns


def _short(x) -> str:
    s = repr(x)
    return s if len(s) <= 40 else s[:37] + "..."
