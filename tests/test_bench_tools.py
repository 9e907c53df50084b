"""Correctness of tools/bench/games.py's smallest pieces: the hand-written reference plays legal,
complete tic-tac-toe games, and the ratios and table are computed from the right numbers.
Nothing here times anything."""
import os
import random
import shutil
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools", "bench"))
import games  # noqa: E402

WINNING_LINES = games.LINES


def has_line(board):
    return any(board & line == line for line in WINNING_LINES)


@pytest.mark.parametrize("seed", range(200))
def test_reference_plays_a_legal_complete_game(seed):
    winner, crosses, noughts = games.plain_playout(random.Random(seed))
    assert crosses & noughts == 0
    assert (crosses | noughts) & ~games.FULL_BOARD == 0
    count_x, count_o = bin(crosses).count("1"), bin(noughts).count("1")
    assert count_x - count_o in (0, 1)  # X moves first, players alternate
    if winner is None:
        assert crosses | noughts == games.FULL_BOARD
        assert not has_line(crosses) and not has_line(noughts)
    elif winner == 0:
        assert has_line(crosses) and not has_line(noughts) and count_x == count_o + 1
    else:
        assert has_line(noughts) and not has_line(crosses) and count_x == count_o


def test_reference_reaches_every_outcome():
    outcomes = {games.plain_playout(random.Random(seed))[0] for seed in range(300)}
    assert outcomes == {0, 1, None}


def test_integer_board_reference_plays_legal_complete_games():
    """Issue 15's reference: each move draws once among the cells still empty (9, 8, 7, ...),
    nobody wins before the fifth mark, and X wins, O wins and draws all occur."""
    outcomes = set()
    for seed in range(300):
        moves = []
        rng = random.Random(seed)
        original = rng.randrange
        rng.randrange = lambda count: moves.append(count) or original(count)
        outcomes.add(games.integer_board_playout(rng))
        assert moves == list(range(9, 9 - len(moves), -1))  # one draw per move, from the empty cells
        assert len(moves) >= 5  # nobody wins before X's third mark
    assert outcomes == {0, 1, None}


def test_integer_board_lines_are_the_bitboard_lines():
    assert sorted(sum(1 << cell for cell in line) for line in games.LINE_CELLS) == sorted(games.LINES)


def test_summarize_uses_per_round_ratios_and_total_rates():
    bursts = [{"reference": (100, 1.0), "x": (10, 1.0)},
              {"reference": (50, 1.0), "x": (10, 2.0)},   # ratio 5/50 = 0.1
              {"reference": (200, 2.0), "x": (30, 1.0)}]  # ratio 30/100 = 0.3
    result = games.summarize(bursts, "reference")
    assert result["x"]["rate"] == pytest.approx(50 / 4.0)
    assert result["reference"]["rate"] == pytest.approx(350 / 4.0)
    assert result["x"]["ratio"] == pytest.approx(0.1)  # median of 0.1, 0.1, 0.3
    assert result["reference"]["ratio"] == pytest.approx(1.0)
    strict = games.summarize(bursts, "reference", strict_reference="x")
    assert strict["reference"]["strict_ratio"] == pytest.approx(10.0)  # median of 10, 5, 100/30
    assert strict["x"]["ratio"] == pytest.approx(0.1)


def test_a_burst_calls_at_least_once():
    calls = []
    assert games.run_burst(lambda: calls.append(1), 0.0)[0] == 1 == len(calls)


def fake_results(scale, jobs_speedup, memory):
    return {"peers": {"reference": {"rate": 1000.0, "ratio": 1.0},
                      "bitboard": {"rate": 2500.0, "ratio": 2.5},
                      "tictactoe": {"rate": 250.0, "ratio": 0.25, "strict_ratio": 0.1},
                      "openspiel_tictactoe": {"rate": 100.0, "ratio": 0.1},
                      "kuhn": {"rate": 100.0, "ratio": 0.1}, "openspiel_kuhn": {"rate": 200.0, "ratio": 0.2}},
            "games": {name: {"rate": 1.0, "ratio": 0.001 * scale} for name, _ in games.REAL_GAMES},
            "mcts": {"mcts": {"rate": 200.0, "ratio": 0.002 * scale}},
            "jobs": {"speedup": 1.0, "cpu_speedup": jobs_speedup, "load": 3.0, "identical": True, "failures": 0},
            "memory": {"peak_rss_mb": memory, "exit_code": 0, "games": 10}}


def test_table_compares_ratios_and_marks_targets():
    lines = games.table(fake_results(1, 1.1, 100.0), fake_results(2, 1.9, 99.0), "abc")
    by_label = {line.split("|")[0].strip(): [cell.strip() for cell in line.split("|")] for line in lines[2:]}
    assert by_label["tic-tac-toe API / hand-written (int board)"][1:] == ["0.25", "0.25", "1", "must >=0.2: met"]
    assert by_label["stricter: API / bitboard version"][1:] == ["0.1", "0.1", "1", ""]
    assert by_label["tic-tac-toe ours / OpenSpiel py"][2] == "2.5"
    assert by_label["tic-tac-toe ours / OpenSpiel py"][4] == "must >1: met"
    assert by_label["Kuhn poker ours / OpenSpiel py"][4] == "must >1: NOT MET"
    assert by_label["davos 4p games/s / hand-written"][3] == "2"
    assert by_label["davos 4p games/s / hand-written"][4] == "must >=1.5x baseline: met"
    # a short run is shown without a target: its start-up does not split (docs/performance.md)
    assert by_label["simulate --jobs 2 / --jobs 1 (davos, CPU time)"][4] == "a short run: start-up-bound, no target"
    assert by_label["wall clock on shared cores (load avg below)"][4] == ""  # no target on the wall clock
    assert by_label["peak RSS MB, davos simulate 10 games"][4] == "must not exceed baseline: met"
    study = fake_results(2, 1.9, 99.0)
    study["jobs_study"] = dict(study["jobs"], cpu_speedup=1.7, games=1000)
    lines = games.table(dict(fake_results(1, 1.1, 100.0), jobs_study={"cpu_speedup": 1.5, "games": 1000}), study, "abc")
    assert any("(davos, CPU time, 1000 games)" in line and "must >=1.8: NOT MET" in line for line in lines)
    study["jobs_mcts"] = dict(study["jobs"], cpu_speedup=1.9, games=12, agents="--agents mcts:40:10 --rotate")
    lines = games.table(fake_results(1, 1.1, 100.0), study, "abc")
    mcts_row = next(line for line in lines if "(davos, CPU time, 12 MCTS games)" in line)
    assert [cell.strip() for cell in mcts_row.split("|")][1:] == ["-", "1.9", "-", "must >=1.8: met"]  # no baseline row
    study_row = next(line for line in lines if "(davos, CPU time, 1000 games)" in line)
    assert [cell.strip() for cell in study_row.split("|")][1] == "-"  # not the next metric's value
    assert not any("(davos, CPU time)" in line and "must" in line for line in lines)
    worse = games.table(fake_results(2, 1.0, 90.0), fake_results(2.5, 1.0, 91.0), "abc")
    assert any("davos 4p" in line and "NOT MET" in line for line in worse)
    assert any("peak RSS" in line and "NOT MET" in line for line in worse)


def test_missing_openspiel_leaves_its_rows_empty():
    results = fake_results(1, 1.0, 1.0)
    del results["peers"]["openspiel_kuhn"]
    rows = {label: value for label, value, _ in games.metrics(results)}
    assert rows["Kuhn poker ours / OpenSpiel py"] is None


def test_the_target_rows_time_the_compiled_engine_and_the_reference_has_rows_of_its_own():
    import interpreter

    assert games.fastest_engine(interpreter) == ("compiled", "reference")
    state = games.api_playout(interpreter.load("tictactoe"), random.Random(1), 3, "compiled")
    assert type(state).__name__ == "CompiledState" and state.is_terminal
    results = fake_results(1, 1.0, 1.0)
    results["peers"].update({"tictactoe_reference": {"ratio": 0.05}, "kuhn_reference": {"ratio": 0.05}})
    rows = {label.strip(): value for label, value, _ in games.metrics(results)}
    assert rows["tic-tac-toe API / hand-written (int board)"] == 0.25
    assert rows["reference engine: tic-tac-toe API / int board"] == 0.05
    assert rows["reference engine: tic-tac-toe / OpenSpiel py"] == pytest.approx(0.5)
    assert rows["reference engine: Kuhn poker / OpenSpiel py"] == pytest.approx(0.25)


def test_the_compiled_bench_times_another_checkout_beside_this_one():
    """tools/bench/compiled.py --against TREE: that tree's package is imported under another name
    (its modules apart from this tree's), and each compiled playout gets a this-tree/that-tree row."""
    import compiled

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    other = compiled.import_tree(root)
    assert other.__name__ == "interpreter_against" and other.load is not sys.modules["interpreter"].load
    found = compiled.functions(random.Random(1), other)
    assert {f"{name}@against" for name in compiled.COMPILED_PLAYOUTS} <= set(found)
    found["kuhn_compiled@against"]()
    assert type(other.load("kuhn-poker").new_game(2, seed=1, engine="compiled")).__module__ == \
        "interpreter_against.compiled.game"
    results = {name: {"ratio": 1.0 + index / 10} for index, name in enumerate(found)}
    rows = {label: value for label, value, _ in compiled.ratio_lines(results)}
    expected = results["kuhn_compiled"]["ratio"] / results["kuhn_compiled@against"]["ratio"]
    assert rows["kuhn_compiled: this tree / --against tree"] == pytest.approx(expected)


def test_the_compiled_bench_plays_untimed_playouts_for_instruction_counts(monkeypatch, capsys):
    """tools/bench/compiled.py --playouts N: 300 warm-up playouts and N more of the game asked
    for (the integer board by name), printing nothing, so that N games minus 0 games under
    callgrind is the instructions of N games."""
    import compiled

    played = []
    monkeypatch.setattr(compiled, "api_playout", lambda ruleset, engine, rng, seed: played.append((ruleset.name, engine)))
    monkeypatch.setattr(compiled, "integer_board_playout", lambda rng: played.append("integer board"))
    compiled.main(["--playouts", "2", "--game", "kuhn-poker"])
    assert played == [("kuhn-poker", "compiled")] * 302
    played.clear()
    compiled.main(["--playouts", "3", "--game", "integer_board"])
    assert played == ["integer board"] * 303
    assert capsys.readouterr().out == ""


def test_the_jobs_ratio_in_instructions_is_amdahls_formula():
    """instructions.speedup: the --jobs 1 count against the start-up plus half the rest of the
    --jobs 2 count (parent and workers together)."""
    import instructions

    assert instructions.speedup(10, 110, 110) == pytest.approx(110 / 60)
    assert instructions.speedup(10, 110, 130) == pytest.approx(110 / 70)  # the pool's share counts
    assert instructions.speedup(0, 100, 100) == pytest.approx(2.0)


def test_the_counted_study_is_shown_beside_the_cpu_row_which_carries_the_target():
    study = fake_results(2, 1.9, 99.0)
    study["jobs_study"] = dict(study["jobs"], cpu_speedup=1.7, games=1000)
    study["jobs_instructions"] = {"games": 1000, "start_up": 2 * 10**9, "jobs_1": 32 * 10**9,
                                  "jobs_2": 33 * 10**9, "identical": True, "instruction_speedup": 1.85}
    lines = games.table(None, study, "")
    cells = {line.split("|")[0].strip(): [cell.strip() for cell in line.split("|")] for line in lines[2:]}
    counted_row = cells["simulate --jobs 2 / --jobs 1 (davos, instructions, 1000 games)"]
    assert counted_row[2:4] == ["1.85", "-"] and "must" not in counted_row[4]
    assert cells["simulate --jobs 2 / --jobs 1 (davos, CPU time, 1000 games)"][4] == "must >=1.8: NOT MET"
    assert cells["start-up / games / pool's share, G instructions"][4] == "2.000 / 30.000 / +1.000; identical: yes"
    del study["jobs_instructions"]  # not counted (no valgrind): the same CPU row, no counted rows
    lines = games.table(None, study, "")
    assert any("(davos, CPU time, 1000 games)" in line and "must >=1.8: NOT MET" in line for line in lines)
    assert not any("instructions" in line for line in lines)


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_a_forked_child_is_counted_from_its_fork(tmp_path):
    """instructions.counted_command: callgrind's count of a forked child starts at zero where
    CPython's child starts, so a worker counts its own work, not the parent's before the fork."""
    import subprocess

    import instructions

    script = tmp_path / "fork.py"
    script.write_text("import os\nsum(range(300_000))\npid = os.fork()\nif pid == 0:\n    os._exit(0)\n"
                      "os.waitpid(pid, 0)\n")
    subprocess.run(instructions.counted_command([sys.executable, str(script)], str(tmp_path)),
                   check=True, capture_output=True)
    parent, child = sorted(instructions.totals(str(tmp_path)), reverse=True)
    assert child < parent / 20  # the child only returned from the fork and exited
