"""A write view whose database session ends after its service committed, while it reads its answer,
reads the answer once more on a fresh connection: the client gets the answer of the write that was
made (once), not a 500 that hides it. PostgreSQL only (``pg_terminate_backend``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError, connection

from games.models import Game, League, Player, Table
from lobby.models import Challenge, Seek
from scoring.models import Standing
from scoring.selectors import league_get
from scoring.services import league_create
from tests.games.dead_sessions import postgresql_only, session_killed_after_commit

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]  # outside a test transaction, as a request


@pytest.mark.parametrize(("path", "body", "model"), [
    ("/api/v1/tables", {"rules": "classic"}, Table),
    ("/api/v1/seeks", {"rules": "classic", "players": 2}, Seek),
    ("/api/v1/leagues", {"name": "Friday", "rules": "classic"}, League),
])
def test_what_a_write_made_is_answered_after_its_commit(make_player: Any, path: str, body: dict, model: Any) -> None:
    ada = make_player("Ada")
    with session_killed_after_commit() as killed:
        response = ada.post(path, body, format="json")
    assert response.status_code == 201, response.content
    assert killed, "the session was ended"
    assert model.objects.count() == 1 and response.json()["id"] == model.objects.get().pk


def test_a_started_rounds_answer_is_read_again_after_its_commit(make_table: Any) -> None:
    table = make_table("classic")
    table.bot("basic")
    with session_killed_after_commit() as killed:
        response = table.start()
    assert response.status_code == 201, response.content
    assert killed
    assert Game.objects.count() == 1 and response.json()["id"] == Game.objects.get().pk


def test_a_challenge_and_its_answer_are_read_again_after_their_commits(make_player: Any) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    with session_killed_after_commit() as killed:
        made = ada.post("/api/v1/challenges", {"to": [bob.player_id], "rules": "classic"}, format="json")
    assert made.status_code == 201, made.content
    assert killed
    with session_killed_after_commit() as killed:
        accepted = bob.post(f"/api/v1/challenges/{made.json()['id']}/accept", format="json")
    assert accepted.status_code == 200, accepted.content
    assert killed
    assert Challenge.objects.count() == 1 and accepted.json()["status"] == Challenge.objects.get().status


def test_a_resignations_answer_is_read_again_after_its_commit(make_player: Any) -> None:
    ada = make_player("Ada")
    league = league_create(name="Friday", rules="classic")
    Standing.objects.create(league=league, player_id=ada.player_id, rounds=1, points=3)
    with session_killed_after_commit() as killed:
        response = ada.post(f"/api/v1/leagues/{league.pk}/resign", {}, format="json")
    assert response.status_code == 200, response.content
    assert killed
    assert Standing.objects.get(league=league).resigned
    assert [row["resigned"] for row in response.json()["standings"]] == [True]


def test_without_the_second_read_the_same_death_fails_the_answer(make_player: Any) -> None:
    """The kill is real: the answer's read alone, after a committed write, meets the dead session."""
    make_player("Ada")
    with session_killed_after_commit() as killed, pytest.raises(OperationalError):
        league = league_create(name="Friday", rules="classic", created_by=Player.objects.get(name="Ada"))
        league_get(league_id=league.pk)
    connection.close()  # what the second read does
    assert killed and League.objects.count() == 1
