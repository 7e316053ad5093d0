"""Signing and sending webhook deliveries.

Every request carries::

    X-MauMau-Event: your_turn
    X-MauMau-Delivery: 42                 (the same on every retry: receivers de-duplicate by it)
    X-MauMau-Timestamp: 1767225600        (unix seconds of this attempt)
    X-MauMau-Signature: sha256=<hex>      HMAC-SHA256(player's secret, "<timestamp>.<body>")

A receiver recomputes the HMAC over the timestamp and the raw body and refuses a timestamp
older than a few minutes (a replayed request); :func:`signature_valid` is that check.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from datetime import timedelta

import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from maumau import observability
from streams.models import WebhookDelivery, WebhookSecret
from streams.ssrf import UnsafeTarget, check_url, post_pinned

USER_AGENT = "maumau-webhooks/1"


def sign(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def signature_valid(secret: str, body: bytes, timestamp: str, signature: str, *, tolerance: int = 300,
                    now: float | None = None) -> bool:
    """The receiver's check: right HMAC and a fresh timestamp."""
    try:
        stamp = int(timestamp)
    except (TypeError, ValueError):
        return False
    if abs((now if now is not None else time.time()) - stamp) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, stamp, body), signature)


def backoff_seconds(attempts: int) -> float:
    """10 s, 20 s, 40 s ... (WEBHOOK_BACKOFF_SECONDS doubled per failed attempt)."""
    return float(settings.WEBHOOK_BACKOFF_SECONDS) * (2 ** max(0, attempts - 1))


def _send(delivery: WebhookDelivery, secret: str) -> httpx.Response:
    target = check_url(delivery.webhook.url)  # again: the name may resolve elsewhere by now
    body = delivery.body.encode()
    stamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-MauMau-Event": delivery.event,
        "X-MauMau-Delivery": str(delivery.pk),
        "X-MauMau-Timestamp": str(stamp),
        "X-MauMau-Signature": sign(secret, stamp, body),
    }
    with httpx.Client(timeout=settings.WEBHOOK_TIMEOUT_SECONDS, follow_redirects=False, trust_env=False) as client:
        return post_pinned(client, target, content=body, headers=headers)


def delivery_attempt(*, delivery_id: int) -> WebhookDelivery | None:
    """One attempt: delivered (2xx), retrying (with its next time) or failed (attempts used up,
    or the target is now refused). A delivery that is done, or leased by a worker still within its
    lease, is left alone.

    The claim is a lease (``lease_until``): a worker that dies while it sends leaves the lease to run
    out, and the sweep then queues the delivery again (the attempt counts; when it was the last one,
    the delivery fails, so no delivery is sent more than WEBHOOK_MAX_ATTEMPTS times)."""
    now = timezone.now()
    with transaction.atomic():
        delivery = (WebhookDelivery.objects.select_for_update().select_related("webhook")
                    .filter(pk=delivery_id).first())
        if delivery is None or delivery.status in ("delivered", "failed"):
            return delivery
        if delivery.lease_until is not None and delivery.lease_until > now:
            return delivery  # another worker is attempting it
        if delivery.lease_until is not None and delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
            delivery.status, delivery.lease_until, delivery.last_error = "failed", None, "worker lost"
            delivery.save(update_fields=["status", "lease_until", "last_error"])
            observability.webhook_attempted("failed")
            return delivery
        delivery.attempts += 1
        delivery.next_attempt_at = None
        delivery.lease_until = now + timedelta(seconds=float(settings.WEBHOOK_LEASE_SECONDS))
        delivery.save(update_fields=["attempts", "next_attempt_at", "lease_until"])
    secret = WebhookSecret.objects.filter(player_id=delivery.webhook.player_id).values_list("secret", flat=True).first()
    error, code, final = "", None, False
    if not delivery.webhook.active or secret is None:
        error, final = "webhook removed", True
    else:
        try:
            response = _send(delivery, secret)
            code = response.status_code
            if not 200 <= code < 300:
                error = f"HTTP {code}"
        except UnsafeTarget as exc:
            error, final = f"refused: {exc.reason}", True
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"[:500]
    now = timezone.now()
    delivery.response_status = code
    delivery.last_error = error
    if not error:
        delivery.status, delivery.delivered_at = "delivered", now
    elif final or delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
        delivery.status = "failed"
    else:
        delivery.status = "retrying"
        delivery.next_attempt_at = now + timedelta(seconds=backoff_seconds(delivery.attempts))
    delivery.lease_until = None
    delivery.save(update_fields=["response_status", "last_error", "status", "delivered_at", "next_attempt_at",
                                 "lease_until"])
    observability.webhook_attempted(delivery.status)
    return delivery
