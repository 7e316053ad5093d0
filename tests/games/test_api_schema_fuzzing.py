"""Schemathesis fuzzes every operation of the OpenAPI schema in-process: whatever a client sends,
the answer is never a 500 and always has a JSON error body in the API.md shape when it fails.

The caller is the host of a running house round, and the ids in the paths point at it;
throttling is off so that every example reaches its view; streams are left out (they never end)
and long-polls are left to the streams tests (their async path reads the database from other
threads, which an in-process test transaction cannot share).
"""

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

from games.services import player_create

pytestmark = pytest.mark.django_db


def operations() -> list[Any]:
    loaded = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    return [result.ok() for result in loaded.exclude(path_regex=r"/stream$").get_all_operations()]


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


@pytest.fixture
def seated(two_people: Any, settings: Any) -> tuple[dict[str, str], dict[str, int]]:
    """The host's token, and the real ids that path parameters are pinned to."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}
    table, host, _guest, game = two_people("house")
    me = host.get("/api/v1/me").json()
    ids = {"game_id": game["id"], "table_id": table.id, "player_id": me["id"]}
    return {"Authorization": host._credentials["HTTP_AUTHORIZATION"]}, ids


def test_no_input_to_any_operation_gets_a_server_error(seated: tuple[dict[str, str], dict[str, int]]) -> None:
    headers, ids = seated
    checked = []
    with in_test_transaction():
        fuzz_every_operation(headers, ids, checked)
    assert len(checked) >= 25, checked


#: Operations that end the caller's token or account: fuzzed with a fresh guest's token each time, so
#: that the host stays signed in for the rest.
DISPOSABLE_CALLER = {"POST /api/v1/auth/logout", "DELETE /api/v1/me/account", "POST /api/v1/me/password",
                     "DELETE /api/v1/me/tokens/{token_id}", "POST /api/v1/me/credentials"}


def guest_headers() -> dict[str, str]:
    return {"Authorization": f"Token {player_create(name='Guest')[1]}"}


def fuzz_every_operation(headers: dict[str, str], ids: dict[str, int], checked: list[str]) -> None:
    for operation in operations():

        @given(case=operation.as_strategy())
        @settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def fuzz(case: Any) -> None:
            if case.query:
                case.query.pop("wait", None)  # the long-poll path has its own tests (tests/streams)
            for name, value in ids.items():  # reach the real round; the rest of the input is fuzzed
                if case.path_parameters and name in case.path_parameters:
                    case.path_parameters[name] = value
            response = case.call(headers=guest_headers() if case.operation.label in DISPOSABLE_CALLER else headers)
            case.validate_response(response, checks=[not_a_server_error])
            if response.status_code >= 400:
                assert set(response.json()) == {"error"}, response.text
                assert {"code", "message", "details"} <= set(response.json()["error"]), response.text

        fuzz()
        checked.append(operation.label)
