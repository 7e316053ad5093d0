"""The Celery app. Broker from CELERY_BROKER_URL; the default filesystem transport needs no server.

No clock waits in the broker: the turn clocks live in the game rows and the beat sweep resolves them
(play/clocks.py), so a move publishes nothing for them. What the worker runs, on three queues that
``task_routes`` (:func:`task_queue`) assigns by task name, each consumed by worker processes of its own (the Procfile's
``clocks``, ``bots`` and ``deliveries``):

- ``MAUMAU_CLOCK_QUEUE`` (``clocks``): the beat's sweeps (``games.deadlines_sweep``, ``lobby.sweep``,
  ``notify.sweep``, ``streams.webhook_sweep``, ``games.idempotency_purge``: every task named ``*sweep``).
  Only beat sends to it, once a period: nothing a player does can queue work in front of a clock.
- ``MAUMAU_BOT_QUEUE`` (``bots``): the strong bot's moves (``games.bot_move``).
- ``MAUMAU_DELIVERY_QUEUE`` (``deliveries``): everything else of ``notify.*`` and ``streams.*``, the
  webhook deliveries and their retries, push fan-out and deliveries, verification mail. A far end that
  never answers fills this queue and only this one.

Settings the clock relies on:

- The clock tick expires after MAUMAU_CLOCK_TICK_EXPIRES_SECONDS (a minute), not after one period: a
  tick that waited (a worker restarting, a sweep still running) runs instead of being discarded, and
  ticks that piled up are no-ops, since one sweep at a time holds the sweep lock (play/clocks.py).
- Broker reconnection: kombu retries a lost broker connection after 2, 4, 6 ... seconds (30 at most),
  so a worker reconnected up to ~8 s after Redis came back and the clocks waited for it. The worker
  (``ClockConsumer``) and beat (``ClockScheduler``, whose producer waits in the same retries) try
  every ``BROKER_RETRY_SECONDS`` instead: a refused TCP connect each, and a log line.
- Idempotent tasks acknowledge late (``acks_late``, set per task: the bot's move): a worker killed
  with reserved or running tasks leaves their messages to be redelivered, not lost (a redelivered
  one finds its version stale and does nothing).
- ``worker_prefetch_multiplier = 1``: a worker reserves one ready task per process, so a busy or
  dying worker holds back as little as possible. ETA tasks are reserved regardless of prefetch
  until their time comes; the only ones are delivery retries, whose deliveries the sweeps requeue
  when their message is lost.
- Redis ``visibility_timeout`` (settings, CELERY_VISIBILITY_TIMEOUT, default 1 h): an unacknowledged
  message goes back to the queue after it. A webhook retry waits its backoff (WEBHOOK_BACKOFF_SECONDS
  doubled per attempt, minutes at most), far below it, so Redis never hands a waiting retry to a
  second worker; RabbitMQ's consumer_timeout (30 min) is above it too. No sweep acknowledges late, so
  none waits for it.
- Time limits: a timeout is a few milliseconds of work; a task stuck on a lock is cancelled after
  ``task_soft_time_limit`` / killed after ``task_time_limit``; the next sweep tries again.
- Beat runs ONE scheduler (the Procfile's ``beat`` process).
"""

import functools
import os
from typing import Any

from celery import Celery
from celery.beat import PersistentScheduler
from celery.worker.consumer import Consumer
from kombu import Connection

from maumau import observability

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")

#: Seconds between attempts to reach a lost broker (worker and beat), instead of kombu's 2, 4, 6 ... 30.
BROKER_RETRY_SECONDS = 0.5


def broker_retry_quickly(connection: Connection) -> Connection:
    """``connection.ensure_connection`` retrying every BROKER_RETRY_SECONDS (the callers, Celery's
    consumer and beat, pass no intervals of their own)."""
    connection.ensure_connection = functools.partial(  # type: ignore[method-assign]
        connection.ensure_connection, interval_start=0, interval_step=BROKER_RETRY_SECONDS,
        interval_max=BROKER_RETRY_SECONDS)
    return connection


class ClockConsumer(Consumer):
    """The worker's consumer, reconnecting to a lost broker within BROKER_RETRY_SECONDS."""

    def ensure_connected(self, conn: Connection) -> Connection:
        return super().ensure_connected(broker_retry_quickly(conn))


class ClockScheduler(PersistentScheduler):
    """Beat's scheduler, reconnecting to a lost broker within BROKER_RETRY_SECONDS (its ticks are the
    clocks' sweeps)."""

    def _ensure_connected(self) -> Connection:
        broker_retry_quickly(self.connection)
        return super()._ensure_connected()


def task_queue(name: str) -> str:
    """The queue of a task, by its name: the sweeps, the bots, the rest of notify and streams (whatever
    delivery task they add, named ``notify.<x>`` / ``streams.<x>``); anything else the default queue."""
    from django.conf import settings

    if name in ("games.deadlines_sweep", "games.idempotency_purge") or name.endswith("sweep"):
        return settings.MAUMAU_CLOCK_QUEUE
    if name == "games.bot_move":
        return settings.MAUMAU_BOT_QUEUE
    if name.startswith(("notify.", "streams.")):
        return settings.MAUMAU_DELIVERY_QUEUE
    return app.conf.task_default_queue


def task_route(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **rest: Any) -> dict[str, str]:
    """Celery's router (``task_routes``): called for every task sent, so the settings are read then."""
    return {"queue": task_queue(name)}


app = Celery("maumau")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    worker_prefetch_multiplier=1,
    task_time_limit=int(os.environ.get("CELERY_TASK_TIME_LIMIT", "60")),
    task_soft_time_limit=int(os.environ.get("CELERY_TASK_SOFT_TIME_LIMIT", "50")),
    worker_cancel_long_running_tasks_on_connection_loss=True,
    broker_connection_retry_on_startup=True,
    worker_consumer="maumau.celery:ClockConsumer",
    beat_scheduler="maumau.celery:ClockScheduler",
    task_routes=(task_route,),
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

    period = settings.MAUMAU_CLOCK_SWEEP_SECONDS
    sender.add_periodic_task(period, sender.signature("games.deadlines_sweep"), name="clocks-sweep",
                             expires=max(period, settings.MAUMAU_CLOCK_TICK_EXPIRES_SECONDS))
