"""Endpoints of the notify app: thin DRF views."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import translation
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from maumau.schema import errors
from maumau.strict import StrictBooleanField, StrictCharField, StrictChoiceField, StrictSerializer, StrictURLField
from notify import channels, services
from notify.models import CHANNELS, KINDS, PLATFORMS, Device, PushSubscription

LANGUAGES = ["en", "de", "fr"]


class StrictEmailField(serializers.EmailField):
    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field({"type": "string", "pattern": "^([01]?[0-9]|2[0-3]):[0-5][0-9]$", "example": "22:00"})
class StrictTimeField(serializers.TimeField):
    """``HH:MM`` (24 hours): not an RFC 3339 ``time`` (which has seconds and an offset), so a pattern."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(format="%H:%M", input_formats=["%H:%M"], **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid", format="HH:MM")
        return super().to_internal_value(data)


class PushKeysSerializer(StrictSerializer):
    p256dh = StrictCharField(max_length=100, help_text="The browser's P-256 public key, base64url (65 bytes).")
    auth = StrictCharField(max_length=40, help_text="The authentication secret, base64url (16 bytes).")


class PushSubscriptionCreateSerializer(StrictSerializer):
    endpoint = StrictURLField(max_length=1000, help_text="The push service's URL: https, a public address.")
    expirationTime = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=2**53,  # noqa: N815
                                              help_text="As the browser gives it; not used.")
    keys = PushKeysSerializer()
    name = StrictCharField(max_length=64, required=False, allow_blank=True, default="",
                           help_text="A name for the device, shown in the settings.")


class PushSubscriptionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    endpoint_origin = serializers.CharField(help_text="The push service (its origin; the full URL stays private).")
    created_at = serializers.DateTimeField()


class DeviceCreateSerializer(StrictSerializer):
    platform = StrictChoiceField(choices=PLATFORMS)
    token = StrictCharField(max_length=512, min_length=8, help_text="FCM registration token or APNs device token.")
    name = StrictCharField(max_length=64, required=False, allow_blank=True, default="")


class DeviceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    platform = serializers.ChoiceField(choices=PLATFORMS)
    name = serializers.CharField()
    created_at = serializers.DateTimeField()


class VapidKeySerializer(serializers.Serializer):
    public_key = serializers.CharField(allow_null=True, help_text="The application server key (base64url, "
                                       "uncompressed P-256 point) for `pushManager.subscribe`; null: Web Push is off.")


class EmailSetSerializer(StrictSerializer):
    address = StrictEmailField(max_length=254)


class EmailSerializer(serializers.Serializer):
    address = serializers.EmailField()
    verified = serializers.BooleanField()


class ChannelChoicesSerializer(StrictSerializer):
    web_push = StrictBooleanField(required=False)
    fcm = StrictBooleanField(required=False)
    apns = StrictBooleanField(required=False)
    email = StrictBooleanField(required=False)


class ChannelStateSerializer(serializers.Serializer):
    web_push = serializers.BooleanField()
    fcm = serializers.BooleanField()
    apns = serializers.BooleanField()
    email = serializers.BooleanField()


KindChoicesSerializer = type("KindChoicesSerializer", (StrictSerializer,),
                             {kind: ChannelChoicesSerializer(required=False) for kind in KINDS})
KindStateSerializer = type("KindStateSerializer", (serializers.Serializer,),
                           {kind: ChannelStateSerializer() for kind in KINDS})


class QuietHoursSerializer(StrictSerializer):
    start = StrictTimeField(help_text="HH:MM in the player's time zone.")
    end = StrictTimeField(help_text="HH:MM; before start: over midnight.")


class ChannelStatusSerializer(serializers.Serializer):
    web_push = serializers.CharField()
    fcm = serializers.CharField()
    apns = serializers.CharField()
    email = serializers.CharField()


class PreferencesSerializer(serializers.Serializer):
    kinds = KindStateSerializer()
    quiet_hours = QuietHoursSerializer(allow_null=True)
    time_zone = serializers.CharField()
    language = serializers.ChoiceField(choices=LANGUAGES)
    email = EmailSerializer(allow_null=True)
    channels = ChannelStatusSerializer(help_text="Which channels this server has (`on`, or off and why).")


class PreferencesPatchSerializer(StrictSerializer):
    kinds = KindChoicesSerializer(required=False)
    quiet_hours = QuietHoursSerializer(required=False, allow_null=True)
    time_zone = StrictCharField(required=False, max_length=64, help_text="IANA name, such as Europe/Berlin.")
    language = StrictChoiceField(required=False, choices=LANGUAGES)


def _language() -> str:
    return (translation.get_language() or "en")[:2]


def _iso(value: dt.datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def subscription_data(sub: PushSubscription) -> dict[str, Any]:
    from urllib.parse import urlsplit

    parts = urlsplit(sub.endpoint)
    return {"id": sub.pk, "name": sub.name, "endpoint_origin": f"{parts.scheme}://{parts.netloc}",
            "created_at": _iso(sub.created_at)}


def device_data(device: Device) -> dict[str, Any]:
    return {"id": device.pk, "platform": device.platform, "name": device.name, "created_at": _iso(device.created_at)}


class VapidKeyApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []

    @extend_schema(summary="The Web Push application server key (VAPID, RFC 8292)", auth=[],
                   responses={200: VapidKeySerializer, **errors(406)})
    def get(self, request: Request) -> Response:
        return Response({"public_key": channels.vapid_public_key()})


class PushSubscriptionsApi(APIView):
    @extend_schema(summary="The caller's push subscriptions", responses={200: PushSubscriptionSerializer(many=True),
                                                                        **errors(401)})
    def get(self, request: Request) -> Response:
        subs = PushSubscription.objects.filter(player=request.user.player)
        return Response([subscription_data(s) for s in subs])

    @extend_schema(
        summary="Register the browser's PushSubscription",
        request=PushSubscriptionCreateSerializer,
        examples=[OpenApiExample("From pushManager.subscribe()", request_only=True, value={
            "endpoint": "https://push.example.net/send/abc", "expirationTime": None,
            "keys": {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1Xbjh"
                               "azAkj7I99e8QcYP7DkM",
                     "auth": "tBHItJI5svbpez7KI4CCXg"}, "name": "Phone"})],
        responses={201: PushSubscriptionSerializer, **errors(400, 401, 409, 429)},
        description="At most 20 per player. The endpoint must be https and public; removed with the token that "
                    "registered it, or when the push service says it is gone (404/410). An endpoint another "
                    "player registered is refused (409 `push_target_taken`) and stays theirs; the caller's own "
                    "is renewed (201).",
    )
    def post(self, request: Request) -> Response:
        serializer = PushSubscriptionCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        sub = services.subscription_add(player=request.user.player, token_id=getattr(request.auth, "pk", None),
                                        endpoint=data["endpoint"], p256dh=data["keys"]["p256dh"],
                                        auth=data["keys"]["auth"], name=data["name"], language=_language())
        return Response(subscription_data(sub), status=status.HTTP_201_CREATED)


class PushSubscriptionDetailApi(APIView):
    @extend_schema(summary="Remove a push subscription", responses={204: None, **errors(401, 404, 429)})
    def delete(self, request: Request, subscription_id: int) -> Response:
        services.subscription_remove(player=request.user.player, subscription_id=subscription_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DevicesApi(APIView):
    @extend_schema(summary="The caller's native app devices (FCM, APNs)",
                   responses={200: DeviceSerializer(many=True), **errors(401)})
    def get(self, request: Request) -> Response:
        return Response([device_data(d) for d in Device.objects.filter(player=request.user.player)])

    @extend_schema(summary="Register a native app's push token", request=DeviceCreateSerializer,
                   examples=[OpenApiExample("Android", request_only=True,
                                            value={"platform": "fcm", "token": "dQw4w9WgXcQ:APA91b...",
                                                   "name": "Pixel"})],
                   responses={201: DeviceSerializer, **errors(400, 401, 409, 429)},
                   description="At most 20 per player; removed with the token that registered it. A token "
                               "another player registered is refused (409 `push_target_taken`) and stays theirs.")
    def post(self, request: Request) -> Response:
        serializer = DeviceCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        device = services.device_add(player=request.user.player, token_id=getattr(request.auth, "pk", None),
                                     platform=data["platform"], token=data["token"], name=data["name"],
                                     language=_language())
        return Response(device_data(device), status=status.HTTP_201_CREATED)


class DeviceDetailApi(APIView):
    @extend_schema(summary="Remove a device", responses={204: None, **errors(401, 404, 429)})
    def delete(self, request: Request, device_id: int) -> Response:
        services.device_remove(player=request.user.player, device_id=device_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class EmailApi(APIView):
    @extend_schema(summary="Set the e-mail address (sends the verification mail)", request=EmailSetSerializer,
                   examples=[OpenApiExample("An address", request_only=True, value={"address": "ada@example.org"})],
                   responses={200: EmailSerializer, **errors(400, 401, 429)},
                   description="Nothing but the verification mail goes to the address until its link is opened. "
                               "A few verification mails an hour to one address, for one player and from one "
                               "client address (429 `throttled`, `details.limit` says which).")
    def put(self, request: Request) -> Response:
        serializer = EmailSetSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        entry = services.email_set(player=request.user.player, address=serializer.validated_data["address"],
                                   language=_language(), client=BaseThrottle().get_ident(request))
        return Response({"address": entry.address, "verified": entry.verified_at is not None})


class PreferencesApi(APIView):
    @extend_schema(summary="What the caller is told outside the service, and how",
                   responses={200: PreferencesSerializer, **errors(401)})
    def get(self, request: Request) -> Response:
        return Response(services.preferences_data(request.user.player))

    @extend_schema(
        summary="Change notification preferences (merges what it is sent)",
        request=PreferencesPatchSerializer,
        examples=[OpenApiExample("No turn mails, quiet at night", request_only=True, value={
            "kinds": {"your_turn": {"email": False}}, "quiet_hours": {"start": "22:00", "end": "07:30"},
            "time_zone": "Europe/Berlin"})],
        responses={200: PreferencesSerializer, **errors(400, 401, 429)},
        description="Defaults: push (web_push, fcm, apns) on for every kind, e-mail off, no quiet hours. "
                    f"Kinds: {', '.join(KINDS)}; channels: {', '.join(CHANNELS)}.",
    )
    def patch(self, request: Request) -> Response:
        serializer = PreferencesPatchSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.preferences_update(player=request.user.player, changes=serializer.validated_data)
        return Response(services.preferences_data(request.user.player))
