"""Lobby use cases: seeks (quick play), challenges, table chat and mutes. One transaction each.

Matching is atomic: every change to a pool of seeks (rules, options, players and league alike) runs
under one lock of that pool (a transaction-scoped advisory lock on PostgreSQL; SQLite runs one writer
at a time), and a seek leaves ``open`` only under it, so two seeks never take the same seat and no
table is made twice. Tables are made and rounds started through ``games.services`` (``table_create``,
``table_join``, ``table_bot_add``, ``round_start``), the paths every client's table takes. A use case's
transaction is ``database_retry.written_once_more``: it runs once more when its session dies before the
commit (the chat throttle, kept in the cache, stays outside it).
"""

from __future__ import annotations

import hashlib
import unicodedata
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import services as game_services
from games.ledger import canonical_json
from games.models import Game, Player, Table
from games.rule_sets import rule_set_from
from lobby.models import Challenge, ChallengeInvitee, Seek, TableMessage, TableMute
from maumau import database_retry
from maumau.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError, ValidationFailed
from maumau.throttling import CACHE_ERRORS, failed_open
from scoring.models import League
from streams import channels
from streams import services as stream_services
from streams.models import Notification

#: Bounds of what a client may send.
FILL_AFTER_MAX = 3600
CHALLENGE_EXPIRES_MIN, CHALLENGE_EXPIRES_MAX, CHALLENGE_EXPIRES_DEFAULT = 60, 7 * 24 * 3600, 24 * 3600
MESSAGE_MAX = 500


# --- seeks -----------------------------------------------------------------------------------------


def pool_of(*, rules: str, options: dict[str, Any], players: int, league_id: int | None) -> str:
    """What two seeks must share to sit at one table: the effective rules, the seat count, the league."""
    key = canonical_json({"rules": rules, "options": options, "players": players, "league": league_id})
    return hashlib.sha256(key.encode()).hexdigest()


def _overrides(effective: dict[str, Any]) -> dict[str, Any]:
    """Effective options as overrides of their preset (``table_create`` takes options, not the rule set's name)."""
    return {option: value for option, value in effective.items() if option != "rules"}


def _pool_lock(pool: str) -> None:
    """Serialize every matcher of one pool until the transaction ends (PostgreSQL); SQLite's immediate
    transactions already let one writer in at a time."""
    if connection.vendor == "postgresql":
        key = int.from_bytes(hashlib.sha256(f"seek-pool:{pool}".encode()).digest()[:8], "big", signed=True)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


@database_retry.written_once_more
def seek_create(*, player: Player, rules: str, players: int, options: dict[str, Any] | None = None,
                league_id: int | None = None, fill_with_bots_after: int | None = None) -> Seek:
    """Wait for others seeking the same; the seek that completes a table starts it at once."""
    rule_set = rule_set_from(rules, options)
    if not rule_set.min_players <= players <= rule_set.max_players:
        raise ValidationFailed(message=_("players is out of range for these rules."),
                               details={"field": "players", "min": rule_set.min_players, "max": rule_set.max_players})
    if league_id is not None:
        league = League.objects.filter(pk=league_id).first()
        if league is None:
            raise NotFoundError(details={"field": "league"})
        if league.status != "active":
            raise ConflictError("table_state", _("This league is over."), details={"reason": "league_finished"})
        if league.rules != rule_set.name:
            raise ValidationFailed(message=_("The table's rules must be the league's rules."),
                                   details={"field": "league", "league_rules": league.rules})
    effective = rule_set.to_json()
    pool = pool_of(rules=rule_set.name, options=effective, players=players, league_id=league_id)
    now = timezone.now()
    _pool_lock(pool)
    if Seek.objects.filter(player=player, pool=pool, status="open").exists():
        raise ConflictError("already_seeking", _("You are already seeking this game."))
    seek = Seek.objects.create(
        player=player, rules=rule_set.name, options=effective, players=players, league_id=league_id,
        pool=pool, fill_with_bots_after=fill_with_bots_after,
        fill_at=None if fill_with_bots_after is None else now + timedelta(seconds=fill_with_bots_after))
    _pool_match(pool)
    seek.refresh_from_db()
    return seek


def _pool_match(pool: str) -> int:
    """Seat every full set of open seeks of ``pool`` (oldest first) at a new table; the caller holds the
    pool's lock. Returns how many tables were made."""
    made = 0
    while True:
        waiting = list(Seek.objects.select_for_update().filter(pool=pool, status="open")
                       .select_related("player").order_by("id")[:16])
        if not waiting or len(waiting) < waiting[0].players:
            return made
        _seeks_seat(waiting[: waiting[0].players], bots=0)
        made += 1


def _seeks_seat(seeks: list[Seek], *, bots: int) -> Game:
    """One table for ``seeks`` (the oldest hosts) and ``bots`` basic bots, its first round started; every
    seeker is told ``game_started``."""
    first = seeks[0]
    table = game_services.table_create(host=first.player, rules=first.rules, options=_overrides(first.options),
                                       max_players=first.players, league_id=first.league_id)
    for seek in seeks[1:]:
        game_services.table_join(table_id=table.pk, player=seek.player)
    for _bot in range(bots):
        game_services.table_bot_add(table_id=table.pk, player=first.player, level="basic")
    game = game_services.round_start(table_id=table.pk, player=first.player)
    now = timezone.now()
    updated = Seek.objects.filter(pk__in=[s.pk for s in seeks], status="open").update(
        status="matched", table=table, game=game, matched_at=now)
    if updated != len(seeks):  # the pool lock makes this impossible; never seat a seek twice
        raise ConflictError("table_state", details={"reason": "seek_taken"})
    _game_started([s.player_id for s in seeks], table=table, game=game, source={"seek": None})
    return game


def _game_started(player_ids: list[int], *, table: Table, game: Game, source: dict[str, Any]) -> None:
    stream_services.notifications_create([
        Notification(player_id=pid, kind="game_started", table_id=table.pk, game_id=game.pk,
                     data={"table": table.pk, "game": game.pk, **source})
        for pid in player_ids
    ])


@database_retry.written_once_more
def seek_cancel(*, player: Player, seek_id: int) -> Seek:
    seek = Seek.objects.filter(pk=seek_id, player=player).first()
    if seek is None:
        raise NotFoundError()
    _pool_lock(seek.pool)
    seek = Seek.objects.select_for_update().get(pk=seek.pk)
    if seek.status != "open":
        raise ConflictError("table_state", _("This seek is not open any more."),
                            details={"reason": f"seek_{seek.status}", "table": seek.table_id, "game": seek.game_id})
    seek.status = "cancelled"
    seek.save(update_fields=["status"])
    return seek


def seeks_fill_due(*, now: datetime | None = None, pools: list[str] | None = None) -> int:
    """Seat the seeks whose ``fill_with_bots_after`` has passed, with the other open seeks of their pool
    that accept bots, and basic bots for the seats left. Re-checks everything under the pool's lock
    (beat task and request path alike); returns how many tables were made."""
    now = now or timezone.now()
    due = Seek.objects.filter(status="open", fill_at__lte=now)
    if pools is not None:
        due = due.filter(pool__in=pools)
    return sum(_pool_fill(pool, now) for pool in sorted(set(due.values_list("pool", flat=True)[:500])))


@database_retry.written_once_more
def _pool_fill(pool: str, now: datetime) -> int:
    """One pool of ``seeks_fill_due``, one transaction under its lock; returns how many tables were made."""
    _pool_lock(pool)
    made = _pool_match(pool)
    while True:
        open_seeks = list(Seek.objects.select_for_update().filter(pool=pool, status="open")
                          .exclude(fill_at=None).select_related("player").order_by("id")[:16])
        if not open_seeks or not any(s.fill_at <= now for s in open_seeks):
            return made
        group = open_seeks[: open_seeks[0].players]
        _seeks_seat(group, bots=group[0].players - len(group))
        made += 1


# --- challenges ------------------------------------------------------------------------------------


@database_retry.written_once_more
def challenge_create(*, challenger: Player, to: list[int], rules: str, options: dict[str, Any] | None = None,
                     max_players: int | None = None, visibility: str = "private",
                     expires_in: int = CHALLENGE_EXPIRES_DEFAULT) -> Challenge:
    """Invite named players (people or bot accounts: someone who can answer) to a new table."""
    rule_set = rule_set_from(rules, options)
    to = list(dict.fromkeys(to))
    if challenger.pk in to:
        raise ValidationFailed(details={"field": "to", "reason": "you cannot challenge yourself"})
    found = {p.pk: p for p in Player.objects.filter(pk__in=to, user__isnull=False)}
    missing = [pid for pid in to if pid not in found]
    if missing:
        raise NotFoundError(details={"field": "to", "players": missing})
    if max_players is None:
        max_players = len(to) + 1
    if not (rule_set.min_players <= max_players <= rule_set.max_players and len(to) + 1 <= max_players):
        raise ValidationFailed(message=_("max_players is out of range for these rules."),
                               details={"field": "max_players", "min": max(rule_set.min_players, len(to) + 1),
                                        "max": rule_set.max_players})
    challenge = Challenge.objects.create(
        challenger=challenger, rules=rule_set.name, options=rule_set.to_json(), max_players=max_players,
        visibility=visibility, expires_at=timezone.now() + timedelta(seconds=expires_in))
    ChallengeInvitee.objects.bulk_create([ChallengeInvitee(challenge=challenge, player_id=pid) for pid in to])
    _challenge_tell(challenge, to, "challenge_received")
    return challenge


def _challenge_tell(challenge: Challenge, player_ids: list[int], kind: str, **data: Any) -> None:
    stream_services.notifications_create([
        Notification(player_id=pid, kind=kind, table_id=challenge.table_id, game_id=challenge.game_id,
                     data={"challenge": challenge.pk, "from": challenge.challenger_id, "rules": challenge.rules,
                           **data})
        for pid in player_ids
    ])


def _parties(challenge: Challenge) -> list[int]:
    return [challenge.challenger_id, *challenge.invitees.values_list("player_id", flat=True)]


def _challenge_locked(challenge_id: int, player: Player) -> Challenge:
    """The challenge, locked, if the caller is one of its parties (404 otherwise: others do not learn
    it exists); an open one past its time is expired first."""
    challenge = Challenge.objects.select_for_update().filter(pk=challenge_id).first()
    if challenge is None or player.pk not in _parties(challenge):
        raise NotFoundError()
    if challenge.status == "open" and challenge.expires_at <= timezone.now():
        _challenge_expire(challenge)
    return challenge


def _challenge_closed(challenge: Challenge) -> DomainError:
    return ConflictError("table_state", _("This challenge is not open any more."),
                         details={"reason": f"challenge_{challenge.status}", "table": challenge.table_id,
                                  "game": challenge.game_id})


@database_retry.written_once_more
def challenge_answer(*, player: Player, challenge_id: int, accept: bool) -> Challenge:
    """An invitee accepts or declines. One decline ends the challenge; the last accept starts the table
    (the challenger hosts) and its first round, and everyone is told."""
    challenge = _challenge_locked(challenge_id, player)
    invitee = challenge.invitees.filter(player=player).first()
    if invitee is None:
        raise PermissionDeniedError(message=_("Only an invited player may answer a challenge."))
    if challenge.status != "open":
        raise _challenge_closed(challenge)
    invitee.answer = "accepted" if accept else "declined"
    invitee.save(update_fields=["answer"])
    if not accept:
        challenge.status = "declined"
        challenge.save(update_fields=["status"])
        _challenge_tell(challenge, [p for p in _parties(challenge) if p != player.pk], "challenge_declined",
                        by=player.pk)
        return challenge
    _challenge_tell(challenge, [challenge.challenger_id], "challenge_accepted", by=player.pk)
    invitees = list(challenge.invitees.select_related("player"))
    if all(i.answer == "accepted" for i in invitees):
        _challenge_start(challenge, invitees)
    return challenge


def _challenge_start(challenge: Challenge, invitees: list[ChallengeInvitee]) -> None:
    host = challenge.challenger
    table = game_services.table_create(host=host, rules=challenge.rules, options=_overrides(challenge.options),
                                       max_players=challenge.max_players, visibility=challenge.visibility)
    for invitee in invitees:
        game_services.table_join(table_id=table.pk, player=invitee.player, invite_code=table.invite_code)
    game = game_services.round_start(table_id=table.pk, player=host)
    challenge.status, challenge.table, challenge.game = "started", table, game
    challenge.save(update_fields=["status", "table", "game"])
    _game_started(_parties(challenge), table=table, game=game, source={"challenge": challenge.pk})


@database_retry.written_once_more
def challenge_cancel(*, player: Player, challenge_id: int) -> Challenge:
    challenge = _challenge_locked(challenge_id, player)
    if challenge.challenger_id != player.pk:
        raise PermissionDeniedError(message=_("Only the challenger may cancel a challenge."))
    if challenge.status != "open":
        raise _challenge_closed(challenge)
    challenge.status = "cancelled"
    challenge.save(update_fields=["status"])
    _challenge_tell(challenge, _parties(challenge)[1:], "challenge_cancelled")
    return challenge


def _challenge_expire(challenge: Challenge) -> None:
    challenge.status = "expired"
    challenge.save(update_fields=["status"])
    _challenge_tell(challenge, _parties(challenge), "challenge_expired")


def challenges_expire(*, now: datetime | None = None) -> int:
    """Expire the open challenges past their time (beat task; ids re-checked under each row's lock)."""
    now = now or timezone.now()
    due = list(Challenge.objects.filter(status="open", expires_at__lte=now).values_list("pk", flat=True)[:500])
    return sum(_challenge_expired_if_due(challenge_id, now) for challenge_id in due)


@database_retry.written_once_more
def _challenge_expired_if_due(challenge_id: int, now: datetime) -> bool:
    """One challenge of ``challenges_expire``, one transaction under its row's lock."""
    challenge = Challenge.objects.select_for_update().filter(pk=challenge_id, status="open").first()
    if challenge is None or challenge.expires_at > now:
        return False
    _challenge_expire(challenge)
    return True


# --- chat --------------------------------------------------------------------------------------------


def message_text_checked(text: Any) -> str:
    """1 to 500 characters after trimming, no control or format characters (no hidden text, no
    terminal tricks); 400 naming the reason otherwise."""
    if not isinstance(text, str):
        raise ValidationFailed(details={"field": "text", "reason": "a string"})
    text = text.strip()
    if not 1 <= len(text) <= MESSAGE_MAX:
        raise ValidationFailed(details={"field": "text", "reason": f"1 to {MESSAGE_MAX} characters"})
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in text):
        raise ValidationFailed(details={"field": "text", "reason": "control characters are not allowed"})
    return text


def _chat_throttle(table_id: int, player: Player) -> None:
    """At most ``MAUMAU_CHAT_RATE`` messages per ``MAUMAU_CHAT_WINDOW_SECONDS`` per player and table."""
    key = f"chat:{table_id}:{player.pk}"
    window = settings.MAUMAU_CHAT_WINDOW_SECONDS
    now = timezone.now().timestamp()
    try:
        recent = [t for t in cache.get(key, []) if t > now - window]
        if len(recent) < settings.MAUMAU_CHAT_RATE:
            cache.set(key, [*recent, now], timeout=int(window) + 1)
            return
    except CACHE_ERRORS as error:  # a cache outage lets the line through (maumau.throttling)
        failed_open("chat", error)
        return
    retry = int(recent[0] + window - now + 0.999)
    raise DomainError("throttled", status=429, details={"retry_after": max(retry, 1)})


def message_post(*, table: Table, player: Player, text: Any, spectator: bool) -> TableMessage:
    """A chat line: a seated player's goes to the players, a spectator's to the spectators only."""
    text = message_text_checked(text)
    if TableMute.objects.filter(table=table, player=player).exists():
        raise PermissionDeniedError(message=_("The host muted you at this table."))
    _chat_throttle(table.pk, player)
    return _message_written(table, player, text, spectator)


@database_retry.written_once_more
def _message_written(table: Table, player: Player, text: str, spectator: bool) -> TableMessage:
    """The write of ``message_post``, apart from the throttle: run again, it would count the line twice."""
    message = TableMessage.objects.create(table=table, player=player, text=text, spectators=spectator)
    game_id = table.games.filter(status="active").values_list("pk", flat=True).first()
    if game_id is None:
        game_id = table.games.order_by("-number").values_list("pk", flat=True).first()
    if game_id is not None:  # the game stream sends it as ``event: message``
        channels.publish_on_commit(channels.game_topic(game_id))
    return message


@database_retry.written_once_more
def mute_set(*, table_id: int, host: Player, player_id: int, muted: bool) -> None:
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise NotFoundError()
    if table.host_id != host.pk:
        raise PermissionDeniedError(message=_("Only the host may do this."))
    if player_id == host.pk:
        raise ValidationFailed(details={"field": "player", "reason": "the host cannot mute themselves"})
    if not Player.objects.filter(pk=player_id).exists():
        raise NotFoundError(details={"field": "player"})
    if muted:
        TableMute.objects.get_or_create(table=table, player_id=player_id)
    else:
        TableMute.objects.filter(table=table, player_id=player_id).delete()
