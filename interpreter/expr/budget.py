"""The work bound of the expression language and the size limits it enforces: `Budget` (the
elements one evaluation or one engine step may touch), the largest integer and sequence an
expression may build, and the map-key helpers every builtin shares (text keys, player numbers
back as numbers, errors that quote a short form of the value).

Owns: the limits and the budget. The builtins are in builtins.py and builtins_lists.py.
"""
from __future__ import annotations

from ..errors import RuleRuntimeError

MAX_RANGE = 100_000
MAX_SEQUENCE = 100_000
MAX_INT_BITS = 4096  # a product or power past this is refused (repeated squaring would hang)
MAX_INT_DIGITS = 1233  # decimal digits of the largest integer of MAX_INT_BITS bits
_SMALL = 1 << 64  # integers below this are multiplied without a check


def int_too_big(left, right, operator="*"):
    """Would `a op b` on integers pass MAX_INT_BITS? (checked before computing it)"""
    if type(left) is int and type(right) is int:
        if operator == "**":
            return right > 0 and left.bit_length() * right > MAX_INT_BITS
        return left.bit_length() + right.bit_length() > MAX_INT_BITS
    return False


class Budget:
    """A bound on the work one evaluation (or one engine step) may do, counted in elements:
    every element a comprehension or a builtin iterates over, builds or compares, and every
    element (or 64-bit word of a big integer) an operator produces.

    The public API, for the engine and for builtins:
      `charge(units, what)`  count `units` of work; past the limit, refuse with a RuleRuntimeError
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

    def charge(self, units: int, what: str = "an expression iterates over too much") -> None:
        self.left -= units
        if self.left < 0:
            self.exceeded(what)

    def exceeded(self, what: str = "an expression iterates over too much"):
        self.left = self.limit
        raise RuleRuntimeError(f"the work bound of {self.limit} elements per step was exceeded ({what})")

    def take(self, seq):
        if type(seq) is list:  # the common case first
            self.left -= len(seq)
            if self.left < 0:
                self.exceeded()
            return seq
        try:
            length = len(seq)
        except TypeError:
            return list(_bounded_iter(seq, self))
        self.left -= length
        if self.left < 0:
            self.exceeded()
        if type(seq) is dict:
            return [_key_back(k) for k in seq]
        return seq


def _bounded_iter(items, budget):
    for item in items:
        budget.left -= 1
        if budget.left < 0:
            budget.exceeded()
        yield item


def _key_back(key):
    # JSON object keys are strings; owners that are player numbers come back as ints
    if isinstance(key, str) and key.isdigit():
        return int(key)
    return key


def text_key(key):
    """A map key as it is stored: text as it is, a whole number as its text (player numbers
    come back as numbers through `keys`, `items` and iteration); any other key is refused."""
    kind = type(key)
    if kind is str:
        return key
    if kind is int:
        return str(key)
    raise RuleRuntimeError(f"map keys are text or whole numbers, not {_short(key)}",
                           plain=f"map keys are text or whole numbers, not {kind_of(key)}")


def one_kind_of_keys(mapping: dict) -> dict:
    """`mapping` (a map literal) checked: its keys are all text or all whole numbers."""
    kinds = {type(key) for key in mapping}
    if kinds <= {str} or kinds == {int}:
        return mapping
    other = next((key for key in mapping if type(key) not in (str, int)), None)
    if other is not None or not mapping:
        raise RuleRuntimeError(f"map keys are text or whole numbers, not {_short(other)}",
                               plain=f"map keys are text or whole numbers, not {kind_of(other)}")
    raise RuleRuntimeError("map keys are text or whole numbers, one kind per map: this map mixes both "
                           f"({_short(list(mapping))})", plain="map keys are text or whole numbers, one kind per map")


_KINDS = {int: "a number", float: "a number", str: "text", list: "a list", dict: "a map", bool: "a boolean",
          type(None): "none", tuple: "a list"}


def kind_of(value) -> str:
    """What kind of value `value` is, in the words of the language (an error's plain text)."""
    return _KINDS.get(type(value), "a value")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
