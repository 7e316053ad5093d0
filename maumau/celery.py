"""The Celery app. Broker from CELERY_BROKER_URL; the default filesystem transport needs no server.

Worker settings, chosen for the clock tasks (see games/tasks.py and games/clocks.py):

- The expiry tasks are idempotent and acknowledge late (``acks_late``, set per task): a worker
  killed with reserved or running tasks leaves their messages to be redelivered, not lost (a
  redelivered one finds its version stale and does nothing).
- ``worker_prefetch_multiplier = 1``: a worker reserves one ready task per process, so a busy or
  dying worker holds back as little as possible. (ETA tasks are reserved regardless of prefetch
  until their time comes; that is why ETAs are capped and the sweep is the backstop.)
- Redis ``visibility_timeout`` (settings, CELERY_VISIBILITY_TIMEOUT, default 1 h) is larger than the
  longest ETA scheduled (MAUMAU_CLOCK_ETA_MAX_SECONDS, default 15 min), so Redis never hands a
  waiting ETA task to a second worker; messages of a killed worker come back after it, and the
  sweep resolves their deadlines long before. RabbitMQ's consumer_timeout (30 min) is above the cap too.
- Time limits: a timeout is a few milliseconds of work; a task stuck on a lock is cancelled after
  ``task_soft_time_limit`` / killed after ``task_time_limit`` and its deadline left to the sweep.
- Beat runs ONE scheduler (the Procfile's ``beat`` process): the sweep every
  MAUMAU_CLOCK_SWEEP_SECONDS; each tick expires after one period, so ticks never pile up.
"""

import os
from typing import Any

from celery import Celery

from maumau import observability

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")

app = Celery("maumau")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    worker_prefetch_multiplier=1,
    task_time_limit=int(os.environ.get("CELERY_TASK_TIME_LIMIT", "60")),
    task_soft_time_limit=int(os.environ.get("CELERY_TASK_SOFT_TIME_LIMIT", "50")),
    worker_cancel_long_running_tasks_on_connection_loss=True,
    broker_connection_retry_on_startup=True,
    # A move is already committed when its clock task is sent: do not hold the request long
    # if the broker is away (the sweep resolves the deadline anyway).
    task_publish_retry_policy={"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5},
)
app.autodiscover_tasks()
observability.celery_signals_connect()


def _fire_more_timers_per_tick() -> None:
    """Let the worker's event loop fire every due ETA timer per tick, not 10.

    kombu's ``Hub.fire_timers`` fires at most ``max_timers=10`` due entries per loop iteration and
    then polls with a 1 s timeout when that cap was hit, so a burst of more than 10 deadlines
    falling due together (many tables on the same clock) waits up to a second for the rest
    (``python -m bench.clocks`` shows the lag).
    """
    from kombu.asynchronous.hub import Hub

    original = Hub.fire_timers
    if getattr(original, "maumau_patched", False):
        return

    def fire_timers(self: Hub, min_delay: float = 1, max_delay: float = 10, max_timers: int = 10,
                    propagate: tuple[type[BaseException], ...] = ()) -> float:
        return original(self, min_delay=min_delay, max_delay=max_delay, max_timers=max(max_timers, 1000),
                        propagate=propagate)

    fire_timers.maumau_patched = True  # type: ignore[attr-defined]
    Hub.fire_timers = fire_timers  # type: ignore[method-assign]


_fire_more_timers_per_tick()


@app.on_after_configure.connect
def clocks_beat_schedule(sender: Celery, **kwargs: Any) -> None:
    """The deadline sweep: the backstop that resolves every passed deadline (games/clocks.py)."""
    from django.conf import settings

    period = float(getattr(settings, "MAUMAU_CLOCK_SWEEP_SECONDS", 2.0))
    queue = getattr(settings, "MAUMAU_CLOCK_QUEUE", "celery")
    sender.add_periodic_task(period, sender.signature("games.deadlines_sweep"), name="clocks-sweep",
                             expires=period, queue=queue)
