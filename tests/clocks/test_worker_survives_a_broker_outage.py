"""Integration: a worker that holds a round's clock task while Redis goes away stays up, and once
Redis is back the clock still resolves the turn.

Celery 5.7.0's worker died here ("Unrecoverable error: AttributeError ... 'hostname'"): after a lost
connection it closed the connection once more, and the channel's unacknowledged messages (every
reserved ETA clock task is one) were restored through a transport it had already let go. Every
broker blip ended the worker while rounds were being played.

The worker and beat run on a Redis of the test's own (the outage must not touch the shared one);
the test process sends the clock task there by hand, as a move would. PostgreSQL + Redis only, as
the other worker tests.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench import harness
from maumau.celery import app
from play.tasks import turn_expire_task
from tests.clocks.celery_processes import CeleryProcesses, integration_skip_reason
from tests.clocks.clock_helpers import clock_moves, round_with_people

_skip = integration_skip_reason()
pytestmark = [
    pytest.mark.skipif(_skip is not None, reason=_skip or ""),
    pytest.mark.django_db(transaction=True),
]

TURN_SECONDS = 8
OUTAGE_SECONDS = 3.0


@pytest.fixture
def broker(django_db_setup: None) -> Iterator[harness.RedisServer]:
    server = harness.RedisServer(Path(tempfile.mkdtemp(prefix="broker-")))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def celery(broker: harness.RedisServer, settings: Any) -> Iterator[CeleryProcesses]:
    processes = CeleryProcesses(sweep_seconds=1.0)
    processes.env.update(CELERY_BROKER_URL=broker.url(0), CACHE_URL=broker.url(1))
    settings.MAUMAU_CLOCK_QUEUE = processes.queue
    try:
        yield processes
    finally:
        processes.stop_all()


def test_a_worker_holding_a_clock_task_outlives_a_broker_outage_and_the_turn_is_resolved(
    broker: harness.RedisServer, celery: CeleryProcesses
) -> None:
    celery.start_worker()
    celery.start_beat()
    game, _players = round_with_people("classic", options={"turn_seconds": TURN_SECONDS, "timeout_policy": "skip"})
    with app.connection_for_write(broker.url(0)) as connection:
        turn_expire_task.apply_async(kwargs={"game_id": game.pk, "version": game.version}, eta=game.deadline,
                                     queue=celery.queue, connection=connection)
    worker = celery.procs["worker"]
    worker.wait_for_output("games.turn_expire[", timeout=10)  # reserved: an unacknowledged ETA message

    broker.stop()
    time.sleep(OUTAGE_SECONDS)
    assert worker.popen.poll() is None, f"the worker died in the outage\n{celery.logs()}"
    broker.start()

    end = time.monotonic() + TURN_SECONDS + 15
    while not clock_moves(game) and time.monotonic() < end:
        assert worker.popen.poll() is None, f"the worker died after the outage\n{celery.logs()}"
        time.sleep(0.2)
    moves = clock_moves(game)
    assert moves, f"the turn was not resolved after the outage\n{celery.logs()}"
    assert moves[0].action == {"type": "timeout"}
