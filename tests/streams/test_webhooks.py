"""Webhooks: signed deliveries to a receiver on loopback, retries then failure, and the
server-side request forgery guard (private addresses refused unless the operator allows them)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.utils import timezone

from streams.models import WebhookDelivery
from streams.ssrf import UnsafeTarget, check_url
from streams.webhooks import signature_valid
from tests.streams.streams_helpers import rigged_setup

pytestmark = pytest.mark.django_db


class Receiver:
    """A webhook receiver on loopback that answers with ``status`` and keeps what it got."""

    def __init__(self, status: int = 200) -> None:
        self.status = status
        self.requests: list[dict[str, Any]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append({"headers": dict(self.headers), "body": body, "path": self.path})
                self.send_response(receiver.status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/maumau?x=1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Callable[[int], Receiver]]:
    made: list[Receiver] = []

    def make(status: int = 200) -> Receiver:
        made.append(Receiver(status))
        return made[-1]

    yield make
    for r in made:
        r.close()


@pytest.fixture
def loopback_allowed(settings: Any) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE = True
    settings.WEBHOOK_BACKOFF_SECONDS = 0.01
    settings.WEBHOOK_MAX_ATTEMPTS = 3


def _round_for_two(make_player: Callable[..., Any]) -> tuple[Any, Any, int]:
    ada, bo = make_player("Ada"), make_player("Bo")
    table = ada.post("/api/v1/tables", {"rules": "classic", "max_players": 2}, format="json").json()
    assert bo.post(f"/api/v1/tables/{table['id']}/join", format="json").status_code == 200
    setup = rigged_setup([["KH", "8C", "10S", "AD", "QC"], ["7C", "8D", "9D", "AS", "10D"]], "9H", ["QS"])
    game = ada.post(f"/api/v1/tables/{table['id']}/rounds", {"setup": setup}, format="json")
    assert game.status_code == 201, game.content
    return ada, bo, game.json()["id"]


def _verify(secret: str, request: dict[str, Any]) -> bool:
    """What a receiver does, written from the documentation, not with the server's code."""
    headers = {k.lower(): v for k, v in request["headers"].items()}
    stamp = headers["x-maumau-timestamp"]
    expected = "sha256=" + hmac.new(secret.encode(), stamp.encode() + b"." + request["body"],
                                    hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, headers["x-maumau-signature"]) and abs(time.time() - int(stamp)) < 300


def test_a_loopback_receiver_gets_a_signed_your_turn_delivery(
    make_player: Callable[..., Any], receiver: Callable[[int], Receiver], eager_celery: None,
    loopback_allowed: None, django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = _round_for_two(make_player)
    target = receiver(200)
    created = bo.post("/api/v1/webhooks", {"url": target.url, "events": ["your_turn"]}, format="json")
    assert created.status_code == 201, created.content
    secret = created.json()["secret"]
    with django_capture_on_commit_callbacks(execute=True):
        assert ada.post(f"/api/v1/games/{gid}/actions", {"type": "play", "cards": ["KH"]},
                        format="json").status_code == 200
    assert len(target.requests) == 1
    request = target.requests[0]
    assert request["path"] == "/hooks/maumau?x=1"
    assert _verify(secret, request)
    assert not _verify(secret, {**request, "body": request["body"].replace(b"your_turn", b"round_over")})
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert signature_valid(secret, request["body"], headers["x-maumau-timestamp"], headers["x-maumau-signature"])
    assert not signature_valid(secret, request["body"], str(int(time.time()) - 3600),
                               headers["x-maumau-signature"]), "an old timestamp is a replay"
    body = json.loads(request["body"])
    assert body["event"] == "your_turn" and body["notification"]["game"] == gid
    assert headers["x-maumau-event"] == "your_turn"
    deliveries = bo.get(f"/api/v1/webhooks/{created.json()['id']}/deliveries").json()
    assert [(d["status"], d["attempts"], d["response_status"]) for d in deliveries] == [("delivered", 1, 200)]
    assert ada.get(f"/api/v1/webhooks/{created.json()['id']}/deliveries").status_code == 404


def test_a_failing_receiver_is_retried_then_the_delivery_is_marked_failed(
    make_player: Callable[..., Any], receiver: Callable[[int], Receiver], eager_celery: None,
    loopback_allowed: None, django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = _round_for_two(make_player)
    target = receiver(503)
    hook = bo.post("/api/v1/webhooks", {"url": target.url, "events": ["*"]}, format="json").json()
    with django_capture_on_commit_callbacks(execute=True):
        ada.post(f"/api/v1/games/{gid}/actions", {"type": "play", "cards": ["KH"]}, format="json")
    assert len(target.requests) == 3  # WEBHOOK_MAX_ATTEMPTS
    ids = {r["headers"]["X-MauMau-Delivery"] for r in target.requests}
    assert len(ids) == 1, "a retry is the same delivery"
    assert len({r["body"] for r in target.requests}) == 1
    failed = bo.get(f"/api/v1/webhooks/{hook['id']}/deliveries", {"status": "failed"}).json()
    assert [(d["attempts"], d["response_status"], d["last_error"]) for d in failed] == [(3, 503, "HTTP 503")]


def test_retries_back_off_exponentially(make_player: Callable[..., Any], receiver: Callable[[int], Receiver],
                                        settings: Any) -> None:
    from streams.webhooks import backoff_seconds, delivery_attempt

    settings.WEBHOOK_ALLOW_PRIVATE = True
    settings.WEBHOOK_BACKOFF_SECONDS = 10
    settings.WEBHOOK_MAX_ATTEMPTS = 5
    assert [backoff_seconds(n) for n in (1, 2, 3)] == [10, 20, 40]
    _ada, bo, _gid = _round_for_two(make_player)
    target = receiver(500)
    hook = bo.post("/api/v1/webhooks", {"url": target.url, "events": ["*"]}, format="json").json()
    delivery = WebhookDelivery.objects.create(webhook_id=hook["id"], event="your_turn", body="{}")
    attempt = delivery_attempt(delivery_id=delivery.pk)
    assert attempt is not None and attempt.status == "retrying" and attempt.next_attempt_at is not None
    assert 9 <= (attempt.next_attempt_at - attempt.created_at).total_seconds() <= 12
    target.status = 200
    assert delivery_attempt(delivery_id=delivery.pk).status == "delivered"  # type: ignore[union-attr]
    assert delivery_attempt(delivery_id=delivery.pk).attempts == 2  # type: ignore[union-attr]  # done: not sent again
    assert len(target.requests) == 2


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:9/hook", "http://localhost/hook", "http://10.1.2.3/hook", "http://192.168.0.10/hook",
    "http://172.16.5.4/hook", "http://169.254.169.254/latest/meta-data", "http://[::1]/hook",
    "http://[::ffff:127.0.0.1]/hook", "http://0.0.0.0/hook", "http://224.0.0.1/hook", "http://100.64.0.1/hook",
])
def test_private_loopback_and_link_local_targets_are_refused_by_default(url: str) -> None:
    with pytest.raises(UnsafeTarget) as refused:
        check_url(url)
    assert refused.value.reason == "private_address"


@pytest.mark.parametrize("url", ["ftp://93.184.216.34/x", "http://user:pw@93.184.216.34/", "http:///nohost",
                                 "http://no-such-host.invalid/hook"])
def test_malformed_or_unresolvable_targets_are_refused(url: str) -> None:
    with pytest.raises(UnsafeTarget):
        check_url(url)


def test_public_targets_pass_and_the_operator_may_allow_a_network(settings: Any) -> None:
    assert check_url("https://93.184.216.34:8443/hook?a=1").address == "93.184.216.34"
    settings.WEBHOOK_ALLOWED_NETWORKS = ["10.20.0.0/16"]
    assert check_url("http://10.20.3.4/hook").address == "10.20.3.4"
    with pytest.raises(UnsafeTarget):
        check_url("http://10.21.3.4/hook")


def test_registering_a_private_url_is_refused_in_the_error_shape(make_player: Callable[..., Any]) -> None:
    bo = make_player("Bo")
    response = bo.post("/api/v1/webhooks", {"url": "http://127.0.0.1:8000/x", "events": ["your_turn"]},
                       format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error" and error["details"]["reason"] == "private_address"
    assert bo.post("/api/v1/webhooks", {"url": "https://93.184.216.34/x", "events": ["nonsense"]},
                   format="json").status_code == 400
    assert bo.get("/api/v1/webhooks").json() == []


def test_a_target_that_turns_private_after_registration_is_not_called(
    make_player: Callable[..., Any], receiver: Callable[[int], Receiver], settings: Any,
) -> None:
    """DNS rebinding in effect: the check runs again at delivery time, before connecting."""
    from streams.webhooks import delivery_attempt

    settings.WEBHOOK_ALLOW_PRIVATE = True
    bo = make_player("Bo")
    target = receiver(200)
    hook = bo.post("/api/v1/webhooks", {"url": target.url, "events": ["*"]}, format="json").json()
    settings.WEBHOOK_ALLOW_PRIVATE = False
    delivery = WebhookDelivery.objects.create(webhook_id=hook["id"], event="your_turn", body="{}")
    attempt = delivery_attempt(delivery_id=delivery.pk)
    assert attempt is not None and attempt.status == "failed" and attempt.last_error == "refused: private_address"
    assert target.requests == []


def test_webhooks_list_delete_and_rotate_secret(make_player: Callable[..., Any], settings: Any) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE = True
    bo = make_player("Bo")
    hook = bo.post("/api/v1/webhooks", {"url": "http://127.0.0.1:1/x", "events": ["round_over", "your_turn"]},
                   format="json").json()
    assert [h["id"] for h in bo.get("/api/v1/webhooks").json()] == [hook["id"]]
    old = bo.get("/api/v1/webhooks/secret").json()["secret"]
    assert old == hook["secret"]
    new = bo.post("/api/v1/webhooks/secret").json()["secret"]
    assert new != old and bo.get("/api/v1/webhooks/secret").json()["secret"] == new
    assert make_player("Eve").delete(f"/api/v1/webhooks/{hook['id']}").status_code == 404
    assert bo.delete(f"/api/v1/webhooks/{hook['id']}").status_code == 204
    assert bo.get("/api/v1/webhooks").json() == []


class WorkerDied(BaseException):
    """What a killed worker leaves behind: the claim committed, nothing after it."""


def _attempt_that_dies(delivery_id: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from streams import webhooks

    def die(*args: Any) -> Any:
        raise WorkerDied

    with monkeypatch.context() as patch:
        patch.setattr(webhooks, "_send", die)
        with pytest.raises(WorkerDied):
            webhooks.delivery_attempt(delivery_id=delivery_id)


def test_a_delivery_whose_worker_died_is_sent_again_once_its_lease_runs_out(
    make_player: Callable[..., Any], receiver: Callable[[int], Receiver], loopback_allowed: None, eager_celery: None,
    monkeypatch: pytest.MonkeyPatch, time_machine: Any,
) -> None:
    from streams.tasks import webhook_sweep

    time_machine.move_to("2026-12-01T10:00:00Z", tick=False)
    bo = make_player("Bo")
    target = receiver(200)
    hook = bo.post("/api/v1/webhooks", {"url": target.url, "events": ["*"]}, format="json").json()
    delivery = WebhookDelivery.objects.create(webhook_id=hook["id"], event="your_turn", body="{}")
    _attempt_that_dies(delivery.pk, monkeypatch)

    time_machine.move_to("2026-12-01T10:01:00Z", tick=False)
    assert webhook_sweep() == 0, "a worker within its lease may still be sending"
    from streams.webhooks import delivery_attempt

    assert delivery_attempt(delivery_id=delivery.pk).attempts == 1  # type: ignore[union-attr]  # a duplicate waits
    assert target.requests == []

    time_machine.move_to("2026-12-01T10:05:00Z", tick=False)
    assert webhook_sweep() == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, len(target.requests)) == ("delivered", 2, 1)
    assert webhook_sweep() == 0


def test_a_delivery_whose_worker_died_on_its_last_attempt_fails_instead_of_a_further_send(
    make_player: Callable[..., Any], receiver: Callable[[int], Receiver], loopback_allowed: None, eager_celery: None,
    monkeypatch: pytest.MonkeyPatch, time_machine: Any,
) -> None:
    from streams.tasks import webhook_sweep

    time_machine.move_to("2026-12-01T10:00:00Z", tick=False)
    bo = make_player("Bo")
    target = receiver(200)
    hook = bo.post("/api/v1/webhooks", {"url": target.url, "events": ["*"]}, format="json").json()
    delivery = WebhookDelivery.objects.create(webhook_id=hook["id"], event="your_turn", body="{}", attempts=2,
                                              status="retrying")
    _attempt_that_dies(delivery.pk, monkeypatch)  # the third of WEBHOOK_MAX_ATTEMPTS = 3
    time_machine.move_to("2026-12-01T10:05:00Z", tick=False)
    assert webhook_sweep() == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_error) == ("failed", 3, "worker lost")
    assert target.requests == [] and webhook_sweep() == 0


def test_a_delivery_waiting_behind_a_backlog_is_queued_again_once_per_period_not_at_every_sweep(
    make_player: Callable[..., Any], receiver: Callable[[int], Receiver], loopback_allowed: None,
    monkeypatch: pytest.MonkeyPatch, time_machine: Any,
) -> None:
    """The sweep cannot tell a lost message from one still waiting in a long queue: it sends it again,
    but stamps the delivery, so a backlog is not multiplied by one duplicate per sweep."""
    from streams import tasks

    time_machine.move_to("2026-12-01T10:00:00Z", tick=False)
    bo = make_player("Bo")
    hook = bo.post("/api/v1/webhooks", {"url": receiver(200).url, "events": ["*"]}, format="json").json()
    delivery = WebhookDelivery.objects.create(webhook_id=hook["id"], event="your_turn", body="{}",
                                              next_attempt_at=timezone.now())
    queued: list[int] = []
    monkeypatch.setattr(tasks.webhook_deliver, "delay", queued.append)
    time_machine.move_to("2026-12-01T10:01:01Z", tick=False)
    assert tasks.webhook_sweep() == 1
    time_machine.move_to("2026-12-01T10:02:01Z", tick=False)  # the next sweep, a minute later
    assert tasks.webhook_sweep() == 0
    time_machine.move_to("2026-12-01T10:02:02Z", tick=False)
    assert tasks.webhook_sweep() == 1
    assert queued == [delivery.pk, delivery.pk]
