"""Celery entry points of the notify app (ids in; the services re-check the world) and their queueing
on commit, which the services call: the tasks import the services inside their bodies."""

from __future__ import annotations

import logging

from celery import shared_task

log = logging.getLogger(__name__)


def fan_out_queue(notification_ids: list[int], committed_at: float) -> None:
    """Called on commit: one task for a batch of notifications (a move's, a round start's)."""
    try:
        fan_out.delay(notification_ids, committed_at)
    except Exception:  # broker down: these notifications are not pushed (the stream still has them)
        log.warning("notify: could not queue notifications %s", notification_ids, exc_info=True)


def verification_mail_queue(email_id: int) -> None:
    try:
        verification_mail.delay(email_id)
    except Exception:
        log.warning("notify: could not queue the verification mail of %s", email_id, exc_info=True)


@shared_task(name="notify.fan_out", ignore_result=True)
def fan_out(notification_ids: list[int], committed_at: float | None = None) -> int:
    from notify import services

    sent = services.fan_out(notification_ids=notification_ids, committed_at=committed_at)
    _retries_plan(sent)
    return len(sent)


@shared_task(name="notify.deliver", ignore_result=True)
def deliver(delivery_id: int) -> str | None:
    from notify import services

    delivery = services.delivery_attempt(delivery_id=delivery_id)
    if delivery is None:
        return None
    _retries_plan([delivery_id])
    return delivery.outcome


def _retries_plan(delivery_ids: list[int]) -> None:
    from notify.models import Delivery

    for pk, when in Delivery.objects.filter(pk__in=delivery_ids, outcome="retrying").values_list(
            "pk", "next_attempt_at"):
        try:
            deliver.apply_async((pk,), eta=when)
        except Exception:  # the sweep sends it
            log.warning("notify: could not queue the retry of delivery %s", pk, exc_info=True)


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
