"""What the OpenAPI schema says about errors, shared by every app's views.

Every refusal has the shape of :mod:`maumau.errors`; :func:`errors` names the status codes an
operation can answer with, each described by the stable ``code`` values behind it.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorBodySerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    details = serializers.DictField()


class ErrorSerializer(serializers.Serializer):
    error = ErrorBodySerializer()


ERRORS = {code: OpenApiResponse(ErrorSerializer, description=text) for code, text in {
    400: "validation_error: malformed input",
    401: "not_authenticated",
    403: "permission_denied: not seated / not host",
    404: "not_found",
    409: "not_your_turn, version_conflict, game_finished, table_full, table_state, already_seated, league_finished",
    422: "illegal_move (details.reason = the rule), idempotency_key_reused",
    429: "throttled",
}.items()}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """The error responses of one operation, for ``extend_schema(responses={..., **errors(401, 404)})``."""
    return {code: ERRORS[code] for code in codes}
