"""Fixtures of the notify tests: a VAPID key, loopback push endpoints allowed, Celery eager, the test
push service (bench.push_service), a round of two whose moves the test makes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.cache import caches

from bench.push_service import PushService, vapid_key_pem
from tests.streams.streams_helpers import rigged_setup


@pytest.fixture
def push_on(settings: Any) -> str:
    settings.VAPID_PRIVATE_KEY = vapid_key_pem()
    settings.PUSH_ALLOW_LOOPBACK = True
    settings.NOTIFY_BACKOFF_SECONDS = 0.01
    settings.NOTIFY_MAX_ATTEMPTS = 3
    settings.NOTIFY_RECENT_MOVE_SECONDS = 0  # the test's moves follow each other at once
    caches["presence"].clear()
    from notify import channels

    return channels.vapid_public_key() or ""


@pytest.fixture
def push_service(push_on: str) -> Iterator[PushService]:
    service = PushService(server_key=push_on).start()
    yield service
    service.close()


@pytest.fixture
def round_for_two(make_player: Callable[..., Any]) -> Callable[[], tuple[Any, Any, int]]:
    """Ada (on turn) and Bo at a classic table, on a deal where each can play twice."""

    def make() -> tuple[Any, Any, int]:
        ada, bo = make_player("Ada"), make_player("Bo")
        table = ada.post("/api/v1/tables", {"rules": "classic", "max_players": 2}, format="json").json()
        assert bo.post(f"/api/v1/tables/{table['id']}/join", format="json").status_code == 200
        setup = rigged_setup([["KH", "10H", "10S", "QC", "KC"], ["QH", "9D", "KS", "QD", "10D"]], "9H", ["QS"])
        game = ada.post(f"/api/v1/tables/{table['id']}/rounds", {"setup": setup}, format="json")
        assert game.status_code == 201, game.content
        return ada, bo, game.json()["id"]

    return make


@pytest.fixture(autouse=True)
def connections_not_kept() -> Iterator[None]:
    """Each test opens (and checks) its own delivery connections: none kept from the test before."""
    yield
    from streams import outbound

    outbound.reset()
