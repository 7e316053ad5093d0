"""Finding 1 of the clock issue: one guest's webhooks point at a receiver that accepts connections and
never answers, and its practice moves queue delivery after delivery, each holding a delivery process
for the whole webhook timeout. Meanwhile other tables' clocks run out: every one of their timeouts is
resolved by the sweep within 2 s of its deadline.

Before the worker's queues were split, the sweep ticks waited behind the deliveries on the one
``celery`` queue and expired there ("Discarding revoked task: games.deadlines_sweep"): no timeout was
resolved at all while the flood lasted.

The service runs as the run command starts it: uvicorn, and the Procfile's Celery processes (its
workers and beat, whatever they are), on a database and broker of the test's own: an SQLite file and
the filesystem broker in a scratch folder (embedded defaults), or, when the run is on PostgreSQL and
Redis, a scratch PostgreSQL database and a ``redis-server`` of its own (so the Procfile's queue names
are used as they are and nothing else on the machine's Redis takes or sends a task).

Nobody at the victims' tables sends a request after their round started, and the ledger is read with
``GET games/{id}/events``, which resolves nothing: every clock row is the sweep's.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench import harness
from bench.flood import SilentReceiver, WebhookFlood

TABLES = 6
TURN_SECONDS = 5
FLOOD_MOVES = 30  # x 10 webhooks x 5 s each: far more delivery time than the test lasts
LAG_BOUND_SECONDS = 2.0


@pytest.fixture
def service() -> Iterator[str]:
    """The service's base URL; everything it started is stopped after the test."""
    tmp = Path(tempfile.mkdtemp(prefix="clocks-flood-"))
    settings = {**harness.UNTHROTTLED, "WEBHOOK_ALLOW_PRIVATE": "1", "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
                "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1"}
    database = os.environ.get("DATABASE_URL", "")
    redis: harness.RedisServer | None = None
    scratch = None
    if database.startswith(("postgres://", "postgresql://")):
        scratch = harness.database_url_named(database, f"test_clocks_flood_{os.getpid()}")
        harness.database_create(scratch, fresh=True)
        redis = harness.RedisServer(tmp)
        redis.start()
        settings.update(CELERY_BROKER_URL=redis.url(0), CACHE_URL=redis.url(1))
    env = harness.server_env(tmp, scratch, **settings)
    processes: list[harness.Process] = []
    try:
        harness.migrate(env)
        port = harness.free_port()
        web = harness.uvicorn("maumau.asgi:application", port, env=env, log=tmp / "web.log")
        processes.append(web)
        processes += harness.procfile_celery(env, tmp)
        web.wait_for_http(port, timeout=90)
        yield f"http://127.0.0.1:{port}"
    finally:
        for process in processes:
            process.stop(timeout=10)
        if redis is not None:
            redis.stop()
        if scratch is not None:
            harness.database_drop(scratch)


def guest(client: httpx.Client, name: str) -> dict[str, str]:
    token = client.post("/api/v1/players", json={"name": name}).raise_for_status().json()["token"]
    return {"Authorization": f"Token {token}"}


def round_of_two_who_never_move(client: httpx.Client, index: int) -> tuple[int, dict[str, str], datetime]:
    """A round of two guests; returns its id, its host's headers and the first turn's deadline."""
    host, other = guest(client, f"Host {index}"), guest(client, f"Other {index}")
    table = client.post("/api/v1/tables", headers=host, json={
        "rules": "classic", "options": {"turn_seconds": TURN_SECONDS, "timeout_policy": "skip"}}).raise_for_status()
    table_id = table.json()["id"]
    client.post(f"/api/v1/tables/{table_id}/join", headers=other).raise_for_status()
    view = client.post(f"/api/v1/tables/{table_id}/rounds", headers=host, json={}).raise_for_status().json()
    return view["id"], host, datetime.fromisoformat(view["deadline"].replace("Z", "+00:00"))


def first_clock_row(client: httpx.Client, game: int, headers: dict[str, str]) -> dict[str, Any] | None:
    ledger = client.get(f"/api/v1/games/{game}/events", headers=headers).raise_for_status().json()
    return next((row for row in ledger["moves"] if row["actor"] == "clock"), None)


def test_every_timeout_is_resolved_within_2_s_while_a_guests_webhooks_never_answer(service: str) -> None:
    receiver = SilentReceiver()
    flood = WebhookFlood(service, receiver.port)
    try:
        flood.sign_up()
        flood.start(moves=FLOOD_MOVES).wait(timeout=120)
        assert flood.moves == FLOOD_MOVES, flood.errors
        with httpx.Client(base_url=service, timeout=30) as client:
            rounds = [round_of_two_who_never_move(client, index) for index in range(TABLES)]
            last_deadline = max(deadline for _game, _host, deadline in rounds)
            time.sleep(max(0.0, (last_deadline - datetime.now(UTC)).total_seconds()) + LAG_BOUND_SECONDS + 1)
            lags = {}
            for game, host, deadline in rounds:
                row = first_clock_row(client, game, host)
                lags[game] = None if row is None else (
                    datetime.fromisoformat(row["created_at"].replace("Z", "+00:00")) - deadline).total_seconds()
    finally:
        flood.stop()
        receiver.close()
    assert all(lag is not None and 0 <= lag < LAG_BOUND_SECONDS for lag in lags.values()), (
        f"seconds from each deadline to its timeout (None: not resolved): {lags}")
