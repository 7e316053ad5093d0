"""The hot path's statements in literal SQL: the move's locked game with its seats, the game view's
read, and a move's writes as one statement (the token look-up is the accounts app's).

Why not the ORM here: compiling a query costs about as much as PostgreSQL needs to run one of these
small statements, and a move runs several of them (docs/operations.md, "What a move costs the
database"). Everything else stays with the ORM. The column lists follow the models (:func:`columns`);
rows become model instances through Django's own ``Model.from_db``, after the converters the ORM
applies (:func:`load`), so callers get what the QuerySets they replace gave them. On PostgreSQL the
statements are prepared (:func:`cursor`) and JSON goes through orjson.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import orjson
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections
from django.db.models import JSONField, Model
from psycopg.types.json import Jsonb

from games.models import Game, Player, Seat


def columns(model: type[Model], alias: str) -> str:
    """``alias."column", ...`` for every concrete field of ``model``, in the order ``from_db`` takes."""
    return ", ".join(f'{alias}."{f.column}"' for f in model._meta.concrete_fields)


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
def _converters(model: type[Model], vendor: str) -> tuple[tuple[str, ...], tuple[tuple[Any, tuple[Any, ...]], ...]]:
    """Per field of ``model``: its attname, its column and the converters the ORM applies to it."""
    names, converters = [], []
    for field in model._meta.concrete_fields:
        column = field.get_col(model._meta.db_table)
        field_converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if isinstance(field, JSONField) and field.decoder is None:
            field_converters = [_json_loads if c == field.from_db_value else c for c in field_converters]
        names.append(field.attname)
        converters.append((column, tuple(field_converters)))
    return tuple(names), tuple(converters)


def _db() -> Any:
    """This thread's connection itself: ``django.db.connection`` is a proxy that looks it up again on
    every attribute, which the per-value loops here would pay per value (measured: 3 % of a move)."""
    return connections[DEFAULT_DB_ALIAS]


def load(model: type[Model], row: Sequence[Any]) -> Any:
    """One instance of ``model`` from its columns (as :func:`columns` lists them), as a QuerySet builds it."""
    db = _db()
    names, converters = _converters(model, db.vendor)
    values = []
    for value, (column, field_converters) in zip(row, converters, strict=True):
        for convert in field_converters:
            value = convert(value, column, db)
        values.append(value)
    return model.from_db(db.alias, names, values)


def _width(model: type[Model]) -> int:
    return len(model._meta.concrete_fields)


# --- reads ---------------------------------------------------------------------------------------


def _seat_with_player(row: Sequence[Any]) -> Seat:
    seat = load(Seat, row[:_width(Seat)])
    Seat._meta.get_field("player").set_cached_value(seat, load(Player, row[_width(Seat):]))
    return seat


@cache
def _game_with_seats_sql() -> str:
    return (f"SELECT {columns(Game, 'g')}, {columns(Seat, 's')}, {columns(Player, 'p')} "
            "FROM games_game g LEFT JOIN games_seat s ON s.table_id = g.table_id "
            "LEFT JOIN games_player p ON p.id = s.player_id "
            "WHERE g.id = %s ORDER BY s.position")


def game_with_seats(game_id: int) -> tuple[Game, list[Seat]] | None:
    """The game, its table's seats and their players in one statement: every game view reads them."""
    with cursor() as c:
        c.execute(_game_with_seats_sql(), [game_id])
        rows = c.fetchall()
    if not rows:
        return None
    end = _width(Game)
    return load(Game, rows[0][:end]), [_seat_with_player(row[end:]) for row in rows if row[end] is not None]


@cache
def _game_locked_sql() -> str:
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return f"SELECT {columns(Game, 'g')} FROM games_game g WHERE g.id = %s{lock}"


@cache
def _seats_of_game_sql() -> str:
    return (f"SELECT {columns(Seat, 's')}, {columns(Player, 'p')} "
            "FROM games_seat s JOIN games_player p ON p.id = s.player_id "
            "WHERE s.table_id = (SELECT table_id FROM games_game WHERE id = %s) ORDER BY s.position")


def game_locked_with_seats(game_id: int) -> tuple[Game, list[Seat]] | None:
    """The game row locked (``FOR UPDATE`` where the backend has it), then its table's seats with their
    players: what every move reads first.

    Two statements, because a statement that waits for a row lock still sees the other rows as they
    were before it waited; the seats are read after the lock, as the previous holder committed them.
    On PostgreSQL both go in one round trip (psycopg's pipeline mode; each still runs on its own
    snapshot, in order)."""
    with cursor() as game_cursor, cursor() as seats_cursor:
        with pipeline():
            game_cursor.execute(_game_locked_sql(), [game_id])
            seats_cursor.execute(_seats_of_game_sql(), [game_id])
        game_row, seat_rows = game_cursor.fetchone(), seats_cursor.fetchall()
    if game_row is None:
        return None
    return load(Game, game_row), [_seat_with_player(row) for row in seat_rows]


# --- writes --------------------------------------------------------------------------------------


def _db_value(field: Any, value: Any, db: Any) -> Any:
    """``field.get_db_prep_save(value)``, as ``save()`` writes it; JSON through orjson on PostgreSQL."""
    if (db.vendor == "postgresql" and isinstance(field, JSONField) and field.encoder is None
            and value is not None and not hasattr(value, "resolve_expression")):
        return Jsonb(field.get_prep_value(value), dumps=_json_dumps)
    return field.get_db_prep_save(value, db)


def _json_dumps(value: Any) -> bytes | str:
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # e.g. an integer beyond 64 bits
        return json.dumps(value)


#: The most parameters one statement of :class:`WriteBatch` carries (PostgreSQL takes 65,535).
MAX_PARAMS = 30_000


class WriteBatch:
    """A transaction's writes that neither read each other's rows nor depend on their order, sent
    as ONE statement on PostgreSQL: each a data-modifying ``WITH`` (``WITH s0 AS (INSERT ...), s1 AS
    (UPDATE ...) SELECT ...``), which costs both sides less than a round trip each. Elsewhere (SQLite)
    they run one by one, in the order added. Like ``bulk_create``, inserts send no model signals and
    set the new rows' ids; an update must touch exactly one row."""

    def __init__(self) -> None:
        self._statements: list[_Statement] = []

    def insert(self, objs: Sequence[Model]) -> None:
        """``bulk_create(objs)`` (all of one model): ``INSERT ... RETURNING id``, in batches as
        ``bulk_create`` splits them."""
        if not objs:
            return
        model, db = type(objs[0]), _db()
        fields = [f for f in model._meta.concrete_fields if f is not model._meta.pk]
        size = max(1, min(db.ops.bulk_batch_size(fields, objs), MAX_PARAMS // len(fields)))
        row = "(" + ", ".join(["%s"] * len(fields)) + ")"
        for start in range(0, len(objs), size):
            batch = objs[start:start + size]
            sql = (f"INSERT INTO {_quoted(model._meta.db_table)} ({', '.join(_quoted(f.column) for f in fields)}) "
                   f"VALUES {', '.join([row] * len(batch))} RETURNING {_quoted(model._meta.pk.column)}")
            params = [_db_value(f, f.pre_save(obj, True), db) for obj in batch for f in fields]
            self._statements.append(_Statement(sql, params, inserted=batch))

    def update(self, obj: Model, fields: Sequence[str]) -> None:
        """``obj.save(update_fields=fields)`` without signals."""
        model_fields = [obj._meta.get_field(name) for name in fields]
        sets = ", ".join(f"{_quoted(f.column)} = %s" for f in model_fields)
        sql = (f"UPDATE {_quoted(obj._meta.db_table)} SET {sets} "
               f"WHERE {_quoted(obj._meta.pk.column)} = %s RETURNING 1")
        db = _db()
        params = [*(_db_value(f, f.pre_save(obj, False), db) for f in model_fields), obj.pk]
        self._statements.append(_Statement(sql, params, updated=True))

    def statement(self, sql: str, params: Sequence[Any]) -> None:
        """A statement run for its effect alone: a ``SELECT pg_notify(...)``, a conditional ``UPDATE``."""
        if not sql.startswith("SELECT") and connection.vendor == "postgresql":
            sql += " RETURNING 1"  # a data-modifying WITH is run only when something reads it
        self._statements.append(_Statement(sql, list(params)))

    def send(self) -> None:
        statements, self._statements = self._statements, []
        if connection.vendor == "postgresql":
            group: list[_Statement] = []
            for statement in statements:
                if group and sum(len(s.params) for s in group) + len(statement.params) > MAX_PARAMS:
                    _send_as_one(group)
                    group = []
                group.append(statement)
            if group:
                _send_as_one(group)
            return
        for statement in statements:
            with cursor() as c:
                c.execute(statement.sql, statement.params)
                statement.returned([row[0] for row in c.fetchall()] if c.description else [])


class _Statement:
    def __init__(self, sql: str, params: list[Any], inserted: Sequence[Model] = (), updated: bool = False) -> None:
        self.sql, self.params, self.inserted, self.updated = sql, params, inserted, updated

    def returned(self, values: list[Any]) -> None:
        """Set the ids of inserted rows; check that an update found its row."""
        if self.updated and len(values) != 1:
            raise DatabaseError(f"expected one row to update, found {len(values)}")
        for obj, pk in zip(self.inserted, values if self.inserted else [], strict=True):
            obj.pk = pk
            obj._state.adding = False
            obj._state.db = connection.alias


def _send_as_one(statements: list[_Statement]) -> None:
    """``WITH s0(v) AS (...), ... SELECT`` each writing statement's returned column as an array (a
    ``SELECT`` is counted instead: PostgreSQL skips a ``WITH`` that nobody reads)."""
    parts = ", ".join(f"s{i}(v) AS ({s.sql})" for i, s in enumerate(statements))
    outputs = ", ".join(f"(SELECT count(*) FROM s{i})" if not (s.inserted or s.updated)
                        else f"(SELECT array_agg(v) FROM s{i})" for i, s in enumerate(statements))
    with cursor() as c:
        c.execute(f"WITH {parts} SELECT {outputs}", [p for s in statements for p in s.params])
        answer = c.fetchone()
    for statement, values in zip(statements, answer, strict=True):
        if statement.inserted or statement.updated:
            statement.returned(list(values or []))


def _quoted(name: str) -> str:
    return f'"{name}"'
