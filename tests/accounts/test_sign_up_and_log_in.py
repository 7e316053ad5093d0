"""Sign-up with a password or as a guest, a guest's upgrade, log-in from any device, log-out, and log-in
that tells nobody which usernames exist."""

from __future__ import annotations

import time
from collections.abc import Callable
from statistics import median
from typing import Any
from unittest import mock

import pytest
import time_machine
from django.contrib.auth.hashers import get_hasher
from rest_framework.test import APIClient

from games.models import Player
from tests.accounts.conftest import PASSWORD, login, signed_in

pytestmark = pytest.mark.django_db


def test_passwords_are_hashed_with_argon2(make_account: Callable[..., APIClient]) -> None:
    make_account("ada")
    assert get_hasher().algorithm == "argon2"
    assert Player.objects.get(name="ada").user.password.startswith("argon2$argon2id$")


def test_an_account_logs_in_from_a_second_device_and_both_play(make_account: Callable[..., APIClient]) -> None:
    phone = make_account("ada", name="Ada", device="Ada's phone")
    response = login("ADA", device="Ada's tablet")  # usernames are found whatever their case
    assert response.status_code == 200, response.content
    tablet = signed_in(response.json())
    assert phone.get("/api/v1/me").json()["id"] == tablet.get("/api/v1/me").json()["id"]
    names = [t["name"] for t in tablet.get("/api/v1/me/tokens").json()]
    assert names == ["Ada's tablet", "Ada's phone"]
    assert tablet.post("/api/v1/tables", {"rules": "classic"}, format="json").status_code == 201


def test_the_name_only_sign_up_still_makes_a_guest(api_client: APIClient) -> None:
    response = api_client.post("/api/v1/players", {"name": "Script"}, format="json")
    assert response.status_code == 201
    guest = signed_in(response.json())
    assert guest.get("/api/v1/me/account").json() == {"id": response.json()["id"], "name": "Script",
                                                      "username": None, "guest": True, "bot": False}


def test_a_guest_sets_credentials_and_keeps_its_tables(make_player: Callable[..., APIClient],
                                                      make_table: Callable[..., Any]) -> None:
    guest = make_player("Ada")
    table = make_table("classic", host=guest)
    response = guest.post("/api/v1/me/credentials", {"username": "ada", "password": PASSWORD}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["username"] == "ada" and response.json()["guest"] is False
    assert guest.get("/api/v1/me").status_code == 200  # the guest's own token still works
    phone = signed_in(login("ada").json())
    me = phone.get("/api/v1/me").json()
    assert me["id"] == guest.player_id and [t["id"] for t in me["tables"]] == [table.id]
    again = guest.post("/api/v1/me/credentials", {"username": "ada2", "password": PASSWORD}, format="json")
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_registered"


def test_a_username_is_taken_whatever_its_case(make_account: Callable[..., APIClient], api_client: APIClient) -> None:
    make_account("ada")
    response = api_client.post("/api/v1/accounts", {"username": "Ada", "password": PASSWORD}, format="json")
    assert response.status_code == 409 and response.json()["error"]["code"] == "username_taken"


@pytest.mark.parametrize("username", ["p-123", "~deleted-1", "ab", "a" * 31, "ada lovelace", "1ada", "adä"])
def test_a_username_outside_the_rule_is_refused(api_client: APIClient, username: str) -> None:
    response = api_client.post("/api/v1/accounts", {"username": username, "password": PASSWORD}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert Player.objects.count() == 0


@pytest.mark.parametrize(("language", "message", "expected"), [
    ("en", "The password is too weak.", "This password is too short"),
    ("de", "Das Passwort ist zu schwach.", "Dieses Passwort ist zu kurz"),
    ("fr", "Le mot de passe est trop faible.", "Ce mot de passe est trop court"),
])
def test_a_weak_password_is_refused_with_the_validators_messages(api_client: APIClient, language: str,
                                                                 message: str, expected: str) -> None:
    response = api_client.post("/api/v1/accounts", {"username": "ada", "password": "12345"}, format="json",
                               HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 400
    error = response.json()["error"]
    assert any(m.startswith(expected) for m in error["details"]["fields"]["password"]), error
    assert error["message"] == message
    assert Player.objects.count() == 0


def test_logout_revokes_the_token_in_use_only(make_account: Callable[..., APIClient]) -> None:
    phone = make_account("ada")
    tablet = signed_in(login("ada").json())
    assert tablet.post("/api/v1/auth/logout").status_code == 204
    assert tablet.get("/api/v1/me").status_code == 401
    assert phone.get("/api/v1/me").status_code == 200


def test_login_answers_an_unknown_user_as_a_wrong_password(make_account: Callable[..., APIClient]) -> None:
    make_account("ada")
    unknown, wrong = login("nobody", "whatever it is"), login("ada", "whatever it is")
    assert unknown.status_code == wrong.status_code == 401
    assert unknown.json() == wrong.json()
    assert unknown.json()["error"]["code"] == "invalid_credentials"


def test_login_hashes_once_for_an_unknown_user_as_for_a_known_one(make_account: Callable[..., APIClient]) -> None:
    """The same Argon2 work either way (a dummy hash for a user that does not exist), so about the same time."""
    make_account("ada")
    hasher = get_hasher()
    with mock.patch.object(type(hasher), "encode", autospec=True, side_effect=type(hasher).encode) as encode, \
            mock.patch.object(type(hasher), "verify", autospec=True, side_effect=type(hasher).verify) as verify:
        login("nobody", "whatever it is")
        unknown_calls = encode.call_count + verify.call_count
        encode.reset_mock(), verify.reset_mock()
        login("ada", "whatever it is")
        known_calls = encode.call_count + verify.call_count
    assert unknown_calls == known_calls == 1


def test_login_takes_about_as_long_for_an_unknown_user(make_account: Callable[..., APIClient],
                                                       settings: Any) -> None:
    settings.MAUMAU_LOGIN_FREE_FAILURES = settings.MAUMAU_LOGIN_FREE_FAILURES_PER_ADDRESS = 100
    make_account("ada")

    def seconds(username: str) -> float:
        started = time.perf_counter()
        assert login(username, "whatever it is").status_code == 401
        return time.perf_counter() - started

    unknown = median(seconds("nobody") for _ in range(5))
    known = median(seconds("ada") for _ in range(5))
    assert 0.5 < unknown / known < 2, (unknown, known)


def test_failed_logins_make_the_next_attempt_wait_longer_and_longer(make_account: Callable[..., APIClient],
                                                                    settings: Any) -> None:
    settings.MAUMAU_LOGIN_FREE_FAILURES = 2
    make_account("ada")
    with time_machine.travel(1_000_000, tick=False) as clock:
        assert login("ada", "wrong one").status_code == 401
        assert login("ada", "wrong two").status_code == 401  # the second free failure
        waits = []
        for _ in range(3):
            refused = login("ada", PASSWORD)  # even the right password waits
            assert refused.status_code == 429 and refused.json()["error"]["code"] == "throttled"
            waits.append(int(refused["Retry-After"]))
            clock.shift(waits[-1])
            assert login("ada", "wrong again").status_code == 401
        assert waits == [1, 2, 4]
        clock.shift(8)
        assert login("ada", PASSWORD).status_code == 200
        assert login("ada", "wrong after success").status_code == 401  # a success starts the count again


def test_failed_logins_from_one_address_slow_down_every_account(make_account: Callable[..., APIClient],
                                                                settings: Any) -> None:
    settings.MAUMAU_LOGIN_FREE_FAILURES_PER_ADDRESS = 2
    make_account("ada")
    with time_machine.travel(1_000_000, tick=False):
        assert login("bob", "guess").status_code == 401
        assert login("carl", "guess").status_code == 401
        assert login("ada", PASSWORD).status_code == 429
        assert login("ada", PASSWORD, REMOTE_ADDR="10.0.0.9").status_code == 200


def test_a_deactivated_user_cannot_log_in(make_account: Callable[..., APIClient]) -> None:
    make_account("ada")
    Player.objects.get(name="ada").user.__class__.objects.filter(username="ada").update(is_active=False)
    assert login("ada").json()["error"]["code"] == "invalid_credentials"


@pytest.mark.parametrize("body", [{"name": "x" * 65}, {"name": "   "}, {"device": ""}, {"password": "p" * 257},
                                  {"bot": "maybe"}, {"role": "admin"}])
def test_a_malformed_sign_up_changes_nothing(api_client: APIClient, body: dict[str, Any]) -> None:
    response = api_client.post("/api/v1/accounts", {"username": "ada", "password": PASSWORD, **body}, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "validation_error"
    assert Player.objects.count() == 0
