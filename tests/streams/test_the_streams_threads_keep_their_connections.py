"""The streams' database threads keep their connection from call to call (why: ``streams.channels``).
A connection the database ended is replaced; ``db_threads_closed`` lets them all go (the test
database could not be dropped otherwise)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from django.conf import settings as django_settings
from django.db import connection

from streams import channels

ON_POSTGRES = "postgresql" in django_settings.DATABASES["default"]["ENGINE"]


def _backend() -> tuple[int, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return threading.get_ident(), cursor.fetchone()[0]


def _calls(count: int) -> list[tuple[int, int]]:
    async def run() -> list[tuple[int, int]]:
        return [await channels.db(_backend) for _ in range(count)]

    return asyncio.run(run())


def _open_sessions() -> set[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity"
                       " WHERE datname = current_database() AND pid <> pg_backend_pid()")
        return {row[0] for row in cursor.fetchall()}


def _lent() -> int:
    """Connections the pool has lent out (with no pool: the sessions open besides this one)."""
    pool = connection.pool
    if pool is None:
        return len(_open_sessions())
    stats = pool.get_stats()
    return stats["pool_size"] - stats["pool_available"]


@pytest.mark.skipif(not ON_POSTGRES, reason="SQLite has no session to look at")
@pytest.mark.django_db(transaction=True)
def test_each_streams_thread_reads_on_one_connection_until_it_is_closed() -> None:
    channels.db_threads_closed()  # threads of earlier tests start anew
    lent = _lent()
    calls = _calls(24)
    by_thread: dict[int, set[int]] = {}
    for thread, backend in calls:
        by_thread.setdefault(thread, set()).add(backend)
    assert all(len(backends) == 1 for backends in by_thread.values()), by_thread
    assert len(by_thread) <= django_settings.STREAMS_DB_THREADS
    assert _lent() == lent + len(by_thread), "between calls each thread holds its connection"
    channels.db_threads_closed()
    assert _lent() == lent, "closed, the threads hold no connection"


@pytest.mark.skipif(not ON_POSTGRES, reason="SQLite has no session to end")
@pytest.mark.django_db(transaction=True)
def test_a_streams_connection_the_database_ended_is_replaced() -> None:
    channels.db_threads_closed()
    ended = {backend for _thread, backend in _calls(8)}
    with connection.cursor() as cursor:
        for backend in ended:
            cursor.execute("SELECT pg_terminate_backend(%s)", [backend])
    after = _calls(8)
    assert not ended & {backend for _thread, backend in after}
    channels.db_threads_closed()


def _lifespan(application) -> list[str]:
    """Run an ASGI lifespan from start to shutdown; the messages the application sent."""
    incoming = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[str] = []

    async def receive() -> dict:
        return incoming.pop(0)

    async def send(message: dict) -> None:
        sent.append(message["type"])

    asyncio.run(application({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send))
    return sent


@pytest.mark.skipif(not ON_POSTGRES, reason="SQLite has no pool to lend connections")
@pytest.mark.django_db(transaction=True)
def test_a_worker_connects_every_streams_thread_at_startup_before_it_serves() -> None:
    from maumau.asgi import application

    channels.db_threads_closed()
    lent = _lent()
    assert _lifespan(application) == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert _lent() == lent + django_settings.STREAMS_DB_THREADS, "every thread holds its connection"
    backends = {backend for _thread, backend in _calls(3 * django_settings.STREAMS_DB_THREADS)}
    assert _lent() == lent + django_settings.STREAMS_DB_THREADS, "the first calls borrow nothing more"
    assert len(backends) <= django_settings.STREAMS_DB_THREADS
    channels.db_threads_closed()


def test_a_worker_starts_though_its_streams_threads_cannot_connect(monkeypatch) -> None:
    """A database down at a worker's start costs no start: the threads connect at their first call."""
    from django.db import OperationalError

    from maumau.asgi import application

    async def down() -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr(channels, "db_threads_connected", down)
    assert _lifespan(application) == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
