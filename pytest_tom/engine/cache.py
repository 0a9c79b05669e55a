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

Failures are never cached: only a reply with text is stored.

No call waits inside SQLite: after set-up the connection's busy timeout is 0, so a
statement that meets another process's lock fails at once and is tried again
after a short pause, by `time.sleep` for the plain methods and by `asyncio.sleep`
for the `a...` methods the runner's event loop uses: a put that meets a sibling's
lock never stops the loop from sending and reading the other requests. A lock
that lasts `lock_timeout` (60 s) turns the cache off with a line that names the
processes using the cache (pid, host, start: from their claims), not "another
program".

The cache is a convenience, never a reason for a run to fail: a damaged,
truncated or foreign file, a directory in its place, a read-only folder or
file, a full disk or a lock that never clears turn the cache off for the rest
of the run with one line (`problem`) naming the file and the fix; answers are
then asked and scored as without a cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

DB_NAME = "responses.sqlite3"
KEY_VERSION = 1
MODES = ("on", "read", "write", "off")
SETUP_TIMEOUT = 60.0  # seconds a process waits for a sibling's lock (the busy timeout)

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
    started REAL NOT NULL,
    process TEXT NOT NULL DEFAULT '',
    pstart TEXT NOT NULL DEFAULT '',
    boot TEXT NOT NULL DEFAULT ''
);
"""
RESPONSE_COLUMNS = {"key", "text", "usage", "model", "created"}
CLAIM_COLUMNS = {"key", "owner", "host", "pid", "started", "process", "pstart", "boot"}
T = TypeVar("T")


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


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read().strip()
    except OSError:
        return ""


def process_start(pid: int) -> str:
    """When process `pid` started (clock ticks since boot; Linux), '' when unknown.
    Tells a process from a later one that got the same pid."""
    stat = _read(f"/proc/{pid}/stat")
    fields = stat.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else ""


class _Process:
    """Who this process is, for claims: a random token (new in a forked child), its start
    time and the boot it runs in."""

    def __init__(self) -> None:
        self.reset()
        self.boot = _read("/proc/sys/kernel/random/boot_id")

    def reset(self) -> None:
        self.token = uuid.uuid4().hex
        self.pid = os.getpid()
        self.start = process_start(self.pid)


PROCESS = _Process()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=PROCESS.reset)


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


class CacheFault(Exception):
    """The file is not a pytest-tom cache (another program's database)."""


class CacheBusy(Exception):
    """Another connection holds the lock this statement needs, right now (try again)."""


def describe_fault(db: Path, exc: BaseException) -> tuple[str, str]:
    """(kind, one line naming the file and the fix) for an error of the cache."""
    text = str(exc) or type(exc).__name__
    low = text.lower()
    errno_ = getattr(exc, "errno", None)
    tail = "or run with --tom-cache off; this run goes on without the cache"
    if isinstance(exc, IsADirectoryError) or db.is_dir():
        return "directory", f"tom cache: {db} is a directory, not the cache file: remove it, {tail}"
    if isinstance(exc, CacheFault) or "not a database" in low or "malformed" in low \
            or "no such table" in low or "no such column" in low:
        return "damaged", (f"tom cache: {db} is not a usable pytest-tom cache (damaged, truncated "
                           f"or another program's file: {text}): delete it or run once with "
                           f"--tom-cache-clear, {tail}")
    if "full" in low or errno_ == errno.ENOSPC:
        return "full", (f"tom cache: {db}: the disk is full ({text}): free some space or delete "
                        f"the cache folder {db.parent}, {tail}")
    if "readonly" in low or "read-only" in low or isinstance(exc, PermissionError) \
            or errno_ in (errno.EACCES, errno.EPERM, errno.EROFS) or "unable to open" in low:
        return "readonly", (f"tom cache: {db} cannot be written or opened ({text}): make the "
                            f"folder {db.parent} and the file writable, use --tom-cache-dir for "
                            f"another folder, {tail}")
    if "locked" in low or "busy" in low:
        return "locked", (f"tom cache: {db} stayed locked ({text}): stop it or let it finish, "
                          f"{tail}")
    return "other", f"tom cache: {db}: {text}: delete the cache folder {db.parent}, {tail}"


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
        if mode != "off":
            try:
                self._db = self._connect()
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

    def _connect(self) -> sqlite3.Connection | None:
        if self.db_path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(self.db_path))
        if self.mode == "read":  # never create or change anything: a read-only folder is fine
            if not self.db_path.exists():
                return None  # nothing cached yet: every call is a miss
            try:
                return self._open_read_only("mode=ro")
            except sqlite3.OperationalError:
                # a WAL database in a read-only folder cannot make its shared-memory file:
                # read it as a file nobody writes (nobody can: the folder is read-only)
                return self._open_read_only("mode=ro&immutable=1")
        prepare_dir(self.path)
        # Several processes of one run (xdist workers, two runs at once) open a new cache at
        # the same moment. Switching a new file to WAL and creating the tables then meet the
        # sibling's lock in ways where SQLite answers "locked" at once instead of waiting
        # (its deadlock avoidance skips the busy handler): set-up is retried, as a whole,
        # within the busy timeout, so no process turns its cache off because of a sibling.
        deadline = time.monotonic() + self.lock_timeout
        pause = 0.005
        while True:
            try:
                return self._open_for_writing()
            except sqlite3.OperationalError as exc:
                if not _is_lock(exc):
                    raise
                if time.monotonic() + pause > deadline:
                    raise sqlite3.OperationalError(f"{exc}; {self._holders()}") from exc
            time.sleep(pause)
            pause = min(pause * 2, 0.25)

    def _open_for_writing(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.db_path, timeout=self.lock_timeout, isolation_level=None,
                             check_same_thread=False)
        try:
            db.execute(f"PRAGMA busy_timeout = {int(self.lock_timeout * 1000)}")
            # WAL: readers never block the writer; NORMAL: a commit survives a killed process
            # (it is in the OS's hands), only a power cut may lose the last commits.
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            self._check_tables(db, create=True)
            db.execute("PRAGMA busy_timeout = 0")  # from now on a lock is waited for in Python
        except BaseException:
            db.close()
            raise
        return db

    def _open_read_only(self, flags: str) -> sqlite3.Connection:
        db = sqlite3.connect(f"file:{quote(str(self.db_path))}?{flags}", uri=True, timeout=60.0,
                             isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout = 60000")
            self._check_tables(db, create=False)
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    def _columns(db: sqlite3.Connection, table: str) -> set[str]:
        return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}

    def _check_tables(self, db: sqlite3.Connection, create: bool) -> None:
        """Refuse another program's database; create the tables (or renew old claims)."""
        tables = {row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
        if tables - {"responses", "claims"}:
            raise CacheFault(f"it holds the tables {sorted(tables)}")
        responses = self._columns(db, "responses")
        if responses and responses != RESPONSE_COLUMNS:
            raise CacheFault(f"its table 'responses' has the columns {sorted(responses)}")
        if not create:
            if not responses:
                raise CacheFault("it has no table 'responses'")
            return
        db.execute("BEGIN IMMEDIATE")  # also proves the file can be written
        try:
            claims = self._columns(db, "claims")
            if claims and claims != CLAIM_COLUMNS:  # an older pytest-tom: claims are transient
                db.execute("DROP TABLE claims")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("COMMIT")
        except BaseException:
            _rollback(db)
            raise

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
                if _is_lock(exc):
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
        """Who is using the cache besides this process, from the claims (read apart: a
        WAL reader is not stopped by a writer's lock)."""
        try:
            db = sqlite3.connect(f"file:{quote(str(self.db_path))}?mode=ro", uri=True,
                                 timeout=1.0)
            try:
                rows = db.execute(
                    "SELECT host, pid, pstart, boot, min(started), count(*) FROM claims "
                    "WHERE owner != ? GROUP BY host, pid ORDER BY min(started)",
                    (self.owner,)).fetchall()
            finally:
                db.close()
        except sqlite3.Error as exc:
            return f"the claims could not be read to say by whom ({exc})"
        if not rows:
            return ("no pytest-tom process has a claim in it: another program holds it "
                    "(an sqlite3 shell, a backup or sync tool?)")
        return "in use by " + "; ".join(self._describe_holder(*row) for row in rows[:5]) + (
            f" and {len(rows) - 5} more" if len(rows) > 5 else "")

    def _describe_holder(self, host: str, pid: int, pstart: str, boot: str, first: float,
                         claims: int) -> str:
        since = _utc(float(first))
        alive = ""
        if host == self.host and (not boot or boot == PROCESS.boot):
            began = _process_started(str(pstart)) if pstart else None
            alive = "" if _pid_alive(int(pid)) else ", no longer running"
            if began is not None:
                since = f"{_utc(began)} (claiming since {_utc(float(first))})"
        return (f"pytest-tom pid {pid} on host {host}, started {since}, asking {claims} "
                f"request{'s' if claims != 1 else ''}{alive}")

    # -- responses --------------------------------------------------------------------
    def get(self, key: str) -> CachedReply | None:
        if not self.readable:
            return None

        return self._guarded(None, lambda db: _reply(db, key))

    def put(self, key: str, text: str, usage: dict[str, int] | None, model: str | None) -> None:
        """Store a reply (and drop this process's claim of it) in one transaction."""
        if not self.writable:
            return

        self._guarded(None, lambda db: self._store(db, key, text, usage, model))

    def _store(self, db: sqlite3.Connection, key: str, text: str, usage: dict[str, int] | None,
               model: str | None) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("INSERT OR REPLACE INTO responses (key, text, usage, model, created) "
                       "VALUES (?, ?, ?, ?, ?)",
                       (key, text, json.dumps(usage) if usage else None, model, time.time()))
            db.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (key, self.owner))
            db.execute("COMMIT")
        except BaseException:
            _rollback(db)  # never masks the error itself (SQLITE_FULL has rolled back)
            raise

    async def aget(self, key: str) -> CachedReply | None:
        """`get` for the event loop (waits for a lock without blocking it)."""
        if not self.readable:
            return None
        return await self._aguarded(None, lambda db: _reply(db, key))

    async def aput(self, key: str, text: str, usage: dict[str, int] | None,
                   model: str | None) -> None:
        """`put` for the event loop (waits for a lock without blocking it)."""
        if self.writable:
            await self._aguarded(None, lambda db: self._store(db, key, text, usage, model))

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
            _rollback(db)
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
            if not _pid_alive(pid):
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


def _reply(db: sqlite3.Connection, key: str) -> CachedReply | None:
    row = db.execute("SELECT text, usage, model FROM responses WHERE key = ?", (key,)).fetchone()
    if row is None:
        return None
    return CachedReply(text=row[0], usage=json.loads(row[1]) if row[1] else None, model=row[2])


def _utc(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(seconds))


def _process_started(ticks: str) -> float | None:
    """The wall-clock start of a process of this boot, from its start in clock ticks."""
    for line in _read("/proc/stat").splitlines():
        if line.startswith("btime "):
            try:
                return int(line.split()[1]) + int(ticks) / os.sysconf("SC_CLK_TCK")
            except (ValueError, OSError):
                return None
    return None


def _is_lock(exc: sqlite3.Error) -> bool:
    """Is this SQLite's "database is locked" / "busy" (another connection holds a lock)?"""
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _rollback(db: sqlite3.Connection) -> None:
    """Roll back what is still open, without raising: after SQLITE_FULL SQLite has already
    rolled back, and a second error would hide the first."""
    if db.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
