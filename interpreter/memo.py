"""Process-level memos: the one helper every in-memory cache of the interpreter uses.

A `BoundedMemo` is a mapping with a size bound: when it is full, the oldest entry goes
(first in, first out; plain dict order). Nothing is ever written to disk and nothing is
shared between processes. Keys that cannot be hashed are simply not memoised.

`bounded_memo(maxsize)` decorates a function of hashable arguments with such a memo.
`clear_all()` empties every memo (tests use it to measure work from a cold start).

    from interpreter.memo import BoundedMemo, bounded_memo

    trees = BoundedMemo("parse trees", 50_000)
    tree = trees.get(text)
    if tree is None:
        tree = trees.put(text, parse(text))

    @bounded_memo(1)
    def parser():
        return build_the_parser()
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Hashable

__all__ = ["BoundedMemo", "bounded_memo", "clear_all", "memos"]

_ALL: list = []


class BoundedMemo:
    """A named key -> value memo holding at most `maxsize` entries."""

    __slots__ = ("name", "maxsize", "_data")

    def __init__(self, name: str, maxsize: int):
        if maxsize < 1:
            raise ValueError("a memo holds at least one entry")
        self.name = name
        self.maxsize = maxsize
        self._data: dict = {}
        _ALL.append(self)

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The value stored under `key`, or `default` (also for a key that cannot be hashed)."""
        try:
            return self._data.get(key, default)
        except TypeError:
            return default

    def put(self, key: Hashable, value: Any) -> Any:
        """Store `value` under `key` (dropping the oldest entry when full); returns `value`."""
        data = self._data
        try:
            if key not in data and len(data) >= self.maxsize:
                del data[next(iter(data))]
            data[key] = value
        except TypeError:
            pass  # an unhashable key: not memoised
        return value

    def __setitem__(self, key: Hashable, value: Any) -> None:
        self.put(key, value)

    def __getitem__(self, key: Hashable) -> Any:
        return self._data[key]

    def clear(self) -> None:
        self._data.clear()

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key) -> bool:
        try:
            return key in self._data
        except TypeError:
            return False

    def __repr__(self) -> str:
        return f"BoundedMemo({self.name!r}, {len(self._data)}/{self.maxsize})"


def bounded_memo(maxsize: int, name: str = "") -> Callable:
    """Decorator: memoise a function of hashable positional arguments in a BoundedMemo
    (reachable as `fn.memo`)."""

    def decorate(function: Callable) -> Callable:
        memo = BoundedMemo(name or function.__qualname__, maxsize)
        missing = object()

        @functools.wraps(function)
        def wrapper(*args):
            hit = memo.get(args, missing)
            if hit is missing:
                hit = memo.put(args, function(*args))
            return hit

        wrapper.memo = memo
        return wrapper

    return decorate


def memos() -> list:
    """Every memo of the process (for inspection and tests)."""
    return list(_ALL)


def clear_all() -> None:
    """Empty every memo of the process."""
    for memo in _ALL:
        memo.clear()
