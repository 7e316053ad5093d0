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

import functools
import hashlib
import hmac
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from maumau import observability
from streams import outbound, ssrf
from streams.models import WebhookDelivery, WebhookSecret
from streams.ssrf import UnsafeTarget

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


def _request(delivery: WebhookDelivery, secret: str) -> tuple[str, dict[str, str], bytes]:
    url = delivery.webhook.url
    ssrf.url_checked_shape(url)  # scheme, host, port; the address is checked when a connection opens
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
    return url, headers, body


async def _send(url: str, headers: dict[str, str], body: bytes) -> httpx.Response | Exception:
    """On the outbound loop: the POST over the receiver's kept connections (opened to a checked address)."""
    client = outbound.outbound().client(origin_of(url), refusal=outbound.webhook_refusal,
                                        timeout=float(settings.WEBHOOK_TIMEOUT_SECONDS))
    try:
        return await client.post(url, content=body, headers=headers)
    except (httpx.HTTPError, UnsafeTarget) as exc:
        return exc


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{(parts.hostname or '').lower()}:{port}"


def _far_end_failed(answer: Any) -> bool:
    return not isinstance(answer, httpx.Response) or answer.status_code == 429 or answer.status_code >= 500


def _claimed(delivery_id: int) -> tuple[WebhookDelivery | None, bool]:
    """(the delivery, whether this worker now holds its lease to send it)."""
    now = timezone.now()
    with transaction.atomic():
        delivery = (WebhookDelivery.objects.select_for_update().select_related("webhook")
                    .filter(pk=delivery_id).first())
        if delivery is None or delivery.status in ("delivered", "failed"):
            return delivery, False
        if delivery.lease_until is not None and delivery.lease_until > now:
            return delivery, False  # another worker is attempting it
        if delivery.lease_until is not None and delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
            delivery.status, delivery.lease_until, delivery.last_error = "failed", None, "worker lost"
            delivery.save(update_fields=["status", "lease_until", "last_error"])
            observability.webhook_attempted("failed")
            return delivery, False
        delivery.attempts += 1
        delivery.next_attempt_at = None
        delivery.lease_until = now + timedelta(seconds=float(settings.WEBHOOK_LEASE_SECONDS))
        delivery.save(update_fields=["attempts", "next_attempt_at", "lease_until"])
    return delivery, True


def delivery_attempt(*, delivery_id: int, wait: bool = True,
                     recorded: Callable[[WebhookDelivery], None] | None = None) -> WebhookDelivery | None:
    """One attempt: delivered (2xx), retrying (with its next time) or failed (attempts used up,
    or the target is now refused). A delivery that is done, or leased by a worker still within its
    lease, is left alone.

    The claim is a lease (``lease_until``): a worker that dies while it sends leaves the lease to run
    out, and the sweep then queues the delivery again (the attempt counts; when it was the last one,
    the delivery fails, so no delivery is sent more than WEBHOOK_MAX_ATTEMPTS times).

    The request goes out on the process's outbound loop, bounded per webhook, per player and per
    origin (a slow receiver backs off and holds only its owner's share). ``wait``: record the outcome
    before returning; else ``recorded`` is called with the delivery once its outcome is known (from
    the loop's thread: it hands it on to a thread that may use the database)."""
    delivery, mine = _claimed(delivery_id)
    if delivery is None or not mine:
        return delivery
    secret = WebhookSecret.objects.filter(player_id=delivery.webhook.player_id).values_list("secret", flat=True).first()
    if not delivery.webhook.active or secret is None:
        return outcome_record(delivery, UnsafeTarget("webhook removed"))
    try:
        url, headers, body = _request(delivery, secret)
    except UnsafeTarget as exc:
        return outcome_record(delivery, exc)
    job = outbound.Job(target=f"webhook:{delivery.webhook_id}", origin=origin_of(url),
                       player=delivery.webhook.player_id,
                       send=functools.partial(_send, url, headers, body), failed=_far_end_failed,
                       deadline=time.monotonic() + 0.8 * float(settings.WEBHOOK_LEASE_SECONDS))
    future = outbound.outbound().submit(job)
    if wait:
        return outcome_record(delivery, _answer(future))
    future.add_done_callback(lambda done: recorded and recorded(_settled(delivery, done)))
    return delivery


def _answer(future: Any) -> Any:
    try:
        done = future.result()
    except Exception as exc:  # a bug or an unforeseen library error: recorded, retried
        return exc
    if done.expired:
        return httpx.PoolTimeout("waited past its lease unsent")
    return done.value


def _settled(delivery: WebhookDelivery, future: Any) -> WebhookDelivery:
    delivery.answer = _answer(future)
    return delivery


def outcome_record(delivery: WebhookDelivery, answer: Any = None) -> WebhookDelivery:
    """Write what an attempt came to (``answer``: the response, or the error instead of one)."""
    if answer is None:
        answer = getattr(delivery, "answer", None)
    error, code, final = "", None, False
    if isinstance(answer, httpx.Response):
        code = answer.status_code
        if not 200 <= code < 300:
            error = f"HTTP {code}"
    elif isinstance(answer, UnsafeTarget):
        error, final = (f"refused: {answer.reason}" if answer.reason != "webhook removed" else answer.reason), True
    else:
        error = f"{type(answer).__name__}: {answer}"[:500]
    now = timezone.now()
    delivery.response_status = code
    delivery.last_error = error
    if not error:
        delivery.status, delivery.delivered_at = "delivered", now
        observability.delivery_lag("webhook", (now - delivery.created_at).total_seconds())
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
