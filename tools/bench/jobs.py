"""`rulebook simulate --jobs 2` against `--jobs 1`: the speed-up on a large run, and that the
per-game results are identical. The wall-clock speed-up depends on what else runs on the
machine; the CPU-time figure is what two free cores would give (as in games.py): the --jobs 1
run's CPU ÷ (the start-up's CPU + half the rest of the --jobs 2 run's CPU, parent and workers
together).

Two ways to run it:
- in this process (default): both runs in one warm process (rules loaded, imports done), so
  the figure is the pool's own cost, start-up aside (the start-up is a 1-game run here);
- `--fresh [TREE ...]`: each command in a fresh child process, as `make bench` (games.py)
  measures it, start-up included, for each tree in turn over `--rounds` interleaved rounds
  (the median is printed); TREE is a directory holding an `interpreter` package (default: this
  tree; export a commit with `git archive REV | tar -x -C DIR`).
- `--breakdown [TREE]`: where the pool's CPU goes, in fresh processes (Davos 4p): the parent's
  and the workers' CPU of a `--jobs 2` run against a 1-game run (S) and a `--jobs 1` run of
  the same games, and the same games played by two processes forked from one loaded parent,
  one after the other and then at the same time (what running at once costs on this machine).
- `--instructions [TREE ...]`: the same ratio in instructions counted by valgrind's callgrind
  (instructions.py): free of the machine's noise, so one run is the figure. Slow (the command
  runs ~50 times slower under callgrind: ~5 min for 1000 games); needs valgrind.

Run: .venv/bin/python tools/bench/jobs.py [--ruleset davos] [--players 4] [--games 200]
     .venv/bin/python tools/bench/jobs.py --fresh --games 300 --rounds 3 [TREE ...]
     .venv/bin/python tools/bench/jobs.py --breakdown --games 1000 --rounds 3 [TREE]
     .venv/bin/python tools/bench/jobs.py --instructions --games 1000 [TREE ...]
"""
import argparse
import io
import os
import resource
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, REPO)


def cpu_seconds():
    """CPU of this process and of the children it has waited for (the pool's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(args):
    """(exit code, wall seconds, CPU seconds) of one command run in this process."""
    from interpreter.cli import run

    t, cpu = time.perf_counter(), cpu_seconds()
    code = run(args, io.StringIO(), io.StringIO())
    return code, time.perf_counter() - t, cpu_seconds() - cpu


def in_process(a):
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


def fresh(a):
    """games.py's measurement (Davos 4p, fresh processes), tree after tree, round after round."""
    sys.path.insert(0, HERE)
    from games import measure_jobs

    trees = [os.path.abspath(tree) for tree in a.trees] or [REPO]
    found = {tree: [] for tree in trees}
    for _ in range(a.rounds):
        for tree in trees:
            found[tree].append(measure_jobs(tree, int(a.games), 1))
    print(f"simulate davos --players 4 --games {a.games}, --jobs 2 against --jobs 1, fresh processes, "
          f"{a.rounds} interleaved rounds (median)")
    failed = False
    for tree, rounds in found.items():
        cpu = statistics.median(entry["cpu_speedup"] for entry in rounds)
        wall = statistics.median(entry["speedup"] for entry in rounds)
        identical = all(entry["identical"] for entry in rounds)
        failed = failed or not identical
        each = ", ".join(f"{entry['cpu_speedup']:.2f}" for entry in rounds)
        print(f"{tree:40s} on two free cores (CPU) {cpu:.2f}x (must be >= 1.8) "
              f"[{each}]; wall clock {wall:.2f}x "
              f"(load average {rounds[-1]['load']:.1f}); identical per-game results: {identical}")
    return 1 if failed else 0


# a child: a command run in this process, then its own CPU and that of the workers it waited for
RUSAGE_CHILD = """import io, resource, sys
from interpreter.cli import run
code = run(sys.argv[1:], io.StringIO(), io.StringIO())
own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(code, own.ru_utime + own.ru_stime, workers.ru_utime + workers.ru_stime)
"""

# a child: the odd and the even games played by two processes forked from one loaded parent, one
# after the other ("apart") or at the same time ("together"); prints their CPU
FORKED_HALVES = """import os, resource, sys
import interpreter
from interpreter.runs import simulate
games, together = int(sys.argv[1]), sys.argv[2] == "together"
rules = interpreter.load("davos")
def half(first):
    pid = os.fork()
    if pid == 0:
        simulate(rules, None, 4, games // 2, 7 + first * (games // 2), ["random"])
        os._exit(0)
    return pid
if together:
    for pid in [half(0), half(1)]:
        os.waitpid(pid, 0)
else:
    for first in (0, 1):
        os.waitpid(half(first), 0)
workers = resource.getrusage(resource.RUSAGE_CHILDREN)
print(workers.ru_utime + workers.ru_stime)
"""


def child_output(tree, code, *argv):
    """The numbers a child script printed, run in `tree` (its `interpreter` package first)."""
    import subprocess

    environment = dict(os.environ, PYTHONPATH=tree)
    done = subprocess.run([sys.executable, "-c", code, *map(str, argv)], cwd=tree, env=environment,
                          capture_output=True, text=True, check=True)
    return [float(word) for word in done.stdout.split()]


def breakdown(a):
    """The CPU of a `--jobs 2` run split into the start-up, the games, the parent's share, the
    workers' share beyond the games and the cost of running two processes at once."""
    tree = os.path.abspath(a.trees[0]) if a.trees else REPO
    rows = {name: [] for name in ("start-up", "jobs 1", "parent", "workers", "apart", "together")}
    with tempfile.TemporaryDirectory() as folder:
        per_game = os.path.join(folder, "games.jsonl")
        for _ in range(a.rounds):
            command = ["simulate", "davos", "--players", "4", "--seed", "7", "--per-game", per_game, "--games"]
            rows["start-up"].append(child_output(tree, RUSAGE_CHILD, *command, 1, "--jobs", 1)[1])
            rows["jobs 1"].append(child_output(tree, RUSAGE_CHILD, *command, a.games, "--jobs", 1)[1])
            _, parent, workers = child_output(tree, RUSAGE_CHILD, *command, a.games, "--jobs", 2)
            rows["parent"].append(parent)
            rows["workers"].append(workers)
            for way in ("apart", "together"):
                rows[way].append(child_output(tree, FORKED_HALVES, a.games, way)[0])
    median = {name: statistics.median(values) for name, values in rows.items()}
    start_up, games = median["start-up"], median["jobs 1"] - median["start-up"]
    total = median["parent"] + median["workers"]
    print(f"{tree}: simulate davos --players 4 --games {a.games}, CPU seconds, median of {a.rounds} "
          f"(load average {os.getloadavg()[0]:.1f})")
    print(f"  start-up S (a 1-game run) {start_up:.3f}; --jobs 1 {median['jobs 1']:.3f}, so the games G {games:.3f}")
    print(f"  --jobs 2 {total:.3f}: parent {median['parent']:.3f} (S {median['parent'] - start_up:+.3f}), "
          f"workers {median['workers']:.3f} (G {median['workers'] - games:+.3f}); the pool's share "
          f"P = {total - median['jobs 1']:.3f}")
    print(f"  the same games in two forked processes: one after the other {median['apart']:.3f}, "
          f"at the same time {median['together']:.3f} ({median['together'] - median['apart']:+.3f})")
    return 0


def instruction_counts(a):
    """The `--jobs 2` ratio in instructions (instructions.py), tree after tree."""
    sys.path.insert(0, HERE)
    import instructions

    if not instructions.available():
        print("valgrind is not installed: no instruction counts (Debian: apt-get install valgrind)")
        return 2
    failed = False
    for tree in [os.path.abspath(tree) for tree in a.trees] or [REPO]:
        found = instructions.jobs_study(tree, int(a.games))
        failed = failed or not found["identical"]
        verdict = "met" if found["instruction_speedup"] >= 1.8 else "NOT MET"
        print(f"{tree}: simulate davos --players 4 --games {a.games}, instructions (callgrind, PYTHONHASHSEED=0)")
        print(f"  {instructions.describe(found)} (must be >= 1.8: {verdict}); identical per-game results: "
              f"{found['identical']}")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="*", help="with --fresh: the trees to compare (default: this one)")
    ap.add_argument("--ruleset", default="davos")
    ap.add_argument("--players", default="4")
    ap.add_argument("--games", default="200")
    ap.add_argument("--fresh", action="store_true", help="each command in a fresh process (Davos 4p)")
    ap.add_argument("--breakdown", action="store_true", help="where the CPU of --jobs 2 goes (Davos 4p)")
    ap.add_argument("--instructions", action="store_true",
                    help="the --jobs 2 ratio in instructions counted by callgrind (Davos 4p; slow)")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    if a.instructions:
        return instruction_counts(a)
    if a.breakdown:
        return breakdown(a)
    return fresh(a) if a.fresh else in_process(a)


if __name__ == "__main__":
    sys.exit(main())
