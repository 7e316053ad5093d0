"""A private league's tables take its visibility: its tables, rounds, ledger, streams, chat,
scoreboard and the history lines of its rounds are 404 (or left out) to anyone who is not a member,
as its standings are; its members find its tables and join them without the table's invite code."""

from __future__ import annotations

from typing import Any

import pytest
from sheet_helpers import league_night

pytestmark = pytest.mark.django_db


def _private_league_round(make_player: Any) -> tuple[dict[str, Any], Any, Any, Any, dict[str, Any], int]:
    """A private house league of three; the owner and the second member play a round the owner resigns."""
    league, (owner, member, onlooker) = league_night(make_player, 3, visibility="private")
    made = owner.post("/api/v1/tables", {"rules": "house", "league": league["id"], "max_players": 2}, format="json")
    assert made.status_code == 201, made.content
    table = made.json()
    assert member.post(f"/api/v1/tables/{table['id']}/join", format="json").status_code == 200
    game = owner.post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json")
    assert game.status_code == 201, game.content
    gid = game.json()["id"]
    assert owner.post(f"/api/v1/games/{gid}/actions", {"type": "resign"}, format="json").status_code == 200
    return league, owner, member, onlooker, table, gid


def test_a_private_leagues_table_is_private_even_when_asked_public(make_player: Any) -> None:
    league, (owner, _member) = league_night(make_player, 2, visibility="private")
    table = owner.post("/api/v1/tables", {"rules": "house", "league": league["id"], "visibility": "public"},
                       format="json").json()
    assert table["visibility"] == "private"
    public, (host, _other) = league_night(make_player, 2)
    assert host.post("/api/v1/tables", {"rules": "house", "league": public["id"]},
                     format="json").json()["visibility"] == "public"


SURFACES = {"table": "/api/v1/tables/{tid}", "round": "/api/v1/games/{gid}", "ledger": "/api/v1/games/{gid}/events",
            "fairness": "/api/v1/games/{gid}/fairness", "chat": "/api/v1/tables/{tid}/messages",
            "scoreboard": "/api/v1/tables/{tid}/scoreboard"}


@pytest.mark.parametrize("surface", SURFACES)
def test_a_private_leagues_round_is_404_to_a_stranger(make_player: Any, surface: str) -> None:
    _league, _owner, member, _onlooker, table, gid = _private_league_round(make_player)
    path = SURFACES[surface].format(tid=table["id"], gid=gid)
    answer = make_player("Stranger").get(path)
    assert (answer.status_code, answer.json()["error"]["code"]) == (404, "not_found"), answer.content
    assert member.get(path).status_code == 200


def test_a_stranger_neither_lists_nor_joins_nor_chats_at_a_private_leagues_table(make_player: Any) -> None:
    _league, _owner, member, _onlooker, table, _gid = _private_league_round(make_player)
    stranger = make_player("Stranger")
    tid = table["id"]
    for status in ("any", "open", "playing"):
        assert tid not in [t["id"] for t in stranger.get(f"/api/v1/tables?status={status}").json()]
    assert tid in [t["id"] for t in member.get("/api/v1/tables?status=any").json()]
    assert stranger.post(f"/api/v1/tables/{tid}/messages", {"text": "hi"}, format="json").status_code == 404
    assert stranger.post(f"/api/v1/tables/{tid}/join", format="json").status_code == 404


def test_a_strangers_view_of_a_members_history_leaves_the_private_league_out(make_player: Any) -> None:
    league, owner, member, _onlooker, _table, _gid = _private_league_round(make_player)
    stranger = make_player("Stranger")
    for player in (owner, member):
        lines = stranger.get(f"/api/v1/players/{player.player_id}/history").json()
        assert lines["count"] == 0 and lines["results"] == [], "nor the private league's id"
        own = player.get(f"/api/v1/players/{player.player_id}/history").json()
        assert own["count"] == 1 and own["results"][0]["league"] == league["id"]


def test_a_member_without_a_seat_finds_the_table_and_joins_without_its_code(make_player: Any) -> None:
    league, owner, _member, onlooker, _table, _gid = _private_league_round(make_player)
    other = owner.post("/api/v1/tables", {"rules": "house", "league": league["id"]}, format="json").json()
    assert onlooker.get(f"/api/v1/tables/{other['id']}").status_code == 200
    assert other["id"] in [t["id"] for t in onlooker.get("/api/v1/tables").json()]
    assert onlooker.post(f"/api/v1/tables/{other['id']}/join", format="json").status_code == 200
    history = onlooker.get(f"/api/v1/players/{owner.player_id}/history").json()
    assert history["count"] == 1  # a member reads the league's rounds, as its standings
    assert onlooker.post(f"/api/v1/leagues/{league['id']}/leave", {}, format="json").status_code == 204
    assert onlooker.get(f"/api/v1/players/{owner.player_id}/history").json()["count"] == 0
