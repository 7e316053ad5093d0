"""A cache (Redis) outage: the throttles fail open, so writes, sign-ups, log-ins and chat go on
(a warning logged and counted), where each write used to answer 500."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from bench import harness
from maumau import observability
from tests.accounts.conftest import PASSWORD, login

pytestmark = pytest.mark.django_db


def failed_open(throttle: str) -> float:
    return observability.THROTTLES_FAILED_OPEN.labels(throttle)._value.get()


def test_writes_go_on_while_the_cache_is_down(settings: Any, make_player: Callable[..., APIClient],
                                              caplog: pytest.LogCaptureFixture) -> None:
    ada = make_player("Ada")
    APIClient().post("/api/v1/accounts", {"username": "bob", "password": PASSWORD}, format="json")
    settings.CACHES = {"default": {"BACKEND": "maumau.cache.SharedClientRedisCache",
                                   "LOCATION": f"redis://127.0.0.1:{harness.free_port()}/0",  # nobody listens
                                   "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}
    before = {name: failed_open(name) for name in ("writes", "login")}
    with caplog.at_level(logging.WARNING, logger="maumau.throttling"):
        table = ada.post("/api/v1/tables", {"rules": "classic"}, format="json")
        assert table.status_code == 201, table.content
        assert APIClient().post("/api/v1/players", {"name": "Cleo"}, format="json").status_code == 201
        assert login("bob").status_code == 200
        assert login("bob", "a wrong one").status_code == 401
        chat = ada.post(f"/api/v1/tables/{table.json()['id']}/messages", {"text": "hello"}, format="json")
        assert chat.status_code == 201, chat.content  # the chat rate is counted in the database, not the cache
    assert failed_open("writes") > before["writes"]
    assert failed_open("login") > before["login"]
    assert "throttle lets the request through" in caplog.text
