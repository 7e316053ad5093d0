"""With kept connections, the server-side request forgery guard runs when a connection is opened:
the name is resolved then, every address checked, the connection made to the checked one; a kept
connection is reused without a new look-up, and the next connection is checked again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from streams import outbound, ssrf
from streams.models import WebhookDelivery
from streams.webhooks import delivery_attempt
from tests.streams.test_webhooks import Receiver

pytestmark = pytest.mark.django_db


class KeepAliveReceiver(Receiver):
    """The receiver of the webhook tests, speaking HTTP/1.1 with kept connections."""

    def __init__(self, status: int = 200) -> None:
        super().__init__(status)
        handler = self.server.RequestHandlerClass
        handler.protocol_version = "HTTP/1.1"
        original = handler.end_headers

        def end_headers(self: Any) -> None:
            if not getattr(self, "_length_sent", False):
                self.send_header("Content-Length", "0")
            original(self)

        handler.end_headers = end_headers


def _name_resolved(monkeypatch: pytest.MonkeyPatch, name: str) -> tuple[list[str], list[str]]:
    """The guard's look-up, stubbed: ``name`` resolves to what the first list holds (127.0.0.1 until
    the test changes it), any other host to itself; the second list records every name looked up."""
    answer: list[str] = ["127.0.0.1"]
    looked_up: list[str] = []

    def resolve(host: str, port: int) -> list[str]:
        looked_up.append(host)
        return list(answer) if host == name else [host]

    monkeypatch.setattr(ssrf, "resolve", resolve)
    return answer, looked_up


def test_the_address_is_checked_when_a_kept_connection_is_opened(
    make_player: Callable[..., Any], settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    receiver = KeepAliveReceiver(200)
    port = int(receiver.url.split(":")[2].split("/")[0])
    answer, looked_up = _name_resolved(monkeypatch, "hooks.example")
    try:
        bo = make_player("Bo")
        hook = bo.post("/api/v1/webhooks", {"url": f"http://hooks.example:{port}/in", "events": ["*"]},
                       format="json")
        assert hook.status_code == 201, hook.content
        rows = [WebhookDelivery.objects.create(webhook_id=hook.json()["id"], event="your_turn", body="{}")
                for _n in range(3)]
        looked_up.clear()
        assert delivery_attempt(delivery_id=rows[0].pk).status == "delivered"
        assert delivery_attempt(delivery_id=rows[1].pk).status == "delivered"
        assert looked_up == ["hooks.example"], "resolved once, when the connection was opened; then kept"
        assert [r["headers"]["Host"] for r in receiver.requests] == [f"hooks.example:{port}"] * 2
        answer[:] = ["127.0.0.1", "10.0.0.7"]  # the name now also points into the private network
        outbound.reset()  # the kept connection is gone (as after DELIVERY_KEEPALIVE_SECONDS)
        third = delivery_attempt(delivery_id=rows[2].pk)
        assert (third.status, third.last_error) == ("failed", "refused: private_address")
        assert len(receiver.requests) == 2, "nothing was sent to the refused name"
    finally:
        receiver.close()


def test_a_pushs_kept_connection_is_checked_when_opened_and_an_address_literal_too(
    settings: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same for the light client of Web Push and FCM (aiohttp): its look-up is the guard's, when a
    connection is opened; and an address literal, which aiohttp looks up nowhere, is checked too."""
    from notify import channels

    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    receiver = KeepAliveReceiver(201)
    port = int(receiver.url.split(":")[2].split("/")[0])
    answer, looked_up = _name_resolved(monkeypatch, "push.example")
    def push(url: str) -> channels.Sent:
        request = channels.Request(url, channels.origin_of(url), {"TTL": "60"}, b"sealed",
                                   refusal=outbound.push_refusal)
        return channels.sent_now(lambda: channels.posted(request))

    outbound.reset()
    try:
        assert push(f"http://push.example:{port}/m/1").ok and push(f"http://push.example:{port}/m/2").ok
        assert looked_up == ["push.example"], "resolved once, when the connection was opened; then kept"
        assert [r["headers"]["Host"] for r in receiver.requests] == [f"push.example:{port}"] * 2
        answer[:] = ["127.0.0.1", "10.0.0.7"]
        outbound.reset()
        refused = push(f"http://push.example:{port}/m/3")
        assert not refused.ok and not refused.retry and "private_address" in refused.error
        literal = push("http://10.0.0.7:9/m/4")
        assert not literal.ok and not literal.retry and "private_address" in literal.error
        assert len(receiver.requests) == 2, "nothing was sent to a refused address"
    finally:
        receiver.close()
        outbound.reset()
