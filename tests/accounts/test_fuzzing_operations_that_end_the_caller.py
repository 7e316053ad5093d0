"""The operations that end the caller's token or account (log-out, password change, deletion, token
revocation, a guest's upgrade), which the live schemathesis run (tests/api) leaves out because they
would end its one token: fuzzed here in-process, each example with a fresh guest's token. Whatever a
client sends, the answer is never a 500 and always has a JSON error body in the error shape of docs/api.md."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from accounts.services import player_create

pytestmark = pytest.mark.django_db


def operations() -> list[Any]:
    loaded = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    return [result.ok() for result in loaded.get_all_operations() if result.ok().label in DISPOSABLE_CALLER]


@contextmanager
def in_test_transaction() -> Iterator[None]:
    """Requests run inside the test's transaction, as with Django's test client: the WSGI handler
    must not close "old" connections around a request (it would close the test's own). The test
    client reconnects these receivers after each of its requests, so this wraps the fuzzing only."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def test_no_input_to_an_operation_that_ends_the_caller_gets_a_server_error(settings: Any) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}
    checked: list[str] = []
    with in_test_transaction():
        fuzz_every_operation(checked)
    assert sorted(checked) == sorted(DISPOSABLE_CALLER)


#: Operations that end the caller's token or account: fuzzed with a fresh guest's token each time, so
#: that the host stays signed in for the rest.
DISPOSABLE_CALLER = {"POST /api/v1/auth/logout", "DELETE /api/v1/me/account", "POST /api/v1/me/password",
                     "DELETE /api/v1/me/tokens/{token_id}", "POST /api/v1/me/credentials"}


def guest_headers() -> dict[str, str]:
    """The app is called in-process, whose answers nobody decompresses: ask for them plain."""
    return {"Authorization": f"Token {player_create(name='Guest')[1]}", "Accept-Encoding": "identity"}


def fuzz_every_operation(checked: list[str]) -> None:
    for operation in operations():

        @given(case=operation.as_strategy())
        @settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def fuzz(case: Any) -> None:
            response = case.call(headers=guest_headers())
            case.validate_response(response, checks=[not_a_server_error])
            if response.status_code >= 400:
                assert set(response.json()) == {"error"}, response.text
                assert {"code", "message", "details"} <= set(response.json()["error"]), response.text

        fuzz()
        checked.append(operation.label)
