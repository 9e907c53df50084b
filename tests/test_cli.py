"""The command line, in process, on the tic-tac-toe ruleset."""
import io
import json
import os

from interpreter.cli import run


def cli(*argv, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err, io.StringIO(stdin))
    return code, out.getvalue(), err.getvalue()


def test_validate_ok():
    code, out, err = cli("validate", "tictactoe")
    assert code == 0, err
    assert "valid" in out


def test_validate_unknown_ruleset_suggests():
    code, out, err = cli("validate", "tictactoo")
    assert code == 1
    assert "did you mean 'tictactoe'?" in err


def test_validate_several_rulesets_in_one_command():
    code, out, err = cli("validate", "tictactoe", "kuhn-poker")
    assert code == 0, err
    assert out.splitlines() == [
        "tictactoe [base]: valid (1 phases, 1 actions, 0 components, players 2)",
        "kuhn-poker [base]: valid (3 phases, 4 actions, 3 components, players 2)",
    ]
    code, out, err = cli("validate", "tictactoe", "tictactoo")
    assert code == 1 and "tictactoe [base]: valid" in out and "did you mean 'tictactoe'?" in err
    code, out, _ = cli("validate", "tictactoe", "kuhn-poker", "--format", "json")
    reports = json.loads(out)
    assert [r["ruleset"] for r in reports] == ["tictactoe", "kuhn-poker"] and all(r["valid"] for r in reports)


def test_the_command_ends_with_its_exit_code_and_flushed_output(tmp_path):
    """main() ends the process without Python's teardown: the exit code and every line of
    output still arrive."""
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    ok = subprocess.run([sys.executable, "-m", "interpreter", "validate", "tictactoe", "kuhn-poker"],
                        capture_output=True, text=True, env=env)
    assert ok.returncode == 0 and len(ok.stdout.splitlines()) == 2
    bad = subprocess.run([sys.executable, "-m", "interpreter", "validate", "tictactoo"], capture_output=True,
                         text=True, env=env)
    assert bad.returncode == 1 and "did you mean" in bad.stderr


def test_usage_error_is_2():
    assert cli("simulate")[0] == 2
    assert cli("frobnicate")[0] == 2


def test_simulate_json_has_contract_keys(tmp_path):
    per_game = tmp_path / "games.jsonl"
    code, out, err = cli("simulate", "tictactoe", "--games", "30", "--seed", "5", "--json",
                         "--per-game", str(per_game))
    assert code == 0, err
    summary = json.loads(out)
    for key in ("games", "completed", "errors", "wins_by_seat", "draws", "mean_steps", "seconds"):
        assert key in summary
    assert summary["games"] == 30 and summary["completed"] == 30 and summary["errors"] == 0
    assert sum(summary["wins_by_seat"].values()) + summary["draws"] == 30
    lines = [json.loads(l) for l in per_game.read_text().splitlines()]
    assert len(lines) == 30
    for key in ("seed", "winners", "scores", "steps", "final_vars"):
        assert key in lines[0]
    assert lines[0]["final_vars"]["board"].count("") <= 4  # a finished board


def test_simulate_jobs_give_identical_results(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert cli("simulate", "tictactoe", "--games", "40", "--per-game", str(a), "--json")[0] == 0
    assert cli("simulate", "tictactoe", "--games", "40", "--per-game", str(b), "--json", "--jobs", "2")[0] == 0
    assert a.read_text() == b.read_text()


def test_simulate_default_players_is_smallest():
    """Davos is played by 2 to 5 players, or by 4, 6 or 8 with the teams module: the default is
    the smallest count the chosen modules allow."""
    code, out, err = cli("simulate", "davos", "--games", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["players"] == 2
    code, out, err = cli("simulate", "davos", "-m", "teams", "--games", "1", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["players"] == 4 and set(summary["wins_by_seat"]) == {"0", "1", "2", "3"}


def test_simulate_rejects_bad_player_count():
    code, _, err = cli("simulate", "tictactoe", "--players", "5", "--games", "2")
    assert code == 2 and "2 players" in err


def test_perft_depth_2():
    code, out, _ = cli("perft", "tictactoe", "--depth", "2")
    assert code == 0 and ": 72 leaves" in out


def test_graph_formats():
    code, out, _ = cli("graph", "tictactoe", "--format", "mermaid")
    assert code == 0 and out.startswith("flowchart TD") and "play --> END" in out
    code, out, _ = cli("graph", "tictactoe", "--format", "dot")
    assert code == 0 and out.startswith("digraph")


def test_schema_is_draft_2020_12():
    code, out, _ = cli("schema")
    assert json.loads(out)["$schema"].endswith("2020-12/schema")


def test_play_human_against_random_and_replay(tmp_path):
    save = tmp_path / "g.replay.json"
    moves = "\n".join(["0"] * 9) + "\n"
    code, out, err = cli("play", "tictactoe", "--agents", "human,random", "--seed", "3", "--save", str(save),
                         stdin=moves)
    assert code == 0, err
    assert "game over" in out and save.exists()
    data = json.loads(save.read_text())
    assert data["actions"] and data["players"] == 2
    code, out, err = cli("replay", str(save))
    assert code == 0, err
    assert "state hash" in out


def test_play_bad_input_is_asked_again(tmp_path):
    code, out, _ = cli("play", "tictactoe", "--agents", "human,random", "--save", str(tmp_path / "x.json"),
                       stdin="99\nfoo\nq\n")
    assert code == 0
    assert "type a number" in out and "saved the game so far" in out


def test_check_prints_contract_line(tmp_path):
    code, out, _ = cli("check", "tictactoe")
    assert code == 0 and out.strip().splitlines()[-1] == "3 passed, 0 failed"
    # the same scenarios with one expectation made wrong: counted as failed, exit code 1
    import shutil
    from pathlib import Path

    folder = tmp_path / "ttt"
    shutil.copytree(Path(__file__).parent.parent / "rulesets" / "tictactoe", folder)
    examples = folder / "examples" / "lines.yaml"
    examples.write_text(examples.read_text().replace('expect: ["winner == none"', 'expect: ["winner == 1"'))
    code, out, _ = cli("check", str(folder))
    lines = out.strip().splitlines()
    assert code == 1 and lines[-1] == "2 passed, 1 failed"
    assert any(line.startswith("FAIL") and "a full board without a line is a draw" in line for line in lines)


def test_graph_svg_is_well_formed_xml():
    import xml.etree.ElementTree as ET

    code, out, _ = cli("graph", "tictactoe", "--format", "svg")
    assert code == 0
    root = ET.fromstring(out)
    assert root.tag.endswith("svg")
    assert any("play" in (t.text or "") for t in root.iter("{http://www.w3.org/2000/svg}text"))


def test_the_phase_graph_checks_name_every_broken_phase():
    """checks.py walks the phase graph without networkx (issue 15: its import was a fifth of a
    `simulate` start-up); the diagnostics are the ones it gave with networkx."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "failing_rulesets", "phase_graph")
    code, out, err = cli("validate", folder)
    text = out + err
    assert code != 0
    for expected in ("error[unreachable]: phase 'island' can never be reached from 'play'",
                     "error[no-end]: phase 'loop_a' can never reach the end of the game",
                     "error[no-end]: phase 'loop_b' can never reach the end of the game",
                     "error[no-end]: phase 'play' can never reach the end of the game",
                     "error[no-default]: phase 'play' branches but its last exit has a condition",
                     "error[dead-end]: phase 'stuck' has no 'next'"):
        assert expected in text, text
    assert text.count("error[") == 6


def test_loading_for_play_leaves_the_cycle_collector_as_it_found_it():
    """The command line pauses the collector while the rules load and then moves what was made
    to its oldest generation (freeze, unfreeze): nothing stays frozen, and an embedder's own
    frozen objects stay frozen."""
    import gc

    before = gc.get_freeze_count()  # (0 unless an earlier test left objects frozen)
    code, _, _ = cli("simulate", "tictactoe", "--games", "1", "--json")
    assert code == 0 and gc.isenabled() and gc.get_freeze_count() <= before  # nothing newly frozen
    marker = [[]]  # an object the collector tracks, frozen by the embedder below
    gc.freeze()
    try:
        code, _, _ = cli("simulate", "tictactoe", "--games", "1", "--json")
        tracked = {id(item) for generation in range(3) for item in gc.get_objects(generation)}
        assert code == 0 and gc.isenabled() and id(marker) not in tracked
    finally:
        gc.unfreeze()
    assert id(marker) in {id(item) for generation in range(3) for item in gc.get_objects(generation)}
