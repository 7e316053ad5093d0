"""The seasons migration puts every league so far in its first season, its creator as owner and every
person with a standing as a member; `standings_recompute` then builds the race and the replay agrees."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from games.models import LeagueMember
from scoring.models import RaceStep, Season
from scoring.services import league_standings_recompute

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("scoring", "0009_league_moved_to_games"), ("games", "0008_league_moved_from_scoring")]


def test_leagues_from_before_seasons_are_in_their_first_one_with_their_members():
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    before = [node for node in latest if node[0] not in {app for app, _name in BEFORE}] + BEFORE
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    Player, Table, Game, League = (apps.get_model("games", name) for name in ("Player", "Table", "Game", "League"))
    RoundResult, PlayerResult, Standing = (apps.get_model("scoring", name)
                                           for name in ("RoundResult", "PlayerResult", "Standing"))
    now = timezone.now()
    ada, bert = Player.objects.create(name="Ada"), Player.objects.create(name="Bert")
    bot = Player.objects.create(name="Bot", is_bot=True)
    league = League.objects.create(name="Old", rules="house", options={"league_limit": 500}, created_by=ada)
    table = Table.objects.create(host=ada, rules="house", options={}, max_players=3, league=league)
    for number, points in enumerate((30, 12), start=1):
        game = Game.objects.create(table=table, number=number, rules={}, seed="0", positions=[0, 1, 2], state={},
                                   status="finished", finished_at=now)
        header = RoundResult.objects.create(game=game, table=table, league=league, number=number, rules="house",
                                            scoring="points", reason="mau_mau", finished_at=now)
        for seat, (player, line) in enumerate(((ada, 0), (bert, points), (bot, 1))):
            PlayerResult.objects.create(round=header, player=player, table=table, league=league, rules="house",
                                        seat=seat, rank=seat + 1, cards_left=1, raw_points=line, points=line,
                                        won=seat == 0, finished_at=now)
    for player, rounds, wins, points in ((ada, 2, 2, 0), (bert, 2, 0, 42), (bot, 2, 0, 2)):
        Standing.objects.create(league=league, player=player, rounds=rounds, wins=wins, points=points)

    executor = MigrationExecutor(connection)
    executor.migrate(latest)

    assert list(Season.objects.filter(league_id=league.pk).values_list("number", "status")) == [(1, "active")]
    assert dict(LeagueMember.objects.filter(league_id=league.pk).values_list("player_id", "role")) == {
        ada.pk: "owner", bert.pk: "member"}
    assert league_standings_recompute(league_id=league.pk) != []  # the race and biggest rounds are built
    assert list(RaceStep.objects.filter(league_id=league.pk).order_by("step").values_list("step", flat=True)) == [1, 2]
    assert league_standings_recompute(league_id=league.pk, write=False) == []
