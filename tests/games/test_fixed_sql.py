"""games.sql gives the same model instances as the QuerySets it replaces on the hot path."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import DatabaseError, connection, transaction
from django.db.models import Model
from django.utils import timezone
from psycopg import pq

from accounts import authentication, tokens
from accounts.models import AccessToken
from games import sql
from games.models import Game, IdempotencyRecord, Move, Player, Seat
from play import services, writes
from streams.models import Notification
from tests.games.api_helpers import act, view

pytestmark = pytest.mark.django_db


def fields_of(obj: Model) -> dict[str, Any]:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def test_the_token_brings_its_user_and_player(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, _game = two_people()
    expected = AccessToken.objects.select_related("user__player").get(prefix=tokens.key_prefix(host.token))
    token = authentication.token_with_user_and_player(host.token)
    assert token is not None and fields_of(token) == fields_of(expected)
    assert fields_of(token.user) == fields_of(expected.user)
    assert fields_of(token.user.player) == fields_of(expected.user.player)
    assert token.user.player.user is token.user
    assert authentication.token_with_user_and_player("no-such-key") is None


def test_a_user_without_player_has_no_player(django_user_model) -> None:  # type: ignore[no-untyped-def]
    user = django_user_model.objects.create(username="admin")
    _made, key = tokens.token_issue(user=user, name="admin", scopes=["read"])
    token = authentication.token_with_user_and_player(key)
    assert token is not None and token.user.pk == user.pk
    with pytest.raises(Player.DoesNotExist):
        token.user.player  # noqa: B018


@pytest.mark.parametrize(("model", "columns"), [
    (Game, sql.GAME_COLUMNS), (Seat, sql.SEAT_COLUMNS), (Player, sql.PLAYER_COLUMNS),
    (AccessToken, authentication.TOKEN_COLUMNS), (User, authentication.USER_COLUMNS),
], ids=lambda value: getattr(value, "__name__", ""))
def test_the_literal_reads_select_every_field_of_their_models(model, columns) -> None:  # type: ignore[no-untyped-def]
    """A field added to a model must be added to the statements that load it (else it loads deferred)."""
    assert columns == tuple(f.attname for f in model._meta.concrete_fields)


def test_the_idempotency_look_up_names_fields_of_its_model() -> None:
    names = {f.attname for f in IdempotencyRecord._meta.concrete_fields}
    assert set(services.IDEMPOTENCY_COLUMNS) <= names


def test_inserted_rows_get_their_ids_and_read_back_equal(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = two_people()
    notes = [Notification(player_id=host.player_id, kind="your_turn", data={"n": n}) for n in range(3)]
    writes.move_write(writes.MoveWrites(notifications=notes))
    assert all(n.pk is not None and n.created_at is not None and not n._state.adding for n in notes)
    assert [fields_of(n) for n in notes] == [fields_of(Notification.objects.get(pk=n.pk)) for n in notes]
    assert Move.objects.filter(game_id=game["id"]).count() == Game.objects.get(pk=game["id"]).version


@pytest.mark.parametrize("read", [sql.game_with_seats, sql.game_locked_with_seats], ids=["read", "locked"])
def test_a_game_comes_with_the_seats_the_orm_reads(two_people, make_player, read) -> None:  # type: ignore[no-untyped-def]
    table, host, guest, game = two_people()
    state = view(host, game["id"])
    clients = {0: host, 1: guest}
    assert act(clients[state["turn"]], game["id"], state["legal_actions"][0]).status_code == 200
    with transaction.atomic():
        found = read(game["id"])
        assert found is not None
        row, seats = found
        assert fields_of(row) == fields_of(Game.objects.get(pk=game["id"]))
        assert isinstance(row.state, dict) and row._state.adding is False
        orm = list(Seat.objects.filter(table_id=table.id).select_related("player").order_by("position"))
        assert [fields_of(s) for s in seats] == [fields_of(s) for s in orm]
        assert [fields_of(s.player) for s in seats] == [fields_of(s.player) for s in orm]
        assert [s.player.has_webhook for s in seats] == [False, False]
        assert read(10**9) is None
    created = guest.post("/api/v1/webhooks", {"url": "https://93.184.216.34/hook", "events": ["*"]}, format="json")
    assert created.status_code == 201, created.content
    assert [s.player.has_webhook for s in read(game["id"])[1]] == [False, True]
    assert guest.delete(f"/api/v1/webhooks/{created.json()['id']}").status_code == 204
    assert [s.player.has_webhook for s in read(game["id"])[1]] == [False, False]


def round_trips(send: Callable[[], Any]) -> int:
    """How many times the client waits for the server while ``send`` runs: a Sync ends each round
    trip of the extended protocol, a Query is one of the simple protocol (libpq's protocol trace,
    PostgreSQL only)."""
    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    with tempfile.TemporaryFile("w+") as trace:
        pgconn.trace(trace.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS)
        try:
            send()
        finally:
            pgconn.untrace()
        trace.seek(0)
        return sum(1 for line in trace if line.startswith("F\t") and ("\tSync" in line or "\tQuery\t" in line))


def test_a_move_write_is_one_statement_and_one_round_trip_on_postgresql(  # type: ignore[no-untyped-def]
    two_people, django_assert_num_queries
) -> None:
    _table, host, _guest, game = two_people()
    notes = [Notification(player_id=host.player_id, kind="your_turn", data={"n": n}) for n in range(3)]
    row = Game.objects.get(pk=game["id"])
    row.deadline = timezone.now() + timedelta(days=1)
    with django_assert_num_queries(1 if connection.vendor == "postgresql" else 2):
        if connection.vendor == "postgresql":
            assert round_trips(lambda: writes.move_write(writes.MoveWrites(game=row, notifications=notes))) == 1
        else:
            writes.move_write(writes.MoveWrites(game=row, notifications=notes))
    assert notes[0].pk is not None and notes[1].pk > notes[0].pk and notes[2].pk > notes[1].pk
    assert [fields_of(n) for n in notes] == [fields_of(Notification.objects.get(pk=n.pk)) for n in notes]
    assert fields_of(Game.objects.get(pk=game["id"])) == fields_of(row)


def test_a_moves_rows_and_what_follows_its_rounds_end_are_two_writes(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, _host, _guest, game = two_people()
    row = Game.objects.get(pk=game["id"])
    with pytest.raises(ValueError):
        writes.move_write(writes.MoveWrites(game=row, table_opened=row.table_id))
    assert fields_of(Game.objects.get(pk=game["id"])) == fields_of(row)


def test_a_large_insert_is_one_statement_too(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, _game = two_people()
    notes = [Notification(player_id=host.player_id, kind="your_turn", data={"n": n}) for n in range(6000)]
    writes.move_write(writes.MoveWrites(notifications=notes))
    assert len({n.pk for n in notes}) == 6000
    assert Notification.objects.filter(player_id=host.player_id, kind="your_turn", data__n=5999).exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pipeline mode is PostgreSQL's")
def test_the_locked_game_and_its_seats_are_read_in_one_round_trip(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, _host, _guest, game = two_people()
    with transaction.atomic():
        assert round_trips(lambda: sql.game_locked_with_seats(game["id"])) == 1


def test_a_move_write_whose_game_is_gone_fails_it_whole(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = two_people()
    row = Game.objects.get(pk=game["id"])
    gone = Game.objects.get(pk=game["id"])
    gone.pk, gone.deadline = 10**9, timezone.now()
    note = Notification(player_id=host.player_id, kind="your_turn", data={})
    with pytest.raises(DatabaseError), transaction.atomic():
        writes.move_write(writes.MoveWrites(game=gone, notifications=[note]))
    assert not Notification.objects.filter(player_id=host.player_id, data={}).exists()
    assert Game.objects.get(pk=game["id"]).deadline == row.deadline


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")
@pytest.mark.skipif(not settings.MAUMAU_PREPARED_STATEMENTS, reason="MAUMAU_PREPARED_STATEMENTS is off")
def test_the_hot_path_statements_become_prepared_statements_on_postgresql(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = two_people()
    for n in range(6):  # psycopg prepares a statement on its 5th run on a connection
        authentication.token_with_user_and_player(host.token)
        with transaction.atomic():
            sql.game_locked_with_seats(game["id"])
        row = Game.objects.get(pk=game["id"])
        for move_rows in (True, False):  # a move's rows (MOVE_SQL), what follows a round's end (ROUND_END_SQL)
            notes = [Notification(player_id=host.player_id, kind="your_turn", data={}) for _ in range(n % 2 + 1)]
            writes.move_write(writes.MoveWrites(game=row, notifications=notes) if move_rows
                              else writes.MoveWrites(notifications=notes))
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any("FROM accounts_accesstoken t" in text for text in prepared), prepared
    assert any("FROM games_game g WHERE g.id = $1 FOR UPDATE" in text for text in prepared), prepared
    assert any(text.startswith("WITH moves AS (") for text in prepared), "one text for one row or two"
    assert any(text.startswith("WITH opened AS (") for text in prepared), "one text for one row or two"


def test_a_loaded_row_is_a_saved_instance_built_by_from_db(two_people) -> None:  # type: ignore[no-untyped-def]
    from django.db.models.signals import post_init

    _table, host, _guest, game = two_people()
    found = sql.game_with_seats(game["id"])
    assert found is not None
    row, seats = found
    assert row._state.db == "default" and row._state.adding is False
    assert row.table.pk == row.table_id  # a foreign key still loads on first access
    seats[0].consecutive_timeouts = 7
    seats[0].save(update_fields=["consecutive_timeouts"])  # an UPDATE of the existing row
    assert Seat.objects.get(pk=seats[0].pk).consecutive_timeouts == 7

    built: list[Model] = []

    def receiver(sender: type[Model], instance: Model, **kwargs: Any) -> None:
        built.append(instance)

    post_init.connect(receiver, sender=Player)
    try:
        token = authentication.token_with_user_and_player(host.token)
    finally:
        post_init.disconnect(receiver, sender=Player)
    assert token is not None and built == [token.user.player]


def test_json_written_and_read_here_is_the_json_the_orm_writes_and_reads(two_people) -> None:  # type: ignore[no-untyped-def]
    """orjson on the hot path: the same values in and out as the ORM's json, including what orjson
    refuses (an integer beyond 64 bits goes through json) and text that is not JSON."""
    import json

    field = Notification._meta.get_field("data")
    value = {"seat": 1, "cards": ["7H", "Ü"], "nested": {"2": None, "b": [True, 1.5]}, "big": 2**70}
    assert json.loads(sql.json_dumps(value)) == value
    assert json.loads(sql.json_dumps({1: "x"})) == {"1": "x"}  # int keys as json writes them
    for text in ('{"a": [1, 2]}', "not json", None):
        assert sql._json_loads(text, None, connection) == field.from_db_value(text, None, connection)
    _table, host, _guest, _game = two_people()
    note = Notification(player_id=host.player_id, kind="your_turn", data=value)
    writes.move_write(writes.MoveWrites(notifications=[note]))
    assert Notification.objects.get(pk=note.pk).data == value
