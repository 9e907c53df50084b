"""The output of `rulebook diff`: changes grouped by section, one per line with file:line of
the new side, a count, and the balance table of --simulate; or all of it as one JSON object.

Owns only the presentation.
"""
from __future__ import annotations

__all__ = ["json_report", "text_report"]


def json_report(old, new, changes: list, balance) -> dict:
    return {"old": {"side": old.spec, "modules": list(old.rs.modules), "revision": old.revision},
            "new": {"side": new.spec, "modules": list(new.rs.modules), "revision": new.revision},
            "differ": bool(changes), "counts": _counts(changes),
            "changes": [c.to_json() for c in changes], "simulation": balance}


def _counts(changes: list) -> dict:
    return {name: sum(1 for c in changes if c.op == op) for op, name in (("+", "added"), ("-", "removed"),
                                                                          ("~", "changed"))}


def text_report(old, new, changes: list, balance) -> str:
    lines = [f"--- {old.label}", f"+++ {new.label}"]
    if not changes:
        lines.append("no differences in the rules")
    section = None
    for change in changes:
        if change.section != section:
            section = change.section
            lines.append(f"{section}:")
        lines.append("  " + change.text())
        lines.extend(f"      {line[0]} {line[1:]}" for line in change.lines)
    if changes:
        counts = _counts(changes)
        lines.append(f"{len(changes)} changes: {counts['added']} added, {counts['removed']} removed, "
                     f"{counts['changed']} changed")
    if balance is not None:
        lines += [""] + _balance_lines(old, new, balance)
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _pct(rate: float) -> str:
    return f"{100 * rate:.1f}%"


def _balance_lines(old, new, balance: dict) -> list:
    old_side, new_side = balance["old"], balance["new"]
    lines = [f"balance: {balance['games']} games per side, seeds {balance['seeds'][0]}-{balance['seeds'][1]}, "
             f"{balance['players']} players, "
             f"agents {','.join(balance['agents'])} (95 % intervals: Wilson; difference: Newcombe)",
             f"{'':16s}{'old ' + old.label:34s}{'new ' + new.label:34s}new − old"]
    for seat in range(balance["players"]):
        cells = []
        for side in (old_side, new_side):
            rate = side["win_rate_by_seat"][seat]
            low, high = rate["interval95"]
            cells.append(f"{_pct(rate['rate'])} [{_pct(low)}, {_pct(high)}]")
        difference = balance["win_rate_difference_by_seat"][seat]
        interval_low, interval_high = difference["interval95"]
        lines.append(f"{'seat ' + str(seat) + ' wins':16s}{cells[0]:34s}{cells[1]:34s}"
                     f"{100 * difference['difference']:+.1f} pts "
                     f"[{100 * interval_low:+.1f}, {100 * interval_high:+.1f}]")
    lines.append(f"{'draws':16s}{str(old_side['draws']):34s}{str(new_side['draws']):34s}"
                 f"{new_side['draws'] - old_side['draws']:+d}")
    length = [f"{side['mean_steps']:.1f} ± {side['mean_steps_half_width95']:.1f} steps"
              for side in (old_side, new_side)]
    lines.append(f"{'game length':16s}{length[0]:34s}{length[1]:34s}"
                 f"{balance['mean_steps_difference']:+.1f} ± {balance['mean_steps_difference_half_width95']:.1f}")
    lines.append(f"{'completed':16s}{str(old_side['completed']) + ' of ' + str(old_side['games']):34s}"
                 f"{str(new_side['completed']) + ' of ' + str(new_side['games']):34s}")
    lines.append(f"{'errors':16s}{str(old_side['errors']):34s}{str(new_side['errors']):34s}")
    for name, side in (("old", old_side), ("new", new_side)):
        for kind, count in side["error_kinds"].items():
            lines.append(f"  {name} error ×{count}: {kind}")
    return lines
