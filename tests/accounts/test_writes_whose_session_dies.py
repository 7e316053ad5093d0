"""An account write whose database session is ended mid-transaction (``pg_terminate_backend``) runs
once more on a fresh connection: a sign-up, a log-in, a guest's upgrade and a password change answer
as they would have, each written once; without the retry they would be a 500."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from accounts.models import AccessToken
from games.models import Player
from tests.accounts.conftest import PASSWORD, login
from tests.games.dead_sessions import postgresql_only, session_killed_before

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]  # outside a test transaction, as a request

NEW_PASSWORD = "battery staple horse"


def test_a_sign_up_whose_session_dies_after_its_user_is_written_makes_one_account(api_client: APIClient) -> None:
    with session_killed_before('INSERT INTO "games_player"') as killed:
        response = api_client.post("/api/v1/accounts", {"username": "ada", "password": PASSWORD}, format="json")
    assert response.status_code == 201, response.content
    assert killed
    assert list(User.objects.values_list("username", flat=True)) == ["ada"]
    assert Player.objects.get(user__username="ada").name == "ada"
    assert login("ada").status_code == 200


def test_a_log_in_whose_session_dies_gives_one_working_token(make_account: Callable[..., APIClient]) -> None:
    make_account("ada")
    with session_killed_before('INSERT INTO "accounts_accesstoken"') as killed:
        response = login("ada", device="Ada's laptop")
    assert response.status_code == 200, response.content
    assert killed
    assert AccessToken.objects.filter(user__username="ada", name="Ada's laptop").count() == 1
    laptop = APIClient()
    laptop.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert laptop.get("/api/v1/me/tokens").status_code == 200


def test_a_guest_whose_session_dies_while_setting_credentials_is_upgraded(
        make_player: Callable[..., APIClient]) -> None:
    guest = make_player("Ada")
    with session_killed_before('UPDATE "auth_user"') as killed:
        response = guest.post("/api/v1/me/credentials", {"username": "ada", "password": PASSWORD}, format="json")
    assert response.status_code == 200, response.content
    assert killed
    assert login("ada").status_code == 200


def test_a_password_change_whose_session_dies_revokes_the_other_tokens_and_sets_it(
        make_account: Callable[..., APIClient]) -> None:
    phone = make_account("ada")
    assert login("ada", device="Ada's laptop").status_code == 200
    with session_killed_before('DELETE FROM "accounts_accesstoken"') as killed:
        response = phone.post("/api/v1/me/password", {"old_password": PASSWORD, "new_password": NEW_PASSWORD},
                              format="json")
    assert response.status_code == 200, response.content
    assert response.json() == {"revoked": 1}
    assert killed
    assert login("ada", NEW_PASSWORD).status_code == 200
    assert login("ada", PASSWORD).status_code == 401
