"""A season's end tells every member of the league and every person of the season (`season_over`), in the
transaction of the round (played or recorded) that ended it: once, with the final table, and whether the
next season started or waits for the owner."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from scoring_helpers import deal_fixed
from sheet_helpers import league_night, recorded
from test_scoring_through_the_api import deal, play_last_card, seated_table

from games.models import League, Player
from play import services as play_services
from scoring import sheet
from scoring.models import RoundResult, Season
from streams.models import Notification

pytestmark = pytest.mark.django_db


def told(kind: str = "season_over") -> dict[int, list[dict[str, Any]]]:
    """The notifications of one kind, by player."""
    found: dict[int, list[dict[str, Any]]] = {}
    for note in Notification.objects.filter(kind=kind).order_by("id"):
        found.setdefault(note.player_id, []).append(note.data)
    return found


def brief(client: Any) -> dict[str, Any]:
    return {"id": client.player_id, "name": Player.objects.get(pk=client.player_id).name, "bot": False}


def sheet_round(keeper: Any, lid: int, winner: Any, loser: Any) -> dict[str, Any]:
    """A joker and an ace left (60 points) for `loser`, counted at once (the scorekeeper alone)."""
    return recorded(keeper, lid, [{"player": winner.player_id, "cards": []},
                                  {"player": loser.player_id, "cards": ["X1", "AS"]}], winner.player_id)


@pytest.mark.parametrize(("mode", "next_season", "status"), [("auto", 2, "active"), ("owner", None, "finished")])
def test_a_season_recorded_to_its_limit_tells_every_member_once(make_player, mode, next_season, status):
    league, (ada, bert, cleo) = league_night(make_player, 3, next_season=mode, scorekeeper_alone=True,
                                             options={"league_limit": 100})
    lid = league["id"]
    sheet_round(ada, lid, ada, bert)
    assert told() == {}  # 60 points: the season goes on

    sheet_round(ada, lid, ada, bert)  # 120 >= 100: Bert loses the season

    body = ada.get(f"/api/v1/leagues/{lid}").json()
    assert (body["season"], body["status"]) == (1 if next_season is None else 2, status)
    notes = told()
    assert set(notes) == {ada.player_id, bert.player_id, cleo.player_id}  # Cleo is a member who did not play
    assert all(len(items) == 1 for items in notes.values())
    common = {"league": lid, "name": "Stammtisch", "season": 1, "loser": bert.player_id, "winners": [brief(ada)],
              "podium": [{"player": brief(ada), "position": 1, "points": 0, "wins": 2},
                         {"player": brief(bert), "position": 2, "points": 120, "wins": 0}],
              "players": 2, "next_season": next_season}
    assert notes[ada.player_id][0] == {**common, "position": 1, "points": 0}
    assert notes[bert.player_id][0] == {**common, "position": 2, "points": 120}
    assert notes[cleo.player_id][0] == {**common, "position": None, "points": None}
    assert Notification.objects.filter(kind="season_over", table__isnull=True, game__isnull=True).count() == 3


def test_the_owner_starting_the_next_season_after_the_limit_tells_nothing_more(make_player):
    league, (ada, bert) = league_night(make_player, 2, scorekeeper_alone=True, options={"league_limit": 100})
    lid = league["id"]
    sheet_round(ada, lid, ada, bert)
    sheet_round(ada, lid, ada, bert)
    assert ada.post(f"/api/v1/leagues/{lid}/seasons", {}, format="json").status_code == 201

    assert {pid: [d["season"] for d in items] for pid, items in told().items()} == {
        ada.player_id: [1], bert.player_id: [1]}


def test_the_owner_closing_a_season_without_a_limit_tells_it_with_the_next_season(make_player):
    league, (ada, bert) = league_night(make_player, 2, rules="tavern", scorekeeper_alone=True)
    lid = league["id"]
    recorded(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "cards": ["AS"]}],
             ada.player_id)

    assert ada.post(f"/api/v1/leagues/{lid}/seasons", {}, format="json").status_code == 201

    notes = told()
    assert set(notes) == {ada.player_id, bert.player_id}
    assert [(d["season"], d["loser"], d["winners"], d["next_season"]) for d in notes[bert.player_id]] == [
        (1, None, [brief(ada)], 2)]


def test_a_recorded_round_rolled_back_tells_no_season_end(make_player):
    league, (ada, bert) = league_night(make_player, 2, next_season="auto", scorekeeper_alone=True,
                                       options={"league_limit": 100})
    lid = league["id"]
    sheet_round(ada, lid, ada, bert)
    keeper = Player.objects.get(pk=ada.player_id)

    with pytest.raises(RuntimeError), transaction.atomic():
        sheet.round_record(league_id=lid, player=keeper, winner=ada.player_id,
                           lines=[sheet.SheetLine(ada.player_id, cards=[]),
                                  sheet.SheetLine(bert.player_id, cards=["X1", "AS"])])
        assert len(told()[ada.player_id]) == 1  # written with the round ...
        raise RuntimeError("the round's transaction fails")

    assert told() == {}  # ... and gone with it
    assert Season.objects.get(league_id=lid, number=1).status == "active"


def _league_round_to_the_limit(make_player, monkeypatch, mode: str) -> tuple[dict[str, Any], Any, list[Any], dict]:
    """A house league with limit 50 (its owner does not play) and a round whose last card ends the season."""
    host = make_player("Host")
    league = host.post("/api/v1/leagues", {"name": "Short", "rules": "house", "next_season": mode,
                                           "options": {"league_limit": 50}}, format="json").json()
    table, clients = seated_table(make_player, "house", 2, league["id"])
    deal_fixed(monkeypatch, deal("french52", [["5H"], ["X1"]], "5C", 3))  # seat 1 keeps the joker: 50 points
    game = clients[0].post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()
    return league, host, clients, game


@pytest.mark.parametrize(("mode", "next_season"), [("auto", 2), ("owner", None)])
def test_a_played_round_that_ends_the_season_tells_it_with_the_move(make_player, monkeypatch, mode, next_season):
    league, host, (ada, bert), game = _league_round_to_the_limit(make_player, monkeypatch, mode)

    play_last_card(ada, game["id"], ["5H"])

    notes = told()
    assert set(notes) == {host.player_id, ada.player_id, bert.player_id}  # the owner did not play
    assert all(len(items) == 1 for items in notes.values())
    assert [(d["season"], d["loser"], d["winners"], d["position"], d["points"], d["next_season"])
            for d in notes[bert.player_id]] == [(1, bert.player_id, [brief(ada)], 2, 50, next_season)]
    assert notes[host.player_id][0]["position"] is None
    assert set(Notification.objects.filter(kind="season_over").values_list("table_id", flat=True)) == {
        game["table"]}
    # league_over stays what it was: a league that waits for its owner, told to who sat at its tables
    assert set(told("league_over")) == ({ada.player_id, bert.player_id} if mode == "owner" else set())
    assert League.objects.get(pk=league["id"]).season == (2 if mode == "auto" else 1)


def test_a_played_round_whose_move_fails_tells_no_season_end(make_player, monkeypatch):
    league, _host, (ada, _bert), game = _league_round_to_the_limit(make_player, monkeypatch, "auto")

    def fails(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("after the move's writes")

    monkeypatch.setattr(play_services.stream_services, "notifications_dispatch", fails)
    view = ada.get(f"/api/v1/games/{game['id']}").json()
    action = next(a for a in view["legal_actions"] if a["type"] == "play" and a["cards"] == ["5H"])
    with pytest.raises(RuntimeError):
        ada.post(f"/api/v1/games/{game['id']}/actions", action, format="json")

    assert told() == {}
    assert not RoundResult.objects.filter(game_id=game["id"]).exists()
    assert (League.objects.get(pk=league["id"]).season, Season.objects.get(league_id=league["id"]).status) == (
        1, "active")


def test_resigning_a_league_with_a_limit_tells_the_season_end_in_the_resignation(make_player):
    league, (ada, bert) = league_night(make_player, 2, next_season="auto", scorekeeper_alone=True,
                                       options={"league_limit": 100})
    lid = league["id"]
    sheet_round(ada, lid, bert, ada)  # Ada 60

    assert bert.post(f"/api/v1/leagues/{lid}/resign", {}, format="json").status_code == 200

    notes = told()
    assert set(notes) == {ada.player_id, bert.player_id}
    assert [(d["season"], d["loser"], d["winners"], d["position"], d["next_season"])
            for d in notes[ada.player_id]] == [(1, bert.player_id, [brief(ada)], 1, 2)]
