"""Quick play: seekers of the same game are seated together, their round starts, and they are told."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Seat
from lobby import services
from lobby.models import Seek
from streams.models import Notification
from tests.games.api_helpers import cards_in

pytestmark = pytest.mark.django_db


def seek(client, **body):  # type: ignore[no-untyped-def]
    return client.post("/api/v1/seeks", {"rules": "classic", "players": 2, **body}, format="json")


def test_two_seekers_of_the_same_game_get_one_table_and_its_round(make_player) -> None:  # type: ignore[no-untyped-def]
    ada, bob = make_player("Ada"), make_player("Bob")
    first = seek(ada)
    assert first.status_code == 201 and first.json()["status"] == "open"
    assert [s["id"] for s in bob.get("/api/v1/seeks").json()] == [first.json()["id"]]
    second = seek(bob).json()
    assert second["status"] == "matched" and second["game"] is not None
    mine = ada.get(f"/api/v1/seeks/{first.json()['id']}").json()
    assert mine["status"] == "matched" and (mine["table"], mine["game"]) == (second["table"], second["game"])
    assert bob.get(f"/api/v1/seeks/{first.json()['id']}").json()["table"] is None  # only the seeker sees where
    view = ada.get(f"/api/v1/games/{mine['game']}").json()
    assert view["status"] == "active" and len(view["players"]) == 2
    started = Notification.objects.filter(kind="game_started").order_by("player_id")
    told = [(n.player_id, n.data["game"]) for n in started]
    assert told == [(ada.player_id, mine["game"]), (bob.player_id, mine["game"])]
    assert bob.get("/api/v1/seeks").json() == []


def test_seeks_of_different_games_do_not_match(make_player) -> None:  # type: ignore[no-untyped-def]
    ada, bob, cy = make_player("Ada"), make_player("Bob"), make_player("Cy")
    assert seek(ada).json()["status"] == "open"
    assert seek(bob, players=3).json()["status"] == "open"
    assert seek(cy, turn_seconds=30).json()["status"] == "open"
    assert Seek.objects.filter(status="open").count() == 3


def test_a_second_open_seek_of_the_same_game_is_refused_and_a_cancelled_one_is_gone(make_player) -> None:  # type: ignore[no-untyped-def]
    ada, bob = make_player("Ada"), make_player("Bob")
    first = seek(ada).json()
    again = seek(ada)
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_seeking"
    assert bob.delete(f"/api/v1/seeks/{first['id']}").status_code == 404  # not bob's
    assert ada.delete(f"/api/v1/seeks/{first['id']}").status_code == 204
    assert seek(bob).json()["status"] == "open"  # ada's cancelled seek takes no seat
    assert ada.delete(f"/api/v1/seeks/{first['id']}").status_code == 409


@pytest.mark.parametrize("body", [{"players": 1}, {"players": 17}, {"players": 6}, {"fill_with_bots_after": -1},
                                  {"fill_with_bots_after": 10**9}, {"turn_seconds": 10**12}, {"rules": "skat"},
                                  {"options": {"deck": "nope"}}, {"league": 2**40}, {"hand": ["7S"]}])
def test_a_malformed_seek_is_refused_and_changes_nothing(make_player, body) -> None:  # type: ignore[no-untyped-def]
    response = seek(make_player(), **body)
    assert response.status_code in (400, 404) and response.json()["error"]["code"] in ("validation_error", "not_found")
    assert not Seek.objects.exists()


def test_a_seek_is_filled_with_bots_once_its_wait_is_over(make_player) -> None:  # type: ignore[no-untyped-def]
    ada = make_player("Ada")
    made = seek(ada, players=3, fill_with_bots_after=30).json()
    assert services.seeks_fill_due() == 0  # not yet
    assert services.seeks_fill_due(now=timezone.now() + timedelta(seconds=31)) == 1
    done = ada.get(f"/api/v1/seeks/{made['id']}").json()
    assert done["status"] == "matched"
    seats = Seat.objects.filter(table_id=done["table"]).select_related("player")
    assert sorted(s.player.is_bot for s in seats) == [False, True, True]
    view = ada.get(f"/api/v1/games/{done['game']}").json()
    assert view["status"] == "active" and view["legal_actions"]  # the bots answered: the person is on turn


def test_the_request_path_fills_a_due_seek(make_player) -> None:  # type: ignore[no-untyped-def]
    ada = make_player("Ada")
    made = seek(ada, fill_with_bots_after=0).json()
    assert ada.get(f"/api/v1/seeks/{made['id']}").json()["status"] == "matched"


def test_the_lobby_shows_no_card(make_player) -> None:  # type: ignore[no-untyped-def]
    ada, bob, cy = make_player("Ada"), make_player("Bob"), make_player("Cy")
    seek(ada, players=3)
    seek(bob, players=3)
    for body in [cy.get("/api/v1/seeks").json(), seek(cy, players=3).json(), ada.get("/api/v1/seeks?mine=true").json()]:
        assert not cards_in(body)
