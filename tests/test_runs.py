"""Runs that survive (issue 16 item 7) and runs that cannot mix rule versions (issue 10):
`simulate` counts a failing game as an error and goes on, detects a worker process that dies,
loads the rules once, writes each game as it finishes and records the rules' digest."""
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

import interpreter
from interpreter.cli import run
from interpreter.runs import LOST, RulesChanged, simulate

import runs_agents

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FLAKY = os.path.join(HERE, "failing_rulesets", "flaky")  # not in rulesets/: those must all pass
TIMEOUT = 240  # a run that hangs fails the test instead of hanging the suite

runs_agents.register()


def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err, io.StringIO())
    return code, out.getvalue(), err.getvalue()


def run_script(code: str, *, timeout=TIMEOUT, **kwargs):
    """Python code in a fresh process with the test agents registered; killed if it hangs."""
    prelude = f"import sys; sys.path[:0] = [{ROOT!r}, {HERE!r}]; import runs_agents; runs_agents.register()\n"
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, **kwargs)


def cli_script(*argv) -> str:
    return f"from interpreter.cli import run; sys.exit(run({list(argv)!r}))"


def test_games_that_fail_on_some_rolls_are_counted_and_the_run_goes_on(tmp_path):
    per_game = tmp_path / "games.jsonl"
    code, out, err = cli("simulate", FLAKY, "--games", "40", "--json", "--per-game", str(per_game))
    summary = json.loads(out)
    lines = [json.loads(line) for line in per_game.read_text().splitlines()]
    failed = [line for line in lines if line["error"]]
    assert code == 1, "a run with errors exits with 1"
    assert summary["games"] == 40 and summary["errors"] == len(failed) and summary["lost"] == 0
    assert 0 < summary["errors"] < 40 and summary["completed"] == 40 - summary["errors"]
    # one kind of error, naming the rule's file:line (engine: every failing effect is located)
    [(kind, count)] = summary["error_kinds"].items()
    assert kind.startswith("rule_error: ") and kind.endswith("flaky/game.yaml:20:9: division by zero"), kind
    assert count == summary["errors"]
    assert [g["seed"] for g in summary["error_games"]] == [line["seed"] for line in failed]
    assert all("division by zero (action roll in phase 'play'" in g["error"] for g in summary["error_games"])
    code, text, _ = cli("simulate", FLAKY, "--games", "40")
    assert code == 1 and f"completed: {40 - summary['errors']}  errors: {summary['errors']}" in text


def test_a_game_that_raises_is_one_error_with_its_seed_and_place(tmp_path):
    per_game = tmp_path / "games.jsonl"
    code, out, err = cli("simulate", "tictactoe", "--games", "12", "--agents", "crashing", "--json",
                         "--per-game", str(per_game))
    summary = json.loads(out)
    assert code == 1 and summary["completed"] == 11 and summary["errors"] == 1
    (game,) = summary["error_games"]
    assert game["seed"] == runs_agents.BAD_SEED
    assert game["error"].startswith("crashed: ZeroDivisionError: integer division or modulo by zero (at ")
    assert "runs_agents.py:" in game["error"] and game["error"].endswith(" in fail)")
    assert len(per_game.read_text().splitlines()) == 12


def test_per_game_results_are_the_same_for_one_and_two_jobs(tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    for path, jobs in ((one, "1"), (two, "2")):
        cli("simulate", FLAKY, "--games", "30", "--seed", "3", "--per-game", str(path), "--jobs", jobs)
    assert one.read_text() == two.read_text()
    for path, jobs in ((one, "1"), (two, "2")):
        cli("simulate", "tictactoe", "--games", "20", "--agents", "crashing,random", "--rotate",
            "--per-game", str(path), "--jobs", jobs)
    assert one.read_text() == two.read_text() and "crashed: ZeroDivisionError" in one.read_text()


def test_davos_with_every_agent_gives_the_same_games_for_one_and_two_jobs(tmp_path):
    """Issue 15: `--jobs 2` on Davos (hidden cards, the compiled code inherited by the workers)
    gives the very per-game lines of `--jobs 1`, MCTS's included."""
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    for path, jobs in ((one, "1"), (two, "2")):
        code, _, _ = cli("simulate", "davos", "--players", "4", "--games", "40", "--seed", "11",
                         "--per-game", str(path), "--jobs", jobs)
        assert code == 0
    assert one.read_text() == two.read_text() and len(one.read_text().splitlines()) == 40
    for path, jobs in ((one, "1"), (two, "2")):
        code, _, _ = cli("simulate", "davos", "--players", "4", "--games", "3", "--seed", "5",
                         "--agents", "mcts:6:3,random,greedy,random", "--rotate", "--per-game", str(path),
                         "--jobs", jobs)
        assert code == 0
    assert one.read_text() == two.read_text() and len(one.read_text().splitlines()) == 3


def test_the_lines_handed_on_are_the_whole_records_and_a_worker_sends_a_task_at_once():
    """`on_lines` gets each game's per-game line (the whole record, keys sorted) whichever
    process made it; with `final_vars=False` the records seen and returned lack only the final
    vars. With two jobs a worker's task arrives as one text of several lines."""
    rs = interpreter.load("tictactoe")
    whole, _ = simulate(rs, None, 2, 24, 0, ["random"], jobs=1)
    assert all(record["final_vars"] for record in whole)
    for jobs in (1, 2):
        lines, calls, seen = {}, [], []

        def on_lines(seeds, text):
            calls.append(seeds)
            lines.update(zip(seeds, text.splitlines(keepends=True), strict=True))

        records, _ = simulate(rs, None, 2, 24, 0, ["random"], jobs=jobs, on_lines=on_lines,
                              on_result=seen.append, final_vars=False)
        assert lines == {record["seed"]: json.dumps(record, sort_keys=True) + "\n" for record in whole}
        small = [{key: value for key, value in record.items() if key != "final_vars"} for record in whole]
        assert records == small and sorted(seen, key=lambda record: record["seed"]) == small
        assert max(len(seeds) for seeds in calls) == (1 if jobs == 1 else 3)  # 24 games: tasks of 3 first


def test_tasks_shrink_towards_the_end_and_cover_every_seed_once():
    from interpreter.runs_pool import _MAX_CHUNK, _chunks

    for games in (1, 7, 60, 300, 1000):
        chunks = _chunks(list(range(games)), 2)
        assert [seed for chunk in chunks for seed in chunk] == list(range(games))
        sizes = [len(chunk) for chunk in chunks]
        assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 1 and max(sizes) <= _MAX_CHUNK
    assert len(_chunks(list(range(1000)), 2)) < 1000 // 4  # fewer tasks than the old 4 games each
    assert len(_chunks(list(range(300)), 2)) < 50  # each task costs CPU: 43 now, 118 at 1/32 of what is left


def test_the_code_a_forked_worker_plays_is_compiled_before_the_fork():
    from types import FunctionType

    from interpreter.expr.compiler import _stub_code, compile_waiting

    rs = interpreter.load("davos")
    compile_waiting(rs.unit.ns)
    stubs = [name for name, value in rs.unit.ns.items()
             if type(value) is FunctionType and value.__code__ is _stub_code()]
    # only the checked twins wait (called on a lookup error only: a worker compiles one if it meets one)
    assert stubs and all(name.endswith("_safe") for name in stubs) and compile_waiting(rs.unit.ns) == 0
    assert simulate(rs, None, 4, 2, 0, ["random"], jobs=1)[0][0]["steps"] > 0


def test_a_game_that_kills_its_worker_is_lost_and_the_others_complete():
    done = run_script(cli_script("simulate", "tictactoe", "--games", "30", "--jobs", "2",
                                 "--agents", "killer", "--json"))
    summary = json.loads(done.stdout)
    assert done.returncode == 1, done.stderr
    assert summary["lost_seeds"] == [runs_agents.BAD_SEED] and summary["lost"] == 1
    assert summary["completed"] == 29 and summary["errors"] == 0 and summary["games"] == 30
    # a death is one known worker's: once in its task, once as a task of its own, once alone
    assert summary["worker_deaths"] == 3


def test_a_worker_that_dies_holding_no_task_is_replaced_without_counting_toward_the_limit():
    from interpreter.runs_pool import _Pool

    pool = _Pool(interpreter.load("tictactoe"), 2, None)
    try:
        pool.start(2)
        victim = pool.workers[0]
        os.kill(victim.process.pid, signal.SIGKILL)  # idle: it was given no task
        held = pool.collect(lambda text, records: None)
        assert [list(tasks) for tasks in held] == [[]] and victim not in pool.workers
        assert (pool.deaths, pool.idle_deaths) == (0, 1)
        pool.start(2)
        assert len(pool.workers) == 2 and all(worker.process.is_alive() for worker in pool.workers)
    finally:
        pool.close(stop=True)


def test_idle_workers_dying_around_a_game_that_kills_its_worker_change_nothing_but_their_count():
    # every worker that holds no task is killed before the parent waits: only the three deaths
    # of the killer's game count toward the limit, and the run ends as it does without them
    done = run_script("import os, signal, interpreter.runs_pool as runs_pool\n"
                      "collect = runs_pool._Pool.collect\n"
                      "def killing_idle(pool, finished):\n"
                      "    for worker in pool.workers:\n"
                      "        if not worker.held:\n"
                      "            os.kill(worker.process.pid, signal.SIGKILL)\n"
                      "            worker.process.join()\n"
                      "    return collect(pool, finished)\n"
                      "runs_pool._Pool.collect = killing_idle\n"
                      + cli_script("simulate", "tictactoe", "--games", "10", "--jobs", "4",
                                   "--agents", "killer", "--json"))
    summary = json.loads(done.stdout)
    assert done.returncode == 1, done.stderr
    assert summary["lost_seeds"] == [runs_agents.BAD_SEED] and summary["completed"] == 9
    assert summary["idle_worker_deaths"] >= 2  # the workers started beside the game played again
    assert summary["worker_deaths"] - summary["idle_worker_deaths"] == 3


def test_the_lost_game_is_among_the_results(tmp_path):
    done = run_script("import json, interpreter; from interpreter.runs import simulate\n"
                      "results, _ = simulate(interpreter.load('tictactoe'), None, 2, 10, 0, ['killer'], jobs=2)\n"
                      "print(json.dumps(results))")
    results = json.loads(done.stdout)
    assert [r["seed"] for r in results] == list(range(10))
    assert [r["error"] for r in results if r["error"]] == [LOST]
    assert [r["seed"] for r in results if r.get("lost")] == [runs_agents.BAD_SEED]


def test_the_parent_waits_for_its_workers_in_its_own_thread():
    """No thread of a pool's own in the parent (each wake-up of one is CPU the run pays for):
    the results come in through the workers' pipes, read where the run waits."""
    import threading

    counts = []
    rs = interpreter.load("tictactoe")
    records, _ = simulate(rs, None, 2, 40, 0, ["random"], jobs=2,
                          on_result=lambda record: counts.append(threading.active_count()))
    assert [record["seed"] for record in records] == list(range(40))
    assert counts == [1] * 40


def test_workers_that_always_die_end_the_run_with_every_game_lost():
    done = run_script("import os, interpreter.runs_pool as runs_pool\n"
                      "runs_pool._init_worker = lambda expected: os._exit(1)  # every worker dies as it starts\n"
                      + cli_script("simulate", "tictactoe", "--games", "6", "--jobs", "2", "--json"))
    summary = json.loads(done.stdout)
    assert done.returncode == 1 and summary["lost"] == 6 and summary["completed"] == 0
    assert sorted(summary["lost_seeds"]) == list(range(6)) and summary["worker_deaths"] > 6


def _children(pid: int) -> list:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(x) for x in fh.read().split()]
    except OSError:
        return []


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs /proc to find the workers")
def test_a_worker_killed_from_outside_is_replaced_and_its_games_played_again(tmp_path):
    per_game = tmp_path / "games.jsonl"
    argv = ["simulate", "tictactoe", "--games", "30", "--jobs", "2", "--agents", "slow", "--json",
            "--per-game", str(per_game)]
    proc = subprocess.Popen([sys.executable, "-c",
                             f"import sys; sys.path[:0] = [{ROOT!r}, {HERE!r}]; import runs_agents; "
                             f"runs_agents.register(); " + cli_script(*argv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        deadline = time.monotonic() + TIMEOUT
        victim = None
        while victim is None and time.monotonic() < deadline and proc.poll() is None:
            written = per_game.exists() and len(per_game.read_text().splitlines())
            workers = [c for c in _children(proc.pid) if os.path.exists(f"/proc/{c}")]
            if written and len(workers) >= 2:
                victim = workers[0]
            time.sleep(0.01)
        assert victim is not None, "no worker to kill (the run ended first)"
        os.kill(victim, signal.SIGKILL)
        stdout, stderr = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    summary = json.loads(stdout)
    assert proc.returncode == 0, stderr
    assert summary["worker_deaths"] == 1 and summary["completed"] == 30 and summary["lost"] == 0
    reference = tmp_path / "reference.jsonl"
    assert cli(*argv[:-1], str(reference))[0] == 0
    assert per_game.read_text() == reference.read_text(), "the games played again are the same games"


def test_an_interrupted_run_keeps_the_games_that_finished(tmp_path):
    per_game = tmp_path / "games.jsonl"
    code, _, err = cli("simulate", "tictactoe", "--games", "20", "--agents", "interrupter",
                       "--per-game", str(per_game))
    assert code == 130 and "interrupted" in err
    seeds = [json.loads(line)["seed"] for line in per_game.read_text().splitlines()]
    assert seeds == list(range(runs_agents.BAD_SEED))


def test_ctrl_c_during_a_run_over_processes_keeps_what_finished(tmp_path):
    per_game = tmp_path / "games.jsonl"
    argv = ["simulate", "tictactoe", "--games", "4000", "--jobs", "2", "--agents", "slow", "--per-game", str(per_game)]
    # Ctrl-C as at a terminal: a process started in the background (nohup, CI) inherits SIGINT
    # ignored, and Python then keeps ignoring it; the run itself is what this test is about
    proc = subprocess.Popen([sys.executable, "-c",
                             f"import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                             f"sys.path[:0] = [{ROOT!r}, {HERE!r}]; import runs_agents; "
                             f"runs_agents.register(); " + cli_script(*argv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline and not (per_game.exists() and per_game.read_text().count("\n") >= 3):
            time.sleep(0.01)
        seen = per_game.read_text().count("\n")
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the parent and its workers
        _, stderr = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130 and "interrupted" in stderr and "Traceback" not in stderr, stderr
    seeds = [json.loads(line)["seed"] for line in per_game.read_text().splitlines()]
    assert seen <= len(seeds) < 4000 and len(set(seeds)) == len(seeds)


def test_the_rules_digest_is_in_the_summary_and_every_game(tmp_path):
    per_game = tmp_path / "games.jsonl"
    code, out, _ = cli("simulate", "tictactoe", "--games", "3", "--json", "--per-game", str(per_game))
    digest = interpreter.load("tictactoe").digest
    assert code == 0 and json.loads(out)["digest"] == digest and len(digest) == 16
    assert [json.loads(line)["digest"] for line in per_game.read_text().splitlines()] == [digest] * 3


def test_jobs_auto_is_one_per_cpu():
    code, out, _ = cli("simulate", "tictactoe", "--games", "4", "--jobs", "auto", "--json")
    assert code == 0 and json.loads(out)["jobs"] == (os.cpu_count() or 1)
    code, _, err = cli("simulate", "tictactoe", "--jobs", "many")
    assert code == 2 and "'auto'" in err


def _edited_copy(tmp_path):
    folder = tmp_path / "ttt"
    shutil.copytree(os.path.join(ROOT, "rulesets", "tictactoe"), folder)
    return folder


def _edit(folder):
    path = folder / "game.yaml"
    path.write_text(path.read_text().replace('marks: ["X", "O"]', 'marks: ["A", "B"]'))


def test_a_rule_file_edited_after_the_load_does_not_reach_the_workers(tmp_path):
    folder = _edited_copy(tmp_path)
    rs = interpreter.load(str(folder))
    before, _ = simulate(rs, None, 2, 12, 0, ["random"], jobs=1)
    _edit(folder)
    after, _ = simulate(rs, None, 2, 12, 0, ["random"], jobs=2)
    assert after == before and all(r["digest"] == rs.digest for r in after)
    assert all(set(r["final_vars"]["board"]) <= {"", "X", "O"} for r in after)
    assert interpreter.load(str(folder)).digest != rs.digest  # the edit is real


def test_a_worker_that_loads_the_rules_itself_refuses_edited_rules(tmp_path):
    """Where workers cannot be forked they load the rules; a digest that differs stops the run."""
    folder = _edited_copy(tmp_path)
    rs = interpreter.load(str(folder))
    same, _ = simulate(rs, None, 2, 4, 0, ["random"], jobs=2, start_method="spawn")
    assert same == simulate(rs, None, 2, 4, 0, ["random"], jobs=1)[0]
    _edit(folder)
    with pytest.raises(RulesChanged, match="changed since the run started"):
        simulate(rs, None, 2, 4, 0, ["random"], jobs=2, start_method="spawn")


def test_the_pool_thaws_what_it_froze_for_the_fork():
    """Before forking, the pool freezes the parent's objects (gc.freeze: the workers' cycle
    collectors then leave the shared pages alone); after the run the parent is as before."""
    import gc

    rs = interpreter.load("tictactoe")
    assert gc.get_freeze_count() == 0
    records, _ = simulate(rs, None, 2, 6, 0, ["random"], jobs=2)
    assert [record["seed"] for record in records] == list(range(6))
    assert gc.get_freeze_count() == 0


def test_per_game_file_sorts_by_the_seeds_written(tmp_path):
    """The lines are put in seed order by the seeds remembered when writing; a file written in
    that order already is left as it is (not rewritten)."""
    from interpreter.runs import PerGameFile

    shuffled = tmp_path / "shuffled.jsonl"
    per_game = PerGameFile(str(shuffled))
    for seed in (12, 10, 13, 11):
        per_game.write({"seed": seed, "note": "line\nbreak"})
    per_game.finish()
    assert [json.loads(line)["seed"] for line in shuffled.read_text().splitlines()] == [10, 11, 12, 13]
    ordered = tmp_path / "ordered.jsonl"
    per_game = PerGameFile(str(ordered))
    for seed in (1, 2, 3):
        per_game.write({"seed": seed})
    written = ordered.stat()
    per_game.finish()
    assert ordered.stat().st_ino == written.st_ino
    assert [json.loads(line)["seed"] for line in ordered.read_text().splitlines()] == [1, 2, 3]


def test_a_per_game_file_changed_during_the_run_is_a_file_error_not_a_traceback(tmp_path, capsys, monkeypatch):
    """A line written to the per-game file by something else makes its count disagree with the
    games: finish leaves the file as it is and says so as a file error, which the CLI reports
    with the path (exit code 1)."""
    from interpreter.cli import run
    from interpreter.runs import PerGameFile

    path = tmp_path / "games.jsonl"
    per_game = PerGameFile(str(path))
    for seed in (2, 1):
        per_game.write({"seed": seed})
    with open(path, "a", encoding="utf-8") as other:
        other.write('{"seed": 9}\n')
    with pytest.raises(OSError) as raised:
        per_game.finish()
    assert raised.value.filename == str(path) and "3 lines for the 2 games" in raised.value.strerror
    assert [json.loads(line)["seed"] for line in path.read_text().splitlines()] == [2, 1, 9]

    def failing_finish(self):
        raise OSError(0, "the per-game file has 3 lines for the 2 games written", self.path)

    monkeypatch.setattr(PerGameFile, "finish", failing_finish)
    code = run(["simulate", "tictactoe", "--games", "2", "--per-game", str(tmp_path / "run.jsonl")])
    captured = capsys.readouterr()
    assert code == 1 and "Traceback" not in captured.err
    assert "3 lines for the 2 games written" in captured.err and "run.jsonl" in captured.err
