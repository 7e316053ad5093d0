"""Bot benchmark (a script, not a test): how the ``strong`` bot plays, how fast it thinks, how long a
person waits for it.

    python -m bench.bots --games 2000 --playouts 1000 --processes 2
    python -m bench.bots --games 0 --latency-moves 60        # only the latency through HTTP

Prints JSON:

- ``win_rates``: ``strong`` against ``basic`` over ``--games`` games per line-up, in the engine
  (no server): two players in each preset, seats alternating (seat 0 opens every game, so each bot
  opens half of them); four players in ``tavern`` and ``house``, one ``strong`` and three ``basic``,
  the strong seat going round. Goals: at least 0.60 with two players, 0.40 with four (chance 0.25).
  ``no_winner`` counts rounds that ended without one (stalemate, ``max_turns``).
- ``search``: the playouts and engine decisions the strong bot made, its decisions per second of
  thinking (the playout fast path inside the bot; compare ``python -m bench.engine``'s figures), the
  time one search took at the budget measured, and how many playouts the service's 200 ms buy at
  that pace.
- ``latency``: a person plays rounds of ``classic`` against one strong bot through the HTTP API of
  a live server (uvicorn + a Celery worker, started here) with the service's own budget
  (``--service-ms``, the ``MAUMAU_STRONG_BOT_MS`` default 200): per move, the time the person's
  ``POST actions`` takes, and the time until the long-poll (``GET games/{id}?wait=&after=``) shows
  the person on turn again, i.e. until the bot has answered. Median and p99 in ms.

A decision at 200 ms makes 2,000 games far too slow for two shared cores, so the games run with a
budget in playouts per decision (``--playouts``; ``--ms`` adds a time limit) in ``--processes``
processes; the report says which budget it measured. Each game's generator is seeded by its number,
so a run with a playout budget and no time limit replays exactly.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench import harness
from games.engine import (
    PRESETS,
    Knowledge,
    apply,
    choose_bot_action,
    deal_event,
    new_game,
    player_view,
    redact_events,
    strong_action,
)

LINE_UPS = [("classic", 2), ("tavern", 2), ("house", 2), ("tavern", 4), ("house", 4)]


def strong_game(rules_name: str, players: int, number: int, playouts: int, ms: float) -> dict[str, Any]:
    """One game: a strong bot in seat ``number % players``, basic bots elsewhere; seat 0 opens."""
    rules = PRESETS[rules_name]
    strong = number % players
    state = new_game(rules, players, seed=f"bench-bots-{rules_name}-{players}-{number}")
    knowledge = Knowledge(rules, strong)
    knowledge.observe(redact_events([deal_event(state)], strong))
    rng = random.Random(number)
    stats: dict[str, int] = {}
    thinking = 0.0

    def choose(seat: int) -> dict[str, Any] | None:
        nonlocal thinking
        if seat != strong:
            return choose_bot_action(state, seat, "basic", rng)
        started = time.perf_counter()
        deadline = started + ms / 1000 if ms else None
        action = strong_action(player_view(state, seat), knowledge, rng, playouts=playouts,
                               clock=time.perf_counter if ms else None, deadline=deadline, stats=stats)
        thinking += time.perf_counter() - started
        return action

    def act(seat: int, action: dict[str, Any]) -> None:
        _, events = apply(state, seat, action)
        knowledge.observe(redact_events(events, strong))

    while state.status == "active":
        if state.owed or state.hermann is not None:  # calls may come from any seat, as the service's bots say them
            for seat in range(players):
                if seat != state.turn and state.status == "active":
                    action = choose(seat)
                    if action is not None and action["type"] == "say":
                        act(seat, action)
            if state.status != "active":
                break
        seat = state.turn
        act(seat, choose(seat))
    return {"won": state.result["winner"] == strong, "no_winner": state.result["winner"] is None,
            "playouts": stats.get("playouts", 0), "decisions": stats.get("decisions", 0),
            "searches": stats.get("searches", 0), "thinking": thinking}


def _game(job: tuple[str, int, int, int, float]) -> tuple[str, int, dict[str, Any]]:
    rules_name, players, number, playouts, ms = job
    return rules_name, players, strong_game(rules_name, players, number, playouts, ms)


def win_rates(games: int, playouts: int, ms: float, processes: int,
              line_ups: list[tuple[str, int]] = LINE_UPS, first: int = 0) -> dict[str, Any]:
    """``games`` games per line-up, numbered from ``first`` (each seeded by its number)."""
    jobs = [(name, players, number, playouts, ms) for name, players in line_ups
            for number in range(first, first + games)]
    results: dict[str, list[dict[str, Any]]] = {f"{name}_{players}p": [] for name, players in line_ups}
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        for name, players, found in pool.imap_unordered(_game, jobs, chunksize=8):
            results[f"{name}_{players}p"].append(found)
    elapsed = time.perf_counter() - started
    report: dict[str, Any] = {}
    all_games = [game for found in results.values() for game in found]
    for key, found in results.items():
        players = int(key.rsplit("_", 1)[1][:-1])
        report[key] = {"games": len(found), "strong_wins": sum(g["won"] for g in found),
                       "no_winner": sum(g["no_winner"] for g in found),
                       "strong_win_rate": round(sum(g["won"] for g in found) / max(len(found), 1), 3),
                       "goal": 0.60 if players == 2 else 0.40}
    thinking = sum(g["thinking"] for g in all_games)
    decisions = sum(g["decisions"] for g in all_games)
    playouts = sum(g["playouts"] for g in all_games)
    searches = sum(g["searches"] for g in all_games)
    search = {"playouts": playouts, "engine_decisions": decisions, "searches": searches,
              "thinking_seconds": round(thinking, 1),
              "decisions_per_second_of_thinking": round(decisions / thinking) if thinking else None,
              "ms_per_search": round(1000 * thinking / searches, 1) if searches else None,
              "playouts_in_200_ms": round(0.2 * playouts / thinking) if thinking else None,
              "wall_seconds": round(elapsed, 1)}
    return {"win_rates": report, "search": search}


# --- latency through the HTTP API ------------------------------------------------------------------------


def latency(moves: int, service_ms: int, database_url: str, broker_url: str, port: int) -> dict[str, Any]:
    """A person against one strong bot on a live server; see the module docstring."""
    import httpx

    queue = f"bench-bots-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": database_url, "CELERY_BROKER_URL": broker_url,
           "MAUMAU_CLOCK_QUEUE": queue, "MAUMAU_BOT_QUEUE": queue, "MAUMAU_STRONG_BOT_MS": str(service_ms),
           "MAUMAU_WRITE_RATE": "100000/min", "LOG_LEVEL": "WARNING", "PYTHONPATH": str(harness.ROOT)}
    if database_url.startswith("postgres"):
        harness.database_create(database_url)
    harness.migrate(env)
    tmp = Path(tempfile.mkdtemp(prefix="bench-bots-"))
    web = harness.uvicorn("maumau.asgi:application", port, env=env, log=tmp / "web.log")
    worker = harness.celery("worker", ["-Q", queue, "-n", f"{queue}@%h", "--concurrency", "1", "--loglevel",
                                       "INFO", "--without-gossip", "--without-mingle"], env=env, log=tmp / "worker.log")
    posts: list[float] = []
    answers: list[float] = []
    try:
        web.wait_for_http(port)
        worker.wait_for_output(" ready.")
        base = f"http://127.0.0.1:{port}/api/v1"
        with httpx.Client(base_url=base, timeout=60) as client:
            token = client.post("/players", json={"name": "Bench person"}).json()["token"]
            client.headers["Authorization"] = f"Token {token}"
            table = client.post("/tables", json={"rules": "classic", "options": {"turn_seconds": 0}}).json()
            client.post(f"/tables/{table['id']}/bots", json={"level": "strong"}).raise_for_status()
            rng = random.Random(1)
            game = None
            while len(answers) < moves:
                if game is None or game["status"] != "active":
                    game = client.post(f"/tables/{table['id']}/rounds", json={}).json()
                    game = _until_my_turn(client, game)
                    continue
                legal = [a for a in game["legal_actions"] if a["type"] != "say"] or game["legal_actions"]
                action = rng.choice(legal)
                if action.get("as"):
                    action = {**action, "as": {j: n[0] if isinstance(n, list) else n for j, n in action["as"].items()}}
                started = time.perf_counter()
                response = client.post(f"/games/{game['id']}/actions", json=action)
                posts.append(time.perf_counter() - started)
                response.raise_for_status()
                game = response.json()
                if game["status"] == "active" and game["turn"] != game["seat"]:
                    game = _until_my_turn(client, game)
                    answers.append(time.perf_counter() - started)
    finally:
        worker.stop()
        web.stop()
        if broker_url.startswith("redis"):
            import redis

            redis.Redis.from_url(broker_url).delete(queue)

    def ms(values: list[float], share: float) -> float | None:
        found = harness.percentile(values, share)
        return None if found is None else round(found * 1000, 1)

    return {"moves": len(answers), "service_ms_per_decision": service_ms,
            "post_action_ms": {"p50": ms(posts, 0.5), "p99": ms(posts, 0.99)},
            "until_the_bot_has_answered_ms": {"p50": ms(answers, 0.5), "p99": ms(answers, 0.99)}}


def _until_my_turn(client: Any, game: dict[str, Any]) -> dict[str, Any]:
    """Long-poll until the person may act again (or the round is over)."""
    while game["status"] == "active" and not (game["turn"] == game["seat"] and game["legal_actions"]):
        response = client.get(f"/games/{game['id']}", params={"wait": 30, "after": game["version"]})
        if response.status_code == 200:
            game = response.json()
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2000, help="games per line-up (0: none)")
    parser.add_argument("--first-game", type=int, default=0,
                        help="the number of the first game (games are seeded by their number: a later "
                             "run on fresh deals confirms what an earlier one found)")
    parser.add_argument("--playouts", type=int, default=1000, help="the strong bot's playouts per decision")
    parser.add_argument("--ms", type=float, default=0, help="and at most this many ms per decision (0: no limit)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--line-ups", nargs="*", default=[f"{name}_{players}p" for name, players in LINE_UPS],
                        choices=[f"{name}_{players}p" for name, players in LINE_UPS], help="which games to play")
    parser.add_argument("--latency-moves", type=int, default=60, help="the person's moves (0: no latency run)")
    parser.add_argument("--service-ms", type=int, default=200)
    parser.add_argument("--port", type=int, default=int(os.environ.get("BENCH_PORT", "0")) or None)
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau_bench_bots"))
    parser.add_argument("--broker-url", default=os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/0"))
    args = parser.parse_args(argv)
    report: dict[str, Any] = {}
    if args.games:
        report["budget"] = {"playouts_per_decision": args.playouts, "ms_per_decision": args.ms or None,
                            "processes": args.processes}
        line_ups = [(key.split("_")[0], int(key.split("_")[1][:-1])) for key in args.line_ups]
        if args.first_game:
            report["budget"]["first_game"] = args.first_game
        report |= win_rates(args.games, args.playouts, args.ms, args.processes, line_ups, args.first_game)
    if args.latency_moves:
        report["latency"] = latency(args.latency_moves, args.service_ms, args.database_url, args.broker_url,
                                    args.port or harness.free_port())
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
