"""`rulebook simulate --jobs 2` against `--jobs 1`: the speed-up on a large run, and that the
per-game results are identical. The wall-clock speed-up depends on what else runs on the
machine; the CPU-time figure is what two free cores would give (as in games.py): the --jobs 1
run's CPU ÷ (the start-up's CPU, a 1-game run, + half the rest of the --jobs 2 run's CPU,
parent and workers together).

Run: .venv/bin/python tools/bench/jobs.py [--ruleset davos] [--players 4] [--games 200]
"""
import argparse
import io
import os
import resource
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from interpreter.cli import run  # noqa: E402


def cpu_seconds():
    """CPU of this process and of the children it has waited for (the pool's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(args):
    """(exit code, wall seconds, CPU seconds) of one command run in this process."""
    t, cpu = time.perf_counter(), cpu_seconds()
    code = run(args, io.StringIO(), io.StringIO())
    return code, time.perf_counter() - t, cpu_seconds() - cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ruleset", default="davos")
    ap.add_argument("--players", default="4")
    ap.add_argument("--games", default="200")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        one, two = os.path.join(tmp, "1.jsonl"), os.path.join(tmp, "2.jsonl")
        base = ["simulate", a.ruleset, "--players", a.players, "--games", a.games, "--seed", "7", "--json"]
        start = ["simulate", a.ruleset, "--players", a.players, "--games", "1", "--seed", "7", "--json"]
        timed(start + ["--jobs", "1", "--per-game", one])  # the first run in this process also imports
        _, _, start_up = timed(start + ["--jobs", "1", "--per-game", one])
        c1, t1, cpu1 = timed(base + ["--jobs", "1", "--per-game", one])
        c2, t2, cpu2 = timed(base + ["--jobs", "2", "--per-game", two])
        same = open(one).read() == open(two).read()
    print(f"{a.ruleset}, {a.players} players, {a.games} games: --jobs 1 {t1:.2f} s, --jobs 2 {t2:.2f} s, "
          f"wall-clock speed-up {t1 / t2:.2f}x (load average {os.getloadavg()[0]:.1f}); CPU: --jobs 1 {cpu1:.2f} s, "
          f"--jobs 2 {cpu2:.2f} s, start-up {start_up:.2f} s, on two free cores "
          f"{cpu1 / (start_up + max(cpu2 - start_up, 0) / 2):.2f}x (must be >= 1.8); "
          f"identical per-game results: {same}")
    return 0 if (c1 == c2 == 0 and same) else 1


if __name__ == "__main__":
    sys.exit(main())
