"""Writes of the streams app: notifications of moves, rounds and joins, webhooks, reminders.

A move's notifications (``your_turn``, ``round_over``, ``league_over``) are built here by
:func:`move_notifications` from the round as ``play.services.move_submit`` holds it in memory (game,
seats with players, the appended ledger rows), and returned unsaved: the move pipeline writes them in
the move's own statement, so they cost no re-read, and commit or roll back with the move; so are those
of a season the round ended (``season_over``, :func:`season_over`, from the final table scoring hands
over). What has effects outside the database waits for the commit: webhook deliveries' tasks
(:func:`notifications_dispatch`, through ``streams.tasks``) and the wake-ups
(``channels.published_on_commit``; on PostgreSQL ``pg_notify`` runs in the transaction, which
delivers it at commit).

Round starts and joins are told after their commit, in a short transaction of their own. Each
transaction here is ``database_retry.written_once_more`` (why: ``maumau.database_retry``); what leaves
the database waits for its commit.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games import sql
from games.models import Game, League, Move, Player, Seat, Table
from maumau import database_retry
from maumau.errors import NotFoundError, ValidationFailed
from streams import channels, signals, tasks
from streams.models import KINDS, Notification, Webhook, WebhookDelivery, WebhookSecret, new_secret
from streams.ssrf import UnsafeTarget, check_url

log = logging.getLogger(__name__)

#: The lines of a season's final table that its season_over carries (every recipient gets their own line).
SEASON_PODIUM = 3


def _iso(value: Any) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def _people_of(seats: list[Seat]) -> list[tuple[int, Seat]]:
    """(game seat, Seat) of the persons among seats in game order (server bots and leavers get nothing)."""
    return [(index, seat) for index, seat in enumerate(seats)
            if seat.player.user_id is not None and not seat.left]


def _people(game: Game) -> list[tuple[int, Seat]]:
    """(game seat, Seat) of the persons in this round, read from the database."""
    return _people_of(game.seats_in_order(Seat.objects.filter(table_id=game.table_id).select_related("player")))


def notifications_create(items: list[Notification], *, seats: Iterable[Seat] = ()) -> list[Notification]:
    """Write notifications in a transaction of their own with their wake-ups; deliveries follow on
    commit. ``seats``: loaded seats whose players' webhook flags are known."""
    if not items:
        return []
    _notifications_written(items, list(seats))
    return items


@database_retry.written_once_more
def _notifications_written(items: list[Notification], seats: list[Seat]) -> None:
    """The transaction of ``notifications_create`` (none for no notifications: no savepoint inside a caller's)."""
    Notification.objects.bulk_create(items)
    channels.publish_on_commit(*sorted({channels.player_topic(n.player_id) for n in items}))
    notifications_dispatch(items, seats=seats)


def notifications_dispatch(notifications: list[Notification], *, seats: Iterable[Seat] = ()) -> None:
    """After written notifications (in their transaction): one webhook delivery per notification and
    matching webhook, queued on commit.

    Webhooks are looked up only for players who may have one: the seats' players carry the
    ``has_webhook`` flag, so the common case (nobody has one) costs no query.
    """
    if not notifications:
        return
    seats = list(seats)
    without = {seat.player_id for seat in seats if not seat.player.has_webhook}
    wanted = {n.player_id for n in notifications} - without
    hooks = list(Webhook.objects.filter(player_id__in=wanted, active=True)) if wanted else []
    rows: list[WebhookDelivery] = []
    now = timezone.now()
    for note in notifications:
        body = None
        for hook in hooks:
            if hook.player_id == note.player_id and hook.wants(note.kind):
                body = body or json.dumps({"event": note.kind, "notification": note.payload()}, sort_keys=True,
                                          separators=(",", ":"))
                rows.append(WebhookDelivery(webhook=hook, event=note.kind, body=body, next_attempt_at=now))
    if rows:
        tasks.deliveries_send_on_commit([d.pk for d in WebhookDelivery.objects.bulk_create(rows)])
    signals.notifications_written.send(sender=Notification, notifications=notifications, seats=seats)


# --- what a move or a round means for the players ----------------------------------------------


def move_notifications(*, game: Game, seats: list[Seat], moves: list[Move]) -> list[Notification]:
    """The notifications of a move, unsaved: your_turn for the person now on turn (if the turn passed
    to them), round_over and league_over when the round ended.

    ``game`` is the saved row, ``seats`` the seats in game order with their players, ``moves`` the
    ledger rows this request appended (the last one tells who moved last). Building them is plain
    Python on loaded rows: a bug here is logged and must not fail the move.
    """
    try:
        return _move_notifications(game, seats, moves)
    except Exception:
        log.exception("streams: notifications of game %s v%s failed", game.pk, game.version)
        return []


def _move_notifications(game: Game, seats: list[Seat], moves: list[Move]) -> list[Notification]:
    people = _people_of(seats)
    items: list[Notification] = []
    last = moves[-1] if moves else None
    if game.status == "active" and game.turn is not None:
        for index, seat in people:
            if index == game.turn and (last is None or last.seat != game.turn):
                items.append(_your_turn(game, index, seat))
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
    return _league_over_of(table.league_id, table.pk)


def _league_over_of(league_id: int, table_id: int | None) -> list[Notification]:
    """league_over for every person seated at one of the league's tables, once per league."""
    league = League.objects.filter(pk=league_id, status="finished").first()
    if league is None or Notification.objects.filter(kind="league_over", data__league=league.pk).exists():
        return []
    players = (Seat.objects.filter(table__league_id=league.pk, player__user__isnull=False)
               .values_list("player_id", flat=True).distinct())
    return [Notification(player_id=pid, kind="league_over", table_id=table_id,
                         data={"league": league.pk, "name": league.name, "loser": league.loser_id})
            for pid in players]


def league_over(*, league_id: int) -> list[Notification]:
    """league_over when a league ended outside a move (a player resigned a league with a limit); its
    read follows the league's commit (``database_retry.read_once_more``)."""
    return notifications_create(database_retry.read_once_more(_league_over_of, league_id, None))


def season_over(*, league: League, season: int, loser_id: int | None, standings: list[dict[str, Any]],
                recipients: Iterable[int], next_season: int | None, table_id: int | None = None) -> list[Notification]:
    """season_over for each of ``recipients`` (persons), unsaved: whoever ended the season writes them in
    its transaction (a played round's through the move's writer, a sheet round, a resignation or the
    owner's mark through :func:`notifications_create`). ``standings`` is the season's final table, best
    first (scoring's standings lines); ``next_season`` the number of the season that started, or None
    when the league waits for its owner."""
    people = [line for line in standings if not line["player"]["bot"]]
    winners = [line["player"] for line in standings
               if line["position"] == 1 and not line["lost"] and not line["resigned"]]
    podium = [{"player": line["player"], "position": line["position"], "points": line["points"],
               "wins": line["wins"]} for line in standings[:SEASON_PODIUM]]
    own = {line["player"]["id"]: line for line in people}
    items = []
    for pid in recipients:
        line = own.get(pid)
        items.append(Notification(player_id=pid, kind="season_over", table_id=table_id, data={
            "league": league.pk, "name": league.name, "season": season, "loser": loser_id, "winners": winners,
            "podium": podium, "players": len(standings), "position": line["position"] if line else None,
            "points": line["points"] if line else None, "next_season": next_season}))
    return items


def round_started(*, game_id: int) -> list[Notification]:
    """round_started for every person in the round, and your_turn for the one who opens it (unless
    bots opened it: their move told). One read: the game with its seats and players, after the round's
    commit (``database_retry.read_once_more``)."""
    found = database_retry.read_once_more(sql.game_with_seats, game_id)
    if found is None:
        return []
    game, table_seats = found
    people = _people_of(game.seats_in_order(table_seats))
    items = [Notification(player_id=seat.player_id, kind="round_started", table_id=game.table_id, game=game,
                          data={"game": game.pk, "number": game.number, "seat": index, "turn": game.turn})
             for index, seat in people]
    if game.version == 0 and game.status == "active":
        items += [_your_turn(game, index, seat) for index, seat in people if index == game.turn]
    return notifications_create(items, seats=table_seats)


def player_joined(*, seat_id: int) -> list[Notification]:
    """player_joined for the people already at the table, read after the join's commit
    (``database_retry.read_once_more``)."""
    found = database_retry.read_once_more(_seat_and_others, seat_id)
    if found is None:
        return []
    seat, others = found
    return notifications_create([
        Notification(player_id=other.player_id, kind="player_joined", table_id=seat.table_id,
                     data={"table": seat.table_id, "position": seat.position,
                           "player": {"id": seat.player_id, "name": seat.player.name, "bot": seat.player.is_bot}})
        for other in others
    ])


def _seat_and_others(seat_id: int) -> tuple[Seat, list[Seat]] | None:
    seat = Seat.objects.filter(pk=seat_id).select_related("player").first()
    if seat is None:
        return None
    return seat, list(Seat.objects.filter(table_id=seat.table_id, left=False, player__user__isnull=False,
                                          pk__lt=seat.pk))


# --- reminders ----------------------------------------------------------------------------------


def reminder_at(*, deadline: datetime | None, turn_seconds: float) -> datetime | None:
    """When the "deadline soon" reminder of a turn with this deadline is due, or None (no long clock).

    The game row keeps it (``Game.reminder_at``, set with the deadline by the move pipeline), and the
    clock sweep sends the reminder (:func:`turn_reminder_send`) once it has passed."""
    if deadline is None or turn_seconds < settings.STREAMS_REMINDER_MIN_SECONDS:
        return None
    share = min(max(float(settings.STREAMS_REMINDER_SHARE), 0.0), 1.0)
    return deadline - timedelta(seconds=turn_seconds * (1.0 - share))


@database_retry.written_once_more
def turn_reminder_send(*, game_id: int) -> Notification | None:
    """The current turn's ``deadline_soon``, if the world still wants it: the game active, a person on
    turn, its reminder time passed and the deadline not, and none sent yet for this turn. A turn is
    told apart by its deadline, not the version: drawing a card moves the version, not the turn.
    Under the game's row lock, so two sweeps that overlap tell it once."""
    game = Game.objects.select_for_update().filter(pk=game_id, status="active").first()
    if game is None or game.turn is None or game.deadline is None:
        return None
    due = reminder_at(deadline=game.deadline, turn_seconds=float((game.rules or {}).get("turn_seconds") or 0))
    now = timezone.now()
    if due is None or now < due or now >= game.deadline:
        return None
    seat = next((s for i, s in _people(game) if i == game.turn), None)
    if seat is None:
        return None
    deadline = _iso(game.deadline)
    if Notification.objects.filter(game=game, kind="deadline_soon", data__deadline=deadline).exists():
        return None
    left = max(0, int((game.deadline - now).total_seconds()))
    created = notifications_create([Notification(
        player_id=seat.player_id, kind="deadline_soon", table_id=game.table_id, game=game,
        data={"game": game.pk, "version": game.version, "seat": game.turn, "deadline": deadline,
              "seconds_left": left})])
    return created[0]


# --- webhooks -----------------------------------------------------------------------------------


def webhook_secret_get(*, player: Player) -> str:
    secret, _created = WebhookSecret.objects.get_or_create(player=player)
    return secret.secret


@database_retry.written_once_more
def webhook_secret_rotate(*, player: Player) -> str:
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
    return _webhook_written(player, url, sorted(set(events)))


@database_retry.written_once_more
def _webhook_written(player: Player, url: str, events: list[str]) -> Webhook:
    """The write of ``webhook_create``, apart from the URL's check: its DNS look-up stays out of the transaction."""
    if Webhook.objects.filter(player=player, active=True).count() >= settings.WEBHOOK_MAX_PER_PLAYER:
        raise ValidationFailed(details={"field": "url", "reason": "too_many_webhooks",
                                        "max": settings.WEBHOOK_MAX_PER_PLAYER})
    WebhookSecret.objects.get_or_create(player=player)
    hook = Webhook.objects.create(player=player, url=url, events=events)
    Player.objects.filter(pk=player.pk).update(has_webhook=True)
    return hook


@database_retry.written_once_more
def webhook_delete(*, player: Player, webhook_id: int) -> None:
    """Remove one webhook; the player's ``has_webhook`` flag follows (moves read it to skip look-ups)."""
    deleted, _rows = Webhook.objects.filter(pk=webhook_id, player=player).delete()
    if not deleted:
        raise NotFoundError()
    Player.objects.filter(pk=player.pk).update(
        has_webhook=Webhook.objects.filter(player=player, active=True).exists())
