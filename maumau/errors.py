"""One error shape for the whole API: ``{"error": {"code", "message", "details"}}``.

Services raise :class:`DomainError` (or a subclass); DRF raises its own exceptions for parse
errors, authentication, permissions, 404, 405 and throttling. :func:`exception_handler`
renders all of them the same way, with ``message`` translated through Django's i18n so that
it follows ``Accept-Language`` (en, de, fr). ``code`` is stable: clients switch on it.
"""

from __future__ import annotations

import sys
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions as drf
from rest_framework.response import Response

from maumau import database_retry

#: Default message for each stable code; a raise site may pass a more specific one.
MESSAGES: dict[str, Any] = {
    "validation_error": _("The request is malformed."),
    "not_authenticated": _("Authentication credentials are missing or invalid."),
    "permission_denied": _("You are not allowed to do this."),
    "not_found": _("Not found."),
    "method_not_allowed": _("This method is not allowed here."),
    "not_acceptable": _("The requested response format is not available."),
    "unsupported_media_type": _("Send JSON (Content-Type: application/json)."),
    "not_your_turn": _("It is not your turn."),
    "version_conflict": _("The game has moved on; reload it and try again."),
    "game_finished": _("This round is over."),
    "table_full": _("The table is full."),
    "table_state": _("The table's state does not allow this now."),
    "already_seated": _("You already have a seat at this table."),
    "illegal_move": _("The rules do not allow this move."),
    "idempotency_key_reused": _("This Idempotency-Key was used for a different request."),
    "idempotency_in_progress": _("A request with this Idempotency-Key is being processed."),
    "throttled": _("Too many requests; slow down."),
    "request_too_large": _("The request body is too large."),
    "server_error": _("Internal server error."),
    "service_unavailable": _("The service is busy; try again in a moment."),
}

#: Retry-After of a 503 when no database connection came free in time: a short wait, since the pool's
#: own timeout (MAUMAU_DB_POOL_TIMEOUT) has already been waited out.
BUSY_RETRY_AFTER_SECONDS = 2


class DomainError(Exception):
    """A refusal the service decides on purpose; rendered in the error shape of docs/api.md."""

    code = "validation_error"
    status = 400

    def __init__(
        self,
        code: str | None = None,
        message: Any = None,
        status: int | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        self.code = code or self.code
        self.status = status or self.status
        self.message = message if message is not None else MESSAGES.get(self.code, self.code)
        self.details = details or {}
        super().__init__(str(self.message))


class ValidationFailed(DomainError):
    code, status = "validation_error", 400


class PermissionDeniedError(DomainError):
    code, status = "permission_denied", 403


class NotFoundError(DomainError):
    code, status = "not_found", 404


class ConflictError(DomainError):
    """409: not your turn, stale version, table state, full table, finished game."""

    code, status = "table_state", 409


class IllegalMoveError(DomainError):
    code, status = "illegal_move", 422


def busy_answer(exc: BaseException | None) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The 503 body and headers when ``exc`` is the database pool's timeout (counted in the metrics),
    else None: a request that found no free connection is overload, not a bug, and a client may retry."""
    if not database_retry.pool_exhausted(exc):
        return None
    from maumau import observability

    observability.database_busy()
    details = {"reason": "database_busy", "retry_after": BUSY_RETRY_AFTER_SECONDS}
    return (error_body("service_unavailable", MESSAGES["service_unavailable"], details),
            {"Retry-After": str(BUSY_RETRY_AFTER_SECONDS)})


#: Retry-After of a 503 when the database session ended under the request: the next request gets a
#: fresh connection at once.
LOST_RETRY_AFTER_SECONDS = 1


def lost_answer(exc: BaseException | None) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The 503 body and headers when ``exc`` is the database session lost under the request (at any
    point, its COMMIT included), else None. The client cannot tell whether a write was made, so it
    retries (a move with its Idempotency-Key gets the one answer); nothing of the kind is a bug."""
    if not database_retry.connection_lost(exc):
        return None
    details = {"reason": "connection_lost", "retry_after": LOST_RETRY_AFTER_SECONDS}
    return (error_body("service_unavailable", MESSAGES["service_unavailable"], details),
            {"Retry-After": str(LOST_RETRY_AFTER_SECONDS)})


def json_busy(exc: BaseException | None) -> JsonResponse | None:
    """:func:`busy_answer` (or :func:`lost_answer`) as a plain Django response (the waiting clients'
    views, plain Django views)."""
    answer = busy_answer(exc) or lost_answer(exc)
    if answer is None:
        return None
    body, headers = answer
    response = JsonResponse(body, status=503)
    for name, value in headers.items():
        response[name] = value
    return response


def error_body(code: str, message: Any, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": str(message), "details": details or {}}}


def _drf_details(exc: drf.APIException) -> dict[str, Any]:
    detail = exc.detail
    if isinstance(detail, dict):
        return {"fields": _plain(detail)}
    if isinstance(detail, list):
        return {"errors": _plain(detail)}
    return {}


def _plain(value: Any) -> Any:
    """ErrorDetail -> str, recursively, so details are plain JSON."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return str(value)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF EXCEPTION_HANDLER: every error of every view in the error shape of docs/api.md."""
    headers: dict[str, str] = {}
    if isinstance(exc, DomainError):
        # A 401 names the scheme that would be accepted (RFC 9110), a refused log-in's too.
        headers = {"WWW-Authenticate": "Token"} if exc.status == 401 else {}
        if exc.status == 429 and "retry_after" in exc.details:  # a service's own throttle (the table chat)
            headers["Retry-After"] = str(exc.details["retry_after"])
        return Response(error_body(exc.code, exc.message, exc.details), status=exc.status, headers=headers)
    if isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf.PermissionDenied()
    if not isinstance(exc, drf.APIException):
        # No free database connection: 503, come back. A read whose database session ended under it
        # runs once more; anything else is a real bug: Django's 500 handling (JSON below) takes it.
        busy = busy_answer(exc)
        if busy is not None:
            return Response(busy[0], status=503, headers=busy[1])
        again = database_retry.read_again(exc, context)
        if again is not None:
            return again
        lost = lost_answer(exc)
        if lost is not None:  # a write whose session ended, at its COMMIT too: 503, retry
            return Response(lost[0], status=503, headers=lost[1])
        return None

    details: dict[str, Any] = {}
    if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
        code, status = "not_authenticated", 401
        headers["WWW-Authenticate"] = "Token"
    elif isinstance(exc, drf.PermissionDenied):
        code, status = "permission_denied", 403
    elif isinstance(exc, drf.NotFound):
        code, status = "not_found", 404
    elif isinstance(exc, drf.MethodNotAllowed):
        code, status = "method_not_allowed", 405
        details = {"method": context["request"].method if context.get("request") else None}
    elif isinstance(exc, drf.NotAcceptable):
        code, status = "not_acceptable", 406
    elif isinstance(exc, drf.UnsupportedMediaType):
        code, status = "unsupported_media_type", 415
    elif isinstance(exc, drf.Throttled):
        code, status = "throttled", 429
        if exc.wait is not None:
            details = {"retry_after": int(exc.wait + 0.999)}
            headers["Retry-After"] = str(details["retry_after"])
    elif isinstance(exc, drf.ParseError):
        code, status = "validation_error", 400
        details = {"parse_error": str(exc.detail)}
    elif isinstance(exc, drf.ValidationError):
        code, status = "validation_error", 400
        details = _drf_details(exc)
    else:
        code, status = getattr(exc, "default_code", "error"), exc.status_code
    return Response(error_body(code, MESSAGES.get(code, str(exc.detail)), details), status=status, headers=headers)


def json_404(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """handler404 for URLs no view matches (DEBUG=False)."""
    return JsonResponse(error_body("not_found", MESSAGES["not_found"], {"path": request.path}), status=404)


def json_500(request: HttpRequest) -> JsonResponse:
    """handler500: even a bug answers in the error shape (never an HTML page to an API client). A
    database session lost outside a DRF view (a middleware, a plain view) is no bug: 503, retry."""
    lost = json_busy(sys.exc_info()[1])
    if lost is not None:
        return lost
    return JsonResponse(error_body("server_error", MESSAGES["server_error"]), status=500)


def json_400(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """handler400: what Django refuses before any view (a Host not allowed, too many parameters, a
    body over DATA_UPLOAD_MAX_MEMORY_SIZE, which is 413) answers in the error shape, not in HTML."""
    if isinstance(exception, RequestDataTooBig):
        details = {"max_bytes": settings.DATA_UPLOAD_MAX_MEMORY_SIZE}
        return JsonResponse(error_body("request_too_large", MESSAGES["request_too_large"], details), status=413)
    if isinstance(exception, DisallowedHost):
        details: dict[str, Any] = {"reason": "host_not_allowed"}
    elif isinstance(exception, (TooManyFieldsSent, TooManyFilesSent)):
        details = {"reason": "too_many_parameters", "max": settings.DATA_UPLOAD_MAX_NUMBER_FIELDS}
    else:
        details = {}
    return JsonResponse(error_body("validation_error", MESSAGES["validation_error"], details), status=400)


def json_403(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """handler403 for plain Django views (the admin's refusals)."""
    return JsonResponse(error_body("permission_denied", MESSAGES["permission_denied"]), status=403)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: the API uses tokens, not cookies, so only the admin's forms can fail the
    check; anything else that does is answered in the error shape. The admin keeps Django's page."""
    if request.path.startswith("/admin/"):
        from django.views.csrf import csrf_failure as django_csrf_failure

        return django_csrf_failure(request, reason)
    return JsonResponse(error_body("permission_denied", MESSAGES["permission_denied"], {"reason": "csrf"}),
                        status=403)
