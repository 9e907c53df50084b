"""interpreter/memo.py: the one bounded-memo helper of the interpreter."""
import pytest

from interpreter import memo
from interpreter.memo import BoundedMemo, bounded_memo


def test_a_full_memo_drops_its_oldest_entry():
    m = BoundedMemo("test", 3)
    for key in "abcd":
        m.put(key, key.upper())
    assert len(m) == 3 and "a" not in m and m.get("d") == "D"
    m["b"] = "again"  # an existing key is replaced, nothing dropped
    assert len(m) == 3 and m["b"] == "again" and m.get("c") == "C"


def test_unhashable_keys_are_not_memoised():
    m = BoundedMemo("test", 3)
    assert m.put(["a"], 1) == 1
    assert m.get(["a"], "missing") == "missing" and ["a"] not in m and len(m) == 0


def test_the_decorator_calls_once_per_arguments():
    calls = []

    @bounded_memo(2)
    def square(x):
        calls.append(x)
        return x * x

    assert [square(3), square(3), square(4), square(5), square(3)] == [9, 9, 16, 25, 9]
    assert calls == [3, 4, 5, 3]  # 3 was dropped when 5 came (maxsize 2)
    assert square.memo in memo.memos()


def test_clear_all_empties_every_memo():
    m = BoundedMemo("test", 5)
    m.put(1, 1)
    memo.clear_all()
    assert len(m) == 0


def test_a_memo_holds_at_least_one_entry():
    with pytest.raises(ValueError):
        BoundedMemo("test", 0)
