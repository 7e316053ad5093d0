"""Project URLs: the web client at ``/``, the API under /api/v1/, its index, OpenAPI schema and
documentation, the admin."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from client.views import client_page, service_worker, web_app_manifest
from maumau import ops
from maumau.views import ApiIndexApi

urlpatterns = [
    path("", client_page, name="home"),
    path("sw.js", service_worker, name="service-worker"),
    path("manifest.webmanifest", web_app_manifest, name="web-app-manifest"),
    path("healthz", ops.healthz, name="healthz"),
    path("readyz", ops.readyz, name="readyz"),
    path("metrics", ops.metrics, name="metrics"),
    path("admin/", admin.site.urls),
    path("api/", ApiIndexApi.as_view(), name="api-index"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema", template_name="maumau/redoc.html"),
         name="redoc"),
    path("api/v1/", include("play.urls")),
    path("api/v1/", include("accounts.urls")),
    path("api/v1/", include("scoring.urls")),
    path("api/v1/", include("streams.urls")),
    path("api/v1/", include("notify.urls")),
    path("", include("notify.pages")),
    path("api/v1/", include("lobby.urls")),
    path("", include("live.urls")),  # after play.urls: the game view comes first (live.routes)
]

handler400 = "maumau.errors.json_400"
handler403 = "maumau.errors.json_403"
handler404 = "maumau.errors.json_404"
handler500 = "maumau.errors.json_500"
