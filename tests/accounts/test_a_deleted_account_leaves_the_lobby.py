"""A deleted account leaves the lobby: its open seeks and its challenges, sent and received, end with it,
so that nobody is seated with "Deleted player" afterwards."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from lobby.models import Challenge, Seek
from streams.models import Notification
from tests.accounts.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def _seek(client: APIClient, **body: object) -> dict:  # type: ignore[type-arg]
    response = client.post("/api/v1/seeks", {"rules": "classic", "players": 2, **body}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _challenge(client: APIClient, to: list[int]) -> int:
    response = client.post("/api/v1/challenges", {"to": to, "rules": "classic"}, format="json")
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


def test_a_seeker_after_the_deletion_is_never_matched_with_the_deleted_player(
    make_account: Callable[..., APIClient], make_player: Callable[..., APIClient]
) -> None:
    ada, bob = make_account("ada"), make_player("Bob")
    ada_id = ada.get("/api/v1/me").json()["id"]
    mine = _seek(ada)
    _seek(ada, players=3, fill_with_bots_after=60)
    assert ada.delete("/api/v1/me/account", {"password": PASSWORD}, format="json").status_code == 204
    assert set(Seek.objects.filter(player_id=ada_id).values_list("status", flat=True)) == {"cancelled"}
    assert bob.get("/api/v1/seeks").json() == []
    after = _seek(bob)
    assert after["status"] == "open" and after["game"] is None, "seated with the deleted player"
    assert Seek.objects.get(pk=mine["id"]).table_id is None


def test_a_deleted_accounts_challenges_sent_and_received_are_cancelled(
    make_account: Callable[..., APIClient], make_player: Callable[..., APIClient]
) -> None:
    ada, bob, cy = make_account("ada"), make_player("Bob"), make_player("Cy")
    ada_id = ada.get("/api/v1/me").json()["id"]
    sent = _challenge(ada, [bob.player_id])
    received = _challenge(cy, [ada_id, bob.player_id])
    assert ada.delete("/api/v1/me/account", {"password": PASSWORD}, format="json").status_code == 204
    assert Challenge.objects.get(pk=sent).status == "cancelled"
    assert Challenge.objects.get(pk=received).status == "cancelled"
    for client, cid in ((bob, sent), (bob, received)):
        late = client.post(f"/api/v1/challenges/{cid}/accept")
        assert late.status_code == 409 and late.json()["error"]["details"]["reason"] == "challenge_cancelled"
    told = set(Notification.objects.filter(kind="challenge_cancelled").values_list("player_id", "data__challenge"))
    assert {(bob.player_id, sent), (bob.player_id, received), (cy.player_id, received)} <= told
    refused = cy.post("/api/v1/challenges", {"to": [ada_id], "rules": "classic"}, format="json")
    assert refused.status_code == 404, "a deleted account cannot be challenged"
