"""Thin DRF views of league nights: members, seasons, the scoresheet, the race chart and a season's export."""

from __future__ import annotations

import io
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from maumau import database_retry
from maumau.errors import NotFoundError, ValidationFailed
from maumau.params import query_int
from maumau.schema import errors, query_number
from maumau.spreadsheets import SafeWriter
from maumau.strict import validated
from scoring import members, selectors, sheet
from scoring.serializers import (
    SHEET_PAGE_MAX,
    LeagueJoinInput,
    LeagueLeaveInput,
    LeagueOutput,
    LeagueRoundOutput,
    LeagueRoundsOutput,
    MemberLine,
    MemberRoleInput,
    MembersOutput,
    RaceOutput,
    RoundActionInput,
    RoundRecordInput,
    SeasonExportOutput,
    SeasonOutput,
    SeasonStartInput,
    SeasonsOutput,
    StandingsOutput,
    league_data,
)

#: Seasons are numbered from 1; a larger number than this names none (and stays inside the column).
SEASON_MAX = 1_000_000
ROUNDS_PAGE = 100
RACE_PAGE = 500
TAGS = ["leagues"]
SEASON_PARAM = query_number("season", "The season (default: the current one).", minimum=1, maximum=SEASON_MAX)
AFTER_PARAM = query_number("after", "The `next` of the page before (default 0: from the start).")


def _season(request: Request, league: Any) -> int:
    number = query_int(request.query_params.get("season"), "season", league.season, minimum=1, maximum=SEASON_MAX)
    if number > league.season:
        raise NotFoundError(details={"season": number})
    return number


def _round_data(round_id: int) -> dict[str, Any]:
    return selectors.league_round(round_id=round_id)


class LeagueJoinApi(APIView):
    @extend_schema(operation_id="leagues_join", summary="Join a league with its invite code",
                   description="Idempotent for a member. A wrong code: 403 `invite_code_wrong` (404 for a private "
                               "league). The invite link of the web client is `#/league/{id}/join/{code}`.",
                   request=LeagueJoinInput, examples=[OpenApiExample("Join", request_only=True,
                                                                     value={"code": "b6Qm1w3xkz9YtPAe"})],
                   responses={200: LeagueOutput, **errors(400, 401, 403, 404, 429)}, tags=TAGS)
    def post(self, request: Request, league_id: int) -> Response:
        data = validated(LeagueJoinInput, request)
        members.league_join(league_id=league_id, player=request.user.player, code=data["code"])
        return Response(database_retry.read_once_more(
            lambda: league_data(selectors.league_get(league_id=league_id, viewer=request.user.player))))


class LeagueLeaveApi(APIView):
    @extend_schema(operation_id="leagues_leave", summary="Leave a league",
                   description="The caller's past rounds and seasons stay. The owner cannot leave (409 "
                               "`owner_cannot_leave`).",
                   request=LeagueLeaveInput, examples=[OpenApiExample("Leave", request_only=True, value={})],
                   responses={204: None, **errors(400, 401, 403, 404, 409, 429)}, tags=TAGS)
    def post(self, request: Request, league_id: int) -> Response:
        validated(LeagueLeaveInput, request)
        members.league_leave(league_id=league_id, player=request.user.player)
        return Response(status=204)


class LeagueMembersApi(APIView):
    @extend_schema(operation_id="leagues_members", summary="A league's members and their roles",
                   responses={200: MembersOutput, **errors(401, 404)}, tags=TAGS)
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id, viewer=request.user.player)
        return Response({"results": members.members_of(league=league)})


class LeagueMemberApi(APIView):
    @extend_schema(operation_id="leagues_member_role", summary="Name a scorekeeper (or a member again)",
                   description="The owner only (403 `not_league_owner` for anyone else).",
                   request=MemberRoleInput,
                   examples=[OpenApiExample("Scorekeeper", request_only=True, value={"role": "scorekeeper"})],
                   responses={200: MemberLine, **errors(400, 401, 403, 404, 409, 429)}, tags=TAGS)
    def patch(self, request: Request, league_id: int, player_id: int) -> Response:
        data = validated(MemberRoleInput, request)
        row = members.member_role_set(league_id=league_id, player=request.user.player, member_id=player_id,
                                      role=data["role"])
        player = row.player
        return Response({"player": {"id": player.pk, "name": player.name, "bot": player.is_bot}, "role": row.role,
                         "joined_at": row.joined_at})


class LeagueSeasonsApi(APIView):
    @extend_schema(operation_id="leagues_seasons", summary="A league's seasons, oldest first",
                   description="Each with its loser (who reached the limit) and its counted rounds.",
                   responses={200: SeasonsOutput, **errors(401, 404)}, tags=TAGS)
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id, viewer=request.user.player)
        return Response({"results": selectors.league_seasons(league=league)})

    @extend_schema(operation_id="leagues_season_start", summary="Start the next season (owner)",
                   description="After a season ended at the limit (a league with `next_season: owner`), or "
                               "closing the current season of a league without a limit (409 `season_empty` "
                               "before its first counted round; 409 `season_running` with a limit).",
                   request=SeasonStartInput, examples=[OpenApiExample("Next season", request_only=True, value={})],
                   responses={201: SeasonOutput, **errors(400, 401, 403, 404, 409, 429)},
                   tags=TAGS)
    def post(self, request: Request, league_id: int) -> Response:
        validated(SeasonStartInput, request)
        season = sheet.season_next(league_id=league_id, player=request.user.player)
        return Response(selectors.season_data(season), status=201)


class LeagueSeasonStandingsApi(APIView):
    @extend_schema(operation_id="leagues_season_standings", summary="One season's standings, best first",
                   description="The same shape as the league's standings (the current season); a past season's "
                               "are its final standings.",
                   responses={200: StandingsOutput, **errors(401, 404)}, tags=TAGS)
    def get(self, request: Request, league_id: int, season_number: int) -> Response:
        number = season_number
        league = selectors.league_get(league_id=league_id, viewer=request.user.player)
        if not 1 <= number <= league.season:
            raise NotFoundError()
        return Response({"league": league_data(league), "season": number,
                         "standings": selectors.league_standings(league=league, season=number)})


class LeagueSeasonExportApi(APIView):
    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        """`format` is this endpoint's own parameter (csv or json), not DRF's renderer override."""
        renderer = JSONRenderer()
        return renderer, renderer.media_type

    @extend_schema(operation_id="leagues_season_export", summary="A season's rounds and standings (CSV or JSON)",
                   description="CSV: one row per player and round (played and recorded, with their status), "
                               "then one row per standing (`section` says which). A text cell that begins with "
                               "`=`, `+`, `-`, `@`, a tab or a carriage return (a name) is written with a leading "
                               "`'` so that a spreadsheet shows it as text (OWASP's rule for CSV injection). "
                               "Readable by anyone signed in for a public league (as its rounds and standings "
                               "are), by its members only for a private one (404 otherwise).",
                   parameters=[OpenApiParameter("format", str, enum=["json", "csv"],
                                                description="`json` (default) or `csv`.")],
                   responses={(200, "application/json"): SeasonExportOutput,
                              (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="With `format=csv`."),
                              **errors(400, 401, 404)}, tags=TAGS)
    def get(self, request: Request, league_id: int, season_number: int) -> Any:
        number = season_number
        kind = request.query_params.get("format", "json")
        if kind not in ("json", "csv"):
            raise ValidationFailed(details={"field": "format", "reason": "json or csv"})
        league = selectors.league_get(league_id=league_id, viewer=request.user.player)
        if not 1 <= number <= league.season:
            raise NotFoundError()
        season = selectors.season_data(selectors.season_get(league=league, number=number))
        standings = selectors.league_standings(league=league, season=number)
        rounds = selectors.league_rounds(league=league, season=number, after=0, limit=None)["results"]
        if kind == "json":
            return Response({"league": league.pk, "season": season, "standings": standings, "rounds": rounds})
        out = io.StringIO()
        writer = SafeWriter(out)
        writer.writerow(["section", "round", "source", "status", "corrects", "seat", "player", "name", "cards_left",
                         "raw_points", "multiplier", "points", "won", "position", "rounds", "wins",
                         "multiplier_bonus", "average_points", "biggest_round", "lost"])
        for r in rounds:
            for line in r["players"]:
                writer.writerow(["round", r["id"], r["source"], r["status"], r["corrects"] or "", line["seat"],
                                 line["player"]["id"], line["player"]["name"], line["cards_left"], line["raw_points"],
                                 r["multiplier"], line["points"], int(line["won"])] + [""] * 7)
        for row in standings:
            writer.writerow(["standing", "", "", "", "", "", row["player"]["id"], row["player"]["name"], "", "", "",
                             row["points"], "", row["position"], row["rounds"], row["wins"], row["multiplier_bonus"],
                             row["average_points"], row["biggest_round"], int(row["lost"])])
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="league-{league.pk}-season-{number}.csv"'
        return response


class LeagueRoundsApi(APIView):
    @extend_schema(operation_id="leagues_rounds", summary="A season's rounds, played and recorded",
                   description="In the order they were written, each with `source` (`played` or `recorded`) "
                               "and `status`; only `counted` rounds are in the standings. Played rounds carry `game`.",
                   parameters=[SEASON_PARAM, AFTER_PARAM,
                               query_number("limit", f"Page size (default {ROUNDS_PAGE}).", minimum=1,
                                            maximum=SHEET_PAGE_MAX)],
                   responses={200: LeagueRoundsOutput, **errors(400, 401, 404)}, tags=TAGS)
    def get(self, request: Request, league_id: int) -> Response:
        league = selectors.league_get(league_id=league_id, viewer=request.user.player)
        number = _season(request, league)
        after = query_int(request.query_params.get("after"), "after", 0)
        limit = query_int(request.query_params.get("limit"), "limit", ROUNDS_PAGE, minimum=1, maximum=SHEET_PAGE_MAX)
        return Response(selectors.league_rounds(league=league, season=number, after=after, limit=limit))

    @extend_schema(
        operation_id="leagues_round_record",
        summary="Record a round played with real cards (scorekeeper)",
        description=(
            "Players in seat order; for each one other than the winner either `cards` (left in hand, card codes "
            "of the league's deck) or `points` (the hand's value before any multiplier). Scored by the same code "
            "as played rounds (house: Q 3, K 4, A 10, J 20, joker 50, times 1 + `extra_jacks`). The hands must be "
            "possible for the deck: only the winner without cards (400 `empty_hand`), the points given at most what "
            "the cards nobody listed can be worth, one lying on the pile (400 `points_exceed_deck`, `details.max`). "
            "Pending until every player it scores (all but the winner; the recorder's own line aside) has confirmed "
            "it, unless the league "
            "has `scorekeeper_alone`. `corrects` names a recorded round this entry replaces once it counts; it "
            "needs the people scored by both entries. Only current members record (403 `not_scorekeeper`). "
            "Recorded rounds count in standings and seasons, never in ratings."
        ),
        request=RoundRecordInput,
        examples=[OpenApiExample("House round", request_only=True, value={
            "players": [{"player": 3, "cards": ["QH", "JS"]}, {"player": 4, "points": 23}, {"player": 5, "cards": []}],
            "winner": 5, "extra_jacks": 0})],
        responses={201: LeagueRoundOutput, **errors(400, 401, 403, 404, 409, 429)}, tags=TAGS)
    def post(self, request: Request, league_id: int) -> Response:
        data = validated(RoundRecordInput, request)
        lines = [sheet.SheetLine(player=line["player"], cards=line.get("cards"), points=line.get("points"))
                 for line in data["players"]]
        recorded = sheet.round_record(league_id=league_id, player=request.user.player, lines=lines,
                                      winner=data["winner"], extra_jacks=data["extra_jacks"],
                                      corrects=data["corrects"])
        return Response(database_retry.read_once_more(_round_data, recorded.pk), status=201)


class LeagueRoundConfirmApi(APIView):
    @extend_schema(operation_id="leagues_round_confirm", summary="Confirm a recorded round (another player of it)",
                   description="It counts once every player it scores, all but the winner (and, for a "
                               "correction, every player the corrected round scored) has confirmed it; until "
                               "then it stays `pending` with the confirmations so far and `waiting_for`. "
                               "403 `confirm_not_allowed` for its recorder or someone not in it; "
                               "403 `not_a_league_member` for one who left the league; "
                               "409 `already_confirmed` (`details.waiting_for`: who has not yet) for a second "
                               "confirmation; 409 `round_not_pending` once it counts, was disputed or corrected, "
                               "or its season ended; 409 `correction_stale` when the entry it corrects no longer "
                               "stands.",
                   request=RoundActionInput, examples=[OpenApiExample("Empty body", request_only=True, value={})],
                   responses={200: LeagueRoundOutput, **errors(400, 401, 403, 404, 409, 429)},
                   tags=TAGS)
    def post(self, request: Request, league_id: int, round_id: int) -> Response:
        validated(RoundActionInput, request)
        sheet.round_confirm(league_id=league_id, round_id=round_id, player=request.user.player)
        return Response(database_retry.read_once_more(_round_data, round_id))


class LeagueRoundDisputeApi(APIView):
    @extend_schema(operation_id="leagues_round_dispute", summary="Dispute a recorded round (a player of it)",
                   description="By a player of it before it counts: a disputed round never counts. After it "
                               "counted, by a player it scores who did not confirm it (the scorekeeper "
                               "counted it alone), until its season ends: it leaves the standings (a step of the "
                               "race) and the entry it corrected, if any, stands again as it stood. 403 "
                               "`confirm_not_allowed` for someone not in it; 403 `not_a_league_member` for one who "
                               "left the league; 409 `round_not_pending` otherwise.",
                   request=RoundActionInput, examples=[OpenApiExample("Empty body", request_only=True, value={})],
                   responses={200: LeagueRoundOutput, **errors(400, 401, 403, 404, 409, 429)},
                   tags=TAGS)
    def post(self, request: Request, league_id: int, round_id: int) -> Response:
        validated(RoundActionInput, request)
        sheet.round_dispute(league_id=league_id, round_id=round_id, player=request.user.player)
        return Response(database_retry.read_once_more(_round_data, round_id))


class LeagueRaceApi(APIView):
    @extend_schema(operation_id="leagues_race", summary="The race: every player's points after each counted round",
                   description="One step per counted round (or correction) of the season, in order; `totals` maps "
                               "player ids to points. A fixed number of queries whatever the season's length.",
                   parameters=[SEASON_PARAM, AFTER_PARAM,
                               query_number("limit", f"Page size (default {RACE_PAGE}).", minimum=1,
                                            maximum=SHEET_PAGE_MAX)],
                   responses={200: RaceOutput, **errors(400, 401, 404)}, tags=TAGS)
    def get(self, request: Request, league_id: int) -> Response:
        number = query_int(request.query_params.get("season"), "season", 0, minimum=1, maximum=SEASON_MAX)
        after = query_int(request.query_params.get("after"), "after", 0)
        limit = query_int(request.query_params.get("limit"), "limit", RACE_PAGE, minimum=1, maximum=SHEET_PAGE_MAX)
        league = selectors.league_get(league_id=league_id, viewer=request.user.player, race_season=number)
        if number > league.season:
            raise NotFoundError(details={"season": number})
        return Response(selectors.league_race(league=league, season=number or league.season, after=after,
                                              limit=limit))
