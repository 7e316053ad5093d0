"""A real ASGI server (uvicorn in a subprocess) for the stream and long-poll tests.

Streams and long-polls are about connections held open while another client moves, so these
tests talk HTTP to a server process, on a database of their own: an SQLite file in a temporary
folder, or (when DATABASE_URL is PostgreSQL) a fresh PostgreSQL database dropped at the end.
One server per wake-up channel: ``poll`` always, ``postgres`` on PostgreSQL, ``redis`` when a
Redis answers (STREAMS_TEST_REDIS_URL, default redis://127.0.0.1:6379/2).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench import harness

REDIS_URL = os.environ.get("STREAMS_TEST_REDIS_URL", "redis://127.0.0.1:6379/2")


def _redis_up() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except Exception:
        return False


def stream_server_env(tmp: Path, database_url: str | None) -> dict[str, str]:
    return harness.server_env(tmp, database_url, **harness.UNTHROTTLED, STREAMS_KEEPALIVE_SECONDS="1",
                             STREAMS_TOKEN_RECHECK_SECONDS="1")


@pytest.fixture(scope="session")
def streams_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str | None]]:
    """A migrated database for the server processes (not the test database of pytest-django)."""
    tmp = tmp_path_factory.mktemp("streams-server")
    base = harness.postgres_url()
    database_url = None
    if base:
        database_url = harness.database_url_named(base, f"maumau_streams_{os.getpid()}")
        harness.database_create(database_url, fresh=True)
    harness.migrate(stream_server_env(tmp, database_url))
    yield tmp, database_url
    if database_url:
        harness.database_drop(database_url)


@pytest.fixture(scope="session")
def _server_pool(streams_database: tuple[Path, str | None]) -> Iterator[dict[str, Any]]:
    pool: dict[str, Any] = {"database": streams_database, "servers": {}}
    yield pool
    for process, _url in pool["servers"].values():
        process.stop(timeout=10)


def _start(pool: dict[str, Any], channel: str, name: str = "") -> str:
    key = name or channel
    if key in pool["servers"]:
        return str(pool["servers"][key][1])
    tmp, database_url = pool["database"]
    env = stream_server_env(tmp, database_url)
    env["STREAMS_CHANNEL"] = REDIS_URL if channel == "redis" else channel
    port = harness.free_port()
    process = harness.uvicorn("maumau.asgi:application", port, env=env, log=tmp / f"uvicorn-{key}.log")
    url = f"http://127.0.0.1:{port}"
    pool["servers"][key] = (process, url)  # stopped with the pool, even if it never answers
    process.wait_for_http(port)
    return url


CHANNELS = ["poll", "postgres", "redis"]


@pytest.fixture(params=CHANNELS)
def server(request: pytest.FixtureRequest, _server_pool: dict[str, Any]) -> str:
    """Base URL of a uvicorn serving the whole app, woken through the channel of this param."""
    channel = request.param
    if channel == "postgres" and not harness.postgres_url():
        pytest.skip("the postgres channel needs DATABASE_URL to point at PostgreSQL")
    if channel == "redis" and not _redis_up():
        pytest.skip(f"the redis channel needs a Redis at {REDIS_URL} (STREAMS_TEST_REDIS_URL)")
    return _start(_server_pool, channel)


@pytest.fixture(params=["postgres", "redis"])
def two_servers(request: pytest.FixtureRequest, _server_pool: dict[str, Any]) -> tuple[str, str]:
    """Two uvicorn processes on one database, woken through the PostgreSQL or the Redis channel."""
    channel = request.param
    if not harness.postgres_url():
        pytest.skip("several processes share a PostgreSQL database (DATABASE_URL)")
    if channel == "redis" and not _redis_up():
        pytest.skip(f"the redis channel needs a Redis at {REDIS_URL} (STREAMS_TEST_REDIS_URL)")
    return _start(_server_pool, channel), _start(_server_pool, channel, f"{channel}-second")


@pytest.fixture
def poll_server_pid(poll_server: str, _server_pool: dict[str, Any]) -> int:
    """The process id of the ``poll_server`` (its threads and memory are read through /proc)."""
    return int(_server_pool["servers"]["poll"][0].pid)


@pytest.fixture
def poll_server(_server_pool: dict[str, Any]) -> str:
    """The serverless default only (for tests of behaviour that does not depend on the channel)."""
    return _start(_server_pool, "poll")


@pytest.fixture(autouse=True)
def connections_not_kept() -> Iterator[None]:
    """Each test opens (and checks) its own delivery connections: none kept from the test before."""
    yield
    from streams import outbound

    outbound.reset()
