"""Expression speed: evaluations per second of representative rule expressions compiled with
`interpreter.compile_expression`, against the same expression written as a plain Python lambda,
in the same run. Prints per-expression rates, the ratio rulebook time / Python time, and the
geometric mean of the ratios (target: within 1.5x). With --root TREE the expressions are
compiled by that tree's interpreter (e.g. a checkout of a baseline commit), so two trees can be
compared by the ratios each prints.

Run: .venv/bin/python tools/bench/expr.py [--seconds 0.3] [--repeat 3] [--root TREE]
"""
import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


# plain-Python versions of the board-game builtins the Python side needs
def combined(maps):
    out = {}
    for mapping in maps:
        for key, value in mapping.items():
            out[key] = out.get(key, 0) + value
    return out


def biggest(counts):
    best, best_count, tie = None, 0, False
    for owner, count in counts.items():
        if count > best_count:
            best, best_count, tie = owner, count, False
        elif count == best_count and count > 0:
            tie = True
    if best_count <= 0 or tie:
        return None
    return int(best) if best.isdigit() else best  # player numbers stored as text come back as numbers


ENTITIES = {f"k{i}": {"id": f"k{i}", "type": "corp", "cost": i % 7, "sector": ("energy", "pharma", "media")[i % 3]}
            for i in range(12)}
RECORDS = ENTITIES
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
    "needs": {"oil": 2, "steel": 1, "food": 3},
    "stock": {"oil": 1, "steel": 4, "food": 5},
    "offers": [{"price": 3, "kind": "oil"}, {"price": 5, "kind": "food"}, {"price": 2, "kind": "steel"}],
}

# (label, rulebook source, equivalent Python lambda over the same mapping)
CASES = [
    ("comprehension with a filter", "[c for c in cells if board[c] == '']",
     lambda names: [c for c in names["cells"] if names["board"][c] == ""]),
    ("biggest over combined maps", "biggest(combined(stake[c] for c in corps))",
     lambda names: biggest(combined([names["stake"][c] for c in names["corps"]]))),
    ("arithmetic condition", "assets[player] - cost * 2 >= 3 and round % 2 == 0",
     lambda names: names["assets"][names["player"]] - names["cost"] * 2 >= 3 and names["round"] % 2 == 0),
    ("attributes of components", "sum(c.cost for c in hand if c.sector == 'energy')",
     lambda names: sum(RECORDS[c]["cost"] for c in names["hand"] if RECORDS[c]["sector"] == "energy")),
    ("nested any(...) win check", "any(board[a] == board[b] == board[c] == mark for a, b, c in lines)",
     lambda names: any(names["board"][a] == names["board"][b] == names["board"][c] == names["mark"]
                       for a, b, c in names["lines"])),
    ("sum over a generator", "sum(x * 2 for x in values if x > 1)",
     lambda names: sum(x * 2 for x in names["values"] if x > 1)),
    ("conditional", "3 if passed[player] else (1 if player == 0 else 2)",
     lambda names: 3 if names["passed"][names["player"]] else (1 if names["player"] == 0 else 2)),
    ("indexing nested maps", "stake['k3'][who] + stake['k5'][who] * 2 + stake[corps[7]]['0']",
     lambda names: (names["stake"]["k3"][names["who"]] + names["stake"]["k5"][names["who"]] * 2
                    + names["stake"][names["corps"][7]]["0"])),
    ("get with a default", "sum(get(stake[c], who, 0) for c in corps)",
     lambda names: sum(names["stake"][c].get(names["who"], 0) for c in names["corps"])),
    ("all(...) over keys", "all(stock[r] >= max(0, needs[r] - 1) for r in keys(needs))",
     lambda names: all(names["stock"][r] >= max(0, names["needs"][r] - 1) for r in names["needs"])),
    ("attributes of maps", "count(o for o in offers if o.price <= cost + 1)",
     lambda names: sum(1 for o in names["offers"] if o["price"] <= names["cost"] + 1)),
    ("a range of literals", "[c for c in range(9) if board[c] == '']",
     lambda names: [c for c in range(9) if names["board"][c] == ""]),
    ("a call the same for every item", "sum(c.cost for c in hand if c.cost > min(values))",
     lambda names: sum(RECORDS[c]["cost"] for c in names["hand"] if RECORDS[c]["cost"] > min(names["values"]))),
    ("a call repeated after a test", "get(needs, mark) + 1 if get(needs, mark) != none else 0",
     lambda names: names["needs"].get(names["mark"]) + 1 if names["needs"].get(names["mark"]) is not None else 0),
]


def rate(function, argument, seconds):
    """Calls per second of function(argument), measured in batches for about `seconds`."""
    batch = 1
    while True:  # find a batch that takes ~20 ms
        started = time.perf_counter()
        for _ in range(batch):
            function(argument)
        if time.perf_counter() - started > 0.02:
            break
        batch *= 2
    calls, spent = 0, 0.0
    while spent < seconds:
        started = time.perf_counter()
        for _ in range(batch):
            function(argument)
        spent += time.perf_counter() - started
        calls += batch
    return calls / spent


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.3, help="time per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per side; the best is kept")
    parser.add_argument("--root", default=REPO, help="the tree whose interpreter is measured (default: this one)")
    args = parser.parse_args(argv)
    sys.path.insert(0, args.root)
    from interpreter import compile_expression

    print(f"{'expression':30s} {'rulebook/s':>12s} {'python/s':>12s} {'ratio':>7s}")
    ratios = []
    for label, source, python in CASES:
        compiled = compile_expression(source, NAMES, entities=ENTITIES)
        got, want = compiled.evaluate(dict(NAMES)), python(NAMES)
        assert got == want, f"{label}: rulebook {got!r} != python {want!r}"
        mapping = dict(NAMES)
        rulebook_rate = max(rate(compiled.evaluate, mapping, args.seconds) for _ in range(args.repeat))
        python_rate = max(rate(python, mapping, args.seconds) for _ in range(args.repeat))
        ratio = python_rate / rulebook_rate  # = rulebook time / python time
        ratios.append(ratio)
        print(f"{label:30s} {rulebook_rate:12,.0f} {python_rate:12,.0f} {ratio:6.2f}x")
    mean = math.exp(sum(math.log(ratio) for ratio in ratios) / len(ratios))
    print(f"geometric mean ratio (rulebook time / python time): {mean:.2f}x  (target <= 1.5x)")
    return mean


if __name__ == "__main__":
    main()
