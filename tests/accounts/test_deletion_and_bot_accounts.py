"""Bot accounts are shown as bots everywhere yet play for themselves; a deleted account is anonymised
while its ledgers, results and standings stay whole and still verify."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from games.models import Player, Seat
from streams.models import Notification
from tests.accounts.conftest import PASSWORD, login
from tests.games.api_helpers import act, setup_for, view
from tests.scoring.scoring_helpers import deal_fixed

pytestmark = pytest.mark.django_db


def league_round(person: APIClient, other: APIClient,
                 monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A league table of ``person`` (host, seat 0) and ``other``; one round played to its end (the
    person lays 7H, the other draws and keeps, the person lays KH and wins). A league refuses a chosen
    deal, so the fair deal is made the known one for the test."""
    league = person.post("/api/v1/leagues", {"name": "Friday", "rules": "classic"}, format="json").json()
    joined = other.post(f"/api/v1/leagues/{league['id']}/join", {"code": league["invite_code"]}, format="json")
    assert joined.status_code == 200  # only members play at a league's tables
    table = person.post("/api/v1/tables", {"rules": "classic", "league": league["id"]}, format="json").json()
    assert other.post(f"/api/v1/tables/{table['id']}/join").status_code == 200
    deal_fixed(monkeypatch, setup_for("classic", [["7H", "KH"], ["8C", "KD"]], "9H"))
    game = person.post(f"/api/v1/tables/{table['id']}/rounds", format="json").json()
    assert act(person, game["id"], {"type": "play", "cards": ["7H"]}).status_code == 200
    while (state := view(other, game["id"]))["turn"] == 1:
        choice = next(a for a in state["legal_actions"] if a["type"] in ("pass", "draw"))
        assert act(other, game["id"], choice).status_code == 200
    assert act(person, game["id"], {"type": "play", "cards": ["KH"]}).status_code == 200
    return league, table, game


def verified() -> None:
    out = StringIO()
    call_command("verify_ledger", stdout=out, stderr=StringIO())
    assert "0 with problems" in out.getvalue(), out.getvalue()
    out = StringIO()
    call_command("verify_standings", stdout=out, stderr=StringIO())
    assert "standings match" in out.getvalue(), out.getvalue()


def test_a_bot_account_is_shown_as_a_bot_in_every_view_and_standing(
    make_account: Callable[..., APIClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    ada, bot = make_account("ada"), make_account("maubot", bot=True, name="MauBot")
    league, table, game = league_round(ada, bot, monkeypatch)
    bot_id = bot.get("/api/v1/me").json()["id"]
    assert bot.get("/api/v1/me").json()["bot"] is True
    assert bot.get("/api/v1/me/account").json()["bot"] is True
    assert [p["bot"] for p in view(ada, game["id"])["players"]] == [False, True]
    seats = ada.get(f"/api/v1/tables/{table['id']}").json()["seats"]
    assert [(s["player"]["id"], s["player"]["bot"]) for s in seats][1] == (bot_id, True)
    standings = ada.get(f"/api/v1/leagues/{league['id']}/standings").json()["standings"]
    assert {line["player"]["id"]: line["player"]["bot"] for line in standings}[bot_id] is True
    scoreboard = ada.get(f"/api/v1/tables/{table['id']}/scoreboard").json()
    assert any(line["player"]["id"] == bot_id and line["player"]["bot"] for line in scoreboard["players"])


def test_a_bot_account_plays_for_itself_and_is_told_its_turn(make_account: Callable[..., APIClient]) -> None:
    ada, bot = make_account("ada"), make_account("maubot", bot=True)
    table = ada.post("/api/v1/tables", {"rules": "classic"}, format="json").json()
    assert bot.post(f"/api/v1/tables/{table['id']}/join").status_code == 200
    setup = setup_for("classic", [["7H", "KH"], ["8C", "KD"]], "9H")
    game = ada.post(f"/api/v1/tables/{table['id']}/rounds", {"setup": setup}, format="json").json()
    assert act(ada, game["id"], {"type": "play", "cards": ["7H"]}).status_code == 200
    assert view(bot, game["id"])["turn"] == 1  # no server bot moved for it
    bot_player = Player.objects.get(name="maubot")
    assert not Seat.objects.get(player=bot_player).bot_controlled
    assert Notification.objects.filter(player=bot_player, kind="your_turn").exists()


def test_a_deleted_account_is_anonymised_and_its_rounds_still_verify(
    make_account: Callable[..., APIClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    ada, bob = make_account("ada", name="Ada Lovelace"), make_account("bob")
    league, table, _game = league_round(ada, bob, monkeypatch)
    ada_id = ada.get("/api/v1/me").json()["id"]
    second = ada.post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()
    refused = ada.delete("/api/v1/me/account", {"password": "not it"}, format="json")
    assert refused.status_code == 401 and Player.objects.get(pk=ada_id).name == "Ada Lovelace"

    assert ada.delete("/api/v1/me/account", {"password": PASSWORD}, format="json").status_code == 204
    assert ada.get("/api/v1/me").status_code == 401
    assert login("ada").status_code == 401
    assert Player.objects.get(pk=ada_id).name == "Deleted player"
    assert "ada" not in {u.username for u in Player.objects.get(pk=ada_id).user.__class__.objects.all()}
    standings = bob.get(f"/api/v1/leagues/{league['id']}/standings").json()["standings"]
    assert {line["player"]["id"]: line["player"]["name"] for line in standings}[ada_id] == "Deleted player"
    seat = Seat.objects.get(player_id=ada_id)
    assert seat.left and seat.bot_controlled  # a bot plays the running round on
    assert bob.get(f"/api/v1/tables/{table['id']}").json()["host"]["id"] == bob.get("/api/v1/me").json()["id"]
    assert view(bob, second["id"])["status"] == "active"
    verified()
    assert make_account("ada").get("/api/v1/me").json()["id"] != ada_id  # the username is free again


def test_a_guest_deletes_its_account_without_a_password(make_player: Callable[..., APIClient]) -> None:
    guest = make_player("Script")
    assert guest.delete("/api/v1/me/account").status_code == 204
    assert guest.get("/api/v1/me").status_code == 401
    assert Player.objects.get(pk=guest.player_id).name == "Deleted player"
