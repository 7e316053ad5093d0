"""Resigning a league (issue 14): with a limit the resigner loses it at once; without one they are
withdrawn (ranked last, no later line of theirs counts). The round results record the resignation
in order with the rounds, and the recompute replays it."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from scoring_helpers import client_for, points_result, scored, table_for

from games.models import League
from scoring.models import LeagueResignation, RoundResult, Standing
from scoring.services import league_standings_recompute
from streams.models import Notification

pytestmark = pytest.mark.django_db


def _resign(player, league_id: int, body=None, **headers):
    return client_for(player).post(f"/api/v1/leagues/{league_id}/resign", body, format="json", **headers)


def _standings(player, league: League) -> list[dict]:
    response = client_for(player).get(f"/api/v1/leagues/{league.pk}/standings")
    assert response.status_code == 200
    return response.json()["standings"]


def _stored(league: League) -> dict[int, tuple]:
    return {s.player_id: (s.rounds, s.wins, s.points, s.multiplier_bonus, s.resigned)
            for s in Standing.objects.filter(league=league)}


def _replays_to_the_same(league: League) -> None:
    """verify_standings passes, and standings rebuilt from nothing but the round results equal the live ones."""
    call_command("verify_standings", str(league.pk), stdout=StringIO())
    league.refresh_from_db()
    before = (_stored(league), league.status, league.loser_id, league.finished_at,
              dict(RoundResult.objects.filter(league=league).values_list("id", "counted")))
    Standing.objects.filter(league=league).delete()
    League.objects.filter(pk=league.pk).update(status="active", loser=None, finished_at=None)
    RoundResult.objects.filter(league=league).update(counted=True)
    assert league_standings_recompute(league_id=league.pk)
    league.refresh_from_db()
    after = (_stored(league), league.status, league.loser_id, league.finished_at,
             dict(RoundResult.objects.filter(league=league).values_list("id", "counted")))
    assert after == before
    assert league_standings_recompute(league_id=league.pk, write=False) == []


def test_resigning_a_house_league_loses_it_at_once(players, league_of, finish_round,
                                                   django_capture_on_commit_callbacks):
    league = league_of("house")
    ada, bert, cleo = players(3)
    table = table_for([ada, bert, cleo], league)
    client_for(ada), client_for(bert)  # people: they get league_over
    finish_round(table, points_result([0, 40, 90], winner=0))

    with django_capture_on_commit_callbacks(execute=True):
        response = _resign(bert, league.pk)

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["league"]["status"] == "finished"
    assert body["league"]["loser"]["id"] == bert.pk
    last = body["standings"][-1]
    assert (last["player"]["id"], last["resigned"], last["lost"], last["reached_limit"]) == (bert.pk, True, True, False)
    assert [line["player"]["id"] for line in body["standings"]] == [ada.pk, cleo.pk, bert.pk]
    assert [line["position"] for line in body["standings"]] == [1, 2, 3]
    assert set(Notification.objects.filter(kind="league_over").values_list("player_id", flat=True)) == {ada.pk, bert.pk}
    assert Notification.objects.filter(kind="league_over").first().data["loser"] == bert.pk

    # A round that was still running ends after the league did: recorded, not counted.
    late = finish_round(table, points_result([10, 0, 20], winner=1))
    assert late.counted is False
    assert _stored(league)[cleo.pk][:4] == (1, 0, 90, 0)
    _replays_to_the_same(league)


def test_a_resigned_player_is_withdrawn_from_a_league_without_a_limit(players, league_of, finish_round):
    league = league_of("tavern")
    ada, bert, cleo = players(3)
    table = table_for([ada, bert, cleo], league, rules="tavern")

    def round_won_by(winner: int) -> RoundResult:
        hands = [[], ["7C"], ["8D", "9D"]]
        hands[0], hands[winner] = hands[winner], hands[0]
        return finish_round(table, scored(hands, scoring="wins", winner=winner))

    round_won_by(1)
    round_won_by(1)
    round_won_by(0)
    assert _resign(bert, league.pk).status_code == 200
    round_won_by(1)  # bert wins again: not counted for him; the others' lines still count
    round_won_by(2)

    league.refresh_from_db()
    assert (league.status, league.loser_id) == ("active", None)
    standings = _standings(ada, league)
    assert [(line["player"]["id"], line["wins"], line["rounds"], line["resigned"]) for line in standings] == [
        (ada.pk, 1, 5, False), (cleo.pk, 1, 5, False), (bert.pk, 2, 3, True)]
    assert [line["position"] for line in standings] == [1, 1, 3]
    assert not standings[-1]["lost"]
    assert RoundResult.objects.filter(league=league, counted=False).count() == 0
    _replays_to_the_same(league)


def test_the_ledger_places_a_resignation_after_the_last_round_recorded_before_it(players, league_of, finish_round):
    league = league_of("classic")
    ada, bert = players(2)
    table = table_for([ada, bert], league, rules="classic")
    first = finish_round(table, scored([[], ["7C"]], scoring="ranking", winner=0))
    assert _resign(ada, league.pk).status_code == 200
    finish_round(table, scored([[], ["7C"]], scoring="ranking", winner=0))

    resignation = LeagueResignation.objects.get(league=league)
    assert (resignation.player_id, resignation.after_round_id) == (ada.pk, first.pk)
    assert _stored(league)[ada.pk] == (1, 1, 0, 0, True)
    assert _stored(league)[bert.pk][:2] == (2, 0)


def test_the_recompute_finds_and_repairs_a_resignation_left_out_of_the_standings(players, league_of, finish_round):
    league = league_of("tavern")
    ada, bert = players(2)
    table = table_for([ada, bert], league, rules="tavern")
    finish_round(table, scored([[], ["7C"]], scoring="wins", winner=0))
    assert _resign(ada, league.pk).status_code == 200
    finish_round(table, scored([[], ["7C"]], scoring="wins", winner=0))
    Standing.objects.filter(league=league, player=ada).update(resigned=False, rounds=2, wins=2)

    problems = league_standings_recompute(league_id=league.pk, write=False)
    assert problems and f"player {ada.pk}" in problems[0]
    league_standings_recompute(league_id=league.pk)
    assert _stored(league)[ada.pk] == (1, 1, 0, 0, True)


def test_only_a_member_may_resign_an_existing_league(players, league_of, finish_round):
    league = league_of("house")
    ada, bert, cleo = players(3)
    table_for([ada, bert], league)
    finish_round(table_for([ada, bert], league), points_result([0, 40], winner=0))
    table_for([cleo, ada], league)  # seated at a league table, but no counted round yet

    missing = _resign(ada, 999999)
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")
    for stranger in (cleo, players(1)[0]):
        refused = _resign(stranger, league.pk)
        assert (refused.status_code, refused.json()["error"]["code"]) == (403, "permission_denied")
        assert refused.json()["error"]["details"]["reason"] == "not_a_member"
    assert not LeagueResignation.objects.exists()
    assert League.objects.get(pk=league.pk).status == "active"


def test_a_finished_or_already_resigned_league_cannot_be_resigned(players, league_of, finish_round):
    house = league_of("house")
    ada, bert, cleo = players(3)
    finish_round(table_for([ada, bert, cleo], house), points_result([0, 40, 90], winner=0))
    assert _resign(bert, house.pk).status_code == 200
    again = _resign(bert, house.pk)
    assert (again.status_code, again.json()["error"]["code"]) == (409, "league_resigned")
    finished = _resign(ada, house.pk)
    assert (finished.status_code, finished.json()["error"]["code"]) == (409, "league_finished")

    tavern = league_of("tavern")
    finish_round(table_for([ada, bert], tavern, rules="tavern"), scored([[], ["7C"]], scoring="wins", winner=0))
    assert _resign(ada, tavern.pk).status_code == 200
    assert _resign(ada, tavern.pk).json()["error"]["code"] == "league_resigned"
    assert LeagueResignation.objects.count() == 2


@pytest.mark.parametrize("body", [{"player": 1}, {"league": 1}, [], "resign", 1])
def test_a_resignation_takes_no_fields_and_a_refused_one_changes_nothing(players, league_of, finish_round, body):
    league = league_of("house")
    ada, bert = players(2)
    finish_round(table_for([ada, bert], league), points_result([0, 40], winner=0))
    response = _resign(ada, league.pk, body)
    assert (response.status_code, response.json()["error"]["code"]) == (400, "validation_error")
    assert not LeagueResignation.objects.exists()
    assert League.objects.get(pk=league.pk).status == "active"
    assert _resign(ada, league.pk, {}).status_code == 200


@pytest.mark.parametrize(("language", "word"), [("de", "Liga"), ("fr", "ligue")])
def test_resignation_refusals_speak_the_callers_language(players, league_of, finish_round, language, word):
    league = league_of("house")
    ada, bert, cleo = players(3)
    finish_round(table_for([ada, bert], league), points_result([0, 40], winner=0))
    refused = _resign(cleo, league.pk, HTTP_ACCEPT_LANGUAGE=language)
    assert word in refused.json()["error"]["message"]
    assert _resign(ada, league.pk).status_code == 200
    for caller in (ada, bert):
        assert word in _resign(caller, league.pk, HTTP_ACCEPT_LANGUAGE=language).json()["error"]["message"]
