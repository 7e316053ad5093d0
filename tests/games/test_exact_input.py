"""What the OpenAPI schema promises about input, held by the API: no loose coercion, declared
bounds enforced (400 in the error shape of docs/api.md, nothing changed), and the answers the schema describes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def _refused(response: Any) -> dict[str, Any]:
    assert response.status_code == 400, response.content
    assert set(response.json()) == {"error"}
    return dict(response.json()["error"])


@pytest.mark.parametrize("body", [
    {"name": 0}, {"name": True}, {"name": ["Ada"]},
])
def test_a_name_that_is_no_json_string_is_refused(body: dict[str, Any]) -> None:
    assert _refused(Client().post("/api/v1/players", body, content_type="application/json"))["code"] == \
        "validation_error"


@pytest.mark.parametrize("max_players", ["4", 4.0, True])
def test_a_whole_number_is_a_json_integer_only(make_player: Any, max_players: Any) -> None:
    host = make_player()
    response = host.post("/api/v1/tables", {"rules": "classic", "max_players": max_players}, format="json")
    _refused(response)
    assert host.get("/api/v1/tables?mine=true").json() == []


@pytest.mark.parametrize("rules", [1, ["classic"]])
def test_a_choice_is_the_very_string(make_player: Any, rules: Any) -> None:
    _refused(make_player().post("/api/v1/leagues", {"name": "Friday", "rules": rules}, format="json"))


@pytest.mark.parametrize("query", ["mine=1", "mine=yes", "mine=", "mine=null"])
def test_a_query_boolean_is_true_or_false(make_player: Any, query: str) -> None:
    player = make_player()
    assert _refused(player.get(f"/api/v1/tables?{query}"))["details"]["field"] == "mine"
    assert _refused(player.get(f"/api/v1/leagues?{query}"))["details"]["field"] == "mine"
    assert player.get("/api/v1/tables?mine=false").status_code == 200


@pytest.mark.parametrize("seed", ["a" * 129, "a\u0000b", "\udc00", "", 2**63, 1.5, True])
def test_a_seed_the_round_cannot_store_is_refused(make_table: Any, make_player: Any, seed: Any) -> None:
    table = make_table("classic")
    assert table.join(make_player("Guest")).status_code == 200
    body = json.dumps({"seed": seed})  # escaped: a lone surrogate travels as JSON allows it
    _refused(table.host.post(f"/api/v1/tables/{table.id}/rounds", body, content_type="application/json"))
    assert table.start(seed="a" * 128).status_code == 201


@pytest.mark.parametrize("option, value", [
    ("turn_seconds", 10**12), ("hermann_seconds", 10**6), ("max_turns", 10**12), ("league_limit", 10**10),
    ("players", [2, 10**9]),
])
def test_an_option_beyond_its_declared_bound_is_refused(make_player: Any, option: str, value: Any) -> None:
    error = _refused(make_player().post("/api/v1/tables", {"rules": "house", "options": {option: value}},
                                        format="json"))
    assert error["details"]["option"] == option


def test_out_of_range_numbers_in_the_game_view_and_deliveries_are_refused(two_people: Any) -> None:
    _table, host, _guest, game = two_people("classic")
    assert _refused(host.get(f"/api/v1/games/{game['id']}?after={2**31}"))["details"]["field"] == "after"
    assert _refused(host.get(f"/api/v1/games/{game['id']}/events?limit=1001"))["details"]["field"] == "limit"
    action = {"type": "draw", "expected_version": 2**31}
    assert _refused(host.post(f"/api/v1/games/{game['id']}/actions", action, format="json"))["details"][
        "field"] == "expected_version"


def test_a_delivery_status_filter_is_one_of_the_statuses(make_player: Any, settings: Any) -> None:
    player = make_player()
    hook = player.post("/api/v1/webhooks", {"url": "https://8.8.8.8/hook", "events": ["*"]}, format="json")
    assert hook.status_code == 201, hook.content
    assert _refused(player.get(f"/api/v1/webhooks/{hook.json()['id']}/deliveries?status=lost"))["details"][
        "field"] == "status"


def test_the_schema_of_the_game_view_does_not_require_move_events(make_player: Any) -> None:
    schema = make_player().get("/api/schema/?format=json").json()
    view = schema["paths"]["/api/v1/games/{game_id}"]["get"]["responses"]["200"]["content"]["application/json"]
    name = view["schema"]["$ref"].rsplit("/", 1)[-1]
    assert "events" not in schema["components"]["schemas"][name]["required"]
    assert schema["components"]["schemas"]["PlayerCreateRequest"]["additionalProperties"] is False
