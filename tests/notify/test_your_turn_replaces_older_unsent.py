"""Backlog drains, never grows: the newest your_turn of a game replaces older ones of the same
player and game that are not sent yet, in the database (a retry still waiting) and in a target's
lane of the worker (a push waiting behind a slow one); one whose request is out is answered first."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from bench.push_service import PushService
from notify.models import Delivery
from streams import outbound
from streams.models import Notification
from tests.notify.push_helpers import subscribe_phone

pytestmark = pytest.mark.django_db


def test_a_newer_your_turn_replaces_a_retry_still_waiting_and_is_sent_at_once(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from notify import services

    settings.NOTIFY_MAX_ATTEMPTS = 5
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    with django_capture_on_commit_callbacks(execute=False):  # the fan-out runs below, by hand
        assert ada.post(f"/api/v1/games/{gid}/actions", {"type": "play", "cards": ["KH"]},
                        format="json").status_code == 200
    older = Notification.objects.get(player_id=bo.player_id, kind="your_turn")
    push_service.subscriptions["bo"].status = 503  # the push service is down
    services.fan_out(notification_ids=[older.pk])
    assert Delivery.objects.get(notification=older).outcome == "retrying"
    push_service.subscriptions["bo"].status = 201  # back
    newer = Notification.objects.create(player_id=bo.player_id, kind="your_turn", game_id=gid, data={"seat": 1})
    assert len(services.fan_out(notification_ids=[newer.pk])) == 1
    assert Delivery.objects.get(notification=older).outcome == "replaced"
    assert Delivery.objects.get(notification=newer).outcome == "sent"
    assert [r.payload["id"] for r in push_service.for_("bo")] == [newer.pk], "one push: the newest"
    assert services.due_deliveries() == [], "the replaced retry is not sent later"


def test_in_a_targets_lane_the_newest_job_of_a_game_replaces_the_one_waiting(settings: Any) -> None:
    settings.DELIVERY_PER_TARGET = 1
    sender = outbound.outbound()
    release = threading.Event()
    sent: list[str] = []

    def job(name: str, collapse: str | None = "your_turn:42") -> outbound.Job:
        async def send() -> str:
            while name == "held" and not release.is_set():
                await asyncio.sleep(0.01)
            sent.append(name)
            return name

        return outbound.Job(target="web_push:1", origin="https://push.example:443", player=7, send=send,
                            collapse=collapse)

    held = sender.submit(job("held", collapse="round_over:42"))  # in flight, held by the far end
    while not sender.call(lambda: _in_flight(sender, "web_push:1")):
        pass
    second = sender.submit(job("second"))
    third = sender.submit(job("third"))
    assert second.result(10).replaced, "a newer job of the same game took its place while it waited"
    release.set()
    assert held.result(10).value == "held" and third.result(10).value == "third"
    assert sent == ["held", "third"]


def test_a_newer_job_of_a_game_waits_for_the_one_whose_request_is_out(settings: Any) -> None:
    """A request that is out is not abandoned for a newer turn: the far end may deliver it all the
    same, and its row must say so. The newer one goes once it is answered (a stalled push service
    gets one request at a time from a failing origin, and jobs held there are replaced: see
    test_a_push_service_back_from_a_stall_gets_one_push_per_game)."""
    settings.DELIVERY_PER_TARGET = 1
    sender = outbound.outbound()
    sent: list[str] = []

    def job(name: str) -> outbound.Job:
        async def send() -> str:
            if name == "older":
                await asyncio.sleep(0.3)  # answered slowly
            sent.append(name)
            return name

        return outbound.Job(target="web_push:2", origin="https://push.example:443", player=8, send=send,
                            collapse="your_turn:43")

    older = sender.submit(job("older"))
    while not sender.call(lambda: _in_flight(sender, "web_push:2")):
        pass
    newer = sender.submit(job("newer"))
    assert older.result(10).value == "older", "its request was out: it was answered, not abandoned"
    assert newer.result(10).value == "newer" and sent == ["older", "newer"]


async def _in_flight(sender: outbound.Outbound, target: str) -> bool:
    lane = sender.lanes.get(target)
    return lane is not None and lane.in_flight == 1


def test_a_retry_in_flight_when_a_newer_your_turn_went_out_is_then_not_sent(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from notify import services

    settings.NOTIFY_MAX_ATTEMPTS = 5
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")

    def play(client: Any, card: str) -> None:
        with django_capture_on_commit_callbacks(execute=False):  # the fan-outs run below, by hand
            assert client.post(f"/api/v1/games/{gid}/actions", {"type": "play", "cards": [card]},
                               format="json").status_code == 200

    play(ada, "KH")
    older = Notification.objects.get(player_id=bo.player_id, kind="your_turn")
    push_service.subscriptions["bo"].status = 503
    services.fan_out(notification_ids=[older.pk])
    row = Delivery.objects.get(notification=older)
    Delivery.objects.filter(pk=row.pk).update(lease_until=timezone.now() + timedelta(seconds=60))  # in flight
    play(bo, "QH")
    play(ada, "10H")
    newer = Notification.objects.filter(player_id=bo.player_id, kind="your_turn").latest("pk")
    push_service.subscriptions["bo"].status = 201
    services.fan_out(notification_ids=[newer.pk])
    Delivery.objects.filter(pk=row.pk).update(lease_until=timezone.now() - timedelta(seconds=1))  # its worker died
    services.delivery_attempt(delivery_id=row.pk)
    assert Delivery.objects.get(pk=row.pk).outcome == "replaced"
    assert [r.payload["id"] for r in push_service.for_("bo")] == [newer.pk], "the stale one is not sent after"
