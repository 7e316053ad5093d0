"""Ratings: rounds move them by the engine's ranking, ties shared; practice rounds and rounds a bot
mostly played for a person are not rated; the recompute replays the round results to the same values."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scoring_helpers import client_for, finish_game, table_for

from games import sql
from games.models import Move, Player
from play.writes import round_recorded
from scoring.models import Rating, RatingPoint, RoundResult
from scoring.ratings import (
    INITIAL_MU,
    INITIAL_SIGMA,
    MODEL,
    PROVISIONAL_ROUNDS,
    display_value,
    ratings_recompute,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def newcomers_not_capped(settings):  # pytest-django's settings (the module's own name is hypothesis')
    """These tests follow OpenSkill's moves between fresh players: the newcomer cap, which would hold them
    still, is checked in test_rating_newcomers_move_nobody_far.py."""
    settings.MAUMAU_RATING_NEW_ROUNDS = 0
    settings.MAUMAU_RATING_NEW_HOURS = 0


def ranked(ranks: list[int]) -> dict:
    """An engine-shaped result in which seat i has rank ranks[i] (1 = best)."""
    best = min(ranks)
    rows = [{"seat": seat, "rank": rank, "cards_left": rank - 1, "raw_points": 0, "multiplier": 1,
             "points": 3 * (rank - 1), "won": rank == best and ranks.count(best) == 1}
            for seat, rank in enumerate(ranks)]
    winner = next((row["seat"] for row in rows if row["won"]), None)
    return {"winner": winner, "reason": "mau_mau" if winner is not None else "stalemate", "multiplier": 1,
            "players": sorted(rows, key=lambda row: (row["rank"], row["seat"]))}


def rating_of(player: Player, rules: str = "classic") -> Rating:
    return Rating.objects.get(player=player, rules=rules)


def test_a_four_player_round_moves_ratings_in_rank_order(players):
    seated = players(4)
    table = table_for(seated, rules="classic")
    recorded = round_recorded(game=finish_game(table, ranked([3, 1, 4, 2])))

    assert recorded.rated
    by_rank = [seated[1], seated[3], seated[0], seated[2]]
    values = [rating_of(player) for player in by_rank]
    assert [r.rating for r in values] == sorted((r.rating for r in values), reverse=True)
    assert len({r.rating for r in values}) == 4
    assert values[0].mu > INITIAL_MU > values[-1].mu
    assert all(r.sigma < INITIAL_SIGMA and r.rounds == 1 and r.last_round_id == recorded.pk for r in values)
    points = {p.player_id: (p.rank, p.mu) for p in RatingPoint.objects.filter(round=recorded)}
    assert points == {r.player_id: (rank, r.mu) for rank, r in enumerate(values, start=1)}


def test_tied_players_share_their_rating_change(players):
    seated = players(4)
    round_recorded(game=finish_game(table_for(seated, rules="tavern"), ranked([1, 2, 2, 4])))

    first, second, third, last = (rating_of(player, "tavern") for player in seated)
    assert (second.mu, second.sigma) == (third.mu, third.sigma)
    assert first.mu > second.mu > last.mu


def test_a_practice_round_is_recorded_but_not_rated(players):
    seated = players(3)
    game = finish_game(table_for(seated, rules="classic"), ranked([1, 2, 3]))
    game.practice = True
    game.save(update_fields=["practice"])

    recorded = round_recorded(game=game)
    assert (recorded.practice, recorded.rated) == (True, False)
    assert not Rating.objects.exists()
    assert not RatingPoint.objects.exists()


def moves_for(game, seat: int, actors: list[str], player: Player | None) -> None:
    """Ledger rows of one seat: a card played per player or bot turn, a draw per timeout."""
    Move.objects.bulk_create([
        Move(game=game, seq=index, actor=actor, seat=seat, player=player,
             action={"type": "play" if actor in ("player", "bot") else "draw"}, events=[],
             created_at=timezone.now(), hash=f"{index:064x}")
        for index, actor in enumerate(actors, start=game.version + 1)
    ])
    game.version += len(actors)
    game.save(update_fields=["version"])


def test_a_round_in_which_a_bot_played_most_of_a_persons_turns_is_not_rated(players):
    ada, bert = players(2)
    game = finish_game(table_for([ada, bert], rules="classic"), ranked([2, 1]))
    moves_for(game, 0, ["player", "player", "clock", "bot", "bot", "bot", "bot"], ada)  # 4 of 7 by a bot
    moves_for(game, 1, ["player"] * 7, bert)

    assert round_recorded(game=game).rated is False
    assert not Rating.objects.exists()


def test_a_bot_standing_in_for_a_few_turns_leaves_the_round_rated_when_the_person_takes_the_seat_back(players):
    ada, bert = players(2)
    game = finish_game(table_for([ada, bert], rules="classic"), ranked([2, 1]))
    moves_for(game, 0, ["player", "clock", "clock", "bot", "bot", "bot", "system", "player"], ada)  # 3 of 7 turns
    moves_for(game, 1, ["player"] * 7, bert)

    assert round_recorded(game=game).rated is True
    assert rating_of(bert).mu > rating_of(ada).mu


def test_bots_are_rated_too_and_the_people_only_board_leaves_them_out(players, settings):
    settings.MAUMAU_LEADERBOARD_MIN_ROUNDS = 0  # every rating listed, provisional or not
    ada, bert = players(2)
    bot = Player.objects.create(name="Bot 2 (basic)", is_bot=True, bot_level="basic")
    game = finish_game(table_for([ada, bert, bot], rules="house"), ranked([2, 3, 1]))
    moves_for(game, 2, ["bot"] * 5, bot)  # a bot playing its own seat is no takeover
    round_recorded(game=game)

    client = client_for(ada)
    board = client.get("/api/v1/ratings/house").json()
    assert [(line["player"]["id"], line["player"]["bot"], line["position"]) for line in board["results"]] == [
        (bot.pk, True, 1), (ada.pk, False, 2), (bert.pk, False, 3)]
    people = client.get("/api/v1/ratings/house?people_only=true").json()
    assert [(line["player"]["id"], line["position"]) for line in people["results"]] == [(ada.pk, 1), (bert.pk, 2)]
    assert (people["people_only"], people["next"]) == (True, None)


def test_a_rating_is_provisional_until_ten_rated_rounds(players, settings):
    settings.MAUMAU_LEADERBOARD_MIN_ROUNDS = 0
    settings.MAUMAU_RATED_ROUNDS_TOGETHER_PER_DAY = 0  # the same two, ten times in a day
    ada, bert = players(2)
    table = table_for([ada, bert], rules="classic")
    for number in range(PROVISIONAL_ROUNDS):
        line = client_for(ada).get("/api/v1/ratings/classic").json()["results"]
        assert all(entry["provisional"] for entry in line) and len(line) == (2 if number else 0)
        round_recorded(game=finish_game(table, ranked([1 + number % 2, 2 - number % 2])))
    board = client_for(ada).get("/api/v1/ratings/classic").json()["results"]
    assert [(entry["rounds"], entry["provisional"]) for entry in board] == [(PROVISIONAL_ROUNDS, False)] * 2


def test_the_leaderboard_pages_by_cursor_through_every_player_best_first(players, settings):
    settings.MAUMAU_LEADERBOARD_MIN_ROUNDS = 0  # every rating listed, provisional or not
    seated = players(7)
    for start in range(0, 7, 2):
        group = (seated + seated[:1])[start:start + 2]
        round_recorded(game=finish_game(table_for(group, rules="classic"), ranked([1, 2])))
    client = client_for(seated[0])
    expected = list(Rating.objects.filter(rules="classic").order_by("-rating", "player_id")
                    .values_list("player_id", flat=True))

    seen, positions, url = [], [], "/api/v1/ratings/classic?limit=3"
    while url:
        body = client.get(url).json()
        seen += [line["player"]["id"] for line in body["results"]]
        positions += [line["position"] for line in body["results"]]
        url = f"/api/v1/ratings/classic?limit=3&after={body['next']}" if body["next"] else ""
    assert seen == expected and len(seen) == 7
    assert positions == list(range(1, 8))


def test_the_board_of_everyone_pages_through_people_and_bots_interleaved_best_first(players, settings):
    settings.MAUMAU_LEADERBOARD_MIN_ROUNDS = 0  # every rating listed, provisional or not
    people = players(5)
    bots = [Player.objects.create(name=f"Bot {number} (basic)", is_bot=True, bot_level="basic") for number in range(4)]
    seated = [people[0], bots[0], people[1], bots[1], people[2], bots[2], people[3], bots[3], people[4]]
    for start in range(0, 9, 3):
        group = seated[start:start + 3]
        round_recorded(game=finish_game(table_for(group, rules="classic"), ranked([1, 2, 3])))
        round_recorded(game=finish_game(table_for(group[::-1], rules="classic"), ranked([1, 3, 2])))
    client = client_for(people[0])
    expected = list(Rating.objects.filter(rules="classic").order_by("-rating", "player_id")
                    .values_list("player_id", flat=True))
    bot_ids = {bot.pk for bot in bots}
    assert {pk in bot_ids for pk in expected[:3]} == {True, False}  # interleaved at the top

    for people_only in (False, True):
        want = [pk for pk in expected if not people_only or pk not in bot_ids]
        board = f"/api/v1/ratings/classic?limit=2&people_only={str(people_only).lower()}"
        seen, url = [], board
        while url:
            body = client.get(url).json()
            seen += [line["player"]["id"] for line in body["results"]]
            assert all(line["player"]["bot"] == (line["player"]["id"] in bot_ids) for line in body["results"])
            url = f"{board}&after={body['next']}" if body["next"] else ""
        assert seen == want and len(seen) == (5 if people_only else 9)


@pytest.mark.parametrize("query", [
    "after=AAAAAAAAAAAAAAAAAAAAAQAAAAEJ",  # a listing that does not exist
    "after=f_gAAAAAAAAAAAAAAAAAAQAAAAEA",  # a rating that is not a number
    "after=not-a-cursor",
    "after=" + "_" * 28,
    "limit=0", "limit=201", "people_only=1",
])
def test_a_leaderboard_query_it_did_not_give_is_refused(players, query):
    client = client_for(players(1)[0])
    response = client.get(f"/api/v1/ratings/classic?{query}")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "validation_error"


def test_a_cursor_of_another_listing_is_refused_and_an_unknown_rule_set_is_not_found(players, settings):
    settings.MAUMAU_LEADERBOARD_MIN_ROUNDS = 0  # every rating listed, provisional or not
    seated = players(3)
    round_recorded(game=finish_game(table_for(seated, rules="classic"), ranked([1, 2, 3])))
    client = client_for(seated[0])
    cursor = client.get("/api/v1/ratings/classic?limit=1").json()["next"]
    assert client.get(f"/api/v1/ratings/classic?limit=1&after={cursor}").status_code == 200
    assert client.get(f"/api/v1/ratings/house?after={cursor}").status_code == 400
    assert client.get(f"/api/v1/ratings/classic?people_only=true&after={cursor}").status_code == 400
    assert client.get("/api/v1/ratings/poker").status_code == 404


def test_a_players_ratings_carry_one_history_point_per_rated_round(players):
    ada, bert = players(2)
    table = table_for([ada, bert], rules="tavern")
    games = [finish_game(table, ranked(ranks)) for ranks in ([1, 2], [2, 1], [1, 2])]
    for game in games:
        round_recorded(game=game)
    body = client_for(bert).get(f"/api/v1/players/{ada.pk}/ratings").json()

    tavern = body["ratings"]["tavern"]
    stored = rating_of(ada, "tavern")
    assert (tavern["rating"], tavern["mu"], tavern["sigma"], tavern["rounds"]) == (
        stored.rating, stored.mu, stored.sigma, 3)
    assert [(point["game"], point["rank"]) for point in tavern["history"]] == [(g.pk, r) for g, r in
                                                                              zip(games, [1, 2, 1], strict=True)]
    assert tavern["history"][-1]["rating"] == stored.rating
    assert body["ratings"]["classic"] == {"rating": 0.0, "mu": INITIAL_MU, "sigma": INITIAL_SIGMA, "rounds": 0,
                                          "provisional": True, "history": [],
                                          "display_rating": 1500}
    newest = client_for(bert).get(f"/api/v1/players/{ada.pk}/ratings?history=2").json()["ratings"]["tavern"]
    assert [point["game"] for point in newest["history"]] == [games[1].pk, games[2].pk]
    assert client_for(bert).get("/api/v1/players/999999/ratings").status_code == 404


def test_league_standings_show_each_members_rating(players, league_of):
    league = league_of("house")
    ada, bert = players(2)
    round_recorded(game=finish_game(table_for([ada, bert], league), ranked([1, 2])))
    lines = client_for(ada).get(f"/api/v1/leagues/{league.pk}/standings").json()["standings"]
    assert [(line["player"]["id"], line["rating"], line["rating_provisional"]) for line in lines] == [
        (ada.pk, rating_of(ada, "house").rating, True), (bert.pk, rating_of(bert, "house").rating, True)]


def test_verify_ratings_fails_on_a_changed_rating_and_the_recompute_repairs_it(players):
    seated = players(3)
    table = table_for(seated, rules="classic")
    for ranks in ([1, 2, 3], [3, 1, 2]):
        round_recorded(game=finish_game(table, ranked(ranks)))
    call_command("verify_ratings")
    right = rating_of(seated[0])
    Rating.objects.filter(pk=right.pk).update(mu=right.mu + 1)
    RatingPoint.objects.filter(player=seated[1]).order_by("id").first().delete()

    with pytest.raises(CommandError):
        call_command("verify_ratings")
    call_command("ratings_recompute")
    call_command("verify_ratings")
    assert (rating_of(seated[0]).mu, RatingPoint.objects.count()) == (right.mu, 6)


def test_a_round_recorded_again_is_returned_and_rates_nobody(players):
    # A round already recorded, before its players had ratings: recording it again (the
    # lock goes in one round trip with that look-up, and skips itself) creates and moves no rating.
    seated = players(3)
    game = finish_game(table_for(seated, rules="classic"), ranked([1, 2, 3]))
    first = RoundResult.objects.create(game=game, table=game.table, number=game.number, rules="classic",
                                       scoring="ranking", reason="mau_mau", winner=seated[0],
                                       finished_at=game.finished_at)

    again = round_recorded(game=game)
    assert (again.pk, again.rated, again.finished_at) == (first.pk, False, first.finished_at)
    assert not Rating.objects.exists()
    assert not RatingPoint.objects.exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the move's statement is PostgreSQL's")
@given(values=st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=8))
def test_a_rating_sent_as_json_reads_back_as_the_same_double(values):
    """The move's statement takes the rating moves as JSON (play.writes): each double arrives exactly."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT x FROM jsonb_to_recordset(%s::jsonb) AS r(x float8)",
                       [sql.jsonb([{"x": value} for value in values])])
        assert [row[0] for row in cursor.fetchall()] == values


RULES = st.sampled_from(["classic", "tavern", "house"])
ROUND = st.tuples(
    RULES,
    st.lists(st.integers(0, 7), min_size=2, max_size=6, unique=True),  # which of 8 players sit
    st.lists(st.integers(1, 4), min_size=6, max_size=6),                 # their ranks (ties allowed)
    st.booleans(),                                                       # practice
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rounds=st.lists(ROUND, min_size=1, max_size=30))
def test_the_recompute_equals_the_ratings_kept_round_by_round(players, rounds):
    RatingPoint.objects.all().delete()
    Rating.objects.all().delete()
    RoundResult.objects.all().delete()  # the examples share one test transaction
    people = list(Player.objects.order_by("id")[:8]) or players(8)
    if len(people) < 8:
        people += players(8 - len(people))
    for rules, seats, ranks, practice in rounds:
        game = finish_game(table_for([people[i] for i in seats], rules=rules), ranked(ranks[:len(seats)]))
        game.practice = practice
        game.save(update_fields=["practice"])
        round_recorded(game=game)

    kept = sorted(Rating.objects.values_list("rules", "player_id", "mu", "sigma", "rating", "rounds"))
    assert ratings_recompute(write=False) == []
    assert sum(r[5] for r in kept) == RatingPoint.objects.count()
    RatingPoint.objects.all().delete()
    Rating.objects.all().delete()
    assert ratings_recompute() != [] or not kept
    assert sorted(Rating.objects.values_list("rules", "player_id", "mu", "sigma", "rating", "rounds")) == kept
    assert RoundResult.objects.filter(rated=True).count() == sum(not practice for *_, practice in rounds)


@given(mu=st.floats(-100, 100), sigma=st.floats(0.001, 20))
def test_the_displayed_value_is_openskills_ordinal(mu, sigma):
    assert display_value(mu, sigma) == MODEL.rating(mu=mu, sigma=sigma).ordinal()
