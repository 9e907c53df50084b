"""The legal moves of a phase as generated code (phases.py assembles the module): one loop nest
per action, as engine/legal.py enumerates them, without its generic parameter product.

  legal_P(st, V, player, round_)  the phase's legal moves as the tuples engine/legal.py lists
                                  (no Action objects)

Owns: writing legal_P, and the rows of moves it keeps (`RowTables`).
"""
from __future__ import annotations

from typing import Optional

from ..engine.legal import MAX_PARAM_COMBINATIONS
from ..expr.keeping import keeping_variant
from .blocks import Writer, text
from .shared_checks import before_loop, shared_condition, sharing_plan

__all__ = ["write_legal", "rows_kept", "RowTables", "PLAIN"]

KEPT_MOVES = 100_000  # moves (and values) kept in rows per action (RowTables)
PLAIN = frozenset((int, str))  # the values a row of moves is kept for (the generated code's `_PLAIN`)


def write_legal(out: Writer, phase, index: int) -> None:
    """legal_P: the moves of `player` in the phase (engine/legal.py's actions_for, unrolled)."""
    actions = [out.rs.actions[action_id] for action_id in phase.actions]
    has_fallback = any(action.fallback for action in actions)
    name = f"legal_{index}"
    arguments = "st, V, player, round_"
    if any(action.declared for action in actions):  # its moves walked only when a value read lies off its bounds
        out.emit(0, f"def {name}({arguments}):")
        out.emit(1, "off = []")
        out.emit(1, f"moves = listed_{index}({arguments}, off)")
        out.emit(1, "return _check_moves(st.rs, moves, V, player, round_) if off else moves")
        out.emit(0, "")
        name, arguments = f"listed_{index}", f"{arguments}, off"
    out.emit(0, f"def {name}({arguments}):")
    if _listed_at_once(actions):  # one action, listed by one loop: its list is the moves
        if _needs_turn_names(out, actions[0], 0):
            out.emit(1, "L = {'player': player, 'round': round_}")
        _action_moves(out, actions[0], None, 1)
        out.emit(0, "")
        return
    out.emit(1, "found = []")
    out.shared = sharing_plan(out, actions, lambda action: _plain_leading_checks(out, action))
    for shared in out.shared.values():
        if shared.records:
            out.emit(1, f"{shared.record} = []")
    if has_fallback:
        out.emit(1, "fallbacks = []")
    # one dict of names for every action: the enumeration takes each parameter out again
    out.emit(1, "L = {'player': player, 'round': round_}")
    for action in actions:
        target = "fallbacks" if action.fallback else "found"
        checks = " and ".join(out.call_function(check, "L") for check in action.req_levels[0]) or "True"
        out.emit(1, f"if {checks}:")
        _action_moves(out, action, target)
    out.emit(1, "return found or fallbacks" if has_fallback else "return found")
    out.emit(0, "")


def _reads_turn_names(out: Writer, handle) -> bool:
    """Does the expression `handle` read the turn's names (`player`, `round`), itself or through
    a define (which is given them)? If not, it is given the shared empty `_NO_NAMES` instead of a
    dict built for it."""
    return bool(handle.names & ({"player", "round"} | set(out.rs.unit.scope.defines)))


def _needs_turn_names(out: Writer, action, level: int) -> bool:
    """Does listing parameter `level` of `action` need the turn's names `L`: its values' expression
    reads them, or it declares bounds (read with them, `_values`)?"""
    declared = action.declared.get(action.params[level][0]) if action.declared is not None else None
    return declared is not None or _reads_turn_names(out, action.params[level][1])


def _label(out: Writer, action) -> tuple:
    """The label template and context of a listed move, as source (engine/legal.py `_listed`)."""
    parts = out.value(action.label_parts) if action.label_parts else "None"
    context = "None" if not action.label_parts or action.label_static else "(V, dict(L))"
    return parts, context


def _listed_at_once(actions: list) -> bool:
    """Is the phase's one action (no fallback, no requirement before its parameter) listed by
    one loop (_action_moves with one parameter, its values of a plain kind)?"""
    if len(actions) != 1:
        return False
    action = actions[0]
    return (not action.fallback and not action.req_levels[0] and len(action.params) == 1
            and not action.req_levels[1] and not (action.label_parts and not action.label_static)
            and _plain_element(action.params[0][1]) is not None)


def _action_moves(out: Writer, action, target, depth: int = 2) -> None:
    """The moves of `action`, added to the list `target` (None: the list made and returned)."""
    name = text(action.id)
    parts, context = _label(out, action)
    params = action.params
    if not params:
        if context == "None":  # the same move every time: one tuple, kept in the module
            move = out.value((str(action.id), (), None, action.label_parts or None, None), "_move")
            out.emit(2, f"{target}.append({move})")
        else:
            out.emit(2, f"{target}.append(({name}, (), None, {parts}, {context}))")
        return
    if len(params) == 1 and not action.req_levels[1] and context == "None":
        param, handle = params[0]
        plain = _plain_element(handle)
        if plain is not None:  # the move of each value built once, then looked up
            # (a loop, not a comprehension: the comprehension's function and frame cost more)
            names = "L" if target is not None or _needs_turn_names(out, action, 0) else "_NO_NAMES"
            cache = out.value({}, "_moves")
            if target is None:
                out.emit(depth, "moves = []")
            out.emit(depth, f"for value in {_values(out, action, 0, names)}:")
            out.emit(depth + 1, f"{target or 'moves'}.append(({cache}.get(value) if type(value) is {plain} else None) "
                                f"or _new_move({cache}, {name}, {text(param)}, value, {parts}))")
            if target is None:
                out.emit(depth, "return moves")
            return
        domain = _values(out, action, 0)
        out.emit(2, f"{target}.extend([({name}, (({text(param)}, value if type(value) in _SCALARS else _freeze(value)),), "
                    f"None, {parts}, None) for value in {domain}])")
        return
    earlier: set = set()
    for level in range(1, len(params)):
        out.emit(2, f"cached{level} = None")
    _level(out, action, 0, 2, earlier, target, parts, context)


def _plain_element(handle):
    """'int' or 'str' when a parameter's values are known to be whole numbers or component ids."""
    kind = handle.type
    if isinstance(kind, tuple) and len(kind) == 2 and kind[0] == "list":
        element = kind[1]
        if element == "number":
            return "int"
        if element == "text" or (isinstance(element, tuple) and element[0] == "entity"):
            return "str"
    return None


def _level(out: Writer, action, level: int, depth: int, earlier: set, target: str, parts: str, context: str) -> None:
    param, handle = action.params[level]
    domain, value = f"domain{level}", f"value{level}"
    if level == 1 and rows_kept(action, context):
        _row_level(out, action, depth, target, parts)
        return
    if level == 0:
        out.emit(depth, f"{domain} = {_values(out, action, level)}")
    else:  # computed once when it does not read the parameters before it, charged at every use
        out.emit(depth, f"if cached{level} is None:")
        out.emit(depth + 1, f"{domain} = {_values(out, action, level)}")
        if not handle.names & earlier:
            out.emit(depth + 1, f"cached{level} = {domain}")
        out.emit(depth, "else:")
        _read_again(out, depth + 1, level)
    calls = _level_checks(out, action, level, depth)
    shared = out.shared.get(action.id) if level == 0 else None
    reading = before_loop(out, shared, domain, depth) if shared is not None else None
    out.emit(depth, f"for {value} in {domain}:")
    out.emit(depth + 1, f"L[{text(param)}] = {value}")
    inner = depth + 1
    checks = " and ".join(calls) if shared is None else shared_condition(out, shared, calls, reading, depth + 1)
    if checks:
        out.emit(depth + 1, f"if {checks}:")
        inner += 1
    previous = f"args{level - 1} + " if level else ""
    pair = f"(({text(param)}, {value} if type({value}) in _SCALARS else _freeze({value})),)"
    if not (level == 0 and rows_kept(action, context)):  # (else built with a row: `_row_level`)
        out.emit(inner, f"args{level} = {previous}{pair}")
    if level < len(action.params) - 1:
        _level(out, action, level + 1, inner, earlier | {param}, target, parts, context)
    else:
        out.emit(inner, f"if len({target}) >= {MAX_PARAM_COMBINATIONS}:")
        message = f"action '{action.id}' has more than {MAX_PARAM_COMBINATIONS} legal combinations"
        out.emit(inner + 1, f"raise _Error({text(message)})")
        out.emit(inner, f"{target}.append(({text(action.id)}, args{level}, None, {parts}, {context}))")
    out.emit(depth, f"L.pop({text(param)}, None)")


def rows_kept(action, context: str) -> bool:
    """Are the moves of `action` listed by rows kept across listings (`_row_level`)? When it has
    two parameters, the second's values do not read the first, nothing is checked on the
    second, and the label does not read the state."""
    params = action.params
    return len(params) == 2 and not action.req_levels[2] and context == "None" and \
        params[0][0] not in params[1][1].names


def _row_level(out: Writer, action, depth: int, target: str, parts: str) -> None:
    """The last of two parameters, when its values do not read the first and nothing is checked
    on it: the moves for one value of the first parameter are a row, the same for the same
    values of both (whole numbers or texts), built once and kept (`RowTables`); each
    use is charged as when the values are read (`_read_again`), as engine/legal.py charges them."""
    param = action.params[1][0]
    rows = out.value(RowTables(), "_rows")
    out.emit(depth, "if cached1 is None:")
    out.emit(depth + 1, f"domain1 = {_values(out, action, 1)}")
    out.emit(depth + 1, "cached1 = domain1")
    out.emit(depth + 1, f"rows1 = {rows}.table(domain1)")
    out.emit(depth, "else:")
    _read_again(out, depth + 1, 1)
    out.emit(depth, "row1 = rows1.get(value0) if rows1 is not None and type(value0) in _PLAIN else None")
    out.emit(depth, "if row1 is None:")
    out.emit(depth + 1, f"args0 = (({text(action.params[0][0])}, value0 if type(value0) in _SCALARS else _freeze(value0)),)")
    move = (f"({text(action.id)}, args0 + (({text(param)}, value1 if type(value1) in _SCALARS else _freeze(value1)),), "
            f"None, {parts}, None)")
    out.emit(depth + 1, f"row1 = tuple([{move} for value1 in domain1])")
    out.emit(depth + 1, "if rows1 is not None:")
    out.emit(depth + 2, f"{rows}.keep(rows1, value0, row1)")
    out.emit(depth, f"if len({target}) + len(row1) > {MAX_PARAM_COMBINATIONS}:")  # (the move past the bound)
    message = f"action '{action.id}' has more than {MAX_PARAM_COMBINATIONS} legal combinations"
    out.emit(depth + 1, f"raise _Error({text(message)})")
    out.emit(depth, f"{target}.extend(row1)")
    out.emit(depth, f"L.pop({text(param)}, None)")


def _values(out: Writer, action, level: int, names: str = "L") -> str:
    """The values of parameter `level` of `action`, as source (engine/legal.py `_values`):
    checked against the bounds it declares, if any (`off`: legal_P's list of those off them;
    the bounds read the turn's names `L`). `names`: the names its expression is given."""
    param, handle = action.params[level]
    domain = f"_domain({out.call(handle, names)})"
    declared = action.declared.get(param) if action.declared is not None else None
    return domain if declared is None else f"_checked_values({out.value(declared, '_declared')}, {domain}, V, L, off)"


def _read_again(out: Writer, depth: int, level: int) -> None:
    """The values of parameter `level` kept from the first value of the one before, charged
    again (Budget.take, inline: what `_domain` gave has a length, and take charges it)."""
    out.emit(depth, f"domain{level} = cached{level}")
    out.emit(depth, f"_budget.left -= len(cached{level})")
    out.emit(depth, "if _budget.left < 0:")
    out.emit(depth + 1, "_budget.exceeded()")


def _plain_leading_checks(out: Writer, action) -> list:
    """The functions of the requirements checked first on an action's first parameter that keep
    no call across its values (expr/keeping.py)."""
    handles = {handle.fn: handle for handle, _, _ in action.requires if handle is not None}
    leading = []
    for check in action.req_levels[1]:
        if check in handles and keeping_variant(out.rs.unit, handles[check], (action.params[0][0],)) is not None:
            break
        leading.append(check)
    return leading


def _level_checks(out: Writer, action, level: int, depth: int) -> list:
    """The requirements checked once parameter `level` is bound, as calls (all must hold). A
    requirement with calls that read none of that parameter keeps them across its values
    (expr/keeping.py): its slots are made fresh here, before the loop over the values."""
    handles = {handle.fn: handle for handle, _, _ in action.requires if handle is not None}
    param = action.params[level][0]
    calls = []
    for check in action.req_levels[level + 1]:
        variant = keeping_variant(out.rs.unit, handles[check], (param,)) if check in handles else None
        if variant is None:
            calls.append(out.call_function(check, "L"))
            continue
        function, fresh = variant
        slots = out.fresh("kept")
        out.emit(depth, f"{slots} = {out.value(fresh, '_slots')}[:]")
        calls.append(f"{out.value(function, '_h')}(V, L, {slots})")
    return calls


class RowTables:
    """The rows of moves kept for one action listed by rows (`_row_level`):
    {its second parameter's values: {a value of its first parameter: the moves}}, for values
    that are whole numbers or texts (equal values, equal moves). At most KEPT_MOVES moves and
    values are kept in all; past that, all are dropped and kept again from there."""

    __slots__ = ("tables", "kept")

    def __init__(self):
        self.tables: dict = {}
        self.kept = 0

    def table(self, values) -> Optional[dict]:
        """The rows kept for `values` ({value of the first parameter: moves}), or None when
        they are not a list of whole numbers and texts."""
        if type(values) is not list:
            return None
        for value in values:
            if type(value) not in PLAIN:
                return None
        key = tuple(values)
        table = self.tables.get(key)
        if table is None:
            self._count(len(key) + 1)
            table = self.tables[key] = {}
        return table

    def keep(self, table: dict, value, row: tuple) -> None:
        """Keep `row`, the moves of the first parameter's `value`, in `table` (a whole number
        or a text only)."""
        if type(value) in PLAIN:
            self._count(len(row) + 1)
            table[value] = row

    def _count(self, kept: int) -> None:
        self.kept += kept
        if self.kept > KEPT_MOVES:
            self.tables.clear()
            self.kept = kept
