"""The deliveries reader's statements in literal SQL: a batch's notifications with their players'
preferences, their players' targets, what each player was told of each game, and the batch's
Delivery rows written.

Why not the ORM here: the reader runs these for every batch of the outbox, and compiling them (and
Django's per-value preparation of a ``bulk_create``) cost more CPU than the rest of a push
(docs/benchmarks.md, the reader by statement). Each statement's text is the same for every batch:
a list of ids is one parameter (``= ANY`` of an array on PostgreSQL, ``json_each`` of a JSON array
on SQLite), so psycopg converts it once and PostgreSQL prepares it (:func:`games.sql.cursor`).
Times the reader only compares come as seconds since the epoch (PostgreSQL computes them; psycopg
reads a float far faster than Django's time zone loader reads a timestamp).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from django.db import connection
from django.utils.dateparse import parse_datetime

from games import sql
from notify.models import Delivery, Preferences
from streams.models import Notification


def among(column: str) -> str:
    """``column`` is one of a list given as one parameter (:func:`listed`)."""
    if connection.vendor == "postgresql":
        return f"{column} = ANY(%s::bigint[])"
    return f"{column} IN (SELECT value FROM json_each(%s))"


def listed(values: Any) -> Any:
    """The parameter of :func:`among`: an array on PostgreSQL, a JSON array elsewhere."""
    values = sorted(values)
    return values if connection.vendor == "postgresql" else json.dumps(values)


def seconds_of(column: str) -> str:
    """A timestamp column as seconds since the epoch (PostgreSQL; elsewhere as stored: :func:`seconds`)."""
    return f"extract(epoch FROM {column})::float8" if connection.vendor == "postgresql" else column


def seconds(value: Any) -> float | None:
    """What :func:`seconds_of` selected, as seconds since the epoch (SQLite gives Django's UTC text)."""
    if value is None or isinstance(value, float):
        return value
    if not isinstance(value, datetime):
        value = parse_datetime(value)
    return (value if value.tzinfo is not None else value.replace(tzinfo=UTC)).timestamp()


# --- a batch's notifications with their players' preferences ---------------------------------------

NOTE_COLUMNS = ("id", "player_id", "kind", "table_id", "game_id", "data", "created_at")
PREFERENCE_COLUMNS = ("id", "player_id", "choices", "quiet_start", "quiet_end", "time_zone", "language")


def notes_unwritten(ids: list[int]) -> tuple[list[Notification], dict[int, Preferences]]:
    """The notifications of ``ids`` that have no Delivery row yet (in id order), and their players'
    stored preferences (a player without a row has the defaults)."""
    statement = (
        "SELECT n.id, n.player_id, n.kind, n.table_id, n.game_id, n.data, n.created_at, p.id, p.player_id,"
        " p.choices, p.quiet_start, p.quiet_end, p.time_zone, p.language"
        " FROM streams_notification n LEFT JOIN notify_preferences p ON p.player_id = n.player_id"
        f" WHERE {among('n.id')}"
        " AND NOT EXISTS (SELECT 1 FROM notify_delivery d WHERE d.notification_id = n.id) ORDER BY n.id")
    with sql.cursor() as cursor:
        cursor.execute(statement, [listed(ids)])
        rows = cursor.fetchall()
    end = len(NOTE_COLUMNS)
    notes = [sql.load(Notification, NOTE_COLUMNS, row[:end]) for row in rows]
    prefs = {row[end + 1]: sql.load(Preferences, PREFERENCE_COLUMNS, row[end:]) for row in rows
             if row[end] is not None}
    return notes, prefs


# --- their players' targets -----------------------------------------------------------------------


def targets_of(players: set[int]) -> list[tuple[str, int, int, str, str, str]]:
    """(channel, id, player, endpoint or token, p256dh, auth) of every target of these players: push
    subscriptions first, then devices, then verified e-mail addresses, each in id order."""
    statement = (
        f"SELECT 'web_push', id, player_id, endpoint, p256dh, auth FROM notify_pushsubscription"
        f" WHERE {among('player_id')} UNION ALL"
        f" SELECT platform, id, player_id, token, '', '' FROM notify_device WHERE {among('player_id')} UNION ALL"
        f" SELECT 'email', id, player_id, '', '', '' FROM notify_emailaddress"
        f" WHERE {among('player_id')} AND verified_at IS NOT NULL")
    param = listed(players)
    with sql.cursor() as cursor:
        cursor.execute(statement, [param, param, param])
        rows = cursor.fetchall()
    return sorted(rows, key=lambda row: (row[0] != "web_push", row[0] == "email", row[1]))


# --- what each player was told of each game ---------------------------------------------------------


def turns_told(pairs: set[tuple[int, int]], ids: list[int]) -> list[tuple[Any, ...]]:
    """Rows (what, delivery id, player, game, outcome, leased, seconds) for the players and games of
    ``pairs``: ``waiting``, each your_turn not sent yet (the batch's ``ids`` left out), with whether it
    is leased and when it was told; ``sent``, when the newest your_turn sent was told (a long game has
    many); ``moved``, when the player last moved in the game. "Told" is the notification's time, not
    its delivery row's: a turn told before the player moved, whose row the reader wrote after it, is
    no newer turn (it made the next one look coalesced)."""
    told = ("FROM notify_delivery d JOIN streams_notification n ON n.id = d.notification_id"
            f" WHERE {among('d.player_id')} AND {among('d.game_id')} AND d.kind = 'your_turn'")
    statement = (
        f"SELECT 'waiting', d.id, d.player_id, d.game_id, d.outcome, d.lease_until IS NOT NULL,"
        f" {seconds_of('n.created_at')} {told}"
        f" AND d.outcome IN ('pending', 'retrying') AND NOT {among('d.notification_id')}"
        f" UNION ALL SELECT 'sent', NULL, d.player_id, d.game_id, NULL, NULL, {seconds_of('MAX(n.created_at)')}"
        f" {told} AND d.outcome = 'sent' GROUP BY d.player_id, d.game_id"
        f" UNION ALL SELECT 'moved', NULL, player_id, game_id, NULL, NULL, {seconds_of('MAX(created_at)')}"
        f" FROM games_move WHERE {among('player_id')} AND {among('game_id')} GROUP BY player_id, game_id")
    players, games = listed({p for p, _g in pairs}), listed({g for _p, g in pairs})
    with sql.cursor() as cursor:
        cursor.execute(statement, [players, games, listed(ids), players, games, players, games])
        return [(*row[:5], bool(row[5]), seconds(row[6])) for row in cursor.fetchall()]


# --- the batch's Delivery rows ------------------------------------------------------------------------

DELIVERY_COLUMNS = ("notification_id", "player_id", "game_id", "kind", "channel", "target", "subscription_id",
                    "device_id", "outcome")
DELIVERIES_INSERT_SQL = (
    "INSERT INTO notify_delivery (notification_id, player_id, game_id, kind, channel, target, subscription_id,"
    " device_id, outcome, attempts, last_error, next_attempt_at, lease_until, created_at)"
    " SELECT notification_id, player_id, game_id, kind, channel, target, subscription_id, device_id, outcome, 0, '',"
    " %s::timestamptz, CASE WHEN outcome = 'pending' THEN %s::timestamptz END, %s::timestamptz"
    " FROM jsonb_to_recordset(%s::jsonb) AS d(notification_id bigint, player_id bigint, game_id bigint, kind text,"
    " channel text, target text, subscription_id bigint, device_id bigint, outcome text) RETURNING id")


def deliveries_insert(rows: list[Delivery], now: datetime, lease: datetime) -> None:
    """Write ``rows`` (each ``next_attempt_at`` now, the pending ones leased until ``lease``), in the
    caller's transaction; they take their ids as from ``bulk_create``. PostgreSQL: one statement whose
    rows are one JSON parameter; elsewhere ``bulk_create``."""
    for row in rows:
        row.next_attempt_at, row.created_at = now, now
        row.lease_until = lease if row.outcome == "pending" else None
    if connection.vendor != "postgresql":
        Delivery.objects.bulk_create(rows)
        return
    if not rows:
        return
    params = [now, lease, now, sql.jsonb([{name: getattr(row, name) for name in DELIVERY_COLUMNS} for row in rows])]
    with sql.cursor() as cursor:
        cursor.execute(DELIVERIES_INSERT_SQL, params)
        ids = sorted(pk for (pk,) in cursor.fetchall())  # a sequence hands them out in the rows' order
    if len(ids) != len(rows):
        raise RuntimeError(f"expected to insert {len(rows)} deliveries, inserted {len(ids)}")
    for row, pk in zip(rows, ids, strict=True):
        row.pk = pk
        row._state.adding = False
        row._state.db = connection.alias
