"""The Celery app. Broker from CELERY_BROKER_URL; the default filesystem transport needs no server.

No clock waits in the broker: the turn clocks live in the game rows and the beat sweep resolves them
(play/clocks.py), so a move publishes nothing for them. What the worker runs: the sweeps, the strong
bot's moves (play/tasks.py), webhook deliveries and their retries (streams/tasks.py).

- Idempotent tasks acknowledge late (``acks_late``, set per task: the bot's move): a worker killed
  with reserved or running tasks leaves their messages to be redelivered, not lost (a redelivered
  one finds its version stale and does nothing).
- ``worker_prefetch_multiplier = 1``: a worker reserves one ready task per process, so a busy or
  dying worker holds back as little as possible. ETA tasks are reserved regardless of prefetch
  until their time comes; the only ones are webhook retries, whose deliveries the webhook sweep
  requeues when their message is lost.
- Redis ``visibility_timeout`` (settings, CELERY_VISIBILITY_TIMEOUT, default 1 h): an unacknowledged
  message goes back to the queue after it. A webhook retry waits its backoff (WEBHOOK_BACKOFF_SECONDS
  doubled per attempt, minutes at most), far below it, so Redis never hands a waiting retry to a
  second worker; RabbitMQ's consumer_timeout (30 min) is above it too.
- Time limits: a timeout is a few milliseconds of work; a task stuck on a lock is cancelled after
  ``task_soft_time_limit`` / killed after ``task_time_limit``; the next sweep tries again.
- Beat runs ONE scheduler (the Procfile's ``beat`` process): the clock sweep every
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
    # A move is already committed when its on-commit tasks (the strong bot's move, webhook deliveries)
    # are sent: do not hold the request long if the broker is away (the turn clock and the webhook
    # sweep recover).
    task_publish_retry_policy={"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5},
)
app.autodiscover_tasks()
observability.celery_signals_connect()


@app.on_after_configure.connect
def clocks_beat_schedule(sender: Celery, **kwargs: Any) -> None:
    """The clock sweep: resolves every passed deadline and sends the due reminders (play/clocks.py)."""
    from django.conf import settings

    period = float(getattr(settings, "MAUMAU_CLOCK_SWEEP_SECONDS", 1.0))
    queue = getattr(settings, "MAUMAU_CLOCK_QUEUE", "celery")
    sender.add_periodic_task(period, sender.signature("games.deadlines_sweep"), name="clocks-sweep",
                             expires=period, queue=queue)
