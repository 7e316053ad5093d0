"""Project URLs: the API under /api/v1/, its OpenAPI schema and Swagger UI, the admin."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/v1/", include("games.urls")),
    path("api/v1/", include("scoring.urls")),
    path("api/v1/", include("streams.urls")),
]

handler404 = "maumau.errors.json_404"
handler500 = "maumau.errors.json_500"
