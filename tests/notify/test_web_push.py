"""Web Push end to end: a move makes the service push your_turn to a test push service on 127.0.0.1,
which checks the VAPID JWT and decrypts the payload; 410 removes the subscription; a watching player
gets nothing; at most one your_turn per game until the player acts."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from bench.push_service import PushService
from games import presence
from notify.models import Delivery, PushSubscription
from tests.notify.push_helpers import play_card, subscribe_phone

pytestmark = pytest.mark.django_db


def test_a_move_pushes_your_turn_encrypted_and_signed_to_the_next_player(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, eager_celery: None,
    django_capture_on_commit_callbacks: Any, api_client: Any,
) -> None:
    ada, bo, gid = round_for_two()
    assert api_client.get("/api/v1/push/vapid-public-key").json() == {"public_key": push_service.server_key}
    subscribe_phone(bo, push_service, "bo")
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    got = push_service.for_("bo")
    assert push_service.refused == [] and len(got) == 1
    payload = got[0].payload
    assert payload["kind"] == "your_turn" and payload["game"] == gid and payload["turn"] == 1
    assert payload["url"] == f"http://127.0.0.1:8000/#/game/{gid}"
    assert payload["title"] == "Your turn" and "deadline" in payload
    assert not {"hand", "cards", "drawn", "state"} & set(payload), "no hidden information"
    assert got[0].claims["sub"].startswith("mailto:")
    assert got[0].headers["ttl"] and got[0].headers["topic"] == f"yourturn-{gid}"
    rows = list(Delivery.objects.filter(player_id=bo.player_id).values_list("kind", "channel", "outcome", "attempts"))
    assert rows == [("your_turn", "web_push", "sent", 1)]
    from maumau import observability

    metrics = observability.metrics_text(with_queue_depth=False)[0].decode()
    assert 'maumau_notify_deliveries_total{channel="web_push",outcome="sent"}' in metrics
    assert 'maumau_notify_latency_seconds_count{channel="web_push"}' in metrics
    assert ada.post("/api/v1/me/push-subscriptions", {}, format="json").status_code == 400


def test_texts_follow_the_players_language(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, eager_celery: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = round_for_two()
    sub = push_service.subscribe("bo")
    assert bo.post("/api/v1/me/push-subscriptions", sub.browser_json(), format="json",
                   HTTP_ACCEPT_LANGUAGE="de").status_code == 201
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    assert push_service.for_("bo")[0].payload["title"] == "Du bist dran"


def test_one_your_turn_per_game_until_the_player_acts(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, eager_celery: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from notify import services
    from streams.models import Notification

    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    again = Notification.objects.create(player_id=bo.player_id, kind="your_turn", game_id=gid, data={"seat": 1})
    services.fan_out(notification_ids=[again.pk])
    assert len(push_service.for_("bo")) == 1
    assert Delivery.objects.get(notification=again).outcome == "coalesced"
    play_card(bo, gid, "QH", django_capture_on_commit_callbacks)  # Bo acts ...
    play_card(ada, gid, "10H", django_capture_on_commit_callbacks)  # ... so the next turn is pushed again
    assert len(push_service.for_("bo")) == 2


def test_a_gone_subscription_is_deleted_on_410(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, eager_celery: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    push_service.subscriptions["bo"].status = 410
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    assert not PushSubscription.objects.filter(player_id=bo.player_id).exists()
    assert Delivery.objects.get(player_id=bo.player_id).outcome == "gone"
    assert bo.get("/api/v1/me/push-subscriptions").json() == []
    assert bo.get("/api/v1/me").json()  # the player is fine


def test_a_push_service_error_is_retried_with_backoff_then_given_up(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, eager_celery: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    push_service.subscriptions["bo"].status = 503
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    delivery = Delivery.objects.get(player_id=bo.player_id)
    assert (delivery.outcome, delivery.attempts, delivery.response_status) == ("failed", 3, 503)
    assert PushSubscription.objects.filter(player_id=bo.player_id).exists()


def test_a_watching_player_gets_no_push(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, eager_celery: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    presence.watching_mark(bo.player_id, gid, 30)  # what Bo's open stream of the game writes
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    assert push_service.for_("bo") == []
    assert Delivery.objects.get(player_id=bo.player_id).outcome == "watching"


def test_a_player_without_a_target_costs_the_move_no_notify_task(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_on: str, django_capture_on_commit_callbacks: Any,
) -> None:
    ada, _bo, gid = round_for_two()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        ada.post(f"/api/v1/games/{gid}/actions", {"type": "play", "cards": ["KH"]}, format="json")
    assert not [c for c in callbacks if "fan_out" in repr(c)]


def test_a_fan_out_run_twice_sends_once_and_a_dead_workers_delivery_is_sent_again_once(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, eager_celery: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from notify import services, tasks
    from streams.models import Notification

    _ada, bo, gid = round_for_two()
    subscribe_phone(bo, push_service, "bo")
    note = Notification.objects.create(player_id=bo.player_id, kind="your_turn", game_id=gid, data={"seat": 1})
    assert len(services.fan_out(notification_ids=[note.pk])) == 1
    assert services.fan_out(notification_ids=[note.pk]) == [], "a redelivered fan-out task writes and sends nothing"
    assert len(push_service.for_("bo")) == 1
    # A worker that died after the push service took the message: its row is still leased, never settled.
    delivery = Delivery.objects.get(notification=note)
    Delivery.objects.filter(pk=delivery.pk).update(outcome="pending", attempts=0,
                                                   lease_until=timezone.now() + timedelta(seconds=60))
    assert services.due_deliveries() == [], "a lease still held: its worker may be sending"
    Delivery.objects.filter(pk=delivery.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert services.due_deliveries() == [delivery.pk]
    assert tasks.sweep() == 1
    again = push_service.for_("bo")
    assert len(again) == 2 and again[0].headers["topic"] == again[1].headers["topic"], "one copy, same Topic"
    assert services.due_deliveries() == [] and tasks.sweep() == 0
    assert Delivery.objects.get(pk=delivery.pk).outcome == "sent"


def test_deadline_soon_is_pushed_before_a_long_clock_runs_out(
    make_player: Callable[..., Any], push_service: PushService, eager_celery: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    import datetime as dt

    import time_machine

    from games.models import Game
    from play import clocks
    from tests.streams.streams_helpers import rigged_setup

    ada, bo = make_player("Ada"), make_player("Bo")
    table = ada.post("/api/v1/tables", {"rules": "classic", "max_players": 2, "options": {"turn_seconds": 3600}},
                     format="json").json()
    bo.post(f"/api/v1/tables/{table['id']}/join", format="json")
    setup = rigged_setup([["KH", "10H", "10S", "QC", "KC"], ["QH", "9D", "KS", "QD", "10D"]], "9H", ["QS"])
    gid = ada.post(f"/api/v1/tables/{table['id']}/rounds", {"setup": setup}, format="json").json()["id"]
    subscribe_phone(bo, push_service, "bo")
    play_card(ada, gid, "KH", django_capture_on_commit_callbacks)
    game = Game.objects.get(pk=gid)
    with time_machine.travel(game.deadline - dt.timedelta(minutes=10), tick=True):
        with django_capture_on_commit_callbacks(execute=True):
            clocks.deadlines_sweep()  # the beat's sweep sends the turn's reminder
    kinds = [r.payload["kind"] for r in push_service.for_("bo")]
    assert kinds == ["your_turn", "deadline_soon"]
    soon = push_service.for_("bo")[1].payload
    assert soon["game"] == gid and soon["body"].endswith("min left for your move.") and soon["deadline"]
    assert all(len(json.dumps(r.payload).encode()) < 4096 for r in push_service.received)
