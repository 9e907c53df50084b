"""Reading the files of a ruleset safely: the size limits (`LIMITS`), `read_limited` (the bytes
of a regular file no bigger than the limit, opened without blocking) and `safe_path` (a path
given in a rule file, resolved inside the ruleset folder, a regular file).

Owns these checks only; parsing the bytes as YAML is loader.py.
"""
from __future__ import annotations

import os
import stat
from typing import Optional

from .errors import Diagnostic, Pos, RulebookError

__all__ = ["LIMITS", "read_limited", "safe_path"]

LIMITS = {
    "file_bytes": 2_000_000,
    "depth": 64,
    "nodes": 500_000,  # nodes after alias expansion, per file
}


def read_limited(path: str, shown: str, limit: Optional[int] = None) -> bytes:
    """The bytes of a regular file no bigger than `limit` (default LIMITS["file_bytes"]), or
    RulebookError. The file is opened without blocking and checked with fstat before a byte
    is read: a FIFO, a device such as /dev/zero or a directory is refused, never read."""
    limit = LIMITS["file_bytes"] if limit is None else limit
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise RulebookError([Diagnostic("file", f"cannot read: {error.strerror}", Pos(shown, 0, 0))], "load") from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise RulebookError([Diagnostic("file", "not a regular file (a folder, a pipe or a device)",
                                            Pos(shown, 0, 0), "name a rule file")], "load")
        if info.st_size > limit:
            raise RulebookError([Diagnostic("file-too-large", f"file is {info.st_size} bytes; the limit is {limit}",
                                            Pos(shown, 1, 1))], "load")
        with os.fdopen(descriptor, "rb") as stream:
            descriptor = None
            raw = stream.read(limit + 1)
    finally:
        if descriptor is not None:
            os.close(descriptor)
    if len(raw) > limit:  # it grew after the check
        raise RulebookError([Diagnostic("file-too-large", f"file is over the limit of {limit} bytes",
                                        Pos(shown, 1, 1))], "load")
    return raw


def safe_path(folder: str, relative, what: str, pos: Optional[Pos] = None, code: str = "file") -> str:
    """The real path of `relative` inside the ruleset `folder`, or RulebookError at `pos`.

    The one check for every path a rule file, scenario file or replay names: it must be text,
    not absolute, and once resolved (symlinks included: `os.path.realpath`) stay inside the
    folder's own real path; it must name a regular file (not a folder, pipe or device). A
    symlink that points inside the folder is fine. `what` names the path in the message
    ("include", "module 'm': file", "scenario file"); `code` is the diagnostic's code.
    (`read_limited` then checks, on the opened file, that it is still regular and small.)"""
    where = pos or Pos(str(folder), 0, 0)
    if not isinstance(relative, str) or not relative.strip():
        raise RulebookError([Diagnostic(code, f"{what} must be a path (text), not {_kind(relative)}", where,
                                        "write a path relative to the ruleset folder")], "load")
    if os.path.isabs(relative) or relative.startswith("~"):
        raise RulebookError([Diagnostic(code, f"{what} '{relative}' is an absolute path", where,
                                        "write the path relative to the ruleset folder")], "load")
    root = os.path.realpath(folder)
    full = os.path.realpath(os.path.join(root, relative))
    if os.path.commonpath([root, full]) != root:
        raise RulebookError([Diagnostic(code, f"{what} '{relative}' leaves the ruleset folder", where,
                                        "only files inside the ruleset folder are read (symlinks included)")],
                            "load")
    try:
        mode = os.stat(full).st_mode
    except OSError:
        raise RulebookError([Diagnostic(code, f"{what} '{relative}' not found", where,
                                        "paths are relative to the ruleset folder")], "load") from None
    if not stat.S_ISREG(mode):
        raise RulebookError([Diagnostic(code, f"{what} '{relative}' is not a regular file", where,
                                        "name a file: a folder, a pipe or a device cannot be read")], "load")
    return full


def _kind(value) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", type(None): "empty"}.get(
        type(value), "a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict) else "text")
