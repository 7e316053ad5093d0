"""The ratings migration marks the rounds recorded before it by the rule new rounds follow: rated
unless practice or a bot made most of a person's turns; `ratings_recompute` then rates them."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from scoring.models import Rating, RoundResult
from scoring.ratings import ratings_recompute

pytestmark = pytest.mark.django_db(transaction=True)

#: Scoring before its ratings; the games and lobby migrations that came after it (League moved down to
#: games in their 0008/0002) wait too.
BEFORE = [("scoring", "0003_practice_rounds"), ("games", "0007_lobby_visibility_presence"), ("lobby", "0001_initial")]


def test_rounds_recorded_before_ratings_are_marked_by_the_same_rule_and_then_rated():
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    before = [node for node in latest if node[0] not in {app for app, _name in BEFORE}] + BEFORE
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    Player, Table, Game, Move = (apps.get_model("games", name) for name in ("Player", "Table", "Game", "Move"))
    RoundResultBefore, PlayerResult = (apps.get_model("scoring", name) for name in ("RoundResult", "PlayerResult"))
    now = timezone.now()
    ada, bert = Player.objects.create(name="Ada"), Player.objects.create(name="Bert")
    bot = Player.objects.create(name="Bot", is_bot=True)
    table = Table.objects.create(host=ada, rules="classic", options={}, max_players=3)
    rounds = {}
    for number, (kind, bot_rows) in enumerate([("fair", 1), ("practice", 0), ("taken", 5), ("bot seat", 0)], start=1):
        game = Game.objects.create(table=table, number=number, rules={}, seed="0", practice=kind == "practice",
                                   positions=[0, 1, 2], state={}, status="finished", finished_at=now)
        header = RoundResultBefore.objects.create(game=game, table=table, number=number, rules="classic",
                                                  scoring="ranking", reason="mau_mau", practice=kind == "practice",
                                                  finished_at=now)
        for seat, player in enumerate((ada, bert, bot)):
            PlayerResult.objects.create(round=header, player=player, table=table, rules="classic", seat=seat,
                                        rank=seat + 1, cards_left=seat, raw_points=0, points=0, finished_at=now)
        actors = ["player"] * 4 + ["bot"] * bot_rows  # Ada's seat: a bot made 5 of her 9 turns in "taken"
        moves = [(0, actor) for actor in actors] + [(2, "bot")] * 6  # the bot's own seat: all bot rows
        Move.objects.bulk_create([Move(game=game, seq=seq, actor=actor, seat=seat, player=ada, action={},
                                       events=[], created_at=now, hash="0" * 64)
                                  for seq, (seat, actor) in enumerate(moves, start=1)])
        rounds[kind] = header.pk

    executor = MigrationExecutor(connection)
    executor.migrate(latest)

    rated = dict(RoundResult.objects.values_list("id", "rated"))
    assert {kind: rated[pk] for kind, pk in rounds.items()} == {
        "fair": True, "practice": False, "taken": False, "bot seat": True}
    assert not Rating.objects.exists()
    assert ratings_recompute() != []
    assert dict(Rating.objects.values_list("player_id", "rounds")) == {ada.pk: 2, bert.pk: 2, bot.pk: 2}
    assert ratings_recompute(write=False) == []
