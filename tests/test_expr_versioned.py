"""Defines kept while the vars they read are not written (interpreter/expr/versioned.py): which
defines are kept, a kept value found only for the same arguments and the same versions of the
vars read, only for the vars dict of the game whose versions they are, the same work charged as
computing it again, and the work bound reached at the same call with the same error."""
import pytest

from interpreter.errors import RuleRuntimeError
from interpreter.expr.budget import Budget
from interpreter.expr.compiler import CodeUnit
from interpreter.expr.generate import Scope
from interpreter.expr.versioned import NOBODY, TICK, versioned_defines

DEFINES = {
    "total": (["p"], "sum(n for n in gold[p])"),  # reads a var, goes through a list
    "richest": ([], "max(total(p) for p in [0, 1])"),  # through a define that reads one
    "rich": (["p"], "total(p) > 5"),  # reads one through `total`, but goes through nothing itself
    "held": (["p"], "gold[p]"),  # cheaper than keeping its values
    "mine": ([], "sum(n for n in gold[player])"),  # reads a local
    "via_mine": (["k"], "[mine + k for k in range(3)]"),  # calls a define that reads a local
    "table": (["k"], "first([t for t in range(60) if t == k], -1)"),  # reads no var (pure.py keeps it)
    "gems": (["p"], "[g for g in stones if g > p]"),  # a list of plain data
    "pairs": (["p"], "[[g, p] for g in stones]"),  # a list of lists: not kept
    "among": (["xs"], "[g for g in stones if g in xs]"),
    "shown": (["v"], "str(v) + str(count(g for g in stones if g > 0))"),
}


def _unit(limit=2_000_000):
    scope = Scope(vars={"gold": None, "stones": None}, locals={"player": "number"},
                  defines={name: params for name, (params, _) in DEFINES.items()})
    unit = CodeUnit(scope, {}, Budget(limit))
    for name, (params, body) in DEFINES.items():
        unit.add_define(name, params, body)
    return unit, unit.build()


def _game():
    return {"gold": [[1, 2, 3], [4, 5]], "stones": [1, 5, 9]}, {"": TICK()}


def _call(unit, namespace, game_vars, name, *args):
    """(value, work charged) of one call of define `name`."""
    before = unit.budget.left
    value = namespace["d_" + name](game_vars, {"player": 0}, *args)
    return value, before - unit.budget.left


def test_kept_defines_read_a_var_read_no_local_and_go_through_a_collection():
    unit, _ = _unit()
    assert versioned_defines(unit.define_vars, unit.define_calls) == {
        "total": ["gold"], "richest": ["gold"], "gems": ["stones"], "pairs": ["stones"], "among": ["stones"],
        "shown": ["stones"]}


def test_a_kept_value_is_found_until_a_var_it_reads_has_a_new_version():
    unit, namespace = _unit()
    game_vars, versions = _game()
    namespace["_OWN"][0] = (game_vars, versions)
    first = _call(unit, namespace, game_vars, "total", 0)
    assert first == (6, 3)
    game_vars["gold"][0].append(10)  # written without a new version: the kept value is found
    assert _call(unit, namespace, game_vars, "total", 0) == first
    versions["stones"] = TICK()  # a var `total` does not read
    assert _call(unit, namespace, game_vars, "total", 0) == first
    versions["gold"] = TICK()
    assert _call(unit, namespace, game_vars, "total", 0) == (16, 4)
    assert _call(unit, namespace, game_vars, "total", 1) == (9, 2)  # other arguments, their own value


def test_only_the_vars_of_the_game_whose_versions_they_are_use_kept_values():
    unit, namespace = _unit()
    game_vars, versions = _game()
    namespace["_OWN"][0] = (game_vars, versions)
    assert _call(unit, namespace, game_vars, "total", 0) == (6, 3)
    other = {"gold": [[7], [1]], "stones": []}
    assert _call(unit, namespace, other, "total", 0) == (7, 1)  # another dict: computed
    namespace["_OWN"][0] = NOBODY
    game_vars["gold"][0].append(10)
    assert _call(unit, namespace, game_vars, "total", 0) == (16, 4)  # no game's code runs: computed


def test_a_list_value_is_each_callers_own_and_a_list_of_lists_is_not_kept():
    unit, namespace = _unit()
    game_vars, versions = _game()
    namespace["_OWN"][0] = (game_vars, versions)
    value, work = _call(unit, namespace, game_vars, "gems", 1)
    value.append(99)
    assert _call(unit, namespace, game_vars, "gems", 1) == ([5, 9], work)
    assert _call(unit, namespace, game_vars, "pairs", 1)[0] == [[1, 1], [5, 1], [9, 1]]
    assert not namespace["_W_pairs"]


def test_a_list_argument_is_computed_and_1_and_true_are_told_apart():
    unit, namespace = _unit()
    game_vars, versions = _game()
    namespace["_OWN"][0] = (game_vars, versions)
    assert _call(unit, namespace, game_vars, "among", [1, 9])[0] == [1, 9]  # (no key: computed)
    game_vars["stones"].append(1)  # (no new version: a kept value would be the old one)
    assert _call(unit, namespace, game_vars, "among", [1, 9])[0] == [1, 9, 1]
    assert _call(unit, namespace, game_vars, "shown", 1)[0] != _call(unit, namespace, game_vars, "shown", True)[0]


@pytest.mark.parametrize("name,args", [("total", (0,)), ("richest", ()), ("gems", (1,))])
def test_a_kept_value_is_refused_at_the_same_bound_with_the_same_error(name, args):
    unit, namespace = _unit()
    game_vars, versions = _game()
    namespace["_OWN"][0] = (game_vars, versions)
    value, work = _call(unit, namespace, game_vars, name, *args)
    assert work > 0
    for left in range(work + 2):
        outcomes = []
        for own in ((game_vars, versions), NOBODY):  # kept, then computed
            namespace["_OWN"][0] = own
            unit.budget.left = left
            try:
                outcomes.append((_call(unit, namespace, game_vars, name, *args), unit.budget.left))
            except RuleRuntimeError as error:
                outcomes.append((str(error), unit.budget.left))
        assert outcomes[0] == outcomes[1], left
        assert (type(outcomes[0][0]) is str) == (left < work)
