"""Celery entry points of the notify app (ids in; the services re-check the world) and their queueing
on commit, which the services call: the tasks import the services inside their bodies."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task, signals

log = logging.getLogger(__name__)


@signals.worker_ready.connect(weak=False, dispatch_uid="notify-reader")
def reader_start(sender: Any = None, **kwargs: Any) -> None:
    """A worker that consumes the deliveries queue runs the outbox's reader (notify.reader)."""
    from notify import reader

    if reader.worker_queues_consumed(sender):
        reader.start()


def outbox_written() -> None:
    """Called in the transaction that wrote outbox rows. A worker's reader (notify.reader) finds them
    within DELIVERY_READ_SECONDS, no message needed; without workers (CELERY_TASK_ALWAYS_EAGER: tests,
    a single process) the outbox is read on commit, here."""
    if _eager():
        from django.db import transaction

        transaction.on_commit(outbox_read.delay)


def verification_mail_queue(email_id: int) -> None:
    try:
        verification_mail.delay(email_id)
    except Exception:
        log.warning("notify: could not queue the verification mail of %s", email_id, exc_info=True)


def _eager() -> bool:
    """No worker (tests, CELERY_TASK_ALWAYS_EAGER): a task finishes its sends before it returns. In a
    worker it hands them to the process's desk and outbound loop and returns at once, so that a slow
    push service or webhook never holds the worker's task slot."""
    from django.conf import settings

    return bool(settings.CELERY_TASK_ALWAYS_EAGER)


@shared_task(name="notify.fan_out", ignore_result=True)
def fan_out(notification_ids: list[int], committed_at: float | None = None) -> int | None:
    """The code before the outbox queued one per move: such messages still in a queue are served."""
    from notify import services

    if _eager():
        return len(services.fan_out(notification_ids=notification_ids, committed_at=committed_at))
    services.fan_out_later(notification_ids=notification_ids, committed_at=committed_at)
    return None


@shared_task(name="notify.outbox_read", ignore_result=True)
def outbox_read() -> int:
    """Write and send what the outbox holds (eager: before returning; else through the process's
    outbound loop). A worker's reader does this in a loop; the task is for eager runs and operators."""
    from notify import services

    wait = _eager()
    return services.outbox_read(wait=wait) + services.retries_read(wait=wait)


@shared_task(name="notify.deliver", ignore_result=True)
def deliver(delivery_id: int) -> str | None:
    from notify import services

    if not _eager():
        services.delivery_attempt_later(delivery_id=delivery_id)
        return None
    delivery = services.delivery_attempt(delivery_id=delivery_id)
    return None if delivery is None else delivery.outcome


def retry_queue(delivery_id: int, when: Any) -> None:
    """A retry at its time. In workers the deliveries process's reader takes due retries in batches
    (notify.reader) and the sweep is its backstop: no message. Eager (no worker): at once."""
    if not _eager():
        return
    try:
        deliver.apply_async((delivery_id,), eta=when)
    except Exception:  # the sweep sends it
        log.warning("notify: could not queue the retry of delivery %s", delivery_id, exc_info=True)


@shared_task(name="notify.verification_mail", ignore_result=True)
def verification_mail(email_id: int) -> bool:
    from notify import services

    return services.verification_mail_send(email_id=email_id)


@shared_task(name="notify.sweep", ignore_result=True)
def sweep() -> int:
    """Backstop for lost queue messages and dead workers (their leases ran out)."""
    from notify import services

    ids = services.due_deliveries()
    for pk in ids:
        deliver.delay(pk)
    return len(ids)
