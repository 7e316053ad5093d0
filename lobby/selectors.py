"""Read paths of the lobby: seeks, challenges and table chat as a caller may see them."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import F, Q, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from games.models import Game, Player, Seat, Table
from lobby.models import Challenge, Seek, TableMessage
from maumau.errors import NotFoundError, PermissionDeniedError

MESSAGES_PAGE = 200
#: Open seeks in one answer of ``GET /seeks`` (``limit``), at most.
SEEKS_PAGE = 100


def _iso(value: Any) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def _brief(player: Player) -> dict[str, Any]:
    return {"id": player.pk, "name": player.name, "bot": player.is_bot}


def seek_expired(now: datetime) -> Q:
    """Seeks that waited ``MAUMAU_SEEK_EXPIRES_SECONDS`` for people: expired, even before the sweep marks
    them (one that fills with bots ends with them instead, within ``FILL_AFTER_MAX``)."""
    return Q(fill_at=None, created_at__lte=now - timedelta(seconds=settings.MAUMAU_SEEK_EXPIRES_SECONDS))


def _seek_status(seek: Seek, now: datetime) -> str:
    expires = seek.created_at + timedelta(seconds=settings.MAUMAU_SEEK_EXPIRES_SECONDS)
    return "expired" if seek.status == "open" and seek.fill_at is None and expires <= now else seek.status


def seek_data(seek: Seek, viewer: Player | None = None) -> dict[str, Any]:
    """A seek; its table and game only for its own player (the lobby shows who waits, not where they went)."""
    own = viewer is not None and seek.player_id == viewer.pk
    return {"id": seek.pk, "player": _brief(seek.player), "rules": seek.rules, "options": seek.options,
            "players": seek.players, "league": seek.league_id, "fill_with_bots_after": seek.fill_with_bots_after,
            "status": _seek_status(seek, timezone.now()), "table": seek.table_id if own else None,
            "game": seek.game_id if own else None,
            "created_at": _iso(seek.created_at), "matched_at": _iso(seek.matched_at)}


def seek_list(*, rules: str | None = None, mine: Player | None = None, after: int = 0,
              limit: int = SEEKS_PAGE) -> list[Seek]:
    """The open seeks (the lobby), oldest first, after the id ``after``, and at most
    ``MAUMAU_SEEKS_PER_PLAYER`` of each player in one answer, so that no player crowds the others out;
    ``mine``: the caller's, whatever their status, newest first."""
    limit = max(1, min(limit, SEEKS_PAGE))
    if mine is not None:
        query = Seek.objects.select_related("player").filter(player=mine).order_by("-id")
        return list((query.filter(rules=rules) if rules else query)[:limit])
    query = (Seek.objects.filter(status="open", pk__gt=after).exclude(seek_expired(timezone.now()))
             .exclude(player__user__is_active=False))
    if rules:
        query = query.filter(rules=rules)
    query = query.annotate(place=Window(RowNumber(), partition_by=[F("player_id")], order_by=F("id").asc()))
    return list(query.filter(place__lte=settings.MAUMAU_SEEKS_PER_PLAYER).select_related("player")
                .order_by("id")[:limit])


def seek_get(*, seek_id: int) -> Seek:
    seek = Seek.objects.select_related("player").filter(pk=seek_id).first()
    if seek is None:
        raise NotFoundError()
    return seek


def challenge_data(challenge: Challenge) -> dict[str, Any]:
    return {"id": challenge.pk, "from": _brief(challenge.challenger), "rules": challenge.rules,
            "options": challenge.options, "max_players": challenge.max_players, "visibility": challenge.visibility,
            "status": challenge.status, "expires_at": _iso(challenge.expires_at),
            "to": [{"player": _brief(i.player), "answer": i.answer} for i in challenge.invitees.all()],
            "table": challenge.table_id, "game": challenge.game_id, "created_at": _iso(challenge.created_at)}


def _challenges() -> Any:
    return Challenge.objects.select_related("challenger").prefetch_related("invitees__player")


def challenge_list(*, player: Player, limit: int = 100) -> list[Challenge]:
    """The caller's challenges, sent and received, newest first (nobody else's)."""
    query = _challenges().filter(Q(challenger=player) | Q(invitees__player=player)).distinct().order_by("-id")
    return list(query[:limit])


def challenge_get(*, challenge_id: int, player: Player) -> Challenge:
    """One challenge for one of its parties; 404 for anyone else."""
    challenge = _challenges().filter(pk=challenge_id).first()
    if challenge is None or (challenge.challenger_id != player.pk
                             and not any(i.player_id == player.pk for i in challenge.invitees.all())):
        raise NotFoundError()
    return challenge


# --- chat --------------------------------------------------------------------------------------------


def chat_role(*, table_id: int, player: Player) -> tuple[Table, bool]:
    """The table and whether the caller is a spectator there: seated players chat with the players; anyone
    who may watch the table (public, taking spectators) chats with the spectators. 404 for a private
    table's outsiders, 403 for a table that takes no spectators."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise NotFoundError()
    seated = Seat.objects.filter(table=table, player=player, left=False).exists()
    if seated:
        return table, False
    if table.visibility == "private":
        raise NotFoundError()
    if table.spectators != "anyone":
        raise PermissionDeniedError()
    return table, True


def message_data(message: TableMessage) -> dict[str, Any]:
    return {"id": message.pk, "table": message.table_id, "player": _brief(message.player),
            "spectators": message.spectators, "text": message.text, "created_at": _iso(message.created_at)}


def messages_for(*, table: Table, spectator: bool, after: int = 0, limit: int = MESSAGES_PAGE) -> list[dict[str, Any]]:
    """Players read the players' chat; spectators read both (the spectators' chat never reaches players)."""
    query = TableMessage.objects.filter(table=table, pk__gt=after).select_related("player").order_by("id")
    if not spectator:
        query = query.filter(spectators=False)
    return [message_data(m) for m in query[: max(1, min(limit, MESSAGES_PAGE))]]


def last_message_id(game_id: int) -> int:
    table_id = Game.objects.filter(pk=game_id).values_list("table_id", flat=True).first()
    last = TableMessage.objects.filter(table_id=table_id).order_by("-id").values_list("pk", flat=True).first()
    return last or 0


def messages_for_stream(game_id: int, spectator: bool, after: int) -> list[dict[str, Any]]:
    table = Table.objects.filter(games__pk=game_id).first()
    if table is None:
        return []
    return messages_for(table=table, spectator=spectator, after=after)
