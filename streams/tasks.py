"""Celery entry points (ids in; the services re-check the world) and the on-commit sending of the
streams app's tasks, which its services call: the tasks import the services inside their bodies, so
imports run one way."""

from __future__ import annotations

import functools
import logging
from typing import Any

from celery import shared_task
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

log = logging.getLogger(__name__)


def deliveries_send_on_commit(delivery_ids: list[int]) -> None:
    """Queue one delivery task per webhook delivery once the transaction that wrote them commits."""
    transaction.on_commit(functools.partial(_deliveries_send, list(delivery_ids)))


def _deliveries_send(delivery_ids: list[int]) -> None:
    for pk in delivery_ids:
        try:
            webhook_deliver.delay(pk)
        except Exception:  # broker down: webhook_sweep sends it later
            log.warning("streams: could not queue webhook delivery %s", pk, exc_info=True)


@shared_task(name="streams.webhook_deliver", ignore_result=True)
def webhook_deliver(delivery_id: int) -> str | None:
    """One attempt; a failed attempt queues the next one after its backoff. In a worker the request
    goes out on the process's outbound loop and the task returns at once: a slow receiver holds no
    task slot, only its own lanes (streams.outbound)."""
    from django.conf import settings

    from streams import webhooks

    if not settings.CELERY_TASK_ALWAYS_EAGER:
        webhooks.delivery_attempt(delivery_id=delivery_id, wait=False, recorded=_desk().put)
        return None
    delivery = webhooks.delivery_attempt(delivery_id=delivery_id)
    if delivery is None:
        return None
    _retry_planned(delivery)
    return delivery.status


def _retry_planned(delivery: Any) -> None:
    if delivery.status == "retrying" and delivery.next_attempt_at is not None:
        try:
            webhook_deliver.apply_async((delivery.pk,), eta=delivery.next_attempt_at)
        except Exception:  # broker down: webhook_sweep sends it later
            log.warning("streams: could not queue the retry of webhook delivery %s", delivery.pk, exc_info=True)


_desks: dict[str, Any] = {}


def _desk() -> Any:
    from streams import outbound

    return outbound.desk_of(_desks, "webhooks-desk", _outcomes_record)


def _outcomes_record(deliveries: list[Any]) -> None:
    from streams import webhooks

    for delivery in deliveries:
        try:
            _retry_planned(webhooks.outcome_record(delivery))
        except Exception:  # its lease runs out; the sweep queues it again
            log.exception("streams: could not record webhook delivery %s", delivery.pk)


@shared_task(name="streams.webhook_sweep", ignore_result=True)
def webhook_sweep() -> int:
    """Backstop for lost queue messages and dead workers: (re)queue deliveries whose time is well
    past, or whose lease ran out (the worker that claimed it died). A message may just be waiting in a
    long queue, not lost: each delivery sent again is stamped, so it is sent again at most once per
    WEBHOOK_REQUEUE_AFTER_SECONDS, not at every sweep (which multiplied a backlog)."""
    from django.conf import settings

    from streams.models import WebhookDelivery

    now = timezone.now()
    stale = now - timezone.timedelta(seconds=settings.WEBHOOK_REQUEUE_AFTER_SECONDS)
    due = Q(next_attempt_at__lt=stale) | Q(lease_until__lt=now)
    ids = list(WebhookDelivery.objects.filter(due, status__in=("pending", "retrying"))
               .values_list("pk", flat=True)[:500])
    WebhookDelivery.objects.filter(pk__in=ids, status__in=("pending", "retrying")).update(next_attempt_at=now)
    for pk in ids:
        webhook_deliver.delay(pk)
    return len(ids)
