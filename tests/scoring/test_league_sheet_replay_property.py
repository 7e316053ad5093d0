"""Any sequence of recorded rounds, confirmations, disputes, corrections and season starts leaves the same
standings, seasons, race and round marks kept step by step as a replay of the ledger rebuilds."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import LeagueMember, Player
from maumau.errors import DomainError
from scoring import seasons, sheet
from scoring.models import RoundResult
from scoring.services import league_create

pytestmark = pytest.mark.django_db

_names = itertools.count(1)

#: (kind, a, b, c): what the numbers pick depends on the kind.
steps = st.lists(st.tuples(st.sampled_from(["record", "record", "confirm", "dispute", "correct", "season"]),
                           st.integers(0, 2), st.integers(0, 60), st.integers(0, 7)),
                 min_size=1, max_size=14)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=steps, limit=st.sampled_from([0, 60]), auto=st.booleans(), alone=st.booleans())
def test_the_sheet_kept_step_by_step_equals_its_replay(db, plan, limit, auto, alone):
    owner, *others = [Player.objects.create(name=f"H{next(_names)}") for _ in range(3)]
    league = league_create(name="Property", rules="house", options={"league_limit": limit}, created_by=owner,
                           next_season="auto" if auto else "owner", scorekeeper_alone=alone)
    LeagueMember.objects.bulk_create([LeagueMember(league=league, player=p) for p in others])
    everyone = [owner, *others]
    for kind, a, b, c in plan:
        rounds = list(RoundResult.objects.filter(league=league).order_by("id"))
        try:
            if kind in ("record", "correct"):
                corrects = rounds[c % len(rounds)].pk if kind == "correct" and rounds else None
                seated = everyone[: 2 + (a % 2)]
                winner = seated[a % len(seated)]
                lines = [sheet.SheetLine(player=p.pk, cards=[] if p == winner else None,
                                         points=None if p == winner else (b + 7 * index) % 61)
                         for index, p in enumerate(seated)]
                sheet.round_record(league_id=league.pk, player=owner, lines=lines, winner=winner.pk,
                                   extra_jacks=c % 2, corrects=corrects)
            elif kind in ("confirm", "dispute") and rounds:
                target = rounds[c % len(rounds)]
                act = sheet.round_confirm if kind == "confirm" else sheet.round_dispute
                act(league_id=league.pk, round_id=target.pk, player=everyone[a])
            elif kind == "season":
                sheet.season_next(league_id=league.pk, player=owner)
        except DomainError:
            pass  # a refusal changes nothing; the next step goes on
    league.refresh_from_db()

    assert seasons.sheet_compare(league=league, replay=seasons.sheet_replay(league=league)) == []
