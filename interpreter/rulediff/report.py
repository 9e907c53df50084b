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


def _balance_lines(old, new, b: dict) -> list:
    o, n = b["old"], b["new"]
    lines = [f"balance: {b['games']} games per side, seeds {b['seeds'][0]}-{b['seeds'][1]}, {b['players']} players, "
             f"agents {','.join(b['agents'])} (95 % intervals: Wilson; difference: Newcombe)",
             f"{'':16s}{'old ' + old.label:34s}{'new ' + new.label:34s}new − old"]
    for seat in range(b["players"]):
        cells = []
        for side in (o, n):
            rate = side["win_rate_by_seat"][seat]
            low, high = rate["interval95"]
            cells.append(f"{_pct(rate['rate'])} [{_pct(low)}, {_pct(high)}]")
        d = b["win_rate_difference_by_seat"][seat]
        lo, hi = d["interval95"]
        lines.append(f"{'seat ' + str(seat) + ' wins':16s}{cells[0]:34s}{cells[1]:34s}"
                     f"{100 * d['difference']:+.1f} pts [{100 * lo:+.1f}, {100 * hi:+.1f}]")
    lines.append(f"{'draws':16s}{str(o['draws']):34s}{str(n['draws']):34s}{n['draws'] - o['draws']:+d}")
    length = [f"{side['mean_steps']:.1f} ± {side['mean_steps_half_width95']:.1f} steps" for side in (o, n)]
    lines.append(f"{'game length':16s}{length[0]:34s}{length[1]:34s}"
                 f"{b['mean_steps_difference']:+.1f} ± {b['mean_steps_difference_half_width95']:.1f}")
    lines.append(f"{'completed':16s}{str(o['completed']) + ' of ' + str(o['games']):34s}"
                 f"{str(n['completed']) + ' of ' + str(n['games']):34s}")
    lines.append(f"{'errors':16s}{str(o['errors']):34s}{str(n['errors']):34s}")
    for name, side in (("old", o), ("new", n)):
        for kind, count in side["error_kinds"].items():
            lines.append(f"  {name} error ×{count}: {kind}")
    return lines
