"""Fixtures for the account tests: people with passwords, and the games tests' tables and rounds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.games.conftest import every_ledger_verifies, make_table, two_people  # noqa: F401

PASSWORD = "correct horse battery"


def signed_in(body: dict[str, Any]) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    client.token = body["token"]  # type: ignore[attr-defined]
    client.player_id = body.get("id")  # type: ignore[attr-defined]
    return client


@pytest.fixture
def make_account(db: None) -> Callable[..., APIClient]:
    """Sign up with a username and password through the API; returns a client with its token."""

    def make(username: str = "ada", password: str = PASSWORD, **extra: Any) -> APIClient:
        response = APIClient().post("/api/v1/accounts", {"username": username, "password": password, **extra},
                                    format="json")
        assert response.status_code == 201, response.content
        return signed_in(response.json())

    return make


def login(username: str, password: str = PASSWORD, device: str = "Ada's phone", **headers: str) -> Any:
    return APIClient().post("/api/v1/auth/login", {"username": username, "password": password, "device": device},
                            format="json", **headers)
