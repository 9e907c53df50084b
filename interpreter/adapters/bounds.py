"""Integer bounds of a ruleset, declared or proven, for the research encodings.

Owns: `Bounds` — the bound of every variable that declares `min`/`max` (a number, a setting or
constant, or a sum/difference of those), and the integer values an action parameter can take:
declared (`params: {n: {from: EXPR, min: 1, max: 50}}`) or proven from the domain's form by
interval arithmetic over literals, settings, constants, `num_players`, declared var bounds and
the defines they go through (`range(1, spendable(player) + 1)` with `spendable(q) = assets[q] -
turn_cost` and `assets: {max: assets_per_colour}` is 1..50). When neither works, `ParamDomain`
names what blocked the proof (the vars and calls without a bound), so `rulebook info` can say
what to declare. Reads the rules' tree only; needs no third-party package.
"""
from __future__ import annotations

import ast
import numbers
import operator
from dataclasses import dataclass
from typing import Optional

__all__ = ["Bounds", "ParamDomain", "MAX_SLOT_VALUES"]

MAX_SLOT_VALUES = 4096  # a proven range larger than this is reported, not enumerated
_DEPTH = 12  # defines followed through at most this deep
_UNKNOWN = (None, None)


@dataclass
class ParamDomain:
    """The integer values of one parameter: `values` (None when unbounded; min, min + step, ...
    up to max), `how` ('declared', 'proven' or None) and, when unbounded, `blockers` (names
    whose bound is missing)."""

    values: Optional[tuple]
    how: Optional[str]
    blockers: tuple = ()
    missing: tuple = ()  # the ends nothing bounds: ("min",), ("max",) or both
    step: int = 1  # the declared step between two values (`step:` beside min/max)


class Bounds:
    """Declared and provable integer bounds of one ruleset for one player count."""

    def __init__(self, ruleset, players: int):
        tree = ruleset.tree if ruleset.tree is not None else {}
        self.players = players
        self.constants = {k: v for k, v in (tree.get("constants") or {}).items()}
        self.constants.update(ruleset.settings or {})
        self.defines = {name: d for name, d in (tree.get("define") or {}).items() if d is not None}
        self.actions = tree.get("actions") or {}
        self.vars = {}
        self.var_names = set(tree.get("vars") or {})
        for name, decl in (tree.get("vars") or {}).items():
            if isinstance(decl, dict) and ("min" in decl or "max" in decl):
                self.vars[name] = (self.number(decl.get("min"), upper=False), self.number(decl.get("max")))

    # ------------------------------------------------------------------ declared numbers
    def number(self, value, upper: bool = True) -> Optional[float]:
        """A declared bound's value: a number, a setting/constant name, or an expression of
        those (`roster_start + reserve_start`, `row_size - 1`); for an expression whose value
        depends on more than the settings, its highest (`upper`) or lowest possible value."""
        if value is None or isinstance(value, bool):
            return None
        if isinstance(value, numbers.Number):
            return value
        try:
            node = ast.parse(str(value).strip(), mode="eval").body
        except SyntaxError:
            return None
        low, high = _Interval(self, (), 0).of(node)
        return high if upper else low

    def var_bound(self, name: str) -> tuple:
        """(min, max) a variable declares (either may be None); (None, None) when it declares neither."""
        return self.vars.get(name, _UNKNOWN)

    def violations(self, game_vars: dict) -> list:
        """[(var, value)] for every number held by a var outside the min/max it declares."""
        out = []
        for name, (low, high) in self.vars.items():
            for value in _numbers_in(game_vars.get(name)):
                if (low is not None and value < low) or (high is not None and value > high):
                    out.append((name, value))
        return out

    # ------------------------------------------------------------------ parameters
    def param(self, action: str, name: str, source: str) -> ParamDomain:
        """The integer values of parameter `name` of `action` whose domain is `source`."""
        spec = (self.actions.get(action) or {}).get("params") or {}
        declared = spec.get(name)
        return self._domain(source, declared if isinstance(declared, dict) else {}, ())

    def choice(self, spec: dict, numeric: bool = False) -> Optional[ParamDomain]:
        """The integer answers of a `choose` effect (its YAML mapping): declared (`min:`/`max:`
        on the choose) or proven from the form of its `from:` (a literal or constant list of
        integers, `players`, `range(...)`, also filtered); None when neither that nor
        `numeric` (its compiled type) says that its answers are numbers."""
        source = spec.get("from")
        declared = any(spec.get(key) is not None for key in ("min", "max", "step"))
        if not (numeric or declared or _numeric_form(source, self)):
            return None
        return self._domain(source, spec, ("p",))  # p: the seat, in a choose of several players

    def _domain(self, source, declared: dict, local_names) -> ParamDomain:
        """Integer values from a declared `min`/`max` (either end; the other from the proof) or
        from the domain's form; unbounded with what blocked the proof."""
        low, high = self.number(declared.get("min"), upper=False), self.number(declared.get("max"))
        listed = _listed_ints(source, self)
        if listed is not None and low is None and high is None:
            return ParamDomain(tuple(listed), "proven")
        proof = _Interval(self, local_names, 0)
        proven_low, proven_high = proof.domain(source)
        how = "declared" if (low is not None or high is not None) else "proven"
        low = low if low is not None else proven_low
        high = high if high is not None else proven_high
        missing = tuple(end for end, value in (("min", low), ("max", high)) if value is None)
        step = self.step(declared)
        if not missing and step > 1 and declared.get("min") is None:  # the steps count from 0 (as play's)
            low = -(-low // step) * step
        if missing or (high - low) // step + 1 > MAX_SLOT_VALUES:
            return ParamDomain(None, None, tuple(sorted(set(proof.blockers))), missing or ("min", "max"))
        return ParamDomain(tuple(range(int(low), int(high) + 1, step)), how, step=step)

    def step(self, declared: dict) -> int:
        """The declared `step:` of a numeric decision or parameter (1 when it declares none);
        ValueError when it is not a whole number of at least 1 (a setting can make it one)."""
        if declared.get("step") is None:
            return 1
        step = self.number(declared.get("step"))
        if step is None or step < 1 or not float(step).is_integer():
            raise ValueError(f"step: {declared.get('step')!r} of the domain '{declared.get('from')}' is not a whole number of at least 1")
        return int(step)


class _Interval:
    """Interval arithmetic over the Python-shaped syntax of a rule expression: (low, high),
    either end None when unknown. `blockers` collects the names that stopped a proof."""

    def __init__(self, bounds: Bounds, local_names, depth: int, blockers=None):
        self.bounds = bounds
        self.local_names = set(local_names)
        self.depth = depth
        self.blockers = blockers if blockers is not None else []

    def domain(self, source: str) -> tuple:
        """(lowest, highest) integer that the domain expression `source` can list."""
        try:
            node = ast.parse(str(source).strip(), mode="eval").body
        except SyntaxError:
            return _UNKNOWN
        if isinstance(node, ast.ListComp) and len(node.generators) == 1:
            gen = node.generators[0]
            if isinstance(node.elt, ast.Name) and isinstance(gen.target, ast.Name) and node.elt.id == gen.target.id:
                node = gen.iter
        if isinstance(node, ast.Call) and _called(node) == "range" and 1 <= len(node.args) <= 2 and not node.keywords:
            if len(node.args) == 1:
                start, stop = (0, 0), self.of(node.args[0])
            else:
                start, stop = self.of(node.args[0]), self.of(node.args[1])
            return (start[0], None if stop[1] is None else stop[1] - 1)
        return _UNKNOWN

    def of(self, node) -> tuple:
        """The interval of an integer expression."""
        if isinstance(node, ast.Constant):
            value = node.value
            return (value, value) if isinstance(value, numbers.Number) and not isinstance(value, bool) else _UNKNOWN
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            return self._var(node.value.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            low, high = self.of(node.operand)
            return (None if high is None else -high, None if low is None else -low)
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        if isinstance(node, ast.IfExp):
            decided = self._decide(node.test)
            if decided is not None:
                return self.of(node.body if decided else node.orelse)
            return _hull(self.of(node.body), self.of(node.orelse))
        if isinstance(node, ast.Call):
            return self._call(node)
        return _UNKNOWN

    def _decide(self, test) -> Optional[bool]:
        """The value of a comparison of two exactly known numbers (`num_players == 4`), else None."""
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        left, right = self.of(test.left), self.of(test.comparators[0])
        if None in left + right or left[0] != left[1] or right[0] != right[1]:
            return None
        compare = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
                   ast.Gt: operator.gt, ast.GtE: operator.ge}.get(type(test.ops[0]))
        return None if compare is None else compare(left[0], right[0])

    def _name(self, name: str) -> tuple:
        if name in self.local_names:
            return _UNKNOWN
        if name == "num_players":
            return (self.bounds.players, self.bounds.players)
        value = self.bounds.constants.get(name)
        if isinstance(value, numbers.Number) and not isinstance(value, bool):
            return (value, value)
        if name in self.bounds.defines:
            return self._define(name)
        return self._var(name)

    def _var(self, name: str) -> tuple:
        bound = self.bounds.var_bound(name)
        if bound == _UNKNOWN:  # a var without min/max, or a name bound by the rules (a procedure's parameter)
            self.blockers.append(f"var {name}" if name in self.bounds.var_names else f"the local name {name}")
        return bound

    def _binary(self, node) -> tuple:
        left, right = self.of(node.left), self.of(node.right)
        if isinstance(node.op, ast.Add):
            return (_add(left[0], right[0]), _add(left[1], right[1]))
        if isinstance(node.op, ast.Sub):
            return (_add(left[0], _neg(right[1])), _add(left[1], _neg(right[0])))
        if isinstance(node.op, ast.Mult) and None not in left + right:
            products = [a * b for a in left for b in right]
            return (min(products), max(products))
        return _UNKNOWN

    def _call(self, node) -> tuple:
        name = _called(node)
        args = [self.of(arg) for arg in node.args] if name in ("min", "max") else []
        if name == "min" and len(args) > 1:
            highs = [a[1] for a in args if a[1] is not None]
            lows = [a[0] for a in args]
            return (None if None in lows else min(lows), min(highs) if highs else None)
        if name == "max" and len(args) > 1:
            lows = [a[0] for a in args if a[0] is not None]
            highs = [a[1] for a in args]
            return (max(lows) if lows else None, None if None in highs else max(highs))
        if name == "len":
            return (0, None)
        if name in self.bounds.defines:
            return self._define(name)
        self.blockers.append(f"{name}(...)")
        return _UNKNOWN

    def _define(self, name: str) -> tuple:
        spec = self.bounds.defines[name]
        text = spec.get("expr") if isinstance(spec, dict) else spec
        params = (spec.get("params") or []) if isinstance(spec, dict) else []
        if self.depth >= _DEPTH or not isinstance(text, str):
            return _UNKNOWN
        try:
            node = ast.parse(text.strip(), mode="eval").body
        except SyntaxError:
            self.blockers.append(f"{name}(...)")
            return _UNKNOWN
        inner = _Interval(self.bounds, params, self.depth + 1, self.blockers)
        return inner.of(node)


def _numbers_in(value):
    if isinstance(value, bool):
        return
    if isinstance(value, numbers.Number):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _numbers_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _numbers_in(item)


def _called(node) -> Optional[str]:
    return node.func.id if isinstance(node.func, ast.Name) else None


def _add(left, right):
    return None if left is None or right is None else left + right


def _neg(number):
    return None if number is None else -number


def _hull(left: tuple, right: tuple) -> tuple:
    low = None if left[0] is None or right[0] is None else min(left[0], right[0])
    high = None if left[1] is None or right[1] is None else max(left[1], right[1])
    return (low, high)


def _numeric_form(source, bounds: Bounds) -> bool:
    """Whether a domain's form makes its values integers: `range(...)` (also filtered by a
    comprehension), a literal list of numbers, `players` or a constant list of integers."""
    try:
        node = ast.parse(str(source).strip(), mode="eval").body
    except SyntaxError:
        return False
    if isinstance(node, ast.ListComp) and len(node.generators) == 1:
        node = node.generators[0].iter
    if isinstance(node, ast.Call):
        return _called(node) == "range"
    if isinstance(node, ast.Name):
        value = bounds.constants.get(node.id)
        return node.id == "players" or (isinstance(value, list) and bool(value) and all(type(v) is int for v in value))
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        return all(isinstance(e, ast.Constant) and isinstance(e.value, numbers.Number) and not isinstance(e.value, bool)
                   for e in node.elts)
    return False


def _listed_ints(source: str, bounds: Bounds) -> Optional[list]:
    """The integers a literal list, a constant list of integers or `players` lists (also inside
    a filtering comprehension `[x for x in <one of those> if ...]`)."""
    try:
        node = ast.parse(str(source).strip(), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.ListComp) and len(node.generators) == 1:
        gen = node.generators[0]
        if not (isinstance(node.elt, ast.Name) and isinstance(gen.target, ast.Name) and node.elt.id == gen.target.id):
            return None
        node = gen.iter
    if isinstance(node, ast.Name):
        if node.id == "players":
            return list(range(bounds.players))
        value = bounds.constants.get(node.id)
        if isinstance(value, list) and value and all(type(v) is int for v in value):
            return sorted(set(value))
        return None
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        values = [_Interval(bounds, (), 0).of(element) for element in node.elts]
        if all(low is not None and low == high and float(low).is_integer() for low, high in values):
            return sorted({int(low) for low, _ in values})
    return None
