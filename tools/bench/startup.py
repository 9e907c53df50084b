"""Startup and validation time: `rulebook --help` (target under 0.3 s), validating every
bundled ruleset with all its module combinations (target under 2 s in total), and the CPU of a
one-game `rulebook simulate davos` (the start-up that `simulate --jobs N` does not split: see
games.py's measure_jobs).

Run: .venv/bin/python tools/bench/startup.py
"""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)


def main():
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "from interpreter.cli import main; import sys; sys.argv=['rulebook','--help']; main()"],
                       capture_output=True, check=False)
        runs.append(time.perf_counter() - t)
    t_py = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], capture_output=True, check=False)
        t_py.append(time.perf_counter() - t)
    print(f"rulebook --help: {min(runs):.3f} s (bare python start {min(t_py):.3f} s; target < 0.3 s)")

    # validating everything: the command a user runs, `rulebook validate <every bundled
    # ruleset> --all-combinations`, in a fresh process each time, five times (nothing is kept
    # on disk between runs). The machine is shared, so the median is the figure and the
    # spread is shown.
    from interpreter.compose import bundled_rulesets

    names = list(bundled_rulesets())
    command = [sys.executable, "-m", "interpreter", "validate", *names, "--all-combinations"]
    walls = []
    for _ in range(5):
        t = time.perf_counter()
        r = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        walls.append(time.perf_counter() - t)
        if r.returncode != 0:
            print(r.stderr)
            raise SystemExit(f"validation failed with exit code {r.returncode}")
    walls.sort()
    print(f"rulebook validate {' '.join(names)} --all-combinations:")
    print(f"  {walls[2]:.3f} s median of 5 (min {walls[0]:.3f}, max {walls[-1]:.3f}), "
          f"{len(r.stdout.splitlines())} combinations valid, including Python start-up (target < 2 s)")

    # the start-up of a simulate run, in CPU seconds of a fresh process (os.wait4: the machine is
    # shared, wall clock would measure the load): what games.py charges as not splitting
    command = [sys.executable, "-m", "interpreter", "simulate", "davos", "--players", "4", "--games", "1",
               "--json"]
    cpu = []
    for _ in range(7):
        child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env=dict(os.environ, PYTHONPATH=ROOT, RULEBOOK_CACHE="0"))
        _, _, usage = os.wait4(child.pid, 0)
        cpu.append(usage.ru_utime + usage.ru_stime)
    print(f"rulebook simulate davos --players 4 --games 1: {statistics.median(cpu):.3f} s CPU, median of 7 fresh "
          f"processes (min {min(cpu):.3f}, max {max(cpu):.3f})")

    # where the time goes, per ruleset, in one process
    code = (
        "import io, time\n"
        "t0 = time.perf_counter()\n"
        "from interpreter.cli import run\n"
        "from interpreter.compose import bundled_rulesets\n"
        "print(f'    imports             {time.perf_counter() - t0:.3f} s')\n"
        "for name in bundled_rulesets():\n"
        "    t = time.perf_counter()\n"
        "    rc = run(['validate', name, '--all-combinations'], io.StringIO(), io.StringIO())\n"
        "    print(f'    validate {name:16s} {time.perf_counter() - t:.3f} s')\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    print("one run, per ruleset (the first pays the lazy imports: lark, networkx):")
    print(r.stdout.rstrip())

if __name__ == "__main__":
    main()
