"""Whatever a client sends, a refusal is in the API's error shape: nothing answers in HTML, nothing
that a client sends is a 500, and a stream opens only for GET."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from games.models import Player, Table

pytestmark = pytest.mark.django_db


def shaped(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response.content[:300]
    error = response.json()["error"]
    assert set(error) == {"code", "message", "details"} and error["code"] == code, error
    return error


@pytest.fixture
def token(make_player: Callable[..., Any]) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Token {make_player('Ada').token}"}


def post_raw(path: str, body: str, **extra: Any) -> Any:
    return Client(raise_request_exception=False).post(path, data=body, content_type="application/json", **extra)


@pytest.mark.parametrize("body", [
    "[" * 1000 + "]" * 1000,
    '{"a":' * 1000 + "1" + "}" * 1000,
    '{"rules": "classic", "options": ' + '{"a":' * 40 + "1" + "}" * 40 + "}",
])
def test_json_nested_too_deep_is_a_400(token: dict[str, str], body: str) -> None:
    error = shaped(post_raw("/api/v1/tables", body, **token), 400, "validation_error")
    assert "nested" in error["details"]["parse_error"]
    assert not Table.objects.exists()


@pytest.mark.parametrize("body", ['{"\\ud800": 1}', '{"rules": "classic", "options": {"\\udfff": true}}',
                                  '{"rules": "classic", "options": {"x": ["\\ud800"]}}', '"\\ud800"'])
def test_a_lone_surrogate_anywhere_in_the_json_is_a_400(token: dict[str, str], body: str) -> None:
    error = shaped(post_raw("/api/v1/tables", body, **token), 400, "validation_error")
    assert "surrogate" in error["details"]["parse_error"]


def test_a_surrogate_pair_is_a_character_not_a_fault() -> None:
    response = post_raw("/api/v1/players", '{"name": "Ada \\ud83c\\udca1"}')
    assert response.status_code == 201 and response.json()["name"] == "Ada \U0001f0a1"


def test_a_body_over_the_limit_is_a_413_in_the_error_shape(token: dict[str, str], settings: Any) -> None:
    body = json.dumps({"rules": "classic", "options": {"x": "a" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)}})
    error = shaped(post_raw("/api/v1/tables", body, **token), 413, "request_too_large")
    assert error["details"]["max_bytes"] == settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def test_a_host_not_allowed_is_a_400_in_the_error_shape(settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["api.example"]
    response = Client(raise_request_exception=False).get("/api/v1/me", HTTP_HOST="evil.example")
    assert shaped(response, 400, "validation_error")["details"]["reason"] == "host_not_allowed"


def test_too_many_query_parameters_is_a_400_in_the_error_shape(token: dict[str, str]) -> None:
    query = "&".join(f"a{i}=1" for i in range(1500))
    response = Client(raise_request_exception=False).get(f"/api/v1/tables?{query}", **token)
    assert shaped(response, 400, "validation_error")["details"]["reason"] == "too_many_parameters"


@pytest.mark.parametrize("path", ["/api/v1/nothing", "/api/nothing", "/api/v1/games/x/events", "/nothing"])
def test_unknown_urls_are_a_404_in_the_error_shape(token: dict[str, str], path: str) -> None:
    shaped(Client().get(path, **token), 404, "not_found")


def test_a_method_a_view_does_not_take_is_a_405_in_the_error_shape(token: dict[str, str]) -> None:
    shaped(Client().delete("/api/v1/players", **token), 405, "method_not_allowed")
    shaped(Client().put("/api/v1/tables", **token), 405, "method_not_allowed")


def test_a_failed_csrf_check_outside_the_admin_is_a_403_in_the_error_shape() -> None:
    response = Client(enforce_csrf_checks=True).post("/", {"a": 1})
    assert shaped(response, 403, "permission_denied")["details"]["reason"] == "csrf"


@pytest.mark.parametrize("path", ["/api/v1/me/stream", "/api/v1/games/1/stream"])
@pytest.mark.parametrize("method", ["post", "put", "delete", "patch", "head"])
def test_only_get_opens_a_stream(token: dict[str, str], path: str, method: str) -> None:
    response = getattr(Client(enforce_csrf_checks=True), method)(path, **token)
    assert response.status_code == 405 and response["Allow"] == "GET, OPTIONS"
    assert not getattr(response, "streaming", False)
    if method != "head":
        shaped(response, 405, "method_not_allowed")


def test_options_on_a_stream_says_what_it_takes_without_opening_it(token: dict[str, str]) -> None:
    response = Client().options("/api/v1/me/stream", **token)
    assert response.status_code == 204 and response["Allow"] == "GET, OPTIONS"
    assert not getattr(response, "streaming", False) and response.content == b""


def test_nothing_is_stored_from_a_refused_body() -> None:
    post_raw("/api/v1/players", '{"name": "\\ud800Ada"}')
    post_raw("/api/v1/players", "[" * 5000 + "]" * 5000)
    assert not Player.objects.exists()


@pytest.mark.parametrize("path", ["/api/v1/games/99999999999999999999999/events", "/api/v1/games/9999999999999999999",
                                  "/api/v1/tables/99999999999999999999999", "/api/v1/leagues/99999999999999999999",
                                  "/api/v1/players/99999999999999999999/stats", "/api/v1/webhooks/99999999999999999999",
                                  "/api/v1/games/99999999999999999999999/stream"])
def test_an_id_longer_than_the_database_holds_is_a_404(token: dict[str, str], path: str) -> None:
    shaped(Client(raise_request_exception=False).get(path, **token), 404, "not_found")
    shaped(Client(raise_request_exception=False).get(path, {"wait": "1"}, **token), 404, "not_found")
