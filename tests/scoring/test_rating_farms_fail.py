"""Rating farms fail (scoring.ratings): a sock account resigning before its first move rates nobody;
rounds with a `random` bot are not rated; the same players are rated together at most
``MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY`` times a day; a person whose seat a stand-in bot finished makes
the round unrated; and a provisional rating is not on the leaderboard. The recompute agrees throughout."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from scoring_helpers import client_for, finish_game, table_for

from games.models import Game, Move, Player
from play.writes import round_recorded
from scoring.models import Rating, RoundResult
from scoring.ratings import PROVISIONAL_ROUNDS, ratings_recompute

pytestmark = pytest.mark.django_db


def won_by(seat: int, players: int) -> dict[str, Any]:
    """An engine-shaped result of a round that seat ``seat`` won (the others tie second)."""
    rows = [{"seat": s, "rank": 1 if s == seat else 2, "cards_left": 0 if s == seat else 3, "raw_points": 0,
             "multiplier": 1, "points": 0 if s == seat else 3, "won": s == seat} for s in range(players)]
    return {"winner": seat, "reason": "mau_mau", "multiplier": 1,
            "players": sorted(rows, key=lambda row: (row["rank"], row["seat"]))}


def moves(game: Game, rows: list[tuple[int, str, str]], players: list[Player]) -> None:
    """Ledger rows (seat, actor, action type) for a finished round built by ``finish_game``."""
    Move.objects.bulk_create([
        Move(game=game, seq=index, actor=actor, seat=seat, player=players[seat], action={"type": kind}, events=[],
             created_at=timezone.now(), hash=f"{index:064x}")
        for index, (seat, actor, kind) in enumerate(rows, start=1)
    ])


def test_a_sock_guest_resigning_at_its_first_move_rates_nobody(make_player) -> None:  # type: ignore[no-untyped-def]
    owner, sock = make_player("Owner"), make_player("Sock")
    table = owner.post("/api/v1/tables", {"rules": "classic", "max_players": 2}, format="json").json()
    assert sock.post(f"/api/v1/tables/{table['id']}/join", format="json").status_code == 200
    for _round in range(30):
        game = owner.post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()
        resigned = sock.post(f"/api/v1/games/{game['id']}/actions", {"type": "resign"}, format="json")
        assert resigned.status_code == 200 and resigned.json()["result"]["reason"] == "resigned"
    assert RoundResult.objects.filter(table_id=table["id"]).count() == 30
    assert not RoundResult.objects.filter(table_id=table["id"], rated=True).exists()
    assert not Rating.objects.filter(player_id=owner.player_id).exists()
    assert owner.get("/api/v1/ratings/classic?people_only=true").json()["results"] == []
    assert ratings_recompute(write=False) == []


def test_a_resignation_after_ones_own_first_card_is_rated(players) -> None:  # type: ignore[no-untyped-def]
    ada, bert = players(2)
    game = finish_game(table_for([ada, bert], rules="classic"), {**won_by(0, 2), "reason": "resigned"})
    moves(game, [(0, "player", "play"), (1, "player", "play"), (0, "player", "play"), (1, "player", "resign")],
          [ada, bert])
    assert round_recorded(game=game).rated


def test_wins_against_the_random_bot_are_not_rated(players) -> None:  # type: ignore[no-untyped-def]
    (ada,) = players(1)
    for _round in range(10):
        bot = Player.objects.create(name="Bot 1 (random)", is_bot=True, bot_level="random")
        game = finish_game(table_for([ada, bot], rules="classic"), won_by(0, 2))
        assert round_recorded(game=game).rated is False
    assert not Rating.objects.filter(player=ada).exists()
    basic = Player.objects.create(name="Bot 1 (basic)", is_bot=True, bot_level="basic")
    assert round_recorded(game=finish_game(table_for([ada, basic], rules="classic"), won_by(0, 2))).rated


def test_the_same_players_are_rated_together_only_a_few_times_a_day(players, settings, time_machine) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    settings.MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY = 3
    time_machine.move_to(timezone.now(), tick=False)
    ada, bert, cleo = players(3)
    pair = table_for([ada, bert], rules="classic")
    rated = [round_recorded(game=finish_game(pair, won_by(0, 2))).rated for _ in range(10)]
    assert rated == [True] * 3 + [False] * 7
    assert Rating.objects.get(player=ada, rules="classic").rounds == 3
    trio = table_for([ada, bert, cleo], rules="classic")  # other people: another set
    assert round_recorded(game=finish_game(trio, won_by(0, 3))).rated
    time_machine.shift(timedelta(hours=24, seconds=1))
    assert round_recorded(game=finish_game(pair, won_by(0, 2))).rated
    assert ratings_recompute(write=False) == []


def test_a_round_whose_stand_in_bot_finished_a_persons_seat_is_not_rated(players) -> None:  # type: ignore[no-untyped-def]  # noqa: E501
    ada, bert = players(2)
    game = finish_game(table_for([ada, bert], rules="classic"), won_by(1, 2))
    # Ada played five turns herself, then left (or timed out): a bot played her last two
    moves(game, [(0, "player", "play"), (1, "player", "draw")] * 5 + [(0, "bot", "draw"), (1, "player", "play"),
                                                                        (0, "bot", "draw"), (1, "player", "play")],
          [ada, bert])
    assert round_recorded(game=game).rated is False
    assert not Rating.objects.exists()


def test_a_provisional_rating_is_not_on_the_leaderboard(players, settings) -> None:  # type: ignore[no-untyped-def]
    settings.MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY = 0
    ada, bert = players(2)
    table = table_for([ada, bert], rules="classic")
    for number in range(PROVISIONAL_ROUNDS):
        assert client_for(ada).get("/api/v1/ratings/classic").json()["results"] == []
        round_recorded(game=finish_game(table, won_by(number % 2, 2)))
    board = client_for(ada).get("/api/v1/ratings/classic").json()["results"]
    assert sorted(line["player"]["id"] for line in board) == [ada.pk, bert.pk]
    assert not any(line["provisional"] for line in board)
