"""The response cache's SQLite file: its folder, its tables, opening it, and one line
for anything wrong with it.

The format: a table `responses` (key, text, usage as JSON, model, created, and `reply`: the
reply's other parts as JSON — its thought and finish reason — or NULL) and a table `claims`
(which process is asking which key right now). A file with other tables or other response
columns is another program's, or damaged: it is refused, never changed. A cache written
before the `reply` column is read as it is and gets the column (NULL in its rows) when
opened for writing. Claims are transient: an older layout of the claims table is replaced.

Opening for writing switches the file to WAL (readers never block the writer) and
creates the tables; several processes of one run may do that at the same moment, so
set-up is retried as a whole within the lock timeout. Opening read-only (`--tom-cache
read`) never creates or changes anything. After set-up the busy timeout is 0: from then
on a lock is waited for in Python (`asking/cache.py`), never inside SQLite.
"""

from __future__ import annotations

import contextlib
import errno
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

DB_NAME = "responses.sqlite3"

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    usage TEXT,
    model TEXT,
    created REAL NOT NULL,
    reply TEXT
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
RESPONSE_COLUMNS = {"key", "text", "usage", "model", "created", "reply"}
# the columns before the reply's other parts (thought, finish reason) had one of their own:
# such a file is read as it is (its rows have none), and given the column when written
OLD_RESPONSE_COLUMNS = RESPONSE_COLUMNS - {"reply"}
CLAIM_COLUMNS = {"key", "owner", "host", "pid", "started", "process", "pstart", "boot"}


class CacheFault(Exception):
    """The file is not a pytest-tom cache (another program's database)."""


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


def open_db(db_path: Path, mode: str, lock_timeout: float,
            holders: Callable[[], str]) -> sqlite3.Connection | None:
    """The connection of a cache in `mode` (on, read, write); None for a read-only cache
    with no file yet (every call is a miss). Raises sqlite3.Error, OSError or CacheFault;
    a lock that outlasts `lock_timeout` at set-up names who holds it (`holders()`)."""
    if db_path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(db_path))
    if mode == "read":  # never create or change anything: a read-only folder is fine
        if not db_path.exists():
            return None  # nothing cached yet: every call is a miss
        try:
            return _open_read_only(db_path, "mode=ro")
        except sqlite3.OperationalError:
            # a WAL database in a read-only folder cannot make its shared-memory file:
            # read it as a file nobody writes (nobody can: the folder is read-only)
            return _open_read_only(db_path, "mode=ro&immutable=1")
    prepare_dir(db_path.parent)
    # Several processes of one run (xdist workers, two runs at once) open a new cache at
    # the same moment. Switching a new file to WAL and creating the tables then meet the
    # sibling's lock in ways where SQLite answers "locked" at once instead of waiting
    # (its deadlock avoidance skips the busy handler): set-up is retried, as a whole,
    # within the busy timeout, so no process turns its cache off because of a sibling.
    deadline = time.monotonic() + lock_timeout
    pause = 0.005
    while True:
        try:
            return _open_for_writing(db_path, lock_timeout)
        except sqlite3.OperationalError as exc:
            if not is_lock(exc):
                raise
            if time.monotonic() + pause > deadline:
                raise sqlite3.OperationalError(f"{exc}; {holders()}") from exc
        time.sleep(pause)
        pause = min(pause * 2, 0.25)


def _open_for_writing(db_path: Path, lock_timeout: float) -> sqlite3.Connection:
    db = sqlite3.connect(db_path, timeout=lock_timeout, isolation_level=None,
                         check_same_thread=False)
    try:
        db.execute(f"PRAGMA busy_timeout = {int(lock_timeout * 1000)}")
        # WAL: readers never block the writer; NORMAL: a commit survives a killed process
        # (it is in the OS's hands), only a power cut may lose the last commits.
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        _check_tables(db, create=True)
        db.execute("PRAGMA busy_timeout = 0")  # from now on a lock is waited for in Python
    except BaseException:
        db.close()
        raise
    return db


def _open_read_only(db_path: Path, flags: str) -> sqlite3.Connection:
    db = sqlite3.connect(f"file:{quote(str(db_path))}?{flags}", uri=True, timeout=60.0,
                         isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA busy_timeout = 60000")
        _check_tables(db, create=False)
    except BaseException:
        db.close()
        raise
    return db


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _check_tables(db: sqlite3.Connection, create: bool) -> None:
    """Refuse another program's database; create the tables (or renew old claims)."""
    tables = {row[0] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
    if tables - {"responses", "claims"}:
        raise CacheFault(f"it holds the tables {sorted(tables)}")
    responses = _columns(db, "responses")
    if responses and responses not in (RESPONSE_COLUMNS, OLD_RESPONSE_COLUMNS):
        raise CacheFault(f"its table 'responses' has the columns {sorted(responses)}")
    if not create:
        if not responses:
            raise CacheFault("it has no table 'responses'")
        return
    db.execute("BEGIN IMMEDIATE")  # also proves the file can be written
    try:
        if _columns(db, "responses") == OLD_RESPONSE_COLUMNS:  # again, under the lock
            db.execute("ALTER TABLE responses ADD COLUMN reply TEXT")
        claims = _columns(db, "claims")
        if claims and claims != CLAIM_COLUMNS:  # an older pytest-tom: claims are transient
            db.execute("DROP TABLE claims")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute("COMMIT")
    except BaseException:
        rollback(db)
        raise


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


def is_lock(exc: sqlite3.Error) -> bool:
    """Is this SQLite's "database is locked" / "busy" (another connection holds a lock)?"""
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def rollback(db: sqlite3.Connection) -> None:
    """Roll back what is still open, without raising: after SQLITE_FULL SQLite has already
    rolled back, and a second error would hide the first."""
    if db.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")


def has_reply_column(db: sqlite3.Connection) -> bool:
    """Whether the responses table has the `reply` column (a read-only cache written before
    it may not)."""
    return "reply" in _columns(db, "responses")
