"""Thin Celery tasks: ids in, the service re-checks the world."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from streams import services, webhooks
from streams.models import WebhookDelivery


@shared_task(ignore_result=True)
def webhook_deliver(delivery_id: int) -> str | None:
    """One attempt; a failed attempt queues the next one after its backoff."""
    delivery = webhooks.delivery_attempt(delivery_id=delivery_id)
    if delivery is None:
        return None
    if delivery.status == "retrying" and delivery.next_attempt_at is not None:
        webhook_deliver.apply_async((delivery_id,), eta=delivery.next_attempt_at)
    return delivery.status


@shared_task(ignore_result=True)
def webhook_sweep() -> int:
    """Backstop for lost queue messages: (re)queue deliveries whose time is well past."""
    stale = timezone.now() - timezone.timedelta(seconds=60)
    ids = list(WebhookDelivery.objects.filter(status__in=("pending", "retrying"), next_attempt_at__lt=stale)
               .values_list("pk", flat=True)[:500])
    for pk in ids:
        webhook_deliver.delay(pk)
    return len(ids)


@shared_task(ignore_result=True)
def turn_reminder(game_id: int, version: int) -> bool:
    return services.turn_reminder_send(game_id=game_id, version=version) is not None
