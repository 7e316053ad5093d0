"""Thin DRF views: parse and validate, call one service or selector, render."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import engine, ledger, selectors
from games.models import Player
from games.serializers import (
    ACTION_SCHEMA,
    BotAddSerializer,
    EntropySerializer,
    FairnessSerializer,
    GameViewSerializer,
    LedgerSerializer,
    MeSerializer,
    MoveResultSerializer,
    RoundStartSerializer,
    TableCreateSerializer,
    TableJoinSerializer,
    TableSerializer,
)
from maumau import database_retry
from maumau.errors import DomainError, IllegalMoveError, PermissionDeniedError, ValidationFailed, error_body
from maumau.params import QUERY_INT_MAX, query_bool, query_int
from maumau.renderers import FastJSONRenderer
from maumau.schema import ETAG, IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED, LEAGUE_MEMBERS_ONLY, errors, query_number
from maumau.strict import validated
from play import clocks, services
from scoring import selectors as scoring_selectors


def example(name: str, value: dict[str, Any], description: str = "") -> OpenApiExample:
    """A request body shown in the schema (Swagger UI offers it as the body to send)."""
    return OpenApiExample(name, value=value, description=description, request_only=True)


ACTION_EXAMPLES = [
    example("Play a card", {"type": "play", "cards": ["10H"], "expected_version": 3}),
    example("Play a jack and wish a suit", {"type": "play", "cards": ["JS"], "wish": "D"},
            "Suits: C clubs, S spades, H hearts, D diamonds."),
    example("Play a joker as a card (house)", {"type": "play", "cards": ["X2"], "as": {"X2": "7S"}, "say": ["pik"]}),
    example("Ace with its cover (house)", {"type": "play", "cards": ["AS", "5S"], "say": ["pik"]}),
    example("Queen of hearts: swap hands with seat 2 (house)", {"type": "play", "cards": ["QH"], "target": 2}),
    example("Last card with a final jack (house)", {"type": "play", "cards": ["9C", "JC"], "wish": "C",
                                                    "say": ["maumau"]}),
    example("Draw", {"type": "draw"}, "One card, or the whole open penalty of 7s."),
    example("Keep the drawn card", {"type": "pass"}),
    example("Say Hermann (house, after KD)", {"type": "say", "word": "hermann"}),
    example("Resign the round", {"type": "resign"}, "You rank last; in house you score your hand's points."),
]


def caller(request: Request) -> Player:
    return request.user.player


class MeApi(APIView):
    @extend_schema(summary="The caller: their tables and leagues", responses={200: MeSerializer, **errors(401)})
    def get(self, request: Request) -> Response:
        return Response(selectors.player_me(player=caller(request)))


class TableListCreateApi(APIView):
    @extend_schema(
        summary="List tables (open ones by default)",
        parameters=[
            OpenApiParameter("status", str, enum=["open", "playing", "closed", "any"],
                             description="Default: open tables."),
            OpenApiParameter("mine", bool, description="Only tables where the caller sits (`true` or `false`)."),
        ],
        responses={200: TableSerializer(many=True), **errors(400, 401)},
    )
    def get(self, request: Request) -> Response:
        wanted = request.query_params.get("status", "open")
        if wanted not in ("open", "playing", "closed", "any"):
            raise ValidationFailed(details={"field": "status"})
        mine = query_bool(request.query_params.get("mine"), "mine")
        player = caller(request)
        tables = selectors.table_list(status=None if wanted == "any" else wanted,
                                      player=player if mine else None, viewer=player)
        return Response([selectors.table_data(t, player) for t in tables])

    @extend_schema(
        summary="Open a table (the caller takes seat 0 and hosts it)",
        description="`options` overrides the preset's options (see the project's rules page); "
                    "`league` feeds the table's finished rounds into a league of the same rules.",
        request=TableCreateSerializer,
        responses={201: TableSerializer, **errors(400, 401, 404, 409, 429, also={403: LEAGUE_MEMBERS_ONLY})},
        examples=[
            example("Classic", {"rules": "classic"}),
            example("Tavern for up to four, 30 s a turn", {"rules": "tavern", "max_players": 4,
                                                            "options": {"turn_seconds": 30}}),
            example("House in a league, no clock", {"rules": "house", "league": 1,
                                                     "options": {"turn_seconds": 0}}),
            example("Private (join with the invite code)", {"rules": "classic", "visibility": "private"}),
            example("Public, watched 3 moves behind", {"rules": "house", "spectator_delay": 3}),
        ],
    )
    def post(self, request: Request) -> Response:
        data = validated(TableCreateSerializer, request)
        player = caller(request)
        table = services.table_create(host=player, rules=data["rules"], options=data.get("options"),
                                      max_players=data.get("max_players"), league_id=data.get("league"),
                                      visibility=data["visibility"], spectators=data["spectators"],
                                      spectator_delay=data["spectator_delay"])
        return Response(_table_answer(table.pk, player), status=status.HTTP_201_CREATED)


TABLE_INVITE_CODE = OpenApiParameter(
    "invite_code", {"type": "string", "maxLength": 32},
    description="An invitee's code (from the invitation link): shows a private table to whoever holds it, "
                "so they can see the host and the seats before taking one (`POST tables/{id}/join` with the "
                "same code). A wrong code is a 404, as for a table that does not exist.")


class TableDetailApi(APIView):
    @extend_schema(summary="One table", parameters=[TABLE_INVITE_CODE],
                   responses={200: TableSerializer, **errors(400, 401, 404)},
                   description="A private table is shown only to those who have a seat at it, and to an invitee "
                               "who sends its `invite_code`. A person whose seat a bot plays after timeouts "
                               "takes it back by this request.")
    def get(self, request: Request, table_id: int) -> Response:
        player = caller(request)
        table = selectors.table_get(table_id=table_id, viewer=player, invite_code=_invite_code(request))
        if any(s.player_id == player.pk and s.bot_controlled and not s.left for s in table.seats.all()):
            services.seat_reclaim(table_id=table_id, player=player)
            table = selectors.table_get(table_id=table_id, viewer=player)
        return Response(selectors.table_data(table, player))


def _table_answer(table_id: int, player: Player) -> dict[str, Any]:
    """A table write's answer, read after its commit (``database_retry.read_once_more``)."""
    return database_retry.read_once_more(
        lambda: selectors.table_data(selectors.table_get(table_id=table_id, viewer=player), player))


def _round_answer(game_id: int, player: Player) -> dict[str, Any]:
    """A started round's answer, read after its commit (``database_retry.read_once_more``)."""
    def read() -> dict[str, Any]:
        game, seats, viewer = selectors.game_for_player(game_id=game_id, player=player)
        return selectors.game_view_for_player(game=game, seats=seats, viewer=viewer)
    return database_retry.read_once_more(read)


class TableReclaimApi(APIView):
    @extend_schema(summary="Take your seat back from the bot that stood in for you", request=None,
                   description="Any request of yours to the table or its round does the same; this one says so.",
                   responses={200: TableSerializer, **errors(401, 403, 404, 429)})
    def post(self, request: Request, table_id: int) -> Response:
        player = caller(request)
        table = selectors.table_get(table_id=table_id, viewer=player)
        if not any(s.player_id == player.pk and not s.left for s in table.seats.all()):
            raise PermissionDeniedError(message=_("You are not seated at this table."))
        services.seat_reclaim(table_id=table_id, player=player)
        return Response(_table_answer(table_id, player))


class TableJoinApi(APIView):
    @extend_schema(summary="Take a free seat", request=TableJoinSerializer,
                   description="`entropy` (optional) is mixed into the next fair deal, as `POST .../entropy` does. "
                               "A private table needs its `invite_code` (404 without: it is not shown to you).",
                   responses={200: TableSerializer,
                              **errors(400, 401, 404, 409, 429, also={403: LEAGUE_MEMBERS_ONLY})},
                   examples=[example("Just a seat", {}), example("A seat and entropy", {"entropy": "d1c3-r0ll-7"}),
                             example("A private table", {"invite_code": "q3LxV0Ab7xYk9mQe"})])
    def post(self, request: Request, table_id: int) -> Response:
        data = validated(TableJoinSerializer, request)
        player = caller(request)
        services.table_join(table_id=table_id, player=player, entropy=data.get("entropy"),
                            invite_code=data.get("invite_code"))
        return Response(_table_answer(table_id, player))


class TableEntropyApi(APIView):
    @extend_schema(
        summary="Give your entropy for the next fair round",
        description="Mixed into the next fair deal with the server seed committed in the table's "
                    "`next_commitment` (set it after seeing that, and after the last seat was taken); "
                    "a round uses it up. A seat without entropy mixes in its server nonce.",
        request=EntropySerializer,
        responses={200: TableSerializer, **errors(400, 401, 403, 404, 409, 429)},
        examples=[example("Entropy", {"entropy": "4f1b2c9a0e7d"})],
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = validated(EntropySerializer, request)
        services.seat_entropy_set(table_id=table_id, player=caller(request), entropy=data["entropy"])
        return Response(_table_answer(table_id, caller(request)))


class TableLeaveApi(APIView):
    @extend_schema(summary="Leave the table (a running round plays the seat by bot)", request=None,
                   responses={200: TableSerializer, **errors(401, 403, 404, 429)})
    def post(self, request: Request, table_id: int) -> Response:
        services.table_leave(table_id=table_id, player=caller(request))
        return Response(_table_answer(table_id, caller(request)))


class TableBotApi(APIView):
    @extend_schema(summary="Seat a bot (host only)", request=BotAddSerializer,
                   responses={201: TableSerializer,
                              **errors(400, 401, 404, 409, 429, also={403: LEAGUE_MEMBERS_ONLY})},
                   description="Levels, weakest first: `easy` plays like a beginner (four plays in five a "
                               "fitting card at random, but it goes out when it can), `medium` plays like a "
                               "sensible person, `hard` searches (determinized Monte Carlo over the engine) and "
                               "moves from a background "
                               "task just after the request that gave it the turn. `random` plays any legal "
                               "action (its rounds are never rated). The first names `basic` and `strong` are "
                               "still accepted for `medium` and `hard`; the bot is seated under the new name.",
                   examples=[example("The medium bot", {"level": "medium"}),
                             example("The easy bot", {"level": "easy"}),
                             example("The hard bot", {"level": "hard"}),
                             example("The random bot", {"level": "random"})])
    def post(self, request: Request, table_id: int) -> Response:
        data = validated(BotAddSerializer, request)
        services.table_bot_add(table_id=table_id, player=caller(request), level=data["level"])
        return Response(_table_answer(table_id, caller(request)), status=status.HTTP_201_CREATED)


class RoundStartApi(APIView):
    @extend_schema(
        summary="Start a round (host only)",
        description="Without a body the round is dealt fairly: from the server seed the table committed to "
                    "(`next_commitment`) and every seat's entropy. `seed` or `setup` make a practice round, "
                    "never counted and refused at a league table (409): `setup` gives every hand, the starter "
                    "and the stock (top first).",
        request=RoundStartSerializer,
        responses={201: GameViewSerializer, **errors(400, 401, 403, 404, 409, 429)},
        examples=[
            example("A shuffled deal", {}),
            example("A practice deal from a seed", {"seed": 42}),
            example("A fixed deal for two at classic (practice)", {"setup": {
                "hands": [["KH", "7S", "JS", "8C", "AD"], ["KS", "7D", "10S", "QH", "9C"]],
                "starter": "9H",
                "stock": ["7C", "10C", "JC", "QC", "KC", "AC", "8S", "9S", "QS", "AS", "7H", "8H", "10H", "JH",
                          "AH", "8D", "9D", "10D", "JD", "QD", "KD"],
                "first": 0}}, "Every card of the table's deck exactly once: hands, starter, stock (top first)."),
        ],
    )
    def post(self, request: Request, table_id: int) -> Response:
        data = validated(RoundStartSerializer, request)
        player = caller(request)
        game = services.round_start(table_id=table_id, player=player, seed=data.get("seed"), setup=data.get("setup"))
        return Response(_round_answer(game.pk, player), status=status.HTTP_201_CREATED)


INVITE_CODE = OpenApiParameter(
    "invite_code", {"type": "string", "maxLength": 32},
    description="A spectator of a table that takes invited spectators only: the table's invite code.")


def _invite_code(request: Request) -> str | None:
    code = request.query_params.get("invite_code")
    if code is not None and len(code) > 32:
        raise ValidationFailed(details={"field": "invite_code", "reason": "at most 32 characters"})
    return code


class GameDetailApi(APIView):
    renderer_classes = [FastJSONRenderer]

    @extend_schema(
        summary="The caller's view of a round, with their legal actions",
        description="A spectator of a public table gets the view of no seat (no `hand`, no `legal_actions`), "
                    "the table's `spectator_delay` moves behind. A person whose seat a bot plays after "
                    "timeouts takes it back by this request.",
        parameters=[OpenApiParameter("If-None-Match", str, OpenApiParameter.HEADER,
                                     description="The ETag of an earlier answer: 304 if nothing changed."),
                    ETAG, INVITE_CODE],
        responses={200: GameViewSerializer, 304: OpenApiResponse(description="Not modified."),
                   **errors(400, 401, 403, 404)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        query_int(request.query_params.get("after"), "after")  # the long-poll's (live.views); bounded alike
        player = caller(request)
        game, table_seats = selectors.game_with_seats(game_id=game_id)
        mine = next((s for s in table_seats if s.player_id == player.pk and s.position in game.positions), None)
        reclaim = mine is not None and mine.bot_controlled and not mine.left and game.status == "active"
        if reclaim:
            services.seat_reclaim(table_id=game.table_id, player=player)
        if clocks.deadline_passed(game):  # resolved before answering; the row read tells, no extra query
            clocks.clocks_resolve_due(game_id=game_id)
        if reclaim or clocks.deadline_passed(game):
            game, table_seats = selectors.game_with_seats(game_id=game_id)
        game, seats, viewer = selectors.seats_for_watcher(game, table_seats, player=player,
                                                          invite_code=_invite_code(request))
        etag = selectors.game_etag(game=game, viewer=viewer, player=player)

        # Compressed answers carry the weak form of the ETag (W/"..."): the same version for If-None-Match.
        if etag in {t.strip().removeprefix("W/") for t in request.headers.get("If-None-Match", "").split(",")}:
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag})
        view = selectors.game_view_for_player(game=game, seats=seats, viewer=viewer)
        view = scoring_selectors.view_with_rating_changes(view)
        return Response(view, headers={"ETag": etag})


def _render_move(outcome: services.MoveOutcome) -> dict[str, Any]:
    """The answer to a move: the caller's view of the round and the events of what was appended."""
    game, viewer = outcome.game, outcome.seat
    reveal = game.status == "finished" and viewer is not None
    view = selectors.game_view(game, outcome.state, outcome.seats, viewer)
    view["events"] = [e for m in outcome.moves for e in engine.redact_events(m.events, viewer, reveal=reveal)]
    return scoring_selectors.view_with_rating_changes(view)


@dataclass
class MoveAnswer:
    """The status and body a move request gets; ``refusal`` is raised once its transaction committed."""

    status_code: int
    body: dict[str, Any]
    refusal: DomainError | None = None
    replayed: bool = False


@database_retry.written_once_more
def _move_answered(*, game_id: int, player: Player, action: dict[str, Any], expected_version: int | None = None,
                   key: str | None = None, fingerprint: str = "") -> MoveAnswer:
    """One transaction: the answer stored for ``key``, or the move and its rendered answer, stored for
    ``key``. A refusal is answered after the commit: what the move appended before it (timeouts, a
    house penalty card) stays, and a refused play whose penalty was written is stored and replayed too."""
    if key is not None:
        stored = services.idempotent_answer(player=player, key=key, fingerprint=fingerprint)
        if stored is not None:
            return MoveAnswer(stored.status_code, stored.body, replayed=True)
    try:
        outcome = services.move_submit(game_id=game_id, actor="player", player=player, action=action,
                                       expected_version=expected_version)
    except DomainError as refusal:
        answer = MoveAnswer(refusal.status, error_body(refusal.code, refusal.message, refusal.details), refusal)
        if key is not None and isinstance(refusal, IllegalMoveError):
            services.idempotent_answer_store(player=player, key=key, fingerprint=fingerprint,
                                             status_code=answer.status_code, body=answer.body)
        return answer
    answer = MoveAnswer(200, _render_move(outcome))
    if key is not None:
        services.idempotent_answer_store(player=player, key=key, fingerprint=fingerprint,
                                         status_code=answer.status_code, body=answer.body)
    return answer


def _move_response(answer: MoveAnswer) -> Response:
    if answer.refusal is not None:
        raise answer.refusal
    headers = {"Idempotent-Replayed": "true"} if answer.replayed else {}
    return Response(answer.body, status=answer.status_code, headers=headers)


class GameActionApi(APIView):
    renderer_classes = [FastJSONRenderer]

    @extend_schema(
        summary="Play, draw, pass or say a word",
        description="Each of the caller's `legal_actions` can be sent as it is. The answer is the new view "
                    "and the events of this action and of the bots that answered it.",
        request={"application/json": ACTION_SCHEMA},
        examples=ACTION_EXAMPLES,
        parameters=[IDEMPOTENCY_KEY, IDEMPOTENT_REPLAYED],
        responses={200: MoveResultSerializer, **errors(400, 401, 403, 404, 409, 422, 429)},
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = request.data
        if not isinstance(data, dict):
            raise ValidationFailed(details={"reason": "an action must be a JSON object"})
        action = dict(data)
        expected_version = action.pop("expected_version", None)
        if expected_version is not None and (type(expected_version) is not int
                                             or not 0 <= expected_version <= QUERY_INT_MAX):
            raise ValidationFailed(details={"field": "expected_version",
                                            "reason": f"a whole number from 0 to {QUERY_INT_MAX}"})
        key = request.headers.get("Idempotency-Key") or None
        if key is not None and len(key) > 255:
            raise ValidationFailed(details={"field": "Idempotency-Key", "reason": "at most 255 characters"})
        fingerprint = "" if key is None else hashlib.sha256(  # only a key's replay compares it
            f"{request.method} {request.path}\n{ledger.canonical_json(data)}".encode()
        ).hexdigest()
        return _move_response(_move_answered(game_id=game_id, player=caller(request), action=action,
                                             expected_version=expected_version, key=key, fingerprint=fingerprint))


class GameEventsApi(APIView):
    @extend_schema(
        summary="The round's ledger as the caller may see it",
        parameters=[
            query_number("after", "Only rows with seq greater than this (default 0)."),
            query_number("limit", "At most this many rows (default 500).", minimum=1,
                         maximum=selectors.EVENTS_PAGE_MAX),
            INVITE_CODE,
        ],
        responses={200: LedgerSerializer, **errors(400, 401, 403, 404)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        after = query_int(request.query_params.get("after"), "after", 0)
        limit = query_int(request.query_params.get("limit"), "limit", 500, minimum=1,
                          maximum=selectors.EVENTS_PAGE_MAX)
        game, _seats, viewer = selectors.game_for_watcher(game_id=game_id, player=caller(request),
                                                          invite_code=_invite_code(request))
        return Response(selectors.events_for_player(game=game, viewer=viewer, after=after, limit=limit))


class GameAbortApi(APIView):
    @extend_schema(
        summary="Abort a practice round before its first move (host only)",
        description="The round ends unscored (`reason: aborted`) and is never counted; the ledger records it. "
                    "Only a practice round (a chosen seed or setup): a fairly dealt round is never aborted "
                    "(409 `fair_round`; the host has seen their hand, so it would be a free re-deal), it is "
                    "played or resigned. 409 once a move was made (a bot's or the clock's included).",
        request=None,
        responses={200: MoveResultSerializer, **errors(401, 403, 404, 409, 429)},
    )
    def post(self, request: Request, game_id: int) -> Response:
        return _move_response(_move_answered(game_id=game_id, player=caller(request), action={"type": "abort"}))


class GameFairnessApi(APIView):
    @extend_schema(
        summary="Check the round's deal: commitment, deal seed and every ledger row",
        description="For the round's players once it is over (404 for anyone else, 409 while it runs): the "
                    "revealed server seed, the entropy of every seat, the deal seed and the deal, and whether "
                    "the seed matches the commitment and the ledger replays from that deal.",
        responses={200: FairnessSerializer, **errors(401, 404, 409)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        return Response(selectors.fairness_for_player(game_id=game_id, player=caller(request)))
