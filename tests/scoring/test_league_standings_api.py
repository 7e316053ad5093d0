"""League endpoints (docs/api.md, leagues), table scoreboards and player statistics."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from scoring_helpers import client_for, points_result, scored, table_for

pytestmark = pytest.mark.django_db


def test_creating_a_league_stores_its_effective_options(players):
    (ada,) = players(1)
    response = client_for(ada).post(
        "/api/v1/leagues", {"name": "Family", "rules": "house", "options": {"hand_size": 7}}, format="json"
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["name"], body["rules"], body["status"], body["league_limit"]) == ("Family", "house", "active", 500)
    assert body["options"]["hand_size"] == 7 and body["options"]["jokers"] == 3
    assert body["created_by"]["id"] == ada.pk and body["loser"] is None
    assert client_for(ada).get(f"/api/v1/leagues/{body['id']}").json() == body


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"name": "X", "rules": "poker"}, "rules"),
        ({"name": "", "rules": "house"}, "name"),
        ({"name": "X", "rules": "house", "options": {"league_limit": -1}}, None),
        ({"name": "X", "rules": "house", "options": {"no_such_option": 1}}, None),
    ],
)
def test_a_malformed_league_is_refused_with_a_validation_error(players, payload, field):
    (ada,) = players(1)
    response = client_for(ada).post("/api/v1/leagues", payload, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    if field:
        assert field in error["details"]["fields"]
    else:
        assert error["details"]["option"] in payload["options"]


def test_league_endpoints_need_a_token_and_an_existing_league(players, api_client):
    (ada,) = players(1)
    assert api_client.get("/api/v1/leagues/1/standings").status_code == 401
    missing = client_for(ada).get("/api/v1/leagues/999999/standings")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_house_standings_list_fewest_points_first_share_positions_and_mark_the_loser(players, league_of, finish_round):
    league = league_of("house")
    ada, bert, cleo, dora = players(4)
    table = table_for([ada, bert, cleo, dora], league)
    finish_round(table, points_result([0, 40, 40, 100], winner=0, multiplier=2))
    finish_round(table, points_result([30, 0, 30, 450], winner=1))

    body = client_for(ada).get(f"/api/v1/leagues/{league.pk}/standings").json()

    assert body["league"]["status"] == "finished" and body["league"]["loser"]["id"] == dora.pk
    lines = [
        (line["position"], line["player"]["id"], line["rounds"], line["wins"], line["points"], line["multiplier_bonus"])
        for line in body["standings"]
    ]
    assert lines == [
        (1, ada.pk, 2, 1, 30, 1),
        (2, bert.pk, 2, 1, 40, 0),
        (3, cleo.pk, 2, 0, 70, 0),
        (4, dora.pk, 2, 0, 550, 0),
    ]
    assert [(line["reached_limit"], line["lost"]) for line in body["standings"]] == [(False, False)] * 3 + [
        (True, True)
    ]


def test_equal_points_share_a_position(players, league_of, finish_round):
    league = league_of("house")
    ada, bert, cleo = players(3)
    finish_round(table_for([ada, bert, cleo], league), points_result([0, 25, 25], winner=0))

    body = client_for(ada).get(f"/api/v1/leagues/{league.pk}/standings").json()

    assert [line["position"] for line in body["standings"]] == [1, 2, 2]
    assert body["standings"][0]["player"]["id"] == ada.pk


def test_tavern_standings_put_most_wins_first(players, league_of, finish_round):
    league = league_of("tavern")
    ada, bert, cleo = players(3)
    table = table_for([ada, bert, cleo], league)
    for winner in (1, 1, 2):
        hands = [["KH"] if seat != winner else [] for seat in range(3)]
        finish_round(table, scored(hands, "wins", winner))

    body = client_for(ada).get(f"/api/v1/leagues/{league.pk}/standings").json()

    assert [(line["position"], line["player"]["id"], line["wins"]) for line in body["standings"]] == [
        (1, bert.pk, 2),
        (2, cleo.pk, 1),
        (3, ada.pk, 0),
    ]


def _standings_queries(client, league_id: int) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/api/v1/leagues/{league_id}/standings").status_code == 200
    return len(queries)


def test_the_standings_query_count_does_not_grow_with_rounds_or_players(players, league_of, finish_round):
    league = league_of("house")
    seated = players(6)
    client = client_for(seated[0])
    first_table = table_for(seated[:2], league)
    finish_round(first_table, points_result([0, 3], winner=0))
    few = _standings_queries(client, league.pk)

    second_table = table_for(seated[2:], league)
    for number in range(25):
        finish_round(first_table, points_result([0, 1], winner=0))
        finish_round(second_table, points_result([0, 1, 2, 3], winner=number % 4 or 0))
    many = _standings_queries(client, league.pk)

    assert few == many
    assert many <= 3  # token, league, standings


def test_the_table_scoreboard_counts_rounds_wins_and_points_per_player(players, make_table, finish_round):
    ada, bert, cleo = players(3)
    table = make_table([ada, bert, cleo], rules="classic")
    finish_round(table, scored([[], ["AS", "7C"], ["KH"]], "ranking", 0))  # bert 18, cleo 4
    finish_round(table, scored([["8D"], [], ["QH", "JC"]], "ranking", 1))  # ada 8, cleo 5

    body = client_for(ada).get(f"/api/v1/tables/{table.pk}/scoreboard").json()

    assert (body["table"], body["rules"], body["rounds"]) == (table.pk, "classic", 2)
    assert [
        (row["position"], row["player"]["id"], row["rounds"], row["wins"], row["points"]) for row in body["players"]
    ] == [
        (1, ada.pk, 2, 1, 8),
        (2, bert.pk, 2, 1, 18),
        (3, cleo.pk, 2, 0, 9),
    ]


def test_a_new_table_scoreboard_lists_its_seated_players_with_zeros(players, make_table):
    ada, bert = players(2)
    table = make_table([ada, bert], rules="tavern")
    body = client_for(ada).get(f"/api/v1/tables/{table.pk}/scoreboard").json()
    assert body["rounds"] == 0
    assert [(row["position"], row["rounds"], row["wins"], row["points"]) for row in body["players"]] == [
        (1, 0, 0, 0)
    ] * 2
    assert client_for(ada).get("/api/v1/tables/999999/scoreboard").status_code == 404


def test_player_statistics_are_split_by_rule_set(players, make_table, finish_round):
    ada, bert = players(2)
    house = make_table([ada, bert], rules="house")
    tavern = make_table([ada, bert], rules="tavern")
    finish_round(house, points_result([0, 12], winner=0, multiplier=2))
    finish_round(house, points_result([7, 0], winner=1))
    finish_round(tavern, scored([[], ["2C"]], "wins", 0))

    mine = client_for(ada).get("/api/v1/me/stats").json()
    theirs = client_for(ada).get(f"/api/v1/players/{bert.pk}/stats").json()

    assert mine["player"]["id"] == ada.pk
    assert mine["overall"] == {
        "rounds": 3,
        "wins": 2,
        "win_rate": 0.6667,
        "points": 7,
        "average_points": 2.33,
        "multiplier_bonus": 1,
    }
    assert (mine["by_rules"]["house"]["rounds"], mine["by_rules"]["house"]["win_rate"]) == (2, 0.5)
    assert mine["by_rules"]["tavern"]["wins"] == 1
    assert mine["by_rules"]["classic"] == {
        "rounds": 0,
        "wins": 0,
        "win_rate": 0.0,
        "points": 0,
        "average_points": 0.0,
        "multiplier_bonus": 0,
    }
    assert (theirs["overall"]["rounds"], theirs["overall"]["wins"], theirs["overall"]["points"]) == (3, 1, 12)
    assert client_for(ada).get("/api/v1/players/999999/stats").status_code == 404


def test_player_history_lists_finished_rounds_newest_first(players, make_table, finish_round):
    ada, bert = players(2)
    table = make_table([ada, bert], rules="house")
    rounds = [finish_round(table, points_result([0, value], winner=0)) for value in (5, 6, 7)]

    page = client_for(bert).get("/api/v1/me/history?limit=2").json()

    assert page["count"] == 3
    assert [row["game"] for row in page["results"]] == [rounds[2].game_id, rounds[1].game_id]
    assert [row["points"] for row in page["results"]] == [7, 6]
    assert page["results"][0]["round"] == 3 and page["results"][0]["reason"] == "mau_mau"
    rest = client_for(ada).get(f"/api/v1/players/{bert.pk}/history?limit=2&offset=2").json()
    assert [row["points"] for row in rest["results"]] == [5]
    bad = client_for(ada).get("/api/v1/me/history?limit=0")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "validation_error"
