"""Standings and the race chart read a fixed number of queries, however many rounds a season holds."""

from __future__ import annotations

import pytest
from sheet_helpers import line, recorded, sheet_league

from scoring import selectors

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("rounds", [1, 12])
def test_standings_and_race_of_a_private_league_take_at_most_three_queries_each(players, rounds,
                                                                              django_assert_max_num_queries):
    owner, bert, cleo = players(3)
    league = sheet_league(owner, [bert, cleo], visibility="private", confirmation="scorekeeper")
    for number in range(rounds):
        recorded(league, owner, [line(owner), line(bert, ["2H"]), line(cleo, ["3H"] if number % 2 else ["4H"])],
                 owner)

    with django_assert_max_num_queries(3):
        read = selectors.league_get(league_id=league.pk, player=bert)
        standings = selectors.league_standings(league=read, season=read.season)
    assert [row["rounds"] for row in standings] == [rounds] * 3
    with django_assert_max_num_queries(3):
        read = selectors.league_get(league_id=league.pk, player=bert)
        race = selectors.league_race(league=read, season=read.season, after=0, limit=500)
    assert len(race["steps"]) == rounds
