"""Where schemathesis found the schema and the server apart: an empty whole-number query value
(``?limit=``, ``?after=``, ``?wait=``) is no number, so it is refused (400) as the schema says, and a
move's body, without which the server answers 400, is required in the schema too."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("query", ["limit=", "limit=&offset=2", "offset="])
def test_an_empty_number_in_the_history_query_is_refused(make_player, query) -> None:  # type: ignore[no-untyped-def]
    ada = make_player("Ada")
    response = ada.get(f"/api/v1/me/history?{query}")
    assert response.status_code == 400 and response.json()["error"]["code"] == "validation_error"


def test_an_empty_after_of_the_game_view_and_its_ledger_is_refused(make_player) -> None:  # type: ignore[no-untyped-def]
    ada, bob = make_player("Ada"), make_player("Bob")
    table = ada.post("/api/v1/tables", {"rules": "classic", "max_players": 2}, format="json").json()
    bob.post(f"/api/v1/tables/{table['id']}/join", format="json")
    game = ada.post(f"/api/v1/tables/{table['id']}/rounds", {"seed": 1}, format="json").json()
    seen = ada.get(f"/api/v1/games/{game['id']}")
    for url in (f"/api/v1/games/{game['id']}?after=", f"/api/v1/games/{game['id']}/events?after=",
                f"/api/v1/games/{game['id']}/events?limit="):
        response = ada.get(url, HTTP_IF_NONE_MATCH=seen.headers["ETag"])
        assert response.status_code == 400, (url, response.status_code)
    assert ada.get(f"/api/v1/games/{game['id']}?after=0").status_code == 200


def test_a_moves_body_is_required_in_the_schema_as_by_the_server(make_player) -> None:  # type: ignore[no-untyped-def]
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert schema["paths"]["/api/v1/games/{game_id}/actions"]["post"]["requestBody"]["required"] is True
