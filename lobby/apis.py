"""Thin DRF views of the lobby: seeks, challenges, table chat and mutes."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.models import Player
from games.serializers import RULE_SETS
from lobby import selectors, services
from lobby.serializers import (
    ChallengeCreateSerializer,
    ChallengeSerializer,
    MessageCreateSerializer,
    MessageSerializer,
    MuteSerializer,
    SeekCreateSerializer,
    SeekSerializer,
)
from maumau import database_retry
from maumau.errors import ValidationFailed
from maumau.params import query_bool, query_int
from maumau.schema import LEAGUE_MEMBERS_ONLY, errors, query_number
from maumau.strict import validated


def _caller(request: Request) -> Player:
    return request.user.player


def _example(name: str, value: dict[str, Any], description: str = "") -> OpenApiExample:
    return OpenApiExample(name, value=value, description=description, request_only=True)


class SeekListCreateApi(APIView):
    @extend_schema(
        summary="The lobby: open seeks (or the caller's)",
        description="Oldest first, at most `MAUMAU_SEEKS_PER_PLAYER` (3) seeks of one player per page; the "
                    "next page starts `after` the last id shown. Expired seeks are never listed.",
        parameters=[OpenApiParameter("rules", str, enum=RULE_SETS),
                    OpenApiParameter("mine", bool, description="The caller's seeks, whatever their status "
                                                               "(`true` or `false`)."),
                    query_number("after", "Only seeks after this id (the next page)."),
                    query_number("limit", f"At most this many seeks (1 to {selectors.SEEKS_PAGE}).", minimum=1,
                                 maximum=selectors.SEEKS_PAGE)],
        responses={200: SeekSerializer(many=True), **errors(400, 401)},
    )
    def get(self, request: Request) -> Response:
        rules = request.query_params.get("rules")
        if rules is not None and rules not in RULE_SETS:
            raise ValidationFailed(details={"field": "rules"})
        player = _caller(request)
        mine = query_bool(request.query_params.get("mine"), "mine")
        after = query_int(request.query_params.get("after"), "after", 0)
        limit = query_int(request.query_params.get("limit"), "limit", selectors.SEEKS_PAGE, minimum=1,
                          maximum=selectors.SEEKS_PAGE)
        seeks = selectors.seek_list(rules=rules, mine=player if mine else None, after=after, limit=limit)
        return Response([selectors.seek_data(s, player) for s in seeks])

    @extend_schema(
        summary="Quick play: seek a game",
        description="Wait for others seeking the same rules, options, seat count and league: when enough have "
                    "come a table and its first round start, and every seeker gets `game_started` on "
                    "`/me/stream` and webhooks. `fill_with_bots_after` gives the seats still free to bots after "
                    "that many seconds. 409 `already_seeking` for a second open seek of the same game, "
                    "`too_many_seeks` beyond `MAUMAU_SEEKS_PER_PLAYER` (3) open seeks. A seek that waits for "
                    "people only expires after `MAUMAU_SEEK_EXPIRES_SECONDS` (30 min).",
        request=SeekCreateSerializer,
        responses={201: SeekSerializer, **errors(400, 401, 404, 409, 429, also={403: LEAGUE_MEMBERS_ONLY})},
        examples=[_example("Two-player classic", {"rules": "classic", "players": 2}),
                  _example("House for four, 60 s a turn, bots after a minute",
                           {"rules": "house", "players": 4, "turn_seconds": 60, "fill_with_bots_after": 60})],
    )
    def post(self, request: Request) -> Response:
        data = validated(SeekCreateSerializer, request)
        options = dict(data.get("options") or {})
        if "turn_seconds" in data:
            options["turn_seconds"] = data["turn_seconds"]
        seek = services.seek_create(player=_caller(request), rules=data["rules"], players=data["players"],
                                    options=options, league_id=data.get("league"),
                                    fill_with_bots_after=data.get("fill_with_bots_after"))
        return Response(database_retry.read_once_more(
            lambda: selectors.seek_data(selectors.seek_get(seek_id=seek.pk), _caller(request))),
                        status=status.HTTP_201_CREATED)


class SeekDetailApi(APIView):
    @extend_schema(summary="One seek (its table and game once matched, for its player)",
                   responses={200: SeekSerializer, **errors(401, 404)})
    def get(self, request: Request, seek_id: int) -> Response:
        seek = selectors.seek_get(seek_id=seek_id)
        if seek.status == "open" and seek.fill_at is not None:
            services.seeks_fill_due(pools=[seek.pool])  # the beat task's job, done at once when due
            seek = selectors.seek_get(seek_id=seek_id)
        return Response(selectors.seek_data(seek, _caller(request)))

    @extend_schema(summary="Cancel a seek", responses={204: None, **errors(401, 404, 409, 429)},
                   description="404 for another player's seek; 409 once it was matched.")
    def delete(self, request: Request, seek_id: int) -> Response:
        services.seek_cancel(player=_caller(request), seek_id=seek_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChallengeListCreateApi(APIView):
    @extend_schema(summary="The caller's challenges, sent and received",
                   responses={200: ChallengeSerializer(many=True), **errors(401)})
    def get(self, request: Request) -> Response:
        return Response([selectors.challenge_data(c) for c in selectors.challenge_list(player=_caller(request))])

    @extend_schema(
        summary="Challenge named players to a new table",
        description="Invitees by player id (`to`) or username (`to_usernames`, 404 naming the unknown ones), "
                    "at least one. Each invited player gets `challenge_received`; when all accepted, the table "
                    "(the challenger hosts, private by default) and its first round start and everyone gets "
                    "`game_started`. One "
                    "decline ends it; unanswered it expires after `expires_in` seconds. 409 `already_challenged` "
                    "while a challenge of the caller to one of these players is pending, `too_many_challenges` "
                    "beyond `MAUMAU_CHALLENGES_PER_PLAYER` (10) pending challenges.",
        request=ChallengeCreateSerializer,
        responses={201: ChallengeSerializer, **errors(400, 401, 404, 409, 429)},
        examples=[_example("A game of house with two friends", {"to": [2, 3], "rules": "house"}),
                  _example("A friend by username", {"to_usernames": ["ada"], "rules": "classic",
                                                    "options": {"turn_seconds": 60}}),
                  _example("Classic, public, an hour to answer", {"to": [2], "rules": "classic",
                                                                  "visibility": "public", "expires_in": 3600})],
    )
    def post(self, request: Request) -> Response:
        data = validated(ChallengeCreateSerializer, request)
        player = _caller(request)
        challenge = services.challenge_create(challenger=player, to=data["to"], rules=data["rules"],
                                              options=data.get("options"), max_players=data.get("max_players"),
                                              visibility=data["visibility"], expires_in=data["expires_in"],
                                              to_usernames=data["to_usernames"])
        return Response(database_retry.read_once_more(
            lambda: selectors.challenge_data(selectors.challenge_get(challenge_id=challenge.pk, player=player))),
                        status=status.HTTP_201_CREATED)


class ChallengeDetailApi(APIView):
    @extend_schema(summary="One challenge (its parties only)", responses={200: ChallengeSerializer, **errors(401, 404)})
    def get(self, request: Request, challenge_id: int) -> Response:
        return Response(selectors.challenge_data(selectors.challenge_get(challenge_id=challenge_id,
                                                                         player=_caller(request))))

    @extend_schema(summary="Cancel a challenge (the challenger)", responses={204: None, **errors(401, 403, 404, 409)})
    def delete(self, request: Request, challenge_id: int) -> Response:
        services.challenge_cancel(player=_caller(request), challenge_id=challenge_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChallengeAcceptApi(APIView):
    accept = True

    @extend_schema(summary="Accept a challenge", request=None,
                   responses={200: ChallengeSerializer, **errors(401, 403, 404, 409, 429)},
                   description="The last accept starts the table and its first round.")
    def post(self, request: Request, challenge_id: int) -> Response:
        player = _caller(request)
        services.challenge_answer(player=player, challenge_id=challenge_id, accept=self.accept)
        return Response(database_retry.read_once_more(
            lambda: selectors.challenge_data(selectors.challenge_get(challenge_id=challenge_id, player=player))))


class ChallengeDeclineApi(ChallengeAcceptApi):
    accept = False

    @extend_schema(summary="Decline a challenge", request=None,
                   responses={200: ChallengeSerializer, **errors(401, 403, 404, 409, 429)},
                   description="One decline ends the challenge; its parties are told.")
    def post(self, request: Request, challenge_id: int) -> Response:
        return super().post(request, challenge_id)


class TableMessagesApi(APIView):
    @extend_schema(
        summary="The table's chat",
        description="Players read the players' chat; spectators read it and the spectators' chat.",
        parameters=[query_number("after", "Only messages after this id.")],
        responses={200: MessageSerializer(many=True), **errors(400, 401, 403, 404)},
    )
    def get(self, request: Request, table_id: int) -> Response:
        after = query_int(request.query_params.get("after"), "after", 0)
        table, spectator = selectors.chat_role(table_id=table_id, player=_caller(request))
        return Response(selectors.messages_for(table=table, spectator=spectator, after=after))

    @extend_schema(
        summary="Say something at the table",
        description="At most 500 characters on one line, no control, format or line/paragraph separator "
                    "characters; `MAUMAU_CHAT_RATE` (5) lines per `MAUMAU_CHAT_WINDOW_SECONDS` (10 s) per "
                    "player and table (429 with `retry_after` beyond). A "
                    "seated player's message goes to the players, a spectator's to the spectators. It arrives as "
                    "`event: message` on the game stream. 403 when the host muted you.",
        request=MessageCreateSerializer,
        responses={201: MessageSerializer, **errors(400, 401, 403, 404, 429)},
        examples=[_example("A greeting", {"text": "Viel Glück!"})],
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = validated(MessageCreateSerializer, request)
        player = _caller(request)
        table, spectator = selectors.chat_role(table_id=table_id, player=player)
        message = services.message_post(table=table, player=player, text=data["text"], spectator=spectator)
        return Response(selectors.message_data(message), status=status.HTTP_201_CREATED)


class TableMuteApi(APIView):
    @extend_schema(summary="Mute or unmute a player's chat at the table (host only)", request=MuteSerializer,
                   responses={204: None, **errors(400, 401, 403, 404, 429)},
                   examples=[_example("Mute", {"player": 2}), _example("Unmute", {"player": 2, "muted": False})])
    def post(self, request: Request, table_id: int) -> Response:
        data = validated(MuteSerializer, request)
        player = _caller(request)
        selectors.chat_role(table_id=table_id, player=player)  # 404 for a private table's outsiders
        services.mute_set(table_id=table_id, host=player, player_id=data["player"], muted=data["muted"])
        return Response(status=status.HTTP_204_NO_CONTENT)


