"""Clock benchmark (a script, not a test): lag from a turn's deadline to its resolution.

    python -m bench.clocks --timeouts 200
    python -m bench.clocks --timeouts 200 --flood     # while a guest's ten webhooks never answer
    python -m bench.clocks --timeouts 200 --push-load  # while bench.push's players move and are pushed

Starts the service as the run command does: uvicorn and the Procfile's Celery processes (its workers
and beat, sized by the Procfile's settings), on PostgreSQL (``--database-url``, default a
``maumau_bench_clocks`` database on 127.0.0.1, dropped, created and migrated afresh) and a ``redis-server``
of its own (``--broker-url`` names another; the Procfile's queue names are used as they are, so only
a broker nothing else uses). Then starts ``--timeouts`` rounds of two persons who never move, with
``--turn-seconds`` on the clock (deadlines spread over the time it takes to start them), waits until
each round's first turn has been resolved by the clock, and prints JSON: the lag ``ledger row
created_at - deadline`` (p50, p99, max in ms) and how many timeouts were resolved (all by the sweep:
the clocks are the game rows, and nobody looks). Goal: p99 under 1 s (the sweep runs every 0.5 s).

``--flood``: meanwhile a guest whose ten webhooks point at a receiver that accepts connections and
never answers plays practice moves against a bot (``bench.flood``), from before the first round starts
until the last timeout is resolved: every move queues ten deliveries that each take the webhook
timeout. The rounds are closed at the end and everything started is stopped.

``--push-load``: meanwhile bench.push's load runs against the same service (``bench.push.PushLoad``):
``--push-players`` subscribed players, none watching, make ``--push-rate`` moves a second over HTTP
from before the first round starts, each ``your_turn`` pushed by the Procfile's deliveries process to
a local push service answering after 100 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench import harness
from bench.flood import SilentReceiver, WebhookFlood


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeouts", type=int, default=200)
    parser.add_argument("--turn-seconds", type=int, default=10,
                        help="long enough that the deadlines fall after all rounds are started")
    parser.add_argument("--sweep-seconds", type=float, default=0.5)
    parser.add_argument("--flood", action="store_true", help="under a webhook flood to a receiver that never answers")
    parser.add_argument("--flood-head-start", type=int, default=20, help="flood moves made before the rounds start")
    parser.add_argument("--push-load", action="store_true", help="under bench.push's load (moves, pushes)")
    parser.add_argument("--push-players", type=int, default=1000)
    parser.add_argument("--push-rate", type=float, default=200.0, help="moves a second of the push load")
    parser.add_argument("--push-head-start", type=float, default=5.0, help="seconds of push load before the rounds")
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau_bench_clocks"))
    parser.add_argument("--broker-url", default=os.environ.get("BENCH_BROKER_URL", ""),
                        help="default: a redis-server of the benchmark's own")
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="bench-clocks-"))
    redis = None
    broker_url = args.broker_url
    if not broker_url:
        redis = harness.RedisServer(tmp)
        redis.start()
        broker_url = redis.url(0)
    push_load = None
    if args.push_load:
        from bench.push import PushLoad

        push_load = PushLoad(players=args.push_players, rate=args.push_rate)
    env = harness.server_env(tmp, args.database_url, CELERY_BROKER_URL=broker_url,
                             MAUMAU_CLOCK_SWEEP_SECONDS=str(args.sweep_seconds), WEBHOOK_ALLOW_PRIVATE="1",
                             WEBHOOK_ALLOWED_NETWORKS="127.0.0.0/8", LOG_LEVEL="WARNING", **harness.UNTHROTTLED,
                             **(push_load.env if push_load is not None else {}))
    if args.database_url.startswith("postgres"):
        harness.database_create(args.database_url, fresh=True)  # no earlier run's deliveries or rounds
    harness.migrate(env)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "CELERY_BROKER_URL")})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")
    import django

    django.setup()
    from accounts import services as account_services
    from games.models import Game, Move
    from play import services

    games: list[Any] = []
    processes: list[harness.Process] = []
    receiver = SilentReceiver()
    flood: WebhookFlood | None = None
    flooded: dict[str, Any] | None = None
    pushed: dict[str, Any] | None = None
    try:
        port = harness.free_port()
        web = harness.uvicorn("maumau.asgi:application", port, env=env, log=tmp / "web.log")
        processes.append(web)
        processes += harness.procfile_celery(env, tmp)
        web.wait_for_http(port, timeout=90)
        if args.flood:
            flood = WebhookFlood(f"http://127.0.0.1:{port}", receiver.port)
            flood.sign_up()
            flood.start()
            while flood.moves < args.flood_head_start and flood.thread.is_alive():
                time.sleep(0.2)
        if push_load is not None:  # moves until well after the last deadline
            push_load.start(port, seconds=args.push_head_start + args.timeouts * 0.05 + args.turn_seconds + 15)
            time.sleep(args.push_head_start)
        started = time.monotonic()
        for index in range(args.timeouts):
            ada = account_services.player_create(name=f"bench {index} a")[0]
            bo = account_services.player_create(name=f"bench {index} b")[0]
            table = services.table_create(host=ada, rules="classic",
                                          options={"turn_seconds": args.turn_seconds, "timeout_policy": "penalty"})
            services.table_join(table_id=table.pk, player=bo)
            games.append(services.round_start(table_id=table.pk, player=ada))
        setup_seconds = time.monotonic() - started
        deadlines = {g.pk: g.deadline for g in games}
        first: dict[int, Any] = {}
        end = time.monotonic() + args.turn_seconds + 60
        while len(first) < len(games) and time.monotonic() < end:
            time.sleep(0.25)
            for game_id, created_at in (Move.objects.filter(game_id__in=deadlines, seq=1, actor="clock")
                                        .values_list("game_id", "created_at")):
                first[game_id] = created_at
    finally:
        if flood is not None:
            flooded = flood.stop()
        if push_load is not None and push_load.procs:
            pushed = push_load.stop()
        receiver.close()
        for process in processes:
            process.stop(timeout=10)
        if redis is not None:
            redis.stop()
        # Close the bench rounds, so the next run's sweep does not find their passed deadlines.
        Game.objects.filter(pk__in=[g.pk for g in games], status="active").update(
            status="finished", deadline=None, hermann_deadline=None)
    lags = [(first[g] - deadlines[g]).total_seconds() * 1000 for g in first]
    result = {
        "benchmark": "clock lag: deadline -> ledger row of the timeout",
        "timeouts": len(games),
        "resolved": len(lags),
        "unresolved": len(games) - len(lags),
        "turn_seconds": args.turn_seconds,
        "setup_seconds": round(setup_seconds, 2),
        "lag_ms": {
            "p50": round(harness.percentile(lags, 0.50), 1) if lags else None,
            "p99": round(harness.percentile(lags, 0.99), 1) if lags else None,
            "max": round(max(lags), 1) if lags else None,
            "mean": round(statistics.fmean(lags), 1) if lags else None,
            "min": round(min(lags), 1) if lags else None,
        },
        "webhook_flood": flooded,
        "push_load": pushed,
        "celery_processes": {name: command for name, command in harness.procfile().items()
                             if command.startswith("celery ")},
        "sweep_seconds": args.sweep_seconds,
        "database": urlsplit(args.database_url).netloc.split("@")[-1] + urlsplit(args.database_url).path,
        "broker": "a redis-server of its own" if redis is not None else broker_url.split("@")[-1],
    }
    print(json.dumps(result, indent=2))
    return 0 if not result["unresolved"] else 1


if __name__ == "__main__":
    sys.exit(main())
