"""Two scorekeepers recording at the same moment (PostgreSQL, real threads): both rounds land, one after the
other, because each recording locks the league row first."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection
from scoring_helpers import run_together

from games.models import LeagueMember, Player
from scoring import seasons, sheet
from scoring.models import RaceStep, RoundResult
from scoring.services import league_create

pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL: SQLite serializes writers, so no two transactions run at the same moment",
    ),
    pytest.mark.django_db(transaction=True),
]


def recording(league_id: int, keeper: Player, loser: Player, points: int) -> Callable[[threading.Barrier], object]:
    def move(barrier: threading.Barrier) -> None:
        barrier.wait(timeout=20)
        sheet.round_record(league_id=league_id, player=keeper,
                           lines=[sheet.SheetLine(player=keeper.pk, cards=[]),
                                  sheet.SheetLine(player=loser.pk, points=points)], winner=keeper.pk)

    return move


def test_two_scorekeepers_recording_at_once_both_land_in_order():
    ada, bert, cleo = [Player.objects.create(name=name) for name in ("Ada", "Bert", "Cleo")]
    league = league_create(name="Busy night", rules="house", options={"league_limit": 0}, created_by=ada,
                           scorekeeper_alone=True)
    LeagueMember.objects.bulk_create([LeagueMember(league=league, player=bert, role="scorekeeper"),
                                      LeagueMember(league=league, player=cleo)])

    errors = run_together([recording(league.pk, ada, cleo, 10), recording(league.pk, bert, cleo, 30)])

    assert errors == []
    ids = list(RoundResult.objects.filter(league=league, status="counted").order_by("id").values_list("id", flat=True))
    assert len(ids) == 2
    race = list(RaceStep.objects.filter(league=league).order_by("step").values_list("step", "round_id", "totals"))
    assert [(step, round_id) for step, round_id, _totals in race] == [(1, ids[0]), (2, ids[1])]
    assert race[-1][2][str(cleo.pk)] == 40
    league.refresh_from_db()
    assert seasons.sheet_compare(league=league, replay=seasons.sheet_replay(league=league)) == []
