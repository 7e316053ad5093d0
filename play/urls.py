"""Routes of /api/v1/ for players, tables and games (no trailing slashes: docs/api.md)."""

from django.urls import path

import maumau.converters  # noqa: F401  (registers <id:...>)
from play import apis

urlpatterns = [
    path("me", apis.MeApi.as_view(), name="me"),
    path("tables", apis.TableListCreateApi.as_view(), name="tables"),
    path("tables/<id:table_id>", apis.TableDetailApi.as_view(), name="table-detail"),
    path("tables/<id:table_id>/join", apis.TableJoinApi.as_view(), name="table-join"),
    path("tables/<id:table_id>/leave", apis.TableLeaveApi.as_view(), name="table-leave"),
    path("tables/<id:table_id>/entropy", apis.TableEntropyApi.as_view(), name="table-entropy"),
    path("tables/<id:table_id>/bots", apis.TableBotApi.as_view(), name="table-bots"),
    path("tables/<id:table_id>/rounds", apis.RoundStartApi.as_view(), name="table-rounds"),
    path("tables/<id:table_id>/reclaim", apis.TableReclaimApi.as_view(), name="table-reclaim"),
    path("games/<id:game_id>", apis.GameDetailApi.as_view(), name="game-detail"),
    path("games/<id:game_id>/actions", apis.GameActionApi.as_view(), name="game-actions"),
    path("games/<id:game_id>/events", apis.GameEventsApi.as_view(), name="game-events"),
    path("games/<id:game_id>/abort", apis.GameAbortApi.as_view(), name="game-abort"),
    path("games/<id:game_id>/fairness", apis.GameFairnessApi.as_view(), name="game-fairness"),
]
