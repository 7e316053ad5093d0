"""A lobby write whose database session is ended mid-transaction (``pg_terminate_backend``) runs once
more on a fresh connection: the seek that completes a table seats both seekers at one table, a
challenge is made and answered once, and the client never sees a 500."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game, Table
from lobby.models import Challenge, ChallengeInvitee, Seek
from streams.models import Notification
from tests.games.dead_sessions import postgresql_only, session_killed_before

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]  # outside a test transaction, as a request


def seek(client: Any, **body: Any) -> Any:
    return client.post("/api/v1/seeks", {"rules": "classic", "players": 2, **body}, format="json")


def test_a_seek_whose_session_dies_while_it_seats_the_table_seats_it_once(make_player: Any) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    assert seek(ada).status_code == 201
    with session_killed_before('INSERT INTO "games_seat"') as killed:  # the match's table, mid-transaction
        response = seek(bob)
    assert response.status_code == 201, response.content
    assert killed
    assert response.json()["status"] == "matched"
    assert Table.objects.count() == 1 and Game.objects.count() == 1
    assert set(Seek.objects.values_list("status", flat=True)) == {"matched"}
    assert Seek.objects.count() == 2


def test_a_challenge_whose_session_dies_is_made_once_and_told_once(make_player: Any) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    with session_killed_before('INSERT INTO "lobby_challengeinvitee"') as killed:
        response = ada.post("/api/v1/challenges", {"to": [bob.player_id], "rules": "classic"}, format="json")
    assert response.status_code == 201, response.content
    assert killed
    assert Challenge.objects.count() == 1 and ChallengeInvitee.objects.count() == 1
    assert Notification.objects.filter(player_id=bob.player_id, kind="challenge_received").count() == 1


def test_accepting_a_challenge_whose_session_dies_starts_one_table(make_player: Any) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    challenge = ada.post("/api/v1/challenges", {"to": [bob.player_id], "rules": "classic"}, format="json").json()
    with session_killed_before('INSERT INTO "games_game"') as killed:  # the round, after the table and seats
        response = bob.post(f"/api/v1/challenges/{challenge['id']}/accept", format="json")
    assert response.status_code == 200, response.content
    assert killed
    assert Table.objects.count() == 1 and Game.objects.count() == 1
    assert Challenge.objects.get().status == "started"
