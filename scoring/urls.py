"""Routes of /api/v1/ for leagues, standings, table scoreboards, player statistics and ratings."""

from django.urls import path

import maumau.converters  # noqa: F401  (registers <id:...>)
from scoring import apis

urlpatterns = [
    path("leagues", apis.LeagueListApi.as_view(), name="leagues"),
    path("leagues/<id:league_id>", apis.LeagueDetailApi.as_view(), name="league"),
    path("leagues/<id:league_id>/resign", apis.LeagueResignApi.as_view(), name="league-resign"),
    path("leagues/<id:league_id>/standings", apis.LeagueStandingsApi.as_view(), name="league-standings"),
    path("tables/<id:table_id>/scoreboard", apis.TableScoreboardApi.as_view(), name="table-scoreboard"),
    path("players/<id:player_id>/stats", apis.PlayerStatsApi.as_view(), name="player-stats"),
    path("players/<id:player_id>/history", apis.PlayerHistoryApi.as_view(), name="player-history"),
    path("players/<id:player_id>/ratings", apis.PlayerRatingsApi.as_view(), name="player-ratings"),
    path("ratings/<str:rules>", apis.LeaderboardApi.as_view(), name="ratings-leaderboard"),
    path("me/stats", apis.MeStatsApi.as_view(), name="me-stats"),
    path("me/history", apis.MeHistoryApi.as_view(), name="me-history"),
]
