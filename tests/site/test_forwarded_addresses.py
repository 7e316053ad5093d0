"""The sign-up limit keys on the client's address; a forwarded address is believed only from as many
proxies as the operator configured (``MAUMAU_NUM_PROXIES``, default none)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def sign_up(client: APIClient, n: int, forwarded: str | None) -> int:
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return client.post("/api/v1/players", {"name": f"P{n}"}, format="json", **extra).status_code


@override_settings(MAUMAU_SIGNUP_RATE="2/min")
def test_a_forged_forwarded_for_does_not_escape_the_sign_up_limit() -> None:
    client = APIClient()
    codes = [sign_up(client, n, f"203.0.113.{n}") for n in range(4)]
    assert codes == [201, 201, 429, 429]


def test_behind_one_trusted_proxy_the_address_it_saw_is_the_client(settings) -> None:  # type: ignore[no-untyped-def]
    # One way of overriding per test: pytest-django's fixture restores what it saw on entry, and inside
    # an @override_settings that was the override, which it then left in place for every later test.
    settings.MAUMAU_SIGNUP_RATE = "2/min"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    client = APIClient()
    # The proxy appends the address it saw; what the client wrote before it is not believed.
    assert [sign_up(client, n, f"198.51.100.{n}, 203.0.113.7") for n in range(3)] == [201, 201, 429]
    assert sign_up(client, 9, "203.0.113.8") == 201


def test_the_number_of_trusted_proxies_comes_from_the_environment() -> None:
    code = "import django, os; django.setup(); from rest_framework.settings import api_settings; " \
           "print(api_settings.NUM_PROXIES)"
    env = {"DJANGO_SETTINGS_MODULE": "maumau.settings"}
    base = {k: v for k, v in os.environ.items() if k != "MAUMAU_NUM_PROXIES"}
    default = subprocess.run([sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True)
    two = subprocess.run([sys.executable, "-c", code], env={**base, **env, "MAUMAU_NUM_PROXIES": "2"},
                         capture_output=True, text=True)
    assert (default.stdout.strip(), two.stdout.strip()) == ("0", "2"), (default.stderr, two.stderr)
