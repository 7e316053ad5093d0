"""Standings are derived data: the recompute rebuilds them from the round results, verify checks them."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from scoring_helpers import finish_game, points_result, table_for

from games.models import League
from play.writes import round_recorded
from scoring.models import RoundResult, Standing
from scoring.services import league_standings_recompute

pytestmark = pytest.mark.django_db


@pytest.fixture
def played_league(players, league_of, finish_round) -> League:
    """Two tables of a house league; the second table's last round ends after the league finished."""
    league = league_of("house")
    ada, bert, cleo, dora = players(4)
    first = table_for([ada, bert], league)
    second = table_for([cleo, dora, ada], league)
    finish_round(first, points_result([0, 120], winner=0, multiplier=2))
    finish_round(second, points_result([50, 0, 60], winner=1))
    finish_round(first, points_result([200, 0], winner=1))
    finish_round(second, points_result([0, 90, 260], winner=0))  # ada 60 + 200 + 260 = 520: loses
    finish_round(first, points_result([0, 30], winner=0))  # late: not counted
    return league


def test_verify_passes_on_standings_kept_by_the_live_path(played_league):
    played_league.refresh_from_db()
    assert played_league.status == "finished"
    out = StringIO()
    call_command("verify_standings", stdout=out)
    assert "standings match" in out.getvalue()
    assert league_standings_recompute(league_id=played_league.pk, write=False) == []


def test_verify_fails_on_a_tampered_standing_and_the_recompute_repairs_it(played_league):
    before = {s.player_id: (s.rounds, s.wins, s.points, s.multiplier_bonus) for s in played_league.standings.all()}
    victim = played_league.standings.order_by("points").first()
    Standing.objects.filter(pk=victim.pk).update(points=victim.points + 7, wins=victim.wins + 1)

    with pytest.raises(CommandError):
        call_command("verify_standings", str(played_league.pk), stdout=StringIO(), stderr=StringIO())

    out = StringIO()
    call_command("standings_recompute", stdout=out)
    assert f"player {victim.player_id}" in out.getvalue()
    after = {s.player_id: (s.rounds, s.wins, s.points, s.multiplier_bonus) for s in played_league.standings.all()}
    assert after == before
    call_command("verify_standings", stdout=StringIO())


def test_the_recompute_restores_the_loser_and_the_uncounted_round(played_league):
    played_league.refresh_from_db()
    loser = played_league.loser_id
    League.objects.filter(pk=played_league.pk).update(status="active", loser=None, finished_at=None)
    RoundResult.objects.filter(league=played_league).update(counted=True)
    Standing.objects.filter(league=played_league).delete()

    dry = StringIO()
    call_command("standings_recompute", "--dry-run", stdout=dry)
    assert "1 league(s) checked, 1 differ" in dry.getvalue()
    assert not Standing.objects.filter(league=played_league).exists()

    problems = league_standings_recompute(league_id=played_league.pk)

    assert problems
    played_league.refresh_from_db()
    assert (played_league.status, played_league.loser_id) == ("finished", loser)
    assert RoundResult.objects.filter(league=played_league, counted=False).count() == 1
    assert league_standings_recompute(league_id=played_league.pk, write=False) == []


def test_a_practice_round_in_a_league_never_counts_and_verify_and_recompute_agree(players, league_of):
    """A league table refuses a chosen seed or setup; a practice round recorded there all the same
    (written before the refusal, or by hand) stays in the round results, marked, and out of the totals."""
    league = league_of("house")
    ada, bert = players(2)
    table = table_for([ada, bert], league)
    round_recorded(game=finish_game(table, points_result([0, 40], winner=0)))
    practice = finish_game(table, points_result([0, 450], winner=0))
    practice.practice = True
    practice.save(update_fields=["practice"])

    recorded = round_recorded(game=practice)

    assert (recorded.practice, recorded.counted) == (True, False)
    assert {s.player_id: (s.rounds, s.points) for s in Standing.objects.filter(league=league)} == {
        ada.pk: (1, 0), bert.pk: (1, 40)}
    assert league_standings_recompute(league_id=league.pk, write=False) == []
    call_command("verify_standings", stdout=StringIO())
    Standing.objects.filter(league=league).delete()
    assert league_standings_recompute(league_id=league.pk) != []  # rebuilt from the round results, practice left out
    assert {s.player_id: (s.rounds, s.points) for s in Standing.objects.filter(league=league)} == {
        ada.pk: (1, 0), bert.pk: (1, 40)}
    assert RoundResult.objects.get(pk=recorded.pk).counted is False
