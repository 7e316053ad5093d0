"""Strict types for every request field, whichever field class declared it (``0`` is no boolean and
no string, ``"1"`` and ``true`` are no integer), and every refusal an operation answers is in its
part of the schema: its status, and the code behind it where the code is the operation's own."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.urls import resolve
from rest_framework.test import APIClient

from maumau.strict import StrictSerializer, json_type

pytestmark = pytest.mark.django_db

WRONG = {"boolean": [0, 1, "true"], "integer": ["1", True, 1.5], "number": ["1", True],
         "string": [0, 5.5, True, ["x"]], "array": ["x", 0, {"a": 1}]}


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_request_field_refuses_a_value_of_another_json_type() -> None:
    """Walks every request serializer of the API (each is a StrictSerializer) and every field of one
    JSON type in it: each value of another type is a 400 naming the field."""
    import maumau.urls  # noqa: F401 - every app's views, so every request serializer, are loaded

    checked = 0
    for cls in set(_subclasses(StrictSerializer)):
        if cls.__module__.startswith("tests."):
            continue
        for name, field in cls().fields.items():
            if field.read_only:
                continue
            expected = json_type(field)
            if expected is None:
                continue
            for value in WRONG[expected[0]]:
                serializer = cls(data={name: value})
                assert not serializer.is_valid(), (cls.__name__, name, value)
                assert name in serializer.errors, (cls.__name__, name, value, serializer.errors)
                checked += 1
    assert checked > 100


def test_scorekeeper_alone_zero_and_an_invite_code_zero_are_refused(make_player: Callable[..., Any]) -> None:
    owner, guest = make_player("Owner"), make_player("Guest")
    made = owner.post("/api/v1/leagues", {"name": "Stammtisch", "rules": "house", "scorekeeper_alone": 0},
                      format="json")
    assert made.status_code == 400, made.content
    error = made.json()["error"]
    assert error["code"] == "validation_error" and "scorekeeper_alone" in error["details"]["fields"]
    assert owner.get("/api/v1/leagues?mine=true").json() == []
    league = owner.post("/api/v1/leagues", {"name": "Stammtisch", "rules": "house"}, format="json").json()
    joined = guest.post(f"/api/v1/leagues/{league['id']}/join", {"code": 0}, format="json")
    assert joined.status_code == 400 and "code" in joined.json()["error"]["details"]["fields"]
    cards = owner.post(f"/api/v1/leagues/{league['id']}/rounds",
                       {"winner": owner.player_id, "lines": [{"player": owner.player_id, "cards": [0]}]},
                       format="json")
    assert cards.status_code == 400 and cards.json()["error"]["code"] == "validation_error"


def _documented(schema: dict[str, Any], method: str, path: str, status: int, code: str) -> str:
    """The schema's description of this answer (the operation's own), or an assertion error."""
    route = "/" + resolve(path).route.replace("<id:", "{").replace(">", "}")
    operation = schema["paths"][route][method.lower()]
    assert str(status) in operation["responses"], (method, route, status)
    description = operation["responses"][str(status)]["description"]
    assert code in description, (method, route, status, code, description)
    return description


def test_the_league_members_only_refusals_are_in_the_schema(make_player: Callable[..., Any]) -> None:
    from tests.scoring.sheet_helpers import league_night

    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    league, (ada, _bert) = league_night(make_player, 2)
    lid = league["id"]
    outsider = make_player("Outsider")
    table = ada.post("/api/v1/tables", {"rules": "house", "league": lid}, format="json").json()
    answers = [
        ("POST", f"/api/v1/tables/{table['id']}/join", outsider.post(f"/api/v1/tables/{table['id']}/join")),
        ("POST", "/api/v1/tables", outsider.post("/api/v1/tables", {"rules": "house", "league": lid}, format="json")),
        ("POST", "/api/v1/seeks", outsider.post("/api/v1/seeks", {"rules": "house", "players": 2, "league": lid},
                                                format="json")),
    ]
    for method, path, answer in answers:
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "league_members_only"
        _documented(schema, method, path, 403, "league_members_only")
    _documented(schema, "POST", f"/api/v1/tables/{table['id']}/bots", 403, "league_members_only")
