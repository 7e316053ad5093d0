"""A push endpoint or device token registered by one player never moves to another (409
``push_target_taken``, theirs keeps working), and the 20-target limit holds under concurrent requests
(a player's targets are written one request at a time)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from bench.push_service import PushService
from games.models import Player
from notify.models import Device, PushSubscription
from tests.threads import statuses_at_once

ON_POSTGRES = "postgresql" in django_settings.DATABASES["default"]["ENGINE"]


@pytest.mark.django_db
def test_another_players_endpoint_is_refused_and_stays_theirs(make_player: Callable[..., Any],
                                                               push_service: PushService) -> None:
    ada, bo = make_player("Ada"), make_player("Bo")
    body = push_service.subscribe("ada").browser_json()
    assert ada.post("/api/v1/me/push-subscriptions", body, format="json").status_code == 201
    taken = bo.post("/api/v1/me/push-subscriptions", body, format="json")
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "push_target_taken"
    assert PushSubscription.objects.get().player_id == ada.player_id
    assert bo.get("/api/v1/me/push-subscriptions").json() == []
    assert len(ada.get("/api/v1/me/push-subscriptions").json()) == 1
    assert Player.objects.get(pk=ada.player_id).has_notify_target
    assert not Player.objects.get(pk=bo.player_id).has_notify_target
    assert ada.post("/api/v1/me/push-subscriptions", body, format="json").status_code == 201  # renewing one's own


@pytest.mark.django_db
@pytest.mark.parametrize("platform, token", [("apns", "ab" * 32), ("fcm", "dQw4w9WgXcQ:APA91b-token")])
def test_another_players_device_token_is_refused_and_stays_theirs(make_player: Callable[..., Any], platform: str,
                                                                   token: str) -> None:
    ada, bo = make_player("Ada"), make_player("Bo")
    body = {"platform": platform, "token": token, "name": "Ada's phone"}
    assert ada.post("/api/v1/me/devices", body, format="json").status_code == 201
    taken = bo.post("/api/v1/me/devices", {**body, "name": "mine now"}, format="json")
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "push_target_taken"
    device = Device.objects.get()
    assert device.player_id == ada.player_id and device.name == "Ada's phone"
    assert ada.post("/api/v1/me/devices", body, format="json").status_code == 201


def _as(player: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {player.token}")
    return client


@pytest.mark.parametrize("run", range(2))
@pytest.mark.usefixtures("push_on")
@pytest.mark.postgres_only
@pytest.mark.skipif(not ON_POSTGRES, reason="needs PostgreSQL: concurrent transactions on real connections")
@pytest.mark.django_db(transaction=True)
def test_the_twenty_target_limit_holds_under_concurrent_registrations(make_player: Callable[..., Any],
                                                                      push_service: PushService, settings: Any,
                                                                      run: int) -> None:
    settings.MAUMAU_WRITE_RATE = "10000/min"
    bo = make_player("Bo")
    bodies = [push_service.subscribe(f"s{n}").browser_json() for n in range(30)]
    statuses = statuses_at_once([lambda b=b: _as(bo).post("/api/v1/me/push-subscriptions", b, format="json")
                         for b in bodies])
    assert Counter(statuses) == {201: 20, 400: 10}
    assert PushSubscription.objects.filter(player_id=bo.player_id).count() == 20
    devices = statuses_at_once([lambda n=n: _as(bo).post("/api/v1/me/devices",
                                                          {"platform": "apns", "token": f"{n:064x}"}, format="json")
                                for n in range(30)])
    assert Counter(devices) == {201: 20, 400: 10}
    assert Device.objects.filter(player_id=bo.player_id).count() == 20


@pytest.mark.usefixtures("push_on")
@pytest.mark.postgres_only
@pytest.mark.skipif(not ON_POSTGRES, reason="needs PostgreSQL: concurrent transactions on real connections")
@pytest.mark.django_db(transaction=True)
def test_one_endpoint_sent_by_many_players_at_once_goes_to_one_of_them(make_player: Callable[..., Any],
                                                                       push_service: PushService) -> None:
    players = [make_player(f"P{i}") for i in range(12)]
    body = push_service.subscribe("shared").browser_json()
    statuses = statuses_at_once([lambda p=p: _as(p).post("/api/v1/me/push-subscriptions", body, format="json")
                         for p in players])
    assert Counter(statuses) == {201: 1, 409: 11}
    owner = PushSubscription.objects.get().player_id
    assert list(Player.objects.filter(has_notify_target=True).values_list("pk", flat=True)) == [owner]
