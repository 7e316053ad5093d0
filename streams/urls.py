"""Routes of /api/v1/ for streams and webhooks (the long-poll shares the game view's URL:
see streams.middleware)."""

from django.urls import path

import maumau.converters  # noqa: F401  (registers <id:...>)
from streams import apis, views

urlpatterns = [
    path("games/<id:game_id>/stream", apis.documented(views.game_stream, apis.GameStreamDoc), name="game-stream"),
    path("me/stream", apis.documented(views.me_stream, apis.MeStreamDoc), name="me-stream"),
    path("webhooks", apis.WebhookListCreateApi.as_view(), name="webhooks"),
    path("webhooks/secret", apis.WebhookSecretApi.as_view(), name="webhook-secret"),
    path("webhooks/<id:webhook_id>", apis.WebhookDetailApi.as_view(), name="webhook-detail"),
    path("webhooks/<id:webhook_id>/deliveries", apis.WebhookDeliveriesApi.as_view(), name="webhook-deliveries"),
]
