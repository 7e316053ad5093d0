"""No free database connection is overload, not a bug: the API answers 503 in the error shape of docs/api.md
with Retry-After, counts it in the metrics, and never 500."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from django.db import OperationalError
from django.test import Client
from psycopg_pool import PoolTimeout

from accounts import authentication
from bench import harness
from maumau import observability
from maumau.errors import BUSY_RETRY_AFTER_SECONDS
from tests.ops.test_database_connections import web_env


def _pool_timed_out(*args: Any, **kwargs: Any) -> Any:
    """What Django raises when psycopg's pool had no connection to lend within its timeout."""
    try:
        raise PoolTimeout("couldn't get a connection after 10.00 sec")
    except PoolTimeout as exc:
        raise OperationalError(*exc.args) from exc


def _assert_busy(status: int, headers: Any, body: dict[str, Any]) -> None:
    assert status == 503, body
    assert headers["Retry-After"] == str(BUSY_RETRY_AFTER_SECONDS)
    assert body["error"]["code"] == "service_unavailable"
    assert body["error"]["details"] == {"reason": "database_busy", "retry_after": BUSY_RETRY_AFTER_SECONDS}
    assert body["error"]["message"]


@pytest.mark.django_db
def test_an_api_request_that_finds_no_free_connection_answers_503_with_retry_after(
        make_player: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    ada = make_player("Ada")
    before = observability.DATABASE_BUSY._value.get()
    monkeypatch.setattr(authentication, "token_with_user_and_player", _pool_timed_out)
    client = Client(raise_request_exception=False)
    for path in ("/api/v1/me", "/api/v1/tables"):
        response = client.get(path, HTTP_AUTHORIZATION=f"Token {ada.token}", HTTP_ACCEPT_LANGUAGE="de")
        _assert_busy(response.status_code, response, response.json())
        assert response.json()["error"]["message"] != "The service is busy; try again in a moment."  # German
    response = client.post("/api/v1/tables", {"rules": "classic"}, content_type="application/json",
                           HTTP_AUTHORIZATION=f"Token {ada.token}")
    _assert_busy(response.status_code, response, response.json())
    assert observability.DATABASE_BUSY._value.get() - before == 3


def test_a_database_error_that_is_no_pool_timeout_is_not_called_busy() -> None:
    from maumau.errors import busy_answer

    assert busy_answer(OperationalError("server closed the connection unexpectedly")) is None
    assert busy_answer(ValueError("x")) is None


# --- a real server whose one pooled connection is held by a move waiting for a row lock ----------------


@pytest.fixture(scope="module")
def small_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    if harness.postgres_url() is None:
        pytest.skip("connection pooling is PostgreSQL's")
    tmp = tmp_path_factory.mktemp("busy")
    url = harness.database_url_named(harness.postgres_url() or "", f"maumau_busy_{os.getpid()}")
    harness.database_create(url, fresh=True)
    harness.migrate(web_env(tmp, url))
    yield tmp, url
    harness.database_drop(url)


@pytest.fixture(params=["uvicorn", "gunicorn"])
def busy_server(request: pytest.FixtureRequest, small_pool: tuple[Path, str]) -> Iterator[tuple[str, str]]:
    tmp, url = small_pool
    env = web_env(tmp, url) | {"MAUMAU_DB_POOL_MIN_SIZE": "1", "MAUMAU_DB_POOL_MAX_SIZE": "1",
                                   "MAUMAU_DB_POOL_TIMEOUT": "1", "STREAMS_DB_THREADS": "1"}
    port = harness.free_port()
    log = tmp / f"{request.param}.log"
    if request.param == "uvicorn":
        process = harness.uvicorn("maumau.asgi:application", port, env=env, log=log)
    else:
        process = harness.gunicorn("maumau.wsgi:application", port, workers=1, threads=4, env=env, log=log)
    try:
        process.wait_for_http(port)
        yield f"http://127.0.0.1:{port}", url
    finally:
        process.stop(timeout=10)


def test_when_the_pool_is_exhausted_the_api_answers_503_and_the_held_move_still_lands(
        busy_server: tuple[str, str]) -> None:
    """The requests' one pooled connection is held by a move: another request answers 503. A long-poll
    still answers: the streams' thread reads on the connection it keeps (the pool's second)."""
    base, url = busy_server
    body = httpx.post(base + "/api/v1/players", json={"name": "Ada"}, timeout=30).json()
    ada = httpx.Client(base_url=base, headers={"Authorization": f"Token {body['token']}"}, timeout=30)
    table = ada.post("/api/v1/tables", json={"rules": "classic"}).json()
    assert ada.post(f"/api/v1/tables/{table['id']}/bots", json={"level": "basic"}).status_code == 201
    view = ada.post(f"/api/v1/tables/{table['id']}/rounds").json()
    assert ada.get(f"/api/v1/games/{view['id']}", params={"wait": 1}).status_code in (200, 304)  # the thread keeps one
    moved: dict[str, Any] = {}
    with psycopg.connect(url) as locker:  # holds the round's row: the move waits, holding the requests' connection
        locker.execute("SELECT id FROM games_game WHERE id = %s FOR UPDATE", (view["id"],))
        mover = threading.Thread(target=lambda: moved.update(answer=ada.post(
            f"/api/v1/games/{view['id']}/actions", json=view["legal_actions"][0])))
        mover.start()
        time.sleep(0.5)
        busy = ada.get("/api/v1/me")
        waited = ada.get(f"/api/v1/games/{view['id']}", params={"wait": 5})
        locker.rollback()
    mover.join(30)
    _assert_busy(busy.status_code, busy.headers, busy.json())
    assert waited.status_code in (200, 304), waited.text  # unchanged: 304 once the wait ends
    assert moved["answer"].status_code == 200, moved["answer"].text
    metrics = ada.get("/metrics").text
    assert any(line.startswith("maumau_database_busy_total ") and float(line.split()[1]) >= 1
               for line in metrics.splitlines()), [line for line in metrics.splitlines() if "busy" in line]
