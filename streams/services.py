"""Writes of the streams app: notifications of moves, rounds and joins, webhooks, reminders.

A move's notifications (``your_turn``, ``round_over``, ``league_over``) are written inside the
move's own transaction (the games app's ``moves_appended`` signal, sent by ``move_submit`` after it
saved the game row): they are built from the round as ``move_submit`` holds it in memory (game,
seats with players, the appended ledger rows), so they cost one bulk INSERT and one webhook
look-up instead of re-reading the game, its seats and its last move after commit, and they commit
or roll back together with the move (no move without its notifications, none for a move that did
not happen). Only plain inserts run there; building the rows is guarded, so a bug in it is logged
and cannot fail the move. Everything with effects outside the database waits for the commit: the
webhook deliveries' Celery tasks, the turn reminder, and the wake-ups (``channels.publish_on_commit``;
on PostgreSQL ``pg_notify`` is issued in the transaction, which delivers it at commit).

Round starts and joins are told after their commit, in a short transaction of their own.
"""

from __future__ import annotations

import functools
import json
import logging
from datetime import timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import sql
from games.models import Game, Move, Player, Seat, Table
from maumau.errors import NotFoundError, ValidationFailed
from streams import channels
from streams.conf import setting
from streams.models import KINDS, Notification, Webhook, WebhookDelivery, WebhookSecret
from streams.ssrf import UnsafeTarget, check_url

log = logging.getLogger(__name__)


def _iso(value: Any) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def _people_of(seats: list[Seat]) -> list[tuple[int, Seat]]:
    """(game seat, Seat) of the persons among seats in game order (bots and leavers get nothing)."""
    return [(index, seat) for index, seat in enumerate(seats)
            if not seat.player.is_bot and not seat.left]


def _people(game: Game) -> list[tuple[int, Seat]]:
    """(game seat, Seat) of the persons in this round, read from the database."""
    return _people_of(game.seats_in_order(Seat.objects.filter(table_id=game.table_id).select_related("player")))


def notifications_create(items: list[Notification], *,
                         without_webhooks: frozenset[int] = frozenset()) -> list[Notification]:
    """Write notifications in a transaction of their own, queue their webhook deliveries, wake the
    players' streams (after commit). ``without_webhooks``: players known to have no active webhook
    (their notifications and the wake-up then go in one statement on PostgreSQL)."""
    if not items:
        return []
    with transaction.atomic():
        writes = sql.Together(independent=True)
        created = _notifications_write(items, without_webhooks=without_webhooks, writes=writes)
        channels.publish_on_commit(*sorted({channels.player_topic(n.player_id) for n in created}), writes=writes)
        writes.send()
    return created


def _notifications_write(items: list[Notification], *, without_webhooks: frozenset[int] = frozenset(),
                         writes: sql.Together | None = None) -> list[Notification]:
    """One INSERT for the notifications (fixed SQL, see games/sql.py), their webhook deliveries; in
    the caller's transaction. ``without_webhooks``: players already known to have no active webhook.
    ``writes``: the move's statements still to be sent; when no webhook can be concerned, the
    INSERT joins them (ids are set when they are sent), otherwise they are sent first."""
    if not items:
        return []
    if writes is not None:
        if {n.player_id for n in items} <= without_webhooks:
            sql.rows_insert(items, together=writes)
            return items
        writes.send()
    sql.rows_insert(items)
    created = items
    if any(n.pk is None for n in created):  # backends without RETURNING: read them back
        created = list(Notification.objects.filter(player_id__in={n.player_id for n in items})
                       .order_by("-id")[: len(items)])[::-1]
    _deliveries_create(created, without_webhooks)
    return created


def _deliveries_create(notifications: list[Notification], without_webhooks: frozenset[int] = frozenset()) -> None:
    """One delivery per notification and matching webhook; queued when this transaction commits.

    The webhook look-up is one indexed query for the players notified; it is skipped when all of
    them are known to have no active webhook (the common case), and without webhooks nothing else runs.
    """
    wanted = {n.player_id for n in notifications} - without_webhooks
    if not wanted:
        return
    hooks = list(Webhook.objects.filter(player_id__in=wanted, active=True))
    if not hooks:
        return
    now = timezone.now()
    rows: list[WebhookDelivery] = []
    for note in notifications:
        body = json.dumps({"event": note.kind, "notification": note.payload()}, sort_keys=True,
                          separators=(",", ":"))
        for hook in hooks:
            if hook.player_id == note.player_id and hook.wants(note.kind):
                rows.append(WebhookDelivery(webhook=hook, event=note.kind, body=body, next_attempt_at=now))
    if not rows:
        return
    if connection.features.can_return_rows_from_bulk_insert:
        ids = [d.pk for d in WebhookDelivery.objects.bulk_create(rows)]
    else:  # pragma: no cover - backends without RETURNING
        ids = [WebhookDelivery.objects.create(**{f: getattr(d, f) for f in
                                                 ("webhook", "event", "body", "next_attempt_at")}).pk
               for d in rows]

    def enqueue() -> None:
        from streams.tasks import webhook_deliver

        for pk in ids:
            try:
                webhook_deliver.delay(pk)
            except Exception:  # broker down: webhook_sweep sends it later
                log.warning("streams: could not queue webhook delivery %s", pk, exc_info=True)

    if ids:
        transaction.on_commit(enqueue)


# --- what a committed move or round means for the players -----------------------------------------


def on_moves_appended(*, game: Game, seats: list[Seat], moves: list[Move],
                      writes: sql.Together | None = None) -> list[Notification]:
    """Inside ``move_submit``'s transaction: your_turn for the person now on turn (if the turn
    passed to them), round_over and league_over when the round ended; wake-ups on commit.

    ``game`` is the saved row, ``seats`` the seats in game order with their players, ``moves`` the
    ledger rows this transaction appended (the last one tells who moved last), ``writes`` the
    move's statements still to be sent (the inserts and wake-ups here join them).
    """
    items: list[Notification] = []
    try:
        items = _move_notifications(game, seats, moves)
    except Exception:  # building is plain Python on loaded rows: a bug here must not fail the move
        log.exception("streams: notifications of game %s v%s failed", game.pk, game.version)
    # The seats came from games.sql.game_locked_with_seats, which tells who has an active webhook.
    without_webhooks = frozenset(s.player_id for s in seats
                                 if getattr(s.player, "has_active_webhooks", None) is False)
    created = _notifications_write(items, without_webhooks=without_webhooks, writes=writes)
    channels.publish_on_commit(channels.game_topic(game.pk),
                               *sorted({channels.player_topic(n.player_id) for n in created}), writes=writes)
    return created


def _move_notifications(game: Game, seats: list[Seat], moves: list[Move]) -> list[Notification]:
    people = _people_of(seats)
    items: list[Notification] = []
    last = moves[-1] if moves else None
    if game.status == "active" and game.turn is not None:
        for index, seat in people:
            if index == game.turn and (last is None or last.seat != game.turn):
                items.append(_your_turn(game, index, seat))
                transaction.on_commit(functools.partial(reminder_schedule, game=game))
    elif game.status == "finished" and any(m.seq == game.version for m in moves):
        result = game.result or {}
        lines = {line.get("seat"): line for line in result.get("players", [])}
        for index, seat in people:
            line = lines.get(index, {})
            items.append(Notification(player_id=seat.player_id, kind="round_over", table_id=game.table_id,
                                      game=game, data={"game": game.pk, "number": game.number,
                                                       "winner": result.get("winner"),
                                                       "reason": result.get("reason"), "seat": index,
                                                       "rank": line.get("rank"), "points": line.get("points")}))
        items += _league_over(game.table)  # loaded already when scoring recorded the round
    return items


def _your_turn(game: Game, index: int, seat: Seat) -> Notification:
    return Notification(player_id=seat.player_id, kind="your_turn", table_id=game.table_id, game=game,
                        data={"game": game.pk, "version": game.version, "seat": index,
                              "deadline": _iso(game.deadline)})


def _league_over(table: Table) -> list[Notification]:
    if table.league_id is None:
        return []
    from scoring.models import League

    league = League.objects.filter(pk=table.league_id, status="finished").first()
    if league is None or Notification.objects.filter(kind="league_over", data__league=league.pk).exists():
        return []
    players = (Seat.objects.filter(table__league_id=league.pk, player__is_bot=False)
               .values_list("player_id", flat=True).distinct())
    return [Notification(player_id=pid, kind="league_over", table_id=table.pk,
                         data={"league": league.pk, "name": league.name, "loser": league.loser_id})
            for pid in players]


def on_round_started(*, game_id: int) -> list[Notification]:
    """round_started for every person in the round, and your_turn for the one who opens it (unless
    bots opened it: their move told). One read: the game with its seats, players and webhook flags."""
    found = sql.game_with_seats(game_id)
    if found is None:
        return []
    game, table_seats = found
    people = _people_of(game.seats_in_order(table_seats))
    items = [Notification(player_id=seat.player_id, kind="round_started", table_id=game.table_id, game=game,
                          data={"game": game.pk, "number": game.number, "seat": index, "turn": game.turn})
             for index, seat in people]
    if game.version == 0 and game.status == "active":
        items += [_your_turn(game, index, seat) for index, seat in people if index == game.turn]
        reminder_schedule(game=game)
    without_webhooks = frozenset(s.player_id for s in table_seats if s.player.has_active_webhooks is False)
    return notifications_create(items, without_webhooks=without_webhooks)


def on_player_joined(*, seat_id: int) -> list[Notification]:
    seat = Seat.objects.filter(pk=seat_id).select_related("player").first()
    if seat is None:
        return []
    others = Seat.objects.filter(table_id=seat.table_id, left=False, player__is_bot=False, pk__lt=seat.pk)
    return notifications_create([
        Notification(player_id=other.player_id, kind="player_joined", table_id=seat.table_id,
                     data={"table": seat.table_id, "position": seat.position,
                           "player": {"id": seat.player_id, "name": seat.player.name, "bot": seat.player.is_bot}})
        for other in others
    ])


# --- reminders ----------------------------------------------------------------------------------


def reminder_due(game: Game) -> Any:
    """When the "deadline soon" reminder of the current turn is due, or None (no long clock)."""
    turn_seconds = float((game.rules or {}).get("turn_seconds") or 0)
    if game.status != "active" or game.deadline is None or turn_seconds < setting("STREAMS_REMINDER_MIN_SECONDS"):
        return None
    share = min(max(float(setting("STREAMS_REMINDER_SHARE")), 0.0), 1.0)
    return game.deadline - timedelta(seconds=turn_seconds * (1.0 - share))


def reminder_schedule(*, game: Game) -> None:
    due = reminder_due(game)
    if due is None:
        return
    from streams.tasks import turn_reminder

    try:
        turn_reminder.apply_async((game.pk, game.version), eta=due)
    except Exception:
        log.warning("streams: could not schedule the reminder of game %s", game.pk, exc_info=True)


def turn_reminder_send(*, game_id: int, version: int) -> Notification | None:
    """Re-checks the world: same turn (version) still open, reminder due, not sent yet."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.version != version or game.turn is None:
        return None
    due = reminder_due(game)
    now = timezone.now()
    if due is None or now < due or now >= game.deadline:
        return None
    seat = next((s for i, s in _people(game) if i == game.turn), None)
    if seat is None:
        return None
    if Notification.objects.filter(game=game, kind="deadline_soon", data__version=version).exists():
        return None
    left = max(0, int((game.deadline - now).total_seconds()))
    created = notifications_create([Notification(
        player_id=seat.player_id, kind="deadline_soon", table_id=game.table_id, game=game,
        data={"game": game.pk, "version": version, "seat": game.turn, "deadline": _iso(game.deadline),
              "seconds_left": left})])
    return created[0]


# --- webhooks -----------------------------------------------------------------------------------


def webhook_secret_get(*, player: Player) -> str:
    secret, _created = WebhookSecret.objects.get_or_create(player=player)
    return secret.secret


def webhook_secret_rotate(*, player: Player) -> str:
    from streams.models import new_secret

    with transaction.atomic():
        secret, _created = WebhookSecret.objects.select_for_update().get_or_create(player=player)
        secret.secret = new_secret()
        secret.save(update_fields=["secret", "created_at"])
    return secret.secret


def webhook_create(*, player: Player, url: str, events: list[str]) -> Webhook:
    """Refuse targets the server must not call (SSRF) and unknown event kinds."""
    unknown = [e for e in events if e != "*" and e not in KINDS]
    if not events or unknown:
        raise ValidationFailed(message=_("Unknown event kinds."),
                               details={"field": "events", "unknown": unknown, "allowed": ["*", *KINDS]})
    try:
        check_url(url)
    except UnsafeTarget as exc:
        raise ValidationFailed(message=_("This webhook URL is not allowed."),
                               details={"field": "url", "reason": exc.reason, **exc.details}) from exc
    if Webhook.objects.filter(player=player, active=True).count() >= setting("WEBHOOK_MAX_PER_PLAYER"):
        raise ValidationFailed(details={"field": "url", "reason": "too_many_webhooks",
                                        "max": setting("WEBHOOK_MAX_PER_PLAYER")})
    with transaction.atomic():
        WebhookSecret.objects.get_or_create(player=player)
        return Webhook.objects.create(player=player, url=url, events=sorted(set(events)))


def webhook_delete(*, player: Player, webhook_id: int) -> None:
    deleted, _rows = Webhook.objects.filter(pk=webhook_id, player=player).delete()
    if not deleted:
        raise NotFoundError()
