"""Quick-play benchmark (a script, not a test): concurrent seekers matched into tables over HTTP.

    python -m bench.seeks --seekers 200 --players 2

Starts gunicorn (``--workers`` processes of ``--threads`` threads) on PostgreSQL (``--database-url``,
default a ``maumau_seeks_bench`` database on 127.0.0.1, created and migrated if missing), signs up
``--seekers`` guests, then releases one client thread per guest at once (a barrier): each sends
``POST /api/v1/seeks {"rules": "classic", "players": N}`` and, until its seek is matched, polls
``GET /api/v1/seeks/{id}`` every ``--poll`` seconds. Time to match is from the moment the thread
sent its seek to the answer that shows it matched (the seek that completes a table sees it in its
own answer). It then reads every table made (``GET /tables/{id}``) and counts double seats: a
seeker seated at more than one table or twice at one, a table with more seekers than seats, a seek
matched to a table it does not sit at. Must be 0. Only loopback traffic; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench import harness


def call(connection: http.client.HTTPConnection, method: str, path: str, token: str | None = None,
         body: dict[str, Any] | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    connection.request(method, path, json.dumps(body) if body is not None else None, headers)
    response = connection.getresponse()
    data = response.read()
    return response.status, json.loads(data) if data else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seekers", type=int, default=200)
    parser.add_argument("--players", type=int, default=2, help="seats per table (classic: 2 to 5)")
    parser.add_argument("--poll", type=float, default=0.05, help="seconds between a waiting seeker's polls")
    parser.add_argument("--database-url", default=os.environ.get(
        "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/maumau_seeks_bench"))
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=8, help="threads per gunicorn worker")
    args = parser.parse_args(argv)
    port = args.port or harness.free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "maumau.settings", "DATABASE_URL": args.database_url,
           "MAUMAU_SIGNUP_RATE": "1000000/min", "MAUMAU_WRITE_RATE": "1000000/min", "DEBUG": "false",
           "LOG_LEVEL": "ERROR", "MAUMAU_DB_POOL_MAX_SIZE": str(max(10, args.threads + 2))}
    if args.database_url.startswith("postgres"):
        harness.database_create(args.database_url)
    harness.migrate(env)
    waits: list[float] = []
    matched: dict[int, tuple[int, int]] = {}  # player id -> (seek id, table id)
    errors: Counter[int] = Counter()
    lock = threading.Lock()
    barrier = threading.Barrier(args.seekers)

    def seeker(token: str, player_id: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        barrier.wait()
        started = time.perf_counter()
        status, seek = call(connection, "POST", "/api/v1/seeks", token, {"rules": "classic", "players": args.players})
        if status != 201:
            with lock:
                errors[status] += 1
            return
        while seek["status"] == "open":
            time.sleep(args.poll)
            status, seek = call(connection, "GET", f"/api/v1/seeks/{seek['id']}", token)
        with lock:
            waits.append(time.perf_counter() - started)
            matched[player_id] = (seek["id"], seek["table"])
        connection.close()

    with tempfile.TemporaryDirectory(prefix="bench-seeks-") as scratch:
        server = harness.gunicorn("maumau.wsgi:application", port, workers=args.workers, threads=args.threads,
                                  env=env, log=Path(scratch) / "gunicorn.log")
        try:
            server.wait_for_http(port)
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            guests = []
            for number in range(args.seekers):
                status, body = call(connection, "POST", "/api/v1/players", body={"name": f"Seeker {number}"})
                assert status == 201, (status, body)
                guests.append((body["token"], body["id"]))
            threads = [threading.Thread(target=seeker, args=guest) for guest in guests]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - started
            seated: Counter[int] = Counter()
            double = 0
            tables = sorted({table for _seek, table in matched.values()})
            for table_id in tables:
                status, table = call(connection, "GET", f"/api/v1/tables/{table_id}", guests[0][0])
                players = [seat["player"]["id"] for seat in table["seats"]]
                seated.update(players)
                double += max(0, len(players) - args.players) + len(players) - len(set(players))
            double += sum(count - 1 for count in seated.values() if count > 1)
            double += sum(1 for player, (_seek, table) in matched.items() if seated[player] == 0)
            connection.close()
        finally:
            server.stop(timeout=20)

    def ms(share: float) -> float:
        return round((harness.percentile(waits, share) or 0.0) * 1000, 1)

    report = {
        "benchmark": "POST /api/v1/seeks by concurrent seekers over HTTP under gunicorn, matched into tables",
        "database": args.database_url.split("@")[-1],
        "gunicorn": {"workers": args.workers, "threads": args.threads},
        "seekers": args.seekers,
        "players_per_table": args.players,
        "matched": len(matched),
        "tables": len(tables),
        "errors": dict(errors),
        "seconds": round(elapsed, 2),
        "time_to_match_ms": {"p50": ms(0.5), "p99": ms(0.99), "max": ms(1.0)},
        "double_seats": double,
    }
    print(json.dumps(report, indent=2))
    return 0 if double == 0 and len(matched) == args.seekers else 1


if __name__ == "__main__":
    sys.exit(main())
