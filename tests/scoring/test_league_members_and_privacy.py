"""League members: joining by invite code, leaving, roles; only members play at a league's tables; a private
league is 404 to outsiders; the standings and race reads take a fixed number of queries."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from sheet_helpers import confirm, league_night, recorded

from lobby.models import Seek

pytestmark = pytest.mark.django_db


def test_a_private_league_is_404_to_outsiders(make_player):
    league, (ada, bert) = league_night(make_player, 2, visibility="private")
    lid = league["id"]
    sheet = recorded(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 5}],
                     ada.player_id)
    outsider = make_player("Outsider")
    paths = [f"/api/v1/leagues/{lid}", f"/api/v1/leagues/{lid}/standings", f"/api/v1/leagues/{lid}/seasons",
             f"/api/v1/leagues/{lid}/seasons/1/standings", f"/api/v1/leagues/{lid}/seasons/1/export?format=csv",
             f"/api/v1/leagues/{lid}/race", f"/api/v1/leagues/{lid}/rounds", f"/api/v1/leagues/{lid}/members"]

    for path in paths:
        assert outsider.get(path).status_code == 404, path
        assert bert.get(path).status_code == 200, path
    assert confirm(outsider, lid, sheet["id"]).status_code == 404
    assert outsider.post(f"/api/v1/leagues/{lid}/resign", {}, format="json").status_code == 404
    assert outsider.post(f"/api/v1/leagues/{lid}/leave", {}, format="json").status_code == 404
    assert outsider.post("/api/v1/tables", {"rules": "house", "league": lid}, format="json").status_code == 404
    assert outsider.post(f"/api/v1/leagues/{lid}/join", {"code": "guessed"}, format="json").status_code == 404
    assert lid not in [row["id"] for row in outsider.get("/api/v1/leagues").json()]
    assert lid in [row["id"] for row in bert.get("/api/v1/leagues?mine=true").json()]
    assert outsider.get(f"/api/v1/leagues/{lid}/standings").json()["error"]["code"] == "not_found"


def test_only_members_play_at_a_league_table_and_seat_its_bots(make_player):
    league, (ada, bert) = league_night(make_player, 2)
    lid = league["id"]
    outsider = make_player("Outsider")
    table = ada.post("/api/v1/tables", {"rules": "house", "league": lid}, format="json").json()

    joined = outsider.post(f"/api/v1/tables/{table['id']}/join")
    opened = outsider.post("/api/v1/tables", {"rules": "house", "league": lid}, format="json")
    seek = outsider.post("/api/v1/seeks", {"rules": "house", "players": 2, "league": lid}, format="json")

    for answer in (joined, opened, seek):
        assert (answer.status_code, answer.json()["error"]["code"]) == (403, "league_members_only")
    assert not Seek.objects.filter(player_id=outsider.player_id).exists()
    assert bert.post(f"/api/v1/tables/{table['id']}/join").status_code == 200
    assert ada.post(f"/api/v1/tables/{table['id']}/bots", {"level": "basic"}, format="json").status_code == 201
    # A member who left no longer sits down; their recorded rounds stay.
    sheet = recorded(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 5}],
                     ada.player_id)
    assert confirm(bert, lid, sheet["id"]).status_code == 200
    assert bert.post(f"/api/v1/leagues/{lid}/leave", {}, format="json").status_code == 204
    again = bert.post("/api/v1/tables", {"rules": "house", "league": lid}, format="json")
    assert again.json()["error"]["code"] == "league_members_only"
    assert [row["player"]["id"] for row in ada.get(f"/api/v1/leagues/{lid}/standings").json()["standings"]] == [
        ada.player_id, bert.player_id]
    assert [row["role"] for row in ada.get(f"/api/v1/leagues/{lid}/members").json()["results"]] == ["owner"]


def test_joining_needs_the_code_is_idempotent_and_the_owner_cannot_leave(make_player):
    league, (ada,) = league_night(make_player, 1)
    lid = league["id"]
    bert = make_player("Bert")
    wrong = bert.post(f"/api/v1/leagues/{lid}/join", {"code": "nope"}, format="json")
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (403, "invite_code_wrong")
    assert bert.get(f"/api/v1/leagues/{lid}").json()["invite_code"] is None
    for _ in range(2):
        body = bert.post(f"/api/v1/leagues/{lid}/join", {"code": league["invite_code"]}, format="json").json()
        assert (body["your_role"], body["members"], body["invite_code"]) == ("member", 2, league["invite_code"])
    owner_leaves = ada.post(f"/api/v1/leagues/{lid}/leave", {}, format="json")
    assert (owner_leaves.status_code, owner_leaves.json()["error"]["code"]) == (409, "owner_cannot_leave")
    assert bert.post(f"/api/v1/leagues/{lid}/join", {"code": "x" * 65}, format="json").status_code == 400


def test_the_standings_and_race_reads_take_three_queries_whatever_the_rounds(make_player):
    league, (ada, bert, cleo) = league_night(make_player, 3, scorekeeper_alone=True, options={"league_limit": 0})
    lid = league["id"]
    for points in range(1, 13):
        recorded(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": points},
                            {"player": cleo.player_id, "cards": ["QH"]}], ada.player_id)
    reads = {f"/api/v1/leagues/{lid}/standings": None, f"/api/v1/leagues/{lid}/race?limit=5": None,
             f"/api/v1/leagues/{lid}/race?after=10": None, f"/api/v1/leagues/{lid}/seasons/1/standings": None}

    for path in reads:
        with CaptureQueriesContext(connection) as queries:
            answer = ada.get(path)
        assert answer.status_code == 200
        reads[path] = len(queries)  # the token, the league (with the caller's role), the rows

    assert set(reads.values()) == {3}, reads
    race = ada.get(f"/api/v1/leagues/{lid}/race?limit=5").json()
    assert (race["next"], [step["round"] for step in race["results"]]) == (5, [1, 2, 3, 4, 5])
    assert [p["id"] for p in race["players"]] == [ada.player_id, bert.player_id, cleo.player_id]
    last = ada.get(f"/api/v1/leagues/{lid}/race?after=10").json()
    assert last["next"] is None and last["results"][-1]["totals"] == {
        str(ada.player_id): 0, str(bert.player_id): 78, str(cleo.player_id): 36}
    line = next(row for row in ada.get(f"/api/v1/leagues/{lid}/standings").json()["standings"]
                if row["player"]["id"] == bert.player_id)
    assert (line["rounds"], line["points"], line["biggest_round"], line["average_points"]) == (12, 78, 12, 6.5)
    csv = ada.get(f"/api/v1/leagues/{lid}/seasons/1/export?format=csv")
    assert csv["Content-Type"].startswith("text/csv")
    assert csv.content.decode().count("\nround,") == 36 and csv.content.decode().count("\nstanding,") == 3
    assert ada.get(f"/api/v1/leagues/{lid}/seasons/1/export?format=xml").status_code == 400
    assert ada.get(f"/api/v1/leagues/{lid}/race?limit=100000").status_code == 400
    assert ada.get(f"/api/v1/leagues/{lid}/seasons/99999999999/standings").status_code == 404


def test_the_admin_shows_a_leagues_members_seasons_and_sheet(make_player):
    from django.contrib.auth.models import User
    from django.test import Client

    league, (ada, bert) = league_night(make_player, 2)
    recorded(ada, league["id"], [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 5}],
             ada.player_id)
    User.objects.create_superuser("root", "root@example.com", "pw")
    admin = Client()
    assert admin.login(username="root", password="pw")

    page = admin.get(f"/admin/games/league/{league['id']}/change/")

    assert page.status_code == 200
    assert "owner" in page.content.decode()
    assert admin.get("/admin/scoring/roundresult/?source=recorded").status_code == 200
