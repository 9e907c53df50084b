"""Hostile input (issue 16): a planted cache, paths that leave the ruleset folder, files that
are not regular files, save names that climb out of their directory. Each test names the
finding it pins."""
from __future__ import annotations

import io
import json
import marshal
import os
import re
import subprocess
import sys

import pytest

from interpreter.cli import run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _validate_in_fresh_process(env_extra, *names):
    env = dict(os.environ, PYTHONPATH=ROOT, **env_extra)
    env.pop("RULEBOOK_CACHE", None)
    return subprocess.run([sys.executable, "-m", "interpreter", "validate", *names],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def _payload_code(marker):
    """The code of a function that creates `marker` when called, with no builtins at hand
    (as generated functions run): what an attacker would plant in a code cache."""
    source = ("def payload(*args, **kwargs):\n"
              "    found = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close']\n"
              "    names = found[0].__init__.__globals__\n"
              f"    names['close'](names['open']({str(marker)!r}, names['O_CREAT'] | names['O_WRONLY']))\n"
              "    return 0\n")
    scratch: dict = {}
    exec(compile(source, "<payload>", "exec"), scratch)  # noqa: S102 - the test's own payload
    return scratch["payload"].__code__


def _plant_everywhere(cache_dir, marker):
    """Files under every name the removed disk cache used or could use, each holding a
    marshalled payload in the shape the cache stored (sections of code objects)."""
    os.makedirs(cache_dir, exist_ok=True)
    code = _payload_code(marker)
    blob = marshal.dumps({"engine": "x", "code": {"k": [("_e", code, False)]}, "gen": {}, "schema": {}})
    for version in ("0.1.0", "0.2.0", "1.0.0"):
        for shape in range(1, 10):
            path = os.path.join(cache_dir, f"cache-{version}-{shape}-py{sys.version_info[0]}{sys.version_info[1]}.marshal")
            if not os.path.exists(path):  # keep a poisoned real entry (see _poison)
                with open(path, "wb") as fh:
                    fh.write(blob)


def _poison(cache_dir, marker):
    """The attack of 16.1: let a run fill the cache, then swap every code object it holds
    for the payload (the cache, if any, keeps its own digests, so the swap is not noticed)."""
    code = _payload_code(marker)

    def swap(value):
        if isinstance(value, type(code)):
            return code
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(swap(v) for v in value)
        return value

    for name in os.listdir(cache_dir):
        path = os.path.join(cache_dir, name)
        with open(path, "rb") as fh:
            data = marshal.load(fh)
        with open(path, "wb") as fh:
            marshal.dump(swap(data), fh)


# 16.1 / 16.2 / 16.3: there is no disk cache; nothing in a cache directory is read or written
def test_a_planted_cache_is_never_run(tmp_path):
    marker = tmp_path / "pwned"
    cache = tmp_path / "cache"
    env = {"RULEBOOK_CACHE_DIR": str(cache)}
    _validate_in_fresh_process(env, "kuhn-poker")
    if cache.exists():
        _poison(cache, marker)
    _plant_everywhere(cache, marker)
    xdg = tmp_path / "xdg"
    _plant_everywhere(xdg / "rulebook", marker)
    before = sorted(os.listdir(cache))
    r = _validate_in_fresh_process(env, "kuhn-poker", "tictactoe")
    assert r.returncode == 0, r.stderr
    r = _validate_in_fresh_process({"XDG_CACHE_HOME": str(xdg)}, "kuhn-poker")
    assert r.returncode == 0, r.stderr
    assert not marker.exists()
    assert sorted(os.listdir(cache)) == before  # nothing written next to the planted files


def test_no_cache_directory_is_created(tmp_path):
    xdg = tmp_path / "xdg"
    cache = tmp_path / "cache"
    r = _validate_in_fresh_process({"XDG_CACHE_HOME": str(xdg), "RULEBOOK_CACHE_DIR": str(cache)}, "kuhn-poker")
    assert r.returncode == 0, r.stderr
    assert not xdg.exists() and not cache.exists()


def test_a_planted_symlink_in_the_cache_directory_is_not_written_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    cache = tmp_path / "cache"
    cache.mkdir()
    for version in ("0.1.0", "0.2.0"):
        for shape in range(1, 10):
            name = f"cache-{version}-{shape}-py{sys.version_info[0]}{sys.version_info[1]}.marshal"
            os.symlink(victim, cache / name)
            os.symlink(victim, cache / f"{name}.{os.getpid() + 1}.tmp")
    r = _validate_in_fresh_process({"RULEBOOK_CACHE_DIR": str(cache)}, "tictactoe")
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "precious"


def test_rulebook_cache_0_is_still_accepted():
    env = {"RULEBOOK_CACHE": "0"}
    r = subprocess.run([sys.executable, "-m", "interpreter", "validate", "kuhn-poker"], capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=ROOT, **env), cwd=ROOT, timeout=120)
    assert r.returncode == 0 and "kuhn-poker [base]: valid" in r.stdout


def test_the_disk_cache_module_is_gone():
    """No module keeps anything on disk between runs (marshal is still used in memory, to copy
    plain state data; nothing executed is ever marshalled or pickled, and Lark's own parser
    cache, which unpickles a file from the temporary folder, is not turned on)."""
    assert not os.path.exists(os.path.join(ROOT, "interpreter", "diskcache.py"))
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "interpreter")):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as fh:
                    text = fh.read()
                for word in ("import pickle", "pickle.load", "RULEBOOK_CACHE_DIR", "XDG_CACHE_HOME",
                             "marshal.dump(", "marshal.load(", "cache=True,", "cache=True)"):
                    assert word not in text, (name, word)


# ------------------------------------------------------------------ 16.4, 16.10, 16.11: files
BASE = """game: {name: g, players: [2], start: play}
vars:
  score: {per_player: true, value: 0}
actions:
  step:
    effects: ["score[player] += 1"]
phases:
  play: {kind: turns, actions: [step], rounds: 3, next: end}
"""
SECRET = "secret-line-that-must-not-be-printed: 1\n"


def _ruleset(tmp_path, extra="", files=None):
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "game.yaml").write_text(BASE + extra)
    for name, text in (files or {}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    outside = tmp_path / "outside.yaml"
    outside.write_text(SECRET)
    return folder, outside


def _refused(folder, *args, code_word):
    code, out, err = _cli("validate", str(folder), *args)
    assert code == 1, (out, err)
    assert "Traceback" not in err and "secret-line" not in err + out, err
    assert f"error[{code_word}]" in err, err
    assert re.search(r"(game|big)\.yaml:\d+:\d+: error", err), err
    return err


def test_an_include_that_is_a_symlink_out_of_the_folder_is_refused(tmp_path):
    folder, outside = _ruleset(tmp_path, "include: [more.yaml]\n")
    os.symlink(outside, folder / "more.yaml")
    err = _refused(folder, code_word="include")
    assert "leaves the ruleset folder" in err


def test_an_include_through_a_symlinked_folder_is_refused(tmp_path):
    folder, outside = _ruleset(tmp_path, "include: [sub/*.yaml]\n")
    os.symlink(tmp_path, folder / "sub")
    _refused(folder, code_word="include")


def test_a_symlink_that_stays_inside_is_fine(tmp_path):
    folder, _ = _ruleset(tmp_path, "include: [alias.yaml]\n", {"parts/real.yaml": "constants: {k: 1}\n"})
    os.symlink(folder / "parts" / "real.yaml", folder / "alias.yaml")
    code, out, err = _cli("validate", str(folder))
    assert code == 0, err


def test_an_absolute_include_is_refused(tmp_path):
    folder, _ = _ruleset(tmp_path, f"include: [{tmp_path / 'outside.yaml'}]\n")
    _refused(folder, code_word="include")


def test_an_include_that_matches_a_directory_is_an_error(tmp_path):
    folder, _ = _ruleset(tmp_path, "include: [parts]\n", {"parts/a.yaml": "constants: {k: 1}\n"})
    err = _refused(folder, code_word="include")
    assert "not a regular file" in err


def test_an_include_that_is_a_fifo_does_not_hang(tmp_path):
    folder, _ = _ruleset(tmp_path, "include: [pipe.yaml]\n")
    os.mkfifo(folder / "pipe.yaml")
    err = _refused(folder, code_word="include")
    assert "not a regular file" in err


def test_an_include_that_links_to_dev_zero_does_not_hang(tmp_path):
    folder, _ = _ruleset(tmp_path, "include: [zero.yaml]\n")
    os.symlink("/dev/zero", folder / "zero.yaml")
    _refused(folder, code_word="include")


def test_the_size_limit_is_checked_before_reading(tmp_path):
    """A 4 GB (sparse) include is refused from its size, without reading it."""
    folder, _ = _ruleset(tmp_path, "include: [big.yaml]\n")
    with open(folder / "big.yaml", "wb") as fh:
        fh.truncate(4 * 1024 ** 3)
    err = _refused(folder, code_word="file-too-large")
    assert "the limit is 2000000" in err


def test_a_module_file_that_is_absolute_is_refused(tmp_path):
    folder, _ = _ruleset(tmp_path, f"modules:\n  m: {{file: {tmp_path / 'outside.yaml'}}}\n")
    _refused(folder, "--module", "m", code_word="module")


def test_a_module_file_that_is_a_symlink_out_is_refused(tmp_path):
    folder, outside = _ruleset(tmp_path, "modules:\n  m: {file: mod.yaml}\n")
    os.symlink(outside, folder / "mod.yaml")
    err = _refused(folder, "--module", "m", code_word="module")
    assert "leaves the ruleset folder" in err


def test_a_module_file_that_is_a_directory_is_refused(tmp_path):
    folder, _ = _ruleset(tmp_path, "modules:\n  m: {file: mods}\n", {"mods/x.yaml": "constants: {k: 1}\n"})
    _refused(folder, "--module", "m", code_word="module")


@pytest.mark.parametrize("decl", ["{file: 5}", "hello", "{files: 5}", "{files: [5]}", "{file: [a.yaml]}"])
def test_a_module_declaration_of_the_wrong_type_is_an_error_not_a_traceback(tmp_path, decl):
    folder, _ = _ruleset(tmp_path, f"modules:\n  m: {decl}\n")
    code, out, err = _cli("validate", str(folder), "--module", "m")
    assert code == 1, (out, err)
    assert "Traceback" not in err and re.search(r"game\.yaml:\d+:\d+: error", err), err
    code, out, err = _cli("validate", str(folder), "--all-combinations")
    assert code in (0, 1) and "Traceback" not in err


def test_a_missing_include_in_a_folder_with_symlink_loops_does_not_hang(tmp_path):
    folder, _ = _ruleset(tmp_path, "include: [phase.yaml]\n", {"phases.yaml": "constants: {k: 1}\n"})
    for i in range(4):
        (folder / f"d{i}").mkdir()
        for j in range(4):
            os.symlink(folder, folder / f"d{i}" / f"loop{j}")
    err = _refused(folder, code_word="include")
    assert "did you mean 'phases.yaml'" in err


def test_safe_path_keeps_inside(tmp_path):
    from interpreter.errors import RulebookError
    from interpreter.loader import safe_path

    folder, outside = _ruleset(tmp_path, "", {"examples/a.yaml": "x: 1\n"})
    assert safe_path(str(folder), "examples/a.yaml", "scenario file") == os.path.realpath(folder / "examples" / "a.yaml")
    for bad in ("../outside.yaml", str(outside), "examples", "missing.yaml", "examples/../../outside.yaml"):
        with pytest.raises(RulebookError):
            safe_path(str(folder), bad, "scenario file")


# ------------------------------------------------------------------ 16.5: save paths
@pytest.mark.parametrize("name", ["../../x/pwn", "/tmp/abs", "..", "a/b\\c:d", "\x00evil", " "])
def test_the_default_save_path_stays_in_the_working_directory(tmp_path, monkeypatch, name):
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "game.yaml").write_text(BASE.replace("name: g", f"name: {json.dumps(name)}"))
    work = tmp_path / "a" / "b" / "work"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    out, err = io.StringIO(), io.StringIO()
    code = run(["play", str(folder), "--agents", "human,random"], out, err, io.StringIO("q\n"))
    assert code == 0, err.getvalue()
    written = [p for p in tmp_path.rglob("*.replay.json")]
    assert len(written) == 1 and written[0].parent == work, written
    assert re.fullmatch(r"[A-Za-z0-9_.-]+-0\.replay\.json", written[0].name) and not written[0].name.startswith(".")


# ------------------------------------------------------------------ 16.12: the node limit's message
def test_a_long_plain_list_is_not_called_a_billion_laughs(tmp_path):
    from interpreter.errors import RulebookError
    from interpreter.loader import LIMITS, load_text

    text = "items:\n" + "".join(f"  - {i}\n" for i in range(LIMITS["nodes"] + 10))
    with pytest.raises(RulebookError) as caught:
        load_text(text, "big.yaml")
    message = caught.value.render()
    assert "error[yaml-too-large]" in message and "too many nodes" in message
    assert "laughs" not in message and "alias" not in message


def test_an_alias_bomb_is_still_named_as_one():
    from interpreter.errors import RulebookError
    from interpreter.loader import load_text

    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    with pytest.raises(RulebookError) as caught:
        load_text("\n".join(lines) + "\n", "bomb.yaml")
    message = caught.value.render()
    assert "error[yaml-too-large]" in message and "aliases" in message


# ------------------------------------------------------------------ 16.10: combinations one at a time
def test_all_combinations_are_validated_one_at_a_time(tmp_path, monkeypatch):
    """`validate --all-combinations` keeps no loaded combination alive once it is reported."""
    import gc
    import weakref

    from interpreter import ruleset

    names = [f"m{i}" for i in range(6)]
    modules = "".join(f"  {n}: {{file: {n}.yaml}}\n" for n in names)
    combos = "".join(f"  - {{modules: [{a}, {b}], players: [2]}}\n" for a in names for b in names if a < b)
    files = {f"{n}.yaml": f"constants:\n  {n}: 1\n" for n in names}
    folder, _ = _ruleset(tmp_path, f"modules:\n{modules}combinations:\n{combos}", files)
    alive: list = []
    most = [0]
    real_load = ruleset.load

    def counting_load(*args, **kwargs):
        gc.collect()
        most[0] = max(most[0], sum(1 for ref in alive if ref() is not None))
        loaded = real_load(*args, **kwargs)
        alive.append(weakref.ref(loaded))
        return loaded

    monkeypatch.setattr(ruleset, "load", counting_load)
    code, out, err = _cli("validate", str(folder), "--all-combinations")
    assert code == 0, err
    assert len(out.splitlines()) == 15 and len(alive) >= 15
    assert most[0] <= 1, f"{most[0]} combinations held at once"
