"""A database session that ends under a request (a restart, pg_terminate_backend) costs no 500: a move
whose connection died before its commit runs once more on a fresh connection, and so does a read."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError, connections

from games import selectors, sql
from games.models import Game, Move, Player, Seat
from play import services
from tests.games.api_helpers import act, view

pytestmark = pytest.mark.django_db(transaction=True)  # outside a test transaction, as a request runs


def dying_once(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[Any]:
    """``owner.name`` raises as a terminated session does on its first call, then works."""
    real, calls = getattr(owner, name), []

    def call(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        if len(calls) == 1:
            raise OperationalError("terminating connection due to administrator command")
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, call)
    return calls


def test_a_move_whose_connection_dies_before_the_commit_runs_once_more(two_people, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = two_people()
    state = view(host, game["id"])
    calls = dying_once(monkeypatch, sql, "game_locked_with_seats")
    response = act(host, game["id"], {**state["legal_actions"][0], "expected_version": state["version"]},
                   HTTP_IDEMPOTENCY_KEY="once")
    assert response.status_code == 200, response.content
    assert len(calls) == 2
    assert Move.objects.filter(game_id=game["id"]).count() == response.json()["version"], "each row once"


def test_a_read_whose_connection_dies_is_answered_from_a_fresh_one(two_people, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _table, host, _guest, game = two_people()
    calls = dying_once(monkeypatch, selectors, "game_with_seats")
    response = host.get(f"/api/v1/games/{game['id']}")
    assert response.status_code == 200, response.content
    assert len(calls) == 2


def test_a_round_start_whose_connection_dies_before_the_commit_runs_once_more(make_table, make_player,
                                                                              monkeypatch) -> None:  # type: ignore[no-untyped-def]
    table = make_table("classic")
    assert table.join(make_player("Guest")).status_code == 200
    calls = dying_once(monkeypatch, services, "_table_of_host")
    response = table.start()
    assert response.status_code == 201, response.content
    assert len(calls) == 2
    assert Game.objects.filter(table_id=table.id).count() == 1


def test_leaving_a_table_whose_connection_dies_before_the_commit_runs_once_more(two_people, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    table, _host, guest, _game = two_people()
    calls = dying_once(monkeypatch, services, "_table_locked")
    response = guest.post(f"/api/v1/tables/{table.id}/leave", format="json")
    assert response.status_code == 200, response.content
    assert len(calls) == 2
    assert Seat.objects.get(table_id=table.id, position=1).left


def test_a_write_whose_commit_fails_is_not_run_again(make_table, make_player, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The server may have committed before the session ended: running it again could write it twice."""
    table = make_table("classic")
    assert table.join(make_player("Guest")).status_code == 200
    calls = dying_once(monkeypatch, connections["default"], "commit")
    with pytest.raises(OperationalError):
        services.round_start(table_id=table.id, player=Player.objects.get(name="Host"))
    assert len(calls) == 1
