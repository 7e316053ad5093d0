"""Webhook endpoints (thin DRF views) and the OpenAPI description of the async endpoints.

The async views in :mod:`streams.views` are not DRF views; :func:`documented` hangs a DRF
class on each so drf-spectacular describes it like any other endpoint (the class is only read
by the schema generator, it never serves a request).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from drf_spectacular.extensions import OpenApiViewExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.serializers import GameViewSerializer
from maumau.errors import NotFoundError, ValidationFailed
from maumau.params import QUERY_INT_MAX
from maumau.schema import ETAG, errors, query_number
from maumau.strict import StrictChoiceField, StrictListField, StrictSerializer, StrictURLField
from streams import services
from streams.models import KINDS, Webhook, WebhookDelivery

EVENT_KINDS = ["*", *KINDS]
DELIVERY_STATUSES = ["pending", "retrying", "delivered", "failed"]


class WebhookCreateSerializer(StrictSerializer):
    url = StrictURLField(max_length=500, help_text="http(s) URL; private, loopback and link-local "
                                                   "addresses are refused unless the operator allows them.")
    events = StrictListField(child=StrictChoiceField(choices=EVENT_KINDS), min_length=1,
                             max_length=len(EVENT_KINDS), help_text='Notification kinds to deliver, or ["*"] for all.')


class WebhookSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=EVENT_KINDS))
    active = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class WebhookCreatedSerializer(WebhookSerializer):
    secret = serializers.CharField(help_text="The player's signing secret (shared by their webhooks).")


class WebhookSecretSerializer(serializers.Serializer):
    secret = serializers.CharField()


class DeliverySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    event = serializers.ChoiceField(choices=KINDS)
    status = serializers.ChoiceField(choices=DELIVERY_STATUSES)
    attempts = serializers.IntegerField()
    response_status = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    delivered_at = serializers.DateTimeField(allow_null=True)
    body = serializers.DictField(help_text="The JSON body that is signed and sent.")


class NotificationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=KINDS)
    table = serializers.IntegerField(allow_null=True)
    game = serializers.IntegerField(allow_null=True)
    data = serializers.JSONField()
    created_at = serializers.DateTimeField()


def _iso(value: Any) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def webhook_data(hook: Webhook) -> dict[str, Any]:
    return {"id": hook.pk, "url": hook.url, "events": hook.events, "active": hook.active,
            "created_at": _iso(hook.created_at)}


def delivery_data(delivery: WebhookDelivery) -> dict[str, Any]:
    return {"id": delivery.pk, "event": delivery.event, "status": delivery.status, "attempts": delivery.attempts,
            "response_status": delivery.response_status, "last_error": delivery.last_error,
            "next_attempt_at": _iso(delivery.next_attempt_at), "created_at": _iso(delivery.created_at),
            "delivered_at": _iso(delivery.delivered_at), "body": json.loads(delivery.body)}


class WebhookListCreateApi(APIView):
    @extend_schema(summary="The caller's webhooks", responses={200: WebhookSerializer(many=True), **errors(401)})
    def get(self, request: Request) -> Response:
        hooks = Webhook.objects.filter(player=request.user.player, active=True)
        return Response([webhook_data(h) for h in hooks])

    @extend_schema(
        summary="Register a webhook",
        request=WebhookCreateSerializer,
        examples=[
            OpenApiExample("Turns only", request_only=True,
                           value={"url": "https://bots.example.org/maumau", "events": ["your_turn"]}),
            OpenApiExample("Every notification", request_only=True,
                           value={"url": "https://bots.example.org/maumau", "events": ["*"]}),
        ],
        responses={201: WebhookCreatedSerializer, **errors(400, 401, 429)},
        description="Register a URL for notification kinds. Deliveries are POSTs of JSON, signed with "
                    "`X-MauMau-Signature: sha256=HMAC-SHA256(secret, \"<X-MauMau-Timestamp>.<body>\")`, "
                    "retried with exponential backoff; `X-MauMau-Delivery` is stable across retries.",
    )
    def post(self, request: Request) -> Response:
        serializer = WebhookCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        player = request.user.player
        hook = services.webhook_create(player=player, url=serializer.validated_data["url"],
                                       events=list(serializer.validated_data["events"]))
        body = {**webhook_data(hook), "secret": services.webhook_secret_get(player=player)}
        return Response(body, status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    @extend_schema(summary="Remove a webhook", responses={204: None, **errors(401, 404, 429)})
    def delete(self, request: Request, webhook_id: int) -> Response:
        services.webhook_delete(player=request.user.player, webhook_id=webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveriesApi(APIView):
    @extend_schema(
        summary="A webhook's latest deliveries",
        parameters=[OpenApiParameter("status", str, enum=DELIVERY_STATUSES, description="Only deliveries in it.")],
        responses={200: DeliverySerializer(many=True), **errors(400, 401, 404)},
        description="The latest 100 deliveries of this webhook, newest first.",
    )
    def get(self, request: Request, webhook_id: int) -> Response:
        hook = Webhook.objects.filter(pk=webhook_id, player=request.user.player).first()
        if hook is None:
            raise NotFoundError()
        query = hook.deliveries.all()
        wanted = request.query_params.get("status")
        if wanted:
            if wanted not in DELIVERY_STATUSES:
                raise ValidationFailed(details={"field": "status", "allowed": DELIVERY_STATUSES})
            query = query.filter(status=wanted)
        return Response([delivery_data(d) for d in query[:100]])


class WebhookSecretApi(APIView):
    @extend_schema(summary="The caller's signing secret", responses={200: WebhookSecretSerializer, **errors(401)})
    def get(self, request: Request) -> Response:
        return Response({"secret": services.webhook_secret_get(player=request.user.player)})

    @extend_schema(summary="Rotate the signing secret", request=None,
                   responses={200: WebhookSecretSerializer, **errors(401, 429)},
                   description="Replace the signing secret; deliveries from now on use the new one.")
    def post(self, request: Request) -> Response:
        return Response({"secret": services.webhook_secret_rotate(player=request.user.player)})


# --- schema of the async views -------------------------------------------------------------------

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
    """Adds the long-poll parameters (served by :func:`streams.views.game_wait`) to the game view."""

    target_class = "games.apis.GameDetailApi"

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
