"""A lock one process at a time holds, tried without waiting, released when its holder ends however it
ends: PostgreSQL's session advisory lock (a killed worker's connection closes, the server lets go), or
on SQLite an ``flock`` on a file beside the database (the kernel lets go). Never a lease to outlast:
after a ``kill -9`` the next try succeeds at once.

Used by the clock sweep (play/clocks.py), so that ticks that piled up in the queue, or run at once on
several worker processes, are no-ops while one sweep works through the passed deadlines.
"""

from __future__ import annotations

import fcntl
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from django.db import DatabaseError, connection

_in_process = threading.Lock()  # an in-memory SQLite database (the tests): one process, so one lock


@contextmanager
def lock_try(name: str) -> Iterator[bool]:
    """Yields whether this process now holds the lock ``name``; releases it on leaving."""
    if connection.vendor == "postgresql":
        key = zlib.crc32(name.encode()) - (1 << 31)  # a stable signed 32-bit key
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
            held = bool(cursor.fetchone()[0])
        try:
            yield held
        finally:
            if held:
                with suppress(DatabaseError), connection.cursor() as cursor:  # a lost connection let go already
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
        return
    database = str(connection.settings_dict["NAME"])
    if database.startswith("file:") or database == ":memory:" or not Path(database).parent.is_dir():
        held = _in_process.acquire(blocking=False)
        try:
            yield held
        finally:
            if held:
                _in_process.release()
        return
    with open(f"{database}.{name}.lock", "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
