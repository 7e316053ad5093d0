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

SSE = OpenApiResponse(OpenApiTypes.STR, description="`text/event-stream`")
LAST_EVENT_ID = OpenApiParameter("Last-Event-ID", {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX},
                                 OpenApiParameter.HEADER,
                                 description="Resume after this event id (sent by EventSource on reconnect).")


class GameStreamDoc(APIView):
    @extend_schema(
        operation_id="games_stream",
        summary="The round's ledger as server-sent events",
        parameters=[LAST_EVENT_ID, query_number(
            "after", "Start after this ledger seq (default: the current version, only new moves).")],
        responses={200: SSE, **errors(400, 401, 403, 404)},
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
        responses={200: SSE, **errors(400, 401)},
        description="Server-sent events of the caller's notifications across all tables: `event:` = kind "
                    f"({', '.join(KINDS)}), `id:` = notification id, `data:` = the notification JSON "
                    "(as `NotificationSerializer`). A comment `: keep-alive` every few seconds.",
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
                                             "after this many seconds (more than 60 counts as 60)."),
                query_number("after", "Long-poll: the version the caller has (default: the version in "
                                      "If-None-Match, else the current one)."),
                ETAG,
            ],
            responses={200: GameViewSerializer, 304: OpenApiResponse(description="Not modified."),
                       **errors(400, 401, 403, 404)},
        )(get)
        return type("GameDetailApi", (self.target_class,), {"get": get})
