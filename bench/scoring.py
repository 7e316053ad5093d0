"""Benchmark: league standings with 10,000 rounds and 50 players.

    python -m bench.scoring [--rounds 10000] [--players 50] [--requests 200] [--live 200]

Runs on the configured database (DATABASE_URL, default SQLite) but in a throwaway database of
its own (created, migrated and dropped here), so it never touches real data nor a test database
someone else is using. Most rounds are written in bulk (result rows, then `standings_recompute`
materializes the standings); the last `--live` rounds go through `round_recorded`, the
path a finishing move takes, and are timed. Then `GET /api/v1/leagues/{id}/standings` is called
through Django's full stack (token auth, middleware, DRF) and timed.

Prints one JSON object. Goal: median under 50 ms, at most three queries (token, league,
standings), whatever the number of rounds.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from typing import Any

from bench import harness

GOAL_MEDIAN_MS = 50.0
GOAL_QUERIES = 3
PLAYERS_PER_TABLE = 5


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def _result(rng: random.Random, seats: int) -> dict[str, Any]:
    """A plausible house result: a winner, the others scoring their hand times the multiplier."""
    winner = rng.randrange(seats)
    multiplier = rng.choice([1, 1, 1, 1, 2, 3])
    rows = []
    for seat in range(seats):
        won = seat == winner
        raw = 0 if won else rng.randint(0, 60)
        rows.append(
            {
                "seat": seat,
                "rank": 0,
                "cards_left": 0 if won else rng.randint(1, 6),
                "raw_points": raw,
                "multiplier": 1 if won else multiplier,
                "points": raw * (1 if won else multiplier),
                "won": won,
            }
        )
    rows.sort(key=lambda row: (not row["won"], row["points"], row["seat"]))
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return {"winner": winner, "reason": "mau_mau", "multiplier": multiplier, "players": rows}


def _populate(rounds: int, players: int, live: int, rng: random.Random) -> tuple[Any, str, list[float], float]:
    from django.contrib.auth.models import User
    from django.utils import timezone

    from accounts.tokens import token_issue
    from games.models import Game, Player, Seat, Table
    from play.writes import round_recorded
    from scoring.models import PlayerResult, RoundResult
    from scoring.services import league_create, league_standings_recompute, player_results

    # league_limit 0: no player may lose early, so every one of the rounds counts.
    league = league_create(name="Bench league", rules="house", options={"league_limit": 0})
    people = [Player(name=f"Player {number:02d}") for number in range(players)]
    Player.objects.bulk_create(people)
    user = User.objects.create_user(username="bench")
    Player.objects.filter(pk=people[0].pk).update(user=user)
    _made, token = token_issue(user=user, name="bench", scopes=["read"], used=True)

    tables = []
    for start in range(0, players, PLAYERS_PER_TABLE):
        seated = people[start : start + PLAYERS_PER_TABLE]
        table = Table.objects.create(
            host=seated[0], rules="house", options=league.options, max_players=len(seated), league=league
        )
        Seat.objects.bulk_create([Seat(table=table, position=pos, player=p) for pos, p in enumerate(seated)])
        tables.append((table, [p.pk for p in seated]))

    now = timezone.now()
    games = []
    for number in range(rounds):
        table, _ = tables[number % len(tables)]
        result = _result(rng, PLAYERS_PER_TABLE)
        games.append(
            Game(
                table=table,
                number=number // len(tables) + 1,
                rules=league.options,
                seed="0" * 64,
                positions=list(range(PLAYERS_PER_TABLE)),
                state={},
                version=1,
                status="finished",
                result=result,
                finished_at=now,
            )
        )
    Game.objects.bulk_create(games, batch_size=1000)
    if len(games) and games[0].pk is None:  # backends without RETURNING ids
        games = list(Game.objects.filter(table__league=league).order_by("id"))
    for table, _ in tables:
        Table.objects.filter(pk=table.pk).update(rounds_started=rounds // len(tables) + 1)

    bulk, live_games = games[: rounds - live], games[rounds - live :]
    seat_players = {table.pk: ids for table, ids in tables}
    headers = [
        RoundResult(
            game=game,
            table_id=game.table_id,
            league=league,
            number=game.number,
            rules="house",
            scoring="points",
            reason="mau_mau",
            winner_id=seat_players[game.table_id][game.result["winner"]],
            multiplier=game.result["multiplier"],
            finished_at=now,
        )
        for game in bulk
    ]
    RoundResult.objects.bulk_create(headers, batch_size=1000)
    if headers and headers[0].pk is None:
        headers = list(RoundResult.objects.filter(league=league).order_by("id"))
    lines = [
        line
        for header, game in zip(headers, bulk, strict=True)
        for line in player_results(round_result=header, result=game.result,
                                   seat_players=seat_players[game.table_id], table_id=game.table_id,
                                   league=league, rules="house", finished_at=now)
    ]
    PlayerResult.objects.bulk_create(lines, batch_size=2000)
    started = time.perf_counter()
    league_standings_recompute(league_id=league.pk)
    recompute_seconds = time.perf_counter() - started

    record_times = []
    for game in live_games:
        started = time.perf_counter()
        round_recorded(game=game)
        record_times.append(time.perf_counter() - started)
    if league_standings_recompute(league_id=league.pk, write=False):
        raise SystemExit("standings kept by the live path differ from the ledger")
    return league, token, record_times, recompute_seconds


def _measure(league: Any, token: str, requests: int) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    url = f"/api/v1/leagues/{league.pk}/standings"
    for _ in range(5):  # warm-up: URL resolver, connection, caches
        assert client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    query_count = len(queries)  # now: later requests reset the connection's query log
    body = response.json()
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200
    return {
        "standings_median_ms": _ms(statistics.median(times)),
        "standings_p95_ms": _ms(harness.percentile(times, 0.95) or 0.0),
        "standings_queries": query_count,
        "standings_lines": len(body["standings"]),
        "rounds_in_standings": sum(line["rounds"] for line in body["standings"]) // PLAYERS_PER_TABLE,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--live", type=int, default=200, help="rounds recorded through round_recorded")
    args = parser.parse_args(argv)
    if args.players % PLAYERS_PER_TABLE or not 0 <= args.live <= args.rounds:
        parser.error(f"--players must be a multiple of {PLAYERS_PER_TABLE}; --live at most --rounds")

    with harness.scratch_database("scoring_bench"):
        from django.conf import settings
        from django.db import connection

        started = time.perf_counter()
        league, token, record_times, recompute_seconds = _populate(
            args.rounds, args.players, args.live, random.Random(20261130)
        )
        populate_seconds = time.perf_counter() - started
        figures = _measure(league, token, args.requests)
    report = {
        "benchmark": "league standings endpoint",
        "database": connection.vendor,
        "debug": settings.DEBUG,
        "rounds": args.rounds,
        "players": args.players,
        "requests": args.requests,
        **figures,
        "record_round_median_ms": _ms(statistics.median(record_times)) if record_times else None,
        "recompute_ms": _ms(recompute_seconds),
        "populate_s": round(populate_seconds, 2),
        "goal": {"median_ms_below": GOAL_MEDIAN_MS, "queries_at_most": GOAL_QUERIES},
        "goal_met": figures["standings_median_ms"] < GOAL_MEDIAN_MS and figures["standings_queries"] <= GOAL_QUERIES,
    }
    print(json.dumps(report, indent=2))
    return 0 if report["goal_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
