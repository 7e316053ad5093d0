"""What the OpenAPI schema says about errors, headers and query numbers, shared by every app's views.

Every refusal has the shape of :mod:`maumau.errors`; :func:`errors` names the status codes an
operation can answer with, each described by the stable ``code`` values behind it. Request bodies
of :class:`~maumau.strict.StrictSerializer` are closed objects (``additionalProperties: false``),
as the serializer refuses unknown fields.
"""

from __future__ import annotations

import copy
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers

from maumau.params import QUERY_INT_MAX


class ErrorBodySerializer(serializers.Serializer):
    code = serializers.RegexField(r"^[a-z_]+$", help_text="Stable and machine-readable: clients switch on it.")
    message = serializers.CharField(help_text="Human-readable, in the caller's language (Accept-Language).")
    details = serializers.DictField(help_text="What was refused and why (field, reason, ...); may be empty.")


class ErrorSerializer(serializers.Serializer):
    error = ErrorBodySerializer()


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
                       "database_busy); nothing was changed, try again after Retry-After",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}

ERRORS = {code: OpenApiResponse(ErrorSerializer, description=text) for code, text in {
    400: "validation_error: malformed input",
    401: "not_authenticated",
    403: "permission_denied: not seated / not host",
    404: "not_found",
    409: "not_your_turn, version_conflict, game_finished, table_full, table_state, already_seated, league_finished",
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


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """The error responses of one operation, for ``extend_schema(responses={..., **errors(401, 404)})``."""
    return {code: ERRORS[code] for code in codes}


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
