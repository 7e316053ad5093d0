"""Integration: a worker that holds an ETA task while Redis goes away stays up, and once Redis is
back the sweep still resolves the round's passed deadline.

Celery 5.7.0's worker died here ("Unrecoverable error: AttributeError ... 'hostname'"): after a lost
connection it closed the connection once more, and the channel's unacknowledged messages (every
reserved ETA task is one) were restored through a transport it had already let go. The clocks send
no ETA task any more (they are the game rows), but a webhook delivery's retry waits in the broker
with its backoff as an ETA: the pin on 5.6.3 is still what keeps a worker alive through a blip.

The worker and beat run on a Redis of the test's own (the outage must not touch the shared one);
the test process sends the retry there by hand, as a failed attempt would. PostgreSQL + Redis only,
as the other worker tests.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from bench import harness
from maumau.celery import app
from streams.tasks import webhook_deliver
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
def celery(broker: harness.RedisServer) -> Iterator[CeleryProcesses]:
    processes = CeleryProcesses(sweep_seconds=1.0)
    processes.env.update(CELERY_BROKER_URL=broker.url(0), CACHE_URL=broker.url(1))
    try:
        yield processes
    finally:
        processes.stop_all()


def test_a_worker_holding_an_eta_task_outlives_a_broker_outage_and_the_turn_is_resolved(
    broker: harness.RedisServer, celery: CeleryProcesses
) -> None:
    celery.start_worker()
    celery.start_beat()
    game, _players = round_with_people("classic", options={"turn_seconds": TURN_SECONDS, "timeout_policy": "skip"})
    with app.connection_for_write(broker.url(0)) as connection:  # a webhook retry, due after the outage
        webhook_deliver.apply_async((10**9,), eta=timezone.now() + timedelta(seconds=TURN_SECONDS),
                                    queue=celery.queue, connection=connection)
    worker = celery.procs["worker"]
    worker.wait_for_output("streams.webhook_deliver[", timeout=10)  # reserved: an unacknowledged ETA message

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


def test_a_deadline_that_passed_in_a_broker_outage_is_resolved_within_2_s_of_its_return(
    broker: harness.RedisServer, celery: CeleryProcesses
) -> None:
    """kombu retries a lost broker after 2, 4, 6 ... s: a worker came back up to 8 s after Redis did, and
    the clocks with it (24 s late in the issue's drill). The worker's consumer retries every 0.5 s."""
    celery.start_worker()
    celery.start_beat()
    game, _players = round_with_people("classic", options={"turn_seconds": 2, "timeout_policy": "skip"})
    broker.stop()
    time.sleep(8.0)  # the deadline passes meanwhile; the worker has tried to reconnect a few times
    assert not clock_moves(game)
    broker.start()
    back = timezone.now()
    end = time.monotonic() + 15
    while not clock_moves(game) and time.monotonic() < end:
        time.sleep(0.1)
    moves = clock_moves(game)
    assert moves, f"the turn was not resolved after the outage\n{celery.logs()}"
    late = (moves[0].created_at - back).total_seconds()
    assert late < 2.0, f"resolved {late:.1f}s after Redis was back\n{celery.logs()}"
