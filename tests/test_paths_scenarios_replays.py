"""Scenario files and replays go through the loader's one path check (issue 16.4, 16.10): a
scenario file that is a symlink out of the ruleset folder is refused, not read, and a replay
that is a pipe or a device is refused without blocking."""
import os
import shutil

from interpreter.cli import run
from interpreter.compose import bundled_rulesets
from interpreter.scenario import run_scenarios


def test_a_scenario_symlinked_out_of_the_folder_is_refused_not_read(tmp_path):
    folder = tmp_path / "kuhn-poker"
    shutil.copytree(bundled_rulesets()["kuhn-poker"], folder)
    secret = tmp_path / "outside.yaml"
    secret.write_text("- name: SECRET-LINE-OUTSIDE\n  steps: []\n")
    os.symlink(secret, folder / "examples" / "zz_link.yaml")
    results = run_scenarios(str(folder))
    linked = [r for r in results if "zz_link" in r.file]
    assert linked and not linked[0].ok
    text = " ".join(linked[0].messages)
    assert "leaves the ruleset folder" in text and "SECRET-LINE-OUTSIDE" not in text
    assert all(r.ok for r in results if "zz_link" not in r.file)


def test_a_replay_that_is_a_pipe_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "replay.json"
    os.mkfifo(fifo)
    import io
    out, err = io.StringIO(), io.StringIO()
    code = run(["replay", str(fifo)], stdout=out, stderr=err)
    assert code == 1
    assert "not a regular file" in err.getvalue()
