"""Benchmark: the rating leaderboard at 100,000 players and 1,000,000 rated rounds, and what rating
a round adds to the move that ends it.

    python -m bench.ratings [--players 100000] [--rounds 1000000] [--requests 200] [--moves 200] [--tables 50]

Runs on the configured database (DATABASE_URL; PostgreSQL for the full size: the ledger is
bulk-loaded with COPY) in a throwaway database of its own, created, migrated and dropped here.

1. Load: players (a tenth of them bots), tables, and `--rounds` finished `classic` rounds of 2 to 4
   random players with random ranks (ties included), each with its game row, round result lines,
   and the rating history the live path would have written: the ratings are computed with the
   product's own `scoring.ratings.rated_after`, round by round, then every row goes in with COPY,
   and one move ledger row per seat and round, so that the move ledger is as large and as spread over
   games as a service's and the planner treats it so: rating a round counts the round's ledger rows
   per seat, and against the empty ledger of a bare load it planned a scan of the whole table that
   grew with every timed round (0.6 to 1.3 ms a move over three runs of the timing, measured).
2. Leaderboard: `GET /api/v1/ratings/classic` through Django's full stack (token auth, middleware,
   DRF): the first page, the first page of people only, a page 50,000 places down (its cursor) and
   the last page; median and p95 of `--requests` each, the queries of one, and the plan of the deep
   page's statement. Also `GET /api/v1/players/{id}/ratings` for a player with a long history.
3. Round end: `--moves` rounds of four people at each of `--tables` tables taken in turn (the rule
   set's fair deal replaced by one in which the first seat goes out at once), the going-out move
   timed through `play.services.move_submit`
   (one transaction, committed), alternately rated and not rated (rating switched off by replacing
   `scoring.ratings.ratings_locked` with one that locks nothing, so the caller makes the ledger look-up
   a round not rated makes), so the difference of the medians is what rating costs a move;
   also the median time spent inside the two rating functions of a rated move (the round trip of the
   lock, which takes the place of that look-up, and the maths; the writes they add to the move's last
   statement are not in it).
   The goal's figure (`round_end`) spreads the rounds over 50 tables, as round ends at a service of
   100,000 players are spread; `round_end_one_table` is the same at one table, the same four people
   ending a round every few milliseconds: each round rewrites the same four rating rows twice (lock
   and update), faster than any vacuum clears their old versions, so it is the worst case of the
   rows' own cost, not what a table sees (its rounds take minutes).

Prints one JSON object. Goals: each leaderboard page's median under 20 ms with at most 3 queries;
the rating adds under 1 ms to the median of a round-ending move.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import sys
import time
from array import array
from collections.abc import Iterable, Iterator
from typing import Any

from bench import harness

GOAL_PAGE_MS = 20.0
GOAL_QUERIES = 3
GOAL_RATING_MS = 1.0
TABLES = 1000


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def _figures(times: list[float]) -> dict[str, float]:
    return {"median_ms": _ms(statistics.median(times)), "p95_ms": _ms(harness.percentile(times, 0.95) or 0.0)}


# --- loading ---------------------------------------------------------------------------------------


class Loader:
    """Rows of one model as tuples of the named `columns` (attnames), written with COPY on PostgreSQL
    (bulk_create elsewhere). The model's other columns get their field's default, as the ORM would
    give them, so the loader keeps working when a migration adds a column with a default."""

    def __init__(self, model: Any, columns: list[str]) -> None:
        from django.db import connection

        self.model, self.columns, self.connection = model, columns, connection
        others = [f for f in model._meta.concrete_fields if f.attname not in columns and not f.primary_key]
        self.all_columns = columns + [f.attname for f in others]
        self.db_columns = [model._meta.get_field(name).column if name != "id" else "id" for name in columns]
        self.db_columns += [f.column for f in others]
        self.tail = tuple(_copy_value(f, f.get_default()) for f in others)
        #: JSON columns arrive encoded (as COPY takes them); bulk_create wants them decoded.
        self.json_columns = [index for index, name in enumerate(self.all_columns)
                             if model._meta.get_field(name).get_internal_type() == "JSONField"]

    def load(self, rows: Iterable[tuple[Any, ...]]) -> int:
        count = 0
        if self.connection.vendor != "postgresql":
            batch = []
            for row in rows:
                values = list(row + self.tail)
                for index in self.json_columns:
                    values[index] = json.loads(values[index]) if values[index] is not None else None
                batch.append(self.model(**dict(zip(self.all_columns, values, strict=True))))
                count += 1
                if len(batch) == 5000:
                    self.model.objects.bulk_create(batch)
                    batch = []
            self.model.objects.bulk_create(batch)
            return count
        columns = ", ".join(f'"{column}"' for column in self.db_columns)
        tail = self.tail
        with self.connection.cursor() as cursor, cursor.cursor.copy(
                f'COPY "{self.model._meta.db_table}" ({columns}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row(row + tail)
                count += 1
        return count


def _copy_value(field: Any, value: Any) -> Any:
    if field.get_internal_type() == "JSONField" and value is not None:
        return json.dumps(value)
    return value


def _sequences_reset(models: list[Any]) -> None:
    from django.core.management.color import no_style
    from django.db import connection

    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(statement)


def _ranks(rng: random.Random, seats: int) -> list[int]:
    """Engine-like ranks: a permutation of 1..seats, with an occasional tie shared (1, 2, 2, 4)."""
    order = list(range(seats))
    rng.shuffle(order)
    ranks = [0] * seats
    for place, seat in enumerate(order, start=1):
        ranks[seat] = place
    if seats > 2 and rng.random() < 0.15:
        tied = [seat for seat in range(seats) if ranks[seat] in (2, 3)]
        for seat in tied:
            ranks[seat] = 2
    return ranks


def _populate(players: int, rounds: int, rng: random.Random) -> dict[str, Any]:
    from django.contrib.auth.models import User
    from django.utils import timezone

    from accounts.tokens import token_issue
    from games.engine import RuleSet
    from games.models import Game, Move, Player, Table
    from scoring.models import PlayerResult, Rating, RatingPoint, RoundResult
    from scoring.ratings import INITIAL_MU, INITIAL_SIGMA, display_value, rated_after

    now = timezone.now()
    options = RuleSet.from_preset("classic").to_json()
    bots = set(rng.sample(range(1, players + 1), players // 10))
    Loader(Player, ["id", "name", "is_bot", "bot_level", "created_at"]).load(
        (pid, f"Player {pid}", pid in bots, "basic" if pid in bots else "", now) for pid in range(1, players + 1))
    table_columns = ["id", "host_id", "rules", "options", "max_players", "status", "rounds_started", "created_at"]
    Loader(Table, table_columns).load(
        (tid, (tid - 1) % players + 1, "classic", json.dumps(options), 4, "open", rounds // TABLES + 1, now)
        for tid in range(1, TABLES + 1))
    user = User.objects.create_user(username="bench")
    Player.objects.filter(pk=1).update(user=user)
    _made, token = token_issue(user=user, name="bench", scopes=["read"], used=True)

    state: dict[int, list[Any]] = {}  # player -> [mu, sigma, rounds, last round]
    # The ledger kept compact until it is written: per round its first seat's index, per seat its
    # player, rank, and mu and sigma after the round.
    starts, seat_players, seat_ranks = array("q", [0]), array("q"), array("b")
    seat_mu, seat_sigma = array("d"), array("d")
    started = time.perf_counter()
    for number in range(1, rounds + 1):
        seated = rng.sample(range(1, players + 1), rng.choice((2, 3, 3, 4, 4)))
        ranks = _ranks(rng, len(seated))
        current = [state.get(pid, [INITIAL_MU, INITIAL_SIGMA, 0, None]) for pid in seated]
        after = rated_after([(s[0], s[1]) for s in current], ranks)
        for pid, rank, before, (mu, sigma) in zip(seated, ranks, current, after, strict=True):
            state[pid] = [mu, sigma, before[2] + 1, number]
            seat_players.append(pid)
            seat_ranks.append(rank)
            seat_mu.append(mu)
            seat_sigma.append(sigma)
        starts.append(len(seat_players))
    rating_seconds = time.perf_counter() - started

    finished = [now - dt.timedelta(seconds=rounds - number) for number in range(rounds + 1)]
    started = time.perf_counter()
    rules_json, state_json = json.dumps(options), "{}"
    positions_json = {seats: json.dumps(list(range(seats))) for seats in range(2, 5)}
    Loader(Game, ["id", "table_id", "number", "rules", "seed", "positions", "state", "version", "status",
                  "finished_at", "created_at"]).load(
        (number, number % TABLES + 1, number // TABLES + 1, rules_json, "0" * 64,
         positions_json[starts[number] - starts[number - 1]], state_json, 1, "finished", finished[number], now)
        for number in range(1, rounds + 1))
    Loader(RoundResult, ["id", "game_id", "table_id", "number", "rules", "scoring", "reason", "winner_id", "multiplier",
                         "counted", "practice", "rated", "finished_at"]).load(
        (number, number, number % TABLES + 1, number // TABLES + 1, "classic", "ranking", "mau_mau",
         next(seat_players[i] for i in range(starts[number - 1], starts[number]) if seat_ranks[i] == 1), 1, True,
         False, True, finished[number])
        for number in range(1, rounds + 1))

    def lines() -> Iterator[tuple[Any, ...]]:
        for number in range(1, rounds + 1):
            table_id, at = number % TABLES + 1, finished[number]
            for seat, index in enumerate(range(starts[number - 1], starts[number])):
                rank = seat_ranks[index]
                yield (number, seat_players[index], table_id, "classic", seat, rank, rank - 1, 3 * (rank - 1), 1,
                       3 * (rank - 1), rank == 1, 0, False, at)

    def points() -> Iterator[tuple[Any, ...]]:
        for number in range(1, rounds + 1):
            for index in range(starts[number - 1], starts[number]):
                mu, sigma = seat_mu[index], seat_sigma[index]
                yield number, seat_players[index], "classic", seat_ranks[index], mu, sigma, display_value(mu, sigma)

    result_lines = Loader(PlayerResult, ["round_id", "player_id", "table_id", "rules", "seat", "rank", "cards_left",
                                         "raw_points", "multiplier", "points", "won", "multiplier_bonus", "practice",
                                         "finished_at"]).load(lines())
    history_points = Loader(RatingPoint, ["round_id", "player_id", "rules", "rank", "mu", "sigma", "rating"]).load(
        points())
    move_json, hashed = json.dumps({"type": "draw"}), "0" * 64

    def moves() -> Iterator[tuple[Any, ...]]:
        for number in range(1, rounds + 1):
            for seat, index in enumerate(range(starts[number - 1], starts[number])):
                yield number, seat + 1, "player", seat, seat_players[index], move_json, "[]", finished[number], hashed

    ledger_moves = Loader(Move, ["game_id", "seq", "actor", "seat", "player_id", "action", "events", "created_at",
                                 "hash"]).load(moves())
    Loader(Rating, ["player_id", "rules", "bot", "mu", "sigma", "rating", "rounds", "last_round_id"]).load(
        (pid, "classic", pid in bots, mu, sigma, display_value(mu, sigma), count, last)
        for pid, (mu, sigma, count, last) in state.items())
    _sequences_reset([Player, Table, Game, Move, RoundResult, PlayerResult, RatingPoint, Rating])
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    busiest = max(state, key=lambda pid: state[pid][2])
    return {"token": token, "rated_players": len(state), "result_lines": result_lines,
            "history_points": history_points, "ledger_moves": ledger_moves,
            "rating_compute_s": round(rating_seconds, 2),
            "copy_s": round(time.perf_counter() - started, 2), "busiest": busiest,
            "busiest_rounds": state[busiest][2]}


# --- measuring -------------------------------------------------------------------------------------


def _timed_get(client: Any, url: str, requests: int) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for _ in range(5):
        assert client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    query_count = len(queries)  # now: later requests reset the connection's query log
    assert response.status_code == 200, response.content
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
    body = response.json()
    figures = {**_figures(times), "queries": query_count}
    if "results" in body:
        figures.update(rows=len(body["results"]),
                       first_position=body["results"][0]["position"] if body["results"] else None)
    return figures


def _leaderboard(token: str, requests: int, busiest: int) -> dict[str, Any]:
    from rest_framework.test import APIClient

    from scoring import selectors
    from scoring.models import Rating

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    board = Rating.objects.filter(rules="classic").order_by("-rating", "player_id")
    total = board.count()

    def cursor_at(position: int) -> str:
        rating, player_id = board.values_list("rating", "player_id")[position - 1]
        return selectors.leaderboard_cursor(rules="classic", people_only=False, rating=rating, player_id=player_id,
                                            position=position)

    deep = min(50_000, max(total - 50, 1))
    pages = {
        "first_page": "/api/v1/ratings/classic",
        "first_page_people_only": "/api/v1/ratings/classic?people_only=true",
        f"page_at_{deep}": f"/api/v1/ratings/classic?after={cursor_at(deep)}",
        "last_page": f"/api/v1/ratings/classic?after={cursor_at(max(total - 50, 1))}",
    }
    figures = {name: _timed_get(client, url, requests) for name, url in pages.items()}
    after = selectors.leaderboard_cursor_read(cursor_at(deep), rules="classic", people_only=False)
    plan = selectors.leaderboard_query(rules="classic", people_only=False, limit=50, after=after).explain()
    history = _timed_get(client, f"/api/v1/players/{busiest}/ratings", requests)
    return {"board_rows": total, "pages": figures, "deep_page_plan": plan.splitlines()[:14],
            "player_ratings": history}


def _round_end(moves: int, tables: int) -> dict[str, Any]:
    """Time `moves` round-ending moves per variant, rated and not rated alternately, at `tables`
    tables of four new people taken in turn (a table's first two rounds, one of each variant, are
    warm-up: they create its rating rows and prepare the statements)."""
    from accounts import services as account_services
    from games import engine
    from games.engine import build_deck
    from play import services as games_services
    from scoring import ratings

    seated = []
    for number in range(tables):
        people = [account_services.player_create(name=f"{name} {number}")[0]
                  for name in ("Ada", "Bert", "Cleo", "Dora")]
        table = games_services.table_create(host=people[0], rules="house", max_players=4)
        for person in people[1:]:
            games_services.table_join(table_id=table.pk, player=person)
        seated.append((table, people[0]))
    hands, starter = [["5H"], ["X1"], ["X2"], ["X3"]], "5C"
    stock = [card for card in build_deck("french52", 3) if card not in {"5H", "X1", "X2", "X3", starter}]
    new_game, locked = engine.new_game, ratings.ratings_locked

    def dealt(rules: Any, players: int, seed: Any, first: int = 0) -> Any:
        return engine.new_game_from_setup(rules, players=players, hands=hands, starter=starter, stock=stock,
                                          first=0, seed=seed)

    times: dict[str, list[float]] = {"rated": [], "not_rated": []}
    inside: list[float] = []  # per rated move: the time spent in the two rating functions
    rate = ratings.round_rate

    def timed(function: Any) -> Any:
        def run(**kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return function(**kwargs)
            finally:
                inside[-1] += time.perf_counter() - started
        return run

    def not_rated(**_kwargs: Any) -> dict[int, Any]:
        """`ratings_locked` without its lock: the caller then makes its ledger look-up, as for a round not rated."""
        return {}

    warm_up = max(10, 2 * tables)
    engine.new_game = dealt
    ratings.round_rate = timed(rate)
    try:
        for number in range(2 * moves + warm_up):
            variant = "rated" if number % 2 else "not_rated"
            table, host = seated[(number // 2) % tables]
            ratings.ratings_locked = timed(locked) if variant == "rated" else not_rated
            game = games_services.round_start(table_id=table.pk, player=host)
            action = next(a for a in engine.legal_actions(game.engine_state(), 0) if a["type"] == "play")
            inside.append(0.0)
            started = time.perf_counter()
            games_services.move_submit(game_id=game.pk, actor="player", player=host, action=action)
            elapsed = time.perf_counter() - started
            if number < warm_up:
                inside.pop()
                continue
            times[variant].append(elapsed)
            if variant == "not_rated":
                inside.pop()
    finally:
        engine.new_game, ratings.ratings_locked, ratings.round_rate = new_game, locked, rate
    rated, plain = statistics.median(times["rated"]), statistics.median(times["not_rated"])
    return {"tables": tables, "moves_each": moves, "rated": _figures(times["rated"]),
            "not_rated": _figures(times["not_rated"]), "rating_adds_median_ms": _ms(rated - plain),
            "rating_functions_median_ms": _ms(statistics.median(inside))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--moves", type=int, default=200, help="round-ending moves timed per variant")
    parser.add_argument("--tables", type=int, default=50,
                        help="tables of four people the timed round ends are spread over (the goal's figure)")
    parser.add_argument("--verify", action="store_true", help="also time verify_ratings over the whole ledger")
    args = parser.parse_args(argv)
    if args.players < 4 or args.rounds < 1 or not 1 <= args.tables <= 1000:
        parser.error("--players at least 4, --rounds at least 1, --tables 1 to 1000")

    with harness.scratch_database("ratings_bench"):
        from django.conf import settings
        from django.db import connection

        started = time.perf_counter()
        loaded = _populate(args.players, args.rounds, random.Random(20261201))
        populate_seconds = time.perf_counter() - started
        board = _leaderboard(loaded.pop("token"), args.requests, loaded["busiest"])
        round_end = _round_end(args.moves, args.tables)
        one_table = _round_end(args.moves, 1)
        verify_seconds = None
        if args.verify:
            from scoring.ratings import ratings_recompute

            started = time.perf_counter()
            problems = ratings_recompute(write=False)
            verify_seconds = round(time.perf_counter() - started, 2)
            if problems:
                raise SystemExit(f"verify_ratings found {len(problems)} difference(s): {problems[:3]}")
    pages = board["pages"]
    report = {
        "benchmark": "rating leaderboard and the rating of a round",
        "database": connection.vendor,
        "debug": settings.DEBUG,
        "players": args.players,
        "rounds": args.rounds,
        **loaded,
        "populate_s": round(populate_seconds, 2),
        "leaderboard": board,
        "round_end": round_end,
        "round_end_one_table": one_table,
        "verify_s": verify_seconds,
        "goal": {"page_median_ms_below": GOAL_PAGE_MS, "queries_at_most": GOAL_QUERIES,
                 "rating_adds_ms_below": GOAL_RATING_MS},
    }
    report["goal_met"] = (all(p["median_ms"] < GOAL_PAGE_MS and p["queries"] <= GOAL_QUERIES for p in pages.values())
                          and round_end["rating_adds_median_ms"] < GOAL_RATING_MS)
    print(json.dumps(report, indent=2, default=str))
    return 0 if report["goal_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
