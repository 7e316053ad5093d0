"""Two tables of one league finishing rounds at the same moment (PostgreSQL, real threads).

Each thread does what `move_submit` does for a last move: lock its game row, then record the
result in that same transaction. A barrier makes both transactions hold their game lock
before either records, so the league row lock is what keeps the totals exact.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from scoring_helpers import (
    deal_fixed,
    finish_game,
    points_result,
    recorded_under_game_lock,
    run_together,
    scored,
    table_for,
)

from accounts import services as account_services
from games.engine import build_deck, legal_actions
from games.models import League, Player
from play import services as games_services
from play.writes import round_recorded
from scoring.models import LeagueResignation, RoundResult, Standing
from scoring.services import league_create, league_resign, league_standings_recompute

pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL: SQLite serializes writers, so no two transactions run at the same moment",
    ),
    pytest.mark.django_db(transaction=True),
]


def finish_together(game_ids: list[int]) -> list[BaseException]:
    return run_together([recorded_under_game_lock(game_id) for game_id in game_ids])


def submitted(game_id: int, host: Player, action: dict[str, Any]) -> Callable[[threading.Barrier], object]:
    def move(barrier: threading.Barrier) -> None:
        barrier.wait(timeout=20)
        games_services.move_submit(game_id=game_id, actor="player", player=host, action=action)

    return move


def test_rounds_finishing_together_at_two_tables_are_both_counted(players, league_of):
    league = league_of("house")
    ada, bert, cleo = players(3)
    first = table_for([ada, bert], league)
    second = table_for([ada, cleo], league)  # ada plays at both tables

    for number in range(10):
        games = [
            finish_game(first, points_result([0, 3], winner=0)),
            finish_game(
                second, points_result([5, 0], winner=1, multiplier=2) if number % 2 else points_result([0, 7], winner=0)
            ),
        ]
        assert finish_together([game.pk for game in games]) == []

    assert RoundResult.objects.filter(league=league, counted=True).count() == 20
    totals = {
        s.player_id: (s.rounds, s.wins, s.points, s.multiplier_bonus) for s in Standing.objects.filter(league=league)
    }
    assert totals == {
        ada.pk: (20, 15, 5 * 5, 0),
        bert.pk: (10, 0, 30, 0),
        cleo.pk: (10, 5, 5 * 7, 5),
    }
    assert league_standings_recompute(league_id=league.pk, write=False) == []


def test_two_rounds_crossing_the_limit_together_finish_the_league_once(players, league_of, finish_round):
    league = league_of("house")
    ada, bert, cleo, dora = players(4)
    first = table_for([ada, bert], league)
    second = table_for([cleo, dora], league)
    finish_round(first, points_result([0, 480], winner=0))
    finish_round(second, points_result([0, 490], winner=0))

    games = [
        finish_game(first, points_result([0, 30], winner=0)),
        finish_game(second, points_result([0, 20], winner=0)),
    ]
    assert finish_together([game.pk for game in games]) == []

    league.refresh_from_db()
    crossing = RoundResult.objects.filter(game__in=games)
    counted = crossing.get(counted=True)
    assert crossing.filter(counted=False).count() == 1
    assert league.status == League.STATUS_FINISHED
    assert league.loser_id == counted.players.get(won=False).player_id
    assert Standing.objects.get(league=league, player_id=league.loser_id).points == 510
    assert league_standings_recompute(league_id=league.pk, write=False) == []


def test_last_moves_submitted_together_at_two_league_tables_are_both_scored(monkeypatch):
    """The real path: two hosts' winning moves go through move_submit at the same moment."""
    league_players = [account_services.player_create(name=name)[0] for name in ("Ada", "Bert", "Cleo", "Dora")]
    ada, bert, cleo, dora = league_players
    league = league_create(name="Rush hour", rules="house", created_by=ada)
    tables = []
    for host, guest in ((ada, bert), (cleo, dora)):
        table = games_services.table_create(host=host, rules="house", max_players=2, league_id=league.pk)
        games_services.table_join(table_id=table.pk, player=guest)
        tables.append((table, host))
    hands, starter = [["5H"], ["X1"]], "5C"  # the host goes out at once, the guest keeps a joker: 50
    stock = [card for card in build_deck("french52", 3) if card not in {"5H", "X1", starter}]
    deal_fixed(monkeypatch, {"hands": hands, "starter": starter, "stock": stock})  # league tables deal fairly only

    for _ in range(4):
        games = [games_services.round_start(table_id=t.pk, player=host) for t, host in tables]
        winning = next(a for a in legal_actions(games[0].engine_state(), 0) if a["type"] == "play")
        assert (
            run_together([submitted(game.pk, host, winning) for game, (_, host) in zip(games, tables, strict=True)])
            == []
        )

    totals = {s.player_id: (s.rounds, s.wins, s.points) for s in Standing.objects.filter(league=league)}
    assert totals == {ada.pk: (4, 4, 0), bert.pk: (4, 0, 200), cleo.pk: (4, 4, 0), dora.pk: (4, 0, 200)}
    assert RoundResult.objects.filter(league=league, counted=True).count() == 8
    assert league_standings_recompute(league_id=league.pk, write=False) == []


def _resigning(league_id: int, player: Player) -> Callable[[threading.Barrier], object]:
    def move(barrier: threading.Barrier) -> None:
        barrier.wait(timeout=20)
        league_resign(league_id=league_id, player=player)

    return move


@pytest.mark.parametrize("rules", ["house", "tavern"])
def test_a_resignation_and_rounds_finishing_at_the_same_moment_are_ordered_by_the_league_lock(players, league_of,
                                                                                              rules):
    """Whichever takes the league row first, the result ids say which came first and the replay agrees."""
    league = league_of(rules)
    ada, bert, cleo = players(3)
    first = table_for([ada, bert], league, rules=rules)
    second = table_for([cleo, bert], league, rules=rules)

    def result(winner: int) -> dict[str, Any]:
        if rules == "house":
            return points_result([0, 40] if winner == 0 else [40, 0], winner=winner)
        return scored([[], ["7C"]] if winner == 0 else [["7C"], []], scoring="wins", winner=winner)

    round_recorded(game=finish_game(first, result(0)))
    games = [finish_game(first, result(1)), finish_game(second, result(1))]
    errors = run_together([*(recorded_under_game_lock(game.pk) for game in games), _resigning(league.pk, bert)])

    assert errors == []
    resignation = LeagueResignation.objects.get(league=league, player=bert)
    after = {round_id for round_id in RoundResult.objects.filter(league=league).values_list("id", flat=True)
             if round_id > (resignation.after_round_id or 0)}
    league.refresh_from_db()
    if rules == "house":
        assert (league.status, league.loser_id) == ("finished", bert.pk)
        assert set(RoundResult.objects.filter(league=league, counted=False).values_list("id", flat=True)) == after
    bert_rounds = Standing.objects.get(league=league, player=bert).rounds
    assert bert_rounds == 3 - len(after)
    assert league_standings_recompute(league_id=league.pk, write=False) == []
