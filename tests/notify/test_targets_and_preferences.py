"""Registering where a player is reached, what they want to hear, and what goes with a token or an
account: bad input is a 400 in the error shape that stores nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bench.push_service import PushService
from games.models import Player
from notify.models import Device, PushSubscription

pytestmark = pytest.mark.django_db


def _flag(client: Any) -> bool:
    return Player.objects.get(pk=client.player_id).has_notify_target


@pytest.mark.parametrize("change, reason", [
    ({"endpoint": "http://push.example.net/x"}, "not_https"),
    ({"endpoint": "https://127.0.0.1/x"}, "private_address"),
    ({"endpoint": "https://10.1.2.3/x"}, "private_address"),
    ({"endpoint": "https://[::1]/x"}, "private_address"),
    ({"endpoint": "ftp://push.example.net/x"}, None),
    ({"endpoint": "https://push.example.net/" + "x" * 1000}, None),
    ({"keys": {"p256dh": "not base64!", "auth": "tBHItJI5svbpez7KI4CCXg"}}, None),
    ({"keys": {"p256dh": "BAAA", "auth": "tBHItJI5svbpez7KI4CCXg"}}, None),
    ({"keys": {"p256dh": "x" * 101, "auth": "tBHItJI5svbpez7KI4CCXg"}}, None),
    ({"keys": {"auth": "AAAA"}}, None),
    ({"name": "n" * 65}, None),
    ({"expirationTime": 2**60}, None),
    ({"surprise": 1}, None),
])
def test_a_bad_subscription_is_refused_and_nothing_is_stored(
    make_player: Callable[..., Any], push_service: PushService, change: dict[str, Any], reason: str | None,
    settings: Any,
) -> None:
    settings.PUSH_ALLOW_LOOPBACK = False
    bo = make_player("Bo")
    body = push_service.subscribe("bo").browser_json()
    keys = {**body["keys"], **change.pop("keys", {})}
    answer = bo.post("/api/v1/me/push-subscriptions", {**body, "keys": keys, **change}, format="json")
    assert answer.status_code == 400, answer.content
    error = answer.json()["error"]
    assert error["code"] == "validation_error"
    if reason:
        assert error["details"]["reason"] == reason
    assert not PushSubscription.objects.exists() and not _flag(bo)


def test_loopback_endpoints_need_the_setting(make_player: Callable[..., Any], push_service: PushService,
                                             settings: Any) -> None:
    bo = make_player("Bo")
    settings.PUSH_ALLOW_LOOPBACK = False
    body = push_service.subscribe("bo").browser_json()
    assert bo.post("/api/v1/me/push-subscriptions", body, format="json").status_code == 400
    settings.PUSH_ALLOW_LOOPBACK = True
    assert bo.post("/api/v1/me/push-subscriptions", body, format="json").status_code == 201
    assert _flag(bo)


def test_at_most_twenty_subscriptions_and_twenty_devices(make_player: Callable[..., Any],
                                                        push_service: PushService) -> None:
    bo = make_player("Bo")
    for n in range(20):
        body = push_service.subscribe(f"s{n}").browser_json()
        assert bo.post("/api/v1/me/push-subscriptions", body, format="json").status_code == 201
        assert bo.post("/api/v1/me/devices", {"platform": "apns", "token": f"{n:064x}"},
                       format="json").status_code == 201
    answer = bo.post("/api/v1/me/push-subscriptions", push_service.subscribe("s20").browser_json(), format="json")
    assert answer.status_code == 400 and answer.json()["error"]["details"]["reason"] == "too_many_targets"
    assert bo.post("/api/v1/me/devices", {"platform": "fcm", "token": "t" * 20}, format="json").status_code == 400
    assert PushSubscription.objects.count() == 20 and Device.objects.count() == 20
    again = bo.post("/api/v1/me/push-subscriptions", push_service.subscriptions["s3"].browser_json(), format="json")
    assert again.status_code == 201, "the same endpoint again is no new subscription"


@pytest.mark.parametrize("body", [
    {"platform": "gcm", "token": "abcdefgh12"}, {"platform": "fcm", "token": "short"},
    {"platform": "fcm", "token": "t" * 513}, {"platform": "apns", "token": "not-hex-token"},
    {"platform": "fcm", "token": 12345678}, {"platform": "fcm"},
    {"platform": "fcm", "token": "t" * 20, "name": "n" * 65},
])
def test_a_bad_device_is_refused(make_player: Callable[..., Any], body: dict[str, Any]) -> None:
    bo = make_player("Bo")
    answer = bo.post("/api/v1/me/devices", body, format="json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "validation_error"
    assert not Device.objects.exists()


def test_devices_are_listed_and_removed(make_player: Callable[..., Any]) -> None:
    bo, ada = make_player("Bo"), make_player("Ada")
    made = bo.post("/api/v1/me/devices", {"platform": "fcm", "token": "f" * 40, "name": "Pixel"}, format="json")
    assert made.status_code == 201 and _flag(bo)
    assert [d["name"] for d in bo.get("/api/v1/me/devices").json()] == ["Pixel"]
    assert "token" not in made.json()
    assert ada.delete(f"/api/v1/me/devices/{made.json()['id']}").status_code == 404
    assert bo.delete(f"/api/v1/me/devices/{made.json()['id']}").status_code == 204
    assert bo.get("/api/v1/me/devices").json() == [] and not _flag(bo)


def test_revoking_the_token_removes_what_it_registered(make_player: Callable[..., Any],
                                                      push_service: PushService) -> None:
    bo = make_player("Bo")
    other = bo.post("/api/v1/me/tokens", {"name": "phone", "scopes": ["play"]}, format="json").json()
    phone = type(bo)()
    phone.credentials(HTTP_AUTHORIZATION=f"Token {other['token']}")
    assert phone.post("/api/v1/me/push-subscriptions", push_service.subscribe("p").browser_json(),
                      format="json").status_code == 201
    assert phone.post("/api/v1/me/devices", {"platform": "fcm", "token": "f" * 40}, format="json").status_code == 201
    assert bo.post("/api/v1/me/push-subscriptions", push_service.subscribe("b").browser_json(),
                   format="json").status_code == 201
    assert bo.delete(f"/api/v1/me/tokens/{other['id']}").status_code == 204
    assert [s["id"] for s in bo.get("/api/v1/me/push-subscriptions").json()] == list(
        PushSubscription.objects.filter(endpoint__endswith="/b").values_list("pk", flat=True))
    assert not Device.objects.exists() and _flag(bo)


def test_closing_the_account_removes_every_target(make_player: Callable[..., Any], push_service: PushService) -> None:
    bo = make_player("Bo")
    bo.post("/api/v1/me/push-subscriptions", push_service.subscribe("b").browser_json(), format="json")
    bo.post("/api/v1/me/devices", {"platform": "fcm", "token": "f" * 40}, format="json")
    answer = bo.delete("/api/v1/me/account", {}, format="json")
    assert answer.status_code == 204, answer.content
    assert not PushSubscription.objects.exists() and not Device.objects.exists()
    assert not Player.objects.get(pk=bo.player_id).has_notify_target


def test_preferences_default_and_patch_merges(make_player: Callable[..., Any], push_on: str) -> None:
    bo = make_player("Bo")
    prefs = bo.get("/api/v1/me/notifications").json()
    assert prefs["kinds"]["your_turn"] == {"web_push": True, "fcm": True, "apns": True, "email": False}
    assert set(prefs["kinds"]) == {"your_turn", "deadline_soon", "challenge_received", "game_started",
                                   "round_over", "league_over", "season_over"}
    assert prefs["quiet_hours"] is None and prefs["email"] is None
    assert prefs["channels"]["web_push"] == "on" and prefs["channels"]["email"].startswith("off")
    bo.patch("/api/v1/me/notifications", {"kinds": {"your_turn": {"email": True}}}, format="json")
    after = bo.patch("/api/v1/me/notifications", {"kinds": {"your_turn": {"web_push": False}},
                                                  "quiet_hours": {"start": "22:00", "end": "07:30"},
                                                  "time_zone": "Europe/Berlin"}, format="json")
    assert after.status_code == 200, after.content
    body = after.json()
    assert body["kinds"]["your_turn"] == {"web_push": False, "fcm": True, "apns": True, "email": True}
    assert body["kinds"]["round_over"]["web_push"] is True
    assert body["quiet_hours"] == {"start": "22:00", "end": "07:30"} and body["time_zone"] == "Europe/Berlin"
    cleared = bo.patch("/api/v1/me/notifications", {"quiet_hours": None}, format="json").json()
    assert cleared["quiet_hours"] is None and cleared["kinds"]["your_turn"]["email"] is True


@pytest.mark.parametrize("body", [
    {"kinds": {"chat": {"email": True}}}, {"kinds": {"your_turn": {"sms": True}}},
    {"kinds": {"your_turn": {"email": "yes"}}}, {"quiet_hours": {"start": "25:00", "end": "07:00"}},
    {"quiet_hours": {"start": "22:00"}}, {"time_zone": "Mars/Olympus"}, {"time_zone": "x" * 65},
    {"language": "es"}, {"kinds": []},
])
def test_bad_preferences_are_refused_and_change_nothing(make_player: Callable[..., Any],
                                                        body: dict[str, Any]) -> None:
    bo = make_player("Bo")
    before = bo.get("/api/v1/me/notifications").json()
    answer = bo.patch("/api/v1/me/notifications", body, format="json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "validation_error"
    assert bo.get("/api/v1/me/notifications").json() == before


def test_quiet_hours_hold_pushes_back_in_the_players_time_zone(
    round_for_two: Callable[[], tuple[Any, Any, int]], push_service: PushService, eager_celery: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    import datetime as dt

    import time_machine

    from notify.models import Delivery

    ada, bo, gid = round_for_two()
    bo.post("/api/v1/me/push-subscriptions", push_service.subscribe("bo").browser_json(), format="json")
    bo.patch("/api/v1/me/notifications", {"quiet_hours": {"start": "22:00", "end": "07:00"},
                                          "time_zone": "Europe/Berlin"}, format="json")
    with time_machine.travel(dt.datetime(2026, 7, 1, 21, 30, tzinfo=dt.UTC), tick=True):  # 23:30 in Berlin
        with django_capture_on_commit_callbacks(execute=True):
            ada.post(f"/api/v1/games/{gid}/actions", {"type": "play", "cards": ["KH"]}, format="json")
    assert push_service.for_("bo") == []
    assert Delivery.objects.get(player_id=bo.player_id).outcome == "quiet"
