"""The processes that use a response cache: who this process is (for its claims), whether
another is still alive, and who holds the cache when a lock never clears.

A process is told apart by a random token (new in a forked child), its pid, its start
time (clock ticks since boot, from /proc) and the boot it runs in: a pid alone is not
enough, since in a container every run is PID 1.
"""

from __future__ import annotations

import os
import sqlite3
import time
import uuid
from pathlib import Path
from urllib.parse import quote


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


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return False
    return True


def holders(db_path: Path, owner: str, host: str) -> str:
    """Who is using the cache besides the cache object `owner` (of this `host`), from the
    claims (read apart: a WAL reader is not stopped by a writer's lock)."""
    try:
        db = sqlite3.connect(f"file:{quote(str(db_path))}?mode=ro", uri=True, timeout=1.0)
        try:
            rows = db.execute(
                "SELECT host, pid, pstart, boot, min(started), count(*) FROM claims "
                "WHERE owner != ? GROUP BY host, pid ORDER BY min(started)",
                (owner,)).fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        return f"the claims could not be read to say by whom ({exc})"
    if not rows:
        return ("no pytest-tom process has a claim in it: another program holds it "
                "(an sqlite3 shell, a backup or sync tool?)")
    return "in use by " + "; ".join(_describe_holder(host, *row) for row in rows[:5]) + (
        f" and {len(rows) - 5} more" if len(rows) > 5 else "")


def _describe_holder(here: str, host: str, pid: int, pstart: str, boot: str, first: float,
                     claims: int) -> str:
    since = _utc(float(first))
    alive = ""
    if host == here and (not boot or boot == PROCESS.boot):
        began = _process_started(str(pstart)) if pstart else None
        alive = "" if pid_alive(int(pid)) else ", no longer running"
        if began is not None:
            since = f"{_utc(began)} (claiming since {_utc(float(first))})"
    return (f"pytest-tom pid {pid} on host {host}, started {since}, asking {claims} "
            f"request{'s' if claims != 1 else ''}{alive}")


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
