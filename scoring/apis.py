"""Thin DRF views for leagues, standings, table scoreboards and player statistics."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.models import Player
from games.selectors import table_get
from maumau import database_retry
from maumau.errors import NotFoundError
from maumau.params import query_bool, query_int
from maumau.schema import errors, query_number
from maumau.strict import validated
from scoring import selectors, services
from scoring.ratings import PROVISIONAL_ROUNDS
from scoring.serializers import (
    HistoryLine,
    HistoryOutput,
    LeaderboardOutput,
    LeagueCreateInput,
    LeagueOutput,
    LeagueResignInput,
    PlayerRatingsOutput,
    ScoreboardOutput,
    StandingsOutput,
    StatsOutput,
    league_data,
)

HISTORY_PAGE_MAX = 200
LEADERBOARD_PAGE_MAX = 200
RATING_HISTORY_MAX = 1000


def _player_or_404(player_id: int) -> Any:
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise NotFoundError()
    return player


class LeagueListApi(APIView):
    @extend_schema(
        operation_id="leagues_list",
        summary="List leagues",
        parameters=[OpenApiParameter("mine", bool, description="Only leagues the caller is a member of "
                                                                "(`true` or `false`); else public leagues and "
                                                                "the caller's own.")],
        responses={200: LeagueOutput(many=True), **errors(400, 401)},
        tags=["leagues"],
    )
    def get(self, request: Request) -> Response:
        mine = query_bool(request.query_params.get("mine"), "mine")
        leagues = selectors.league_list(player=request.user.player, mine=bool(mine))[:200]
        return Response([league_data(league) for league in leagues])

    @extend_schema(
        operation_id="leagues_create",
        summary="Create a league",
        description=(
            "Tables created with `league: <id>` feed their finished rounds into it. In `house` "
            "the first player to reach `league_limit` (500) loses and the league ends."
        ),
        request=LeagueCreateInput,
        examples=[
            OpenApiExample("House league to 500", request_only=True, value={"name": "Friday", "rules": "house"}),
            OpenApiExample("House league to 300", request_only=True,
                           value={"name": "Short", "rules": "house", "options": {"league_limit": 300}}),
            OpenApiExample("Tavern league", request_only=True, value={"name": "Tavern", "rules": "tavern"}),
        ],
        responses={201: LeagueOutput, **errors(400, 401, 429)},
        tags=["leagues"],
    )
    def post(self, request: Request) -> Response:
        data = LeagueCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        league = services.league_create(**data.validated_data, created_by=request.user.player)
        return Response(database_retry.read_once_more(
            lambda: league_data(selectors.league_get(league_id=league.pk, viewer=request.user.player))),
                        status=201)


class LeagueDetailApi(APIView):
    @extend_schema(
        operation_id="leagues_retrieve",
        summary="One league",
        responses={200: LeagueOutput, **errors(401, 404)},
        tags=["leagues"],
    )
    def get(self, request: Request, league_id: int) -> Response:
        return Response(league_data(selectors.league_get(league_id=league_id, viewer=request.user.player)))



def _resigned_answer(league_id: int, viewer: Any) -> dict[str, Any]:
    """The league and its current season's standings as `viewer` sees them (after a resignation: read after
    its commit)."""
    league = selectors.league_get(league_id=league_id, viewer=viewer)
    return {"league": league_data(league), "season": league.season,
            "standings": selectors.league_standings(league=league)}


class LeagueStandingsApi(APIView):
    @extend_schema(
        operation_id="leagues_standings",
        summary="League standings, best first",
        description=(
            "Per player: position (equal points share one), rounds, wins, points, multiplier bonuses, "
            "and for `house` whether the player reached the limit and lost. A fixed number of queries "
            "whatever the number of rounds: the totals are kept per player as rounds finish."
        ),
        responses={200: StandingsOutput, **errors(401, 404)},
        tags=["leagues"],
    )
    def get(self, request: Request, league_id: int) -> Response:
        return Response(database_retry.read_once_more(_resigned_answer, league_id, request.user.player))


class LeagueResignApi(APIView):
    @extend_schema(
        operation_id="leagues_resign",
        summary="Resign a league",
        description=(
            "For a member: a player with a counted round in the league (403 for anyone else). With a limit "
            "(`house`) the caller loses the league at once and it finishes (`league_over`); without one the "
            "caller is withdrawn: ranked last with `resigned: true`, and none of their later rounds counts in "
            "the league. A running round is not resigned by this (`{\"type\": \"resign\"}` does that). "
            "409 once the league is finished or the caller has resigned it. Answers the standings."
        ),
        request=LeagueResignInput,
        examples=[OpenApiExample("Resign", request_only=True, value={})],
        responses={200: StandingsOutput, **errors(400, 401, 403, 404, 409, 429)},
        tags=["leagues"],
    )
    def post(self, request: Request, league_id: int) -> Response:
        validated(LeagueResignInput, request)
        services.league_resign(league_id=league_id, player=request.user.player)
        return Response(database_retry.read_once_more(_resigned_answer, league_id, request.user.player))


class TableScoreboardApi(APIView):
    @extend_schema(
        operation_id="tables_scoreboard",
        summary="Scoreboard of a table (rounds, wins, points per player)",
        responses={200: ScoreboardOutput, **errors(401, 404)},
        tags=["tables"],
    )
    def get(self, request: Request, table_id: int) -> Response:
        table = table_get(table_id=table_id, viewer=request.user.player)  # a private one: 404 to outsiders
        return Response(selectors.table_scoreboard(table=table))


class PlayerStatsApi(APIView):
    @extend_schema(
        operation_id="players_stats",
        summary="A player's statistics: rounds, wins, win rate, points, per rule set",
        responses={200: StatsOutput, **errors(401, 404)},
        tags=["players"],
    )
    def get(self, request: Request, player_id: int | None = None) -> Response:
        player = request.user.player if player_id is None else _player_or_404(player_id)
        return Response(selectors.player_stats(player=player))


class MeStatsApi(PlayerStatsApi):
    @extend_schema(
        operation_id="me_stats",
        summary="The caller's statistics",
        responses={200: StatsOutput, **errors(401)},
        tags=["players"],
    )
    def get(self, request: Request, player_id: int | None = None) -> Response:
        return super().get(request)


class PlayerHistoryApi(APIView):
    @extend_schema(
        operation_id="players_history",
        summary="A player's finished rounds, newest first",
        parameters=[
            query_number("limit", "Page size (default 50).", minimum=1, maximum=HISTORY_PAGE_MAX),
            query_number("offset", "Rows to skip (default 0)."),
        ],
        responses={200: HistoryOutput, **errors(400, 401, 404)},
        tags=["players"],
    )
    def get(self, request: Request, player_id: int | None = None) -> Response:
        player = request.user.player if player_id is None else _player_or_404(player_id)
        limit = query_int(request.query_params.get("limit"), "limit", 50, minimum=1, maximum=HISTORY_PAGE_MAX)
        offset = query_int(request.query_params.get("offset"), "offset", 0)
        history = selectors.player_history(player=player, viewer=request.user.player)
        page = history[offset : offset + limit]
        return Response({"count": history.count(), "results": HistoryLine(page, many=True).data})


class MeHistoryApi(PlayerHistoryApi):
    @extend_schema(
        operation_id="me_history",
        summary="The caller's finished rounds, newest first",
        parameters=[
            query_number("limit", "Page size (default 50).", minimum=1, maximum=HISTORY_PAGE_MAX),
            query_number("offset", "Rows to skip (default 0)."),
        ],
        responses={200: HistoryOutput, **errors(400, 401)},
        tags=["players"],
    )
    def get(self, request: Request, player_id: int | None = None) -> Response:
        return super().get(request)


class LeaderboardApi(APIView):
    @extend_schema(
        operation_id="ratings_leaderboard",
        summary="The rule set's rating leaderboard, best first",
        description=(
            "Every player with an established rating under the rule set, by the conservative value `rating` = "
            "mu - 3 sigma (OpenSkill's Plackett-Luce model), then player id. Bots are rated too and shown as "
            f"bots; `people_only=true` leaves them out. A rating is provisional below {PROVISIONAL_ROUNDS} rated "
            "rounds and is not listed until then (`MAUMAU_LEADERBOARD_MIN_ROUNDS`). "
            "Pages are read by cursor: pass a page's `next` as `after` (with the same `people_only`); "
            "`position` counts from the top of the listing."
        ),
        parameters=[
            OpenApiParameter("rules", str, OpenApiParameter.PATH, enum=list(selectors.RATING_RULES)),
            OpenApiParameter("people_only", bool, description="Leave bots out (`true` or `false`)."),
            query_number("limit", "Page size (default 50).", minimum=1, maximum=LEADERBOARD_PAGE_MAX),
            OpenApiParameter("after", {"type": "string", "pattern": "^[A-Za-z0-9_-]{28}$"},
                             description="The `next` of the previous page."),
        ],
        responses={200: LeaderboardOutput, **errors(400, 401, 404)},
        tags=["ratings"],
    )
    def get(self, request: Request, rules: str) -> Response:
        if rules not in selectors.RATING_RULES:
            raise NotFoundError()
        people_only = query_bool(request.query_params.get("people_only"), "people_only")
        limit = query_int(request.query_params.get("limit"), "limit", 50, minimum=1, maximum=LEADERBOARD_PAGE_MAX)
        cursor = request.query_params.get("after")
        after = None
        if cursor is not None:
            after = selectors.leaderboard_cursor_read(cursor, rules=rules, people_only=people_only)
        page, following = selectors.leaderboard(rules=rules, people_only=people_only, limit=limit, after=after)
        return Response({"rules": rules, "people_only": people_only, "results": page, "next": following,
                         "min_rounds": settings.MAUMAU_LEADERBOARD_MIN_ROUNDS,
                         "provisional_rounds": PROVISIONAL_ROUNDS})


class PlayerRatingsApi(APIView):
    @extend_schema(
        operation_id="players_ratings",
        summary="A player's rating under each rule set, with its history",
        description=(
            "Per rule set: the rating (mu - 3 sigma), mu, sigma, rated rounds, whether it is provisional, "
            "and the newest `history` points (one per rated round), oldest first."
        ),
        parameters=[
            query_number("history", "Points per rule set (default 100).", maximum=RATING_HISTORY_MAX),
        ],
        responses={200: PlayerRatingsOutput, **errors(400, 401, 404)},
        tags=["players"],
    )
    def get(self, request: Request, player_id: int) -> Response:
        player = _player_or_404(player_id)
        history = query_int(request.query_params.get("history"), "history", 100, maximum=RATING_HISTORY_MAX)
        return Response(selectors.player_ratings(player=player, history=history))
