"""Log-ins under a flood and in races: the Argon2 work of a process is bounded, a burst sent when a
delay has passed gets one password checked, and two upgrades of one guest at once give one account."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.hashers import Argon2PasswordHasher, make_password
from django.db import connection
from rest_framework.test import APIClient

from accounts import hashers, services
from tests.accounts.conftest import PASSWORD, login

ON_POSTGRES = "postgresql" in django_settings.DATABASES["default"]["ENGINE"]


class Gauge:
    """How many calls run at once, at most, and how many there were."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = self.peak = self.calls = 0

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.calls += 1
            self.peak = max(self.peak, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


def test_a_process_hashes_at_most_the_configured_number_of_passwords_at_once(settings: Any,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    settings.MAUMAU_PASSWORD_HASHES_AT_ONCE = 2
    monkeypatch.setattr(hashers, "_slots", None)  # sized again from the setting
    gauge = Gauge()

    def slow_encode(self: Any, password: str, salt: str) -> str:
        with gauge:
            time.sleep(0.1)
        return f"argon2$fake${salt}"

    monkeypatch.setattr(Argon2PasswordHasher, "encode", slow_encode)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: make_password(f"password {n}"), range(16)))
    assert gauge.calls == 16
    assert gauge.peak == 2


def test_a_burst_of_log_ins_when_the_delay_has_passed_gets_one_password_checked(
        settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.MAUMAU_LOGIN_FREE_FAILURES = 1
    settings.MAUMAU_LOGIN_FREE_FAILURES_PER_ADDRESS = 1000
    gauge = Gauge()

    def wrong_password(**kwargs: Any) -> Any:
        with gauge:
            time.sleep(0.2)  # a hash's time: the burst's requests overlap it
        raise services.InvalidCredentials(message="wrong")

    monkeypatch.setattr(services, "login", wrong_password)
    assert login("ada", "guess one").status_code == 401  # the free failure: the next waits 1 s
    time.sleep(1.1)
    barrier = threading.Barrier(30)

    def attempt(n: int) -> int:
        barrier.wait()
        try:
            return login("ada", f"guess {n}").status_code
        finally:
            connection.close()

    gauge.calls = 0
    with ThreadPoolExecutor(30) as pool:
        codes = list(pool.map(attempt, range(30)))
    assert gauge.calls <= 1, f"{gauge.calls} passwords checked in the burst"
    assert sorted(set(codes)) in ([401, 429], [429])


@pytest.mark.postgres_only
@pytest.mark.skipif(not ON_POSTGRES, reason="needs PostgreSQL: a row lock across real connections")
@pytest.mark.django_db(transaction=True)
def test_two_upgrades_of_one_guest_at_once_give_one_account(make_player: Callable[..., APIClient]) -> None:
    guest = make_player("Guest")
    barrier = threading.Barrier(2)

    def upgrade(username: str) -> tuple[int, str]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {guest.token}")  # type: ignore[attr-defined]
        barrier.wait()
        try:
            response = client.post("/api/v1/me/credentials", {"username": username, "password": PASSWORD},
                                   format="json")
            return response.status_code, username
        finally:
            connection.close()

    with ThreadPoolExecutor(2) as pool:
        answers = sorted(pool.map(upgrade, ["first_name", "second_name"]))
    assert [code for code, _name in answers] == [200, 409], answers
    winner = next(name for code, name in answers if code == 200)
    assert login(winner).status_code == 200
