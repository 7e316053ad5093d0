"""Clock benchmark (a script, not a test): lag from a turn's deadline to its resolution.

    python -m bench.clocks --timeouts 200

Starts a real Celery worker and beat (the sweep) on PostgreSQL (``--database-url``, default a
``maumau_bench_clocks`` database on 127.0.0.1, created and migrated if missing) and Redis
(``--broker-url``), on a private queue. Then starts ``--timeouts`` rounds of two persons who never
move, with ``--turn-seconds`` on the clock (deadlines spread over the time it takes to start them),
waits until each round's first turn has been resolved by the clock, and prints JSON: the lag
``ledger row created_at - deadline`` (p50, p99, max in ms) and how many timeouts were resolved (all by
the sweep: the clocks are the game rows, and nobody looks). Goal: p99 under one
sweep period and a half. The worker and beat it started are stopped
and its rounds closed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench import harness


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timeouts", type=int, default=200)
    parser.add_argument("--turn-seconds", type=int, default=10,
                        help="long enough that the deadlines fall after all rounds are started")
    parser.add_argument("--concurrency", type=int, default=4, help="worker processes")
    parser.add_argument("--sweep-seconds", type=float, default=1.0)
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau_bench_clocks"))
    parser.add_argument("--broker-url", default=os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/0"))
    args = parser.parse_args(argv)

    queue = f"bench-clocks-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": args.database_url, "CELERY_BROKER_URL": args.broker_url,
           "MAUMAU_CLOCK_QUEUE": queue, "MAUMAU_CLOCK_SWEEP_SECONDS": str(args.sweep_seconds),
           "LOG_LEVEL": "WARNING", "PYTHONPATH": str(harness.ROOT)}
    if args.database_url.startswith("postgres"):
        harness.database_create(args.database_url)
    harness.migrate(env)
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "CELERY_BROKER_URL", "MAUMAU_CLOCK_QUEUE")})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "maumau.settings")
    import django

    django.setup()
    from accounts import services as account_services
    from games.models import Game, Move
    from play import services

    games: list[Any] = []
    tmp = Path(tempfile.mkdtemp(prefix="bench-clocks-"))
    worker = harness.celery("worker", ["-Q", queue, "-n", f"{queue}@%h", "--concurrency", str(args.concurrency),
                                       "--loglevel", "INFO", "--without-gossip", "--without-mingle"],
                            env=env, log=tmp / "worker.log")
    beat = harness.celery("beat", ["--schedule", str(tmp / "beat-schedule"), "--loglevel", "INFO"],
                          env=env, log=tmp / "beat.log")
    try:
        worker.wait_for_output(" ready.")
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
        beat.stop()
        worker.stop()
        if args.broker_url.startswith("redis"):  # the sweep ticks left in the private queue
            import redis

            redis.Redis.from_url(args.broker_url).delete(queue)
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
        "worker_concurrency": args.concurrency,
        "sweep_seconds": args.sweep_seconds,
        "database": urlsplit(args.database_url).netloc.split("@")[-1] + urlsplit(args.database_url).path,
        "broker": args.broker_url.split("@")[-1],
    }
    print(json.dumps(result, indent=2))
    return 0 if not result["unresolved"] else 1


if __name__ == "__main__":
    sys.exit(main())
