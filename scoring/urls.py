"""Routes of /api/v1/ for leagues, standings, table scoreboards, player statistics and ratings."""

from django.urls import path

import maumau.converters  # noqa: F401  (registers <id:...>)
from scoring import apis

urlpatterns = [
    path("leagues", apis.LeagueListApi.as_view(), name="leagues"),
    path("leagues/<id:league_id>", apis.LeagueDetailApi.as_view(), name="league"),
    path("leagues/<id:league_id>/resign", apis.LeagueResignApi.as_view(), name="league-resign"),
    path("leagues/<id:league_id>/standings", apis.LeagueStandingsApi.as_view(), name="league-standings"),
    path("leagues/<id:league_id>/join", apis.LeagueJoinApi.as_view(), name="league-join"),
    path("leagues/<id:league_id>/leave", apis.LeagueLeaveApi.as_view(), name="league-leave"),
    path("leagues/<id:league_id>/members", apis.LeagueMembersApi.as_view(), name="league-members"),
    path("leagues/<id:league_id>/members/<id:player_id>/role", apis.LeagueMemberRoleApi.as_view(),
         name="league-member-role"),
    path("leagues/<id:league_id>/seasons", apis.LeagueSeasonsApi.as_view(), name="league-seasons"),
    path("leagues/<id:league_id>/seasons/next", apis.LeagueSeasonStartApi.as_view(), name="league-season-start"),
    path("leagues/<id:league_id>/seasons/close", apis.LeagueSeasonCloseApi.as_view(), name="league-season-close"),
    path("leagues/<id:league_id>/seasons/<id:season>/standings", apis.LeagueSeasonStandingsApi.as_view(),
         name="league-season-standings"),
    path("leagues/<id:league_id>/seasons/<id:season>/standings.csv", apis.LeagueSeasonStandingsCsvApi.as_view(),
         name="league-season-standings-csv"),
    path("leagues/<id:league_id>/seasons/<id:season>/rounds.csv", apis.LeagueSeasonRoundsCsvApi.as_view(),
         name="league-season-rounds-csv"),
    path("leagues/<id:league_id>/race", apis.LeagueRaceApi.as_view(), name="league-race"),
    path("leagues/<id:league_id>/rounds", apis.LeagueRoundsApi.as_view(), name="league-rounds"),
    path("leagues/<id:league_id>/rounds/<id:round_id>/confirm", apis.LeagueRoundConfirmApi.as_view(),
         name="league-round-confirm"),
    path("leagues/<id:league_id>/rounds/<id:round_id>/dispute", apis.LeagueRoundDisputeApi.as_view(),
         name="league-round-dispute"),
    path("tables/<id:table_id>/scoreboard", apis.TableScoreboardApi.as_view(), name="table-scoreboard"),
    path("players/<id:player_id>/stats", apis.PlayerStatsApi.as_view(), name="player-stats"),
    path("players/<id:player_id>/history", apis.PlayerHistoryApi.as_view(), name="player-history"),
    path("players/<id:player_id>/ratings", apis.PlayerRatingsApi.as_view(), name="player-ratings"),
    path("ratings/<str:rules>", apis.LeaderboardApi.as_view(), name="ratings-leaderboard"),
    path("me/stats", apis.MeStatsApi.as_view(), name="me-stats"),
    path("me/history", apis.MeHistoryApi.as_view(), name="me-history"),
]
