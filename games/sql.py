"""Fixed SQL for the statements every move and every game view runs.

Why: on this service the ORM's SQL compilation (~0.3-0.5 ms per query) costs more than
PostgreSQL needs to run these small statements, and a move runs several of them. Each statement
here is built once per model from the model's ``_meta`` (so it follows the models), and its rows
become model instances as ``Model.from_db`` builds them (see :func:`_load`), with the converters the
ORM itself applies, so callers get exactly what the QuerySet they replace gave them (related
objects included). Written
values go through each field's ``get_db_prep_save``, as in ``save()`` and ``bulk_create()`` (JSON,
on PostgreSQL, is dumped by orjson, and read by it everywhere: see :func:`_json_dumps`). These
writes send no model signals; neither did ``bulk_create``, and no receiver listens to ``Game``.

On PostgreSQL these statements are prepared (see :func:`_cursor`), a move sends the ones that need no
answer from each other in one round trip (:class:`Together`), and it reads its locked game with its
seats in one statement when nobody else holds the lock (:func:`game_locked_with_seats`).

Only statements on the hot path live here; everything else stays with the ORM.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cache, lru_cache
from typing import Any

import orjson
from django.apps import apps
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections
from django.db.models import JSONField, Model
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init
from rest_framework.authtoken.models import Token

from games.models import Game, Player, Seat, Table


def _qn(name: str) -> str:
    return connection.ops.quote_name(name)


def _columns(model: type[Model], alias: str) -> str:
    """``alias."col", ...`` for every concrete field of ``model``, in ``_meta`` order."""
    return ", ".join(f"{alias}.{_qn(f.column)}" for f in model._meta.concrete_fields)


# --- JSON: the snapshot, the ledger's actions and events -------------------------------------------


def _json_dumps(value: Any) -> bytes | str:
    """JSON text of a value written here: orjson (several times json's speed; a move writes its
    snapshot, its ledger row and a notification), json for what orjson does not take."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(value)


def _json_from_db(value: Any, expression: Any, connection: Any) -> Any:
    """``JSONField.from_db_value`` (a field without its own decoder) with orjson."""
    if value is None:
        return None
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value


def _db() -> Any:
    """This thread's connection itself: ``django.db.connection`` is a proxy that looks it up again
    on every attribute, which the per-value loops here would pay per value."""
    return connections[DEFAULT_DB_ALIAS]


def _db_value(field: Any, value: Any, db: Any) -> Any:
    """``field.get_db_prep_save(value)``; on PostgreSQL a JSON field's value is dumped by
    :func:`_json_dumps`."""
    if (value is not None and db.vendor == "postgresql" and isinstance(field, JSONField)
            and field.encoder is None and not hasattr(value, "resolve_expression")):
        from psycopg.types.json import Jsonb

        return Jsonb(field.get_prep_value(value), dumps=_json_dumps)
    return field.get_db_prep_save(value, db)


@cache
def _loader_parts(model: type[Model], vendor: str) -> tuple[tuple[str, ...], tuple[tuple[Any, tuple[Any, ...]], ...]]:
    """Field names and, per field, its column with the converters the ORM applies to it (per backend;
    a JSON field without its own decoder gets :func:`_json_from_db`)."""
    names, converters = [], []
    for field in model._meta.concrete_fields:
        column = field.get_col(model._meta.db_table)
        names.append(field.attname)
        field_converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
        if isinstance(field, JSONField) and field.decoder is None:
            field_converters = [_json_from_db if c == field.from_db_value else c for c in field_converters]
        converters.append((column, tuple(field_converters)))
    return tuple(names), tuple(converters)


@cache
def _inherits_init(model: type[Model]) -> bool:
    return model.__init__ is Model.__init__ and model.from_db.__func__ is Model.from_db.__func__  # type: ignore[attr-defined]


def _plain_init(model: type[Model]) -> bool:
    """Whether building ``model`` from a row is nothing but setting its fields: ``Model.__init__``
    and ``Model.from_db`` not overridden, no ``pre_init``/``post_init`` receiver for it (now)."""
    return _inherits_init(model) and not pre_init.has_listeners(model) and not post_init.has_listeners(model)


def _load(model: type[Model], row: Sequence[Any], db: Any) -> Model:
    """One model instance from its columns (``_meta`` order), as a QuerySet would build it.

    Why not always ``from_db``: ``Model.__init__`` (signals, descriptors per field) costs more than
    the rest of a row's load, and a move and a game view load a dozen rows. For a model where it
    only sets the fields (:func:`_plain_init`), the instance gets them the way ``__init__`` stores
    them (in ``__dict__`` under each field's ``attname``) and the state ``from_db`` gives it."""
    names, converters = _loader_parts(model, db.vendor)
    values = []
    for value, (column, field_converters) in zip(row, converters, strict=True):
        for convert in field_converters:
            value = convert(value, column, db)
        values.append(value)
    if not _plain_init(model):
        return model.from_db(db.alias, names, values)
    instance = model.__new__(model)
    instance.__dict__.update(zip(names, values, strict=True))
    instance._state = ModelState()
    instance._state.adding = False
    instance._state.db = db.alias
    return instance


def _width(model: type[Model]) -> int:
    return len(model._meta.concrete_fields)


def _cursor() -> Any:
    """A cursor for the statements here.

    On PostgreSQL it binds parameters on the server (psycopg's ``Cursor``, not the client-side
    ``ClientCursor`` Django uses elsewhere), so that psycopg prepares each of these statements once it
    has run ``prepare_threshold`` times on a connection: PostgreSQL then skips parsing and planning,
    which is most of its work for statements this small (a join's plan costs more than its run).
    Persistent connections (``CONN_MAX_AGE``) keep them; ``MAUMAU_PREPARED_STATEMENTS=false`` turns
    this off (a pooler in transaction mode before PgBouncer 1.21 cannot hold prepared statements).
    """
    db = _db()
    if db.vendor != "postgresql" or not settings.MAUMAU_PREPARED_STATEMENTS:
        return db.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor

    db.ensure_connection()
    with db.wrap_database_errors:
        # What connection.cursor() does, with the server-binding cursor class.
        return db._prepare_cursor(ServerBindingCursor(db.connection))


# --- statements sent together -----------------------------------------------------------------


@dataclass
class _Statement:
    sql: str
    params: list[Any]
    on_rows: Callable[[list[tuple[Any, ...]]], None] | None = None
    rowcount: int | None = None  # the number of rows it must touch, if it must


@dataclass
class Together:
    """Statements of one transaction that need no answer from each other, sent in one round trip.

    Why: a move is mostly database round trips, not work. On PostgreSQL they go out in psycopg's
    pipeline mode: all of them, then one Sync, then all the answers. They still run one after the
    other, in order, each as its own command (in READ COMMITTED each takes a new snapshot, so a
    statement after a ``FOR UPDATE`` sees what the lock holder committed), and as prepared
    statements (see :func:`_cursor`). The first error fails the whole transaction, as it would have
    one by one. (A transaction's ``BEGIN`` still costs a round trip of its own: psycopg waits for
    it.) Elsewhere (SQLite) the statements run one by one, in the same order, at :meth:`send`.

    ``on_rows`` gets the rows a statement returned; ``rowcount`` is checked where given.
    """

    statements: list[_Statement] = dataclass_field(default_factory=list)
    #: The statements are writes (and ``SELECT``s of functions such as ``pg_notify``) that neither
    #: read what the others write nor depend on their order: on PostgreSQL they then go as ONE
    #: statement, each in a data-modifying ``WITH`` (all see the same snapshot and run in no set
    #: order), which costs both sides less than a pipeline of several. A statement with ``on_rows``
    #: must return one column (the ids of an INSERT, in the order of its VALUES, as PostgreSQL
    #: returns them and Django's ``bulk_create`` relies on).
    independent: bool = False

    def add(self, sql: str, params: Sequence[Any], *, on_rows: Callable[[list[tuple[Any, ...]]], None] | None = None,
            rowcount: int | None = None) -> None:
        self.statements.append(_Statement(sql, list(params), on_rows, rowcount))

    def send(self) -> None:
        statements, self.statements = self.statements, []
        if not statements:
            return
        if connection.vendor == "postgresql" and len(statements) > 1 and self.independent:
            _send_as_one(statements)
            return
        if connection.vendor == "postgresql" and len(statements) > 1 and _pipeline_supported():
            connection.ensure_connection()
            cursors = []
            try:
                with connection.wrap_database_errors, connection.connection.pipeline():
                    for statement in statements:
                        cursor = _cursor()
                        cursors.append(cursor)
                        cursor.execute(statement.sql, statement.params)
                for statement, cursor in zip(statements, cursors, strict=True):
                    _finish(statement, cursor)
            finally:
                for cursor in cursors:
                    cursor.close()
            return
        for statement in statements:
            with _cursor() as cursor:
                cursor.execute(statement.sql, statement.params)
                _finish(statement, cursor)


def _send_as_one(statements: list[_Statement]) -> None:
    """Independent statements as one: ``WITH s0(v) AS (...), s1(v) AS (...) SELECT ...`` with, per
    statement, the array of its one returned column (for ``on_rows``) or the number of its rows
    (which also makes a plain ``SELECT`` run: PostgreSQL skips a ``WITH`` nobody reads)."""
    parts, outputs = [], []
    for index, statement in enumerate(statements):
        text = statement.sql
        if not text.lstrip().upper().startswith("SELECT") and " RETURNING " not in text.upper():
            text += " RETURNING 1"  # a data-modifying WITH can be counted only through RETURNING
        parts.append(f"s{index}(v) AS ({text})")
        outputs.append(f"(SELECT array_agg(v) FROM s{index})" if statement.on_rows is not None
                       else f"(SELECT count(*) FROM s{index})")
    with _cursor() as cursor:
        cursor.execute(f"WITH {', '.join(parts)} SELECT {', '.join(outputs)}",
                       [p for statement in statements for p in statement.params])
        answer = cursor.fetchone()
    for statement, value in zip(statements, answer, strict=True):
        rows = [(v,) for v in value or []] if statement.on_rows is not None else None
        touched = len(rows) if rows is not None else value
        if statement.rowcount is not None and touched != statement.rowcount:
            raise DatabaseError(f"expected {statement.rowcount} row(s), the statement touched {touched}")
        if statement.on_rows is not None:
            statement.on_rows(rows)


@cache
def _pipeline_supported() -> bool:
    import psycopg

    return bool(psycopg.Pipeline.is_supported())  # libpq 14 or newer (psycopg[binary] brings one)


def _finish(statement: _Statement, cursor: Any) -> None:
    if statement.rowcount is not None and cursor.rowcount != statement.rowcount:
        raise DatabaseError(f"expected {statement.rowcount} row(s), the statement touched {cursor.rowcount}")
    if statement.on_rows is not None:
        statement.on_rows(cursor.fetchall())


# --- token authentication ------------------------------------------------------------------------


@cache
def _token_sql(vendor: str) -> str:
    token_user = Token._meta.get_field("user")
    user = token_user.related_model
    user_pk = f"u.{_qn(user._meta.pk.column)}"
    return (
        f"SELECT {_columns(Token, 't')}, {_columns(user, 'u')}, {_columns(Player, 'p')} "
        f"FROM {_qn(Token._meta.db_table)} t "
        f"INNER JOIN {_qn(user._meta.db_table)} u ON {user_pk} = t.{_qn(token_user.column)} "
        f"LEFT OUTER JOIN {_qn(Player._meta.db_table)} p "
        f"ON p.{_qn(Player._meta.get_field('user').column)} = {user_pk} "
        f"WHERE t.{_qn(Token._meta.get_field('key').column)} = %s"
    )


def token_with_user_and_player(key: str) -> Token | None:
    """``Token.objects.select_related("user__player").get(key=key)`` in fixed SQL (every request
    runs it). ``token.user`` and ``token.user.player`` are loaded; a user without a player has
    ``player`` cached as missing, as select_related leaves it."""
    with _cursor() as cursor:
        cursor.execute(_token_sql(connection.vendor), [key])
        row = cursor.fetchone()
    if row is None:
        return None
    user_field = Token._meta.get_field("user")
    user_model = user_field.related_model
    token_end = _width(Token)
    user_end = token_end + _width(user_model)
    db = _db()
    token = _load(Token, row[:token_end], db)
    user = _load(user_model, row[token_end:user_end], db)
    player_row = row[user_end:]
    player = _load(Player, player_row, db) if player_row[0] is not None else None
    user_field.set_cached_value(token, user)
    player_user = Player._meta.get_field("user")
    player_user.remote_field.set_cached_value(user, player)
    if player is not None:
        player_user.set_cached_value(player, user)
    return token


# --- games and seats -----------------------------------------------------------------------------


@cache
def _row_locked_sql(model: type[Model], vendor: str) -> str:
    """One row of ``model`` (parameter: its id), locked where the backend has ``FOR UPDATE`` (SQLite
    runs one writer at a time anyway)."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    pk = _qn(model._meta.pk.column)
    return f"SELECT {_columns(model, 'r')} FROM {_qn(model._meta.db_table)} r WHERE r.{pk} = %s{lock}"


def _webhook_flag(player_pk: str) -> str:
    """SQL telling whether the player has an active webhook (NULL without the streams app)."""
    if not apps.is_installed("streams"):
        return "NULL"
    webhook = apps.get_model("streams", "Webhook")
    return (f"EXISTS (SELECT 1 FROM {_qn(webhook._meta.db_table)} w "
            f"WHERE w.{_qn(webhook._meta.get_field('player').column)} = {player_pk} "
            f"AND w.{_qn(webhook._meta.get_field('active').column)})")


@cache
def _seats_sql(vendor: str, of_table: bool = False) -> str:
    """The seats of a game's table (parameter: the game id; with ``of_table``: the table id) with
    their players and webhook flags."""
    player_pk = f"p.{_qn(Player._meta.pk.column)}"
    table = "%s" if of_table else (
        f"(SELECT g.{_qn(Game._meta.get_field('table').column)} FROM {_qn(Game._meta.db_table)} g "
        f"WHERE g.{_qn(Game._meta.pk.column)} = %s)")
    return (
        f"SELECT {_columns(Seat, 's')}, {_columns(Player, 'p')}, {_webhook_flag(player_pk)} "
        f"FROM {_qn(Seat._meta.db_table)} s INNER JOIN {_qn(Player._meta.db_table)} p "
        f"ON {player_pk} = s.{_qn(Seat._meta.get_field('player').column)} "
        f"WHERE s.{_qn(Seat._meta.get_field('table').column)} = {table} "
        f"ORDER BY s.{_qn(Seat._meta.get_field('position').column)}"
    )


def _seat(row: Sequence[Any], db: Any) -> Seat:
    """A seat with its player (and the player's webhook flag) from seat columns, player columns, flag."""
    seat_end = _width(Seat)
    player_end = seat_end + _width(Player)
    seat = _load(Seat, row[:seat_end], db)
    player = _load(Player, row[seat_end:player_end], db)
    player.has_active_webhooks = None if row[player_end] is None else bool(row[player_end])
    Seat._meta.get_field("player").set_cached_value(seat, player)
    return seat  # type: ignore[return-value]


@cache
def _game_with_seats_sql(vendor: str, uncontended_lock: bool = False) -> str:
    """The game, its table's seats and their players in one statement (parameter: the game id).

    ``uncontended_lock`` (PostgreSQL): also lock the game row, but only if nobody holds it (``SKIP
    LOCKED``: no row instead of a wait), and add a last column telling whether the locked row is
    the version this statement's snapshot saw (the same ``xmin``)."""
    game_pk = f"g.{_qn(Game._meta.pk.column)}"
    player_pk = f"p.{_qn(Player._meta.pk.column)}"
    same_version, lock = "", ""
    if uncontended_lock:
        same_version = (f", g.xmin::text = (SELECT g2.xmin::text FROM {_qn(Game._meta.db_table)} g2 "
                        f"WHERE g2.{_qn(Game._meta.pk.column)} = {game_pk})")
        lock = " FOR UPDATE OF g SKIP LOCKED"
    return (
        f"SELECT {_columns(Game, 'g')}, {_columns(Seat, 's')}, {_columns(Player, 'p')}, {_webhook_flag(player_pk)}"
        f"{same_version} "
        f"FROM {_qn(Game._meta.db_table)} g "
        f"LEFT OUTER JOIN {_qn(Seat._meta.db_table)} s "
        f"ON s.{_qn(Seat._meta.get_field('table').column)} = g.{_qn(Game._meta.get_field('table').column)} "
        f"LEFT OUTER JOIN {_qn(Player._meta.db_table)} p "
        f"ON {player_pk} = s.{_qn(Seat._meta.get_field('player').column)} "
        f"WHERE {game_pk} = %s ORDER BY s.{_qn(Seat._meta.get_field('position').column)}{lock}"
    )


def _game_and_seats(rows: Sequence[Sequence[Any]]) -> tuple[Game, list[Seat]]:
    db = _db()
    game_end = _width(Game)
    game = _load(Game, rows[0][:game_end], db)
    seats = [_seat(row[game_end:], db) for row in rows if row[game_end] is not None]
    return game, seats  # type: ignore[return-value]


def game_with_seats(game_id: int) -> tuple[Game, list[Seat]] | None:
    """The game, the seats of its table and their players in one statement (one consistent
    snapshot): every game view reads them."""
    with _cursor() as cursor:
        cursor.execute(_game_with_seats_sql(connection.vendor), [game_id])
        rows = cursor.fetchall()
    return _game_and_seats(rows) if rows else None


def game_locked_with_seats(game_id: int) -> tuple[Game, list[Seat]] | None:
    """The game row, locked (``FOR UPDATE`` where the backend has it), and its table's seats with
    their players, as the previous holder of the lock committed them: what every move reads first.

    A statement that waits for a row lock sees the other rows as they were before it waited, so
    one join is right only when it did not wait. On PostgreSQL the join first tries the lock
    without waiting (``SKIP LOCKED``) and checks that the row it locked is the version its snapshot
    saw: then nothing committed in between and its seats are current (one statement: the common
    case). Otherwise (another move holds the lock, or one committed while this statement ran) the
    lock is taken, waiting, and the seats are read after it, in a second statement; the two go in
    one round trip (:class:`Together`). Other backends run the two statements (SQLite runs one
    writer at a time anyway)."""
    if connection.vendor == "postgresql":
        with _cursor() as cursor:
            cursor.execute(_game_with_seats_sql(connection.vendor, True), [game_id])
            rows = cursor.fetchall()
        if rows and rows[0][-1]:
            return _game_and_seats([row[:-1] for row in rows])
    return _game_locked_then_seats(game_id)


def _game_locked_then_seats(game_id: int) -> tuple[Game, list[Seat]] | None:
    """Lock the game row (waiting for it), then read the seats: two statements, one round trip."""
    found: dict[str, Any] = {}
    together = Together()
    together.add(_row_locked_sql(Game, connection.vendor), [game_id], on_rows=lambda rows: found.update(game=rows))
    together.add(_seats_sql(connection.vendor), [game_id], on_rows=lambda rows: found.update(seats=rows))
    together.send()
    if not found["game"]:
        return None
    db = _db()
    return _load(Game, found["game"][0], db), [_seat(row, db) for row in found["seats"]]  # type: ignore[return-value]


@cache
def _active_game_sql(vendor: str) -> str:
    table, status = Game._meta.get_field("table").column, Game._meta.get_field("status").column
    return (f"SELECT g.{_qn(Game._meta.pk.column)} FROM {_qn(Game._meta.db_table)} g "
            f"WHERE g.{_qn(table)} = %s AND g.{_qn(status)} = 'active'")


def table_locked_with_seats(table_id: int) -> tuple[Table, list[Seat], list[int]] | None:
    """The table row, locked, its seats with their players (read after the lock, so as the previous
    holder committed them), and the ids of its active games (at most one): what a round start reads.
    Three statements, one round trip (:class:`Together`)."""
    found: dict[str, Any] = {}
    together = Together()
    together.add(_row_locked_sql(Table, connection.vendor), [table_id], on_rows=lambda rows: found.update(table=rows))
    together.add(_seats_sql(connection.vendor, True), [table_id], on_rows=lambda rows: found.update(seats=rows))
    together.add(_active_game_sql(connection.vendor), [table_id], on_rows=lambda rows: found.update(games=rows))
    together.send()
    if not found["table"]:
        return None
    db = _db()
    return (_load(Table, found["table"][0], db), [_seat(row, db) for row in found["seats"]],  # type: ignore[return-value]
            [game_id for (game_id,) in found["games"]])


# --- writes of a move ----------------------------------------------------------------------------


def _insert_fields(model: type[Model]) -> list[Any]:
    return [f for f in model._meta.concrete_fields if f is not model._meta.pk]


@lru_cache(maxsize=64)
def _insert_sql(model: type[Model], vendor: str, rows: int) -> str:
    fields = _insert_fields(model)
    values = "(" + ", ".join(["%s"] * len(fields)) + ")"
    return (
        f"INSERT INTO {_qn(model._meta.db_table)} ({', '.join(_qn(f.column) for f in fields)}) "
        f"VALUES {', '.join([values] * rows)} RETURNING {_qn(model._meta.pk.column)}"
    )


def rows_insert(objs: Sequence[Model], *, together: Together | None = None) -> None:
    """``type(objs[0]).objects.bulk_create(objs)`` in fixed SQL (one statement, ids set on the
    rows): every move appends ledger rows and most write a notification. As in bulk_create, the
    fields' ``pre_save`` runs (``auto_now_add``) and no signal is sent. Backends without
    ``RETURNING`` keep ``bulk_create``. With ``together`` the statement is added there and the ids
    are set when it is sent."""
    if not objs:
        return
    model = type(objs[0])
    if not connection.features.can_return_rows_from_bulk_insert:  # pragma: no cover
        if together is not None:
            together.send()
        model._default_manager.bulk_create(objs)
        return
    fields = _insert_fields(model)
    db = _db()
    size = max(1, db.ops.bulk_batch_size(fields, objs))  # as bulk_create splits them
    statements = together if together is not None else Together()
    for start in range(0, len(objs), size):
        batch = objs[start:start + size]
        params = [_db_value(f, f.pre_save(obj, True), db) for obj in batch for f in fields]
        statements.add(_insert_sql(model, db.vendor, len(batch)), params,
                       on_rows=lambda rows, batch=batch: _ids_set(batch, rows))
    if together is None:
        statements.send()


def _ids_set(objs: Sequence[Model], rows: list[tuple[Any, ...]]) -> None:
    for obj, (pk,) in zip(objs, rows, strict=True):
        obj.pk = pk
        obj._state.adding = False
        obj._state.db = connection.alias


@cache
def _update_sql(model: type[Model], vendor: str, columns: tuple[str, ...]) -> str:
    sets = ", ".join(f"{_qn(c)} = %s" for c in columns)
    return f"UPDATE {_qn(model._meta.db_table)} SET {sets} WHERE {_qn(model._meta.pk.column)} = %s"


def row_update(obj: Model, fields: list[str], *, together: Together | None = None) -> None:
    """``obj.save(update_fields=fields)`` in fixed SQL, without signals: every move writes its game
    row once, a round start its table row. With ``together`` the statement is added there (and its
    one row checked when it is sent)."""
    model = type(obj)
    model_fields = [model._meta.get_field(name) for name in fields]
    db = _db()
    params = [_db_value(f, f.pre_save(obj, False), db) for f in model_fields]
    statements = together if together is not None else Together()
    statements.add(_update_sql(model, db.vendor, tuple(f.column for f in model_fields)), [*params, obj.pk],
                   rowcount=1)
    if together is None:
        statements.send()
