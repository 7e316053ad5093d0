"""The product's routes plus the HTTP benchmark's floor, ``POST /api/v1/bench/floor``: the least a
write through the product's stack can cost, which the moves are measured against (``bench.http``)."""

from __future__ import annotations

from django.db import transaction
from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.models import Player
from maumau import urls as product


class FloorApi(APIView):
    """The stack of a move (token auth, write throttle, JSON in and out) around one row, the caller's
    own, locked and updated in one transaction."""

    @extend_schema(exclude=True)
    def post(self, request: Request) -> Response:
        with transaction.atomic():
            row = Player.objects.select_for_update().only("id", "name").get(pk=request.user.player.pk)
            touched = Player.objects.filter(pk=row.pk).update(name=row.name)
        return Response({"touched": touched})


urlpatterns = [path("api/v1/bench/floor", FloorApi.as_view(), name="bench-floor"), *product.urlpatterns]
handler404 = product.handler404
handler500 = product.handler500
