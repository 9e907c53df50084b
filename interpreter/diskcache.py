"""A per-user cache of work that depends only on text: schema results per rule file, generated
code per expression, compiled code objects. Like Python's __pycache__, it makes the second
`rulebook validate` of an unchanged ruleset fast; nothing it holds changes what is reported.

Owns: where the cache lives (`$RULEBOOK_CACHE_DIR`, else `$XDG_CACHE_HOME/rulebook`, else
`~/.cache/rulebook`), reading it once, writing it back at exit when it grew. `RULEBOOK_CACHE=0`
turns it off. A cache that cannot be read or written is ignored, never an error.
"""
from __future__ import annotations

import atexit
import hashlib
import marshal
import os

__all__ = ["section", "digest", "enabled"]

_VERSION = "4"  # bump when what is cached changes shape or meaning
_MAX_BYTES = 64 * 1024 * 1024
_data: dict | None = None
_dirty = False


def enabled() -> bool:
    return os.environ.get("RULEBOOK_CACHE", "1") not in ("0", "false", "no", "off")


def _path() -> str:
    base = os.environ.get("RULEBOOK_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "rulebook")
    from . import __version__

    import sys

    py = f"py{sys.version_info[0]}{sys.version_info[1]}"  # marshal'd code is version-specific
    return os.path.join(base, f"cache-{__version__}-{_VERSION}-{py}.marshal")


def _load() -> dict:
    global _data
    if _data is None:
        _data = {}
        if enabled():
            try:
                with open(_path(), "rb") as fh:
                    loaded = marshal.load(fh)
                if isinstance(loaded, dict) and loaded.get("engine") == _engine_digest():
                    _data = loaded
            except Exception:  # noqa: BLE001 - a missing or damaged cache is simply not used
                _data = {}
            _data["engine"] = _engine_digest()
            atexit.register(_save)
    return _data


def _engine_digest() -> str:
    """The code that produces what is cached: any change to it empties the cache."""
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    for rel in ("expr/compiler.py", "expr/builtins.py", "expr/grammar.lark", "schema.py", "loader.py"):
        try:
            with open(os.path.join(here, rel), "rb") as fh:
                h.update(fh.read())
        except OSError:
            h.update(rel.encode())
    return h.hexdigest()


def section(name: str) -> dict:
    """The cached mapping called `name` (created empty). Mark changes with `touch()`."""
    return _load().setdefault(name, {})


def touch() -> None:
    global _dirty
    _dirty = True


def _save() -> None:
    if not (_dirty and enabled() and _data is not None):
        return
    path = _path()
    try:
        blob = marshal.dumps(_data)
        if len(blob) > _MAX_BYTES:  # start again rather than grow without bound
            blob = marshal.dumps({})
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, path)
    except Exception:  # noqa: BLE001 - a read-only home or a full disk: just no cache
        pass


def digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]
