"""Helpers for the round results tests: league tables and finished rounds built from a result.

`finish_game` stores a Game row as `move_submit` leaves it when the last move ends the round
(status finished, `result` = the engine's `state.result`), so tests can exercise
`round_recorded` without playing a whole round.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.engine import RuleSet, round_result
from games.models import Game, League, Player, Seat, Table
from play.writes import round_recorded
from tests.threads import run_together  # noqa: F401 - the scoring tests import it from here


def table_for(seated: Sequence[Player], league: League | None = None, rules: str = "house") -> Table:
    options = league.options if league is not None else RuleSet.from_preset(rules).to_json()
    table = Table.objects.create(
        host=seated[0],
        rules=options["rules"],
        options=options,
        max_players=max(len(seated), 2),
        league=league,
        status="playing",
    )
    Seat.objects.bulk_create(
        [Seat(table=table, position=position, player=player) for position, player in enumerate(seated)]
    )
    return table


def finish_game(table: Table, result: dict[str, Any]) -> Game:
    """A finished round of `table` whose engine result is `result` (game seat i = position i)."""
    table.rounds_started += 1
    table.save(update_fields=["rounds_started"])
    return Game.objects.create(
        table=table,
        number=table.rounds_started,
        rules=table.options,
        seed="0" * 64,
        positions=list(range(len(result["players"]))),
        state={},
        version=1,
        status="finished",
        result=result,
        finished_at=timezone.now(),
    )


def scored(
    hands: list[list[str]],
    scoring: str = "points",
    winner: int | None = 0,
    reason: str = "mau_mau",
    multiplier: int = 1,
) -> dict[str, Any]:
    """The engine's own scoring of these hands (the hands left when the round ended)."""
    return round_result(hands, scoring, winner, reason, multiplier)


def points_result(points: Sequence[int], winner: int | None = None, multiplier: int = 1) -> dict[str, Any]:
    """A house result in which seat i scores points[i] (the winner scores 0)."""
    rows = sorted(
        (
            {
                "seat": seat,
                "rank": 0,
                "cards_left": 0 if seat == winner else 1,
                "raw_points": value // multiplier if seat != winner else 0,
                "multiplier": 1 if seat == winner else multiplier,
                "points": value,
                "won": seat == winner,
            }
            for seat, value in enumerate(points)
        ),
        key=lambda row: (not row["won"], row["points"], row["seat"]),
    )
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    reason = "mau_mau" if winner is not None else "stalemate"
    return {"winner": winner, "reason": reason, "multiplier": multiplier, "players": rows}


def client_for(player: Player) -> Any:
    """An API client authenticated by token as `player` (a person with an auth user)."""
    from django.contrib.auth.models import User
    from rest_framework.test import APIClient

    from accounts.models import SCOPES
    from accounts.tokens import token_issue

    if player.user_id is None:
        player.user = User.objects.create_user(username=f"user{player.pk}")
        player.save(update_fields=["user"])
    _made, key = token_issue(user=player.user, name="test", scopes=SCOPES, used=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def deal_fixed(monkeypatch: Any, setup: dict[str, Any]) -> None:
    """Make every fair deal of this test the given one, so a league table (which refuses a chosen
    setup) deals known hands: the engine's shuffle is replaced for the test, for the round and its replay
    alike; the round stays a fair, counted one."""
    from games import engine

    def dealt(rules: RuleSet, players: int, seed: str | int, first: int = 0) -> Any:
        return engine.new_game_from_setup(rules, players=players, hands=setup["hands"], starter=setup["starter"],
                                          stock=setup["stock"], first=setup.get("first", 0), seed=seed)

    monkeypatch.setattr(engine, "new_game", dealt)


def recorded_under_game_lock(game_id: int) -> Callable[[threading.Barrier], object]:
    """What move_submit does for a last move: lock the game, then record (and rate) in that transaction."""

    def move(barrier: threading.Barrier) -> None:
        with transaction.atomic():
            game = Game.objects.select_for_update().get(pk=game_id)
            barrier.wait(timeout=20)
            round_recorded(game=game)

    return move
