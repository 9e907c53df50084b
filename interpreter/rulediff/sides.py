"""The two sides of `rulebook diff`: a ruleset by name or path, or a git revision of one
exported with `git archive` into a temporary folder (regular files only, no path may leave the
folder; the folder is removed when the side is closed), loaded with its modules.

Owns reading a side and showing a position on it (a file of an exported revision reads
`davos@HEAD~3:rulesets/davos/bills.yaml:12`). Does not own the comparison.
"""
from __future__ import annotations

import contextlib
import os
import re

from . import DiffError

__all__ = ["Side", "open_side", "split_revision", "export_revision"]

MAX_ARCHIVE_BYTES = 50_000_000


class Side:
    """One side of a diff: the spec as given, its modules, the loaded Ruleset, and for a git
    revision the revision and the temporary folder it was exported to."""

    def __init__(self, spec: str, modules, ruleset, revision=None, archive=None):
        self.spec = spec
        self.modules = tuple(modules)
        self.rs = ruleset
        self.revision = revision
        self.archive = archive

    @property
    def label(self) -> str:
        return f"{self.spec} [{'+'.join(self.rs.modules) or 'base'}]"

    def where(self, pos) -> str:
        """'file:line' of a position on this side; '' for none. A file of an exported revision
        is shown as SPEC:path-in-the-repository."""
        if pos is None or not getattr(pos, "file", None) or str(pos.file).startswith("<") or not pos.line:
            return ""
        file = str(pos.file)
        if self.archive:
            full = os.path.realpath(file)
            if full.startswith(self.archive + os.sep):
                file = f"{self.spec.rsplit('@', 1)[0]}@{self.revision}:{os.path.relpath(full, self.archive)}"
        return f"{file}:{pos.line}"


@contextlib.contextmanager
def open_side(spec: str, modules=()):
    """Load one side; a git revision is exported to a temporary folder, removed on exit."""
    import shutil
    import tempfile

    from ..ruleset import load

    name, revision = split_revision(spec)
    if revision is None:
        yield Side(spec, tuple(modules), load(name, modules=list(modules)))
        return
    archive = tempfile.mkdtemp(prefix="rulebook-diff-")
    try:
        folder = export_revision(name, revision, archive)
        side = Side(spec, tuple(modules), None, revision, os.path.realpath(archive))
        side.rs = load(folder, modules=list(modules))
        yield side
    finally:
        shutil.rmtree(archive, ignore_errors=True)


def split_revision(spec: str):
    """('davos', 'HEAD~3') for 'davos@HEAD~3'; (spec, None) for a name or path that exists."""
    from ..compose import bundled_rulesets

    if os.path.exists(spec) or spec in bundled_rulesets() or "@" not in spec:
        return spec, None
    name, _, revision = spec.rpartition("@")
    if not name or not revision:
        raise DiffError(f"'{spec}': write NAME@REVISION, e.g. davos@HEAD~1")
    if revision.startswith("-") or not re.fullmatch(r"[\w./~^{}@:+-]+", revision):
        raise DiffError(f"'{revision}' is not a git revision")
    return name, revision


def _git(cwd: str, *args, binary: bool = False):
    import subprocess

    try:
        done = subprocess.run(["git", "-C", cwd, *args], capture_output=True, check=False, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise DiffError(f"cannot run git: {error}") from None
    if done.returncode != 0:
        return None
    return done.stdout if binary else done.stdout.decode("utf-8", "replace").strip()


def _repository_path(name: str):
    """(repository top, ruleset folder relative to it) of a ruleset name or path in a checkout."""
    from ..compose import find_ruleset
    from ..errors import RulebookError

    try:
        folder = find_ruleset(name)
    except RulebookError:  # gone from the working tree: a path, or rulesets/NAME, in this checkout
        top = _git(os.getcwd(), "rev-parse", "--show-toplevel")
        if not top:
            raise DiffError(f"no ruleset named '{name}', and {os.getcwd()} is not in a git checkout") from None
        candidate = os.path.relpath(os.path.abspath(name), top)
        relative = candidate if not candidate.startswith("..") else os.path.join("rulesets", name)
        return top, relative.replace(os.sep, "/")
    top = _git(folder, "rev-parse", "--show-toplevel")
    if not top:
        raise DiffError(f"{folder} is not in a git checkout, so it has no revisions")
    relative = os.path.relpath(os.path.realpath(folder), os.path.realpath(top))
    if relative.startswith(".."):
        raise DiffError(f"{folder} is outside its git checkout")
    return top, relative.replace(os.sep, "/")


def export_revision(name: str, revision: str, target: str) -> str:
    """Export the ruleset folder as it was at `revision` into `target`; returns its path there."""
    top, relative = _repository_path(name)
    commit = _git(top, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    if not commit:
        raise DiffError(f"unknown git revision '{revision}' in {top}")
    data = _git(top, "archive", "--format=tar", commit, "--", relative, binary=True)
    if data is None:
        raise DiffError(f"'{relative}' does not exist at {revision}")
    if len(data) > MAX_ARCHIVE_BYTES:
        raise DiffError(f"'{relative}' at {revision} is larger than {MAX_ARCHIVE_BYTES} bytes")
    _extract(data, target)
    folder = os.path.join(target, relative)
    if not os.path.isfile(os.path.join(folder, "game.yaml")):
        raise DiffError(f"'{relative}' at {revision} has no game.yaml")
    return folder


def _extract(data: bytes, target: str) -> None:
    """Regular files and folders only; a member naming an absolute path or '..' is refused."""
    import io
    import shutil
    import tarfile

    root = os.path.realpath(target)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
        for member in archive.getmembers():
            parts = member.name.replace("\\", "/").split("/")
            if member.name.startswith("/") or ".." in parts:
                raise DiffError(f"the archive names an unsafe path: {member.name!r}")
            path = os.path.realpath(os.path.join(root, *parts))
            if not path.startswith(root + os.sep) and path != root:
                raise DiffError(f"the archive names an unsafe path: {member.name!r}")
            if member.isdir():
                os.makedirs(path, exist_ok=True)
            elif member.isfile():
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with archive.extractfile(member) as source, open(path, "wb") as sink:
                    shutil.copyfileobj(source, sink)
            # links, devices and the like are skipped: a ruleset is plain files
