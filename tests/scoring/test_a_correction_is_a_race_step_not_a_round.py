"""A correction on a league's sheet is a step of the race, not a round played: the standings, the
season's line and the race agree on the rounds played and show the correction as such."""

from __future__ import annotations

import pytest
from sheet_helpers import confirm, league_night, recorded, standings

pytestmark = pytest.mark.django_db


def test_standings_seasons_and_race_count_four_rounds_and_one_correction(make_player):
    league, (ada, bert) = league_night(make_player, 2)
    lid = league["id"]
    entries = []
    for points in (10, 20, 30, 40):
        lines = [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": points}]
        entry = recorded(ada, lid, lines, ada.player_id)
        assert confirm(bert, lid, entry["id"]).status_code == 200
        entries.append(entry)
    fixed = recorded(ada, lid, [{"player": ada.player_id, "cards": []}, {"player": bert.player_id, "points": 3}],
                     ada.player_id, corrects=entries[1]["id"])
    assert confirm(bert, lid, fixed["id"]).status_code == 200

    assert standings(ada, lid) == [(ada.player_id, 4, 4, 0), (bert.player_id, 4, 0, 83)]
    season = ada.get(f"/api/v1/leagues/{lid}/seasons").json()["results"][0]
    assert (season["rounds"], season["corrections"], season["steps"]) == (4, 1, 5)
    race = ada.get(f"/api/v1/leagues/{lid}/race").json()["results"]
    assert [step["corrects"] for step in race] == [None, None, None, None, entries[1]["id"]]
    exported = ada.get(f"/api/v1/leagues/{lid}/seasons/1/export?format=json").json()["season"]
    assert (exported["rounds"], exported["corrections"], exported["steps"]) == (4, 1, 5)
