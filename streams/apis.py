"""Webhook endpoints: thin DRF views."""

from __future__ import annotations

import json
from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from maumau import database_retry
from maumau.errors import NotFoundError, ValidationFailed
from maumau.schema import errors
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
        secret = database_retry.read_once_more(services.webhook_secret_get, player=player)  # after the commit
        body = {**webhook_data(hook), "secret": secret}
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
    #: Whoever holds the secret can sign deliveries as this server: a ``read`` token (a scraper) may not.
    token_scopes = {"GET": "play"}

    @extend_schema(summary="The caller's signing secret (a token with the `play` scope)",
                   responses={200: WebhookSecretSerializer, **errors(401, 403)})
    def get(self, request: Request) -> Response:
        return Response({"secret": services.webhook_secret_get(player=request.user.player)})

    @extend_schema(summary="Rotate the signing secret", request=None,
                   responses={200: WebhookSecretSerializer, **errors(401, 403, 429)},
                   description="Replace the signing secret; deliveries from now on use the new one.")
    def post(self, request: Request) -> Response:
        return Response({"secret": services.webhook_secret_rotate(player=request.user.player)})


# --- schema of the async views -------------------------------------------------------------------
