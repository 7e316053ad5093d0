"""Every operation of the OpenAPI schema has a summary, and every request body an example that the
service accepts as it is."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from games.engine import parse_action
from games.serializers import TableCreateSerializer

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, ops in schema["paths"].items() for method, op in ops.items()]


def examples(operation: dict[str, Any]) -> list[Any]:
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    return [example["value"] for example in content.get("examples", {}).values()]


def test_every_operation_has_a_summary(schema: dict[str, Any]) -> None:
    missing = [f"{method.upper()} {path}" for path, method, op in operations(schema) if not op.get("summary")]
    assert not missing


def test_every_request_body_has_an_example(schema: dict[str, Any]) -> None:
    bodies = [(path, method, op) for path, method, op in operations(schema) if "requestBody" in op]
    assert len(bodies) >= 7
    missing = [f"{method.upper()} {path}" for path, method, op in bodies if not examples(op)]
    assert not missing


def test_the_action_examples_are_well_formed_actions(schema: dict[str, Any]) -> None:
    actions = examples(schema["paths"]["/api/v1/games/{game_id}/actions"]["post"])
    assert {action["type"] for action in actions} == {"play", "draw", "pass", "say", "resign"}
    for action in actions:
        parse_action({k: v for k, v in action.items() if k != "expected_version"})


def test_the_table_examples_open_tables(schema: dict[str, Any], make_player: Any) -> None:
    host = make_player("Ada")
    league = host.post("/api/v1/leagues", {"name": "Friday", "rules": "house"}, format="json").json()
    for body in examples(schema["paths"]["/api/v1/tables"]["post"]):
        if "league" in body:
            body = {**body, "league": league["id"]}  # the example's id, as this database numbers it
        assert TableCreateSerializer(data=body).is_valid(), body
        response = host.post("/api/v1/tables", body, format="json")
        assert response.status_code == 201, (body, response.json())


def test_the_round_examples_start_rounds(schema: dict[str, Any], make_player: Any) -> None:
    host, guest = make_player("Ada"), make_player("Bo")
    for body in examples(schema["paths"]["/api/v1/tables/{table_id}/rounds"]["post"]):
        table = host.post("/api/v1/tables", {"rules": "classic"}, format="json").json()
        assert guest.post(f"/api/v1/tables/{table['id']}/join").status_code == 200
        response = host.post(f"/api/v1/tables/{table['id']}/rounds", body, format="json")
        assert response.status_code == 201, (body, response.json())


def test_the_league_examples_create_leagues(schema: dict[str, Any], make_player: Any) -> None:
    host = make_player("Ada")
    for body in examples(schema["paths"]["/api/v1/leagues"]["post"]):
        assert host.post("/api/v1/leagues", body, format="json").status_code == 201, body
