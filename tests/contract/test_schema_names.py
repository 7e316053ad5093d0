"""Names a generated client is built on: every component of the served schema has a name chosen in the
code, so that a client generated today still compiles against tomorrow's schema.

drf-spectacular invents a name when the code gives none: ``<Field>Enum`` for a choice set, and
``<Component><Field>Enum`` or ``<Field><3 hex digits>Enum`` when two choice sets share a field name. An
invented name changes when the values or the neighbouring serializers change, and every generated
client with it. The checks here run with every ``bin/test``, so a new endpoint or field that lands with
an invented name fails at once, with what to do in the message.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from games.schema import components as game_components
from live.schema import components as stream_components
from maumau.schema import ERROR_COMPONENTS

#: A run of hex digits that holds a digit, where drf-spectacular puts the hash of a collision
#: (``Kind986Enum``), or any digit in a name: names are words.
HASHED = re.compile(r"[0-9]")
#: drf-spectacular's suffixes for a choice set it had to name itself.
INVENTED_ENUM = re.compile(r"Enum$")

HOW_TO_NAME = (
    "Give each a name in the code: for a choice set, an entry in SPECTACULAR_SETTINGS['ENUM_NAME_OVERRIDES'] "
    "(maumau/settings.py) mapping a name in the game's words (no `Enum` suffix) to the choices or their import "
    "path, such as \"SeekStatus\": \"lobby.models.Seek.STATUS\"; for an object, a serializer class named for "
    "what it is (or extend_schema_serializer(component_name=...)). Then regenerate: docs/clients.md."
)


def _schema() -> dict[str, Any]:
    answer = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert answer.status_code == 200
    return dict(answer.json())


def _named_in_code() -> set[str]:
    """The enum names the code chooses: the overrides and the components the schema hooks write."""
    hooks = {**ERROR_COMPONENTS, **stream_components(), **game_components()}
    return set(settings.SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]) | {
        name for name, schema in hooks.items() if "enum" in schema}


@pytest.mark.django_db
def test_no_component_has_a_generated_looking_name() -> None:
    names = sorted(_schema()["components"]["schemas"])
    invented = [name for name in names if HASHED.search(name) or INVENTED_ENUM.search(name)]
    assert not invented, f"Names drf-spectacular invented, which change with the values: {invented}. {HOW_TO_NAME}"


@pytest.mark.django_db
def test_every_enum_component_is_named_in_the_code() -> None:
    schemas = _schema()["components"]["schemas"]
    enums = {name for name, schema in schemas.items() if "enum" in schema}
    unnamed = sorted(enums - _named_in_code())
    assert not unnamed, f"Enum components without a name in the code: {unnamed}. {HOW_TO_NAME}"


@pytest.mark.django_db
def test_every_name_given_in_the_code_is_used() -> None:
    """An override whose values no serializer has any more is a name a client waits for in vain."""
    schemas = _schema()["components"]["schemas"]
    stale = sorted(set(settings.SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]) - set(schemas))
    assert not stale, (f"ENUM_NAME_OVERRIDES names no component: {stale}; its values changed (give the "
                       "override the new values) or the field is gone (drop the override).")


@pytest.mark.django_db
def test_no_component_is_named_as_a_generator_reserves_it() -> None:
    """openapi-generator's Swift and Kotlin generators rename a model called ``Error``, ``Type``, ``Any``...
    (``ModelError``) on every use, with a warning each time."""
    reserved = {"Error", "Type", "String", "Any", "Protocol", "Self", "Int", "Double", "Float", "Bool", "Data",
                "Date", "URL", "Array", "Dictionary", "Set", "Codable", "Unit", "Nothing"}
    clashing = sorted(reserved & set(_schema()["components"]["schemas"]))
    assert not clashing, f"Component names generators reserve: {clashing}. {HOW_TO_NAME}"


@pytest.mark.django_db
def test_every_operation_answers_a_4xx_and_no_path_ends_with_a_slash() -> None:
    """Two of the linter's recommended rules (tests/contract lints the served schema with no waiver):
    caught here with every test run, not only by the contract check."""
    paths = _schema()["paths"]
    slashed = [path for path in paths if path.endswith("/")]
    assert not slashed, f"Paths with a trailing slash: {slashed}; keep such a page out of the schema " \
                        "(extend_schema(exclude=True))."
    without = [f"{method.upper()} {path}" for path, item in paths.items() for method, operation in item.items()
               if isinstance(operation, dict) and "responses" in operation
               and not any(status.startswith("4") for status in operation["responses"])]
    assert not without, f"Operations without a 4xx answer: {without}; name the ones they give " \
                        "(maumau.schema.errors(400, 401, ...))."
