"""Any sequence of recorded rounds, corrections, confirmations and disputes: the standings kept as they
happen equal the standings replayed from the ledger (`verify_standings`), season by season."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sheet_helpers import sheet_league

from games.models import Player
from maumau.errors import DomainError
from scoring.models import RoundResult
from scoring.services import SheetLine, league_standings_recompute, round_confirm, round_dispute, round_record

pytestmark = pytest.mark.django_db

CARDS = ["2H", "5S", "9D", "10C", "QH", "KS", "AD", "JC", "JH", "X1"]

step = st.one_of(
    st.tuples(st.just("record"), st.integers(0, 2), st.lists(st.sampled_from(CARDS), min_size=1, max_size=3,
                                                              unique=True), st.integers(0, 2), st.booleans()),
    st.tuples(st.just("confirm"), st.integers(0, 50), st.integers(1, 2)),
    st.tuples(st.just("dispute"), st.integers(0, 50), st.integers(1, 2)),
)


def apply(league: Any, people: list[Player], action: tuple[Any, ...]) -> None:
    rounds = list(RoundResult.objects.filter(league=league).order_by("id").values_list("id", flat=True))
    try:
        if action[0] == "record":
            _kind, loser, cards, jacks, correcting = action
            counted = list(RoundResult.objects.filter(league=league, sheet="counted").values_list("id", flat=True))
            corrects = counted[-1] if correcting and counted else None
            others = [people[(loser + 1) % 3]]
            lines = [SheetLine(player_id=people[0].pk), SheetLine(player_id=people[loser].pk, cards=cards)]
            if loser == 0:
                lines = [SheetLine(player_id=others[0].pk), SheetLine(player_id=people[0].pk, cards=cards)]
            round_record(league_id=league.pk, by=people[0], lines=lines, winner_id=lines[0].player_id,
                         extra_jacks=jacks, corrects=corrects)
        elif rounds:
            _kind, index, who = action
            service = round_confirm if action[0] == "confirm" else round_dispute
            service(league_id=league.pk, round_id=rounds[index % len(rounds)], player=people[who])
    except DomainError:
        pass  # a refused step writes nothing; the property holds all the same


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=14), auto=st.booleans())
def test_standings_kept_incrementally_equal_their_replay(players, steps, auto):
    people = players(3)
    league = sheet_league(people[0], people[1:], options={"league_limit": 150},
                          next_season="auto" if auto else "owner")
    for action in steps:
        apply(league, people, action)
        assert league_standings_recompute(league_id=league.pk, write=False) == []
