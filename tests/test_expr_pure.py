"""Named expressions that read nothing but their arguments (interpreter/expr/pure.py): which
defines are pure, and their kept values: the value computed for the same arguments, the same
work charged to the bound as computing it again, a list of plain data kept and given to each
call as its own copy, nothing kept for arguments or values that are not plain data (nor lists
of it), and 1, 1.0 and true told apart."""
import pytest

from interpreter.errors import RuleRuntimeError
from interpreter.expr.budget import Budget
from interpreter.expr.compiler import CodeUnit
from interpreter.expr.generate import Scope
from interpreter.expr.pure import KEPT_LIST_LENGTH, pure_defines

DEFINES = {
    "table": (["k"], "first([t for t in range(60) if t == k], -1)"),  # goes through 60 elements
    "twice_table": (["k"], "table(k) * 2"),
    "shown": (["v"], "str(v)"),
    "evens": (["n"], "[x for x in range(n) if x % 2 == 0]"),
    "pairs": (["n"], "[[x, x] for x in range(n)]"),
    "held": (["p"], "gold[p]"),  # reads a state var
    "via_held": (["p"], "held(p) + table(p)"),  # calls a define that reads one
    "mine": ([], "player"),  # reads a local
    "ratio": (["a", "b"], "a // b"),  # pure, but cheaper than keeping its values
    "share": (["a", "b"], "sum(range(a)) // b"),
}


def _unit(limit=2_000_000):
    scope = Scope(vars={"gold": None}, locals={"player": "number"},
                  defines={name: params for name, (params, _) in DEFINES.items()})
    unit = CodeUnit(scope, {}, Budget(limit))
    for name, (params, body) in DEFINES.items():
        unit.add_define(name, params, body)
    namespace = unit.build()
    return unit, namespace


def _call(unit, namespace, name, *args):
    """(value, work charged) of one call of define `name`."""
    before = unit.budget.left
    value = namespace["d_" + name]({"gold": [3, 4]}, {"player": 0}, *args)
    return value, before - unit.budget.left


def test_a_define_is_pure_when_it_and_what_it_calls_read_no_var_and_no_local():
    unit, _ = _unit()
    assert pure_defines(unit.define_reads, unit.define_calls) == {"table", "twice_table", "shown", "evens", "pairs",
                                                                  "ratio", "share"}


def test_a_kept_value_is_the_computed_one_and_charges_the_same_work():
    unit, namespace = _unit()
    first = _call(unit, namespace, "twice_table", 7)
    assert first[0] == 14 and first[1] > 0
    assert (7, int) in [key[:2] for key in namespace["_M_table"]]
    assert _call(unit, namespace, "twice_table", 7) == first
    assert _call(unit, namespace, "table", 7) == (7, first[1])  # table's work is all twice_table's


def test_the_work_bound_stops_calls_of_a_kept_value_as_it_stops_computing_it():
    unit, namespace = _unit(limit=1000)
    _, work = _call(unit, namespace, "table", 59)
    calls = 1
    with pytest.raises(RuleRuntimeError, match="work bound"):
        while True:
            _call(unit, namespace, "table", 59)
            calls += 1
    assert calls == 1000 // work


def test_numbers_and_booleans_of_equal_value_are_told_apart():
    unit, namespace = _unit()
    shown = [_call(unit, namespace, "shown", value)[0] for value in (1, 1.0, True, 1, True)]
    assert shown[:3] == [namespace["_f_str"](1), namespace["_f_str"](1.0), namespace["_f_str"](True)]
    assert len(set(shown[:3])) == 3 and shown[3:] == [shown[0], shown[2]]


def test_only_a_define_that_goes_through_a_collection_keeps_its_values():
    _, namespace = _unit()
    assert {name[3:] for name in namespace if name.startswith("_M_")} == {"table", "shown", "evens", "pairs", "share"}


def test_a_short_list_of_plain_values_is_kept_and_each_call_is_given_its_own_copy():
    unit, namespace = _unit()
    first, work = _call(unit, namespace, "evens", 6)
    first.append(99)  # a caller's list is its own
    assert list(namespace["_M_evens"].values()) == [([0, 2, 4], work)]
    second = _call(unit, namespace, "evens", 6)
    assert second == ([0, 2, 4], work) and second[0] is not first
    second[0].clear()
    assert _call(unit, namespace, "evens", 6) == ([0, 2, 4], work)
    # a longer list is computed each time (not kept), and the define goes on keeping short ones
    long_list, long_work = _call(unit, namespace, "evens", 2 * KEPT_LIST_LENGTH + 2)
    assert len(long_list) == KEPT_LIST_LENGTH + 1 and len(namespace["_M_evens"]) == 1
    assert _call(unit, namespace, "evens", 2 * KEPT_LIST_LENGTH + 2) == (long_list, long_work)
    assert _call(unit, namespace, "evens", 4)[0] == [0, 2] and len(namespace["_M_evens"]) == 2
    assert namespace["d_evens"] is not namespace["d_evens_body"]


def test_lists_of_lists_and_list_arguments_are_not_kept_and_then_the_define_stops_keeping():
    unit, namespace = _unit()
    assert _call(unit, namespace, "pairs", 2)[0] == [[0, 0], [1, 1]]
    assert not namespace["_M_pairs"] and namespace["d_pairs"] is namespace["d_pairs_body"]
    assert _call(unit, namespace, "pairs", 2)[0] == [[0, 0], [1, 1]]
    assert _call(unit, namespace, "shown", 4)[0] == namespace["_f_str"](4)
    assert _call(unit, namespace, "shown", [1, 2])[0] == namespace["_f_str"]([1, 2])
    assert len(namespace["_M_shown"]) == 1 and namespace["d_shown"] is namespace["d_shown_body"]


def test_an_error_is_raised_each_time_and_nothing_is_kept():
    unit, namespace = _unit()
    for _ in range(2):
        with pytest.raises(RuleRuntimeError, match="division by zero"):
            _call(unit, namespace, "share", 3, 0)
    assert not namespace["_M_share"]
    assert _call(unit, namespace, "share", 3, 2)[0] == 1
