"""A league's scoresheet through the API: rounds played with real cards, recorded, confirmed, disputed and
corrected; seasons that end at the limit and the next one started; the same points as played rounds."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from scoring_helpers import deal_fixed
from sheet_helpers import confirm, league_night, record, recorded, standings
from test_scoring_through_the_api import deal, play_last_card

from games import engine
from scoring.models import RoundResult

pytestmark = pytest.mark.django_db


def verified() -> str:
    out = StringIO()
    call_command("verify_standings", stdout=out, stderr=StringIO())
    return out.getvalue()


def test_a_house_season_recorded_to_500_names_the_loser_and_the_next_season_keeps_the_first(make_player):
    league, (ada, bert, cleo) = league_night(make_player, 3)
    lid = league["id"]
    # Bert keeps J J A A A (20+20+10+10+10 = 70) each round, Cleo gives 12 points; Ada wins.
    bert_hand = ["JH", "JS", "AC", "AD", "AH"]
    rounds = 0
    while True:
        sheet = recorded(ada, lid, [{"player": ada.player_id, "cards": []},
                                    {"player": bert.player_id, "cards": bert_hand},
                                    {"player": cleo.player_id, "points": 12}], ada.player_id)
        assert sheet["status"] == "pending" and sheet["source"] == "recorded"
        # Both players it gives points to confirm it: it counts at the second confirmation.
        assert confirm(cleo, lid, sheet["id"]).json()["status"] == "pending"
        assert confirm(bert, lid, sheet["id"]).json()["status"] == "counted"
        rounds += 1
        if ada.get(f"/api/v1/leagues/{lid}").json()["status"] == "finished":
            break
        assert rounds < 20
    assert rounds == 8  # 8 x 70 = 560 >= 500 (7 x 70 = 490 is not yet)
    seasons = ada.get(f"/api/v1/leagues/{lid}/seasons").json()["results"]
    assert [(s["number"], s["status"], s["loser"]["id"], s["rounds"]) for s in seasons] == [
        (1, "finished", bert.player_id, 8)]
    first = standings(ada, lid, 1)
    assert first == [(ada.player_id, 8, 8, 0), (cleo.player_id, 8, 0, 96), (bert.player_id, 8, 0, 560)]
    lines = ada.get(f"/api/v1/leagues/{lid}/seasons/1/standings").json()["standings"]
    assert [(row["lost"], row["biggest_round"], row["average_points"]) for row in lines] == [
        (False, 0, 0.0), (False, 12, 12.0), (True, 70, 70.0)]
    # The season is over: nothing more is recorded until the owner starts the next one.
    refused = record(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 3}],
                     ada.player_id)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "league_finished"
    assert bert.post(f"/api/v1/leagues/{lid}/seasons", {}, format="json").status_code == 403

    started = ada.post(f"/api/v1/leagues/{lid}/seasons", {}, format="json")

    assert started.status_code == 201 and started.json()["number"] == 2
    sheet = recorded(ada, lid, [{"player": ada.player_id, "points": 7}, {"player": bert.player_id, "cards": []}],
                     bert.player_id)
    assert confirm(ada, lid, sheet["id"]).status_code == 403  # the recorder's own confirmation: still pending
    assert standings(ada, lid) == []
    league_now = ada.get(f"/api/v1/leagues/{lid}").json()
    assert (league_now["season"], league_now["status"], league_now["loser"]) == (2, "active", None)
    assert standings(ada, lid, 1) == first
    assert "standings match" in verified()


def test_an_automatic_next_season_starts_when_the_limit_is_reached(make_player):
    league, (ada, bert) = league_night(make_player, 2, next_season="auto", scorekeeper_alone=True,
                                       options={"league_limit": 100})
    lid = league["id"]
    for _ in range(2):  # 2 x 60 = 120 (a joker and an ace, counted at once: the scorekeeper alone)
        sheet = recorded(ada, lid, [{"player": ada.player_id, "cards": []},
                                    {"player": bert.player_id, "cards": ["X1", "AS"]}], ada.player_id)
        assert sheet["status"] == "counted"
    body = ada.get(f"/api/v1/leagues/{lid}").json()
    assert (body["season"], body["status"]) == (2, "active")
    assert [s["loser"] and s["loser"]["id"] for s in ada.get(f"/api/v1/leagues/{lid}/seasons").json()["results"]] == [
        bert.player_id, None]
    assert standings(ada, lid) == []
    assert "standings match" in verified()


def test_a_recorded_round_scores_as_the_engine_scores_a_played_round_with_the_same_cards(make_player, monkeypatch):
    league, (ada, bert, cleo) = league_night(make_player, 3)
    lid = league["id"]
    table = ada.post("/api/v1/tables", {"rules": "house", "max_players": 3, "league": lid}, format="json").json()
    for client in (bert, cleo):
        assert client.post(f"/api/v1/tables/{table['id']}/join").status_code == 200
    hands = [["5H", "JC", "JD"], ["KH", "QS", "10D", "X1"], ["2C", "AH", "JH"]]
    deal_fixed(monkeypatch, deal("french52", hands, "5C", jokers=3))
    game = ada.post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()
    play_last_card(ada, game["id"], ["5H", "JC", "JD"])  # two extra jacks on the last card: x3
    played = {line.player_id: (line.raw_points, line.points)
              for line in RoundResult.objects.get(game_id=game["id"]).players.all()}

    by_cards = recorded(ada, lid, [{"player": ada.player_id, "cards": []},
                                   {"player": bert.player_id, "cards": hands[1]},
                                   {"player": cleo.player_id, "cards": hands[2]}], ada.player_id, extra_jacks=2)
    by_points = recorded(ada, lid, [{"player": ada.player_id, "cards": []},
                                    {"player": bert.player_id, "points": 67},
                                    {"player": cleo.player_id, "points": 32}], ada.player_id, extra_jacks=2)

    for sheet in (by_cards, by_points):
        assert {line["player"]["id"]: (line["raw_points"], line["points"]) for line in sheet["players"]} == played
    assert played == {ada.player_id: (0, 0), bert.player_id: (67, 201), cleo.player_id: (32, 96)}
    engine_lines = engine.round_result([[], hands[1], hands[2]], "points", 0, "mau_mau", 3)["players"]
    assert sorted(line["points"] for line in engine_lines) == [0, 96, 201]
    # Played and recorded rounds in one list, each saying which; the pending ones are not counted yet.
    rows = ada.get(f"/api/v1/leagues/{lid}/rounds").json()["results"]
    assert [(row["source"], row["status"], row["game"]) for row in rows] == [
        ("played", "counted", game["id"]), ("recorded", "pending", None), ("recorded", "pending", None)]
    assert standings(ada, lid) == [(ada.player_id, 1, 1, 0), (cleo.player_id, 1, 0, 96), (bert.player_id, 1, 0, 201)]


def test_a_correction_changes_the_standings_and_verify_standings_agrees(make_player):
    league, (ada, bert) = league_night(make_player, 2)
    lid = league["id"]
    wrong = recorded(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 40}],
                     ada.player_id)
    assert confirm(bert, lid, wrong["id"]).status_code == 200
    assert standings(ada, lid) == [(ada.player_id, 1, 1, 0), (bert.player_id, 1, 0, 40)]

    fixed = recorded(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 14}],
                     ada.player_id, corrects=wrong["id"])
    assert standings(ada, lid) == [(ada.player_id, 1, 1, 0), (bert.player_id, 1, 0, 40)]  # pending: not yet
    assert confirm(bert, lid, fixed["id"]).status_code == 200

    assert standings(ada, lid) == [(ada.player_id, 1, 1, 0), (bert.player_id, 1, 0, 14)]
    assert RoundResult.objects.get(pk=wrong["id"]).status == "corrected"
    race = ada.get(f"/api/v1/leagues/{lid}/race").json()
    assert [(step["round"], step["id"], step["totals"][str(bert.player_id)]) for step in race["results"]] == [
        (1, wrong["id"], 40), (2, fixed["id"], 14)]
    assert "standings match" in verified()
    # The corrected entry no longer stands: correcting it again is refused, nothing is recorded.
    count = RoundResult.objects.count()
    again = record(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 1}],
                   ada.player_id, corrects=wrong["id"])
    assert again.status_code == 409 and again.json()["error"]["code"] == "correction_stale"
    assert RoundResult.objects.count() == count


def test_a_disputed_round_never_counts(make_player):
    league, (ada, bert, cleo) = league_night(make_player, 3)
    lid = league["id"]
    sheet = recorded(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 90}],
                     ada.player_id)
    assert bert.post(f"/api/v1/leagues/{lid}/rounds/{sheet['id']}/dispute", {}, format="json").status_code == 200

    late = confirm(bert, lid, sheet["id"])

    assert late.status_code == 409 and late.json()["error"]["code"] == "round_not_pending"
    assert standings(ada, lid) == []
    assert ada.get(f"/api/v1/leagues/{lid}/race").json()["results"] == []
    assert "standings match" in verified()


def test_confirmations_come_from_another_player_of_the_round_once(make_player):
    league, (ada, bert, cleo) = league_night(make_player, 3)
    lid = league["id"]
    sheet = recorded(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 9}],
                     ada.player_id)
    by_recorder = confirm(ada, lid, sheet["id"])
    by_outsider = confirm(cleo, lid, sheet["id"])
    assert (by_recorder.status_code, by_recorder.json()["error"]["code"]) == (403, "confirm_not_allowed")
    assert (by_outsider.status_code, by_outsider.json()["error"]["code"]) == (403, "confirm_not_allowed")
    assert confirm(bert, lid, sheet["id"]).json()["confirmations"][0]["player"]["id"] == bert.player_id
    second = confirm(bert, lid, sheet["id"])
    assert (second.status_code, second.json()["error"]["code"]) == (409, "round_not_pending")
    # Only the owner and scorekeepers record; the owner names scorekeepers.
    assert record(bert, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 1}],
                  ada.player_id).json()["error"]["code"] == "not_scorekeeper"
    assert bert.patch(f"/api/v1/leagues/{lid}/members/{cleo.player_id}", {"role": "scorekeeper"},
                      format="json").status_code == 403
    assert ada.patch(f"/api/v1/leagues/{lid}/members/{bert.player_id}", {"role": "scorekeeper"},
                     format="json").json()["role"] == "scorekeeper"
    assert record(bert, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 1}],
                  ada.player_id).status_code == 201


@pytest.mark.parametrize(("lines", "winner_seat", "extra", "status", "code"), [
    ([[], ["ZZ"]], 0, 0, 400, "card_not_in_deck"),
    ([[], ["QH"], ["QH"]], 0, 0, 400, "card_twice"),
    ([["7H"], ["QH"]], 0, 0, 400, "winner_has_cards"),
    ([[], -1], 0, 0, 400, "validation_error"),
    ([[], 10 ** 9], 0, 0, 400, "validation_error"),
    ([[], 5000], 0, 0, 400, "points_out_of_range"),
    ([[]], 0, 0, 400, "too_few_players"),
    ([[], ["JH"]], 0, 4, 400, "extra_jacks"),
    ([[], ["JH"]], 0, 10 ** 6, 400, "validation_error"),
    ([[], None], 0, 0, 400, "sheet_line"),
], ids=["unknown-card", "card-in-two-hands", "winner-with-cards", "negative-points", "absurd-points",
        "more-than-the-deck", "one-player", "too-many-jacks", "absurd-jacks", "neither-cards-nor-points"])
def test_bad_scoresheet_input_is_refused_and_nothing_is_recorded(make_player, lines, winner_seat, extra, status,
                                                                  code):
    league, clients = league_night(make_player, 3)
    body = []
    for client, hand in zip(clients, lines, strict=False):
        line = {"player": client.player_id}
        if isinstance(hand, list):
            line["cards"] = hand
        elif hand is not None:
            line["points"] = hand
        body.append(line)

    answer = record(clients[0], league["id"], body, clients[winner_seat].player_id, extra_jacks=extra)

    assert answer.status_code == status, answer.content
    assert answer.json()["error"]["code"] == code
    assert RoundResult.objects.count() == 0


def test_more_cards_than_the_deck_holds_and_non_members_are_refused(make_player):
    league, (ada, bert, cleo) = league_night(make_player, 3)
    outsider = make_player("Outsider")
    deck = engine.build_deck("french52", 3)
    lid = league["id"]
    too_many = record(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "cards": deck}],
                      ada.player_id)
    stranger = record(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": outsider.player_id, "points": 3}],
                      ada.player_id)
    huge_id = record(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": 10 ** 19, "points": 3}],
                     ada.player_id)
    assert (too_many.status_code, too_many.json()["error"]["code"]) == (400, "too_many_cards")
    assert (stranger.status_code, stranger.json()["error"]["code"]) == (400, "player_not_member")
    crowd = record(ada, lid, [{"player": ada.player_id, "cards": []}] + [{"player": bert.player_id, "points": 1}] * 16,
                   ada.player_id)
    assert huge_id.status_code == 400 and crowd.json()["error"]["code"] == "validation_error"
    assert RoundResult.objects.count() == 0


@pytest.mark.parametrize(("language", "word"), [("de", "Runde"), ("fr", "manche")])
def test_sheet_refusals_speak_the_callers_language(make_player, language, word):
    league, (ada, bert) = league_night(make_player, 2)
    sheet = recorded(ada, league["id"], [{"player": ada.player_id, "cards": []},
                                         {"player": bert.player_id, "points": 4}], ada.player_id)

    refused = ada.post(f"/api/v1/leagues/{league['id']}/rounds/{sheet['id']}/confirm", {}, format="json",
                       HTTP_ACCEPT_LANGUAGE=language)

    assert refused.json()["error"]["code"] == "confirm_not_allowed"
    assert word in refused.json()["error"]["message"]
