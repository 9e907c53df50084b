"""The SQLite store of game records: one row per finished game, written (and committed) as the
game finishes, so an interrupted run keeps every game that finished.

A run is identified by its configuration and the digest of its rules: `run_id` hashes both.
The number of games is not part of it, so a run can be continued (`--resume`) or extended."""
from __future__ import annotations

import hashlib
import json
import sqlite3
import time

__all__ = ["Store", "run_id", "DEFAULT_DB"]

DEFAULT_DB = "rulebook-results.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, digest TEXT NOT NULL, config TEXT NOT NULL, config_key TEXT NOT NULL,
    ruleset_name TEXT, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    run_id TEXT NOT NULL, game_index INTEGER NOT NULL, seed INTEGER NOT NULL, digest TEXT NOT NULL,
    ruleset TEXT NOT NULL, modules TEXT NOT NULL, overrides TEXT NOT NULL, players INTEGER NOT NULL,
    agents TEXT NOT NULL, start_order TEXT NOT NULL, winners TEXT NOT NULL, scores TEXT NOT NULL,
    steps INTEGER NOT NULL, error TEXT, record TEXT NOT NULL, finished REAL NOT NULL,
    PRIMARY KEY (run_id, game_index));
"""


def config_key(config: dict) -> str:
    return json.dumps(config, sort_keys=True, separators=(",", ":"))


def run_id(config: dict, digest: str) -> str:
    text = config_key(config) + "|" + digest
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Store:
    """One SQLite file. Only the process that runs the analysis writes to it."""

    def __init__(self, path: str):
        self.path = path
        self.db = sqlite3.connect(path, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)
        self.db.commit()

    def close(self) -> None:
        self.db.close()

    def begin_run(self, config: dict, digest: str, ruleset_name: str) -> str:
        rid = run_id(config, digest)
        self.db.execute("INSERT OR IGNORE INTO runs VALUES (?, ?, ?, ?, ?, ?)",
                        (rid, digest, json.dumps(config), config_key(config), ruleset_name, time.time()))
        self.db.commit()
        return rid

    def other_digests(self, config: dict, digest: str) -> list:
        """Digests of earlier runs with the same configuration but other rules."""
        rows = self.db.execute("SELECT digest FROM runs WHERE config_key = ? AND digest != ? ORDER BY created",
                               (config_key(config), digest)).fetchall()
        return [row[0] for row in rows]

    def latest_run(self, config: dict):
        """(run_id, digest) of the latest run with this configuration (any rules), or None."""
        row = self.db.execute("SELECT run_id, digest FROM runs WHERE config_key = ? ORDER BY created DESC LIMIT 1",
                              (config_key(config),)).fetchone()
        return tuple(row) if row else None

    def done_indices(self, rid: str) -> set:
        return {row[0] for row in self.db.execute("SELECT game_index FROM games WHERE run_id = ?", (rid,))}

    def add_game(self, rid: str, digest: str, config: dict, record: dict) -> None:
        """Write one finished game and commit at once; a game already stored is replaced by
        its replay (same seed, same rules: the same game), never duplicated."""
        self.db.execute(
            "INSERT OR REPLACE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (rid, record["index"], record["seed"], digest, config["ruleset"], json.dumps(config["modules"]),
             json.dumps(config["overrides"]), config["players"], json.dumps(record["agents"]),
             json.dumps(record["start_order"]), json.dumps(record["winners"]), json.dumps(record["scores"]),
             record["steps"], record["error"], json.dumps(record, separators=(",", ":")), time.time()))
        self.db.commit()

    def records(self, rid: str, limit=None) -> list:
        """The records of a run in game order (the first `limit` games if given)."""
        query = "SELECT record FROM games WHERE run_id = ? ORDER BY game_index"
        rows = self.db.execute(query, (rid,)).fetchall()
        records = [json.loads(row[0]) for row in rows]
        if limit is not None:
            records = [r for r in records if r["index"] < limit]
        return records
