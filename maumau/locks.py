"""A lock one process at a time holds, tried without waiting, released when its holder ends however it
ends: PostgreSQL's session advisory lock on a connection of its own (a killed worker's connection
closes, the server lets go), or on SQLite an ``flock`` on a file beside the database (the kernel
lets go). Never a lease to outlast:
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

from django.db import connection

_in_process = threading.Lock()  # an in-memory SQLite database (the tests): one process, so one lock


@contextmanager
def lock_try(name: str) -> Iterator[bool]:
    """Yields whether this process now holds the lock ``name``; releases it on leaving."""
    if connection.vendor == "postgresql":
        # A session of its own, never the pooled one the work runs on: a pooled session given back while
        # it held the lock (after a connection error, a retry on a fresh one) would keep holding it.
        import psycopg

        params = {k: v for k, v in connection.get_connection_params().items()
                  if k not in ("pool", "cursor_factory", "prepare_threshold", "context")}
        key = zlib.crc32(name.encode()) - (1 << 31)  # a stable signed 32-bit key
        with psycopg.connect(**params, autocommit=True, connect_timeout=5) as session:
            row = session.execute("SELECT pg_try_advisory_lock(%s)", [key]).fetchone()
            held = bool(row and row[0])
            try:
                yield held
            finally:
                # Let go in the session: the server ends a closed session's backend a moment after the
                # client has gone, and a try in that moment would still find the lock held.
                if held:
                    with suppress(psycopg.Error):  # a broken session: its end lets go all the same
                        session.execute("SELECT pg_advisory_unlock(%s)", [key])
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
