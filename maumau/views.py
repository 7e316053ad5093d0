"""The front door: ``/api/`` says where the API, its schema and its documentation are."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView


class ApiIndexApi(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    # Not in the OpenAPI schema: the index is for people and crawlers, and its address (a trailing slash)
    # breaks code generators that lint with the recommended rules (no-path-trailing-slash).
    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        return Response({
            "name": "Mau-Mau API",
            "api": request.build_absolute_uri("/api/v1/"),
            "schema": reverse("schema", request=request),
            "docs": reverse("docs", request=request),
            "redoc": reverse("redoc", request=request),
            "signup": reverse("player-create", request=request),
        })
