"""Ratings on the real path: a fair round played over the API is rated by its last move, in that
move's transaction, at a fixed number of queries; a round a person left to a bot is not; the
leaderboard and a player's ratings cost a fixed number of queries whatever the page."""

from __future__ import annotations

import pytest
from django.db import connection
from scoring_helpers import deal_fixed

from games.engine import build_deck
from games.models import Game
from scoring.models import Rating, RatingPoint, RoundResult
from tests.games.api_helpers import act, play_out, view

pytestmark = pytest.mark.django_db

HANDS, STARTER = [["5H"], ["X1"]], "5C"  # house: the host goes out with the first move
#: A rated round's last move costs the unrated one's queries (tests/games/test_query_budget.py): the
#: statement that counts the round's bot turns and creates and locks the rating rows takes the place of
#: the look-up for a result already recorded, which it also checks. Its writes (one UPDATE of the
#: ratings, one INSERT of the history points) join the move's last statement on PostgreSQL, taking the
#: result's id from its RETURNING; SQLite runs them one by one. The answer, a finished round's view, reads
#: what the round did to each rating (one query: scoring.selectors.round_rating_changes).
RATED_ROUND_END_QUERIES = (9 if connection.vendor == "postgresql" else 13 + 2) + 1
#: Token+user+player, then the page (the cursor carries the position: no count, no look-up).
LEADERBOARD_QUERIES = 2
#: Token+user+player, the player, their ratings, their history points (one windowed query).
PLAYER_RATINGS_QUERIES = 4


def going_out(game: dict) -> dict:
    return next(action for action in game["legal_actions"] if action["type"] == "play")


def rigged_house_table(make_player, monkeypatch):
    host, guest = make_player("Ada"), make_player("Bert")
    table = host.post("/api/v1/tables", {"rules": "house", "max_players": 2}, format="json").json()
    assert guest.post(f"/api/v1/tables/{table['id']}/join", format="json").status_code == 200
    stock = [card for card in build_deck("french52", 3) if card not in {"5H", "X1", STARTER}]
    deal_fixed(monkeypatch, {"hands": HANDS, "starter": STARTER, "stock": stock})
    return table, host, guest


def test_a_fair_rounds_last_move_rates_it_at_a_fixed_number_of_queries(make_player, monkeypatch,
                                                                       django_assert_num_queries):
    table, host, guest = rigged_house_table(make_player, monkeypatch)
    for number in range(1, 3):
        game = host.post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()
        with django_assert_num_queries(RATED_ROUND_END_QUERIES):
            response = act(host, game["id"], going_out(game))
        assert response.status_code == 200, response.content
        assert RoundResult.objects.get(game_id=game["id"]).rated
        ratings = dict(Rating.objects.filter(rules="house").values_list("player_id", "rounds"))
        assert ratings == {host.player_id: number, guest.player_id: number}
    assert Rating.objects.get(player_id=host.player_id).mu > Rating.objects.get(player_id=guest.player_id).mu


def test_a_round_whose_person_left_to_a_bot_is_recorded_but_not_rated(make_player):
    host, guest = make_player("Ada"), make_player("Bert")
    table = host.post("/api/v1/tables", {"rules": "classic", "max_players": 2}, format="json").json()
    assert guest.post(f"/api/v1/tables/{table['id']}/join", format="json").status_code == 200
    game = host.post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()
    assert guest.post(f"/api/v1/tables/{table['id']}/leave", format="json").status_code == 200

    def prefer_play(legal):
        return next((a for a in legal if a["type"] == "play" and "as" not in a), legal[0])

    for _seat, _action, response in play_out({0: host}, game["id"], prefer_play):
        assert response.status_code == 200, response.content
    assert view(host, game["id"])["status"] == "finished"
    recorded = RoundResult.objects.get(game_id=game["id"])
    assert (recorded.practice, recorded.rated) == (False, False)
    assert not Rating.objects.exists()
    history = host.get("/api/v1/me/history").json()["results"]
    assert [(line["game"], line["rated"]) for line in history] == [(game["id"], False)]


def test_two_people_who_play_a_fair_round_out_are_both_rated(make_player, settings):
    settings.MAUMAU_LEADERBOARD_MIN_ROUNDS = 0
    host, guest = make_player("Ada"), make_player("Bert")
    table = host.post("/api/v1/tables", {"rules": "tavern", "max_players": 2}, format="json").json()
    assert guest.post(f"/api/v1/tables/{table['id']}/join", format="json").status_code == 200
    game = host.post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()
    for _seat, _action, response in play_out({0: host, 1: guest}, game["id"], lambda legal: legal[0]):
        assert response.status_code in (200, 422), response.content
    finished = Game.objects.get(pk=game["id"])
    assert finished.status == "finished"
    points = list(RatingPoint.objects.filter(round__game_id=game["id"]).order_by("rank", "player_id")
                  .values_list("rank", "rating"))
    assert len(points) == 2 and points[0][1] >= points[1][1]
    board = host.get("/api/v1/ratings/tavern").json()["results"]
    assert {line["player"]["id"] for line in board} == {host.player_id, guest.player_id}


def test_the_leaderboard_and_a_players_ratings_cost_fixed_queries(make_player, monkeypatch, settings,
                                                                  django_assert_num_queries):
    settings.MAUMAU_LEADERBOARD_MIN_ROUNDS = 0
    table, host, guest = rigged_house_table(make_player, monkeypatch)
    for _ in range(3):
        game = host.post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()
        assert act(host, game["id"], going_out(game)).status_code == 200
    host.get("/api/v1/ratings/house")  # the token's first use is written once

    with django_assert_num_queries(LEADERBOARD_QUERIES):
        first = host.get("/api/v1/ratings/house?limit=1").json()
    with django_assert_num_queries(LEADERBOARD_QUERIES):
        second = host.get(f"/api/v1/ratings/house?limit=1&after={first['next']}").json()
    assert [line["position"] for line in first["results"] + second["results"]] == [1, 2]
    assert second["next"] is None
    with django_assert_num_queries(PLAYER_RATINGS_QUERIES):
        body = host.get(f"/api/v1/players/{guest.player_id}/ratings").json()
    assert len(body["ratings"]["house"]["history"]) == 3


def test_every_rating_reads_on_the_familiar_scale_beside_mu_and_sigma(make_player, monkeypatch, settings):
    settings.MAUMAU_LEADERBOARD_MIN_ROUNDS = 0
    table, host, guest = rigged_house_table(make_player, monkeypatch)
    fresh = host.get(f"/api/v1/players/{guest.player_id}/ratings").json()["ratings"]["house"]
    assert fresh["display_rating"] == 1500  # a new player: ordinal 0
    game = host.post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()
    assert act(host, game["id"], going_out(game)).status_code == 200
    board = host.get("/api/v1/ratings/house").json()["results"]
    for line in board:
        assert line["display_rating"] == round(1500 + 30 * line["rating"])
        assert line["rating"] == pytest.approx(line["mu"] - 3 * line["sigma"])
    winner, loser = board
    assert winner["display_rating"] > loser["display_rating"]
    point = host.get(f"/api/v1/players/{host.player_id}/ratings").json()["ratings"]["house"]["history"][-1]
    assert point["display_rating"] == round(1500 + 30 * point["rating"])


def test_a_rated_rounds_result_says_what_it_did_to_each_players_rating(make_player, monkeypatch, settings):
    settings.MAUMAU_LEADERBOARD_MIN_ROUNDS = 3
    table, host, guest = rigged_house_table(make_player, monkeypatch)
    answers = []
    for _number in range(2):
        game = host.post(f"/api/v1/tables/{table['id']}/rounds", {}, format="json").json()
        answers.append(act(host, game["id"], going_out(game)).json())
    moved = {line["player"]: line["rating"] for line in answers[1]["result"]["players"]}
    read = {line["player"]: line["rating"] for line in view(guest, answers[1]["id"])["result"]["players"]}
    assert moved == read
    first = {line["player"]: line["rating"] for line in answers[0]["result"]["players"]}
    for player in (host.player_id, guest.player_id):
        assert first[player]["before"] == 1500
        assert moved[player]["before"] == first[player]["after"]
        assert moved[player]["change"] == moved[player]["after"] - moved[player]["before"]
        assert moved[player]["provisional"] is True
    assert first[host.player_id]["change"] > 0 > first[guest.player_id]["change"]
    ratings = host.get(f"/api/v1/players/{host.player_id}/ratings").json()["ratings"]["house"]
    assert moved[host.player_id]["after"] == ratings["display_rating"]
    board = host.get("/api/v1/ratings/house").json()
    assert (board["results"], board["min_rounds"], board["provisional_rounds"]) == ([], 3, 10)


def test_a_practice_rounds_result_has_no_rating_change(make_player):
    host, guest = make_player("Ada"), make_player("Bert")
    table = host.post("/api/v1/tables", {"rules": "house", "max_players": 2}, format="json").json()
    assert guest.post(f"/api/v1/tables/{table['id']}/join", format="json").status_code == 200
    stock = [card for card in build_deck("french52", 3) if card not in {"5H", "X1", STARTER}]
    setup = {"hands": HANDS, "starter": STARTER, "stock": stock, "first": 0}
    game = host.post(f"/api/v1/tables/{table['id']}/rounds", {"setup": setup}, format="json").json()
    finished = act(host, game["id"], going_out(game)).json()
    assert finished["status"] == "finished"
    assert [line["rating"] for line in finished["result"]["players"]] == [None, None]
