"""Rounds that share players ending at the same moment (PostgreSQL, real threads): no rating update
is lost, and the order they were rated in is their results' id order, so the recompute finds the same values."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from scoring_helpers import deal_fixed, finish_game, recorded_under_game_lock, run_together, table_for
from test_ratings import ranked

from accounts import services as account_services
from games.engine import build_deck, legal_actions
from play import services as games_services
from scoring.models import Rating, RatingPoint, RoundResult
from scoring.ratings import ratings_recompute

pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL: SQLite serializes writers, so no two transactions run at the same moment",
    ),
    pytest.mark.django_db(transaction=True),
]


def test_rounds_sharing_players_that_end_together_lose_no_rating_update(players, settings):
    settings.MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY = 0  # the same players, six rounds each: the lock is tested
    people = players(6)
    # Four tables whose players overlap in both directions (ids ascending and descending), so
    # that locking in seat order would deadlock (the rows are locked in player-id order).
    seatings = [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 5], [5, 4, 0, 2]]
    tables = [table_for([people[i] for i in seating], rules="classic") for seating in seatings]
    rounds = 6
    for number in range(rounds):
        games = [finish_game(table, ranked([(seat + number) % len(seating) + 1 for seat in range(len(seating))]))
                 for table, seating in zip(tables, seatings, strict=True)]
        assert run_together([recorded_under_game_lock(game.pk) for game in games]) == []

    played = {person.pk: 0 for person in people}
    for seating in seatings:
        for index in seating:
            played[people[index].pk] += rounds
    assert dict(Rating.objects.filter(rules="classic").values_list("player_id", "rounds")) == played
    assert RatingPoint.objects.count() == sum(played.values())
    assert RoundResult.objects.filter(rated=True).count() == rounds * len(tables)
    assert ratings_recompute(write=False) == []


def submitted(game_id: int, host: Any, action: dict[str, Any]) -> Callable[[threading.Barrier], object]:
    def move(barrier: threading.Barrier) -> None:
        barrier.wait(timeout=20)
        games_services.move_submit(game_id=game_id, actor="player", player=host, action=action)

    return move


def test_winning_moves_submitted_together_at_tables_sharing_a_player_are_all_rated(monkeypatch, settings):
    settings.MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY = 0
    ada, bert, cleo = (account_services.player_create(name=name)[0] for name in ("Ada", "Bert", "Cleo"))
    tables = []
    for host, guest in ((ada, bert), (cleo, bert), (bert, ada)):
        table = games_services.table_create(host=host, rules="house", max_players=2)
        games_services.table_join(table_id=table.pk, player=guest)
        tables.append((table, host))
    hands, starter = [["5H"], ["X1"]], "5C"  # the host goes out at once
    stock = [card for card in build_deck("french52", 3) if card not in {"5H", "X1", starter}]
    deal_fixed(monkeypatch, {"hands": hands, "starter": starter, "stock": stock})  # fair rounds, known hands

    for _ in range(3):
        games = [games_services.round_start(table_id=t.pk, player=host) for t, host in tables]
        winning = next(a for a in legal_actions(games[0].engine_state(), 0) if a["type"] == "play")
        assert run_together([submitted(game.pk, host, winning) for game, (_, host) in zip(games, tables,
                                                                                          strict=True)]) == []

    rounds = dict(Rating.objects.filter(rules="house").values_list("player_id", "rounds"))
    assert rounds == {ada.pk: 6, bert.pk: 9, cleo.pk: 3}
    assert RoundResult.objects.filter(rated=True).count() == 9
    assert ratings_recompute(write=False) == []
