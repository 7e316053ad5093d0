"""Rating farms with a fresh sock per round fail (scoring.ratings): a round against a new opponent (fewer
than MAUMAU_RATING_NEW_ROUNDS rated rounds, or younger than MAUMAU_RATING_NEW_HOURS) moves a player by at
most MAUMAU_RATING_NEW_CAP and leaves their sigma; a round in which someone moved but never played a card
is not rated. The recompute decides both again as the rounds did."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from scoring_helpers import client_for, finish_game, table_for
from test_rating_farms_fail import moves, won_by

from games.models import Player
from play.writes import round_recorded
from scoring.models import Rating
from scoring.ratings import INITIAL_MU, INITIAL_SIGMA, PROVISIONAL_ROUNDS, familiar_rating, ratings_recompute

pytestmark = pytest.mark.django_db


def farmed(farmer: Player, rounds: int, sock_moves: list[str]) -> list[bool]:
    """`rounds` rounds the farmer wins, each against a fresh sock whose own moves are `sock_moves`."""
    rated = []
    for number in range(rounds):
        sock = Player.objects.create(name=f"Sock {number}")
        game = finish_game(table_for([farmer, sock], rules="classic"), won_by(0, 2))
        ledger = [(0, "player", "play")]
        for kind in sock_moves:
            ledger += [(1, "player", kind), (0, "player", "play")]
        moves(game, ledger[:-1] if sock_moves[-1] == "resign" else ledger, [farmer, sock])
        rated.append(round_recorded(game=game).rated)
    return rated


def test_twelve_fresh_socks_do_not_lift_a_farmer_to_a_top_rating(players, settings):
    settings.MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY = 3
    (farmer,) = players(1)

    rated = farmed(farmer, 12, ["play", "draw"])

    assert rated == [True] * 12
    rating = Rating.objects.get(player=farmer, rules="classic")
    assert rating.rounds == 12 >= PROVISIONAL_ROUNDS
    assert rating.sigma == INITIAL_SIGMA
    assert rating.mu <= INITIAL_MU + 12 * settings.MAUMAU_RATING_NEW_CAP + 1e-9
    board = client_for(farmer).get("/api/v1/ratings/classic?people_only=true").json()["results"]
    mine = next(line for line in board if line["player"]["id"] == farmer.pk)
    assert mine["display_rating"] <= familiar_rating(12 * settings.MAUMAU_RATING_NEW_CAP) < 1540
    assert ratings_recompute(write=False) == []


def test_a_sock_that_draws_once_and_resigns_rates_nobody(players):
    (farmer,) = players(1)

    rated = farmed(farmer, 12, ["draw", "resign"])

    assert rated == [False] * 12
    assert not Rating.objects.filter(player=farmer).exists()
    assert ratings_recompute(write=False) == []


def test_a_newcomer_moves_the_established_player_by_the_cap_and_moves_fully_itself(players, settings, time_machine):
    settings.MAUMAU_RATING_NEW_ROUNDS = 2
    settings.MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY = 0
    time_machine.move_to(timezone.now(), tick=False)
    ada, bert = players(2)
    time_machine.shift(timedelta(hours=25))
    pair = table_for([ada, bert], rules="classic")
    for number in range(2):  # both new: each held to the cap
        round_recorded(game=finish_game(pair, won_by(number % 2, 2)))
    assert Rating.objects.get(player=ada).sigma == INITIAL_SIGMA
    round_recorded(game=finish_game(pair, won_by(0, 2)))  # both established now: a full move
    before = Rating.objects.get(player=ada)
    assert before.sigma < INITIAL_SIGMA

    sock = Player.objects.create(name="Sock")
    round_recorded(game=finish_game(table_for([ada, sock], rules="classic"), won_by(0, 2)))

    after = Rating.objects.get(player=ada)
    assert after.sigma == before.sigma
    assert 0 < after.mu - before.mu <= settings.MAUMAU_RATING_NEW_CAP + 1e-9
    assert Rating.objects.get(player=sock).sigma < INITIAL_SIGMA  # the newcomer's own rating moves
    assert ratings_recompute(write=False) == []


def test_a_fresh_server_bot_is_no_newcomer(players):
    (ada,) = players(1)
    bot = Player.objects.create(name="Bot 2 (basic)", is_bot=True, bot_level="basic")

    round_recorded(game=finish_game(table_for([ada, bot], rules="classic"), won_by(0, 2)))

    assert Rating.objects.get(player=ada).sigma < INITIAL_SIGMA  # a full move: the server plays its bots
    assert ratings_recompute(write=False) == []
