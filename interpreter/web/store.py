"""SQLite persistence of web games: one row per game (ruleset, modules, seats, the hashes of the
seat tokens, seed) and one row per applied action, written and committed as it is applied, so a
server killed at any moment resumes every game by replaying its actions from the seed.

The journal is a write-ahead log with `synchronous=NORMAL`: a committed move survives the server
process being killed (even by SIGKILL: the WAL is in the file system), and only an operating
system crash or a power cut may lose the last moves. With `FULL`, every move waited for an fsync
(about 7 ms on the event loop, which holds up every other game's messages)."""
from __future__ import annotations

import json
import sqlite3
import threading
import time

SCHEMA = """
CREATE TABLE IF NOT EXISTS web_games (
    id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, modules TEXT NOT NULL, players INTEGER NOT NULL,
    seed INTEGER NOT NULL, seats TEXT NOT NULL, token_hashes TEXT NOT NULL, delay REAL NOT NULL,
    digest TEXT NOT NULL, created REAL NOT NULL, finished INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS web_moves (
    game_id TEXT NOT NULL, idx INTEGER NOT NULL, action TEXT NOT NULL, phase TEXT,
    PRIMARY KEY (game_id, idx));
"""


class GameStore:
    """A thread-safe handle on the games database (one connection, one lock)."""

    def __init__(self, path: str):
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def create(self, record: dict) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO web_games (id, ruleset, modules, players, seed, seats, token_hashes, delay, digest, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (record["id"], record["ruleset"], json.dumps(record["modules"]), record["players"], record["seed"],
                 json.dumps(record["seats"]), json.dumps(record["token_hashes"]), record["delay"],
                 record["digest"], time.time()))

    def add_move(self, game_id: str, idx: int, action_json: dict, phase, finished: bool) -> None:
        """Store one applied action (committed before the move is announced to anyone)."""
        with self._lock:
            self._db.execute("BEGIN")
            self._db.execute("INSERT INTO web_moves (game_id, idx, action, phase) VALUES (?, ?, ?, ?)",
                             (game_id, idx, json.dumps(action_json), phase))
            if finished:
                self._db.execute("UPDATE web_games SET finished = 1 WHERE id = ?", (game_id,))
            self._db.execute("COMMIT")

    def game(self, game_id: str):
        with self._lock:
            row = self._db.execute(
                "SELECT id, ruleset, modules, players, seed, seats, token_hashes, delay, digest, finished"
                " FROM web_games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            moves = self._db.execute("SELECT action, phase FROM web_moves WHERE game_id = ? ORDER BY idx",
                                     (game_id,)).fetchall()
        keys = ("id", "ruleset", "modules", "players", "seed", "seats", "token_hashes", "delay", "digest", "finished")
        record = dict(zip(keys, row))
        for key in ("modules", "seats", "token_hashes"):
            record[key] = json.loads(record[key])
        record["moves"] = [(json.loads(action), phase) for action, phase in moves]
        return record

    def unfinished_ids(self) -> list:
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT id FROM web_games WHERE finished = 0")]

    def close(self) -> None:
        with self._lock:
            self._db.close()
