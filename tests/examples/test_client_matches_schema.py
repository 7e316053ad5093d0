"""The bot kit's client (examples/maumau_client.py) stays hand-written, and cannot drift from the API:
every request it makes, recorded without a server, is an operation of the live schema, with only the
query parameters and body fields that operation documents (a play taken from ``legal_actions``, its
``as_choices`` included, among them)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from rest_framework.test import APIClient

KIT = Path(__file__).resolve().parents[2] / "examples" / "maumau_client.py"


def _kit() -> Any:
    spec = importlib.util.spec_from_file_location("maumau_client_under_test", KIT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _fields(schema: dict[str, Any], node: dict[str, Any], body: dict[str, Any]) -> set[str]:
    """The properties a body may have under ``node`` (for a union: the variant of the body's ``type``)."""
    node = _resolve(schema, node)
    if "oneOf" in node:
        mapping = node.get("discriminator", {}).get("mapping", {})
        variant = mapping.get(body.get("type"))
        assert variant, f"no variant of the union for {body}"
        return _fields(schema, {"$ref": variant}, body)
    return set(node.get("properties", {}))


def _operation(schema: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    for template, operations in schema["paths"].items():
        if _matches(template, path) and method.lower() in operations:
            return dict(operations[method.lower()])
    raise AssertionError(f"{method} {path} is no operation of the schema")


def _matches(template: str, path: str) -> bool:
    return re.fullmatch(re.sub(r"\{[^}]+\}", "[0-9]+", template), path) is not None


@pytest.mark.django_db
def test_every_request_of_the_kit_is_in_the_schema() -> None:
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    kit = _kit()
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"token": "k", "id": 1})

    class Recorded(kit.MauMau):  # type: ignore[misc,name-defined]
        def __init__(self, base_url: str, token: str | None = None, **kwargs: Any) -> None:
            super().__init__(base_url, token, **kwargs)
            self.http = httpx.Client(base_url=f"{base_url}/api/v1", transport=httpx.MockTransport(answer),
                                     headers=self.http.headers)

    client = Recorded.sign_up("http://kit.test", "Kit")
    client.me()
    client.seek("house", 2, options={"jokers": 2}, fill_with_bots_after=5)
    client.challenges()
    client.accept_challenge(3)
    client.create_table("classic", options={"hand_size": 5}, max_players=3)
    client.join_table(4)
    client.add_bot(4, "strong")
    client.start_round(4)
    client.game(5, wait=30, after=2)
    client.act(5, {"type": "play", "cards": ["X1"], "as": {"X1": "7S"}, "as_choices": {"X1": ["7S", "7H"]},
                   "say": ["mau"]}, expected_version=7)
    client.act(5, {"type": "say", "word": "hermann"})
    missing = [name for name in vars(kit.MauMau) if not name.startswith("_")
               and name not in {"sign_up", "me", "seek", "challenges", "accept_challenge", "create_table", "join_table",
                                "add_bot", "start_round", "game", "act", "stream"}]
    assert not missing, f"calls of the kit this test does not make yet: {missing}"
    assert _operation(schema, "GET", "/api/v1/me/stream")  # stream(): never ends, so not called here

    for request in sent:
        operation = _operation(schema, request.method, request.url.path)
        documented = {parameter["name"] for parameter in operation.get("parameters", []) if parameter["in"] == "query"}
        assert set(request.url.params) <= documented, (request.method, request.url.path, dict(request.url.params))
        if request.content:
            body = json.loads(request.content)
            assert "requestBody" in operation, (request.method, request.url.path)
            content = operation["requestBody"]["content"]["application/json"]["schema"]
            extra = set(body) - _fields(schema, content, body)
            assert not extra, (request.method, request.url.path, extra)
