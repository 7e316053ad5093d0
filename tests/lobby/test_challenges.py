"""Challenges: named players accept or decline; the last accept starts a private table; all are told;
nobody else sees or answers them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from lobby import services
from lobby.models import Challenge
from streams.models import Notification

pytestmark = pytest.mark.django_db


def challenge(client, to, **body):  # type: ignore[no-untyped-def]
    return client.post("/api/v1/challenges", {"to": to, "rules": "classic", **body}, format="json")


def kinds(player_id: int) -> list[str]:
    return list(Notification.objects.filter(player_id=player_id).order_by("id").values_list("kind", flat=True))


def test_when_everyone_accepts_a_private_table_and_its_round_start(make_player) -> None:  # type: ignore[no-untyped-def]
    ada, bob, cy = make_player("Ada"), make_player("Bob"), make_player("Cy")
    made = challenge(ada, [bob.player_id, cy.player_id])
    assert made.status_code == 201, made.content
    cid = made.json()["id"]
    assert kinds(bob.player_id) == ["challenge_received"]
    assert bob.post(f"/api/v1/challenges/{cid}/accept").json()["status"] == "open"
    done = cy.post(f"/api/v1/challenges/{cid}/accept").json()
    assert done["status"] == "started" and done["game"]
    table = ada.get(f"/api/v1/tables/{done['table']}").json()
    assert table["visibility"] == "private" and len(table["seats"]) == 3 and table["invite_code"]
    assert "game_started" in kinds(ada.player_id) and "challenge_accepted" in kinds(ada.player_id)
    assert "game_started" in kinds(bob.player_id) and "game_started" in kinds(cy.player_id)
    assert bob.get(f"/api/v1/games/{done['game']}").json()["hand"]


def test_one_decline_ends_a_challenge_and_the_others_are_told(make_player) -> None:  # type: ignore[no-untyped-def]
    ada, bob, cy = make_player("Ada"), make_player("Bob"), make_player("Cy")
    cid = challenge(ada, [bob.player_id, cy.player_id]).json()["id"]
    assert bob.post(f"/api/v1/challenges/{cid}/decline").json()["status"] == "declined"
    late = cy.post(f"/api/v1/challenges/{cid}/accept")
    assert late.status_code == 409 and late.json()["error"]["details"]["reason"] == "challenge_declined"
    assert "challenge_declined" in kinds(ada.player_id) and "challenge_declined" in kinds(cy.player_id)


def test_an_unanswered_challenge_expires(make_player) -> None:  # type: ignore[no-untyped-def]
    ada, bob = make_player("Ada"), make_player("Bob")
    cid = challenge(ada, [bob.player_id], expires_in=60).json()["id"]
    assert services.challenges_expire() == 0
    assert services.challenges_expire(now=timezone.now() + timedelta(seconds=61)) == 1
    assert Challenge.objects.get(pk=cid).status == "expired"
    assert "challenge_expired" in kinds(ada.player_id) and "challenge_expired" in kinds(bob.player_id)
    assert bob.post(f"/api/v1/challenges/{cid}/accept").status_code == 409


def test_nobody_else_sees_or_answers_a_challenge(make_player) -> None:  # type: ignore[no-untyped-def]
    ada, bob, eve = make_player("Ada"), make_player("Bob"), make_player("Eve")
    cid = challenge(ada, [bob.player_id]).json()["id"]
    assert eve.get("/api/v1/challenges").json() == []
    for response in [eve.get(f"/api/v1/challenges/{cid}"), eve.post(f"/api/v1/challenges/{cid}/accept"),
                     eve.post(f"/api/v1/challenges/{cid}/decline"), eve.delete(f"/api/v1/challenges/{cid}")]:
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert ada.post(f"/api/v1/challenges/{cid}/accept").status_code == 403  # the challenger does not answer
    assert bob.delete(f"/api/v1/challenges/{cid}").status_code == 403  # only the challenger cancels
    assert Challenge.objects.get(pk=cid).status == "open"
    assert ada.delete(f"/api/v1/challenges/{cid}").status_code == 204


@pytest.mark.parametrize("body", [{"to": []}, {"to": [10**12]}, {"to": list(range(1, 20))}, {"expires_in": 1},
                                  {"expires_in": 10**9}, {"max_players": 99}, {"rules": "poker"}])
def test_a_malformed_challenge_is_refused_and_changes_nothing(make_player, body) -> None:  # type: ignore[no-untyped-def]
    ada, bob = make_player("Ada"), make_player("Bob")
    response = ada.post("/api/v1/challenges", {"to": [bob.player_id], "rules": "classic", **body}, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "validation_error"
    assert not Challenge.objects.exists()


def test_challenging_yourself_or_nobody_is_refused(make_player) -> None:  # type: ignore[no-untyped-def]
    ada = make_player("Ada")
    assert challenge(ada, [ada.player_id]).status_code == 400
    assert challenge(ada, [99999]).status_code == 404
