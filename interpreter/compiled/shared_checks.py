"""Requirements shared by two actions of one listing of legal moves: actions of a phase with one
parameter each, of the same name and with the same values (the same expression), whose
requirements on that parameter begin with the same checks (say a `buy` and a `buy_on_credit`
over the same markets, both first asking that the market is open and a slot in it is free).

The first action's loop (legal_code.py `_level`) records, for each value in turn, whether those
leading checks passed and the work they cost; the later action's loop, over the same values in
the same order (the same function of the same state: listing changes nothing), reads the record
instead of checking again, and charges that work again, so the work bound counts what checking
each time would (the reference engine checks each time: both stop at the same step). When the
record is missing (the first action's own requirements kept it from its loop) or the work would
pass the bound, the checks run as they are, and the one that reaches the bound raises where the
reference's does. Only checks that keep no call across values (expr/keeping.py) are shared: their
work is exactly the reference's.

Owns: `sharing_plan` (which actions record and which read), `before_loop` and `shared_condition`
(their code).
"""
from __future__ import annotations


class Shared:
    """The leading checks of an action's parameter, recorded (`records`) or read from `record`."""

    __slots__ = ("record", "length", "records")

    def __init__(self, record: str, length: int, records: bool):
        self.record = record  # the generated list of (passed, work) per value
        self.length = length  # how many leading checks
        self.records = records


def sharing_plan(out, actions, leading) -> dict:
    """action id -> Shared, for the actions of one phase in listing order; `leading(action)` gives
    the functions of the checks on its one parameter that come first and keep nothing across
    values."""
    plan: dict = {}
    first_of: dict = {}
    for action in actions:
        if len(action.params) != 1:
            continue
        key = (action.params[0][0], action.params[0][1].fn)
        checks = leading(action)
        if key not in first_of:
            first_of[key] = (action, checks)
            continue
        first, first_checks = first_of[key]
        length = 0
        while length < min(len(checks), len(first_checks)) and checks[length] is first_checks[length]:
            length += 1
        recorder = plan.get(first.id)
        if recorder is None and length:
            recorder = plan[first.id] = Shared(out.fresh("checked"), length, True)
        if recorder is not None and length >= recorder.length:
            plan[action.id] = Shared(recorder.record, recorder.length, False)
    return plan


def before_loop(out, shared: Shared, domain: str, depth: int):
    """The lines before the loop over `domain` of a reading action: (record or None, position)."""
    if shared.records:
        return None
    kept, position = out.fresh("kept"), out.fresh("position")
    out.emit(depth, f"{kept} = {shared.record} if len({shared.record}) == len({domain}) else None")
    out.emit(depth, f"{position} = -1")
    return kept, position


def shared_condition(out, shared: Shared, calls: list, reading, depth: int) -> str:
    """The condition of the loop body at `depth` (the parameter bound), the first `shared.length`
    of `calls` recorded or read (`reading`: what `before_loop` gave)."""
    budget = out.value(out.rs.budget, "_budget")
    passed, leading = out.fresh("passed"), " and ".join(calls[:shared.length])
    if reading is None:
        before = out.fresh("before")
        out.emit(depth, f"{before} = {budget}.left")
        out.emit(depth, f"{passed} = {leading}")
        out.emit(depth, f"{shared.record}.append(({passed}, {before} - {budget}.left))")
    else:
        kept, position = reading
        out.emit(depth, f"{position} += 1")
        out.emit(depth, f"if {kept} is None or {kept}[{position}][1] > {budget}.left:")
        out.emit(depth + 1, f"{passed} = {leading}")
        out.emit(depth, "else:")
        out.emit(depth + 1, f"{budget}.left -= {kept}[{position}][1]")
        out.emit(depth + 1, f"{passed} = {kept}[{position}][0]")
    return " and ".join([passed] + calls[shared.length:])
