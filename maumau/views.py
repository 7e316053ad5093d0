"""The front door: ``/api/`` says where the API, its schema and its documentation are."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView


class ApiIndexApi(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="api_index",
        summary="Where the API, its schema and its documentation are",
        auth=[],
        tags=["index"],
        responses={200: inline_serializer("ApiIndex", {
            "name": serializers.CharField(),
            "api": serializers.URLField(),
            "schema": serializers.URLField(),
            "docs": serializers.URLField(),
            "redoc": serializers.URLField(),
            "signup": serializers.URLField(),
        })},
        examples=[OpenApiExample("The index", response_only=True, value={
            "name": "Mau-Mau API",
            "api": "http://127.0.0.1:8000/api/v1/",
            "schema": "http://127.0.0.1:8000/api/schema/",
            "docs": "http://127.0.0.1:8000/api/docs/",
            "redoc": "http://127.0.0.1:8000/api/redoc/",
            "signup": "http://127.0.0.1:8000/api/v1/players",
        })],
    )
    def get(self, request: Request) -> Response:
        return Response({
            "name": "Mau-Mau API",
            "api": request.build_absolute_uri("/api/v1/"),
            "schema": reverse("schema", request=request),
            "docs": reverse("docs", request=request),
            "redoc": reverse("redoc", request=request),
            "signup": reverse("player-create", request=request),
        })
