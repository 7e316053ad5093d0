"""The league's scoresheet: rounds played with real cards, recorded by a scorekeeper, scored by the engine."""

from __future__ import annotations

import pytest
from scoring_helpers import finish_game, scored, table_for
from sheet_helpers import line, recorded, sheet_league, totals

from games.models import LeagueMember
from maumau.errors import DomainError
from scoring.models import PlayerResult, RoundResult, Season, Standing
from scoring.services import (
    league_standings_recompute,
    round_confirm,
    round_dispute,
    round_record,
    round_result_record,
    season_start,
)

pytestmark = pytest.mark.django_db


def test_a_whole_house_season_recorded_to_500_names_the_loser_and_the_next_season_starts_fresh(players):
    owner, bert, cleo = players(3)
    league = sheet_league(owner, [bert, cleo])
    # Each round: owner wins, bert keeps a joker (50), cleo a queen (3).
    for _ in range(9):
        recorded(league, owner, [line(owner), line(bert, ["X1"]), line(cleo, ["QS"])], owner, confirm_by=bert)
    assert totals(league) == {owner.pk: 0, bert.pk: 450, cleo.pk: 27}
    league.refresh_from_db()
    assert league.status == "active"
    recorded(league, owner, [line(owner), line(bert, ["X2"]), line(cleo, ["QS"])], owner, confirm_by=cleo)

    league.refresh_from_db()
    assert (league.status, league.loser_id, league.season) == ("finished", bert.pk, 1)
    first = Season.objects.get(league=league, number=1)
    assert (first.loser_id, first.ended_by) == (bert.pk, "limit")
    with pytest.raises(DomainError) as refused:
        round_record(league_id=league.pk, by=owner, lines=[line(owner), line(bert, ["QS"])], winner_id=owner.pk)
    assert refused.value.code == "league_finished"
    final = dict(Standing.objects.filter(league=league, season=1).values_list("player_id", "points"))

    season_start(league_id=league.pk, by=owner)
    league.refresh_from_db()
    assert (league.status, league.loser_id, league.season) == ("active", None, 2)
    recorded(league, owner, [line(owner, ["2H"]), line(bert), line(cleo, ["KH"])], bert, confirm_by=cleo)
    assert totals(league) == {owner.pk: 2, bert.pk: 0, cleo.pk: 4}
    assert dict(Standing.objects.filter(league=league, season=1).values_list("player_id", "points")) == final
    assert final == {owner.pk: 0, bert.pk: 500, cleo.pk: 30}
    assert league_standings_recompute(league_id=league.pk, write=False) == []


def test_the_sheet_scores_as_the_engine_scores_a_played_round_with_the_same_cards_left(players):
    owner, bert, cleo = players(3)
    league = sheet_league(owner, [bert, cleo])
    hands = [[], ["JH", "10S", "X1"], ["QS", "AD", "7C"]]
    played = round_result_record(game=finish_game(table_for([owner, bert, cleo], league),
                                                  scored(hands, winner=0, multiplier=3)))
    sheet = recorded(league, owner, [line(owner), line(bert, hands[1]), line(cleo, hands[2])], owner, extra_jacks=2,
                     confirm_by=bert)

    def lines(round_result: RoundResult) -> list[tuple[int, ...]]:
        return sorted(PlayerResult.objects.filter(round=round_result).values_list(
            "seat", "rank", "cards_left", "raw_points", "multiplier", "points", "won", "multiplier_bonus"))

    assert lines(sheet) == lines(played)
    assert dict(PlayerResult.objects.filter(round=sheet).values_list("seat", "points")) == {0: 0, 1: 240, 2: 60}
    assert (sheet.kind, played.kind, sheet.rated, sheet.multiplier) == ("recorded", "played", False, 3)
    assert totals(league) == {owner.pk: 0, bert.pk: 480, cleo.pk: 120}


def test_a_hand_given_by_its_points_is_multiplied_like_cards(players):
    owner, bert, cleo = players(3)
    league = sheet_league(owner, [bert, cleo])
    sheet = recorded(league, owner, [line(owner), line(bert, points=24), line(cleo, ["KH"])], owner, extra_jacks=1,
                     confirm_by=cleo)
    rows = {row[0]: row[1:] for row in PlayerResult.objects.filter(round=sheet).values_list(
        "seat", "raw_points", "points", "rank")}
    assert rows == {0: (0, 0, 1), 1: (24, 48, 3), 2: (4, 8, 2)}


def test_a_pending_round_counts_only_once_confirmed(players):
    owner, bert, cleo = players(3)
    league = sheet_league(owner, [bert, cleo])
    pending = recorded(league, owner, [line(owner), line(bert, ["AH"])], owner)
    assert pending.sheet == "pending" and not pending.counted
    assert totals(league) == {}
    round_confirm(league_id=league.pk, round_id=pending.pk, player=bert)
    assert totals(league) == {owner.pk: 0, bert.pk: 10}


def test_the_scorekeeper_alone_counts_a_round_where_the_league_allows_it(players):
    owner, bert = players(2)
    league = sheet_league(owner, [bert], confirmation="scorekeeper")
    alone = recorded(league, owner, [line(owner), line(bert, ["AH"])], owner)
    assert alone.sheet == "counted" and totals(league) == {owner.pk: 0, bert.pk: 10}
    assert league_standings_recompute(league_id=league.pk, write=False) == []


def test_a_disputed_round_never_counts(players):
    owner, bert, cleo = players(3)
    league = sheet_league(owner, [bert, cleo])
    disputed = recorded(league, owner, [line(owner), line(bert, ["AH"]), line(cleo, ["KH"])], owner)
    round_dispute(league_id=league.pk, round_id=disputed.pk, player=cleo)
    with pytest.raises(DomainError) as refused:
        round_confirm(league_id=league.pk, round_id=disputed.pk, player=bert)
    assert refused.value.code == "round_not_pending"
    disputed.refresh_from_db()
    assert (disputed.sheet, disputed.counted, totals(league)) == ("disputed", False, {})
    assert league_standings_recompute(league_id=league.pk, write=False) == []


def test_a_correction_replaces_the_round_it_corrects_and_verify_standings_agrees(players):
    owner, bert, cleo = players(3)
    league = sheet_league(owner, [bert, cleo])
    wrong = recorded(league, owner, [line(owner), line(bert, ["X1"]), line(cleo, ["QS"])], owner, confirm_by=bert)
    recorded(league, owner, [line(owner), line(bert, ["2H"]), line(cleo, ["KS"])], owner, confirm_by=cleo)
    assert totals(league) == {owner.pk: 0, bert.pk: 52, cleo.pk: 7}
    right = recorded(league, owner, [line(owner), line(bert, ["AH"]), line(cleo, ["QS"])], owner,
                     corrects=wrong.pk)
    assert totals(league) == {owner.pk: 0, bert.pk: 52, cleo.pk: 7}  # pending: nothing changes yet
    round_confirm(league_id=league.pk, round_id=right.pk, player=cleo)

    assert totals(league) == {owner.pk: 0, bert.pk: 12, cleo.pk: 7}
    wrong.refresh_from_db()
    assert (wrong.sheet, wrong.counted) == ("corrected", False)
    standing = Standing.objects.get(league=league, player=bert)
    assert (standing.rounds, standing.best_round) == (2, 10)
    assert league_standings_recompute(league_id=league.pk, write=False) == []

    with pytest.raises(DomainError) as refused:  # the corrected round no longer stands
        round_record(league_id=league.pk, by=owner, lines=[line(owner), line(bert, ["3H"])], winner_id=owner.pk,
                     corrects=wrong.pk)
    assert (refused.value.status, refused.value.code) == (409, "round_not_standing")


def test_played_and_recorded_rounds_mix_in_one_league(players):
    owner, bert = players(2)
    league = sheet_league(owner, [bert])
    round_result_record(game=finish_game(table_for([owner, bert], league), scored([[], ["AH"]], winner=0)))
    recorded(league, owner, [line(owner), line(bert, ["KH"])], owner, confirm_by=bert)
    kinds = list(RoundResult.objects.filter(league=league).order_by("id").values_list("kind", flat=True))
    assert kinds == ["played", "recorded"]
    assert totals(league) == {owner.pk: 0, bert.pk: 14}
    assert LeagueMember.objects.filter(league=league).count() == 2
    assert league_standings_recompute(league_id=league.pk, write=False) == []
