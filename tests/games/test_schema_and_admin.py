"""The OpenAPI schema describes every endpoint; the admin shows tables, games and ledger read-only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from games.models import Game, Move
from tests.games.api_helpers import act, setup_for

pytestmark = pytest.mark.django_db

ENDPOINTS = {
    "/api/v1/players": {"post"},
    "/api/v1/me": {"get"},
    "/api/v1/tables": {"get", "post"},
    "/api/v1/tables/{table_id}": {"get"},
    "/api/v1/tables/{table_id}/join": {"post"},
    "/api/v1/tables/{table_id}/leave": {"post"},
    "/api/v1/tables/{table_id}/bots": {"post"},
    "/api/v1/tables/{table_id}/rounds": {"post"},
    "/api/v1/games/{game_id}": {"get"},
    "/api/v1/games/{game_id}/actions": {"post"},
    "/api/v1/games/{game_id}/events": {"get"},
}


def test_schema_describes_every_endpoint_with_its_errors() -> None:
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path, methods in ENDPOINTS.items():
        assert path in schema["paths"], path
        for method in methods:
            operation = schema["paths"][path][method]
            codes = set(operation["responses"])
            assert codes & {"200", "201"}, (path, method)
            assert "401" in codes or path == "/api/v1/players", (path, method)
    actions = schema["paths"]["/api/v1/games/{game_id}/actions"]["post"]
    assert {"400", "403", "404", "409", "422", "429"} <= set(actions["responses"])
    assert "bench" not in " ".join(schema["paths"])


def test_swagger_ui_is_served() -> None:
    response = Client().get("/api/docs/")
    assert response.status_code == 200 and b"swagger" in response.content.lower()


def test_admin_lists_tables_games_and_ledger_but_changes_nothing(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = two_people("classic", setup=setup_for("classic", [["7H"], ["8C", "9C"]], "9H"))
    act(host, game["id"], {"type": "play", "cards": ["7H"]})
    User.objects.create_superuser("root", "root@example.invalid", "pw")
    admin = Client()
    assert admin.login(username="root", password="pw")
    for model in ("table", "game", "move", "player"):
        assert admin.get(f"/admin/games/{model}/").status_code == 200, model
        assert admin.get(f"/admin/games/{model}/add/").status_code == 403, model
    move = Move.objects.first()
    assert admin.get(f"/admin/games/move/{move.pk}/change/").status_code == 200
    assert admin.post(f"/admin/games/move/{move.pk}/delete/", {"post": "yes"}).status_code == 403
    page = admin.get(f"/admin/games/game/{game['id']}/change/").content.decode()
    assert Game.objects.get(pk=game["id"]).seed not in page
