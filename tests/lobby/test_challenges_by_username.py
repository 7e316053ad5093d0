"""A challenge names its invitees by username too (what a person knows of a friend): any case, mixed
with ids; an unknown name is a 404 naming it and changes nothing; a name longer than any username is a 400."""

from __future__ import annotations

import pytest

from lobby.models import Challenge

pytestmark = pytest.mark.django_db


def account(client, username: str):  # type: ignore[no-untyped-def]
    answer = client.post("/api/v1/accounts", {"username": username, "password": "a long pass phrase 1",
                                              "device": "test"}, format="json")
    assert answer.status_code == 201, answer.content
    client.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
    client.player_id = client.get("/api/v1/me").json()["id"]
    return client


def test_a_challenge_by_username_invites_that_player_whatever_the_case(make_player) -> None:  # type: ignore[no-untyped-def]
    from rest_framework.test import APIClient

    bob = account(APIClient(), "bob_the_builder")
    cy = make_player("Cy")
    ada = make_player("Ada")
    made = ada.post("/api/v1/challenges", {"to_usernames": ["Bob_The_Builder"], "to": [cy.player_id],
                                           "rules": "classic"}, format="json")
    assert made.status_code == 201, made.content
    assert sorted(i["player"]["id"] for i in made.json()["to"]) == sorted([bob.player_id, cy.player_id])


def test_an_unknown_username_is_named_in_a_404_and_nothing_is_made(make_player) -> None:  # type: ignore[no-untyped-def]
    ada = make_player("Ada")
    missing = ada.post("/api/v1/challenges", {"to_usernames": ["nobody_here"], "rules": "classic"}, format="json")
    assert missing.status_code == 404, missing.content
    assert missing.json()["error"]["details"] == {"field": "to_usernames", "usernames": ["nobody_here"]}
    assert not Challenge.objects.exists()


def test_a_challenge_without_invitees_or_with_a_too_long_name_is_refused(make_player) -> None:  # type: ignore[no-untyped-def]
    ada = make_player("Ada")
    empty = ada.post("/api/v1/challenges", {"rules": "classic"}, format="json")
    assert empty.status_code == 400 and empty.json()["error"]["details"]["field"] == "to"
    long = ada.post("/api/v1/challenges", {"to_usernames": ["x" * 31], "rules": "classic"}, format="json")
    assert long.status_code == 400, long.content
    many = ada.post("/api/v1/challenges", {"to_usernames": ["a" * 5] * 20, "rules": "classic"}, format="json")
    assert many.status_code == 400, many.content
    assert not Challenge.objects.exists()
