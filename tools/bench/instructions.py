"""Instruction counts of `rulebook simulate` runs under valgrind's callgrind, and issue 15's
`simulate --jobs 2` target measured with them.

CPU time on this shared machine moves by 10-20 % between runs of the same code, and more when
two processes run at once (the host's other work takes the caches and the second core). An
instruction count does not: callgrind counts the instructions a process executes, the same for
the same code, inputs and PYTHONHASHSEED whatever else runs (set to 0 here). So the question
"what would `--jobs 2` give on two free cores?" is asked of the work itself:

    ratio = I1 / (IS + (I2 - IS) / 2)

with I1 the instructions of the `--jobs 1` run, IS those of a one-game run (the start-up, which
does not split: Python, imports, loading, checking and compiling the rules, one game), and I2
those of the `--jobs 2` run, the parent and both workers together (so what the pool adds counts;
an uneven split of the games between the workers does not). A worker is forked from the parent:
callgrind's count of a forked child starts with the parent's count at the fork, so it is zeroed
where CPython's child starts (`--zero-before=PyOS_AfterFork_Child`) and a worker counts only its
own work. Not counted: the kernel's side (the fork, copy-on-write page faults, the pipes), a
few per cent of a run's system time, and what two processes running at once cost each other in
shared caches.

Owns running a command under callgrind (`run_counted`), reading the totals of its processes
(`totals`), and the study (`jobs_study`). Needs valgrind on the PATH (`available`); under
callgrind a command runs ~50 times slower, so the three runs of a study run at the same time
(their counts do not depend on it).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

__all__ = ["available", "run_counted", "totals", "jobs_study", "speedup", "describe"]

TOTALS = re.compile(r"^totals:\s+(\d+)", re.MULTILINE)


def available() -> bool:
    return shutil.which("valgrind") is not None


def counted_command(command, folder):
    """`command` under callgrind, one output file per process in `folder` (forked workers
    counted from their fork)."""
    return ["valgrind", "--tool=callgrind", "--zero-before=PyOS_AfterFork_Child",
            f"--callgrind-out-file={os.path.join(folder, 'callgrind.%p')}", *command]


def run_counted(command, root, folder):
    """Start `command` (a list) under callgrind in `root` (its `interpreter` package first);
    returns the Popen. The counts land in `folder`."""
    os.makedirs(folder, exist_ok=True)
    environment = dict(os.environ, PYTHONPATH=root, PYTHONHASHSEED="0", RULEBOOK_CACHE="0")
    return subprocess.Popen(counted_command(command, folder), cwd=root, env=environment,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def totals(folder) -> list:
    """The instruction total of each process counted into `folder`."""
    found = []
    for name in sorted(os.listdir(folder)):
        if name.startswith("callgrind."):
            with open(os.path.join(folder, name)) as counts:
                match = TOTALS.search(counts.read())
            if match:
                found.append(int(match.group(1)))
    return found


def speedup(start_up: int, jobs_one: int, jobs_two: int) -> float:
    """What two free cores would give, by the formula in the module's docstring."""
    return jobs_one / (start_up + max(jobs_two - start_up, 0) / 2)


def simulate_command(games, jobs, per_game, agents=(), python=sys.executable):
    return [python, "-m", "interpreter", "simulate", "davos", "--players", "4", "--games", str(games),
            "--seed", "7", "--json", "--jobs", str(jobs), "--per-game", per_game, *agents]


def jobs_study(root, games, agents=()):
    """`simulate davos --players 4 --games N` with `--jobs 1` and `--jobs 2`, and a one-game run,
    under callgrind (all three at once); the instructions of each and the ratio, and whether the
    two runs' per-game results are identical."""
    with tempfile.TemporaryDirectory(prefix="rulebook-instructions-") as folder:
        runs = {"start_up": (1, 1, ()), "jobs_1": (games, 1, agents), "jobs_2": (games, 2, agents)}
        children = {}
        for name, (count, jobs, seats) in runs.items():
            per_game = os.path.join(folder, f"{name}.jsonl")
            children[name] = run_counted(simulate_command(count, jobs, per_game, seats), root,
                                         os.path.join(folder, name))
        codes = {name: child.wait() for name, child in children.items()}
        counted = {name: totals(os.path.join(folder, name)) for name in runs}
        with open(os.path.join(folder, "jobs_1.jsonl")) as one, open(os.path.join(folder, "jobs_2.jsonl")) as two:
            identical = one.read() == two.read()
    failed = [name for name, code in codes.items() if code != 0]
    if failed or len(counted["jobs_2"]) < 3:
        raise RuntimeError(f"a counted run failed: {failed or 'jobs_2 counted fewer than 3 processes'}")
    start_up, jobs_one, jobs_two = (sum(counted[name]) for name in ("start_up", "jobs_1", "jobs_2"))
    return {"games": games, "agents": " ".join(agents), "start_up": start_up, "jobs_1": jobs_one,
            "jobs_2": jobs_two, "processes_2": counted["jobs_2"], "identical": identical,
            "instruction_speedup": speedup(start_up, jobs_one, jobs_two)}


def describe(found) -> str:
    """The study's figures as printed by jobs.py and games.py."""
    start_up, jobs_one, jobs_two = found["start_up"], found["jobs_1"], found["jobs_2"]
    return (f"start-up S {start_up / 1e9:.3f} G instructions; --jobs 1 {jobs_one / 1e9:.3f} G, so the games "
            f"{(jobs_one - start_up) / 1e9:.3f} G; --jobs 2 {jobs_two / 1e9:.3f} G (processes "
            f"{', '.join(f'{count / 1e9:.3f}' for count in found['processes_2'])}), the pool's share "
            f"{(jobs_two - jobs_one) / 1e9:+.3f} G; on two free cores {found['instruction_speedup']:.3f}x")
