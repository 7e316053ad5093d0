"""A database session that ends while a request commits (``pg_terminate_backend`` during a move's
COMMIT) answers 503 ``service_unavailable`` with ``Retry-After``, never 500: the client cannot know
whether the move was made, so it retries with the same ``Idempotency-Key`` and gets the one answer."""

from __future__ import annotations

import json

import pytest
from django.db import OperationalError, ProgrammingError, connection

from games.models import Move
from maumau.errors import json_500
from tests.games.api_helpers import act, view
from tests.games.dead_sessions import postgresql_only, session_killed_at_commit, terminate

pytestmark = [pytest.mark.django_db(transaction=True), postgresql_only]  # outside a test transaction, as a request


def test_a_move_whose_commit_loses_its_session_answers_503_and_its_retry_the_move_once(two_people) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = two_people()
    state = view(host, game["id"])
    action = {**state["legal_actions"][0], "expected_version": state["version"]}
    with session_killed_at_commit("INSERT INTO games_move ") as killed:
        lost = act(host, game["id"], action, HTTP_IDEMPOTENCY_KEY="k1")
    assert killed, "the session was ended at the move's COMMIT"
    assert lost.status_code == 503, lost.content
    error = lost.json()["error"]
    assert error["code"] == "service_unavailable" and error["details"]["reason"] == "connection_lost"
    assert int(lost["Retry-After"]) >= 1
    again = act(host, game["id"], action, HTTP_IDEMPOTENCY_KEY="k1")
    assert again.status_code == 200, again.content
    assert Move.objects.filter(game_id=game["id"]).count() == again.json()["version"], "the move is there once"


def test_a_table_whose_commit_loses_its_session_answers_503(make_player) -> None:  # type: ignore[no-untyped-def]
    host = make_player("Host")
    with session_killed_at_commit('INSERT INTO "games_seat"') as killed:
        lost = host.post("/api/v1/tables", {"rules": "classic"}, format="json")
    assert killed and lost.status_code == 503, lost.content
    assert lost.json()["error"]["details"] == {"reason": "connection_lost", "retry_after": 1}
    assert host.get("/api/v1/tables?mine=true").status_code == 200  # the next request has a fresh session


def test_a_session_lost_outside_a_drf_view_answers_503_too(rf) -> None:  # type: ignore[no-untyped-def]
    """Django's handler500 (a middleware's query, a plain view) answers a lost session as the API does."""
    connection.ensure_connection()
    terminate(connection)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except OperationalError:
        answer = json_500(rf.get("/api/v1/tables"))
    assert answer.status_code == 503 and answer["Retry-After"] == "1"
    assert json.loads(answer.content)["error"]["details"]["reason"] == "connection_lost"
    connection.close()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT * FROM no_such_table")
    except ProgrammingError:
        assert json_500(rf.get("/api/v1/tables")).status_code == 500, "a bug stays a 500"
