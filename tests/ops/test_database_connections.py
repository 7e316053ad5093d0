"""PostgreSQL connections under real servers: bounded by the pool, kept across requests, and a
connection the server dropped costs no request.

Each server runs on a database of its own, so ``pg_stat_activity`` rows of that database are
exactly the server's connections (counted from the ``postgres`` database, which the tests use).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psycopg
import pytest

from bench import harness

POOL_MAX = 4
#: the streams' threads, each keeping a pooled connection beyond the requests' POOL_MAX
STREAMS_THREADS = 2


pytestmark = pytest.mark.skipif(harness.postgres_url() is None, reason="connection pooling is PostgreSQL's")


def web_env(tmp: Path, database_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "CACHE_URL", "CONN_MAX_AGE")}
    env.update({
        "DJANGO_SETTINGS_MODULE": "maumau.settings",
        "DATABASE_URL": database_url,
        "MAUMAU_VAR_DIR": str(tmp),
        "MAUMAU_WRITE_RATE": "100000/min",
        "MAUMAU_SIGNUP_RATE": "100000/min",
        "MAUMAU_DB_POOL_MIN_SIZE": "1",
        "MAUMAU_DB_POOL_MAX_SIZE": str(POOL_MAX),
        "STREAMS_DB_THREADS": str(STREAMS_THREADS),
        "STREAMS_CHANNEL": "postgres",
        "PYTHONPATH": str(harness.ROOT),
    })
    return env


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    tmp = tmp_path_factory.mktemp("connections")
    url = harness.database_url_named(harness.postgres_url() or "", f"maumau_conns_{os.getpid()}")
    harness.database_create(url, fresh=True)
    harness.migrate(web_env(tmp, url))
    yield tmp, url
    harness.database_drop(url)


@pytest.fixture(params=["uvicorn", "gunicorn"])
def server(request: pytest.FixtureRequest, database: tuple[Path, str]) -> Iterator[tuple[str, str]]:
    """(base URL, database URL) of one server process: uvicorn (ASGI) or gunicorn with threads (WSGI)."""
    tmp, url = database
    terminate_backends(url)
    port = harness.free_port()
    env = web_env(tmp, url)
    log = tmp / f"{request.param}.log"
    if request.param == "uvicorn":
        process = harness.uvicorn("maumau.asgi:application", port, env=env, log=log)
    else:
        process = harness.gunicorn("maumau.wsgi:application", port, workers=1, threads=8, env=env, log=log)
    try:
        process.wait_for_http(port)
        yield f"http://127.0.0.1:{port}", url
    finally:
        process.stop(timeout=10)


def _admin(url: str) -> psycopg.Connection:
    return psycopg.connect(harness.database_url_named(url, "postgres"), autocommit=True)


def backends(url: str) -> dict[int, str]:
    """The server's connections: backend pid -> application_name."""
    name = url.rsplit("/", 1)[1]
    with _admin(url) as conn:
        rows = conn.execute("SELECT pid, application_name FROM pg_stat_activity WHERE datname = %s AND pid <> "
                            "pg_backend_pid()", (name,)).fetchall()
    return {pid: app for pid, app in rows}


def terminate_backends(url: str) -> int:
    name = url.rsplit("/", 1)[1]
    with _admin(url) as conn:
        rows = conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s "
                            "AND pid <> pg_backend_pid()", (name,)).fetchall()
    return len(rows)


def pooled(found: dict[int, str]) -> set[int]:
    """Backends of the pool (not the streams' LISTEN connection)."""
    return {pid for pid, app in found.items() if not app.endswith("-listen")}


class Round:
    """A person against the basic bot, moving by the first of their legal actions; a new round when one ends."""

    def __init__(self, base: str, name: str) -> None:
        body = httpx.post(base + "/api/v1/players", json={"name": name}, timeout=30).json()
        self.http = httpx.Client(base_url=base, headers={"Authorization": f"Token {body['token']}"}, timeout=30)
        table = self.http.post("/api/v1/tables", json={"rules": "classic"}).json()
        self.table = table["id"]
        assert self.http.post(f"/api/v1/tables/{self.table}/bots", json={"level": "basic"}).status_code == 201
        self.start()

    def start(self) -> None:
        answer = self.http.post(f"/api/v1/tables/{self.table}/rounds")
        assert answer.status_code == 201, answer.text
        self.view = answer.json()

    def move(self) -> int:
        if self.view["status"] != "active":
            self.start()
        answer = self.http.post(f"/api/v1/games/{self.view['id']}/actions", json=self.view["legal_actions"][0])
        assert answer.status_code == 200, answer.text
        self.view = answer.json()
        return answer.status_code


def test_connections_stay_within_the_pool_after_bursts_and_a_move_opens_none(server: tuple[str, str]) -> None:
    base, url = server
    me = Round(base, "Ada")

    def burst_client(number: int) -> list[int]:
        with httpx.Client(base_url=base, headers=me.http.headers, timeout=30) as http:
            return [http.get(path).status_code for path in ("/api/v1/me", f"/api/v1/games/{me.view['id']}",
                                                            "/api/v1/tables?status=any", "/api/v1/me/stats")]

    with ThreadPoolExecutor(max_workers=25) as clients:
        for _burst in range(3):
            codes = [code for codes in clients.map(burst_client, range(25)) for code in codes]
            assert set(codes) == {200}
            found = backends(url)
            assert len(pooled(found)) <= POOL_MAX + STREAMS_THREADS, found  # the pool's bound
            assert len(found) <= POOL_MAX + STREAMS_THREADS + 1, found  # + the LISTEN connection (ASGI only)

    before = pooled(backends(url))
    for _ in range(20):
        me.move()
    after = pooled(backends(url))
    assert after <= before, f"moves opened connections {after - before}"


def test_connections_the_server_dropped_cost_no_request(server: tuple[str, str]) -> None:
    base, url = server
    me = Round(base, "Bo")
    game = me.view["id"]
    # Warm every thread up (each a connection of its own without a pool), then drop them all.
    with ThreadPoolExecutor(max_workers=8) as clients:
        list(clients.map(lambda _: me.http.get("/api/v1/me").status_code, range(32)))
        for _round in range(3):
            assert terminate_backends(url) >= 1
            paths = ["/api/v1/me", f"/api/v1/games/{game}", f"/api/v1/games/{game}?wait=0.2&after=100000"] * 8
            codes = list(clients.map(lambda path: me.http.get(path).status_code, paths))
            assert 500 not in codes and not any(code >= 500 for code in codes), codes
            terminate_backends(url)
            started = time.monotonic()
            assert me.move() == 200
            assert time.monotonic() - started < 3.0, "the move waited for the dropped connections"
