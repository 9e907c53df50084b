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

    from interpreter.compose import bundled_rulesets
    from interpreter.errors import RulebookError
    from interpreter.ruleset import load

    t0 = time.perf_counter()
    for name, path in bundled_rulesets().items():
        t = time.perf_counter()
        try:
            rs = load(path)
            combos = [sorted(c.get("modules") or []) for c in (rs.combinations or [{"modules": []}])]
            for mods in combos:
                load(path, modules=mods)
            status = f"{len(combos)} combination(s)"
        except RulebookError as e:
            status = f"INVALID ({e.stage}: {len(e.diagnostics)} error(s))"
        print(f"  validate {name:14s} {time.perf_counter() - t:.3f} s  {status}")
    total = time.perf_counter() - t0
    print(f"validate all bundled rulesets, all combinations: {total:.3f} s (target < 2 s)")


if __name__ == "__main__":
    main()
