"""A table write whose database session is ended mid-transaction (``pg_terminate_backend``) is run
once more on a fresh connection: the client gets its answer, not a 500, and the write is there once."""

from __future__ import annotations

import pytest
from django.db import OperationalError, transaction

from games.models import Player, Seat, Table
from play import services
from tests.games.dead_sessions import postgresql_only, session_killed_before

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]  # outside a test transaction, as a request


def test_a_table_whose_session_dies_before_its_seat_is_written_is_made_once(make_player) -> None:  # type: ignore[no-untyped-def]
    host = make_player("Host")
    with session_killed_before('INSERT INTO "games_seat"') as killed:
        response = host.post("/api/v1/tables", {"rules": "classic"}, format="json")
    assert response.status_code == 201, response.content
    assert killed, "the session was ended"
    assert Table.objects.count() == 1, "the table the dead session wrote is gone with it"
    assert list(Seat.objects.values_list("table_id", "position")) == [(response.json()["id"], 0)]


def test_without_its_retry_the_same_death_fails_the_table(make_player) -> None:  # type: ignore[no-untyped-def]
    """The undecorated body in a plain transaction: the kill above is real, and only the retry answers it."""
    make_player("Host")
    host = Player.objects.get(name="Host")
    with session_killed_before('INSERT INTO "games_seat"'), pytest.raises(OperationalError):
        with transaction.atomic():
            services.table_create.__wrapped__(host=host, rules="classic")  # type: ignore[attr-defined]
    assert Table.objects.count() == 0


def test_joining_a_table_whose_session_dies_takes_one_seat(make_table, make_player) -> None:  # type: ignore[no-untyped-def]
    table = make_table("classic")
    guest = make_player("Guest")
    with session_killed_before('INSERT INTO "games_seat"') as killed:
        response = table.join(guest)
    assert response.status_code == 200, response.content
    assert killed
    assert list(Seat.objects.filter(table_id=table.id).values_list("position", "player_id")) == [
        (0, table.host.player_id), (1, guest.player_id)]


def test_a_bot_added_while_the_session_dies_is_seated_once(make_table) -> None:  # type: ignore[no-untyped-def]
    table = make_table("classic")
    with session_killed_before('INSERT INTO "games_seat"') as killed:
        response = table.bot("basic")
    assert response.status_code == 201, response.content
    assert killed
    assert Seat.objects.filter(table_id=table.id).count() == 2
    assert Player.objects.filter(is_bot=True).count() == 1, "the bot player of the dead attempt is gone"


def test_a_guest_whose_session_dies_at_sign_up_is_made_once(api_client) -> None:  # type: ignore[no-untyped-def]
    with session_killed_before('INSERT INTO "games_player"') as killed:
        response = api_client.post("/api/v1/players", {"name": "Ada"}, format="json")
    assert response.status_code == 201, response.content
    assert killed
    assert Player.objects.filter(name="Ada").count() == 1
