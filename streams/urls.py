"""Routes of /api/v1/ for webhooks (the waiting endpoints are the live app's)."""

from django.urls import path

import maumau.converters  # noqa: F401  (registers <id:...>)
from streams import apis

urlpatterns = [
    path("webhooks", apis.WebhookListCreateApi.as_view(), name="webhooks"),
    path("webhooks/secret", apis.WebhookSecretApi.as_view(), name="webhook-secret"),
    path("webhooks/<id:webhook_id>", apis.WebhookDetailApi.as_view(), name="webhook-detail"),
    path("webhooks/<id:webhook_id>/deliveries", apis.WebhookDeliveriesApi.as_view(), name="webhook-deliveries"),
]
