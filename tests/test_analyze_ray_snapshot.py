"""The rules a Ray run ships to its workers: only the files the ruleset loaded, each read as the
loader reads (never a FIFO, a device or a symlink out of the folder), and a worker's copy
loads to the same digest (tested in-process; the Ray run itself is in test_analyze.py)."""
import os
import shutil

import pytest

import interpreter
from interpreter.analyze.raybackend import _materialize, snapshot_rules
from interpreter.errors import RulebookError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def copy_of(tmp_path, name):
    folder = tmp_path / name
    shutil.copytree(os.path.join(ROOT, "rulesets", name), folder)
    return folder


def test_snapshot_is_the_loaded_files_and_skips_fifos_and_outside_links(tmp_path):
    folder = copy_of(tmp_path, "tictactoe")
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n")
    os.symlink(secret, folder / "outside.yaml")
    os.mkfifo(folder / "pipe.yaml")  # opening it for reading would block
    rs = interpreter.load(str(folder))
    files = snapshot_rules(rs)
    assert set(files) == {os.path.relpath(os.path.abspath(f), folder) for f in rs.files} == {"game.yaml"}
    assert files["game.yaml"] == (folder / "game.yaml").read_bytes()


def test_a_loaded_file_replaced_by_a_link_out_or_a_fifo_is_refused_unread(tmp_path):
    folder = copy_of(tmp_path, "tictactoe")
    rs = interpreter.load(str(folder))
    outside = tmp_path / "elsewhere.yaml"
    outside.write_bytes((folder / "game.yaml").read_bytes())
    os.remove(folder / "game.yaml")
    os.symlink(outside, folder / "game.yaml")
    with pytest.raises(RulebookError, match="leaves the ruleset folder"):
        snapshot_rules(rs)
    os.remove(folder / "game.yaml")
    os.mkfifo(folder / "game.yaml")
    with pytest.raises(RulebookError, match="not a regular file"):
        snapshot_rules(rs)


def test_a_worker_copy_with_modules_loads_to_the_same_digest():
    rs = interpreter.load("davos", modules=["short"])
    files = snapshot_rules(rs)
    assert "modules/short.yaml" in files and all(not name.startswith("/") for name in files)
    copy = _materialize(files, rs.digest, ["short"], {}, "davos")
    assert copy.digest == rs.digest and copy.folder != rs.folder


def test_a_worker_copy_of_a_variant_checks_the_variant_digest():
    from interpreter.analyze.variants import apply_overrides

    rs = interpreter.load("davos")
    variant = apply_overrides(rs, {"years": 2, "start_seat": 1})
    copy = _materialize(snapshot_rules(rs), variant.digest, [], {"years": 2, "start_seat": 1}, "davos")
    assert copy.digest == variant.digest != rs.digest and copy.settings["years"] == 2
    with pytest.raises(RuntimeError, match="digest"):
        _materialize(snapshot_rules(rs), variant.digest, [], {"years": 3}, "davos")
