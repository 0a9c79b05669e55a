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
are taken over at once when the claim was made on this host: its process is
gone, or its pid now belongs to another process (told apart by a random token
per process and the process's start time), which is the usual case in a
container, where every run is PID 1. A claim from another host is taken over
once it is older than `stale_after`.

What is stored is the typed reply (`ModelReply`: its answer text, token usage, the model
that answered, and a reasoning model's thought and finish reason), one row each;
`reply_row` and `row_reply` are the one place where a reply becomes a row and back (rows
written before the thought was kept read as replies without one). Failures are never
cached; a reply cut off by its budget is a reply, and is.

No call waits inside SQLite: after set-up the connection's busy timeout is 0, so a
statement that meets another process's lock fails at once and is tried again
after a short pause, by `time.sleep` for the plain methods and by `asyncio.sleep`
for the `a...` methods the runner's event loop uses: a put that meets a sibling's
lock never stops the loop from sending and reading the other requests. A lock
that lasts `lock_timeout` (60 s) turns the cache off with a line that names the
processes using the cache (pid, host, start: from their claims), not "another
program".

The file itself (its tables, opening it, describing a fault) is `asking/cache_file.py`;
the processes that use it (this one's identity, who holds a lock) are
`asking/cache_processes.py`; the calls of a run reach the cache through the cached-call
layer (`asking/cached_call.py`).

The cache is a convenience, never a reason for a run to fail: a damaged,
truncated or foreign file, a directory in its place, a read-only folder or
file, a full disk or a lock that never clears turn the cache off for the rest
of the run with one line (`problem`) naming the file and the fix; answers are
then asked and scored as without a cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pytest_tom.asking.cache_file import (
    DB_NAME,
    CacheFault,
    describe_fault,
    has_reply_column,
    is_lock,
    open_db,
    rollback,
)
from pytest_tom.asking.cache_processes import PROCESS, holders, pid_alive, process_start
from pytest_tom.backends.base import BackendIdentity, Message, ModelReply, SamplingDict

KEY_VERSION = 1
MODES = ("on", "read", "write", "off")
# the canonical JSON of a key, made once: `json.dumps` with these options builds a new
# encoder per call (a visible share of a latency-0 run's CPU); the output is the same
_KEY_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                             default=str)
SETUP_TIMEOUT = 60.0  # seconds a process waits for a sibling's lock (the busy timeout)
# keys read in one query by `aget_many` (SQLite before 3.32 allows 999 parameters)
MANY = 500

T = TypeVar("T")


def request_key(identity: BackendIdentity, messages: list[Message],
                params: SamplingDict, sample: int = 0) -> str:
    """The cache key of one call: a SHA-256 of its canonical JSON description."""
    blob = _KEY_JSON.encode({"v": KEY_VERSION, "backend": identity, "messages": messages,
                             "params": params, "sample": sample})
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def clear(path: Path) -> int:
    """Delete every cached response under `path`; returns how many there were."""
    return clear_with_note(path)[0]


def clear_with_note(path: Path) -> tuple[int, str | None]:
    """Empty the cache under `path`: (responses deleted, a line to show or None).

    A file that is not a usable cache (damaged, truncated, another program's
    database) is deleted so that the run starts a new one: clearing repairs.
    """
    db = path / DB_NAME
    if not db.exists() and not db.is_symlink():
        return 0, None
    cache = ResponseCache(path, mode="on")
    try:
        if cache.problem is None:
            return cache.clear(), None
        fault, problem = cache.fault, cache.problem
    finally:
        cache.close()
    if fault != "damaged":
        return 0, problem  # a directory, a read-only folder ...: not ours to delete
    try:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
    except OSError as exc:
        return 0, f"tom cache: {db} is not a usable cache and could not be deleted ({exc}); " \
                  f"delete it by hand, or run with --tom-cache off"
    return 0, f"tom cache: {db} was not a usable cache (damaged or another program's file): " \
              f"deleted by --tom-cache-clear, a new cache is started"


class CacheBusy(Exception):
    """Another connection holds the lock this statement needs, right now (try again)."""


class ResponseCache:
    """The cache of one process. Safe to call from several threads (one connection, a lock).

    No method raises because of the database: on an SQLite or OS error the cache
    turns itself off (`problem` says why, in one line) and answers as an empty,
    unwritable cache from then on.
    """

    def __init__(self, path: str | Path, mode: str = "on", stale_after: float = 3600.0,
                 lock_timeout: float = SETUP_TIMEOUT):
        if mode not in MODES:
            raise ValueError(f"cache mode {mode!r} is not one of {', '.join(MODES)}")
        self.path = Path(path)
        self.db_path = self.path / DB_NAME
        self.mode = mode
        self.stale_after = stale_after
        self.lock_timeout = lock_timeout  # how long a lock may stop this process's writes
        self.owner = uuid.uuid4().hex
        self.host = socket.gethostname()
        self.pid = os.getpid()
        self.problem: str | None = None  # why the cache is off, for the run's summary
        self.fault: str | None = None  # its kind: damaged, directory, readonly, full ...
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._select, self._columns = SELECT, COLUMNS
        if mode != "off":
            try:
                self._db = open_db(self.db_path, mode, lock_timeout, self._holders)
                if self._db is not None and not has_reply_column(self._db):
                    # a read-only cache of an older pytest-tom
                    self._select, self._columns = SELECT_OLD, COLUMNS_OLD
            except (sqlite3.Error, OSError, CacheFault) as exc:
                self._give_up(exc)

    # -- what the mode allows ---------------------------------------------------------
    @property
    def readable(self) -> bool:
        return self._db is not None and self.mode in ("on", "read")

    @property
    def writable(self) -> bool:
        return self._db is not None and self.mode in ("on", "write")

    @property
    def coordinating(self) -> bool:
        """Claims only make sense when this process both reads and writes the cache."""
        return self._db is not None and self.mode == "on"

    def _give_up(self, exc: BaseException) -> None:
        """Turn the cache off for the rest of the run (call with the lock held, or in init)."""
        if self.problem is None:
            self.fault, self.problem = describe_fault(self.db_path, exc)
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()

    def _attempt(self, default: T, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work(db)` once, under the lock; raises CacheBusy when another connection holds
        the lock it needs; on any other database or disk error the cache turns off and
        `default` is returned."""
        with self._lock:
            if self._db is None:
                return default
            try:
                return work(self._db)
            except sqlite3.OperationalError as exc:
                if is_lock(exc):
                    raise CacheBusy(str(exc)) from exc
                self._give_up(exc)
                return default
            except (sqlite3.Error, OSError, ValueError) as exc:
                self._give_up(exc)
                return default

    def _guarded(self, default: T, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work(db)`, waiting (`time.sleep`) while another process holds the lock, at most
        `lock_timeout`; then the cache turns off and `default` is returned."""
        deadline = time.monotonic() + self.lock_timeout
        pause = 0.001
        while True:
            try:
                return self._attempt(default, work)
            except CacheBusy as exc:
                if time.monotonic() + pause > deadline:
                    return self._locked_out(exc, default)
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    async def _aguarded(self, default: T, work: Callable[[sqlite3.Connection], T]) -> T:
        """`_guarded` for an event loop: the waits are `asyncio.sleep`, so the loop goes on
        with every other request while this one waits for a sibling's lock."""
        deadline = time.monotonic() + self.lock_timeout
        pause = 0.001
        while True:
            try:
                return self._attempt(default, work)
            except CacheBusy as exc:
                if time.monotonic() + pause > deadline:
                    return self._locked_out(exc, default)
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.05)

    def _locked_out(self, exc: CacheBusy, default: T) -> T:
        """A lock held for `lock_timeout`: the cache turns off, naming who uses it."""
        with self._lock:
            if self.problem is None:
                self.fault = "locked"
                self.problem = (f"tom cache: {self.db_path} stayed locked for "
                                f"{self.lock_timeout:g}s ({exc}); {self._holders()}: stop it or "
                                f"let it finish, or run with --tom-cache off; this run goes on "
                                f"without the cache")
            self._give_up(exc)
        return default

    def _holders(self) -> str:
        return holders(self.db_path, self.owner, self.host)

    # -- responses --------------------------------------------------------------------
    def get(self, key: str) -> ModelReply | None:
        if not self.readable:
            return None
        return self._guarded(None, lambda db: _reply(db, self._select, key))

    def put(self, key: str, reply: ModelReply | str, usage: dict[str, int] | None = None,
            model: str | None = None) -> None:
        """Store a reply (and drop this process's claim of it) in one transaction. `reply`:
        the reply, or (for scripts and tests) its text, with `usage` and `model`."""
        if not self.writable:
            return
        if isinstance(reply, str):
            reply = ModelReply(reply, usage, model)
        row = reply_row(reply)
        self._guarded(None, lambda db: self._store(db, key, row))

    def _store(self, db: sqlite3.Connection, key: str, row: Row) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("INSERT OR REPLACE INTO responses (key, text, usage, model, reply, "
                       "created) VALUES (?, ?, ?, ?, ?, ?)", (key, *row, time.time()))
            db.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, self.owner))
            db.execute("COMMIT")
        except BaseException:
            rollback(db)  # never masks the error itself (SQLITE_FULL has rolled back)
            raise

    async def aget(self, key: str) -> ModelReply | None:
        """`get` for the event loop (waits for a lock without blocking it)."""
        if not self.readable:
            return None
        return await self._aguarded(None, lambda db: _reply(db, self._select, key))

    async def aget_many(self, keys: list[str]) -> dict[str, ModelReply]:
        """The stored replies of `keys` (those found), read in a few queries of up to
        `MANY` keys each rather than one per key: a fully cached rerun reads every item's
        first answer this way (`CachedCalls.read_ahead`). For the event loop, as `aget`."""
        if not self.readable or not keys:
            return {}
        found: dict[str, ModelReply] = {}
        none: dict[str, ModelReply] = {}
        for start in range(0, len(keys), MANY):
            def read(db: sqlite3.Connection, chunk: list[str] = keys[start:start + MANY]
                     ) -> dict[str, ModelReply]:
                return _replies(db, self._columns, chunk)

            found.update(await self._aguarded(none, read))
        return found

    async def aput(self, key: str, reply: ModelReply) -> None:
        """`put` for the event loop (waits for a lock without blocking it)."""
        if self.writable:
            row = reply_row(reply)
            await self._aguarded(None, lambda db: self._store(db, key, row))

    async def aclaim(self, key: str) -> bool:
        """`claim` for the event loop (waits for a lock without blocking it)."""
        if not self.coordinating:
            return True
        return await self._aguarded(True, lambda db: self._take(db, key, time.time()))

    async def arelease(self, key: str) -> None:
        """`release` for the event loop (waits for a lock without blocking it)."""
        if self.coordinating:
            await self._aguarded(None, lambda db: self._drop(db, key))

    def count(self) -> int:
        return self._guarded(0, lambda db: int(db.execute(
            "SELECT count(*) FROM responses").fetchone()[0]))

    def clear(self) -> int:
        def work(db: sqlite3.Connection) -> int:
            n = int(db.execute("SELECT count(*) FROM responses").fetchone()[0])
            db.execute("DELETE FROM responses")
            db.execute("DELETE FROM claims")
            return n

        return self._guarded(0, work)

    # -- claims: one process asks, the others wait for its answer ---------------------
    def claim(self, key: str) -> bool:
        """True when this process may request `key` now (it holds the claim).

        False when a live process holds it: wait for its answer with `get`, and
        call `claim` again (the claim is released when that process gives up).
        """
        if not self.coordinating:
            return True
        now = time.time()
        return self._guarded(True, lambda db: self._take(db, key, now))  # no cache: ask

    def _take(self, db: sqlite3.Connection, key: str, now: float) -> bool:
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT owner, host, pid, started, process, pstart, boot "
                             "FROM claims WHERE key = ?", (key,)).fetchone()
            mine = row is None or row[0] == self.owner or self._abandoned(row, now)
            if mine:
                db.execute("INSERT OR REPLACE INTO claims (key, owner, host, pid, started, "
                           "process, pstart, boot) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           (key, self.owner, self.host, PROCESS.pid, now, PROCESS.token,
                            PROCESS.start, PROCESS.boot))
            db.execute("COMMIT")
        except BaseException:
            rollback(db)
            raise
        return mine

    def _abandoned(self, row: tuple[Any, ...], now: float) -> bool:
        """Is the process that made this claim gone? Sure only on this host; a claim from
        elsewhere is abandoned when it is older than `stale_after`."""
        _owner, host, pid, started, process, pstart, boot = row
        pid = int(pid)
        if process and process == PROCESS.token:
            return False  # this very process (another runner of it) is asking
        if host == self.host:
            if boot and PROCESS.boot and boot != PROCESS.boot:
                return True  # made before the machine rebooted
            if pid == PROCESS.pid:
                return True  # our pid, but not us: a dead run's (PID 1 in containers)
            if not pid_alive(pid):
                return True  # its process is gone (killed, crashed)
            if pstart and process_start(pid) not in ("", pstart):
                return True  # the pid now belongs to a later process
        return now - float(started) > self.stale_after

    def release(self, key: str) -> None:
        """Give up this process's claim of `key` (the request failed or was cancelled)."""
        if not self.coordinating:
            return
        self._guarded(None, lambda db: self._drop(db, key))

    def _drop(self, db: sqlite3.Connection, key: str) -> None:
        db.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, self.owner))

    def close(self) -> None:
        with self._lock:
            db, self._db = self._db, None
            if db is None:
                return
            with contextlib.suppress(sqlite3.Error):
                if self.mode == "on":  # this once, SQLite may wait a little for a sibling
                    db.execute(f"PRAGMA busy_timeout = {int(min(self.lock_timeout, 5.0) * 1000)}")
                    db.execute("DELETE FROM claims WHERE owner = ?", (self.owner,))
            with contextlib.suppress(sqlite3.Error):
                db.close()


# the stored columns of a reply: text, usage (JSON), model, reply (JSON of the other parts)
Row = tuple[str, str | None, str | None, str | None]
COLUMNS = "text, usage, model, reply"
COLUMNS_OLD = "text, usage, model, NULL"  # a cache written before the `reply` column
SELECT = f"SELECT {COLUMNS} FROM responses WHERE key = ?"
SELECT_OLD = f"SELECT {COLUMNS_OLD} FROM responses WHERE key = ?"


def reply_row(reply: ModelReply) -> Row:
    """The stored columns (text, usage, model, reply) of a reply: `reply` holds its thought
    and finish reason as JSON (NULL when it has neither, as every row written before them).
    Its endpoint is not stored (a reply read from the cache was answered by no endpoint of
    this run)."""
    parts = {}
    if reply.thought is not None:
        parts["thought"] = reply.thought
    if reply.finish_reason is not None:
        parts["finish"] = reply.finish_reason
    return (reply.text, json.dumps(reply.usage) if reply.usage else None, reply.model,
            json.dumps(parts, ensure_ascii=False) if parts else None)


def row_reply(text: str, usage: str | None, model: str | None,
              reply: str | None = None) -> ModelReply:
    """The reply of a stored row (every row written by any pytest-tom version so far)."""
    parts = json.loads(reply) if reply else {}
    return ModelReply(text=text, usage=json.loads(usage) if usage else None, model=model,
                      thought=parts.get("thought"), finish_reason=parts.get("finish"))


def _replies(db: sqlite3.Connection, columns: str, keys: list[str]) -> dict[str, ModelReply]:
    """The stored replies of `keys` (those found) in one query."""
    query = (f"SELECT key, {columns} FROM responses WHERE key IN "
             f"({', '.join('?' * len(keys))})")
    return {key: row_reply(*row) for key, *row in db.execute(query, keys)}


def _reply(db: sqlite3.Connection, select: str, key: str) -> ModelReply | None:
    row = db.execute(select, (key,)).fetchone()
    return None if row is None else row_reply(*row)
