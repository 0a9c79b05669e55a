"""The response cache: one SQLite file in `.tom_cache/`, shared by every process of a run.

Every model call is stored under a hash of what determines its answer: the
backend's identity (backend name, model, redacted base URL: never a key), the
messages, the sampling parameters and the sample index. A response is written
the moment it arrives, in its own transaction, so a run stopped by Ctrl-C, a
crash or `kill -9` keeps every answer it received and a rerun asks only for the
rest.

The database is in WAL mode, so xdist workers (and two runs at once) read and
write it concurrently. The `claims` table keeps two processes from asking the
same thing at once: a process claims a key before requesting it; another
process that finds the claim held by a live process waits for the answer to
appear instead of requesting it too. Claims of dead processes (a killed run)
are taken over.

Failures are never cached: only a reply with text is stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DB_NAME = "responses.sqlite3"
KEY_VERSION = 1
MODES = ("on", "read", "write", "off")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    usage TEXT,
    model TEXT,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS claims (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started REAL NOT NULL
);
"""


def request_key(identity: dict[str, Any], messages: list[dict[str, Any]],
                params: dict[str, Any], sample: int = 0) -> str:
    """The cache key of one call: a SHA-256 of its canonical JSON description."""
    blob = json.dumps({"v": KEY_VERSION, "backend": identity, "messages": messages,
                       "params": params, "sample": sample},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass
class CachedReply:
    text: str
    usage: dict[str, int] | None
    model: str | None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return False
    return True


def prepare_dir(path: Path) -> None:
    """Create the cache folder, marked so that git and backup tools leave it alone."""
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# created by pytest-tom: the response cache is not for version control\n*\n")
    tag = path / "CACHEDIR.TAG"
    if not tag.exists():
        tag.write_text("Signature: 8a477f597d28d172789f06886806bc55\n"
                       "# This file marks the pytest-tom response cache (.tom_cache).\n")


def clear(path: Path) -> int:
    """Delete every cached response under `path`; returns how many there were."""
    db = path / DB_NAME
    if not db.exists():
        return 0
    cache = ResponseCache(path, mode="on")
    try:
        return cache.clear()
    finally:
        cache.close()


class ResponseCache:
    """The cache of one process. Safe to call from several threads (one connection, a lock)."""

    def __init__(self, path: str | Path, mode: str = "on", stale_after: float = 3600.0):
        if mode not in MODES:
            raise ValueError(f"cache mode {mode!r} is not one of {', '.join(MODES)}")
        self.path = Path(path)
        self.mode = mode
        self.stale_after = stale_after
        self.owner = uuid.uuid4().hex
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if mode != "off":
            prepare_dir(self.path)
            self._db = self._connect()

    # -- what the mode allows ---------------------------------------------------------
    @property
    def readable(self) -> bool:
        return self.mode in ("on", "read")

    @property
    def writable(self) -> bool:
        return self.mode in ("on", "write")

    @property
    def coordinating(self) -> bool:
        """Claims only make sense when this process both reads and writes the cache."""
        return self.mode == "on"

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path / DB_NAME, timeout=60.0, isolation_level=None,
                             check_same_thread=False)
        db.execute("PRAGMA busy_timeout = 60000")
        # WAL: readers never block the writer; NORMAL: a commit survives a killed process
        # (it is in the OS's hands), only a power cut may lose the last commits.
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        with self._lock:
            db.executescript(_SCHEMA)
        return db

    # -- responses --------------------------------------------------------------------
    def get(self, key: str) -> CachedReply | None:
        if self._db is None or not self.readable:
            return None
        with self._lock:
            row = self._db.execute("SELECT text, usage, model FROM responses WHERE key = ?",
                                   (key,)).fetchone()
        if row is None:
            return None
        usage = json.loads(row[1]) if row[1] else None
        return CachedReply(text=row[0], usage=usage, model=row[2])

    def put(self, key: str, text: str, usage: dict[str, int] | None, model: str | None) -> None:
        """Store a reply (and drop this process's claim of it) in one transaction."""
        if self._db is None or not self.writable:
            return
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("INSERT OR REPLACE INTO responses (key, text, usage, model, created) "
                           "VALUES (?, ?, ?, ?, ?)",
                           (key, text, json.dumps(usage) if usage else None, model, time.time()))
                db.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, self.owner))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def count(self) -> int:
        if self._db is None:
            return 0
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM responses").fetchone()[0])

    def clear(self) -> int:
        if self._db is None:
            return 0
        with self._lock:
            n = int(self._db.execute("SELECT count(*) FROM responses").fetchone()[0])
            self._db.execute("DELETE FROM responses")
            self._db.execute("DELETE FROM claims")
        return n

    # -- claims: one process asks, the others wait for its answer ---------------------
    def claim(self, key: str) -> bool:
        """True when this process may request `key` now (it holds the claim).

        False when a live process holds it: wait for its answer with `get`, and
        call `claim` again (the claim is released when that process gives up).
        """
        if self._db is None or not self.coordinating:
            return True
        now = time.time()
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                row = db.execute("SELECT owner, host, pid, started FROM claims WHERE key = ?",
                                 (key,)).fetchone()
                if row is None or row[0] == self.owner or self._abandoned(row, now):
                    db.execute("INSERT OR REPLACE INTO claims (key, owner, host, pid, started) "
                               "VALUES (?, ?, ?, ?, ?)", (key, self.owner, self.host, self.pid, now))
                    mine = True
                else:
                    mine = False
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return mine

    def _abandoned(self, row: tuple[Any, ...], now: float) -> bool:
        _owner, host, pid, started = row
        if host == self.host and not _pid_alive(int(pid)):
            return True  # its process is gone (killed, crashed)
        return now - float(started) > self.stale_after

    def release(self, key: str) -> None:
        """Give up this process's claim of `key` (the request failed or was cancelled)."""
        if self._db is None or not self.coordinating:
            return
        with self._lock:
            self._db.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, self.owner))

    def close(self) -> None:
        db, self._db = self._db, None
        if db is None:
            return
        with self._lock:
            with contextlib.suppress(sqlite3.Error):
                db.execute("DELETE FROM claims WHERE owner = ?", (self.owner,))
            db.close()
