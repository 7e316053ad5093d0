"""The worker settings the clock relies on (maumau/celery.py, settings): checked, not assumed."""

from __future__ import annotations

from django.conf import settings

from maumau.celery import app
from play import tasks


def test_expiry_tasks_acknowledge_late_and_the_sweep_does_not() -> None:
    assert tasks.turn_expire_task.acks_late and tasks.hermann_expire_task.acks_late
    assert not tasks.deadlines_sweep_task.acks_late


def test_a_worker_reserves_one_task_per_process_and_tasks_have_time_limits() -> None:
    assert app.conf.worker_prefetch_multiplier == 1
    assert 0 < app.conf.task_soft_time_limit < app.conf.task_time_limit


def test_redis_never_redelivers_a_waiting_eta_task_before_its_time() -> None:
    """A broker ETA is capped below the visibility timeout (longer deadlines go to the sweep)."""
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("visibility_timeout")
    if settings.CELERY_BROKER_URL.startswith("redis"):
        assert visibility is not None
    if visibility is not None:
        assert settings.MAUMAU_CLOCK_ETA_MAX_SECONDS < visibility


def test_beat_runs_the_sweep_every_period_and_drops_ticks_that_waited_longer() -> None:
    entry = app.conf.beat_schedule["clocks-sweep"]
    assert entry["task"] == tasks.deadlines_sweep_task.name
    assert entry["schedule"] == settings.MAUMAU_CLOCK_SWEEP_SECONDS
    assert entry["options"]["expires"] == settings.MAUMAU_CLOCK_SWEEP_SECONDS
