"""House league limit (docs/rules.md "Scoring", league_limit 500): reaching it (>= 500) loses the league."""

from __future__ import annotations

import pytest
from scoring_helpers import points_result, table_for

from games.models import League
from maumau.errors import DomainError
from scoring.models import RoundResult, Standing
from scoring.services import league_assert_open

pytestmark = pytest.mark.django_db


def totals(league: League) -> dict[int, int]:
    return dict(Standing.objects.filter(league=league).values_list("player_id", "points"))


def test_499_points_stay_in_the_league(players, league_of, finish_round):
    league = league_of("house")
    ada, bert = players(2)
    table = table_for([ada, bert], league)
    finish_round(table, points_result([0, 300], winner=0))
    finish_round(table, points_result([0, 199], winner=0))

    league.refresh_from_db()
    assert totals(league)[bert.pk] == 499
    assert league.status == "active" and league.loser_id is None
    league_assert_open(league=league)  # no error: rounds may still start


def test_exactly_500_points_lose_the_league_and_freeze_it(players, league_of, finish_round):
    league = league_of("house")
    ada, bert = players(2)
    table = table_for([ada, bert], league)
    finish_round(table, points_result([0, 499], winner=0))
    finish_round(table, points_result([1, 0], winner=1))

    league.refresh_from_db()
    assert totals(league) == {ada.pk: 1, bert.pk: 499}
    assert league.status == "active"
    finish_round(table, points_result([0, 1], winner=0))

    league.refresh_from_db()
    assert (league.status, league.loser_id) == ("finished", bert.pk)
    assert league.finished_at is not None
    with pytest.raises(DomainError) as refused:
        league_assert_open(league=league)
    assert (refused.value.code, refused.value.status) == ("league_finished", 409)


def test_a_round_taking_two_players_past_500_is_lost_by_the_one_with_most_points(players, league_of, finish_round):
    league = league_of("house")
    ada, bert, cleo = players(3)
    table = table_for([ada, bert, cleo], league)
    finish_round(table, points_result([0, 490, 495], winner=0))
    finish_round(table, points_result([0, 30, 10], winner=0))  # bert 520, cleo 505

    league.refresh_from_db()
    assert totals(league) == {ada.pk: 0, bert.pk: 520, cleo.pk: 505}
    assert (league.status, league.loser_id) == ("finished", bert.pk)


def test_equal_totals_past_500_are_lost_by_who_scored_more_in_that_round(players, league_of, finish_round):
    league = league_of("house")
    ada, bert, cleo = players(3)
    table = table_for([ada, bert, cleo], league)
    finish_round(table, points_result([0, 490, 480], winner=0))
    finish_round(table, points_result([0, 30, 40], winner=0))  # both 520; cleo scored 40 this round

    league.refresh_from_db()
    assert totals(league)[bert.pk] == totals(league)[cleo.pk] == 520
    assert league.loser_id == cleo.pk


def test_a_round_ending_after_the_league_finished_is_kept_but_not_counted(players, league_of, finish_round):
    """A round started before the limit was reached may end afterwards: standings stay frozen."""
    league = league_of("house")
    ada, bert, cleo, dora = players(4)
    first = table_for([ada, bert], league)
    second = table_for([cleo, dora], league)
    finish_round(first, points_result([0, 500], winner=0))
    late = finish_round(second, points_result([0, 80], winner=0))

    league.refresh_from_db()
    assert (league.status, league.loser_id) == ("finished", bert.pk)
    assert RoundResult.objects.get(pk=late.pk).counted is False
    assert late.players.count() == 2
    assert totals(league) == {ada.pk: 0, bert.pk: 500}


def test_a_league_limit_override_moves_the_line(players, league_of, finish_round):
    league = league_of("house", league_limit=100)
    ada, bert = players(2)
    finish_round(table_for([ada, bert], league), points_result([0, 100], winner=0))
    league.refresh_from_db()
    assert (league.status, league.loser_id) == ("finished", bert.pk)


def test_classic_and_tavern_leagues_have_no_limit(players, league_of, finish_round):
    for rules in ("classic", "tavern"):
        league = league_of(rules)
        ada, bert = players(2)
        table = table_for([ada, bert], league)
        for _ in range(3):
            finish_round(table, points_result([0, 400], winner=0))
        league.refresh_from_db()
        assert league.league_limit == 0
        assert league.status == "active" and totals(league)[bert.pk] == 1200
