"""Lobby use cases: seeks (quick play), challenges, table chat and mutes. One transaction each.

Matching is atomic: every change to a pool of seeks (rules, options, players and league alike) runs
under one lock of that pool (a transaction-scoped advisory lock on PostgreSQL; SQLite runs one writer
at a time), and a seek leaves ``open`` only under it, so two seeks never take the same seat and no
table is made twice. Tables are made and rounds started through ``play.services`` (``table_create``,
``table_join``, ``table_bot_add``, ``round_start``), the paths every client's table takes. Each use case's
transaction is ``database_retry.written_once_more`` (why: ``maumau.database_retry``).

One player cannot flood the lobby: a few open seeks each (``MAUMAU_SEEKS_PER_PLAYER``), which expire
(``MAUMAU_SEEK_EXPIRES_SECONDS``), one pending challenge to the same person and a few in all
(``MAUMAU_CHALLENGES_PER_PLAYER``); a player's seeks and challenges are counted under a lock of that
player, so concurrent requests cannot pass a cap together. The chat's rate is counted in the database,
under a lock of the player at the table, in the transaction that writes the line: it holds across
processes and concurrent posts, and a line that was not written does not count.
"""

from __future__ import annotations

import hashlib
import unicodedata
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.ledger import canonical_json
from games.models import Game, Player, Table
from games.rule_sets import rule_set_from
from lobby import selectors
from lobby.models import Challenge, ChallengeInvitee, Seek, TableMessage, TableMute
from maumau import database_retry
from maumau.errors import ConflictError, DomainError, NotFoundError, PermissionDeniedError, ValidationFailed
from play import services as game_services
from streams import channels
from streams import services as stream_services
from streams.models import Notification

#: Bounds of what a client may send.
FILL_AFTER_MAX = 3600
#: The longest username an account can have (accounts' rule): a longer one names nobody.
USERNAME_MAX = 30
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


def _lock(name: str) -> None:
    """Serialize every holder of ``name`` until the transaction ends (PostgreSQL); SQLite's immediate
    transactions already let one writer in at a time."""
    if connection.vendor == "postgresql":
        key = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


def _pool_lock(pool: str) -> None:
    """Serialize every matcher of one pool until the transaction ends."""
    _lock(f"seek-pool:{pool}")


def _seeker_lock(player: Player) -> None:
    """Serialize one player's new seeks (taken before any pool's lock), so that the cap holds."""
    _lock(f"seeker:{player.pk}")


@database_retry.written_once_more
def seek_create(*, player: Player, rules: str, players: int, options: dict[str, Any] | None = None,
                league_id: int | None = None, fill_with_bots_after: int | None = None) -> Seek:
    """Wait for others seeking the same; the seek that completes a table starts it at once."""
    rule_set = rule_set_from(rules, options)
    if not rule_set.min_players <= players <= rule_set.max_players:
        raise ValidationFailed(message=_("players is out of range for these rules."),
                               details={"field": "players", "min": rule_set.min_players, "max": rule_set.max_players})
    game_services.league_for_table(league_id, rule_set, player=player)
    effective = rule_set.to_json()
    pool = pool_of(rules=rule_set.name, options=effective, players=players, league_id=league_id)
    now = timezone.now()
    _seeker_lock(player)
    Seek.objects.filter(selectors.seek_expired(now), player=player, status="open").update(status="expired")
    _pool_lock(pool)
    if Seek.objects.filter(player=player, pool=pool, status="open").exists():
        raise ConflictError("already_seeking", _("You are already seeking this game."))
    limit = settings.MAUMAU_SEEKS_PER_PLAYER
    if Seek.objects.filter(player=player, status="open").count() >= limit:
        raise ConflictError("too_many_seeks", _("You have as many open seeks as anyone may: cancel one first."),
                            details={"limit": limit})
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
                       .exclude(selectors.seek_expired(timezone.now())).select_related("player").order_by("id")[:16])
        if not waiting or len(waiting) < waiting[0].players:
            return made
        _seeks_seat(waiting[: waiting[0].players], bots=0)
        made += 1


def _seeks_seat(seeks: list[Seek], *, bots: int) -> Game:
    """One table for ``seeks`` (the oldest hosts) and ``bots`` medium bots, its first round started; every
    seeker is told ``game_started``."""
    first = seeks[0]
    table = game_services.table_create(host=first.player, rules=first.rules, options=_overrides(first.options),
                                       max_players=first.players, league_id=first.league_id)
    for seek in seeks[1:]:
        game_services.table_join(table_id=table.pk, player=seek.player)
    for _bot in range(bots):
        game_services.table_bot_add(table_id=table.pk, player=first.player, level="medium")
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


def seeks_expire(*, now: datetime | None = None) -> int:
    """Expire the open seeks that waited ``MAUMAU_SEEK_EXPIRES_SECONDS`` for people (beat task). One
    conditional update: a seek being seated holds its row's lock, and is matched, not expired, after it."""
    return Seek.objects.filter(selectors.seek_expired(now or timezone.now()), status="open").update(status="expired")


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
                     expires_in: int = CHALLENGE_EXPIRES_DEFAULT, to_usernames: list[str] | None = None) -> Challenge:
    """Invite named players (people or bot accounts: someone who can answer) to a new table, by
    player id or by username (what a person knows of a friend)."""
    rule_set = rule_set_from(rules, options)
    to = list(dict.fromkeys(to + players_named(to_usernames or [])))
    if not to:
        raise ValidationFailed(details={"field": "to", "reason": "name at least one player (to or to_usernames)"})
    if challenger.pk in to:
        raise ValidationFailed(details={"field": "to", "reason": "you cannot challenge yourself"})
    found = {p.pk: p for p in Player.objects.filter(pk__in=to, user__isnull=False, user__is_active=True)}
    missing = [pid for pid in to if pid not in found]
    if missing:
        raise NotFoundError(details={"field": "to", "players": missing})
    _challenges_within_limits(challenger, to)
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


def players_named(usernames: list[str]) -> list[int]:
    """The players with these usernames (case does not matter), in order; 404 naming the unknown ones."""
    wanted = list(dict.fromkeys(name.lower() for name in usernames))
    if not wanted:
        return []
    query = Q()
    for name in wanted:
        query |= Q(user__username__iexact=name)
    found = {username.lower(): pk for username, pk in
             Player.objects.filter(query, user__is_active=True).values_list("user__username", "pk")}
    missing = [name for name in wanted if name not in found]
    if missing:
        raise NotFoundError(details={"field": "to_usernames", "usernames": missing})
    return [found[name] for name in wanted]


def _challenges_within_limits(challenger: Player, to: list[int]) -> None:
    """One pending challenge at a time from the same challenger to the same person, and at most
    ``MAUMAU_CHALLENGES_PER_PLAYER`` pending in all (expired ones count no more)."""
    _lock(f"challenger:{challenger.pk}")
    pending = Challenge.objects.filter(challenger=challenger, status="open", expires_at__gt=timezone.now())
    already = sorted(set(ChallengeInvitee.objects.filter(challenge__in=pending, player_id__in=to)
                         .values_list("player_id", flat=True)))
    if already:
        raise ConflictError("already_challenged", _("You have already challenged this player: wait for the answer."),
                            details={"players": already})
    limit = settings.MAUMAU_CHALLENGES_PER_PLAYER
    if pending.count() >= limit:
        raise ConflictError("too_many_challenges", _("You have as many pending challenges as anyone may."),
                            details={"limit": limit})


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


# --- leaving the lobby ------------------------------------------------------------------------------


@database_retry.written_once_more
def lobby_leave(*, player: Player) -> tuple[int, int]:
    """Cancel the player's open seeks and every open challenge they sent or received (their account is
    being deleted: nobody may be seated with them any more); the other parties of a challenge are told.
    Returns how many seeks and challenges were cancelled."""
    _seeker_lock(player)  # no new seek of theirs meanwhile
    _lock(f"challenger:{player.pk}")  # nor a new challenge
    pools = sorted(set(Seek.objects.filter(player=player, status="open").values_list("pool", flat=True)))
    for pool in pools:  # in one order, as every holder of several pool locks must
        _pool_lock(pool)
    seeks = Seek.objects.filter(player=player, status="open").update(status="cancelled")
    ids = sorted(set(Challenge.objects.filter(Q(challenger=player) | Q(invitees__player=player), status="open")
                     .values_list("pk", flat=True)))
    cancelled = 0
    for challenge in Challenge.objects.select_for_update().filter(pk__in=ids, status="open").order_by("pk"):
        challenge.status = "cancelled"
        challenge.save(update_fields=["status"])
        _challenge_tell(challenge, [p for p in _parties(challenge) if p != player.pk], "challenge_cancelled")
        cancelled += 1
    return seeks, cancelled


# --- chat --------------------------------------------------------------------------------------------


#: Unicode categories refused in chat: control, format, surrogate, private use, unassigned, and the
#: line and paragraph separators (U+2028, U+2029), which break lines in clients that print the text.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def message_text_checked(text: Any) -> str:
    """1 to 500 characters after trimming, on one line, no control or format characters (no hidden
    text, no terminal tricks); 400 naming the reason otherwise."""
    if not isinstance(text, str):
        raise ValidationFailed(details={"field": "text", "reason": "a string"})
    text = text.strip()
    if not 1 <= len(text) <= MESSAGE_MAX:
        raise ValidationFailed(details={"field": "text", "reason": f"1 to {MESSAGE_MAX} characters"})
    if any(unicodedata.category(ch) in REFUSED_CATEGORIES for ch in text):
        raise ValidationFailed(details={"field": "text", "reason": "control characters are not allowed"})
    return text


def _chat_rate_checked(table_id: int, player: Player) -> None:
    """At most ``MAUMAU_CHAT_RATE`` lines per ``MAUMAU_CHAT_WINDOW_SECONDS`` per player and table, counted
    from the lines written, under the lock of this player at this table (429 with ``retry_after``)."""
    _lock(f"chat:{table_id}:{player.pk}")
    rate, window = settings.MAUMAU_CHAT_RATE, timedelta(seconds=settings.MAUMAU_CHAT_WINDOW_SECONDS)
    now = timezone.now()
    recent = list(TableMessage.objects.filter(table_id=table_id, player=player, created_at__gt=now - window)
                  .order_by("-created_at").values_list("created_at", flat=True)[:rate])
    if len(recent) >= rate:
        retry = int((recent[-1] + window - now).total_seconds() + 0.999)
        raise DomainError("throttled", status=429, details={"retry_after": max(retry, 1)})


@database_retry.written_once_more
def message_post(*, table: Table, player: Player, text: Any, spectator: bool) -> TableMessage:
    """A chat line: a seated player's goes to the players, a spectator's to the spectators only."""
    text = message_text_checked(text)
    if TableMute.objects.filter(table=table, player=player).exists():
        raise PermissionDeniedError(message=_("The host muted you at this table."))
    _chat_rate_checked(table.pk, player)
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
