"""Push benchmark (a script, not a test): from the commit of a move to the push service's receipt of
the ``your_turn`` it causes.

    python -m bench.push --games 1000 --watching 50

Starts a real Celery worker and a uvicorn web process on PostgreSQL (``--database-url``, default a
``maumau_bench_push`` database on 127.0.0.1, created and migrated if missing) and Redis (``--broker-url``
for the queue, ``--cache-url`` for the shared cache the watchers' marks live in: give it Redis databases
nobody else uses, the benchmark empties its queue of pending tasks), and the test push
service (bench.push_service) on 127.0.0.1. ``--games`` rounds of two persons are started; the second
player of each has a push subscription. In ``--watching`` of them that player holds a long-poll of the
game open on the web process (looking at the board). Then the first player of every round moves, at
``--rate`` moves a second, and the push service keeps what arrives (it checks the VAPID JWT and
decrypts each payload). Prints JSON: the latency commit -> receipt (p50, p99, max in ms) of the pushes
to players not watching, duplicates (a notification received twice), pushes to watching players
(both must be 0), and what the deliveries' rows say.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from bench import harness
from bench.push_service import PushService, vapid_key_pem

HANDS = [["KH", "10H", "10S", "QC", "KC"], ["QH", "9D", "KS", "QD", "10D"]]


def _setup() -> dict[str, Any]:
    from games import engine
    from games.engine.cards import build_deck

    named = [c for hand in HANDS for c in hand] + ["9H", "QS"]
    deck = build_deck(engine.RuleSet.from_preset("classic", {}).to_json()["deck"], 0)
    return {"hands": HANDS, "starter": "9H", "stock": ["QS", *[c for c in deck if c not in set(named)]]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--watching", type=int, default=50)
    parser.add_argument("--rate", type=float, default=50.0, help="moves a second")
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes")
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau_bench_push"))
    parser.add_argument("--broker-url", default=os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/14"))
    parser.add_argument("--cache-url", default=os.environ.get("BENCH_CACHE_URL", "redis://127.0.0.1:6379/15"))
    args = parser.parse_args(argv)
    if not 0 <= args.watching <= args.games:
        parser.error("--watching is between 0 and --games")

    tmp = Path(tempfile.mkdtemp(prefix="bench-push-"))
    pem = vapid_key_pem()
    env = {**os.environ, "DATABASE_URL": args.database_url, "CELERY_BROKER_URL": args.broker_url,
           "CACHE_URL": args.cache_url, "VAPID_PRIVATE_KEY": pem, "PUSH_ALLOW_LOOPBACK": "true",
           "MAUMAU_VAR_DIR": str(tmp), "LOG_LEVEL": "WARNING",
           "PYTHONPATH": str(harness.ROOT), **harness.UNTHROTTLED}
    if args.database_url.startswith("postgres"):
        harness.database_create(args.database_url, fresh=True)
    harness.migrate(env)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "VAPID_PRIVATE_KEY",
                                           "PUSH_ALLOW_LOOPBACK", "MAUMAU_VAR_DIR")})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")
    import django

    django.setup()
    from accounts import services as account_services
    from games import presence
    from games.models import Game
    from notify import channels
    from notify import services as notify_services
    from notify.models import Delivery
    from play import services

    service = PushService(server_key=channels.vapid_public_key() or "").start()
    port = harness.free_port()
    web = harness.uvicorn("maumau.asgi:application", port, env=env, log=tmp / "web.log")
    worker = harness.celery("worker", ["-n", f"bench-push-{os.getpid()}@%h", "--concurrency", str(args.concurrency),
                                       "--loglevel", "INFO", "--without-gossip", "--without-mingle"],
                            env=env, log=tmp / "worker.log")
    stop = threading.Event()
    rounds: list[dict[str, Any]] = []
    try:
        web.wait_for_http(port)
        worker.wait_for_output(" ready.")
        setup = _setup()
        started = time.monotonic()
        for index in range(args.games):
            ada = account_services.player_create(name=f"push {index} a")[0]
            bo, bo_key = account_services.player_create(name=f"push {index} b")
            table = services.table_create(host=ada, rules="classic", options={"turn_seconds": 0})
            services.table_join(table_id=table.pk, player=bo)
            game = services.round_start(table_id=table.pk, player=ada, setup=setup)
            sub = service.subscribe(f"g{game.pk}")
            keys = sub.browser_json()["keys"]
            notify_services.subscription_add(player=bo, token_id=None, endpoint=sub.endpoint, p256dh=keys["p256dh"],
                                             auth=keys["auth"], name="bench", language="en")
            rounds.append({"game": game.pk, "ada": ada, "bo": bo, "key": bo_key, "watching": index < args.watching})
        setup_seconds = time.monotonic() - started

        def watch(item: dict[str, Any]) -> None:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=40,
                              headers={"Authorization": f"Token {item['key']}"}) as http:
                while not stop.is_set():
                    try:
                        http.get(f"/api/v1/games/{item['game']}", params={"wait": 30})
                    except httpx.HTTPError:  # the web process stops at the end
                        time.sleep(0.2)

        watchers = [threading.Thread(target=watch, args=(r,), daemon=True) for r in rounds if r["watching"]]
        for thread in watchers:
            thread.start()
        end = time.monotonic() + 60
        while time.monotonic() < end and not all(presence.watching(r["bo"].pk, r["game"]) for r in rounds
                                                  if r["watching"]):
            time.sleep(0.2)

        committed: dict[int, float] = {}
        interval = 1.0 / args.rate
        moved = time.monotonic()
        for item in rounds:
            services.move_submit(game_id=item["game"], actor="player", player=item["ada"],
                                 action={"type": "play", "cards": ["KH"]})
            committed[item["game"]] = time.time()  # move_submit returned: its transaction committed
            moved += interval
            time.sleep(max(0.0, moved - time.monotonic()))
        wanted = {f"g{r['game']}" for r in rounds if not r["watching"]}
        end = time.monotonic() + 60
        while time.monotonic() < end and len({r.subscription for r in service.received} & wanted) < len(wanted):
            time.sleep(0.2)
        time.sleep(2)  # anything late (a duplicate, a push to a watcher) has time to arrive
    finally:
        stop.set()
        worker.stop()
        web.stop()
        service.close()

    by_sub = collections.Counter((r.subscription, r.payload.get("id")) for r in service.received)
    watching = {f"g{r['game']}" for r in rounds if r["watching"]}
    latencies = [(r.at - committed[int(r.subscription[1:])]) * 1000 for r in service.received
                 if r.subscription not in watching and r.payload.get("kind") == "your_turn"]
    outcomes = collections.Counter(Delivery.objects.values_list("outcome", flat=True))
    Game.objects.filter(pk__in=[r["game"] for r in rounds], status="active").update(status="finished", deadline=None)
    result = {
        "benchmark": "web push: commit of a move -> the push service's receipt of your_turn",
        "games": args.games, "watching": args.watching, "rate_per_second": args.rate,
        "worker_concurrency": args.concurrency,
        "received": len(service.received), "expected": args.games - args.watching,
        "latency_ms": {"p50": round(harness.percentile(latencies, 0.50) or 0, 1),
                       "p99": round(harness.percentile(latencies, 0.99) or 0, 1),
                       "max": round(max(latencies, default=0), 1)},
        "duplicates": sum(n - 1 for n in by_sub.values() if n > 1),
        "pushes_to_watching_players": sum(1 for r in service.received if r.subscription in watching),
        "refused_by_the_push_service": len(service.refused),
        "delivery_outcomes": dict(outcomes),
        "setup_seconds": round(setup_seconds, 1),
        "database": args.database_url.split("@")[-1], "broker": args.broker_url.split("@")[-1],
    }
    print(json.dumps(result, indent=2))
    return 0 if result["duplicates"] == 0 and result["pushes_to_watching_players"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
