"""Project URLs: the API under /api/v1/, its OpenAPI schema and Swagger UI, the admin."""

from importlib.util import find_spec

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/v1/", include("games.urls")),
]
# Apps owned by other engineers plug in here when they provide urls.py.
for _app in ("scoring", "streams"):
    if find_spec(_app) is not None and find_spec(f"{_app}.urls") is not None:
        urlpatterns.append(path("api/v1/", include(f"{_app}.urls")))

handler404 = "maumau.errors.json_404"
handler500 = "maumau.errors.json_500"
