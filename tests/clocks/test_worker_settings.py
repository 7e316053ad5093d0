"""The worker settings the clock relies on (maumau/celery.py, settings): checked, not assumed."""

from __future__ import annotations

from django.conf import settings

from maumau.celery import app
from play import tasks
from streams import tasks as stream_tasks
from streams import webhooks


def test_the_bots_task_acknowledges_late_and_the_sweep_does_not() -> None:
    assert tasks.bot_move_task.acks_late
    assert not tasks.deadlines_sweep_task.acks_late


def test_no_clock_task_is_left_to_the_broker() -> None:
    """The clocks are the game rows: the only clock task is the beat's sweep."""
    assert stream_tasks.webhook_deliver.name in app.tasks  # the apps' tasks are registered ...
    names = {name for name in app.tasks if name.startswith(("games.", "streams."))}
    assert names == {"games.bot_move", "games.deadlines_sweep", "games.idempotency_purge",
                     "streams.webhook_deliver", "streams.webhook_sweep"}  # ... and no clock's


def test_a_worker_reserves_one_task_per_process_and_tasks_have_time_limits() -> None:
    assert app.conf.worker_prefetch_multiplier == 1
    assert 0 < app.conf.task_soft_time_limit < app.conf.task_time_limit


def test_redis_never_redelivers_a_waiting_webhook_retry_before_its_time() -> None:
    """The one ETA the product sends, a webhook retry, waits less than the visibility timeout."""
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("visibility_timeout")
    if settings.CELERY_BROKER_URL.startswith("redis"):
        assert visibility is not None
    if visibility is not None:
        assert webhooks.backoff_seconds(settings.WEBHOOK_MAX_ATTEMPTS) < visibility


def test_beat_runs_the_sweep_every_period_and_a_late_tick_still_runs() -> None:
    """A tick that waited in the queue (a worker restarting, a long sweep) runs; it is not discarded
    after one period as before (ticks that piled up are no-ops: tests/clocks/test_sweep_batches.py)."""
    entry = app.conf.beat_schedule["clocks-sweep"]
    assert entry["task"] == tasks.deadlines_sweep_task.name
    assert entry["schedule"] == settings.MAUMAU_CLOCK_SWEEP_SECONDS
    assert entry["options"]["expires"] >= 30 * settings.MAUMAU_CLOCK_SWEEP_SECONDS
    assert "queue" not in entry["options"]  # the routes decide (tests/clocks/test_worker_queues.py)


def test_a_lost_broker_is_retried_within_a_second_not_kombus_2_4_6_seconds() -> None:
    from kombu import Connection

    from maumau.celery import BROKER_RETRY_SECONDS, ClockConsumer, ClockScheduler, broker_retry_quickly

    assert app.conf.worker_consumer == f"{ClockConsumer.__module__}:{ClockConsumer.__name__}"
    assert app.conf.beat_scheduler == f"{ClockScheduler.__module__}:{ClockScheduler.__name__}"
    assert BROKER_RETRY_SECONDS <= 1
    connection = broker_retry_quickly(Connection("memory://"))
    assert connection.ensure_connection.keywords == {
        "interval_start": 0, "interval_step": BROKER_RETRY_SECONDS, "interval_max": BROKER_RETRY_SECONDS}
