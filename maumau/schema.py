"""What the OpenAPI schema says about errors, headers and query numbers, shared by every app's views.

Every refusal has the shape of :mod:`maumau.errors`; :func:`errors` names the status codes an
operation can answer with, each described by the stable ``code`` values behind it. Request bodies
of :class:`~maumau.strict.StrictSerializer` are closed objects (``additionalProperties: false``),
as the serializer refuses unknown fields.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema_serializer
from rest_framework import serializers

from maumau.params import QUERY_INT_MAX

#: Every ``error.code`` the API answers with (tests/contract checks the sources raise no other).
ERROR_CODES = [
    "validation_error", "not_authenticated", "invalid_credentials", "permission_denied", "not_found",
    "method_not_allowed", "not_acceptable", "unsupported_media_type", "request_too_large",
    "not_your_turn", "version_conflict", "game_finished", "table_full", "table_state", "already_seated",
    "already_seeking", "already_registered", "username_taken", "no_password", "too_many_tokens",
    "league_finished", "league_resigned", "illegal_move", "idempotency_key_reused", "idempotency_in_progress",
    "throttled", "server_error", "service_unavailable",
    "too_many_seeks", "already_challenged", "too_many_challenges",
    "league_members_only", "not_a_league_member", "invite_code_wrong", "owner_cannot_leave", "not_league_owner",
    "owner_role", "not_scorekeeper", "too_few_players", "player_twice", "winner_not_in_round", "sheet_line",
    "winner_has_cards", "card_not_in_deck", "points_out_of_range", "card_twice", "too_many_cards", "extra_jacks",
    "player_not_member", "correction_stale", "round_not_pending", "confirm_not_allowed", "season_running",
    "season_empty", "empty_hand", "points_exceed_deck", "already_confirmed", "push_target_taken",
]
_FIELD_ERRORS = {"type": "object", "additionalProperties": {}, "description": "A free map: each refused field "
                 "(a nested object for a nested field) and what is wrong with it."}
#: ``details`` of the codes a client acts on; any other code's details are a free map (ErrorDetailsOther).
ERROR_DETAILS: dict[str, dict[str, Any]] = {
    "IllegalMoveDetails": {
        "type": "object",
        "properties": {"reason": {"type": "string", "description": "The rule's stable code (`wish_required`, "
                                                                   "`suit_or_rank`, ...)."},
                       "rule": {"type": "string", "description": "The rule, in words."}},
        "required": ["reason", "rule"],
        "description": "illegal_move: the rule the move broke (and what the rule names, such as `card`).",
    },
    "VersionConflictDetails": {
        "type": "object", "properties": {"version": {"type": "integer", "minimum": 0,
                                                     "description": "The game's version now: reload."}},
        "description": "version_conflict: the game has moved on.",
    },
    "ValidationErrorDetails": {
        "type": "object",
        "properties": {
            "field": {"type": "string", "description": "The refused field."},
            "reason": {"type": "string"},
            "value": {"description": "The refused value (short values only)."},
            "option": {"type": "string", "description": "The refused rule option."},
            "fields": {"oneOf": [_FIELD_ERRORS, {"type": "array", "items": {"type": "string"}}],
                       "description": "Refused fields with their messages, or the unknown fields' names."},
            "errors": {"type": "array", "items": {}, "description": "Refusals not tied to a field."},
            "parse_error": {"type": "string", "description": "The body is not JSON."},
            "max": {"type": "integer"},
        },
        "description": "validation_error: what was refused (one or more of these).",
    },
    "ThrottledDetails": {
        "type": "object", "properties": {"retry_after": {"type": "integer", "minimum": 0,
                                                         "description": "Seconds; also in Retry-After."},
                                         "limit": {"type": "string", "description": "Which limit of a "
                                                   "verification mail was reached: `address`, `player` or "
                                                   "`client` (the client's network address)."}},
        "description": "throttled: too many requests.",
    },
    "ServiceUnavailableDetails": {
        "type": "object",
        "properties": {"reason": {"type": "string", "enum": ["database_busy", "connection_lost"]},
                       "retry_after": {"type": "integer", "minimum": 0}},
        "required": ["reason", "retry_after"],
        "description": "service_unavailable: try again after Retry-After.",
    },
    "ErrorDetailsOther": {"type": "object", "additionalProperties": {},
                          "description": "A free map: the details of any other code (may be empty)."},
}
ERROR_COMPONENTS: dict[str, dict[str, Any]] = {
    "ErrorCode": {"type": "string", "enum": ERROR_CODES, "description": "Stable and machine-readable: clients "
                                                                        "switch on it (docs/api.md, Errors)."},
    **ERROR_DETAILS,
    "ErrorBody": {
        "type": "object",
        "properties": {
            "code": {"$ref": "#/components/schemas/ErrorCode"},
            "message": {"type": "string", "description": "Human-readable, in the caller's language (Accept-Language)."},
            "details": {"anyOf": [{"$ref": f"#/components/schemas/{name}"} for name in ERROR_DETAILS],
                        "description": "What was refused and why; may be empty. Typed by `code`: illegal_move, "
                                       "version_conflict, validation_error, throttled, service_unavailable."},
        },
        "required": ["code", "message", "details"],
    },
    # Not `Error`: Swift reserves the word, and its generators rename the model on every use.
    "ApiError": {"type": "object", "properties": {"error": {"$ref": "#/components/schemas/ErrorBody"}},
              "required": ["error"], "description": "Every non-2xx answer."},
}


@extend_schema_serializer(component_name="ApiError")
class ErrorSerializer(serializers.Serializer):
    """Documents error responses; its component is replaced by ERROR_COMPONENTS["ApiError"] (:func:`finish`)."""

    error = serializers.DictField()


ETAG = OpenApiParameter("ETag", str, OpenApiParameter.HEADER, response=[200, 304], required=True,
                        description="Changes with every move; send it as If-None-Match.")
IDEMPOTENT_REPLAYED = OpenApiParameter("Idempotent-Replayed", str, OpenApiParameter.HEADER, response=[200],
                                       enum=["true"], description="`true` when this is the stored answer of an "
                                                                  "earlier request with the same Idempotency-Key.")
IDEMPOTENCY_KEY = OpenApiParameter("Idempotency-Key", {"type": "string", "maxLength": 255}, OpenApiParameter.HEADER,
                                   description="A retry with the same key returns the first answer (at most 255 "
                                               "characters).")
#: Headers that come with an error status, whichever operation answers it.
ERROR_HEADERS = {
    "401": {"WWW-Authenticate": {"schema": {"type": "string", "enum": ["Token"]}, "required": True,
                                 "description": "Send `Authorization: Token <key>`."}},
    "429": {"Retry-After": {"schema": {"type": "integer", "minimum": 0}, "required": True,
                            "description": "Seconds to wait before trying again."}},
    "503": {"Retry-After": {"schema": {"type": "integer", "minimum": 0}, "required": True,
                            "description": "Seconds to wait before trying again."}},
}
#: Any operation of the API may answer this when the server is overloaded (maumau.errors.busy_answer).
BUSY = {"description": "service_unavailable: no database connection came free in time (details.reason = "
                       "database_busy; nothing was changed), or the database session ended under the request "
                       "(connection_lost; a write may or may not have been made: retry it, a move with its "
                       "Idempotency-Key); try again after Retry-After",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ApiError"}}}}

ERRORS = {code: OpenApiResponse(ErrorSerializer, description=text) for code, text in {
    400: "validation_error: malformed input",
    401: "not_authenticated",
    403: "permission_denied: not seated / not host",
    404: "not_found",
    406: "not_acceptable: the Accept header allows no JSON",
    409: "not_your_turn, version_conflict, game_finished, table_full, table_state, already_seated, league_finished, "
         "push_target_taken",
    422: "illegal_move (details.reason = the rule), idempotency_key_reused",
    429: "throttled",
}.items()}


def error_headers(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS: every 401 says ``WWW-Authenticate`` and every 429 and 503 ``Retry-After``,
    as :func:`maumau.errors.exception_handler` sends them; every operation of ``/api/v1/`` may answer 503."""
    for name, path in result.get("paths", {}).items():
        for operation in path.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            if name.startswith("/api/v1/"):
                operation["responses"].setdefault("503", copy.deepcopy(BUSY))
            for status, response in operation.get("responses", {}).items():
                if status in ERROR_HEADERS:
                    response.setdefault("headers", {}).update(ERROR_HEADERS[status])
    return result


def required_bodies(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS: a request body given as a literal schema that needs fields (``required``, or
    ``oneOf`` of such objects, as a move's action) is itself required: the server refuses a request
    without one, and the schema says so (drf-spectacular leaves a literal schema's body optional)."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if not body or body.get("required"):
                continue
            schemas = [media.get("schema", {}) for media in body.get("content", {}).values()]
            if schemas and all(schema.get("required") or schema.get("oneOf") for schema in schemas):
                body["required"] = True
    return result


def finish(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS, last: the error components; ``NullEnum`` references become ``type: null``;
    operations anyone may call say so (``security: []``); the JSON request body of an operation that
    requires one is marked required."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(copy.deepcopy(ERROR_COMPONENTS))
    null_ref = "#/components/schemas/NullEnum"

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if node.get("$ref") == null_ref:
                return {"type": "null"}
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(value) for value in node]
        return node

    result = _enums_once(walk(result))
    result["components"]["schemas"].pop("NullEnum", None)
    for path in result.get("paths", {}).values():
        for operation in path.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            if not operation.get("security") or operation["security"] == [{}]:
                operation["security"] = []
    return result


def _enum_key(schema: Any) -> tuple[str, ...] | None:
    if not isinstance(schema, dict) or not isinstance(schema.get("enum"), list) or len(schema["enum"]) < 2:
        return None
    if None in schema["enum"] or isinstance(schema.get("type"), list):
        return None
    return tuple(sorted(json.dumps(value) for value in schema["enum"]))


def _enums_once(result: dict[str, Any]) -> dict[str, Any]:
    """Every enum written out once: an inline enum (a query parameter's, a property's) with the values
    of a named enum becomes a reference to it, and of two named enums with the same values the one
    named without ``Enum`` stays."""
    schemas = result["components"]["schemas"]
    named: dict[tuple[str, ...], str] = {}
    renamed: dict[str, str] = {}
    for name in sorted(schemas, key=lambda name: (name.endswith("Enum"), name)):
        key = _enum_key(schemas[name])
        if key is None:
            continue
        if key in named:
            renamed[f"#/components/schemas/{name}"] = f"#/components/schemas/{named[key]}"
        else:
            named[key] = name
    for old in renamed:
        schemas.pop(old.rsplit("/", 1)[1])

    def walk(node: Any, at_root: bool) -> Any:
        if isinstance(node, dict):
            if node.get("$ref") in renamed:
                return {**node, "$ref": renamed[node["$ref"]]}
            key = _enum_key(node)
            if key in named and not at_root:
                kept = {k: v for k, v in node.items() if k in ("description", "default")}
                return {"$ref": f"#/components/schemas/{named[key]}", **kept}
            return {k: walk(v, False) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(value, False) for value in node]
        return node

    result["paths"] = walk(result.get("paths", {}), False)
    for name in list(schemas):
        schemas[name] = walk(schemas[name], True)
    return result


def errors(*codes: int, also: dict[int, str] | None = None) -> dict[int, OpenApiResponse]:
    """The error responses of one operation, for ``extend_schema(responses={..., **errors(401, 404)})``;
    ``also`` names the operation's own codes behind a status (``{403: LEAGUE_MEMBERS_ONLY}``), added to
    the status's description so that every code the operation can answer is written down."""
    answers = {code: ERRORS[code] for code in codes}
    for code, text in (also or {}).items():
        base = ERRORS[code].description if code in ERRORS else ""
        answers[code] = OpenApiResponse(ErrorSerializer, description=f"{base}; {text}" if base else text)
    return answers


#: What a table or seek for a league answers a player who is not its member (scoring.members).
LEAGUE_MEMBERS_ONLY = "league_members_only: only the league's members play at its tables"


def query_number(name: str, description: str, *, minimum: int = 0, maximum: int = QUERY_INT_MAX) -> OpenApiParameter:
    """A whole-number query parameter with the bounds :func:`maumau.params.query_int` enforces."""
    return OpenApiParameter(name, {"type": "integer", "minimum": minimum, "maximum": maximum},
                            description=description)


class StrictSerializerSchema(OpenApiSerializerExtension):
    """A strict serializer's body is a closed object: what it refuses, the schema does not allow."""

    target_class = "maumau.strict.StrictSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> Any:
        schema = auto_schema._map_basic_serializer(self.target, direction)
        if type(self.target).__doc__ is None:  # not the base class's docstring as the body's description
            schema.pop("description", None)
        schema["additionalProperties"] = False
        return schema
