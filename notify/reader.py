"""The deliveries process's reader: a thread that takes the outbox and the due retries in batches.

A move writes an :class:`~notify.models.Outbox` row in its own transaction; nothing goes through the
broker. Each Celery worker that consumes the deliveries queue (the Procfile's ``deliveries``) runs one
reader beside its tasks: it claims up to ``DELIVERY_READ_BATCH`` outbox rows and as many due
retries, judges and writes them in a few statements per batch (services.outbox_read,
services.retries_read) and hands the sends to the process's outbound loop; the outcomes are recorded
by the process's desk. Between batches it waits: on PostgreSQL for the outbox's notification (a
trigger on the outbox notifies ``notify_outbox`` at the commit of a move that wrote rows; the reader
LISTENs on a connection of its own), at most ``DELIVERY_READ_IDLE_SECONDS`` (the due retries are
looked for then, and a notification lost while that connection was down is found); then it lets a
batch gather until ``DELIVERY_READ_SECONDS`` after the last read ended. A busy outbox is read
``DELIVERY_READ_SECONDS`` after the last read (at once again while batches come full), an idle one costs a query per
``DELIVERY_READ_IDLE_SECONDS``, and a move in a quiet moment is read at once. On SQLite the reader
polls every ``DELIVERY_READ_SECONDS``. Not a Celery message per move: one cost the worker about 1 ms,
more than the rest of a push. A reader needs only the database: a broker outage stops no push, and a
worker killed mid-batch leaves its uncommitted claim to the next reader (its sent rows' leases run
out and the sweep sends them again, as before).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from django.conf import settings
from django.db import connection

from streams import outbound

log = logging.getLogger(__name__)

_started: dict[int, threading.Thread] = {}
_lock = threading.Lock()


def start() -> threading.Thread | None:
    """Start this process's reader (once per process); None when DELIVERY_READER is off."""
    if not settings.DELIVERY_READER:
        return None
    with _lock:
        thread = _started.get(os.getpid())
        if thread is None or not thread.is_alive():
            thread = _started[os.getpid()] = threading.Thread(target=_run, name="deliveries-reader", daemon=True)
            thread.start()
        return thread


#: Due retries are looked for this often (they wait seconds anyway); the outbox at every round.
RETRIES_READ_SECONDS = 0.5


def read_once(*, retries: bool = True) -> int:
    """One round: a batch of the outbox and (``retries``) one of the due retries; how many rows were
    taken. When a push service that failed answers again, the retries it made wait are due at once:
    the backlog of a stall drains when the service is back, not up to a back-off later."""
    from notify import services

    limit = int(settings.DELIVERY_READ_BATCH)
    taken = services.outbox_read(limit=limit)
    back = outbound.outbound().origin_back
    if back.is_set():
        back.clear()
        return taken + services.retries_read(limit=limit, ahead=float(settings.NOTIFY_BACKOFF_MAX_SECONDS))
    return taken + (services.retries_read(limit=limit) if retries else 0)


class Wakeup:
    """The outbox's notification on PostgreSQL: :meth:`wait` returns when a move that wrote outbox
    rows committed (True), or after ``seconds`` (False). On a connection of its own in autocommit,
    opened on first use and again after it failed; without PostgreSQL (or while its connection cannot
    be opened) :meth:`wait` sleeps ``fallback`` seconds, a poll."""

    CHANNEL = "notify_outbox"

    def __init__(self) -> None:
        self.conn: Any = None

    def _listening(self) -> Any:
        if self.conn is None or self.conn.closed:
            import psycopg

            params = connection.get_connection_params()
            self.conn = psycopg.connect(**{**params, "autocommit": True, "application_name": "maumau-reader"})
            self.conn.execute(f"LISTEN {self.CHANNEL}")
        return self.conn

    def wait(self, seconds: float, fallback: float) -> bool:
        if connection.vendor != "postgresql":
            time.sleep(fallback)
            return False
        try:
            conn = self._listening()
            woken = any(True for _note in conn.notifies(timeout=seconds, stop_after=1))
            if woken:  # the others of the same moment wake nobody later
                for _note in conn.notifies(timeout=0):
                    pass
            return woken
        except Exception:  # the database away: poll until it is back
            log.warning("deliveries: the reader's wake-up connection failed; polling", exc_info=True)
            self.close()
            time.sleep(fallback)
            return False

    def close(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:  # noqa: BLE001 - already broken
                pass
            self.conn = None


def _run() -> None:
    failures = 0
    retries_read_at = 0.0
    wakeup = Wakeup()
    while True:
        began = time.monotonic()
        try:
            retries = began - retries_read_at >= RETRIES_READ_SECONDS
            if retries:
                retries_read_at = began
            outbound.connections_mended()  # one the database ended is replaced
            taken = read_once(retries=retries)  # on the thread's own connection, kept from batch to batch
            failures = 0
        except Exception:  # the database away (the drill): try again, less often while it lasts
            failures += 1
            log.warning("deliveries: the reader could not read (%s in a row)", failures, exc_info=failures == 1)
            time.sleep(min(2.0, 0.1 * failures))
            continue
        if taken >= int(settings.DELIVERY_READ_BATCH):
            continue
        read_end = time.monotonic()
        gather = float(settings.DELIVERY_READ_SECONDS)
        wakeup.wait(max(gather, float(settings.DELIVERY_READ_IDLE_SECONDS)), fallback=gather)
        rest = gather - (time.monotonic() - read_end)
        if rest > 0:
            time.sleep(rest)  # let a batch gather


def worker_queues_consumed(consumer: Any) -> bool:
    """Whether a worker consumes the deliveries queue (``worker_ready``'s sender, its consumer)."""
    try:
        names = set(consumer.app.amqp.queues.consume_from or consumer.app.amqp.queues)
    except Exception:
        return False
    return settings.MAUMAU_DELIVERY_QUEUE in names
