"""Rounds for clock tests, set up through the services (the clock never needs HTTP)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from accounts import services as account_services
from games import engine
from games.models import Game, Move, Player, Seat
from play import services

#: The instant the ``clock`` fixture (tests/conftest.py) freezes: a noon far from any real date.
T0 = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


def round_with_people(rules: str = "classic", *, people: int = 2, options: dict[str, Any] | None = None,
                      seed: Any = 7, setup: dict[str, Any] | None = None) -> tuple[Game, list[Player]]:
    """A running round of ``people`` persons (none of them moves unless told to)."""
    players = [account_services.player_create(name=f"P{i}")[0] for i in range(people)]
    table = services.table_create(host=players[0], rules=rules, options=options, max_players=max(people, 2))
    for player in players[1:]:
        services.table_join(table_id=table.pk, player=player)
    game = services.round_start(table_id=table.pk, player=players[0], seed=seed, setup=setup)
    return game, players


def clock_moves(game: Game) -> list[Move]:
    return list(Move.objects.filter(game=game, actor="clock").order_by("seq"))


def fresh(game: Game) -> Game:
    return Game.objects.get(pk=game.pk)


def person_moves(game: Game, players: list[Player]) -> Game:
    """The person on turn finishes their turn in time: draw (then pass) if allowed, else play."""
    game = fresh(game)
    turn = game.turn
    for _ in range(3):
        state = game.engine_state()
        if state.status != "active" or state.turn != turn:
            break
        legal = engine.legal_actions(state, turn)
        action = next((a for kind in ("pass", "draw") for a in legal if a["type"] == kind), legal[0])
        seat = Seat.objects.get(table_id=game.table_id, position=game.positions[turn])
        services.move_submit(game_id=game.pk, actor="player", player=seat.player, action=action)
        game = fresh(game)
    return game


def seat_of_turn(game: Game) -> Seat:
    return Seat.objects.get(table_id=game.table_id, position=game.positions[game.turn])
