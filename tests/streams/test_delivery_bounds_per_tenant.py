"""Deliveries per tenant are bounded: one player's slow webhooks take at most their share of the
worker (DELIVERY_PER_TARGET requests per webhook, DELIVERY_PER_PLAYER per player in flight), and a
delivery of another player goes out while theirs wait."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from streams.models import WebhookDelivery
from streams.webhooks import delivery_attempt

pytestmark = pytest.mark.django_db


class HeldReceiver:
    """A receiver that holds every request until released, and counts requests in flight per path."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.in_flight: dict[str, int] = {}
        self.most: dict[str, int] = {}
        self.most_at_once = 0
        self.taken: list[str] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.lock:
                    receiver.in_flight[self.path] = receiver.in_flight.get(self.path, 0) + 1
                    receiver.most[self.path] = max(receiver.most.get(self.path, 0), receiver.in_flight[self.path])
                    receiver.most_at_once = max(receiver.most_at_once, sum(receiver.in_flight.values()))
                receiver.release.wait(30)
                with receiver.lock:
                    receiver.in_flight[self.path] -= 1
                    receiver.taken.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def held() -> Iterator[HeldReceiver]:
    receiver = HeldReceiver()
    yield receiver
    receiver.release.set()
    receiver.server.shutdown()
    receiver.server.server_close()


def _deliveries(player: Any, url: str, count: int) -> list[int]:
    hook = player.post("/api/v1/webhooks", {"url": url, "events": ["*"]}, format="json")
    assert hook.status_code == 201, hook.content
    return [WebhookDelivery.objects.create(webhook_id=hook.json()["id"], event="your_turn", body="{}").pk
            for _n in range(count)]


def test_a_slow_tenant_does_not_delay_another_tenants_delivery(
    make_player: Callable[..., Any], held: HeldReceiver, settings: Any,
) -> None:
    from tests.streams.test_webhooks import Receiver

    settings.WEBHOOK_ALLOW_PRIVATE = True
    settings.DELIVERY_PER_TARGET, settings.DELIVERY_PER_PLAYER = 1, 2
    eve, bo = make_player("Eve"), make_player("Bo")
    slow = [pk for n in range(3) for pk in _deliveries(eve, f"{held.url}/hook{n}", 3)]
    fast = Receiver(200)
    try:
        mine = _deliveries(bo, fast.url, 1)
        finished: list[Any] = []
        for pk in slow:  # as a worker does: handed to the loop, the task does not wait
            delivery_attempt(delivery_id=pk, wait=False, recorded=finished.append)
        done = delivery_attempt(delivery_id=mine[0])
        assert done is not None and done.status == "delivered" and len(fast.requests) == 1
        assert finished == [], "Bo's delivery went out while Eve's nine still waited"
        assert held.most_at_once <= 2, "Eve holds at most DELIVERY_PER_PLAYER requests in flight"
    finally:
        held.release.set()
        fast.close()
    deadline = threading.Event()
    for _n in range(3000):
        if len(finished) == len(slow):
            break
        deadline.wait(0.01)
    assert len(finished) == len(slow) and all(getattr(d, "answer", None) is not None for d in finished)
    assert sorted(held.taken) == sorted(f"/hook{n}" for n in range(3) for _k in range(3))
    assert max(held.most.values()) == 1, "one request at a time per webhook"
