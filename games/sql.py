"""The hot path's reads in literal SQL: the move's locked game with its seats and the game view's
read (the token look-up is the accounts app's, a move's write is the move pipeline's, ``play.writes``).

Why not the ORM here: compiling a query costs about as much as PostgreSQL needs to run one of these
small statements, and every request runs them. Everything else stays with the ORM. Each statement
names its columns; :func:`load` turns a row into a model instance as ``Model.from_db`` builds it,
after the converters the ORM applies, so callers get what the QuerySets they replace gave them.
On PostgreSQL the statements are prepared (:func:`cursor`) and JSON goes through orjson.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import orjson
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import JSONField, Model
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init
from psycopg.types.json import Jsonb

from games.models import Game, Player, Seat


def cursor() -> Any:
    """A cursor that binds parameters on the server on PostgreSQL (psycopg's ``Cursor``, not the
    client-side one Django uses elsewhere): psycopg then prepares a statement once it has run a few
    times on a connection, and PostgreSQL skips parsing and planning, most of its work for these.
    ``MAUMAU_PREPARED_STATEMENTS=false`` turns this off (for a transaction-mode pooler that cannot
    keep prepared statements)."""
    db = _db()
    if db.vendor != "postgresql" or not settings.MAUMAU_PREPARED_STATEMENTS:
        return db.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor

    db.ensure_connection()
    with db.wrap_database_errors:
        return db._prepare_cursor(ServerBindingCursor(db.connection))


@contextmanager
def pipeline() -> Iterator[None]:
    """The statements run inside go to PostgreSQL in one round trip (psycopg's pipeline mode): each
    still runs on its own, in order, and a fetch waits for all sent so far. Elsewhere: nothing."""
    db = _db()
    if db.vendor != "postgresql":
        yield
        return
    db.ensure_connection()
    with db.wrap_database_errors, db.connection.pipeline():
        yield


# --- rows to models ------------------------------------------------------------------------------


def _json_loads(value: Any, expression: Any, connection: Any) -> Any:
    """``JSONField.from_db_value`` with orjson (json for what orjson refuses)."""
    if value is None:
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value



@cache
def _converters(model: type[Model], names: tuple[str, ...],
                vendor: str) -> tuple[tuple[int, Any, tuple[Any, ...]], ...]:
    """Per named field of ``model`` that has any: its place in the row, its column and the converters
    the ORM applies to it (most fields have none: numbers, text and times come as psycopg reads them)."""
    converters = []
    for index, name in enumerate(names):
        field = model._meta.get_field(name)
        column = field.get_col(model._meta.db_table)
        field_converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if isinstance(field, JSONField) and field.decoder is None:
            field_converters = [_json_loads if c == field.from_db_value else c for c in field_converters]
        if field_converters:
            converters.append((index, column, tuple(field_converters)))
    return tuple(converters)


def _db() -> Any:
    """This thread's connection itself: ``django.db.connection`` is a proxy that looks it up again on
    every attribute, which the per-value loops here would pay per value."""
    return connections[DEFAULT_DB_ALIAS]


def load(model: type[Model], names: tuple[str, ...], row: Sequence[Any]) -> Any:
    """One instance of ``model`` from the values of the fields ``names`` (attnames, in the order of the
    statement's columns), as a QuerySet builds it: a field not named is deferred.

    ``Model.from_db`` sets each field through ``__init__`` and sends ``pre_init``/``post_init``; with
    no receiver of either (the service connects none) the instance is built as ``__init__`` leaves
    it, its fields straight into its ``__dict__``: every read of the hot path builds several."""
    db = _db()
    values = list(row)
    for index, column, field_converters in _converters(model, names, db.vendor):
        value = values[index]
        for convert in field_converters:
            value = convert(value, column, db)
        values[index] = value
    if pre_init.receivers or post_init.receivers:
        return model.from_db(db.alias, names, values)
    instance = model.__new__(model)
    state = instance._state = ModelState()
    state.adding, state.db = False, db.alias
    instance.__dict__.update(zip(names, values, strict=True))
    return instance


# --- reads ---------------------------------------------------------------------------------------

#: The columns each read below selects per model, in its order (every concrete field, checked by a test).
GAME_COLUMNS = ("id", "table_id", "number", "rules", "seed", "practice", "commitment", "entropy", "setup",
                "first", "positions", "state", "version", "status", "turn", "deadline", "hermann_deadline",
                "reminder_at", "result", "ledger_head", "created_at", "finished_at")
SEAT_COLUMNS = ("id", "table_id", "position", "player_id", "bot_controlled", "left", "consecutive_timeouts",
                "entropy", "nonce")
PLAYER_COLUMNS = ("id", "name", "user_id", "is_bot", "bot_level", "has_webhook", "has_notify_target", "last_seen_at",
                  "created_at")

_GAME = ("g.id, g.table_id, g.number, g.rules, g.seed, g.practice, g.commitment, g.entropy, g.setup, g.first, "
         "g.positions, g.state, g.version, g.status, g.turn, g.deadline, g.hermann_deadline, g.reminder_at, "
         "g.result, g.ledger_head, g.created_at, g.finished_at")
_SEAT_AND_PLAYER = ('s.id, s.table_id, s.position, s.player_id, s.bot_controlled, s."left", '
                    "s.consecutive_timeouts, s.entropy, s.nonce, "
                    "p.id, p.name, p.user_id, p.is_bot, p.bot_level, p.has_webhook, p.has_notify_target, "
                    "p.last_seen_at, p.created_at")

GAME_WITH_SEATS_SQL = (
    f"SELECT {_GAME}, {_SEAT_AND_PLAYER} "
    "FROM games_game g LEFT JOIN games_seat s ON s.table_id = g.table_id "
    "LEFT JOIN games_player p ON p.id = s.player_id "
    "WHERE g.id = %s ORDER BY s.position")
GAME_LOCKED_SQL = f"SELECT {_GAME} FROM games_game g WHERE g.id = %s FOR UPDATE"
GAME_UNLOCKED_SQL = f"SELECT {_GAME} FROM games_game g WHERE g.id = %s"  # SQLite: one writer at a time
SEATS_OF_GAME_SQL = (
    f"SELECT {_SEAT_AND_PLAYER} "
    "FROM games_seat s JOIN games_player p ON p.id = s.player_id "
    "WHERE s.table_id = (SELECT table_id FROM games_game WHERE id = %s) ORDER BY s.position")


def _seat_with_player(row: Sequence[Any]) -> Any:
    seat = load(Seat, SEAT_COLUMNS, row[:len(SEAT_COLUMNS)])
    Seat._meta.get_field("player").set_cached_value(seat, load(Player, PLAYER_COLUMNS, row[len(SEAT_COLUMNS):]))
    return seat


def game_with_seats(game_id: int) -> tuple[Game, list[Seat]] | None:
    """The game, its table's seats and their players in one statement: every game view reads them."""
    with cursor() as c:
        c.execute(GAME_WITH_SEATS_SQL, [game_id])
        rows = c.fetchall()
    if not rows:
        return None
    end = len(GAME_COLUMNS)
    return (load(Game, GAME_COLUMNS, rows[0][:end]),
            [_seat_with_player(row[end:]) for row in rows if row[end] is not None])


def game_locked_with_seats(game_id: int) -> tuple[Game, list[Seat]] | None:
    """The game row locked (``FOR UPDATE`` where the backend has it), then its table's seats with their
    players: what every move reads first.

    Two statements, because a statement that waits for a row lock still sees the other rows as they
    were before it waited; the seats are read after the lock, as the previous holder committed them.
    On PostgreSQL both go in one round trip (psycopg's pipeline mode; each still runs on its own
    snapshot, in order)."""
    game_sql = GAME_LOCKED_SQL if connection.features.has_select_for_update else GAME_UNLOCKED_SQL
    with cursor() as game_cursor, cursor() as seats_cursor:
        with pipeline():
            game_cursor.execute(game_sql, [game_id])
            seats_cursor.execute(SEATS_OF_GAME_SQL, [game_id])
        game_row, seat_rows = game_cursor.fetchone(), seats_cursor.fetchall()
    if game_row is None:
        return None
    return load(Game, GAME_COLUMNS, game_row), [_seat_with_player(row) for row in seat_rows]


# --- JSON parameters -------------------------------------------------------------------------------


def json_dumps(value: Any) -> bytes | str:
    """JSON as the ORM writes it, through orjson (json for what orjson refuses, e.g. an integer beyond
    64 bits)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(value)


def jsonb(value: Any) -> Any:
    """A JSON value as a PostgreSQL statement's ``jsonb`` parameter, through orjson (None: NULL)."""
    return None if value is None else Jsonb(value, dumps=json_dumps)
