"""The OpenAPI description of the waiting endpoints.

The async views in :mod:`live.views` are not DRF views; :func:`documented` hangs a DRF
class on each so drf-spectacular describes it like any other endpoint (the class is only read
by the schema generator, it never serves a request).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.extensions import OpenApiViewExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.serializers import GameViewSerializer
from maumau.params import QUERY_INT_MAX
from maumau.schema import ETAG, errors, query_number
from streams.models import KINDS

#: The longest long-poll (the server's STREAMS_LONGPOLL_MAX_SECONDS by default; a longer wait is cut to it).
LONGPOLL_MAX_SECONDS = 60

#: The two streams and the component of one frame of each. Their 200 answer is ``text/event-stream``
#: whose schema is the array of frames (OpenAPI 3.2 reads a sequential media type's ``schema`` so; 3.1
#: has no word for it, and the frames stay components a generated client uses).
STREAMS = {"/api/v1/games/{game_id}/stream": "GameStreamFrame", "/api/v1/me/stream": "MeStreamFrame"}


def _sse(frame: str) -> OpenApiResponse:
    return OpenApiResponse(OpenApiTypes.STR, description=f"`text/event-stream`: frames as `{frame}` describes "
                                                         "them (docs/api.md, Streams).")


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def _frame(event: list[str] | None, data: dict[str, Any] | None, description: str, event_id: str | None = None,
           ) -> dict[str, Any]:
    """One server-sent event as a JSON object: its ``event:``, ``id:`` and ``data:`` lines."""
    properties: dict[str, Any] = {}
    if event is not None:
        properties["event"] = {"type": "string", "enum": event}
    if event_id is not None:
        properties["id"] = {"type": "integer", "minimum": 0, "description": event_id}
    if data is not None:
        properties["data"] = data
    else:
        properties["comment"] = {"type": "string", "enum": ["keep-alive"]}
    return {"type": "object", "properties": properties, "required": list(properties), "description": description}


_ID = {"type": "integer", "minimum": 0}
_NULLABLE_ID = {"type": ["integer", "null"], "minimum": 0}
#: ``data`` of each notification kind (streams.services and lobby.services write them).
NOTIFICATION_DATA: dict[str, dict[str, Any]] = {
    "your_turn": {"game": _ID, "version": _ID, "seat": _ID, "deadline": {"type": ["string", "null"],
                                                                         "format": "date-time"}},
    "round_started": {"game": _ID, "number": _ID, "seat": _ID, "turn": _NULLABLE_ID},
    "round_over": {"game": _ID, "number": _ID, "winner": _NULLABLE_ID, "reason": _ref("ResultReason"),
                   "seat": _ID, "rank": _NULLABLE_ID, "points": {"type": ["integer", "null"]}},
    "deadline_soon": {"game": _ID, "version": _ID, "seat": _ID, "deadline": {"type": ["string", "null"],
                                                                             "format": "date-time"},
                      "seconds_left": _ID},
    "league_over": {"league": _ID, "name": {"type": "string"}, "loser": _NULLABLE_ID},
    "season_over": {
        "league": _ID, "name": {"type": "string"}, "season": _ID, "loser": _NULLABLE_ID,
        "winners": {"type": "array", "items": _ref("PlayerBrief")},
        "podium": {"type": "array", "maxItems": 3, "items": {
            "type": "object", "properties": {"player": _ref("PlayerBrief"), "position": _ID,
                                             "points": {"type": "integer"}, "wins": _ID},
            "required": ["player", "position", "points", "wins"]}},
        "players": _ID, "position": _NULLABLE_ID, "points": {"type": ["integer", "null"]},
        "next_season": _NULLABLE_ID},
    "player_joined": {"table": _ID, "position": _ID, "player": _ref("PlayerBrief")},
    "game_started": {"table": _ID, "game": _ID, "seek": _NULLABLE_ID, "challenge": _NULLABLE_ID},
    **{kind: {"challenge": _ID, "from": _ID, "rules": _ref("Rules")}
       for kind in ("challenge_received", "challenge_accepted", "challenge_declined", "challenge_cancelled",
                    "challenge_expired")},
}


def _camel(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_"))


def components() -> dict[str, dict[str, Any]]:
    """The notifications (one component per kind) and the frames of both streams."""
    found: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        data = NOTIFICATION_DATA[kind]
        found[f"{_camel(kind)}Notification"] = {
            "type": "object",
            "properties": {
                "id": _ID, "kind": {"type": "string", "enum": [kind]}, "table": _NULLABLE_ID, "game": _NULLABLE_ID,
                "data": {"type": "object", "properties": data,
                         "required": [name for name in data if name not in ("seek", "challenge")]},
                "created_at": {"type": "string", "format": "date-time"},
            },
            "required": ["id", "kind", "table", "game", "data", "created_at"],
            "description": f"`{kind}` (also the body of a webhook delivery).",
        }
    found["Notification"] = {
        "oneOf": [_ref(f"{_camel(kind)}Notification") for kind in KINDS],
        "discriminator": {"propertyName": "kind", "mapping": {
            kind: f"#/components/schemas/{_camel(kind)}Notification" for kind in KINDS}},
        "description": "One notification, told apart by `kind`.",
    }
    found["GameStreamEnd"] = {"type": "object", "properties": {
        "game": _ID, "status": _ref("RoundStatus"), "version": _ID}, "required": ["game", "status", "version"]}
    found["GameStreamMoveFrame"] = _frame(["move"], _ref("LedgerMove"), "A ledger row (redacted for the caller).",
                                          "The row's seq: send it back as Last-Event-ID.")
    found["GameStreamMessageFrame"] = _frame(["message"], _ref("Message"), "A chat line of the table (no `id:`; "
                                                                           "resume with `?messages_after=`).")
    found["GameStreamEndFrame"] = _frame(["end"], _ref("GameStreamEnd"), "The round is over; the stream closes.")
    found["KeepAliveFrame"] = _frame(None, None, "A comment line `: keep-alive` every few seconds; no data.")
    found["GameStreamFrame"] = {
        "oneOf": [_ref(name) for name in ("GameStreamMoveFrame", "GameStreamMessageFrame", "GameStreamEndFrame",
                                          "KeepAliveFrame")],
        "description": "One frame of `GET /games/{id}/stream`, as a JSON object (`event`, `id`, `data` lines; "
                       "`data` is JSON). OpenAPI cannot describe a stream: this is for generated types.",
    }
    found["MeStreamNotificationFrame"] = _frame(list(KINDS), _ref("Notification"), "A notification; `event:` is "
                                                "its kind.", "The notification's id: send it back as Last-Event-ID.")
    found["MeStreamNotificationFrame"]["properties"]["event"] = _ref("NotificationKind")
    found["NotificationPage"] = {
        "type": "object",
        "properties": {
            "notifications": {"type": "array", "maxItems": 200, "items": _ref("Notification"),
                              "description": "Oldest first; empty when `wait` ran out."},
            "after": {**_ID, "description": "The last notification id answered (or the `after` asked for): "
                                            "send it as `after` next."},
        },
        "required": ["notifications", "after"],
        "description": "A page of `GET /me/inbox`.",
    }
    found["MeStreamFrame"] = {
        "oneOf": [_ref("MeStreamNotificationFrame"), _ref("KeepAliveFrame")],
        "description": "One frame of `GET /me/stream`, as a JSON object (see GameStreamFrame).",
    }
    return found


def add_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """POSTPROCESSING_HOOKS: the stream frames and notifications, and the body of the account's
    deletion (drf-spectacular leaves a DELETE's body out; this one carries the password)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(components())
    for path, frame in STREAMS.items():
        answer = result.get("paths", {}).get(path, {}).get("get", {}).get("responses", {}).get("200")
        if answer is not None:
            answer["content"] = {"text/event-stream": {"schema": {"type": "array", "items": _ref(frame)}}}
    deletion = result.get("paths", {}).get("/api/v1/me/account", {}).get("delete")
    login = schemas.get("LoginRequest", {}).get("properties", {})
    if deletion is not None and "password" in login:
        schemas["AccountDeleteRequest"] = {
            "type": "object",
            "properties": {"password": {**login["password"], "description": "Required unless the account is a "
                                                                            "guest."}},
            "additionalProperties": False,
        }
        examples = {"WithThePassword": {"value": {"password": "correct horse battery"},
                                        "summary": "With the password"},
                    "AGuest": {"value": {}, "summary": "A guest"}}
        deletion["requestBody"] = {"content": {"application/json": {"schema": _ref("AccountDeleteRequest"),
                                                                    "examples": examples}},
                                   "required": False,
                                   "description": "The password (a guest sends no body or `{}`)."}
    return result
LAST_EVENT_ID = OpenApiParameter("Last-Event-ID", {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX},
                                 OpenApiParameter.HEADER,
                                 description="Resume after this event id (sent by EventSource on reconnect).")


class GameStreamDoc(APIView):
    @extend_schema(
        operation_id="games_stream",
        summary="The round's ledger as server-sent events",
        parameters=[LAST_EVENT_ID, query_number(
            "after", "Start after this ledger seq (default: the current version, only new moves).")],
        responses={200: _sse("GameStreamFrame"), **errors(400, 401, 403, 404)},
        description="Server-sent events of the caller's ledger as moves happen: `event: move`, `id:` = seq, "
                    "`data:` = one ledger row as `GET /games/{id}/events` shows it (redacted for the caller). "
                    "A comment `: keep-alive` every few seconds; `event: end` when the round is over.",
    )
    def get(self, request: Request, game_id: int) -> Response:  # pragma: no cover - schema only
        raise NotImplementedError


class MeStreamDoc(APIView):
    @extend_schema(
        operation_id="me_stream",
        summary="The caller's notifications as server-sent events",
        parameters=[LAST_EVENT_ID, query_number("after", "Start after this notification id (default: only new ones).")],
        responses={200: _sse("MeStreamFrame"), **errors(400, 401)},
        description="Server-sent events of the caller's notifications across all tables: `event:` = kind "
                    f"({', '.join(KINDS)}), `id:` = notification id, `data:` = the notification JSON "
                    "(`Notification`). A comment `: keep-alive` every few seconds.",
    )
    def get(self, request: Request) -> Response:  # pragma: no cover - schema only
        raise NotImplementedError


class MeInboxDoc(APIView):
    @extend_schema(
        operation_id="me_inbox",
        summary="The caller's notifications by long-poll",
        parameters=[
            query_number("after", "The last notification id the caller has (default: only new ones)."),
            OpenApiParameter("wait", {"type": "number", "minimum": 0},
                             description="Seconds to wait for the first notification after `after` (at most "
                                         f"{LONGPOLL_MAX_SECONDS}: a longer wait is cut to it, not refused). "
                                         "Default 0: answer at once."),
        ],
        responses={200: OpenApiResponse(_ref("NotificationPage"), description="The notifications after `after`, "
                                        "as soon as there is one, or none when `wait` ran out."),
                   **errors(400, 401)},
        description="The long-poll twin of `GET /me/stream` for clients that cannot receive server-sent "
                    "events: the same notifications (`Notification`), a page at a time. Follow the answer's "
                    "`after` and every notification comes once.",
    )
    def get(self, request: Request) -> Response:  # pragma: no cover - schema only
        raise NotImplementedError


def documented(view: Callable[..., Any], doc: type[APIView]) -> Callable[..., Any]:
    """Let drf-spectacular describe an async view through ``doc``'s extend_schema."""
    view.cls = doc  # type: ignore[attr-defined]
    view.initkwargs = {}  # type: ignore[attr-defined]
    return view


class GameDetailLongPoll(OpenApiViewExtension):
    """Adds the long-poll parameters (served by :func:`live.views.game_wait`) to the game view."""

    target_class = "play.apis.GameDetailApi"

    def view_replacement(self) -> type[APIView]:
        original = self.target_class.get

        def get(view: APIView, request: Request, game_id: int) -> Response:  # pragma: no cover - schema only
            return original(view, request, game_id)

        get.kwargs = dict(getattr(original, "kwargs", {}))  # type: ignore[attr-defined]
        get = extend_schema(
            parameters=[
                OpenApiParameter("wait", {"type": "number", "minimum": 0},
                                 description="Long-poll: answer as soon as the version is past `after`, or 304 "
                                             f"after this many seconds (at most {LONGPOLL_MAX_SECONDS}: a longer "
                                             "wait is cut to it, not refused)."),
                query_number("after", "Long-poll: the version the caller has (default: the version in "
                                      "If-None-Match, else the current one)."),
                ETAG,
            ],
            responses={200: GameViewSerializer,
                       304: OpenApiResponse(description="Not modified: the version is still `after` (or the "
                                                        "If-None-Match ETag's) when `wait` ran out. No body."),
                       **errors(400, 401, 403, 404)},
        )(get)
        return type("GameDetailApi", (self.target_class,), {"get": get})
