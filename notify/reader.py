"""The deliveries process's reader: a thread that takes the outbox and the due retries in batches.

A move writes an :class:`~notify.models.Outbox` row in its own transaction; nothing goes through the
broker. Each Celery worker that consumes the deliveries queue (the Procfile's ``deliveries``) runs one
reader beside its tasks: every ``DELIVERY_READ_SECONDS`` (at once again while batches come full) it
claims up to ``DELIVERY_READ_BATCH`` outbox rows and as many due retries, judges and writes them in a
few queries per batch (services.outbox_read, services.retries_read) and hands the sends to the
process's outbound loop; the outcomes are recorded by the process's desk. A poll, not a message per
move: one Celery message cost the worker about 1 ms, more than the rest of a push; an empty poll is a
single indexed query. A reader needs only the database: a broker outage stops no push, and a worker
killed mid-batch leaves its uncommitted claim to the next reader (its sent rows' leases run out and
the sweep sends them again, as before).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from django.conf import settings

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
            outbound.outbound().reader_attached = True  # an origin back from failing waits for its read
            thread.start()
        return thread


#: When an origin comes back, the outbox is read up to this many full batches before it is let go.
BACK_BATCHES = 4
#: Due retries are looked for this often (they wait seconds anyway); the outbox at every round.
RETRIES_READ_SECONDS = 0.5


def read_once(*, retries: bool = True) -> int:
    """One round: a batch of the outbox and (``retries``) one of the due retries; how many rows were
    taken. When a push service that failed answers again, the retries it made wait are due at once:
    the backlog of a stall drains when the service is back, not up to a back-off later."""
    from notify import services

    limit = int(settings.DELIVERY_READ_BATCH)
    sender = outbound.outbound()
    if not sender.origin_back.is_set():
        return services.outbox_read(limit=limit) + (services.retries_read(limit=limit) if retries else 0)
    # An origin came back: what was committed until now is read before its waiting jobs go (the newest
    # your_turn of a game replaces the older one first), then its held-back retries, then it is let go.
    sender.origin_back.clear()
    count = sender.back_count
    taken = 0
    for _batch in range(BACK_BATCHES):
        got = services.outbox_read(limit=limit)
        taken += got
        if got < limit:
            break
    taken += services.retries_read(limit=limit, ahead=float(settings.NOTIFY_BACKOFF_MAX_SECONDS))
    sender.held_released(count)
    return taken


def _run() -> None:
    failures = 0
    retries_read_at = 0.0
    while True:
        try:
            now = time.monotonic()
            retries = now - retries_read_at >= RETRIES_READ_SECONDS
            if retries:
                retries_read_at = now
            outbound.connections_mended()  # one the database ended is replaced
            taken = read_once(retries=retries)  # on the thread's own connection, kept from batch to batch
            failures = 0
        except Exception:  # the database away (the drill): try again, less often while it lasts
            failures += 1
            log.warning("deliveries: the reader could not read (%s in a row)", failures, exc_info=failures == 1)
            time.sleep(min(2.0, 0.1 * failures))
            continue
        if taken < int(settings.DELIVERY_READ_BATCH):
            time.sleep(float(settings.DELIVERY_READ_SECONDS))


def worker_queues_consumed(consumer: Any) -> bool:
    """Whether a worker consumes the deliveries queue (``worker_ready``'s sender, its consumer)."""
    try:
        names = set(consumer.app.amqp.queues.consume_from or consumer.app.amqp.queues)
    except Exception:
        return False
    return settings.MAUMAU_DELIVERY_QUEUE in names
