"""Startup and validation time: `rulebook --help` (target under 0.3 s) and validating every
bundled ruleset with all its module combinations (target under 2 s in total).

Run: .venv/bin/python tools/bench/startup.py
"""
import os
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

    # validating everything, in a fresh process each time: with an empty cache (cold), then
    # again with the cache the first run left (warm; see interpreter/diskcache.py)
    import tempfile

    code = (
        "import io, sys, time\n"
        "t0 = time.perf_counter()\n"
        "from interpreter.cli import run\n"
        "from interpreter.compose import bundled_rulesets\n"
        "for name in bundled_rulesets():\n"
        "    t = time.perf_counter()\n"
        "    out, err = io.StringIO(), io.StringIO()\n"
        "    rc = run(['validate', name, '--all-combinations'], out, err)\n"
        "    print(f'    validate {name:16s} {time.perf_counter() - t:.3f} s  '\n"
        "          + ('ok' if rc == 0 else 'INVALID'))\n"
        "print(f'TOTAL {time.perf_counter() - t0:.3f}')\n"
    )
    # five fresh processes of each kind: the machine is shared, so the median is the figure
    # and the spread is shown; "cold" has an empty cache directory every time
    for label in ("cold cache", "warm cache"):
        walls, last = [], []
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, RULEBOOK_CACHE_DIR=cache)
            if label == "warm cache":
                subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, cwd=ROOT)
            for _ in range(5):
                if label == "cold cache":
                    for f in os.listdir(cache):
                        os.remove(os.path.join(cache, f))
                t = time.perf_counter()
                r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
                walls.append(time.perf_counter() - t)
                last = r.stdout.strip().splitlines()
        walls.sort()
        print(f"validate every bundled ruleset, all module combinations ({label}), last run:")
        for line in last[:-1]:
            print("    " + line.strip())
        print(f"  total {walls[2]:.3f} s median of 5 (min {walls[0]:.3f}, max {walls[-1]:.3f}) "
              "including Python start-up (target < 2 s)")

if __name__ == "__main__":
    main()
