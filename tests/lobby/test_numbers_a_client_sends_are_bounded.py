"""Every number the lobby, spectators and ratings take from a client is bounded: one past the bound is
a 400 in the error shape and changes nothing."""

from __future__ import annotations

import pytest

from games.models import Table
from lobby.models import TableMute

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("body", [{"spectator_delay": 51}, {"spectator_delay": -1}, {"max_players": 17}])
def test_a_table_with_an_unbounded_number_is_refused(make_player, body) -> None:  # type: ignore[no-untyped-def]
    ada = make_player("Ada")
    response = ada.post("/api/v1/tables", {"rules": "classic", **body}, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "validation_error"
    assert not Table.objects.exists()


def test_muting_a_player_id_past_the_bound_is_refused(make_table, make_player) -> None:  # type: ignore[no-untyped-def]
    table = make_table("classic")
    response = table.host.post(f"/api/v1/tables/{table.id}/mute", {"player": 2**31}, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "validation_error"
    assert not TableMute.objects.exists()


@pytest.mark.parametrize("query", ["after=2147483648", "after=-1", "after=1e3"])
def test_chat_read_past_the_bound_is_refused(make_table, query) -> None:  # type: ignore[no-untyped-def]
    table = make_table("classic")
    response = table.host.get(f"/api/v1/tables/{table.id}/messages?{query}")
    assert response.status_code == 400 and response.json()["error"]["code"] == "validation_error"


@pytest.mark.parametrize("query", ["history=1001", "history=-1"])
def test_a_rating_history_past_the_bound_is_refused(make_player, query) -> None:  # type: ignore[no-untyped-def]
    ada = make_player("Ada")
    response = ada.get(f"/api/v1/players/{ada.player_id}/ratings?{query}")
    assert response.status_code == 400 and response.json()["error"]["code"] == "validation_error"
