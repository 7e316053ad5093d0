"""Tokens: hashed at rest, listed without secrets, scoped, expiring, revocable by their owner only."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import timedelta
from importlib import import_module
from typing import Any

import pytest
import time_machine
from django.apps import apps
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import AccessToken
from tests.accounts.conftest import PASSWORD, login, signed_in
from tests.games.api_helpers import act, view

pytestmark = pytest.mark.django_db


def personal(client: APIClient, scopes: list[str], **body: Any) -> Any:
    return client.post("/api/v1/me/tokens", {"name": "script", "scopes": scopes, **body}, format="json")


def test_a_database_row_holds_no_usable_token(make_account: Callable[..., APIClient],
                                              make_player: Callable[..., APIClient]) -> None:
    clients = [make_account("ada"), make_player("Guest")]
    clients.append(signed_in(personal(clients[0], ["play"]).json()))
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM accounts_accesstoken")
        stored = [str(value) for row in cursor.fetchall() for value in row]
    assert len(stored) >= 3 * 8
    for client in clients:
        assert all(client.token not in value for value in stored)
    for value in stored:  # no stored value works as a key
        assert APIClient().get("/api/v1/me", HTTP_AUTHORIZATION=f"Token {value}").status_code == 401


def test_the_token_list_shows_names_and_dates_never_a_secret(make_account: Callable[..., APIClient]) -> None:
    ada = make_account("ada", device="Ada's phone")
    made = personal(ada, ["read"], expires_in=3600).json()
    assert made["token"].startswith("mmt_") and made["scopes"] == ["read"] and made["expires_at"]
    listed = ada.get("/api/v1/me/tokens").json()
    assert [(t["name"], t["scopes"], t["current"]) for t in listed] == [
        ("script", ["read"], False), ("Ada's phone", ["account", "play", "read"], True)]
    assert all(set(t) == {"id", "name", "scopes", "created_at", "last_used_at", "expires_at", "current"}
               for t in listed)
    assert listed[1]["last_used_at"] is not None and listed[0]["last_used_at"] is None


def test_a_read_token_reads_but_cannot_act(two_people: Callable[..., Any]) -> None:
    _table, host, _guest, game = two_people()
    reader = signed_in(personal(host, ["read"]).json())
    assert reader.get(f"/api/v1/games/{game['id']}").status_code == 200
    assert reader.get("/api/v1/me").status_code == 200
    for response in (act(reader, game["id"], {"type": "draw"}),
                     reader.post("/api/v1/tables", {"rules": "classic"}, format="json"),
                     reader.post("/api/v1/leagues", {"name": "L", "rules": "house"}, format="json")):
        assert response.status_code == 403, response.content
        assert response.json()["error"]["code"] == "permission_denied"
        assert response.json()["error"]["details"]["required_scope"] == "play"
    assert host.get(f"/api/v1/games/{game['id']}").json()["version"] == 0


def test_a_play_token_acts_but_cannot_manage_the_account(two_people: Callable[..., Any]) -> None:
    _table, host, _guest, game = two_people()
    bot = signed_in(personal(host, ["play"]).json())
    assert act(bot, game["id"], view(bot, game["id"])["legal_actions"][0]).status_code == 200
    for response in (personal(bot, ["play"]), bot.post("/api/v1/me/credentials", {}, format="json"),
                     bot.post("/api/v1/me/password", {}, format="json"), bot.delete("/api/v1/me/account")):
        assert response.status_code == 403 and response.json()["error"]["details"]["required_scope"] == "account"
    assert bot.post("/api/v1/auth/logout").status_code == 204  # but it may revoke itself


def test_a_personal_token_cannot_be_given_the_account_scope(make_account: Callable[..., APIClient]) -> None:
    ada = make_account("ada")
    for scopes in (["account"], [], ["play", "fly"]):
        assert personal(ada, scopes).status_code == 400
    for expires_in in (0, 59, 366 * 24 * 3600, 10**30):
        assert personal(ada, ["read"], expires_in=expires_in).status_code == 400
    assert AccessToken.objects.count() == 1


def test_an_expired_token_is_refused_everywhere(make_account: Callable[..., APIClient]) -> None:
    ada = make_account("ada")
    reader = signed_in(personal(ada, ["read"], expires_in=60).json())
    assert reader.get("/api/v1/me").status_code == 200
    with time_machine.travel(timezone.now() + timedelta(seconds=61)):
        response = reader.get("/api/v1/me")
        assert response.status_code == 401 and response.json()["error"]["code"] == "not_authenticated"
        assert ada.get("/api/v1/me").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_an_expired_token_opens_no_stream(make_account: Callable[..., APIClient]) -> None:
    reader = signed_in(personal(make_account("ada"), ["read"], expires_in=60).json())
    with time_machine.travel(timezone.now() + timedelta(seconds=61)):
        response = reader.get("/api/v1/me/stream")
        assert response.status_code == 401 and response.json()["error"]["code"] == "not_authenticated"


def test_nobody_lists_or_revokes_anothers_tokens(make_account: Callable[..., APIClient]) -> None:
    ada, bob = make_account("ada"), make_account("bob")
    ada_script = personal(ada, ["read"]).json()
    assert [t["name"] for t in bob.get("/api/v1/me/tokens").json()] == ["Sign-up"]
    for token_id in [t["id"] for t in ada.get("/api/v1/me/tokens").json()] + [10**30]:
        response = bob.delete(f"/api/v1/me/tokens/{token_id}")
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert signed_in(ada_script).get("/api/v1/me").status_code == 200
    assert ada.delete(f"/api/v1/me/tokens/{ada_script['id']}").status_code == 204
    assert signed_in(ada_script).get("/api/v1/me").status_code == 401


def test_a_password_change_revokes_the_other_tokens_unless_kept(make_account: Callable[..., APIClient]) -> None:
    phone = make_account("ada")
    tablet = signed_in(login("ada").json())
    script = signed_in(personal(phone, ["read"]).json())
    kept = phone.post("/api/v1/me/password", {"old_password": PASSWORD, "new_password": "battery staple horse",
                                              "keep_other_tokens": True}, format="json")
    assert kept.status_code == 200 and kept.json() == {"revoked": 0}
    assert tablet.get("/api/v1/me").status_code == 200
    changed = phone.post("/api/v1/me/password", {"old_password": "battery staple horse",
                                                 "new_password": "staple horse battery"}, format="json")
    assert changed.status_code == 200 and changed.json() == {"revoked": 2}
    assert tablet.get("/api/v1/me").status_code == script.get("/api/v1/me").status_code == 401
    assert phone.get("/api/v1/me").status_code == 200
    assert login("ada", PASSWORD).status_code == 401 and login("ada", "staple horse battery").status_code == 200


def test_a_password_change_needs_the_old_password_and_a_strong_new_one(make_account: Callable[..., APIClient]) -> None:
    ada = make_account("ada")
    wrong = ada.post("/api/v1/me/password", {"old_password": "not it", "new_password": "battery staple horse"},
                     format="json")
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_credentials"
    weak = ada.post("/api/v1/me/password", {"old_password": PASSWORD, "new_password": "ada"}, format="json")
    assert weak.status_code == 400 and weak.json()["error"]["details"]["fields"]["new_password"]
    assert login("ada", PASSWORD).status_code == 200


def test_a_token_records_its_last_use_at_most_every_few_minutes(make_account: Callable[..., APIClient],
                                                               django_assert_num_queries: Any) -> None:
    ada = make_account("ada")
    assert ada.get("/api/v1/me/tokens").status_code == 200
    first = AccessToken.objects.get().last_used_at
    with django_assert_num_queries(2):  # the token, the list: no write
        ada.get("/api/v1/me/tokens")
    with time_machine.travel(first + timedelta(minutes=6)):
        ada.get("/api/v1/me/tokens")
    assert AccessToken.objects.get().last_used_at > first


def test_earlier_drf_keys_are_hashed_by_the_migration_and_keep_working(db: None) -> None:
    migration = import_module("accounts.migrations.0002_hash_earlier_tokens")
    user = User.objects.create(username="p-old")
    from games.models import Player

    Player.objects.create(name="Old client", user=user)
    key = Token.objects.create(user=user).key
    migration.hash_earlier_tokens(apps, None)
    assert not Token.objects.exists()
    stored = AccessToken.objects.get(user=user)
    assert stored.digest == hashlib.sha256(key.encode()).hexdigest() and key not in (stored.prefix, stored.digest)
    old_client = APIClient()
    old_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert old_client.get("/api/v1/me").json()["name"] == "Old client"
