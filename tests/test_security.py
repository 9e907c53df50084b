"""Hostile input (issue 16): a planted cache, paths that leave the ruleset folder, files that
are not regular files, save names that climb out of their directory. Each test names the
finding it pins."""
from __future__ import annotations

import io
import marshal
import os
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
    plain state data; nothing executed is ever marshalled or pickled)."""
    assert not os.path.exists(os.path.join(ROOT, "interpreter", "diskcache.py"))
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "interpreter")):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as fh:
                    text = fh.read()
                for word in ("pickle", "RULEBOOK_CACHE_DIR", "XDG_CACHE_HOME", "marshal.dump(", "marshal.load("):
                    assert word not in text, (name, word)
