"""Routes of /api/v1/ for push subscriptions, devices, the e-mail address and preferences."""

from django.urls import path

import maumau.converters  # noqa: F401  (registers <id:...>)
from notify import apis

urlpatterns = [
    path("push/vapid-public-key", apis.VapidKeyApi.as_view(), name="vapid-public-key"),
    path("me/push-subscriptions", apis.PushSubscriptionsApi.as_view(), name="push-subscriptions"),
    path("me/push-subscriptions/<id:subscription_id>", apis.PushSubscriptionDetailApi.as_view(),
         name="push-subscription-detail"),
    path("me/devices", apis.DevicesApi.as_view(), name="devices"),
    path("me/devices/<id:device_id>", apis.DeviceDetailApi.as_view(), name="device-detail"),
    path("me/email", apis.EmailApi.as_view(), name="me-email"),
    path("me/notifications", apis.PreferencesApi.as_view(), name="me-notifications"),
]
