"""Expression speed: evaluations per second of representative rule expressions compiled with
`interpreter.compile_expression`, against the same expression written as a plain Python lambda,
in the same run. Prints per-expression rates, the ratio rulebook time / Python time, and the
geometric mean of the ratios (target: within 1.5x).

Run: .venv/bin/python tools/bench/expr.py [--seconds 0.3] [--repeat 5]
"""
import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from interpreter import compile_expression  # noqa: E402


# plain-Python versions of the two board-game builtins the Python side needs
def combined(maps):
    out = {}
    for m in maps:
        for k, v in m.items():
            out[k] = out.get(k, 0) + v
    return out


def biggest(counts):
    best, best_n, tie = None, 0, False
    for owner, n in counts.items():
        if n > best_n:
            best, best_n, tie = owner, n, False
        elif n == best_n and n > 0:
            tie = True
    if best_n <= 0 or tie:
        return None
    return int(best) if best.isdigit() else best  # player numbers stored as text come back as numbers


ENTITIES = {f"k{i}": {"id": f"k{i}", "type": "corp", "cost": i % 7, "sector": ("energy", "pharma", "media")[i % 3]}
            for i in range(12)}
LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]
NAMES = {
    "board": ["X", "O", "", "", "X", "O", "", "", ""],
    "cells": list(range(9)),
    "lines": LINES,
    "mark": "X",
    "stake": {f"k{i}": {"0": i % 3, "1": (i * 2) % 5, "2": i % 4} for i in range(12)},
    "corps": [f"k{i}" for i in range(12)],
    "hand": ["k1", "k3", "k4", "k6", "k7", "k9"],
    "assets": [12, 7, 9],
    "passed": [False, True, False],
    "player": 1,
    "who": "1",
    "cost": 2,
    "round": 4,
    "values": [3, 1, 4, 1, 5, 9, 2, 6],
}
E = ENTITIES

# (label, rulebook source, equivalent Python lambda over the same mapping)
CASES = [
    ("comprehension with a filter", "[c for c in cells if board[c] == '']",
     lambda m: [c for c in m["cells"] if m["board"][c] == ""]),
    ("biggest over combined maps", "biggest(combined(stake[c] for c in corps))",
     lambda m: biggest(combined([m["stake"][c] for c in m["corps"]]))),
    ("arithmetic condition", "assets[player] - cost * 2 >= 3 and round % 2 == 0",
     lambda m: m["assets"][m["player"]] - m["cost"] * 2 >= 3 and m["round"] % 2 == 0),
    ("attributes of components", "sum(c.cost for c in hand if c.sector == 'energy')",
     lambda m: sum(E[c]["cost"] for c in m["hand"] if E[c]["sector"] == "energy")),
    ("nested any(...) win check", "any(board[a] == board[b] == board[c] == mark for a, b, c in lines)",
     lambda m: any(m["board"][a] == m["board"][b] == m["board"][c] == m["mark"] for a, b, c in m["lines"])),
    ("sum over a generator", "sum(x * 2 for x in values if x > 1)",
     lambda m: sum(x * 2 for x in m["values"] if x > 1)),
    ("conditional", "3 if passed[player] else (1 if player == 0 else 2)",
     lambda m: 3 if m["passed"][m["player"]] else (1 if m["player"] == 0 else 2)),
    ("indexing nested maps", "stake['k3'][who] + stake['k5'][who] * 2 + stake[corps[7]]['0']",
     lambda m: m["stake"]["k3"][m["who"]] + m["stake"]["k5"][m["who"]] * 2 + m["stake"][m["corps"][7]]["0"]),
]


def rate(fn, arg, seconds):
    """Calls per second of fn(arg), measured in batches for about `seconds`."""
    n = 1
    while True:  # find a batch that takes ~20 ms
        t = time.perf_counter()
        for _ in range(n):
            fn(arg)
        dt = time.perf_counter() - t
        if dt > 0.02:
            break
        n *= 2
    calls, spent = 0, 0.0
    while spent < seconds:
        t = time.perf_counter()
        for _ in range(n):
            fn(arg)
        spent += time.perf_counter() - t
        calls += n
    return calls / spent


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.3, help="time per measurement")
    ap.add_argument("--repeat", type=int, default=3, help="measurements per side; the best is kept")
    args = ap.parse_args(argv)
    print(f"{'expression':30s} {'rulebook/s':>12s} {'python/s':>12s} {'ratio':>7s}")
    ratios = []
    for label, src, py in CASES:
        ce = compile_expression(src, NAMES, entities=ENTITIES)
        got, want = ce.evaluate(dict(NAMES)), py(NAMES)
        assert got == want, f"{label}: rulebook {got!r} != python {want!r}"
        mapping = dict(NAMES)
        ev = ce.evaluate
        r_rb = max(rate(ev, mapping, args.seconds) for _ in range(args.repeat))
        r_py = max(rate(py, mapping, args.seconds) for _ in range(args.repeat))
        ratio = r_py / r_rb  # = rulebook time / python time
        ratios.append(ratio)
        print(f"{label:30s} {r_rb:12,.0f} {r_py:12,.0f} {ratio:6.2f}x")
    gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean ratio (rulebook time / python time): {gm:.2f}x  (target <= 1.5x)")
    return gm


if __name__ == "__main__":
    main()
