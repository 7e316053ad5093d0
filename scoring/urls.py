"""Routes of /api/v1/ for leagues, standings, table scoreboards, player statistics and ratings."""

from django.urls import path

import maumau.converters  # noqa: F401  (registers <id:...>)
from scoring import apis, league_apis

urlpatterns = [
    path("leagues", apis.LeagueListApi.as_view(), name="leagues"),
    path("leagues/<id:league_id>", apis.LeagueDetailApi.as_view(), name="league"),
    path("leagues/<id:league_id>/resign", apis.LeagueResignApi.as_view(), name="league-resign"),
    path("leagues/<id:league_id>/standings", apis.LeagueStandingsApi.as_view(), name="league-standings"),
    path("leagues/<id:league_id>/join", league_apis.LeagueJoinApi.as_view(), name="league-join"),
    path("leagues/<id:league_id>/leave", league_apis.LeagueLeaveApi.as_view(), name="league-leave"),
    path("leagues/<id:league_id>/members", league_apis.LeagueMembersApi.as_view(), name="league-members"),
    path("leagues/<id:league_id>/members/<id:player_id>", league_apis.LeagueMemberApi.as_view(),
         name="league-member"),
    path("leagues/<id:league_id>/seasons", league_apis.LeagueSeasonsApi.as_view(), name="league-seasons"),
    path("leagues/<id:league_id>/seasons/<id:season_number>/standings", league_apis.LeagueSeasonStandingsApi.as_view(),
         name="league-season-standings"),
    path("leagues/<id:league_id>/seasons/<id:season_number>/export", league_apis.LeagueSeasonExportApi.as_view(),
         name="league-season-export"),
    path("leagues/<id:league_id>/rounds", league_apis.LeagueRoundsApi.as_view(), name="league-rounds"),
    path("leagues/<id:league_id>/rounds/<id:round_id>/confirm", league_apis.LeagueRoundConfirmApi.as_view(),
         name="league-round-confirm"),
    path("leagues/<id:league_id>/rounds/<id:round_id>/dispute", league_apis.LeagueRoundDisputeApi.as_view(),
         name="league-round-dispute"),
    path("leagues/<id:league_id>/race", league_apis.LeagueRaceApi.as_view(), name="league-race"),
    path("tables/<id:table_id>/scoreboard", apis.TableScoreboardApi.as_view(), name="table-scoreboard"),
    path("players/<id:player_id>/stats", apis.PlayerStatsApi.as_view(), name="player-stats"),
    path("players/<id:player_id>/history", apis.PlayerHistoryApi.as_view(), name="player-history"),
    path("players/<id:player_id>/ratings", apis.PlayerRatingsApi.as_view(), name="player-ratings"),
    path("ratings/<str:rules>", apis.LeaderboardApi.as_view(), name="ratings-leaderboard"),
    path("me/stats", apis.MeStatsApi.as_view(), name="me-stats"),
    path("me/history", apis.MeHistoryApi.as_view(), name="me-history"),
]
