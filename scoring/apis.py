"""Thin DRF views for leagues, standings, table scoreboards and player statistics."""

from __future__ import annotations

import csv
import json
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from games.models import Player
from games.selectors import table_get
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
    LeagueJoinInput,
    LeagueOutput,
    LeagueResignInput,
    LeagueRoleInput,
    MembersOutput,
    PlayerRatingsOutput,
    RaceOutput,
    RoundOutput,
    RoundRecordInput,
    RoundsOutput,
    ScoreboardOutput,
    SeasonActionInput,
    SeasonsOutput,
    StandingsOutput,
    StatsOutput,
    league_data,
)

HISTORY_PAGE_MAX = 200
LEADERBOARD_PAGE_MAX = 200
RATING_HISTORY_MAX = 1000
RACE_PAGE_MAX = 2000
ROUNDS_PAGE_MAX = 200


class CsvRenderer(BaseRenderer):
    """Lets a CSV view be negotiated (`Accept: text/csv`); its errors still come as the JSON error shape."""

    media_type = "text/csv"
    format = "csv"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> Any:
        if isinstance(data, (bytes, str)):
            return data
        return json.dumps(data).encode()


def _player_or_404(player_id: int) -> Any:
    player = Player.objects.filter(pk=player_id).first()
    if player is None:
        raise NotFoundError()
    return player


def _caller(request: Request) -> Any:
    return getattr(request.user, "player", None)


class LeagueListApi(APIView):
    @extend_schema(
        operation_id="leagues_list",
        summary="List leagues",
        description="Public leagues and the private ones the caller is a member of.",
        parameters=[OpenApiParameter("mine", bool, description="Only leagues the caller belongs to, created or "
                                                                "played in (`true` or `false`).")],
        responses={200: LeagueOutput(many=True), **errors(400, 401)},
        tags=["leagues"],
    )
    def get(self, request: Request) -> Response:
        mine = query_bool(request.query_params.get("mine"), "mine")
        leagues = selectors.league_list(player=_caller(request), mine=mine)[:200]
        return Response([league_data(league) for league in leagues])

    @extend_schema(
        operation_id="leagues_create",
        summary="Create a league",
        description=(
            "Tables created with `league: <id>` feed their finished rounds into it, and its scorekeepers record "
            "rounds played with real cards on its sheet. The caller owns it. In `house` the first player to reach "
            "`league_limit` (500) loses the season."
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
        return Response(league_data(selectors.league_get(league_id=league.pk, player=request.user.player)), status=201)


class LeagueDetailApi(APIView):
    @extend_schema(
        operation_id="leagues_retrieve",
        summary="One league",
        description="Its current season's state; a private league is 404 to anyone not a member of it.",
        responses={200: LeagueOutput, **errors(401, 404)},
        tags=["leagues"],
    )
    def get(self, request: Request, league_id: int) -> Response:
        return Response(league_data(selectors.league_get(league_id=league_id, player=_caller(request))))


STANDINGS_DESCRIPTION = (
    "Per player: position (equal points share one), rounds, wins, points, multiplier bonuses, average points per "
    "round, the biggest single round, and for `house` whether the player reached the limit and lost. Played and "
    "recorded rounds both count (recorded ones once confirmed); neither a pending nor a disputed one does. A fixed "
    "number of queries whatever the number of rounds: the totals are kept per player as rounds count."
)


def _standings(league: Any, season: int) -> dict[str, Any]:
    return {"league": league_data(league), "season": season,
            "standings": selectors.league_standings(league=league, season=season)}


class LeagueStandingsApi(APIView):
    @extend_schema(
        operation_id="leagues_standings",
        summary="League standings of the current season, best first",
        description=STANDINGS_DESCRIPTION,
        responses={200: StandingsOutput, **errors(401, 404)},
        tags=["leagues"],
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id, player=_caller(request))
        return Response(_standings(league, league.season))


class LeagueResignApi(APIView):
    @extend_schema(
        operation_id="leagues_resign",
        summary="Resign a league's season",
        description=(
            "For a player with a counted round in the current season (403 for anyone else). With a limit "
            "(`house`) the caller loses the season at once and it finishes (`league_over`); without one the "
            "caller is withdrawn: ranked last with `resigned: true`, and none of their later rounds counts in "
            "the season. A running round is not resigned by this (`{\"type\": \"resign\"}` does that). "
            "409 once the season is finished or the caller has resigned it. Answers the standings."
        ),
        request=LeagueResignInput,
        examples=[OpenApiExample("Resign", request_only=True, value={})],
        responses={200: StandingsOutput, **errors(400, 401, 403, 404, 409, 429)},
        tags=["leagues"],
    )
    def post(self, request: Request, league_id: int) -> Response:
        validated(LeagueResignInput, request)
        season = selectors.league_get(league_id=league_id, player=request.user.player).season
        services.league_resign(league_id=league_id, player=request.user.player)
        league = selectors.league_get(league_id=league_id, player=request.user.player)
        return Response(_standings(league, season))


class LeagueJoinApi(APIView):
    @extend_schema(
        operation_id="leagues_join",
        summary="Join a league",
        description="A public league with or without its invite code, a private one with it (404 without). "
                    "409 `already_member`.",
        request=LeagueJoinInput,
        responses={200: LeagueOutput, **errors(400, 401, 404, 409, 429)},
        tags=["leagues"],
    )
    def post(self, request: Request, league_id: int) -> Response:
        data = validated(LeagueJoinInput, request)
        services.league_join(league_id=league_id, player=request.user.player, invite_code=data.get("invite_code"))
        return Response(league_data(selectors.league_get(league_id=league_id, player=request.user.player)))


class LeagueLeaveApi(APIView):
    @extend_schema(
        operation_id="leagues_leave",
        summary="Leave a league",
        description="No more seats at its tables nor lines on its sheet; past rounds and standings stay. "
                    "403 for a non-member, 409 for the owner.",
        request=SeasonActionInput,
        responses={204: None, **errors(400, 401, 403, 404, 409, 429)},
        tags=["leagues"],
    )
    def post(self, request: Request, league_id: int) -> Response:
        validated(SeasonActionInput, request)
        services.league_leave(league_id=league_id, player=request.user.player)
        return Response(status=204)


class LeagueMembersApi(APIView):
    @extend_schema(
        operation_id="leagues_members",
        summary="A league's members and their roles",
        responses={200: MembersOutput, **errors(401, 404)},
        tags=["leagues"],
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id, player=_caller(request))
        return Response({"league": league.pk, "members": selectors.league_members(league=league)})


class LeagueMemberRoleApi(APIView):
    @extend_schema(
        operation_id="leagues_member_role",
        summary="Name a member scorekeeper, or make them a plain member again",
        description="The owner only (403 otherwise). 400 when the player is not a member.",
        request=LeagueRoleInput,
        responses={200: MembersOutput, **errors(400, 401, 403, 404, 409, 429)},
        tags=["leagues"],
    )
    def post(self, request: Request, league_id: int, player_id: int) -> Response:
        data = validated(LeagueRoleInput, request)
        services.league_role_set(league_id=league_id, by=request.user.player, player_id=player_id, role=data["role"])
        league = selectors.league_get(league_id=league_id, player=request.user.player)
        return Response({"league": league.pk, "members": selectors.league_members(league=league)})


class LeagueSeasonsApi(APIView):
    @extend_schema(
        operation_id="leagues_seasons",
        summary="A league's seasons, first first",
        description="Each with how it ended (`limit`, `resigned`, `closed`) and its loser; the current one has "
                    "no end yet.",
        responses={200: SeasonsOutput, **errors(401, 404)},
        tags=["leagues"],
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id, player=_caller(request))
        return Response({"league": league_data(league), "seasons": selectors.league_seasons(league=league)})


class LeagueSeasonStartApi(APIView):
    @extend_schema(
        operation_id="leagues_season_start",
        summary="Start the next season",
        description="The owner, once the current season ended at the limit: the same members, fresh standings. "
                    "409 `season_running` while it is on.",
        request=SeasonActionInput,
        responses={200: SeasonsOutput, **errors(400, 401, 403, 404, 409, 429)},
        tags=["leagues"],
    )
    def post(self, request: Request, league_id: int) -> Response:
        validated(SeasonActionInput, request)
        services.season_start(league_id=league_id, by=request.user.player)
        league = selectors.league_get(league_id=league_id, player=request.user.player)
        return Response({"league": league_data(league), "seasons": selectors.league_seasons(league=league)})


class LeagueSeasonCloseApi(APIView):
    @extend_schema(
        operation_id="leagues_season_close",
        summary="Close the current season of a league without a limit",
        description="The owner; the season keeps its standings and the next one starts at once. 409 "
                    "`league_has_limit` for a league whose seasons end at a limit.",
        request=SeasonActionInput,
        responses={200: SeasonsOutput, **errors(400, 401, 403, 404, 409, 429)},
        tags=["leagues"],
    )
    def post(self, request: Request, league_id: int) -> Response:
        validated(SeasonActionInput, request)
        services.season_close(league_id=league_id, by=request.user.player)
        league = selectors.league_get(league_id=league_id, player=request.user.player)
        return Response({"league": league_data(league), "seasons": selectors.league_seasons(league=league)})


class LeagueSeasonStandingsApi(APIView):
    @extend_schema(
        operation_id="leagues_season_standings",
        summary="A season's standings, best first",
        description=STANDINGS_DESCRIPTION + " A past season's are its final standings.",
        responses={200: StandingsOutput, **errors(401, 404)},
        tags=["leagues"],
    )
    def get(self, request: Request, league_id: int, season: int) -> Response:
        league = selectors.league_get(league_id=league_id, player=_caller(request))
        return Response(_standings(league, selectors.season_or_404(league=league, season=season)))


def _csv(name: str, header: list[str], rows: list[list[Any]]) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows(rows)
    return response


CSV_RESPONSE = {(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV with a header row.")}


class LeagueSeasonRoundsCsvApi(APIView):
    renderer_classes = [*api_settings.DEFAULT_RENDERER_CLASSES, CsvRenderer]

    @extend_schema(
        operation_id="leagues_season_rounds_csv",
        summary="A season's rounds as CSV (one line per player and round)",
        responses={**CSV_RESPONSE, **errors(401, 404)},
        tags=["leagues"],
    )
    def get(self, request: Request, league_id: int, season: int) -> HttpResponse:
        league = selectors.league_get(league_id=league_id, player=_caller(request))
        number = selectors.season_or_404(league=league, season=season)
        rows = [
            [data["id"], data["origin"], data["status"], data["finished_at"].isoformat(), line["seat"],
             line["player"]["id"], line["player"]["name"], line["won"], line["cards_left"], line["raw_points"],
             line["multiplier"], line["points"], line["counted"]]
            for data in map(selectors.round_data, selectors.league_rounds(league=league, season=number))
            for line in data["players"]
        ]
        return _csv(f"league-{league.pk}-season-{number}-rounds.csv",
                    ["round", "origin", "status", "finished_at", "seat", "player", "name", "won", "cards_left",
                     "raw_points", "multiplier", "points", "counted"], rows)


class LeagueSeasonStandingsCsvApi(APIView):
    renderer_classes = [*api_settings.DEFAULT_RENDERER_CLASSES, CsvRenderer]

    @extend_schema(
        operation_id="leagues_season_standings_csv",
        summary="A season's standings as CSV",
        responses={**CSV_RESPONSE, **errors(401, 404)},
        tags=["leagues"],
    )
    def get(self, request: Request, league_id: int, season: int) -> HttpResponse:
        league = selectors.league_get(league_id=league_id, player=_caller(request))
        number = selectors.season_or_404(league=league, season=season)
        rows = [
            [line["position"], line["player"]["id"], line["player"]["name"], line["rounds"], line["wins"],
             line["points"], line["multiplier_bonus"], line["average_points"], line["best_round"], line["lost"],
             line["resigned"]]
            for line in selectors.league_standings(league=league, season=number)
        ]
        return _csv(f"league-{league.pk}-season-{number}-standings.csv",
                    ["position", "player", "name", "rounds", "wins", "points", "multiplier_bonus", "average_points",
                     "best_round", "lost", "resigned"], rows)


class LeagueRaceApi(APIView):
    @extend_schema(
        operation_id="leagues_race",
        summary="The season's race: each player's total after every counted round",
        description=(
            "One step per counted round (or confirmed correction), in the order they counted, with the totals of "
            "the players of that step; everyone else keeps their total. Read page by page: pass `next` as `after`."
        ),
        parameters=[
            query_number("season", "Season number (default: the current one).", minimum=1),
            query_number("after", "The last step already read (default 0)."),
            query_number("limit", f"Steps per page (default 500, at most {RACE_PAGE_MAX}).", minimum=1,
                         maximum=RACE_PAGE_MAX),
        ],
        responses={200: RaceOutput, **errors(400, 401, 404)},
        tags=["leagues"],
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id, player=_caller(request))
        season = query_int(request.query_params.get("season"), "season", league.season, minimum=1)
        selectors.season_or_404(league=league, season=season)
        after = query_int(request.query_params.get("after"), "after", 0)
        limit = query_int(request.query_params.get("limit"), "limit", 500, minimum=1, maximum=RACE_PAGE_MAX)
        return Response(selectors.league_race(league=league, season=season, after=after, limit=limit))


class LeagueRoundsApi(APIView):
    @extend_schema(
        operation_id="leagues_rounds",
        summary="A season's rounds, played and recorded, in ledger order",
        description="Each says whether it was played at the service's tables or recorded from real cards, and where "
                    "it stands (pending, counted, disputed, corrected ...).",
        parameters=[
            query_number("season", "Season number (default: the current one).", minimum=1),
            query_number("limit", "Page size (default 50).", minimum=1, maximum=ROUNDS_PAGE_MAX),
            query_number("offset", "Rows to skip (default 0)."),
        ],
        responses={200: RoundsOutput, **errors(400, 401, 404)},
        tags=["leagues"],
    )
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id, player=_caller(request))
        season = query_int(request.query_params.get("season"), "season", league.season, minimum=1)
        selectors.season_or_404(league=league, season=season)
        limit = query_int(request.query_params.get("limit"), "limit", 50, minimum=1, maximum=ROUNDS_PAGE_MAX)
        offset = query_int(request.query_params.get("offset"), "offset", 0)
        rounds = selectors.league_rounds(league=league, season=season)
        page = [selectors.round_data(round_result) for round_result in rounds[offset: offset + limit]]
        return Response({"count": rounds.count(), "results": page})

    @extend_schema(
        operation_id="leagues_rounds_record",
        summary="Record a round played with real cards on the league's sheet",
        description=(
            "A scorekeeper (the owner, or a member the owner named; 403 otherwise). The players in seat order, the "
            "winner, and for each other player the cards left in hand or (points scoring) the hand's value before "
            "the multiplier, and the extra jacks laid on the last card. Scored by the same code as played rounds "
            "and answered as the computed sheet. It counts in the league's standings and seasons once another "
            "player of the round confirms it (or at once where the league lets its scorekeeper alone), never in "
            "ratings. `corrects` replaces a counted recorded round of the current season once this one counts. "
            "400 for a card not in the league's deck or in two hands, a winner with cards, a non-member, fewer than "
            "two players ...; 409 when the season is over or the corrected round no longer counts."
        ),
        request=RoundRecordInput,
        examples=[OpenApiExample("House round", request_only=True, value={
            "players": [{"player": 11}, {"player": 12, "cards": ["10H", "QS"]}, {"player": 13, "points": 24}],
            "winner": 11, "extra_jacks": 1})],
        responses={201: RoundOutput, **errors(400, 401, 403, 404, 409, 429)},
        tags=["leagues"],
    )
    def post(self, request: Request, league_id: int) -> Response:
        data = validated(RoundRecordInput, request)
        lines = [services.SheetLine(player_id=line["player"], cards=line.get("cards"), points=line.get("points"))
                 for line in data["players"]]
        recorded = services.round_record(league_id=league_id, by=request.user.player, lines=lines,
                                         winner_id=data["winner"], extra_jacks=data["extra_jacks"],
                                         corrects=data["corrects"])
        return Response(selectors.round_data(selectors.league_round(round_id=recorded.pk)), status=201)


class LeagueRoundVerdictApi(APIView):
    kind = "confirm"

    def post(self, request: Request, league_id: int, round_id: int) -> Response:
        validated(SeasonActionInput, request)
        service = services.round_confirm if self.kind == "confirm" else services.round_dispute
        service(league_id=league_id, round_id=round_id, player=request.user.player)
        return Response(selectors.round_data(selectors.league_round(round_id=round_id)))


class LeagueRoundConfirmApi(LeagueRoundVerdictApi):
    kind = "confirm"

    @extend_schema(
        operation_id="leagues_rounds_confirm",
        summary="Confirm a pending recorded round: from now on it counts",
        description="Another player of the round than the scorekeeper who recorded it (403 otherwise); 409 once it "
                    "is not pending.",
        request=SeasonActionInput,
        responses={200: RoundOutput, **errors(400, 401, 403, 404, 409, 429)},
        tags=["leagues"],
    )
    def post(self, request: Request, league_id: int, round_id: int) -> Response:
        return super().post(request, league_id, round_id)


class LeagueRoundDisputeApi(LeagueRoundVerdictApi):
    kind = "dispute"

    @extend_schema(
        operation_id="leagues_rounds_dispute",
        summary="Dispute a pending recorded round: it never counts",
        description="Any player of the round (403 otherwise); 409 once it is not pending.",
        request=SeasonActionInput,
        responses={200: RoundOutput, **errors(400, 401, 403, 404, 409, 429)},
        tags=["leagues"],
    )
    def post(self, request: Request, league_id: int, round_id: int) -> Response:
        return super().post(request, league_id, round_id)


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
        history = selectors.player_history(player=player)
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
        return Response({"rules": rules, "people_only": people_only, "results": page, "next": following})


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
