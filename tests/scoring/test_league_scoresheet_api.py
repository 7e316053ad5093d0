"""The scoresheet, members and seasons through the API: bad input refused with nothing recorded."""

from __future__ import annotations

from typing import Any

import pytest
from scoring_helpers import client_for
from sheet_helpers import sheet_league

from games.models import LeagueMember, Player
from scoring.models import PlayerResult, RoundResult, RoundVerdict

pytestmark = pytest.mark.django_db


@pytest.fixture
def sheet(players: Any) -> dict[str, Any]:
    owner, bert, cleo, outsider = players(4)
    league = sheet_league(owner, [bert, cleo])
    return {"league": league, "owner": owner, "bert": bert, "cleo": cleo, "outsider": outsider,
            "url": f"/api/v1/leagues/{league.pk}/rounds"}


def body(sheet: dict[str, Any], **changes: Any) -> dict[str, Any]:
    data = {"players": [{"player": sheet["owner"].pk}, {"player": sheet["bert"].pk, "cards": ["10H", "QS"]},
                        {"player": sheet["cleo"].pk, "cards": ["X1"]}],
            "winner": sheet["owner"].pk, "extra_jacks": 0}
    data.update(changes)
    return data


def post(player: Player, url: str, data: Any = None) -> Any:
    return client_for(player).post(url, data if data is not None else {}, format="json")


def test_recording_shows_the_computed_sheet_back_as_pending(sheet):
    response = post(sheet["owner"], sheet["url"], body(sheet, extra_jacks=1))
    assert response.status_code == 201, response.content
    data = response.json()
    assert (data["origin"], data["status"], data["multiplier"]) == ("recorded", "pending", 2)
    assert {line["player"]["id"]: line["points"] for line in data["players"]} == {
        sheet["owner"].pk: 0, sheet["bert"].pk: 26, sheet["cleo"].pk: 100}
    confirmed = post(sheet["bert"], f"{sheet['url']}/{data['id']}/confirm")
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "counted"
    assert confirmed.json()["confirmed_by"] == sheet["bert"].pk


def bad(sheet: dict[str, Any]) -> list[tuple[str, dict[str, Any], int, str]]:
    owner, bert, cleo, outsider = sheet["owner"], sheet["bert"], sheet["cleo"], sheet["outsider"]
    return [
        ("a card not in the deck", body(sheet, players=[{"player": owner.pk}, {"player": bert.pk, "cards": ["1H"]}]),
         400, "not_in_deck"),
        ("a joker the deck lacks", body(sheet, players=[{"player": owner.pk}, {"player": bert.pk, "cards": ["X4"]}]),
         400, "not_in_deck"),
        ("a card in two hands", body(sheet, players=[{"player": owner.pk}, {"player": bert.pk, "cards": ["QS"]},
                                                     {"player": cleo.pk, "cards": ["QS"]}]), 400, "card_twice"),
        ("a winner with cards left", body(sheet, players=[{"player": owner.pk, "cards": ["2H"]},
                                                          {"player": bert.pk, "cards": ["QS"]}]),
         400, "winner_has_cards"),
        ("negative points", body(sheet, players=[{"player": owner.pk}, {"player": bert.pk, "points": -1}]), 400, ""),
        ("absurd points", body(sheet, players=[{"player": owner.pk}, {"player": bert.pk, "points": 9999}]),
         400, "points"),
        ("a non-member", body(sheet, players=[{"player": owner.pk}, {"player": outsider.pk, "cards": ["QS"]}]),
         400, "not_a_member"),
        ("fewer than two players", body(sheet, players=[{"player": owner.pk}]), 400, "players"),
        ("a player twice", body(sheet, players=[{"player": owner.pk}, {"player": owner.pk, "cards": ["QS"]}]),
         400, "player_twice"),
        ("a winner not in the round", body(sheet, winner=outsider.pk), 400, "winner"),
        ("too many extra jacks", body(sheet, extra_jacks=4), 400, ""),
        ("more cards than a deck holds", body(sheet, players=[{"player": owner.pk},
                                                              {"player": bert.pk, "cards": ["QS"] * 65}]), 400, ""),
        ("an unknown field", body(sheet, table=3), 400, ""),
    ]


def test_each_bad_sheet_is_refused_and_nothing_is_recorded(sheet):
    for name, data, status, reason in bad(sheet):
        response = post(sheet["owner"], sheet["url"], data)
        assert response.status_code == status, (name, response.content)
        error = response.json()["error"]
        assert set(error) == {"code", "message", "details"}, name
        if reason:
            assert error["details"]["reason"] == reason, (name, error)
    assert RoundResult.objects.count() == 0 and PlayerResult.objects.count() == 0


def test_only_a_scorekeeper_records(sheet):
    response = post(sheet["bert"], sheet["url"], body(sheet))
    assert response.status_code == 403 and response.json()["error"]["details"]["reason"] == "not_a_scorekeeper"
    named = post(sheet["owner"], f"/api/v1/leagues/{sheet['league'].pk}/members/{sheet['bert'].pk}/role",
                 {"role": "scorekeeper"})
    assert named.status_code == 200
    assert post(sheet["bert"], sheet["url"], body(sheet)).status_code == 201


def test_confirmations_refused_by_the_recorder_an_outsider_and_a_second_time(sheet):
    round_id = post(sheet["owner"], sheet["url"], body(sheet)).json()["id"]
    confirm = f"{sheet['url']}/{round_id}/confirm"
    by_recorder = post(sheet["owner"], confirm)
    assert by_recorder.status_code == 403 and by_recorder.json()["error"]["details"]["reason"] == "recorder"
    LeagueMember.objects.create(league=sheet["league"], player=sheet["outsider"])
    not_in_round = post(sheet["outsider"], confirm)
    assert not_in_round.status_code == 403 and not_in_round.json()["error"]["details"]["reason"] == "not_in_round"
    assert RoundVerdict.objects.count() == 0
    assert post(sheet["bert"], confirm).status_code == 200
    again = post(sheet["cleo"], confirm)
    assert again.status_code == 409 and again.json()["error"]["code"] == "round_not_pending"
    dispute = post(sheet["cleo"], f"{sheet['url']}/{round_id}/dispute")
    assert dispute.status_code == 409
    assert RoundVerdict.objects.count() == 1


def test_a_private_league_is_404_to_outsiders(players):
    owner, bert, outsider = players(3)
    league = sheet_league(owner, [bert], visibility="private")
    base = f"/api/v1/leagues/{league.pk}"
    for path in ("", "/standings", "/seasons", "/seasons/1/standings", "/race", "/rounds", "/members",
                 "/seasons/1/rounds.csv", "/seasons/1/standings.csv"):
        assert client_for(outsider).get(base + path).status_code == 404, path
        assert client_for(bert).get(base + path).status_code == 200, path
    assert league.pk not in [row["id"] for row in client_for(outsider).get("/api/v1/leagues").json()]
    assert post(outsider, base + "/join", {}).status_code == 404
    assert post(outsider, base + "/join", {"invite_code": "wrong"}).status_code == 404
    joined = post(outsider, base + "/join", {"invite_code": league.invite_code})
    assert joined.status_code == 200 and joined.json()["my_role"] == "member"
    assert client_for(outsider).get(base + "/standings").status_code == 200


def test_a_private_leagues_table_refuses_a_non_member_and_a_public_one_takes_them_in(players):
    owner, outsider = players(2)
    private = sheet_league(owner, [], visibility="private")
    public = sheet_league(owner, [])
    made = client_for(owner).post("/api/v1/tables", {"rules": "house", "league": private.pk}, format="json")
    assert made.status_code == 201, made.content
    joined = post(outsider, f"/api/v1/tables/{made.json()['id']}/join", {"invite_code": made.json()["invite_code"]})
    assert joined.status_code == 403 and joined.json()["error"]["details"]["reason"] == "not_a_member"
    made = client_for(owner).post("/api/v1/tables", {"rules": "house", "league": public.pk}, format="json")
    assert post(outsider, f"/api/v1/tables/{made.json()['id']}/join").status_code == 200
    assert LeagueMember.objects.filter(league=public, player=outsider, left_at__isnull=True).exists()


def test_members_leave_and_their_rounds_stay(sheet):
    response = post(sheet["owner"], sheet["url"], body(sheet))
    post(sheet["bert"], f"{sheet['url']}/{response.json()['id']}/confirm")
    base = f"/api/v1/leagues/{sheet['league'].pk}"
    assert post(sheet["cleo"], base + "/leave").status_code == 204
    assert post(sheet["owner"], base + "/leave").status_code == 409
    standings = client_for(sheet["owner"]).get(base + "/standings").json()["standings"]
    assert {line["player"]["id"] for line in standings} == {sheet["owner"].pk, sheet["bert"].pk, sheet["cleo"].pk}
    again = post(sheet["owner"], sheet["url"], body(sheet))
    assert again.status_code == 400 and again.json()["error"]["details"]["reason"] == "not_a_member"


def test_seasons_race_and_csv_through_the_api(players):
    owner, bert = players(2)
    league = sheet_league(owner, [bert], options={"league_limit": 30}, confirmation="scorekeeper")
    base = f"/api/v1/leagues/{league.pk}"
    owner_client = client_for(owner)
    for cards in (["AH"], ["AS"], ["AD"]):
        data = {"players": [{"player": owner.pk}, {"player": bert.pk, "cards": cards}], "winner": owner.pk}
        assert owner_client.post(base + "/rounds", data, format="json").status_code == 201
    seasons = owner_client.get(base + "/seasons").json()["seasons"]
    assert [(s["number"], s["ended_by"], s["loser"]["id"]) for s in seasons] == [(1, "limit", bert.pk)]
    standings = owner_client.get(base + "/seasons/1/standings").json()["standings"]
    assert [(line["player"]["id"], line["points"], line["average_points"], line["best_round"], line["lost"])
            for line in standings] == [(owner.pk, 0, 0.0, 0, False), (bert.pk, 30, 10.0, 10, True)]
    race = owner_client.get(base + "/race", {"limit": 2}).json()
    assert [step["step"] for step in race["steps"]] == [1, 2] and race["next"] == 2
    rest = owner_client.get(base + "/race", {"after": 2}).json()
    assert [step["points"] for step in rest["steps"]] == [{str(owner.pk): 0, str(bert.pk): 30}]
    assert rest["next"] is None and {player["id"] for player in rest["players"]} == {owner.pk, bert.pk}
    csv_rounds = owner_client.get(base + "/seasons/1/rounds.csv")
    assert csv_rounds.status_code == 200 and csv_rounds["Content-Type"].startswith("text/csv")
    assert len(csv_rounds.content.decode().strip().splitlines()) == 1 + 6
    csv_standings = owner_client.get(base + "/seasons/1/standings.csv").content.decode().splitlines()
    assert csv_standings[0].startswith("position,player") and len(csv_standings) == 3
    assert post(bert, base + "/seasons/next").status_code == 403
    started = post(owner, base + "/seasons/next")
    assert started.status_code == 200 and started.json()["league"]["season"] == 2
    assert owner_client.get(base + "/standings").json()["standings"] == []
    assert owner_client.get(base + "/seasons/3/standings").status_code == 404
    assert post(owner, base + "/seasons/close").status_code == 409  # a league with a limit


def test_a_league_without_a_limit_is_closed_into_seasons_by_its_owner(players):
    owner, bert = players(2)
    league = sheet_league(owner, [bert], rules="tavern", confirmation="scorekeeper")
    base = f"/api/v1/leagues/{league.pk}"
    data = {"players": [{"player": owner.pk}, {"player": bert.pk, "cards": ["AH"]}], "winner": owner.pk}
    assert post(owner, base + "/rounds", data).status_code == 201
    closed = post(owner, base + "/seasons/close")
    assert closed.status_code == 200
    assert [(s["number"], s["ended_by"]) for s in closed.json()["seasons"]] == [(1, "closed"), (2, None)]
    first = client_for(owner).get(base + "/seasons/1/standings").json()["standings"]
    assert [(line["player"]["id"], line["wins"]) for line in first] == [(owner.pk, 1), (bert.pk, 0)]
    points = {"players": [{"player": owner.pk}, {"player": bert.pk, "points": 10}], "winner": owner.pk}
    refused = post(owner, base + "/rounds", points)
    assert refused.status_code == 400 and refused.json()["error"]["details"]["reason"] == "points_not_counted"


def test_a_refusal_speaks_the_callers_language(sheet):
    data = body(sheet, players=[{"player": sheet["owner"].pk}, {"player": sheet["bert"].pk, "cards": ["QS"]},
                                {"player": sheet["cleo"].pk, "cards": ["QS"]}])
    german = client_for(sheet["owner"]).post(sheet["url"], data, format="json", HTTP_ACCEPT_LANGUAGE="de")
    assert german.json()["error"]["message"] == "Eine Karte ist in zwei Händen."
    french = client_for(sheet["owner"]).post(sheet["url"], data, format="json", HTTP_ACCEPT_LANGUAGE="fr")
    assert french.json()["error"]["message"] == "Une carte est dans deux mains."
