"""An invitation link's holder sees the private table before sitting down: `GET tables/{id}?invite_code=`
answers the table's public view (host, seats, free seats; not the code) to the right code, and a wrong,
missing or too long code as before (404, 400)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_right_code_shows_the_table_to_an_invitee_without_its_code(make_table, make_player) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    table = make_table("classic", visibility="private", max_players=3)
    code = table.data["invite_code"]
    eve = make_player("Eve")
    answer = eve.get(f"/api/v1/tables/{table.id}", {"invite_code": code})
    assert answer.status_code == 200, answer.content
    view = answer.json()
    assert view["id"] == table.id and view["visibility"] == "private" and view["free_seats"] == 2
    assert view["host"]["id"] == view["seats"][0]["player"]["id"]
    assert view["invite_code"] is None, "the code is for the seated players to pass on"
    assert eve.post(f"/api/v1/tables/{table.id}/join", {"invite_code": code}, format="json").status_code == 200
    seated = eve.get(f"/api/v1/tables/{table.id}").json()
    assert [s["player"]["name"] for s in seated["seats"]][-1] == "Eve" and seated["invite_code"] == code


def test_a_wrong_or_missing_code_is_a_missing_table_and_a_long_one_refused(make_table, make_player) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    table = make_table("classic", visibility="private")
    eve = make_player("Eve")
    missing = eve.get("/api/v1/tables/999999")
    for query in ({}, {"invite_code": "wrong"}, {"invite_code": ""}):
        answer = eve.get(f"/api/v1/tables/{table.id}", query)
        assert (answer.status_code, answer.json()) == (404, missing.json())
    too_long = eve.get(f"/api/v1/tables/{table.id}", {"invite_code": "x" * 33})
    assert too_long.status_code == 400 and too_long.json()["error"]["details"]["field"] == "invite_code"
