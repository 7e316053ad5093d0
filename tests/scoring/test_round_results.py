"""The round results: each finished round written once, per player, as the rule set scores it."""

from __future__ import annotations

import pytest
from scoring_helpers import finish_game, scored, table_for

from play.writes import round_recorded
from scoring.models import PlayerResult, Rating, RatingPoint, RoundResult, Standing
from scoring.services import round_counted

pytestmark = pytest.mark.django_db


def lines_of(round_result: RoundResult) -> dict[int, PlayerResult]:
    return {line.seat: line for line in round_result.players.all()}


def test_house_round_won_with_two_extra_jacks_scores_the_others_three_times(players, league_of):
    """docs/rules.md "Scoring", house final_jacks: 5H then JC, JD on top = 2 extra jacks -> everyone else x3."""
    league = league_of("house")
    ada, bert, cleo = players(3)
    table = table_for([ada, bert, cleo], league)
    # bert: K 4 + Q 3 + 10 + joker 50 = 67; cleo: 2 + A 10 + J 20 = 32
    result = scored([[], ["KH", "QS", "10D", "X1"], ["2C", "AH", "JD"]], "points", 0, "mau_mau", 3)

    round_result = round_recorded(game=finish_game(table, result))

    assert (round_result.winner_id, round_result.multiplier, round_result.reason) == (ada.pk, 3, "mau_mau")
    lines = lines_of(round_result)
    assert [lines[seat].player_id for seat in range(3)] == [ada.pk, bert.pk, cleo.pk]
    assert (lines[0].won, lines[0].points, lines[0].rank, lines[0].multiplier_bonus) == (True, 0, 1, 2)
    assert (lines[1].raw_points, lines[1].multiplier, lines[1].points, lines[1].rank) == (67, 3, 201, 3)
    assert (lines[2].raw_points, lines[2].multiplier, lines[2].points, lines[2].rank) == (32, 3, 96, 2)
    assert lines[1].cards_left == 4 and not lines[1].won
    totals = {s.player_id: (s.rounds, s.wins, s.points, s.multiplier_bonus) for s in league.standings.all()}
    assert totals == {ada.pk: (1, 1, 0, 2), bert.pk: (1, 0, 201, 0), cleo.pk: (1, 0, 96, 0)}


def test_classic_ranking_breaks_a_tie_on_cards_left_by_card_points(players, make_table):
    """docs/rules.md "Scoring", classic: fewer cards first; equal cards -> fewer points
    (A 11, 10 10, K 4, Q 3, J 2, face)."""
    seated = players(4)
    table = make_table(seated, rules="classic")
    hands = [[], ["AS", "7C"], ["KH", "QH"], ["8D", "9D", "10D"]]  # 18, 7, 27 points
    round_result = round_recorded(game=finish_game(table, scored(hands, "ranking", 0)))

    lines = lines_of(round_result)
    assert {seat: lines[seat].rank for seat in lines} == {0: 1, 2: 2, 1: 3, 3: 4}
    assert [lines[seat].points for seat in range(4)] == [0, 18, 7, 27]
    assert [lines[seat].cards_left for seat in range(4)] == [0, 2, 2, 3]
    assert round_result.rules == "classic" and round_result.scoring == "ranking"


def test_stalemate_records_no_winner_and_ranks_by_cards_left(players, league_of):
    league = league_of("classic")
    ada, bert = players(2)
    table = table_for([ada, bert], league)
    hands = [["7H", "8H"], ["AC"]]
    round_result = round_recorded(game=finish_game(table, scored(hands, "ranking", None, "stalemate")))

    assert round_result.winner_id is None and round_result.reason == "stalemate"
    lines = lines_of(round_result)
    assert not lines[0].won and not lines[1].won
    assert (lines[1].rank, lines[0].rank) == (1, 2)
    assert (lines[0].points, lines[1].points) == (15, 11)
    totals = {s.player_id: (s.rounds, s.wins, s.points) for s in league.standings.all()}
    assert totals == {ada.pk: (1, 0, 15), bert.pk: (1, 0, 11)}


def test_a_round_is_recorded_exactly_once(players, league_of):
    league = league_of("house")
    ada, bert = players(2)
    table = table_for([ada, bert], league)
    game = finish_game(table, scored([[], ["KH"]], "points", 0))

    first = round_recorded(game=game)
    again = round_recorded(game=game)

    assert first.pk == again.pk
    assert RoundResult.objects.filter(game=game).count() == 1
    assert PlayerResult.objects.filter(round=first).count() == 2
    assert Standing.objects.get(league=league, player=bert).points == 4
    assert Standing.objects.get(league=league, player=bert).rounds == 1


def test_game_seats_are_mapped_to_the_players_at_their_table_positions(players, make_table):
    """A round may seat table positions in another order (game.positions)."""
    ada, bert = players(2)
    table = make_table([ada, bert], rules="tavern")
    game = finish_game(table, scored([[], ["KH", "2C"]], "wins", 0))
    game.positions = [1, 0]
    game.save(update_fields=["positions"])

    round_result = round_recorded(game=game)

    assert round_result.winner_id == bert.pk
    assert lines_of(round_result)[1].player_id == ada.pk


def test_a_table_without_league_touches_no_standings(players, make_table):
    table = make_table(players(2), rules="house")
    round_result = round_recorded(game=finish_game(table, scored([[], ["JD"]], "points", 0)))
    assert round_result.league_id is None and round_result.counted
    assert not Standing.objects.exists()


def test_counting_a_round_returns_its_rows_unsaved(players, league_of):
    """Scoring alone: ``round_counted`` writes none of the round's rows (the move pipeline does): its
    league's standings move, under the league lock, and its players' ratings are locked (created at the
    initial values where missing) but not moved; the lines and rating rows name the unsaved result."""
    league = league_of("house")
    ada, bert = players(2)
    game = finish_game(table_for([ada, bert], league), scored([[], ["KH"]], "points", 0))

    count = round_counted(game=game)

    assert count is not None and count.result.pk is None and count.result.rated
    assert [(line.round is count.result, line.pk, line.points) for line in count.lines] == [(True, None, 0),
                                                                                           (True, None, 4)]
    assert count.rating_moves is not None
    assert all(point.round is count.result for point in count.rating_moves.points)
    assert all(rating.last_round is count.result for rating in count.rating_moves.ratings)
    assert not RoundResult.objects.exists() and not PlayerResult.objects.exists()
    assert not RatingPoint.objects.exists() and set(Rating.objects.values_list("rounds", flat=True)) == {0}
    assert Standing.objects.get(league=league, player=bert).points == 4
