"""Games as Ray tasks (`--backend ray [--address ADDR]`); needs the optional extra
`rulebook[ray]`.

The rules travel with the tasks: the driver reads the rule files the ruleset loaded once
(their bytes, each through the loader's `safe_path` and `read_limited`: nothing outside the
folder, no FIFO or device, nothing else in the folder), each worker writes them to a private folder and loads them from there, and
checks the digest against the driver's: a cluster node never reads its own (possibly other)
copy of the rules, and a mismatch fails the task instead of mixing versions. Games go out in
small batches; each record comes back as its batch finishes and is written by the driver."""
from __future__ import annotations

import os

__all__ = ["play_ray", "RayUnavailable", "snapshot_rules"]

BATCH = 8


class RayUnavailable(RuntimeError):
    pass


def snapshot_rules(ruleset) -> dict:
    """{path inside the ruleset folder: bytes} of every rule file the ruleset `ruleset` read when it
    was loaded. Each is checked as the loader checks it (a path that now leaves the folder, a
    symlink pointing out of it, a FIFO or a device is a RulebookError, never opened for reading).
    A file edited since the load gives another digest, which the workers refuse."""
    from ..loader import read_limited, safe_path

    folder = os.path.abspath(ruleset.folder)
    files = {}
    for shown in ruleset.files:
        relative = os.path.relpath(os.path.abspath(shown), folder)
        full = safe_path(folder, relative, "rule file")
        files[relative] = read_limited(full, shown)
    return files


_LOADED: dict = {}


def _materialize(files: dict, digest: str, modules, overrides: dict, folder_name: str):
    """The Ruleset of these files in this worker (loaded once per worker and digest)."""
    import tempfile

    from .. import load
    from .variants import apply_overrides

    key = (digest, tuple(modules), repr(sorted(overrides.items())))
    if key not in _LOADED:
        folder = os.path.join(tempfile.mkdtemp(prefix="rulebook-ray-"), folder_name)
        for rel, data in files.items():
            path = os.path.join(folder, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(data)
        ruleset = apply_overrides(load(folder, modules=list(modules), check=False, settings={}), overrides)
        if ruleset.digest != digest:
            raise RuntimeError(f"the rules shipped to this worker have digest {ruleset.digest}, not {digest}")
        _LOADED[key] = ruleset
    return _LOADED[key]


def _play_batch(files, digest, folder_name, config, indices):
    from .runner import play_recorded_game

    ruleset = _materialize(files, digest, config.modules, config.overrides, folder_name)
    return [play_recorded_game(ruleset, config, index) for index in indices]


def _check_reachable(address) -> None:
    """Fail in seconds, not minutes, when a HOST:PORT address does not answer."""
    import socket

    if not address or "://" in address or address == "auto" or ":" not in address:
        return
    host, _, port = address.rpartition(":")
    if not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as exc:
        raise RayUnavailable(f"cannot reach Ray at {address}: {exc} (start one with `ray start --head`)") from None


def play_ray(ruleset, config, indices, address=None):
    """Yield the record of each game as its batch finishes."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable("--backend ray needs Ray: pip install 'rulebook[ray]'") from None
    if not ray.is_initialized():
        _check_reachable(address)
        try:
            ray.init(address=address, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise RayUnavailable(f"cannot start or join Ray{' at ' + address if address else ''}: {exc}") from None
    remote = ray.remote(_play_batch)
    files = ray.put(snapshot_rules(ruleset))
    folder_name = os.path.basename(os.path.normpath(ruleset.folder))
    indices = list(indices)
    pending = [remote.remote(files, ruleset.digest, folder_name, config, indices[i:i + BATCH])
               for i in range(0, len(indices), BATCH)]
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for record in ray.get(ready[0]):
            yield record
