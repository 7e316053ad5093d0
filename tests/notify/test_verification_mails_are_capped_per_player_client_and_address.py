"""Verification mails are capped per player, per client address and per address, and the caps hold
under concurrent requests (each key's count is a locked row, not a cache counter read then bumped).
The first concurrent ``PUT me/email`` of a player makes one address and answers 200, never 500."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core import mail
from rest_framework.test import APIClient

from notify.models import EmailAddress
from tests.threads import statuses_at_once

ON_POSTGRES = "postgresql" in django_settings.DATABASES["default"]["ENGINE"]


@pytest.fixture
def mail_on(settings: Any, eager_celery: None) -> None:
    settings.EMAIL_HOST = "mail.invalid"  # e-mail on; pytest-django's locmem backend keeps the mails
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.MAUMAU_SIGNUP_RATE = "10000/min"
    settings.MAUMAU_WRITE_RATE = "10000/min"
    mail.outbox.clear()


def _put(client: APIClient, address: str) -> Any:
    return client.put("/api/v1/me/email", {"address": address}, format="json")


@pytest.mark.django_db(transaction=True)
def test_one_player_cannot_mail_a_crowd_of_addresses(make_player: Callable[..., Any], mail_on: None,
                                                      settings: Any) -> None:
    settings.NOTIFY_VERIFICATION_MAILS_PER_PLAYER_HOUR = 3
    bo = make_player("Bo")
    answers = [_put(bo, f"victim{i}@example.org") for i in range(6)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429, 429, 429]
    refused = answers[3].json()["error"]
    assert refused["code"] == "throttled" and refused["details"]["limit"] == "player"
    assert 3000 <= int(answers[3]["Retry-After"]) <= 3601
    assert len(mail.outbox) == 3
    assert EmailAddress.objects.get(player_id=bo.player_id).address == "victim2@example.org"  # refused: unchanged


@pytest.mark.django_db(transaction=True)
def test_fresh_sign_ups_from_one_client_cannot_mail_a_crowd(make_player: Callable[..., Any], mail_on: None,
                                                             settings: Any) -> None:
    settings.NOTIFY_VERIFICATION_MAILS_PER_CLIENT_HOUR = 4
    socks = [make_player(f"Sock{i}") for i in range(6)]
    answers = [_put(sock, f"victim{i}@example.org") for i, sock in enumerate(socks)]
    assert [a.status_code for a in answers] == [200] * 4 + [429] * 2
    assert answers[4].json()["error"]["details"]["limit"] == "client"
    assert len(mail.outbox) == 4
    other = make_player("Elsewhere")
    assert other.put("/api/v1/me/email", {"address": "x@example.org"}, format="json",
                     REMOTE_ADDR="192.0.2.7").status_code == 200  # another client address has its own count


def _flood(clients: list[APIClient], addresses: list[str]) -> list[int]:
    return statuses_at_once([functools.partial(_put, client, address)
                             for client, address in zip(clients, addresses, strict=True)])


@pytest.mark.parametrize("run", range(3))
@pytest.mark.usefixtures("mail_on")
@pytest.mark.postgres_only
@pytest.mark.skipif(not ON_POSTGRES, reason="needs PostgreSQL: concurrent transactions on real connections")
@pytest.mark.django_db(transaction=True)
def test_the_limit_of_one_address_holds_under_a_concurrent_flood(make_player: Callable[..., Any], settings: Any,
                                                                  run: int) -> None:
    settings.NOTIFY_VERIFICATION_MAILS_PER_CLIENT_HOUR = 1000
    clients = [make_player(f"P{i}") for i in range(16)]
    statuses = _flood(clients, ["victim@example.org"] * len(clients))
    assert Counter(statuses) == {200: 3, 429: 13}
    assert len(mail.outbox) == 3


@pytest.mark.usefixtures("mail_on")
@pytest.mark.postgres_only
@pytest.mark.skipif(not ON_POSTGRES, reason="needs PostgreSQL: concurrent transactions on real connections")
@pytest.mark.django_db(transaction=True)
def test_a_players_first_addresses_sent_at_once_make_one_row_and_no_500(make_player: Callable[..., Any],
                                                                        settings: Any) -> None:
    settings.NOTIFY_VERIFICATION_MAILS_PER_PLAYER_HOUR = 1000
    settings.NOTIFY_VERIFICATION_MAILS_PER_CLIENT_HOUR = 1000
    bo = make_player("Bo")
    clients = []
    for _ in range(16):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {bo.token}")
        clients.append(client)
    statuses = _flood(clients, [f"bo{i}@example.org" for i in range(len(clients))])
    assert statuses == [200] * len(clients)
    assert EmailAddress.objects.filter(player_id=bo.player_id).count() == 1
