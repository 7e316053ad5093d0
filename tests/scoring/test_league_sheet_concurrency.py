"""Two scorekeepers recording at the same moment (PostgreSQL, real threads): both rounds land, in order."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from scoring_helpers import run_together
from sheet_helpers import line, sheet_league

from games.models import LeagueMember
from scoring.models import RacePoint, RoundResult, Standing
from scoring.services import league_standings_recompute, round_record

pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="needs PostgreSQL: SQLite serializes writers, so no two transactions run at once"),
    pytest.mark.django_db(transaction=True),
]


def test_two_scorekeepers_recording_at_once_both_land_in_order(players):
    owner, keeper, bert, cleo = players(4)
    league = sheet_league(owner, [keeper, bert, cleo], confirmation="scorekeeper")
    LeagueMember.objects.filter(league=league, player=keeper).update(role="scorekeeper")

    def record(by, loser, card):
        def move(barrier: threading.Barrier) -> None:
            barrier.wait(timeout=20)
            for number in range(5):
                round_record(league_id=league.pk, by=by, lines=[line(by), line(loser, [f"{number + 2}{card}"])],
                             winner_id=by.pk)
        return move

    assert run_together([record(owner, bert, "H"), record(keeper, cleo, "S")]) == []
    assert RoundResult.objects.filter(league=league, counted=True).count() == 10
    points = dict(Standing.objects.filter(league=league).values_list("player_id", "points"))
    assert points[bert.pk] == points[cleo.pk] == 2 + 3 + 4 + 5 + 6
    steps = list(RacePoint.objects.filter(league=league).order_by("step").values_list("step", flat=True).distinct())
    assert steps == list(range(1, 11))
    assert league_standings_recompute(league_id=league.pk, write=False) == []
