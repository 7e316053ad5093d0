"""Ratings and the lobby's ways to end a round: a resignation ends it like any end and is rated (the
one who gave up last), an aborted round has no result and moves no rating, and a round in which a
bot took over an absent person after timeouts is rated only if the person played most of their turns."""

from __future__ import annotations

from typing import Any

import pytest
from scoring_helpers import deal_fixed

from games import engine
from games.models import Game, Move, Seat
from play import clocks
from play import services as games_services
from scoring.models import Rating, RatingPoint, RoundResult
from tests.clocks.clock_helpers import fresh, round_with_people, seat_of_turn

pytestmark = pytest.mark.django_db



def fair_round(make_player: Any, rules: str = "classic", people: int = 2) -> tuple[dict[str, Any], list[Any]]:
    clients = [make_player(f"P{index}") for index in range(people)]
    table = clients[0].post("/api/v1/tables", {"rules": rules, "max_players": people}, format="json").json()
    for client in clients[1:]:
        assert client.post(f"/api/v1/tables/{table['id']}/join", format="json").status_code == 200
    game = clients[0].post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()
    return game, clients


def test_a_round_ended_by_a_resignation_is_rated_with_the_resigner_last(make_player):
    game, (ada, bert, cleo) = fair_round(make_player, people=3)
    by_seat = {0: ada, 1: bert, 2: cleo}
    played: set[int] = set()
    # Everyone plays a card first: a round in which someone moved but never played one is not rated.
    while played != {0, 1, 2} or Game.objects.get(pk=game["id"]).turn != 1:
        turn = Game.objects.get(pk=game["id"]).turn
        legal = by_seat[turn].get(f"/api/v1/games/{game['id']}").json()["legal_actions"]
        action = next((action for action in legal if action["type"] == "play"), legal[0])
        assert by_seat[turn].post(f"/api/v1/games/{game['id']}/actions", action, format="json").status_code == 200
        played |= {turn} if action["type"] == "play" else set()
        assert Game.objects.get(pk=game["id"]).status != "finished"
    response = bert.post(f"/api/v1/games/{game['id']}/actions", {"type": "resign"}, format="json")
    assert response.status_code == 200, response.content

    recorded = RoundResult.objects.get(game_id=game["id"])
    assert (recorded.reason, recorded.rated) == ("resigned", True)
    ranks = dict(RatingPoint.objects.filter(round=recorded).values_list("player_id", "rank"))
    assert ranks[bert.player_id] == 3
    ratings = dict(Rating.objects.filter(rules="classic").values_list("player_id", "rating"))
    assert ratings[bert.player_id] < min(ratings[ada.player_id], ratings[cleo.player_id])


def test_an_aborted_round_has_no_result_and_moves_no_rating(make_player):
    ada, bert = make_player("Ada"), make_player("Bert")
    table = ada.post("/api/v1/tables", {"rules": "classic", "max_players": 2}, format="json").json()
    bert.post(f"/api/v1/tables/{table['id']}/join", format="json")
    game = ada.post(f"/api/v1/tables/{table['id']}/rounds", {"seed": 3}, format="json").json()  # practice
    response = ada.post(f"/api/v1/games/{game['id']}/abort", format="json")
    assert response.status_code == 200, response.content

    assert Game.objects.get(pk=game["id"]).result["reason"] == "aborted"
    assert not RoundResult.objects.filter(game_id=game["id"]).exists()
    assert not Rating.objects.exists() and not RatingPoint.objects.exists()



#: Classic, the sleeper (seat 0, first on turn) with two cards, the awake person with twelve: the
#: bot that takes the sleeper's seat needs at least five turns to go out (two cards and the three the
#: clock drew), and the awake person cannot go out before it.
SLEEPER, AWAKE = ["10S", "KS"], ["7C", "8C", "9C", "10C", "JC", "QC", "KC", "AC", "7D", "8D", "9D", "10D"]
STOCK = ["7H", "8H", "9H", "10H", "JH", "KH", "AH", "7S", "8S", "9S", "JS", "QS", "AS", "JD", "QD", "KD", "AD"]


def taken_over_after_timeouts(clock: Any, monkeypatch: Any) -> tuple[Game, list[Any], Seat]:
    """A fair classic round of two people in which the first lets three turns in a row run out
    (drawing a card each: the `skip` policy) while the other plays in time: a bot takes the seat."""
    deal_fixed(monkeypatch, {"hands": [SLEEPER, AWAKE], "starter": "QH", "stock": STOCK})
    game, players = round_with_people("classic", options={"turn_seconds": 10, "timeout_policy": "skip"}, seed=None)
    sleeper = seat_of_turn(game)
    awake = next(player for player in players if player.pk != sleeper.player_id)
    for _ in range(20):
        sleeper.refresh_from_db()
        if sleeper.bot_controlled:
            return game, players, sleeper
        if game.positions[game.turn] == sleeper.position:
            clock.shift(11)
            assert clocks.clocks_resolve_due(game_id=game.pk) == 1
            game = fresh(game)
        else:
            game = awake_plays(game, awake, drawing=True)
    raise AssertionError("no bot took the sleeper's seat")


def awake_plays(game: Game, player: Any, *, drawing: bool) -> Game:
    """The awake person's turn: draw (and keep) if `drawing` and allowed, else play when they can."""
    seat = next(index for index, position in enumerate(game.positions)
                if Seat.objects.get(table_id=game.table_id, position=position).player_id == player.pk)
    for _ in range(3):
        state = game.engine_state()
        if state.status != "active" or state.turn != seat:
            break
        legal = engine.legal_actions(state, seat)
        kinds = ("pass", "draw") if drawing else ("play", "pass", "draw")
        action = next((a for kind in kinds for a in legal if a["type"] == kind and "as" not in a), legal[0])
        games_services.move_submit(game_id=game.pk, actor="player", player=player, action=action)
        game = fresh(game)
    return game


def test_a_round_a_bot_played_for_an_absent_person_after_timeouts_is_not_rated(clock, monkeypatch):
    game, players, sleeper = taken_over_after_timeouts(clock, monkeypatch)
    awake = next(player for player in players if player.pk != sleeper.player_id)
    for _ in range(500):  # the awake person only draws: the bot plays the sleeper's hand out
        if game.status != "active":
            break
        game = awake_plays(game, awake, drawing=True)
    assert game.status == "finished"
    bot_turns = Move.objects.filter(game=game, seat=game.positions.index(sleeper.position), actor="bot").count()
    assert bot_turns >= 5, "the bot played the sleeper's hand out"
    assert RoundResult.objects.get(game=game).rated is False
    assert not Rating.objects.exists()


def test_a_person_who_takes_the_seat_back_and_plays_on_keeps_the_round_rated(clock, monkeypatch):
    game, players, sleeper = taken_over_after_timeouts(clock, monkeypatch)
    assert games_services.seat_reclaim(table_id=game.table_id, player=sleeper.player)
    for _ in range(500):
        if game.status != "active":
            break
        for player in players:
            game = awake_plays(fresh(game), player, drawing=False)
    assert game.status == "finished"
    assert not Move.objects.filter(game=game, actor="bot").exists()
    assert RoundResult.objects.get(game=game).rated is True
    assert set(Rating.objects.values_list("player_id", flat=True)) == {player.pk for player in players}
