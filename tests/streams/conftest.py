"""A real ASGI server (uvicorn in a subprocess) for the stream and long-poll tests.

Streams and long-polls are about connections held open while another client moves, so these
tests talk HTTP to a server process, on a database of their own: an SQLite file in a temporary
folder, or (when DATABASE_URL is PostgreSQL) a fresh PostgreSQL database dropped at the end.
One server per wake-up channel: ``poll`` always, ``postgres`` on PostgreSQL, ``redis`` when a
Redis answers (STREAMS_TEST_REDIS_URL, default redis://127.0.0.1:6379/2).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("STREAMS_TEST_REDIS_URL", "redis://127.0.0.1:6379/2")


def _postgres_url() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else None


def _redis_up() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except Exception:
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_env(tmp: Path, database_url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL")}
    env.update({
        "DJANGO_SETTINGS_MODULE": "maumau.settings",
        "MAUMAU_VAR_DIR": str(tmp),
        "MAUMAU_WRITE_RATE": "100000/min",
        "MAUMAU_SIGNUP_RATE": "100000/min",
        "STREAMS_KEEPALIVE_SECONDS": "1",
        "PYTHONPATH": str(ROOT),
    })
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


@pytest.fixture(scope="session")
def streams_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str | None]]:
    """A migrated database for the server processes (not the test database of pytest-django)."""
    tmp = tmp_path_factory.mktemp("streams-server")
    base = _postgres_url()
    database_url = None
    if base:
        import psycopg

        name = f"maumau_streams_{os.getpid()}"
        admin_url = base.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name}")
            conn.execute(f"CREATE DATABASE {name}")
        database_url = base.rsplit("/", 1)[0] + "/" + name
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT,
                   env=_server_env(tmp, database_url), check=True)
    yield tmp, database_url
    if base:
        import psycopg

        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


_servers: dict[str, tuple[subprocess.Popen[bytes], str]] = {}


@pytest.fixture(scope="session")
def _server_pool(streams_database: tuple[Path, str | None]) -> Iterator[dict[str, Any]]:
    pool: dict[str, Any] = {"database": streams_database, "servers": {}}
    yield pool
    for process, _url in pool["servers"].values():
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def _start(pool: dict[str, Any], channel: str) -> str:
    if channel in pool["servers"]:
        return str(pool["servers"][channel][1])
    tmp, database_url = pool["database"]
    env = _server_env(tmp, database_url)
    env["STREAMS_CHANNEL"] = REDIS_URL if channel == "redis" else channel
    port = _free_port()
    log = open(tmp / f"uvicorn-{channel}.log", "wb")  # noqa: SIM115 - lives as long as the server
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "maumau.asgi:application", "--host", "127.0.0.1", "--port", str(port),
         "--log-level", "warning"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        if process.poll() is not None:
            raise RuntimeError(f"uvicorn exited: {(tmp / f'uvicorn-{channel}.log').read_text()[-2000:]}")
        try:
            if httpx.get(url + "/api/v1/me", timeout=1).status_code == 401:
                break
        except httpx.HTTPError:
            time.sleep(0.05)
    pool["servers"][channel] = (process, url)
    return url


CHANNELS = ["poll", "postgres", "redis"]


@pytest.fixture(params=CHANNELS)
def server(request: pytest.FixtureRequest, _server_pool: dict[str, Any]) -> str:
    """Base URL of a uvicorn serving the whole app, woken through the channel of this param."""
    channel = request.param
    if channel == "postgres" and not _postgres_url():
        pytest.skip("the postgres channel needs DATABASE_URL to point at PostgreSQL")
    if channel == "redis" and not _redis_up():
        pytest.skip(f"the redis channel needs a Redis at {REDIS_URL} (STREAMS_TEST_REDIS_URL)")
    return _start(_server_pool, channel)


@pytest.fixture
def poll_server(_server_pool: dict[str, Any]) -> str:
    """The serverless default only (for tests of behaviour that does not depend on the channel)."""
    return _start(_server_pool, "poll")
