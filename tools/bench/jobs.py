"""`rulebook simulate --jobs 2` against `--jobs 1`: the speed-up on a large run, and that the
per-game results are identical.

Run: .venv/bin/python tools/bench/jobs.py [--ruleset davos] [--players 4] [--games 200]
"""
import argparse
import io
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from interpreter.cli import run  # noqa: E402


def timed(args):
    t = time.perf_counter()
    code = run(args, io.StringIO(), io.StringIO())
    return code, time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ruleset", default="davos")
    ap.add_argument("--players", default="4")
    ap.add_argument("--games", default="200")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        one, two = os.path.join(tmp, "1.jsonl"), os.path.join(tmp, "2.jsonl")
        base = ["simulate", a.ruleset, "--players", a.players, "--games", a.games, "--seed", "7", "--json"]
        c1, t1 = timed(base + ["--jobs", "1", "--per-game", one])
        c2, t2 = timed(base + ["--jobs", "2", "--per-game", two])
        same = open(one).read() == open(two).read()
    print(f"{a.ruleset}, {a.players} players, {a.games} games: --jobs 1 {t1:.2f} s, --jobs 2 {t2:.2f} s, "
          f"speed-up {t1 / t2:.2f}x (2 cores: ideal 2x); identical per-game results: {same}")
    return 0 if (c1 == c2 == 0 and same) else 1


if __name__ == "__main__":
    sys.exit(main())
